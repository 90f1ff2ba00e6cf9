"""Test doubles shared by the test suite.

:class:`FakeClock` implements :class:`agent_core.clock.Clock` without ever waiting for real.
"""

from __future__ import annotations

import asyncio


class FakeClock:
    """A clock that moves only when told to: by :meth:`advance`, or by :meth:`sleep`.

    ``sleep(s)`` records ``s`` in :attr:`sleeps`, advances time by ``s`` at once, then yields to the
    event loop once (``await asyncio.sleep(0)``). That one yield is what makes a sleep cancellable
    mid-way: a test that sees the sleep recorded (``while not clock.sleeps: await asyncio.sleep(0)``)
    and then calls ``task.cancel()`` lands the ``CancelledError`` inside ``sleep``, exactly where a
    real backoff would be interrupted. Time has already moved by then; tests assert on what happens
    next (no further attempt), not on the clock.

    Concurrent sleepers add up rather than overlap (two tasks sleeping 5 s each move the clock 10 s):
    for timing between concurrent tasks, call :meth:`advance` explicitly instead.
    """

    def __init__(self, *, start: float = 1_000.0, wall_start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._wall_offset = wall_start - start
        self.sleeps: list[float] = []
        """Every requested sleep, in order, as requested (a negative request moves time by 0)."""

    def monotonic(self) -> float:
        return self._now

    def wall(self) -> float:
        """UTC epoch seconds; moves together with :meth:`monotonic`."""
        return self._now + self._wall_offset

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(max(0.0, seconds))
        await asyncio.sleep(0)

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` (never backward)."""
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds})")
        self._now += seconds

    @property
    def slept(self) -> float:
        """Total seconds requested through :meth:`sleep`."""
        return sum(self.sleeps)
