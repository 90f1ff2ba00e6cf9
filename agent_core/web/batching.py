"""Batching a run's events into UI frames: quick for what matters, never one frame per token.

:func:`batched` runs the event generator in its own task, so the agent never waits for the browser, and
hands the consumer lists of events:

* the first event and the end are handed over at once; a batch holding an *urgent* event (a step or
  tool call starting or finishing, a breaker changing, a notice) at once if the last frame left at
  least ``urgent_gap`` seconds ago (50 ms), else when that much has passed: parallel tool calls that
  finish a few milliseconds apart make one frame, not one each (every frame costs the app a Gradio
  round of the whole page, and the browser a render);
* otherwise events (streamed reasoning and report text) collect until ``interval`` seconds have passed
  since the last batch: streamed text alone makes at most ``1 / interval`` frames a second (10 by
  default), however fast the model writes;
* events that piled up while the consumer was busy sending a frame arrive together, as one batch.

Every frame costs the app a Gradio postprocess of every output (the whole chat history included), so
under load the frame rate, not the agent, is what a session's CPU grows with.

Concurrency needs the queue here (a timeout on the generator itself would cancel it). The pump task is
cancelled and awaited whenever the consumer stops (finished, tab closed), and Stop cancels it directly
(``on_pump``, :class:`ActiveRun`): the cancellation lands inside the event generator, whose ``finally``
cancels its own tool calls, so no work is orphaned.
An exception raised by the generator is re-raised to the consumer.

Stop does not rely on Gradio cancelling the page's event (``cancels=``): that shows the outputs of the
cancelled event as errors, and it only reaches the run when the handler is suspended at an ``await``
inside :func:`batched`. A handler suspended at a ``yield`` (Gradio is sending its frame) is never resumed
nor closed, and the task that pumps the run's events keeps the run going: retries, breakers opening,
requests after the click. So a session's :class:`ActiveRun` holds the pump task itself
(``batched(..., on_pump=run.attach)``), and :meth:`ActiveRun.stop` cancels it and waits for it to end;
``batched`` then sees the pump's end and returns, so the page's handler finishes normally with its last
frame (no error state).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Final

from agent_core import events as ev

logger = logging.getLogger(__name__)

URGENT_EVENTS: frozenset[type[ev.Event]] = frozenset(
    {
        ev.RunStarted,
        ev.TurnStarted,
        ev.TurnFinished,
        ev.TurnProgress,  # a slow model reading its prompt: nothing else moves meanwhile
        ev.ToolCallStarted,
        ev.ToolCallFinished,
        ev.ToolRetry,
        ev.BreakerChanged,
        ev.Notice,
        ev.RunFinished,
        ev.RunFailed,
    }
)
DEFAULT_INTERVAL = 0.1
"""Seconds between two frames of streamed text: at most 10 frames a second per session."""
URGENT_GAP = 0.05
"""Seconds between two frames when structure changed: at most 20 a second, below what an eye tells
apart, and the structure of several tool calls finishing together goes out in one frame."""


class _End:
    """The pump's last item."""


_END: Final = _End()


def _take(items: list[ev.Event | Exception | _End], batch: list[ev.Event]) -> bool:
    """Append the events to ``batch``; raise the run's exception; whether the run ended."""
    ended = False
    for item in items:
        if isinstance(item, _End):
            ended = True
        elif isinstance(item, Exception):
            raise item
        else:
            batch.append(item)
    return ended


async def batched(
    events: AsyncIterator[ev.Event],
    *,
    interval: float = DEFAULT_INTERVAL,
    urgent_gap: float = URGENT_GAP,
    monotonic: Callable[[], float] = time.monotonic,
    on_pump: Callable[[asyncio.Task[None]], None] | None = None,
) -> AsyncGenerator[list[ev.Event], None]:
    """Non-empty lists of ``events`` in order; see the module docstring for when each is handed over.

    ``on_pump`` is handed the task that drives ``events``: cancelling it stops the run even while the
    consumer is suspended at a ``yield`` (the batches then end as if the run had ended)."""
    queue: asyncio.Queue[ev.Event | Exception | _End] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in events:
                queue.put_nowait(event)
        except Exception as exc:  # noqa: BLE001 - not handled here: re-raised by the consumer
            queue.put_nowait(exc)
        finally:
            queue.put_nowait(_END)

    task = asyncio.create_task(pump())
    if on_pump is not None:
        on_pump(task)
    try:
        batch: list[ev.Event] = []
        last: float | None = None
        pressing = False  # the batch holds an urgent event
        while True:
            wait = None
            if batch and last is not None:
                wait = max(0.0, (urgent_gap if pressing else interval) - (monotonic() - last))
            try:
                first = await asyncio.wait_for(queue.get(), wait)
            except TimeoutError:
                yield batch
                batch, last, pressing = [], monotonic(), False
                continue
            items = [first]
            while not queue.empty():
                items.append(queue.get_nowait())
            ended = _take(items, batch)
            pressing = pressing or any(type(e) in URGENT_EVENTS for e in batch)
            since = None if last is None else monotonic() - last
            due = since is None or since >= interval or (pressing and since >= urgent_gap)
            if batch and (due or ended):
                yield batch
                batch, last, pressing = [], monotonic(), False
            if ended:
                return
    finally:
        task.cancel()
        # gather, not a bare await: the pump's own CancelledError is expected and returned, while a
        # cancellation of this consumer still propagates.
        await asyncio.gather(task, return_exceptions=True)


STOP_PATIENCE_S: Final = 5.0
"""How long Stop waits for the run to unwind: cancellation normally takes milliseconds; a run that
takes longer is logged and left to finish unwinding on its own."""


class ActiveRun:
    """One run of a session, from the click to its last frame. Used from one event loop."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self.stopped = False

    @property
    def unwound(self) -> bool:
        """The run's task has ended (or never started): it can make no request any more."""
        return self._task is None or self._task.done()

    def attach(self, task: asyncio.Task[None]) -> None:
        """The task that drives the run's events; cancelled at once if Stop came first."""
        self._task = task
        if self.stopped:
            task.cancel()

    async def stop(self) -> bool:
        """Cancel the run and wait until it has unwound; whether it did within :data:`STOP_PATIENCE_S`.

        Idempotent. Waiting never cancels the caller's own task, nor does a cancelled caller leave the
        run going: the run's task is cancelled before anything is awaited."""
        self.stopped = True
        task = self._task
        if task is None or task.done():
            return True
        if task.get_loop() is not asyncio.get_running_loop():  # never expected: Gradio runs both on one loop
            task.get_loop().call_soon_threadsafe(task.cancel)
            return False
        loop = asyncio.get_running_loop()
        pressed = loop.time()
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=STOP_PATIENCE_S)
        if not done:
            logger.warning("a stopped run did not unwind within %.1f s", STOP_PATIENCE_S)
        else:
            logger.debug("a stopped run unwound in %.3f s", loop.time() - pressed)
        return bool(done)
