"""Side events of a run: what happens inside tool tasks (retries, breaker changes, rate limits).

Tool calls run as concurrent tasks; the listeners below are called from inside them (synchronously, by
the breaker board, the retry loop and the GitHub client) and put events on a queue that the run's
generator forwards as they happen. The sink also owns the run's clock origin (``t``) and remembers the
latest rate limit it was told about (the run's stats report it).

The sink is built first, by the composition root (:mod:`agent_core.top.wiring`), so every part that
reports into it (the GitHub client, the toolbox, the breaker board) is handed its listeners when it is
built: nothing is wired after construction.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from agent_core import events as ev
from agent_core.clock import Clock
from agent_core.github.ratelimit import RateLimit
from agent_core.resilience import BreakerBoard, RetryDetails, StateChange


class EventSink:
    """The queue between tool tasks and the run's event stream, and the run's time origin."""

    def __init__(self, clock: Clock, breakers: BreakerBoard) -> None:
        self._clock = clock
        self._breakers = breakers
        self._queue: asyncio.Queue[ev.Event] = asyncio.Queue()
        self._t0 = clock.monotonic()
        self._last_rate: tuple[int, float] | None = None
        self.rate_limit: RateLimit | None = None
        """The latest rate limit any response reported (None before the first)."""
        self._unsubscribe = breakers.subscribe(self.on_breaker)

    def close(self) -> None:
        """Stop listening to the breaker board (which outlives one analysis in a browser session)."""
        self._unsubscribe()

    def restart(self) -> None:
        """A new run (first question or follow-up) starts its clock at zero."""
        self._t0 = self._clock.monotonic()

    def t(self) -> float:
        return round(self._clock.monotonic() - self._t0, 4)

    def put(self, event: ev.Event) -> None:
        self._queue.put_nowait(event)

    async def get(self) -> ev.Event:
        return await self._queue.get()

    async def drain(self) -> AsyncIterator[ev.Event]:
        """Whatever is waiting, without waiting for more."""
        while not self._queue.empty():
            yield self._queue.get_nowait()

    # -- listeners -----------------------------------------------------------------------------------

    def on_breaker(self, change: StateChange) -> None:
        snapshot = self._breakers.get(change.name).snapshot()
        self.put(
            ev.BreakerChanged(
                t=self.t(),
                breaker=change.name,
                source=change.source,
                subject=change.subject,
                old=str(change.old),
                new=str(change.new),
                reason=change.reason,
                failures=snapshot.failures,
                retry_after_s=round(snapshot.retry_after, 2),
            )
        )

    def on_retry(self, call_id: str, tool: str, details: RetryDetails) -> None:
        self.put(
            ev.ToolRetry(
                t=self.t(),
                call_id=call_id,
                tool=tool,
                attempt=details.attempt,
                delay_s=round(details.delay, 3),
                reason=str(details.error),
            )
        )

    def on_rate_limit(self, limit: RateLimit) -> None:
        """Only changes are reported (every response carries the headers)."""
        self.rate_limit = limit
        key = (limit.remaining, limit.reset_at)
        if key == self._last_rate:
            return
        self._last_rate = key
        self.put(
            ev.RateLimitUpdated(
                t=self.t(),
                limit=limit.limit,
                remaining=limit.remaining,
                reset_at=limit.reset_at,
                resource=limit.resource,
                authenticated=limit.authenticated,
            )
        )
