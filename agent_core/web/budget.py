"""The hosted-mode run budget: how many analyses one visitor may start per hour.

On a Hugging Face Space strangers spend the owner's model key and GitHub quota. :class:`RunBudget`
(owned by the app, one per process, never module state) counts run starts per key (a browser session,
or a client IP) in a sliding one-hour window, on an injected clock.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from dataclasses import dataclass

from agent_core.clock import Clock, SystemClock

WINDOW_SECONDS = 3600.0
_MAX_KEYS = 10_000  # forget the oldest visitors beyond this, so the table cannot grow without bound


@dataclass(frozen=True, kw_only=True)
class BudgetDecision:
    allowed: bool
    remaining: int
    """Runs left in the window after this decision."""
    retry_after: float
    """Seconds until the next run is allowed (0.0 when allowed)."""

    @property
    def retry_after_minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))


class RunBudget:
    """At most ``runs_per_hour`` run starts per key in any sliding hour. Thread-safe."""

    def __init__(
        self, runs_per_hour: int, *, clock: Clock | None = None, window: float = WINDOW_SECONDS
    ) -> None:
        if runs_per_hour < 1:
            raise ValueError(f"runs_per_hour must be >= 1, got {runs_per_hour}")
        self.runs_per_hour = runs_per_hour
        self._clock = clock or SystemClock()
        self._window = window
        self._starts: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def try_start(self, key: str) -> BudgetDecision:
        """Count a run for ``key`` if the budget allows it; otherwise say how long to wait."""
        now = self._clock.monotonic()
        with self._lock:
            starts = self._starts.pop(key, None) or deque()
            while starts and starts[0] <= now - self._window:
                starts.popleft()
            self._starts[key] = starts  # re-inserted: the dict's order is least recently used first
            if len(starts) >= self.runs_per_hour:
                wait = starts[0] + self._window - now
                return BudgetDecision(allowed=False, remaining=0, retry_after=max(0.0, wait))
            starts.append(now)
            while len(self._starts) > _MAX_KEYS:
                del self._starts[next(iter(self._starts))]
            return BudgetDecision(allowed=True, remaining=self.runs_per_hour - len(starts), retry_after=0.0)

    def remaining(self, key: str) -> int:
        now = self._clock.monotonic()
        with self._lock:
            starts = self._starts.get(key, ())
            return self.runs_per_hour - sum(1 for s in starts if s > now - self._window)
