"""What the emulator does besides serving repositories: injected faults and primary rate limits.

:class:`FaultPlan` holds the canned answers, dropped or hung connections and latencies that tests
queue for matching paths; :class:`RandomFaults` is the seeded alternative (a share of 5xx answers and
timeouts, a burst of 429s, one path always down); :func:`canned` and :func:`secondary_limit_answer`
build the "front end" answers (never counted against the rate limit, no rate-limit headers).
:class:`RateLimits` keeps one primary rate-limit window per identity (a token, else the client IP)
with GitHub's headers, the ``/rate_limit`` body and the "exceeded" body. All are thread-safe, each
with its own lock; the limits and the default reset time are read from a :class:`RateSettings` (the
emulator) at every call, so a test may change them at any time.
"""

from __future__ import annotations

import hashlib
import ipaddress
import random
import re
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, replace
from http import HTTPStatus
from typing import Any, Literal, Protocol

from testing.emulator.github_values import DOC_URLS, DOCS, Response, Step, json_response

_SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach "
    "out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000."
)


# ------------------------------------------------------------------------------------------------ faults


@dataclass(kw_only=True)
class _Fault:
    pattern: re.Pattern[str]
    steps: deque[Step]


class FaultPlan:
    """Queued faults (taken one step per matching request, oldest fault first) and latencies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: list[_Fault] = []
        self._latencies: list[tuple[re.Pattern[str], float]] = []

    def add(self, path_regex: str, steps: deque[Step]) -> None:
        with self._lock:
            self._faults.append(_Fault(pattern=re.compile(path_regex), steps=steps))

    def take(self, path: str) -> Step | None:
        """The next step of the first fault matching ``path`` that has steps left, or None."""
        with self._lock:
            for fault in self._faults:
                if fault.steps and fault.pattern.search(path):
                    return fault.steps.popleft()
        return None

    def add_latency(self, seconds: float, path_regex: str) -> None:
        with self._lock:
            self._latencies.append((re.compile(path_regex), seconds))

    def latency_rules(self) -> list[tuple[re.Pattern[str], float]]:
        with self._lock:
            return list(self._latencies)

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
            self._latencies.clear()


@dataclass(frozen=True, kw_only=True)
class RandomFaultConfig:
    """What :class:`RandomFaults` injects; every rate is a probability per request (0..1)."""

    seed: int
    rate_5xx: float = 0.0
    """Share of requests answered 500, 502, 503 or 504."""
    rate_timeout: float = 0.0
    """Share of requests held ``stall_seconds`` without an answer, then dropped (a read timeout)."""
    stall_seconds: float = 1.0
    burst_429: int = 0
    """How many consecutive requests (in arrival order) get a secondary-limit 429..."""
    burst_start: int = 0
    """...starting with this request (0-based, counting every request since the mode was set)."""
    burst_retry_after: int = 0
    down_path: str | None = None
    """Every request whose decoded path matches this regex answers 503: that endpoint is down."""

    def __post_init__(self) -> None:
        if min(self.rate_5xx, self.rate_timeout) < 0 or self.rate_5xx + self.rate_timeout > 1:
            raise ValueError("rate_5xx and rate_timeout must be >= 0 and add up to at most 1")
        if self.burst_429 < 0 or self.burst_start < 0 or self.stall_seconds < 0:
            raise ValueError("burst_429, burst_start and stall_seconds must be >= 0")


@dataclass(frozen=True, kw_only=True)
class RandomFault:
    """One decision of :class:`RandomFaults`: ``kind`` is what the request log records as ``fault``."""

    kind: Literal["5xx", "429", "timeout", "down"]
    answer: Response | None = None  # None for a timeout: hold ``stall_seconds``, then drop
    stall_seconds: float = 0.0


class RandomFaults:
    """Seeded faults, decided per request: down path first, then the 429 burst, then one draw.

    The draw for the n-th request of a path depends only on (seed, path, n), not on the order in which
    parallel requests arrive, so a seed gives the same faults to the same requests; only the burst,
    placed by arrival order, can shift between parallel requests.
    """

    def __init__(self, config: RandomFaultConfig) -> None:
        self.config = config
        self._down = re.compile(config.down_path) if config.down_path is not None else None
        self._lock = threading.Lock()
        self._seen = 0
        self._per_path: dict[str, int] = {}

    def take(self, path: str) -> RandomFault | None:
        config = self.config
        with self._lock:
            index, self._seen = self._seen, self._seen + 1
            occurrence = self._per_path.get(path, 0)
            self._per_path[path] = occurrence + 1
        if self._down is not None and self._down.search(path):
            return RandomFault(kind="down", answer=canned(503, retry_after=None, body=None))
        if config.burst_start <= index < config.burst_start + config.burst_429:
            return RandomFault(kind="429", answer=secondary_limit_answer(429, config.burst_retry_after))
        rng = random.Random(f"{config.seed}:{path}:{occurrence}")
        draw = rng.random()
        if draw < config.rate_5xx:
            status = rng.choice((500, 502, 503, 504))
            return RandomFault(kind="5xx", answer=canned(status, retry_after=None, body=None))
        if draw < config.rate_5xx + config.rate_timeout:
            return RandomFault(kind="timeout", stall_seconds=config.stall_seconds)
        return None


def canned(status: int, *, retry_after: int | None, body: str | bytes | Mapping[str, Any] | None) -> Response:
    """A front-end answer: ``body`` as JSON (a mapping) or HTML (text, bytes); default its reason."""
    headers = (("Retry-After", str(retry_after)),) if retry_after is not None else ()
    if body is None:
        body = {"message": HTTPStatus(status).phrase}
    if isinstance(body, Mapping):
        return replace(json_response(status, dict(body), cacheable=False), headers=headers)
    raw = body.encode() if isinstance(body, str) else body
    return Response(status=status, body=raw, content_type="text/html; charset=utf-8", headers=headers)


def secondary_limit_answer(status: int, retry_after: int | None) -> Response:
    """GitHub's secondary rate-limit answer (``retry-after`` if given)."""
    payload = {
        "message": _SECONDARY,
        "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api",
    }
    return canned(status, retry_after=retry_after, body=payload)


