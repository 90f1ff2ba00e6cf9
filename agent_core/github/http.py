"""The process-wide GitHub HTTP stack: one pooled ``httpx.AsyncClient`` over a persistent RFC 9111 cache.

Layers, outermost first::

    httpx.AsyncClient(follow_redirects=False, split timeouts, our headers)
      └─ hishel AsyncCacheTransport   persistent SQLite cache under CACHE_DIR: fresh answers cost no
         │                            request, stale ones are revalidated with If-None-Match (304)
         └─ WireTransport             adds Authorization from the request's extensions (the token never
            │                         reaches the cache file) and reports rate-limit headers
            └─ httpx.AsyncHTTPTransport   (or a transport injected by tests)

The cache key separates identities without storing tokens: requests carry ``X-Auth-Scope`` (a short
fingerprint of the token, or "anonymous") and the wire layer rewrites GitHub's ``Vary: Authorization``
to ``Vary: X-Auth-Scope``.  Everything per run (token, memo, renames, stats) lives in
:class:`agent_core.github.client.GitHubClient`; this object is shared by all sessions of a process.
What a request cost is read off hishel's ``caching`` status by the client (:func:`exchange_cost`), never
counted on the side.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

import hishel
import httpx
from hishel.httpx import AsyncCacheTransport

from agent_core.cost import CallCost
from agent_core.github.ratelimit import RateLimit, parse_rate_limit

logger = logging.getLogger(__name__)

USER_AGENT = "repo-analyst/0.1 (+https://github.com)"
API_VERSION = "2022-11-28"
JSON_MEDIA = "application/vnd.github+json"
RAW_MEDIA = "application/vnd.github.raw+json"
AUTH_SCOPE_HEADER = "x-auth-scope"
CACHE_TTL_SECONDS = 7 * 24 * 3600  # entries older than a week are dropped even if still valid


ResponseObserver = Callable[[httpx.Response], None]


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


def auth_scope(token: str | None) -> str:
    """A non-reversible fingerprint that keys cache entries per identity."""
    if not token:
        return "anonymous"
    return "t-" + hashlib.sha256(token.encode()).hexdigest()[:16]


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
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self._base = httpx.URL(self.api_url + "/")
        wire = WireTransport(
            transport or httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=max_connections))
        )
        self.storage: hishel.AsyncBaseStorage | None = None
        outer: httpx.AsyncBaseTransport = wire
        if cache_dir is not None:
            cache_dir.mkdir(parents=True, exist_ok=True)
            self.storage = hishel.AsyncSqliteStorage(
                database_path=cache_dir / "github-http-cache.db",
                default_ttl=CACHE_TTL_SECONDS,
                max_size=cache_max_bytes,
            )
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
        self._rate_limits: dict[tuple[str, str], RateLimit] = {}

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

    @property
    def base_path(self) -> str:
        return self._base.path.rstrip("/")

    def record_rate_limit(self, scope: str, response: httpx.Response) -> RateLimit | None:
        limit = parse_rate_limit(response.headers, authenticated=scope != "anonymous")
        if limit is not None:
            self._rate_limits[(scope, limit.resource)] = limit
        return limit

    def rate_limit(self, token: str | None, resource: str = "core") -> RateLimit | None:
        return self._rate_limits.get((auth_scope(token), resource))

    async def aclose(self) -> None:
        await self.client.aclose()
