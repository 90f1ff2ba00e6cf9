"""Time as a seam: the monotonic clock, the wall clock and sleeping, injected everywhere time matters.

Breakers, retries and rate-limit waits take a :class:`Clock`; tests pass a fake one whose ``sleep``
advances time instantly, so no test ever sleeps for real.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    """What the core needs to know about time."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (durations, breaker timers)."""
        ...

    def wall(self) -> float:
        """UTC epoch seconds (rate-limit resets are given in it)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait; must be cancellable."""
        ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))
