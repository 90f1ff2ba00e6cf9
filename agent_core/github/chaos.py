"""Chaos mode: GitHub faults injected on purpose, inside one browser session, for demos.

A :class:`ChaosMonkey` implements :class:`agent_core.github.http.ChaosPolicy`. It sits in the wire
layer, *below* the persistent HTTP cache: a fresh cache hit never reaches it, so a repository that
was read a minute ago may look immune to chaos. Revalidations (``If-None-Match``) and cache misses do
reach it, and stale-cache fallbacks are exactly what a forced-down tool is meant to show.

Three knobs, all per session (:class:`ChaosSettings`), plus one action:

* ``fault_rate`` — each request fails with probability ``fault_rate``: half of those answer HTTP 503,
  half raise a read timeout. Drawn from an injected ``random.Random`` so tests are reproducible.
* ``down_tool`` — every request made for that tool answers 503: its breaker opens after
  ``failure_threshold`` failures, the stale cache serves meanwhile, and once the knob is cleared the
  breaker recovers through HALF_OPEN on its next probe.
* :meth:`ChaosMonkey.arm_rate_limit_burst` — the next N requests answer a secondary rate limit
  (429 and 403 alternately, ``retry-after: 1``), so the retry layer visibly waits and tries again.

Nothing happens unless ``enabled``. Every injected fault is appended to :attr:`ChaosMonkey.log`
(bounded). Counters are guarded by a lock: one monkey may be consulted from several event loops'
threads (the app's worker threads) at once.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from collections import deque
from dataclasses import dataclass, replace
from typing import Literal

import httpx

logger = logging.getLogger(__name__)

FaultKind = Literal["http_503", "read_timeout", "rate_limit_429", "rate_limit_403", "tool_down"]

_SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "(injected by repo-analyst chaos mode)"
)
_LOG_SIZE = 200


@dataclass(frozen=True, kw_only=True)
class ChaosSettings:
    """One session's chaos knobs. ``fault_rate`` is clamped to 0..1; ``down_tool=None`` means none."""

    enabled: bool = False
    fault_rate: float = 0.0
    rate_limit_burst: int = 3
    """How many requests one press of the "429 burst" button affects."""
    down_tool: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "fault_rate", min(1.0, max(0.0, float(self.fault_rate))))
        if self.rate_limit_burst < 0:
            raise ValueError(f"rate_limit_burst must be >= 0, got {self.rate_limit_burst}")


@dataclass(frozen=True, kw_only=True)
class InjectedFault:
    """One fault, as remembered in the log."""

    kind: FaultKind
    tool: str
    path: str


class ChaosMonkey:
    """Per-session fault injector; see the module docstring for what each knob does."""

    def __init__(self, settings: ChaosSettings | None = None, *, rng: random.Random | None = None) -> None:
        self._settings = settings or ChaosSettings()
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._burst_left = 0
        self._burst_served = 0
        self._requests_seen = 0
        self._log: deque[InjectedFault] = deque(maxlen=_LOG_SIZE)

    # -- knobs ------------------------------------------------------------------------------------

    @property
    def settings(self) -> ChaosSettings:
        return self._settings

    def configure(self, **changes: object) -> ChaosSettings:
        """Change some knobs (``enabled=``, ``fault_rate=``, ``down_tool=``...); returns the new settings."""
        with self._lock:
            self._settings = replace(self._settings, **changes)  # type: ignore[arg-type]
            settings = self._settings
        logger.info("chaos settings now %s", settings)
        return settings

    def arm_rate_limit_burst(self, count: int | None = None) -> int:
        """Make the next ``count`` requests (default ``settings.rate_limit_burst``) hit a rate limit.

        Adds to a burst already armed; returns how many requests are now armed. Only served while
        chaos is enabled.
        """
        n = self._settings.rate_limit_burst if count is None else count
        if n < 0:
            raise ValueError(f"count must be >= 0, got {n}")
        with self._lock:
            self._burst_left += n
            return self._burst_left

    @property
    def burst_left(self) -> int:
        with self._lock:
            return self._burst_left

    @property
    def log(self) -> list[InjectedFault]:
        """The most recent injected faults, oldest first (a copy)."""
        with self._lock:
            return list(self._log)

    @property
    def requests_seen(self) -> int:
        """Requests that reached the monkey (cache hits never do)."""
        with self._lock:
            return self._requests_seen

    # -- the policy -------------------------------------------------------------------------------

    async def before_send(self, request: httpx.Request, tool: str) -> httpx.Response | None:
        """A fake answer, an httpx exception, or None to let the request through."""
        kind = self._decide(tool)
        if kind is None:
            return None
        self._remember(kind, tool, request)
        match kind:
            case "read_timeout":
                raise httpx.ReadTimeout("chaos: injected read timeout", request=request)
            case "rate_limit_429" | "rate_limit_403":
                status = 429 if kind == "rate_limit_429" else 403
                return _json_response(request, status, {"message": _SECONDARY_MESSAGE}, {"retry-after": "1"})
            case "http_503" | "tool_down":
                why = f"tool '{tool}' forced down" if kind == "tool_down" else "random fault"
                return _json_response(request, 503, {"message": f"Service Unavailable (chaos: {why})"}, {})

    def _decide(self, tool: str) -> FaultKind | None:
        with self._lock:
            self._requests_seen += 1
            settings = self._settings
            if not settings.enabled:
                return None
            if settings.down_tool and tool == settings.down_tool:
                return "tool_down"
            if self._burst_left > 0:
                self._burst_left -= 1
                self._burst_served += 1
                return "rate_limit_429" if self._burst_served % 2 else "rate_limit_403"
            if settings.fault_rate > 0 and self._rng.random() < settings.fault_rate:
                return "http_503" if self._rng.random() < 0.5 else "read_timeout"
            return None

    def _remember(self, kind: FaultKind, tool: str, request: httpx.Request) -> None:
        fault = InjectedFault(kind=kind, tool=tool, path=request.url.path)
        with self._lock:
            self._log.append(fault)
        logger.info("chaos: %s for %s %s", kind, tool or "-", fault.path)


def _json_response(
    request: httpx.Request, status: int, payload: dict[str, str], headers: dict[str, str]
) -> httpx.Response:
    return httpx.Response(
        status,
        content=json.dumps(payload).encode(),
        headers={"content-type": "application/json; charset=utf-8", **headers},
        request=request,
    )
