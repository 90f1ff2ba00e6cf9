"""The process-wide GitHub HTTP stack: one pooled ``httpx.AsyncClient`` over a persistent RFC 9111 cache.

Layers, outermost first::

    httpx.AsyncClient(follow_redirects=False, split timeouts, our headers)
      └─ hishel AsyncCacheTransport   persistent SQLite cache under CACHE_DIR (with REDIS_URL: the storage
         │                            every replica shares, given by top/services.py): fresh answers cost
         │                            no request, stale ones are revalidated with If-None-Match (304)
         └─ WireTransport             adds Authorization from the request's extensions (the token never
            │                         reaches the cache file) and reports rate-limit headers
            └─ httpx.AsyncHTTPTransport   (or a transport injected by tests)

The store is shared by every visitor of the process, so it is treated as shared: the cache KEY of every
request holds its credential scope (:meth:`GitHubHTTP.scope`, an HMAC of the token under a secret kept
next to the cache, or in Redis for every replica, never the token) and its ``Accept``, so one identity's answers (a private repository
read with someone's token) are never served to another, whatever ``Vary`` the upstream sends or omits
(a proxy, GitHub Enterprise, an emulator). Requests also carry the scope as ``X-Auth-Scope`` and the wire
layer rewrites ``Vary: Authorization`` to ``Vary: X-Auth-Scope`` (a second, RFC-shaped layer); the
stale-cache fallback looks entries up with the same keys (:meth:`GitHubHTTP.cache_key`).
Bodies are read with a cap (:data:`MAX_JSON_BYTES`, or the caller's for raw files): the rest of a
longer answer is never downloaded. Everything per run (token, memo, renames, stats) lives in
:class:`agent_core.github.client.GitHubClient`; this object is shared by all sessions of a process, and
the last rate limit seen per scope (:class:`RateLimitView`) by every replica when it is given a shared one.
What a request cost is read off hishel's ``caching`` status by the client (:func:`exchange_cost`), never
counted on the side.

No wire response is left open (:meth:`GitHubHTTP.fetch`): hishel holds the wire's response while it stores
it or reads a 304, and a cancellation there (Stop, a closed tab, a tool's timeout) dropped it unclosed, its
pooled connection taken for good; once the pool's 20 were taken, every run of the process waited for a
connection until its tools timed out, with no request reaching GitHub.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import secrets
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Protocol

import hishel
import httpx
from hishel.httpx import AsyncCacheTransport

from agent_core.cost import CallCost
from agent_core.errors import CacheMissError
from agent_core.github.ratelimit import RateLimit, parse_rate_limit
from agent_core.offload import outliving

logger = logging.getLogger(__name__)

USER_AGENT = "repo-analyst/0.1 (+https://github.com)"
API_VERSION = "2022-11-28"
JSON_MEDIA = "application/vnd.github+json"
RAW_MEDIA = "application/vnd.github.raw+json"
AUTH_SCOPE_HEADER = "x-auth-scope"
CACHE_TTL_SECONDS = 7 * 24 * 3600  # entries older than a week are dropped even if still valid
MAX_JSON_BYTES = 16 * 1024 * 1024  # GitHub's largest JSON (a truncated tree) is about 7 MB
SCOPE_SECRET_FILE = "scope-secret"  # noqa: S105 - a file name, not a secret


ResponseObserver = Callable[[httpx.Response], None]
WIRE_RESPONSES = "repo_analyst_wire_responses"  # a request's extension: the wire answers it got


class RateLimitView(Protocol):
    """Where the last rate limit seen per credential scope and resource is kept: this process
    (:class:`LocalRateLimits`) or every replica (``agent_core.shared_state.SharedRateLimits``)."""

    def record(self, scope: str, limit: RateLimit) -> None: ...

    def get(self, scope: str, resource: str) -> RateLimit | None: ...


class LocalRateLimits:
    """The rate-limit view of this process alone."""

    def __init__(self) -> None:
        self._limits: dict[tuple[str, str], RateLimit] = {}

    def record(self, scope: str, limit: RateLimit) -> None:
        self._limits[(scope, limit.resource)] = limit

    def get(self, scope: str, resource: str) -> RateLimit | None:
        return self._limits.get((scope, resource))


def exchange_cost(response: httpx.Response) -> CallCost:
    """What one exchange through the stack cost, from hishel's ``caching`` status.

    A fresh cache hit cost no request; a revalidation one (a 304 when nothing changed); a miss one. With
    no cache configured there is no status: every exchange is a request. (hishel's one exception, a 304
    that matches no stored entry and is sent again as a plain request, would count one request short.)
    """
    caching = response.extensions.get("caching")
    if not caching:
        return CallCost(requests=1)
    if caching["from_cache"] and caching["revalidated"]:
        return CallCost(requests=1, revalidated=1, cache_hits=1)
    if caching["from_cache"]:
        return CallCost(cache_hits=1)
    return CallCost(requests=1)


def local_scope_secret(cache_dir: Path | None) -> bytes:
    """The key of the scope fingerprints: kept beside the cache (so entries survive a restart), readable
    by this user only; a fresh one per process without a cache."""
    if cache_dir is None:
        return secrets.token_bytes(32)
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / SCOPE_SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        secret = path.read_bytes()
        if len(secret) >= 32:
            return secret
        path.unlink()
        return local_scope_secret(cache_dir)
    secret = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as handle:
        handle.write(secret)
    return secret


class WireTransport(httpx.AsyncBaseTransport):
    """The last layer before the network (see the module docstring)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        token: str | None = request.extensions.get("repo_analyst_token")
        del request.headers[AUTH_SCOPE_HEADER]
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        response = await self._inner.handle_async_request(request)
        wire: list[httpx.Response] | None = request.extensions.get(WIRE_RESPONSES)
        if wire is not None:
            wire.append(response)
        vary = response.headers.get("vary")
        if vary:
            response.headers["vary"] = ", ".join(
                AUTH_SCOPE_HEADER if part.strip().lower() == "authorization" else part.strip()
                for part in vary.split(",")
            )
        observer: ResponseObserver | None = request.extensions.get("repo_analyst_observer")
        if observer is not None:
            observer(response)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class GitHubHTTP:
    """Shared by every run of the process: the connection pool, the cache, and rate-limit state."""

    def __init__(
        self,
        *,
        api_url: str = "https://api.github.com",
        cache_dir: Path | None = None,
        cache_max_bytes: int = 200 * 1024 * 1024,
        connect_timeout: float = 5.0,
        read_timeout: float = 15.0,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 20,
        storage: hishel.AsyncBaseStorage | None = None,
        scope_secret: bytes | None = None,
        rate_limits: RateLimitView | None = None,
    ) -> None:
        """``storage``, ``scope_secret`` and ``rate_limits`` replace the process's own (a SQLite cache
        under ``cache_dir``, the secret beside it, a dict) with ones every replica shares."""
        self.api_url = api_url.rstrip("/")
        self._base = httpx.URL(self.api_url + "/")
        wire = WireTransport(
            transport or httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=max_connections))
        )
        self.storage: hishel.AsyncBaseStorage | None = storage
        outer: httpx.AsyncBaseTransport = wire
        if cache_dir is not None and storage is None:
            cache_dir.mkdir(parents=True, exist_ok=True)
        self._secret = scope_secret or local_scope_secret(cache_dir)
        if cache_dir is not None and storage is None:
            self.storage = hishel.AsyncSqliteStorage(
                database_path=cache_dir / "github-http-cache.db",
                default_ttl=CACHE_TTL_SECONDS,
                max_size=cache_max_bytes,
            )
        if self.storage is not None:
            outer = AsyncCacheTransport(wire, storage=self.storage, rfc=hishel.CacheOptions(shared=False))
        self.client = httpx.AsyncClient(
            transport=outer,
            follow_redirects=False,
            timeout=httpx.Timeout(read_timeout, connect=connect_timeout),
            headers={
                "Accept": JSON_MEDIA,
                "User-Agent": USER_AGENT,
                "X-GitHub-Api-Version": API_VERSION,
            },
        )
        self._rate_limits: RateLimitView = rate_limits or LocalRateLimits()

    async def fetch(self, request: httpx.Request, max_bytes: int | None = None) -> httpx.Response:
        """Send ``request`` and read its body up to the cap (:func:`read_capped`). However it ends
        (answered, failed, cancelled), every answer the wire got for it is closed, its pooled connection
        given back (see the module docstring)."""
        wire: list[httpx.Response] = []
        request.extensions[WIRE_RESPONSES] = wire
        try:
            response = await self.client.send(request, stream=True)
            try:
                await read_capped(response, max_bytes)
            finally:
                await response.aclose()
        finally:
            left_open = [r for r in wire if not r.is_closed]  # the one handed on closes with it
            if left_open:
                await _close_all(left_open)
        return response

    def same_origin(self, url: httpx.URL) -> bool:
        """True when ``url`` is on the configured API host and under its base path."""
        return (
            url.scheme == self._base.scheme
            and url.host == self._base.host
            and url.port == self._base.port
            and url.path.startswith(self._base.path)
        )

    def url(self, path: str) -> str:
        return self.api_url + path

    def scope(self, token: str | None) -> str:
        """The credential scope of ``token``: "anonymous", or a keyed, non-reversible fingerprint."""
        if not token:
            return "anonymous"
        return "t-" + hmac.new(self._secret, token.encode(), hashlib.sha256).hexdigest()[:32]

    @staticmethod
    def cache_key(url: str, *, scope: str, accept: str) -> str:
        """The cache key of a request: its URL, credential scope and media type (never the URL alone)."""
        return hashlib.sha256(f"RFC {url}\nscope={scope}\naccept={accept}".encode()).hexdigest()

    @property
    def base_path(self) -> str:
        return self._base.path.rstrip("/")

    def record_rate_limit(self, scope: str, response: httpx.Response) -> RateLimit | None:
        limit = parse_rate_limit(response.headers, authenticated=scope != "anonymous")
        if limit is not None:
            self._rate_limits.record(scope, limit)
        return limit

    def rate_limit(self, token: str | None, resource: str = "core") -> RateLimit | None:
        """The last limit seen for ``token``'s scope: by this process, or by any replica when shared."""
        return self._rate_limits.get(self.scope(token), resource)

    async def newest_stored(
        self, url: str, *, scope: str, accept: str
    ) -> tuple[bytes, dict[str, str], float] | None:
        """The newest stored 200 answer for ``url`` in ``scope`` and ``accept`` (body, headers, Date as
        epoch), whatever its age; None when there is none. Looked up with the same key as requests."""
        if self.storage is None:
            raise CacheMissError("no cache configured")
        best: tuple[float, Any] | None = None
        for entry in await self.storage.get_entries(self.cache_key(url, scope=scope, accept=accept)):
            headers = entry.request.headers
            if headers.get(AUTH_SCOPE_HEADER) != scope or headers.get("accept") != accept:
                continue
            if entry.response.status_code != 200:
                continue
            stored_at = _date(entry.response.headers.get("date"))
            if best is None or stored_at > best[0]:
                best = (stored_at, entry)
        if best is None:
            return None
        stored_at, entry = best
        chunks, size = [], 0
        async for chunk in entry.response.stream:
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_JSON_BYTES:
                raise CacheMissError("the stored answer is too large to read")
        return b"".join(chunks), dict(entry.response.headers.items()), stored_at

    async def aclose(self) -> None:
        await self.client.aclose()


async def _close_all(responses: list[httpx.Response]) -> None:
    """Close ``responses`` (idempotent); a cancellation of the caller meanwhile does not stop the close."""
    await asyncio.shield(outliving(asyncio.gather(*(r.aclose() for r in responses), return_exceptions=True)))


async def read_capped(response: httpx.Response, max_bytes: int | None) -> None:
    """Read ``response``'s body into ``response.content``, at most ``max_bytes`` (default
    :data:`MAX_JSON_BYTES`); the rest is never downloaded. Marks ``repo_analyst_truncated``."""
    cap = MAX_JSON_BYTES if max_bytes is None else max_bytes
    chunks: list[bytes] = []
    size = 0
    truncated = False
    async for chunk in response.aiter_bytes():
        if size + len(chunk) > cap:
            chunks.append(chunk[: cap - size])
            truncated = True
            break
        chunks.append(chunk)
        size += len(chunk)
    response._content = b"".join(chunks)  # what httpx's own aread() sets
    response.extensions["repo_analyst_truncated"] = truncated


def _date(value: str | None) -> float:
    if not value:
        return 0.0
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return 0.0
