"""The run a browser session is streaming, and the one way to stop it (no gradio here).

Stop does not rely on Gradio cancelling the page's event (``cancels=``): that shows the outputs of the
cancelled event as errors, and it only reaches the run when the handler is suspended at an ``await``
inside :func:`~agent_core.web.batching.batched`. A handler suspended at a ``yield`` (Gradio is sending
its frame) is never resumed nor closed, and the task that pumps the run's events keeps the run going:
retries, breakers opening, requests after the click.

So a session's :class:`ActiveRun` holds the pump task itself (``batched(..., on_pump=run.attach)``),
and :meth:`ActiveRun.stop` cancels it and waits for it to end: the cancellation lands inside the run's
event generator, whose ``finally`` cancels its tool calls and their retries. ``batched`` then sees the
pump's end and returns, so the page's handler finishes normally with its last frame (no error state).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

logger = logging.getLogger(__name__)

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

    async def stop(self, patience: float = STOP_PATIENCE_S) -> bool:
        """Cancel the run and wait until it has unwound; whether it did within ``patience`` seconds.

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
        done, _ = await asyncio.wait({task}, timeout=patience)
        if not done:
            logger.warning("a stopped run did not unwind within %.1f s", patience)
        else:
            logger.debug("a stopped run unwound in %.3f s", loop.time() - pressed)
        return bool(done)
