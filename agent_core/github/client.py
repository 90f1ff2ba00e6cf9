"""The per-run GitHub client: one request at a time, classified into typed errors, never retried here.

It owns what belongs to one run: the token, the in-run memo (the same resource is never requested twice
in a run, even by parallel calls), the renamed repositories learned from 301s, and the scope of hosts.
Retries, breakers and fallbacks wrap it one level up (:mod:`agent_core.tools.executor`); the answers
it raises follow the status table of ``shared/notes/github-api.md``:

==========================  ==============================================================
2xx, 304 (via the cache)    :class:`GitHubResponse`
301/302/307 same host       followed once; a 301 on ``/repos/o/r`` is remembered for the run
redirect to another host    :class:`RedirectRefusedError`
404, 410                    :class:`NotFoundError` ("not found or private")
409 empty repository        a response with ``empty_repository=True`` (callers return empty results)
403/429 rate limits         :class:`RateLimitError` with the reset time and a hint
401, other 403              :class:`PermissionDeniedError`
5xx, timeouts, resets       :class:`TransientError`
==========================  ==============================================================
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

import httpx

from agent_core.clock import Clock, SystemClock
from agent_core.cost import FREE, CallCost
from agent_core.errors import (
    CacheMissError,
    GitHubError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RedirectRefusedError,
    TransientError,
)
from agent_core.github.failures import transport_error
from agent_core.github.http import (
    AUTH_SCOPE_HEADER,
    JSON_MEDIA,
    MAX_JSON_BYTES,
    RAW_MEDIA,
    GitHubHTTP,
    exchange_cost,
)
from agent_core.github.ratelimit import RateLimit, classify_limit, error_message
from agent_core.repo import Renames, RepoRef, repo_api_path
from agent_core.resilience import HourlyQuota

logger = logging.getLogger(__name__)

REQUESTS_SEEN: ContextVar[list[int] | None] = ContextVar("github_requests_seen", default=None)
"""Set to a list, it gets the requests GitHub saw of each exchange made in this context (and the tasks
it starts): what a public API tool call really cost (:mod:`agent_core.web.mcp`)."""
RATE_LIMIT_HINT = "set GITHUB_TOKEN (or paste a token in Settings) for 5,000 requests/hour instead of 60"
QUOTA_HINT = "paste your own GitHub token in Settings to use your own quota"
_REPOSITORIES_RE = re.compile(r"^/repositories/(\d+)(?=/|$)")


@dataclass(frozen=True, kw_only=True)
class GitHubResponse:
    status: int
    headers: Mapping[str, str]
    content: bytes
    from_cache: bool = False
    stale_age_s: float | None = None  # set when served from the cache without GitHub (fallback)
    empty_repository: bool = False
    cost: CallCost = FREE  # what getting this answer cost (a memo hit: nothing but a cache hit)
    truncated: bool = False  # the body was longer than the cap: ``content`` is its beginning only

    def json(self) -> Any:
        return json.loads(self.content) if self.content else None


class GitHubClient:
    """One run's view of GitHub. Cheap to create; the heavy parts live in the shared :class:`GitHubHTTP`."""

    def __init__(
        self,
        http: GitHubHTTP,
        *,
        token: str | None = None,
        clock: Clock | None = None,
        on_rate_limit: Callable[[RateLimit], None] | None = None,
        quota: HourlyQuota | None = None,
        renames: Renames | None = None,
    ) -> None:
        """``quota``: the hourly allowance each request to GitHub draws from (a public Space's);
        ``renames``: the run's map of renamed repositories (its toolbox reads the same)."""
        self._http = http
        self._token = token or None
        self._scope = http.scope(self._token)
        self._quota = quota
        self._clock = clock or SystemClock()
        self._on_rate_limit = on_rate_limit
        self._memo: dict[tuple[str, str], asyncio.Future[GitHubResponse]] = {}
        self.renames = renames if renames is not None else Renames()  # shared with the run's toolbox
        self.cache_only = False

    # -- identity and scope -------------------------------------------------------------------------

    @property
    def authenticated(self) -> bool:
        return self._token is not None

    @property
    def rate_limit(self) -> RateLimit | None:
        return self._http.rate_limit(self._token)

    def canonical(self, repo: RepoRef) -> RepoRef:
        """The repository's current name when a rename was learned in this run, else ``repo``."""
        return self.renames.current(repo)

    def learn_canonical(self, typed: RepoRef, full_name: str) -> None:
        if self.renames.learn_name(typed, full_name):
            logger.info("repository %s is now %s", typed.full_name, full_name)

    def repo_path(self, repo: RepoRef, *segments: str, path: str | None = None) -> str:
        """``/repos/{owner}/{repo}/...`` with validated, percent-encoded parts; after a learned rename,
        ``/repositories/{id}/...`` so no further redirect is paid."""
        built = repo_api_path(repo.owner, repo.name, *segments, path=path)
        moved = self.renames.id_path(repo)
        if moved is None:
            return built
        # ``built`` starts with /repos/{owner}/{name}/: keep what follows the first three segments.
        rest = built.split("/", 4)[4] if built.count("/") >= 4 else ""
        return f"{moved}/{rest}" if rest else moved

    def stale_view(self) -> GitHubClient:
        """A client that answers only from the persistent cache (any age) — the fallback's source."""
        view = copy.copy(self)  # shallow: shares the renames learned in this run
        view._memo = {}
        view.cache_only = True
        return view

    # -- requests ---------------------------------------------------------------------------------------

    async def get_repo(
        self,
        repo: RepoRef,
        *segments: str,
        path: str | None = None,
        params: Mapping[str, str | int] | None = None,
        accept: str = JSON_MEDIA,
        max_bytes: int | None = None,
    ) -> GitHubResponse:
        """GET a repository resource. No request waits for another: a renamed repository costs one
        redirect per request sent before its info came back (the calls of the turn asking for the info),
        none after (:meth:`repo_path`). ``max_bytes`` caps a raw body (JSON bodies are capped at
        :data:`MAX_JSON_BYTES`)."""
        return await self.get(
            self.repo_path(repo, *segments, path=path), params=params, accept=accept, max_bytes=max_bytes
        )

    async def get(
        self,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        accept: str = JSON_MEDIA,
        max_bytes: int | None = None,
    ) -> GitHubResponse:
        """GET an API path (already built by :meth:`repo_path`), memoised for the run."""
        request = self._build(path, params, accept)
        request.extensions["repo_analyst_max_bytes"] = max_bytes if accept == RAW_MEDIA else None
        key = (str(request.url), accept)
        if self.cache_only:
            return await self._from_cache(request)
        existing = self._memo.get(key)
        if existing is not None:  # the same resource earlier in this run: free
            return replace(await asyncio.shield(existing), cost=CallCost(cache_hits=1))
        future: asyncio.Future[GitHubResponse] = asyncio.get_running_loop().create_future()
        self._memo[key] = future
        try:
            response = await self._send(request, path)
        except BaseException as exc:
            del self._memo[key]  # failures are not memoised: a retry must really retry
            if not future.done():
                future.set_exception(exc)
                future.exception()  # mark retrieved: waiters re-raise it, nobody else must
            raise
        future.set_result(response)
        return response

    def _build(self, path: str, params: Mapping[str, str | int] | None, accept: str) -> httpx.Request:
        request = self._http.client.build_request(
            "GET",
            self._http.url(path),
            params={k: str(v) for k, v in (params or {}).items()} or None,
            headers={"Accept": accept, AUTH_SCOPE_HEADER: self._scope},
            extensions={"repo_analyst_token": self._token, "repo_analyst_observer": self._observe},
        )
        # The credential scope is part of the cache key itself (see agent_core.github.http).
        key = self._http.cache_key(str(request.url), scope=self._scope, accept=accept)
        request.extensions["caching"] = {"key": key}
        return request

    def _observe(self, response: httpx.Response) -> None:
        limit = self._http.record_rate_limit(self._scope, response)
        if limit is not None and self._on_rate_limit is not None:
            self._on_rate_limit(limit)

    async def _send(self, request: httpx.Request, path: str) -> GitHubResponse:
        self._fail_fast_if_exhausted()
        response, cost = await self._exchange(request, FREE)
        if response.status_code in (301, 302, 307, 308):
            response, cost = await self._follow(request, response, path, cost)
        try:
            return self._interpret(response, cost)
        except GitHubError as exc:
            exc.requests = cost.requests
            raise

    def _take_quota(self, spent: CallCost) -> None:
        if self._quota is not None and not self._quota.take(1):
            minutes = max(1, round(self._quota.retry_after() / 60))
            raise RateLimitError(
                f"this Space's hourly GitHub budget ({self._quota.limit:,} requests) is used up; "
                f"it frees up in about {minutes} min",
                status=None,
                kind="space",
                reset_at=self._clock.wall() + self._quota.retry_after(),
                retry_after=self._quota.retry_after(),
                hint=QUOTA_HINT,
                requests=spent.requests,
            )

    async def _exchange(self, request: httpx.Request, spent: CallCost) -> tuple[httpx.Response, CallCost]:
        """One exchange through the stack, its body read up to the cap; returns the response (``content``
        set, ``truncated`` in its extensions) and ``spent`` plus what it cost."""
        self._take_quota(spent)
        try:
            response = await self._http.fetch(request, request.extensions.get("repo_analyst_max_bytes"))
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            raise transport_error(exc, request, requests=spent.requests + 1) from exc
        cost = exchange_cost(response)
        if (counter := REQUESTS_SEEN.get()) is not None:
            counter.append(cost.requests)
        if self._quota is not None and cost.requests == 0:
            self._quota.refund(1)  # a fresh answer from the cache: GitHub saw nothing
        return response, spent + cost

    async def _follow(
        self, request: httpx.Request, response: httpx.Response, path: str, spent: CallCost
    ) -> tuple[httpx.Response, CallCost]:
        location = response.headers.get("location")
        target = request.url.join(location) if location else None
        if target is None or not self._http.same_origin(target):
            host = target.host if target is not None else "?"
            raise RedirectRefusedError(
                f"GitHub redirected to another host ({host}); the request was not followed",
                status=response.status_code,
                requests=spent.requests,
            )
        relative = target.raw_path.decode("ascii")[len(self._http.base_path) :]
        if response.status_code == 301:
            self._remember_move(path, relative.split("?", 1)[0])
        follow = self._build(relative.split("?", 1)[0], None, request.headers["Accept"])
        follow = self._http.client.build_request(
            "GET", target, headers=follow.headers, extensions=follow.extensions
        )
        followed, spent = await self._exchange(follow, spent)
        if followed.status_code in (301, 302, 307, 308):
            raise GitHubError(
                "GitHub redirected more than once; giving up",
                status=followed.status_code,
                requests=spent.requests,
            )
        return followed, spent

    def _remember_move(self, old_path: str, new_path: str) -> None:
        old = re.match(r"^/repos/([^/]+)/([^/]+)", old_path)
        new = _REPOSITORIES_RE.match(new_path)
        if old and new:
            self.renames.learn_id_path(f"{old.group(1)}/{old.group(2)}", f"/repositories/{new.group(1)}")

    def _interpret(self, response: httpx.Response, cost: CallCost) -> GitHubResponse:
        status = response.status_code
        truncated = bool(response.extensions.get("repo_analyst_truncated"))
        if 200 <= status < 300:
            if truncated and response.request.extensions.get("repo_analyst_max_bytes") is None:
                raise GitHubError(f"GitHub's answer was larger than {MAX_JSON_BYTES:,} bytes; not read")
            return GitHubResponse(
                status=status,
                headers=dict(response.headers),
                content=response.content,
                from_cache=bool((response.extensions.get("caching") or {}).get("from_cache")),
                cost=cost,
                truncated=truncated,
            )
        message = error_message(response.content)
        if status in (404, 409) and "repository is empty" in message.lower():
            return GitHubResponse(
                status=409, headers=dict(response.headers), content=b"", empty_repository=True, cost=cost
            )
        if status in (403, 429):
            self._raise_limit(response, message)
        if status in (404, 410):
            raise NotFoundError("not found or private (GitHub answers 404 for both)", status=status)
        if status == 401:
            raise PermissionDeniedError(
                "GitHub rejected the token (401 Bad credentials)", status=status, hint="check GITHUB_TOKEN"
            )
        if status >= 500:
            raise TransientError(f"GitHub server error (HTTP {status})", status=status)
        raise GitHubError(f"GitHub refused the request (HTTP {status}): {message[:120]}", status=status)

    def _raise_limit(self, response: httpx.Response, message: str) -> None:
        now = self._clock.wall()
        verdict = classify_limit(response.status_code, response.headers, response.content, now_wall=now)
        if verdict.kind == "forbidden":
            raise PermissionDeniedError(
                f"GitHub refused access (HTTP {response.status_code}): {message[:120]}",
                status=response.status_code,
            )
        raise self._limit_error(verdict.kind, response.status_code, verdict.reset_at, verdict.wait)

    def _limit_error(
        self, kind: str, status: int | None, reset_at: float | None, wait: float | None
    ) -> RateLimitError:
        when = time.strftime("%H:%M:%S UTC", time.gmtime(reset_at)) if reset_at else "later"
        minutes = f" (in {max(0, round((wait or 0) / 60))} min)" if wait is not None else ""
        if kind == "primary":
            message = f"GitHub API rate limit exhausted; it resets at {when}{minutes}"
        else:
            message = f"GitHub secondary rate limit hit; retry after {wait or 60:.0f}s"
        return RateLimitError(
            message,
            status=status,
            kind=kind,
            reset_at=reset_at,
            retry_after=wait,
            hint=None if self.authenticated else RATE_LIMIT_HINT,
        )

    def _fail_fast_if_exhausted(self) -> None:
        """Known exhaustion: refuse before spending a request GitHub would refuse anyway."""
        limit = self.rate_limit
        now = self._clock.wall()
        if limit is not None and limit.exhausted(now):
            raise self._limit_error("primary", None, limit.reset_at, limit.reset_at - now + 1)

    async def _from_cache(self, request: httpx.Request) -> GitHubResponse:
        """The newest stored 200 answer for this URL and identity, whatever its age."""
        found = await self._http.newest_stored(
            str(request.url), scope=self._scope, accept=request.headers.get("accept", "")
        )
        if found is None:
            raise CacheMissError("no earlier answer is stored for this request")
        content, headers, stored_at = found
        age = max(0.0, self._clock.wall() - stored_at) if stored_at else None
        return GitHubResponse(
            status=200,
            headers=headers,
            content=content,
            from_cache=True,
            stale_age_s=age,
            cost=CallCost(cache_hits=1, stale_age_s=age),
        )
