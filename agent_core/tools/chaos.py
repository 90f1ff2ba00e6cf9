"""Chaos mode: faults injected on purpose, inside one browser session, for demos.

A :class:`ChaosMonkey` is the toolbox's :class:`~agent_core.tools.executor.FaultInjector`: it is asked
before every attempt of a tool call reaches its source (GitHub or a local repository), inside the retry
loop and the breaker, so an injected fault is retried, counted by the breaker and answered by the
fallback exactly like a real one. Because it stands at the source seam, local analyses show retries,
breakers and recovery too, and a fresh HTTP cache hit cannot hide a fault.

Three knobs, all per session (:class:`ChaosSettings`), plus one action:

* ``fault_rate`` — each attempt fails with probability ``fault_rate``: half of those as an HTTP 503,
  half as a read timeout (both :class:`~agent_core.errors.TransientError`). Drawn from an injected
  ``random.Random`` so tests are reproducible.
* ``down_tool`` — every attempt of that tool fails (503): its breaker opens after
  ``failure_threshold`` failures, the stale cache serves meanwhile (GitHub), and once the knob is
  cleared the breaker recovers through HALF_OPEN on its next probe.
* :meth:`ChaosMonkey.arm_rate_limit_burst` — the next N attempts hit a secondary rate limit
  (:class:`~agent_core.errors.RateLimitError`, ``retry_after`` 1 s), so the retry layer visibly waits
  and tries again.

Nothing happens unless ``enabled``. Every injected fault is appended to :attr:`ChaosMonkey.log`
(bounded). Counters are guarded by a lock: one monkey may be consulted from several event loops'
threads (the app's worker threads) at once.
"""

from __future__ import annotations

import logging
import random
import threading
from collections import deque
from dataclasses import dataclass, replace
from typing import Literal

from agent_core.errors import RateLimitError, TransientError

logger = logging.getLogger(__name__)

FaultKind = Literal["http_503", "read_timeout", "rate_limit", "tool_down"]

_LOG_SIZE = 200


@dataclass(frozen=True, kw_only=True)
class ChaosSettings:
    """One session's chaos knobs. ``fault_rate`` is clamped to 0..1; ``down_tool=None`` means none."""

    enabled: bool = False
    fault_rate: float = 0.0
    rate_limit_burst: int = 3
    """How many attempts one press of the "429 burst" button affects."""
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
    source: str


class ChaosMonkey:
    """Per-session fault injector; see the module docstring for what each knob does."""

    def __init__(self, settings: ChaosSettings | None = None, *, rng: random.Random | None = None) -> None:
        self._settings = settings or ChaosSettings()
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._burst_left = 0
        self._calls_seen = 0
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
        """Make the next ``count`` attempts (default ``settings.rate_limit_burst``) hit a rate limit.

        Adds to a burst already armed; returns how many attempts are now armed. Only served while
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
    def calls_seen(self) -> int:
        """Attempts the monkey was asked about (whether or not it injected a fault)."""
        with self._lock:
            return self._calls_seen

    # -- the injector -------------------------------------------------------------------------------

    def before_call(self, tool: str, source: str) -> None:
        """Raise the fault to inject into this attempt of ``tool`` on ``source``, or return."""
        kind = self._decide(tool)
        if kind is None:
            return
        with self._lock:
            self._log.append(InjectedFault(kind=kind, tool=tool, source=source))
        logger.info("chaos: %s for %s on %s", kind, tool, source)
        match kind:
            case "read_timeout":
                raise TransientError("chaos: injected read timeout", status=None)
            case "rate_limit":
                raise RateLimitError(
                    "chaos: injected secondary rate limit; retry after 1s",
                    status=429,
                    kind="secondary",
                    reset_at=None,
                    retry_after=1.0,
                )
            case "tool_down":
                raise TransientError(f"chaos: tool '{tool}' forced down (HTTP 503)", status=503)
            case "http_503":
                raise TransientError("chaos: injected server error (HTTP 503)", status=503)

    def _decide(self, tool: str) -> FaultKind | None:
        with self._lock:
            self._calls_seen += 1
            settings = self._settings
            if not settings.enabled:
                return None
            if settings.down_tool and tool == settings.down_tool:
                return "tool_down"
            if self._burst_left > 0:
                self._burst_left -= 1
                return "rate_limit"
            if settings.fault_rate > 0 and self._rng.random() < settings.fault_rate:
                return "http_503" if self._rng.random() < 0.5 else "read_timeout"
            return None
