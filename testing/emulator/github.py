"""A GitHub REST API emulator for tests: a real HTTP/1.1 server on 127.0.0.1 backed by real git repositories.

It serves the subset of the API (version 2022-11-28) that repo-analyst uses, with GitHub's shapes and
quirks: case-insensitive names, renamed repositories (301 to ``/repositories/{id}``), private
repositories answering 404, the contents API's 1,000-entry listings, ``encoding: "none"`` for large
files, the raw media type, symlinks and submodules, 409 for empty repositories, ETags and 304s,
primary rate limits per identity (a token, else the client IP) and the User-Agent requirement.

Tests can also inject faults (statuses, secondary limits, dropped or hung connections, latency,
redirects to another host), queued per path or drawn at random from a seed
(:meth:`GitHubEmulator.random_faults`), and observe every request (:attr:`GitHubEmulator.requests`,
with the fault that answered it; the in-flight peak; :meth:`GitHubEmulator.wait_idle`). All state
lives in one :class:`GitHubEmulator`; nothing is shared between two of them.

    with GitHubEmulator() as emu:
        emu.add_repo("octo/demo", sample_python_project(tmp_path / "demo"))
        httpx.get(f"{emu.base_url}/repos/octo/demo", headers={"User-Agent": "t"})

Answers to fault injection (``fail``, ``secondary_limit``, ``redirect_elsewhere``) and to a missing
User-Agent come from "the front end": they never count against the rate limit and carry no rate-limit
headers. ``/rate_limit`` never counts either; a 304 counts only when the request had no Authorization.

This module holds :class:`GitHubEmulator` (its public API, and the pipeline every request goes
through); the JSON objects and endpoints are in :mod:`testing.emulator.github_payloads` and
:mod:`testing.emulator.github_views`, faults and rate limits in :mod:`testing.emulator.github_faults`,
the request handler in :mod:`testing.emulator.github_http` (served by
:class:`testing.loopback.LoopbackServer`), shared values in :mod:`testing.emulator.github_values`.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import unquote

from testing.clock import RealWaits, Waits
from testing.emulator.github_faults import (
    FaultPlan,
    RandomFaultConfig,
    RandomFaults,
    RateLimits,
    canned,
    secondary_limit_answer,
)
from testing.emulator.github_http import (
    Handler,
    Incoming,
    etag_for,
    etag_matches,
    parse_request,
    plain_headers,
)
from testing.emulator.github_values import (
    API_VERSION,
    DOC_URLS,
    DOCS,
    RAW_TYPE,
    ApiError,
    Limits,
    RecordedRequest,
    Repo,
    Response,
    Step,
    json_response,
    not_found,
)
from testing.emulator.github_views import RepoView
from testing.emulator.gitrepo import GitReader
from testing.loopback import LoopbackServer

__all__ = ["GitHubEmulator", "RecordedRequest"]

_VARY = "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding"
_MOVED_DOCS = f"{DOCS}/guides/best-practices-for-using-the-rest-api#follow-redirects"
_NO_USER_AGENT = (
    "Request forbidden by administrative rules. Please make sure your request has a User-Agent header "
    "(https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). "
    "Check https://developer.github.com for other possible causes.\n"
)
TIMEOUT_ANNOUNCED = "x-emulator-timeout"
"""The header of a random timeout answered at once (``announce_timeouts``): "the client timed out here"."""
TIMED_OUT = Response(status=504, body=b"", content_type=None)

_REPO_PATH = re.compile(r"^/repos/([^/]+)/([^/]+)(/.*)?$")
_ID_PATH = re.compile(r"^/repositories/(\d+)(/.*)?$")


class GitHubEmulator:
    """A loopback GitHub REST API over real git repositories. See the module docstring.

    Tunables are plain attributes, read at each request: ``max_dir_entries`` (1,000),
    ``max_inline_size`` (1,000,000 bytes), ``max_tree_entries`` (100,000) and ``max_tree_bytes``
    (7,000,000: where a recursive trees request is cut, answering ``"truncated": true``; set them small
    to cut a small tree), ``limit_unauthenticated``
    (60), ``limit_authenticated`` (5,000), ``reset_at`` (epoch of the rate-limit reset, default now +
    1 hour), ``cache_control`` (GitHub's "private, max-age=60, s-maxage=60"; set "private, max-age=0"
    to make HTTP caches revalidate every time), ``send_vary`` (True; False omits the ``Vary`` header, as
    some proxies and GitHub Enterprise setups do), ``logins`` (commit email -> GitHub login) and ``waits``
    (how :meth:`latency` and the random stalls wait: the wall clock, or a :class:`testing.clock.HeldWaits`
    that holds each request until the test releases it), ``stamp`` (what the request log's ``started``
    and ``finished`` read: ``time.monotonic``, or a shared virtual clock's ``monotonic``) and
    ``announce_timeouts`` (False; True: a random timeout is not held but answered at once with the
    :data:`TIMEOUT_ANNOUNCED` header, which :class:`testing.github.AnnouncedTimeouts` turns into the
    client's read timeout, so that no test waits one out). Every public method is thread-safe.
    """

    def __init__(self, *, prefix: str = "", waits: Waits | None = None) -> None:
        """``prefix`` mounts the API under a path, e.g. "/api/v3" like GitHub Enterprise Server;
        ``waits`` is how latencies and random stalls wait (see the class docstring)."""
        self.prefix = prefix.rstrip("/")
        self.waits: Waits = waits or RealWaits()
        self.stamp: Callable[[], float] = time.monotonic
        self.announce_timeouts = False
        self.max_dir_entries = 1000
        self.max_inline_size = 1_000_000
        self.max_tree_entries = 100_000
        self.max_tree_bytes = 7_000_000
        self.limit_unauthenticated = 60
        self.limit_authenticated = 5000
        self.reset_at = int(time.time()) + 3600
        self.cache_control = "private, max-age=60, s-maxage=60"
        self.send_vary = True
        self.logins: dict[str, str] = {}
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified when the last in-flight request ends
        self._stopping = threading.Event()
        self._server: LoopbackServer | None = None
        self._origin = ""  # base URL of the last start; kept after stop for requests still finishing
        self._repos: dict[int, Repo] = {}
        self._moved: dict[str, int] = {}
        self._next_id = 100_001
        self._rates = RateLimits(self)
        self._faults = FaultPlan()
        self._random: RandomFaults | None = None
        self._log: list[RecordedRequest] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._request_ids = 0

    # -- lifecycle

    def start(self) -> Self:
        """Bind an ephemeral port on 127.0.0.1 and serve in a background thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = LoopbackServer(partial(Handler, emulator=self), name="github-emulator")
        self._origin = f"{self._server.url}{self.prefix}"
        self._server.start()
        return self

    def stop(self) -> None:
        """Stop serving, release hung requests and close every open connection. Idempotent."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (plus the prefix); only while started."""
        if self._server is None:
            raise RuntimeError("the emulator is not started")
        return self._origin

    # -- repositories

    def add_repo(
        self,
        full_name: str,
        path: Path,
        *,
        id: int | None = None,
        description: str | None = None,
        stars: int = 0,
        forks: int = 0,
        open_issues: int = 0,
        topics: Sequence[str] = (),
        private: bool = False,
        readers: Sequence[str] = (),
        license: str | None = "MIT",
        homepage: str | None = None,
        archived: bool = False,
    ) -> int:
        """Serve the git repository at ``path`` as ``owner/name``; returns its numeric id.

        A ``private`` repository answers 404 except to a request carrying one of the ``readers`` tokens."""
        owner, name = full_name.split("/")
        with self._lock:
            repo_id = id if id is not None else self._next_id
            self._next_id = max(self._next_id, repo_id) + 1
            self._repos[repo_id] = Repo(
                id=repo_id,
                owner=owner,
                name=name,
                reader=GitReader(path),
                description=description,
                stars=stars,
                forks=forks,
                open_issues=open_issues,
                topics=tuple(topics),
                private=private,
                readers=frozenset(readers),
                license=license,
                homepage=homepage,
                archived=archived,
            )
        return repo_id

    def rename(self, old: str, new: str) -> None:
        """Rename (or transfer) a repository; its old name then answers 301 to ``/repositories/{id}``."""
        with self._lock:
            repo = self._find(old)
            if repo is None:
                raise KeyError(old)
            owner, name = new.split("/")
            self._repos[repo.id] = replace(repo, owner=owner, name=name)
            self._moved[old.lower()] = repo.id

    def _find(self, full_name: str) -> Repo | None:
        key = full_name.lower()
        return next((r for r in self._repos.values() if r.full_name.lower() == key), None)

    # -- rate limits

    def exhaust(self, identity: str | None = None, reset_in: int = 3600) -> None:
        """Set remaining to 0 until ``now + reset_in`` for one identity (a token or an IP) or everyone."""
        self._rates.exhaust(identity, reset_in)

    def replenish(self, identity: str | None = None) -> None:
        """Forget usage and exhaustion (for one identity or everyone), as if the window had reset."""
        self._rates.replenish(identity)

    def remaining(self, identity: str) -> int:
        """Requests left for a token or an IP (e.g. "127.0.0.1")."""
        return self._rates.remaining(identity)

    # -- faults

    def fail(
        self,
        path_regex: str,
        statuses: Sequence[int] = (503,),
        *,
        retry_after: int | None = None,
        body: str | bytes | Mapping[str, Any] | None = None,
    ) -> None:
        """The next matching requests get ``statuses``, one each, in order; then normal service.

        ``body``: a mapping is sent as JSON, text or bytes as HTML; default ``{"message": <reason>}``.
        """
        steps: deque[Step] = deque(canned(s, retry_after=retry_after, body=body) for s in statuses)
        self._faults.add(path_regex, steps)

    def secondary_limit(
        self, path_regex: str, times: int = 1, retry_after: int | None = 60, *, status: int = 403
    ) -> None:
        """The next ``times`` matching requests hit a secondary rate limit (``retry-after`` if given)."""
        self._faults.add(path_regex, deque([secondary_limit_answer(status, retry_after)] * times))

    def drop(self, path_regex: str, times: int = 1) -> None:
        """Close the connection without any answer (the client sees a disconnect)."""
        self._faults.add(path_regex, deque(["drop"] * times))

    def hang(self, path_regex: str, times: int = 1) -> None:
        """Never answer (until :meth:`stop`, which then closes the connection): trips read timeouts."""
        self._faults.add(path_regex, deque(["hang"] * times))

    def redirect_elsewhere(self, path_regex: str, location: str, *, times: int = 1) -> None:
        """Answer 302 with ``Location: location`` (another host: the client must refuse to follow)."""
        headers = (("Location", location),)
        self._faults.add(
            path_regex, deque([Response(status=302, content_type=None, headers=headers)] * times)
        )

    def latency(self, seconds: float, path_regex: str = ".*") -> None:
        """Delay every matching request by ``seconds`` before answering (delays stack; requests overlap)."""
        self._faults.add_latency(seconds, path_regex)

    def random_faults(
        self,
        seed: int,
        *,
        rate_5xx: float = 0.0,
        rate_timeout: float = 0.0,
        stall_seconds: float = 1.0,
        burst_429: int = 0,
        burst_start: int = 0,
        burst_retry_after: int = 0,
        down_path: str | None = None,
    ) -> RandomFaultConfig:
        """From now on, answer requests with seeded random faults (after any queued fault).

        ``rate_5xx`` of the requests get 500/502/503/504, ``rate_timeout`` are held ``stall_seconds``
        (longer than the client's read timeout) and then dropped, ``burst_429`` consecutive requests from
        the ``burst_start``-th on get a secondary-limit 429 (``retry-after: burst_retry_after``), and every
        request matching ``down_path`` answers 503. Each one is logged with its ``fault`` kind
        (:class:`~testing.emulator.github_faults.RandomFaults` says how the draws work).
        """
        config = RandomFaultConfig(
            seed=seed,
            rate_5xx=rate_5xx,
            rate_timeout=rate_timeout,
            stall_seconds=stall_seconds,
            burst_429=burst_429,
            burst_start=burst_start,
            burst_retry_after=burst_retry_after,
            down_path=down_path,
        )
        with self._lock:
            self._random = RandomFaults(config)
        return config

    def reset_faults(self) -> None:
        """Forget queued faults, latencies and the random mode."""
        self._faults.clear()
        with self._lock:
            self._random = None

    # -- observability

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every finished request, oldest first."""
        with self._lock:
            return list(self._log)

    def request_paths(self) -> list[str]:
        return [r.decoded_path for r in self.requests]

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The peak number of requests being handled at once since start (or :meth:`clear_log`)."""
        with self._lock:
            return self._max_in_flight

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is being handled (held or hung ones included); False on ``timeout``."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout)

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()
            self._max_in_flight = self._in_flight

    # -- request pipeline

    def _serve(self, handler: Handler) -> None:
        started = self.stamp()
        incoming = parse_request(handler)
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._request_ids += 1
            request_id = f"{self._request_ids:04X}:0000:0000000:0000000:00000000"
        response: Response | None = None
        headers: list[tuple[str, str]] = []
        counted = False
        fault: str | None = None
        try:
            response, headers, counted, fault = self._answer(incoming)
        finally:
            # Recorded before the answer is written, so a client that has its answer also sees the record;
            # an announced timeout is logged as what the client makes of it: no answer.
            seen = None if fault == "timeout" else response
            self._finish(incoming, started=started, response=seen, counted=counted, fault=fault)
        if response is None:
            handler.close_connection = True  # answer nothing: the client sees a disconnect
        else:
            handler.write(response, [*headers, ("x-github-request-id", request_id)])

    def _finish(
        self, req: Incoming, *, started: float, response: Response | None, counted: bool, fault: str | None
    ) -> None:
        record = RecordedRequest(
            method=req.method,
            path=req.raw_path,
            query=req.query,
            decoded_path=req.decoded_path,
            authorized=req.token is not None,
            user_agent=req.user_agent,
            accept=req.accept or None,
            if_none_match=req.if_none_match,
            status=response.status if response else None,
            counted=counted,
            started=started,
            finished=self.stamp(),
            dropped=response is None,
            fault=fault,
        )
        with self._lock:
            self._in_flight -= 1
            self._log.append(record)
            if self._in_flight == 0:
                self._idle.notify_all()

    def _answer(self, req: Incoming) -> tuple[Response | None, list[tuple[str, str]], bool, str | None]:
        """(response or None to drop, headers, whether it counted against the rate limit, the fault)."""
        delay = sum(
            seconds for pattern, seconds in self._faults.latency_rules() if pattern.search(req.decoded_path)
        )
        if delay and self.waits.wait(self._stopping, delay):
            return None, [], False, None
        step = self._faults.take(req.decoded_path)
        if step == "hang":
            self._stopping.wait()
            return None, [], False, "hang"
        if step == "drop":
            return None, [], False, "drop"
        if step is not None:
            return step, plain_headers(step), False, "status"
        with self._lock:
            random_faults = self._random
        fault = random_faults.take(req.decoded_path) if random_faults is not None else None
        if fault is not None:
            if fault.answer is None and self.announce_timeouts:
                return TIMED_OUT, [(TIMEOUT_ANNOUNCED, "1")], False, fault.kind
            if fault.answer is None:
                self.waits.wait(self._stopping, fault.stall_seconds)
                return None, [], False, fault.kind
            return fault.answer, plain_headers(fault.answer), False, fault.kind
        if not req.user_agent:
            refused = Response(
                status=403, body=_NO_USER_AGENT.encode(), content_type="text/plain; charset=utf-8"
            )
            return refused, plain_headers(refused), False, None
        return (*self._api(req), None)

    def _api(self, req: Incoming) -> tuple[Response, list[tuple[str, str]], bool]:
        key = (
            "token:" + hashlib.sha256(req.token.encode()).hexdigest()[:16]
            if req.token
            else "ip:" + req.client_ip
        )
        path = req.raw_path.removeprefix(self.prefix) if req.raw_path.startswith(self.prefix + "/") else None
        if path == "/rate_limit":
            response = json_response(200, self._rates.rate_limit_json(key), cacheable=False)
            return response, self._api_headers(response, key, None), False
        window = self._rates.reserve(key)  # one request up front, so parallel requests cannot overspend
        if window is None:
            response = json_response(403, RateLimits.exceeded_json(key, req.client_ip), cacheable=False)
            return response, self._api_headers(response, key, None), False
        response = self._route(req, path)
        counted = True
        etag = etag_for(response) if response.cacheable else None
        if etag and etag_matches(req.if_none_match, etag):
            response = replace(response, status=304, body=b"", content_type=None)
            if req.token is not None:  # GitHub: an authorized 304 is free
                counted = False
                self._rates.refund(window)
        return response, self._api_headers(response, key, etag), counted

    def _route(self, req: Incoming, path: str | None) -> Response:
        repo: Repo | None = None
        rest = ""
        try:
            if path is not None and (match := _REPO_PATH.match(path)):
                full_name = f"{unquote(match.group(1))}/{unquote(match.group(2))}"
                raw_rest = match.group(3) or ""
                with self._lock:
                    repo = self._find(full_name)
                    moved = self._moved.get(full_name.lower()) if repo is None else None
                if moved is not None:
                    return self._moved_response(req, moved, raw_rest)
                rest = unquote(raw_rest)
            elif path is not None and (match := _ID_PATH.match(path)):
                with self._lock:
                    repo = self._repos.get(int(match.group(1)))
                rest = unquote(match.group(2) or "")
            if repo is None or (repo.private and req.token not in repo.readers):
                raise not_found(DOC_URLS["repo"] if path and _REPO_PATH.match(path) else DOCS)
            view = RepoView(repo, api=self._origin, limits=self._limits())
            return view.dispatch(rest, req.query, req.accept)
        except ApiError as error:
            return json_response(error.status, error.payload, cacheable=False)

    def _moved_response(self, req: Incoming, repo_id: int, raw_rest: str) -> Response:
        location = f"{self._origin}/repositories/{repo_id}{raw_rest}" + (
            f"?{req.raw_query}" if req.raw_query else ""
        )
        status = 301 if req.method in {"GET", "HEAD"} else 307  # GitHub: 307 keeps non-GET methods
        payload = {"message": "Moved Permanently", "url": location, "documentation_url": _MOVED_DOCS}
        return json_response(status, payload, cacheable=False, headers=(("Location", location),))

    def _limits(self) -> Limits:
        return Limits(
            max_dir_entries=self.max_dir_entries,
            max_inline_size=self.max_inline_size,
            max_tree_entries=self.max_tree_entries,
            max_tree_bytes=self.max_tree_bytes,
            logins={email.lower(): login for email, login in self.logins.items()},
        )

    # -- response pieces

    def _api_headers(self, response: Response, key: str, etag: str | None) -> list[tuple[str, str]]:
        headers = plain_headers(response)
        if etag:  # a 304 carries the ETag of the body it stands for
            headers += [("ETag", etag), ("Cache-Control", self.cache_control)]
        media = "github.v3; param=raw" if response.content_type == RAW_TYPE else "github.v3; format=json"
        headers += [
            *([("Vary", _VARY)] if self.send_vary else []),
            ("X-GitHub-Api-Version-Selected", API_VERSION),
            ("X-GitHub-Media-Type", media),
            *self._rates.headers(key),
        ]
        return headers