# ------------------------------------------------------------------------------------------- rate limits


class RateSettings(Protocol):
    """The tunables rate limits are computed with, read at every call."""

    limit_unauthenticated: int
    limit_authenticated: int
    reset_at: int  # epoch of the reset of a window that has not rolled over yet


@dataclass(kw_only=True)
class Window:
    """Primary rate-limit state of one identity (mutable; guarded by the RateLimits lock)."""

    used: int = 0
    reset: int | None = None  # None: the settings' reset_at
    exhausted: bool = False


class RateLimits:
    """Primary rate-limit windows, keyed ``token:<hash>`` or ``ip:<address>``."""

    def __init__(self, settings: RateSettings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._windows: dict[str, Window] = {}
        self._exhaust_all_until: int | None = None

    def exhaust(self, identity: str | None = None, reset_in: int = 3600) -> None:
        """Set remaining to 0 until ``now + reset_in`` for one identity (a token or an IP) or everyone."""
        reset = int(time.time()) + reset_in
        with self._lock:
            if identity is None:
                self._exhaust_all_until = reset
                windows = list(self._windows.values())
            else:
                windows = [self._window(self.key_for(identity))]
            for window in windows:
                window.exhausted, window.reset = True, reset

    def replenish(self, identity: str | None = None) -> None:
        """Forget usage and exhaustion (for one identity or everyone), as if the window had reset."""
        with self._lock:
            if identity is None:
                self._windows.clear()
                self._exhaust_all_until = None
            else:
                self._windows.pop(self.key_for(identity), None)

    def remaining(self, identity: str) -> int:
        """Requests left for a token or an IP (e.g. "127.0.0.1")."""
        with self._lock:
            key = self.key_for(identity)
            return self._remaining(key, self._window(key))

    def reserve(self, key: str) -> Window | None:
        """Count one request up front (so parallel requests cannot overspend); None if none is left."""
        with self._lock:
            window = self._window(key)
            allowed = self._remaining(key, window) > 0
            if allowed:
                window.used += 1
        return window if allowed else None

    def refund(self, window: Window) -> None:
        """Give back a request :meth:`reserve` counted."""
        with self._lock:
            window.used -= 1

    @staticmethod
    def key_for(identity: str) -> str:
        try:
            ipaddress.ip_address(identity)
        except ValueError:
            return "token:" + hashlib.sha256(identity.encode()).hexdigest()[:16]
        return "ip:" + identity

    def _window(self, key: str) -> Window:
        """The identity's window, rolled over when its reset time has passed (caller holds the lock)."""
        window = self._windows.get(key)
        now = int(time.time())
        if window is None:
            window = self._windows[key] = Window()
            if self._exhaust_all_until is not None and now < self._exhaust_all_until:
                window.exhausted, window.reset = True, self._exhaust_all_until
        if now >= (window.reset or self._settings.reset_at):
            window.used, window.exhausted, window.reset = 0, False, now + 3600
        return window

    def _limit(self, key: str) -> int:
        settings = self._settings
        return settings.limit_authenticated if key.startswith("token:") else settings.limit_unauthenticated

    def _remaining(self, key: str, window: Window) -> int:
        return 0 if window.exhausted else max(0, self._limit(key) - window.used)

    def headers(self, key: str) -> list[tuple[str, str]]:
        """GitHub's ``x-ratelimit-*`` headers for ``key``, as they stand now."""
        with self._lock:
            window = self._window(key)
            remaining = self._remaining(key, window)
            reset = window.reset or self._settings.reset_at
            return [
                ("x-ratelimit-limit", str(self._limit(key))),
                ("x-ratelimit-remaining", str(remaining)),
                ("x-ratelimit-reset", str(reset)),
                ("x-ratelimit-used", str(self._limit(key) - remaining)),
                ("x-ratelimit-resource", "core"),
            ]

    def rate_limit_json(self, key: str) -> dict[str, Any]:
        """The ``/rate_limit`` body: the core window, and static numbers for the other resources."""
        with self._lock:
            window = self._window(key)
            remaining = self._remaining(key, window)
            core = {
                "limit": self._limit(key),
                "used": self._limit(key) - remaining,
                "remaining": remaining,
                "reset": window.reset or self._settings.reset_at,
            }

        def static(limit: int) -> dict[str, int]:
            return {"limit": limit, "used": 0, "remaining": limit, "reset": self._settings.reset_at}

        resources = {
            "core": core,
            "search": static(30 if key.startswith("token:") else 10),
            "graphql": static(5000 if key.startswith("token:") else 0),
            "integration_manifest": static(5000),
            "source_import": static(100),
            "actions_runner_registration": static(10000),
            "scim": static(15000),
            "dependency_snapshots": static(100),
            "code_search": static(10),
            "code_scanning_autofix": static(10),
        }
        return {"resources": resources, "rate": dict(core)}

    @staticmethod
    def exceeded_json(key: str, client_ip: str) -> dict[str, str]:
        """The 403 body once the primary limit is spent."""
        if key.startswith("token:"):
            who = f"user ID {int(key.removeprefix('token:')[:6], 16)}."
        else:
            who = (
                f"{client_ip}. (But here's the good news: Authenticated requests get a higher rate limit. "
                "Check out the documentation for more details.)"
            )
        return {
            "message": f"API rate limit exceeded for {who}",
            "documentation_url": DOC_URLS["rate_limit"] + "#about-the-primary-rate-limit",
        }
