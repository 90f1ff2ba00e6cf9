"""A sliding one-hour allowance of some amount (runs, model tokens, GitHub requests), on an injected clock.

:class:`HourlyQuota` is what a public deployment spends of its owner's accounts, whoever asks: every
``take`` is remembered with its time and forgotten ``window`` seconds later. It is thread-safe and holds
no more entries than there were takes in the window. Owned by whoever builds it (the composition root),
never module state.
"""

from __future__ import annotations

import threading
from collections import deque

from agent_core.clock import Clock

WINDOW_SECONDS = 3600.0


class HourlyQuota:
    """At most ``limit`` units taken in any sliding ``window`` (default an hour)."""

    def __init__(self, limit: int, *, clock: Clock, window: float = WINDOW_SECONDS) -> None:
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        self.limit = limit
        self._clock = clock
        self._window = window
        self._takes: deque[list[float]] = deque()  # [monotonic time, amount], oldest first
        self._used = 0.0
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        while self._takes and self._takes[0][0] <= now - self._window:
            self._used -= self._takes.popleft()[1]

    def take(self, amount: int = 1) -> bool:
        """Take ``amount`` if all of it is left; nothing otherwise."""
        return self.take_up_to(amount, minimum=amount) == amount

    def take_up_to(self, amount: int, *, minimum: int = 1) -> int:
        """Take as much of ``amount`` as is left, or nothing (0) when less than ``minimum`` is left."""
        now = self._clock.monotonic()
        with self._lock:
            self._expire(now)
            granted = min(amount, int(self.limit - self._used))
            if granted < max(1, minimum):
                return 0
            self._takes.append([now, float(granted)])
            self._used += granted
            return granted

    def refund(self, amount: int) -> None:
        """Give back ``amount`` of what was taken (unused reservations), newest takes first."""
        with self._lock:
            left = float(amount)
            for entry in reversed(self._takes):
                if left <= 0:
                    break
                back = min(entry[1], left)
                entry[1] -= back
                self._used -= back
                left -= back
            while self._takes and self._takes[-1][1] <= 0:
                self._takes.pop()

    def charge(self, amount: int) -> None:
        """Count ``amount`` spent beyond what was taken (an overshoot cannot be refused any more)."""
        if amount <= 0:
            return
        now = self._clock.monotonic()
        with self._lock:
            self._expire(now)
            self._takes.append([now, float(amount)])
            self._used += amount

    def remaining(self) -> int:
        now = self._clock.monotonic()
        with self._lock:
            self._expire(now)
            return max(0, int(self.limit - self._used))

    def retry_after(self) -> float:
        """Seconds until some of the allowance comes back (0.0 when some is left now)."""
        now = self._clock.monotonic()
        with self._lock:
            self._expire(now)
            if self._used < self.limit or not self._takes:
                return 0.0
            return max(0.0, self._takes[0][0] + self._window - now)
