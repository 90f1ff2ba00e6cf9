"""The replay panel's handler: a recorded run replayed as a bounded, budgeted job.

A replay costs the Space CPU (every frame renders the trace so far), so an uploaded trace is checked
before anything renders (:func:`~agent_core.web.replay.parse_recording`: sizes, nesting, grammar), a
replay is counted in the visitor's budget (:meth:`~agent_core.web.budget.SpaceBudget.admit_replay`: one
run or replay at a time, so many an hour) and stopped after
:data:`~agent_core.web.replay.REPLAY_CPU_SECONDS` of the event loop thread's CPU: its own rendering of
each frame, and what the loop does while Gradio serialises and sends it (each frame re-sends the whole
trace; work of other requests interleaved there counts too, so a busy Space ends replays sooner). It
renders through the run handlers' frames (:class:`~agent_core.web.handlers.Handlers`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path

import gradio as gr

from agent_core.errors import UserInputError
from agent_core.web.browser_session import BrowserSession
from agent_core.web.handlers import Handlers
from agent_core.web.limits import too_long
from agent_core.web.mcp import client_key
from agent_core.web.page import Frame
from agent_core.web.replay import REPLAY_CPU_SECONDS, CpuMeter, load_recording, replay
from agent_core.web.stop import ActiveRun
from agent_core.words import t


class ReplayHandler:
    """The Play button's handler; one per app, like :class:`~agent_core.web.handlers.Handlers`."""

    def __init__(self, runs: Handlers) -> None:
        self.runs = runs
        self.page = runs.page

    async def run_replay(
        self, choice: str | None, upload: str | None, speed: float, session: object, request: gr.Request
    ) -> AsyncIterator[Frame]:
        """Gradio streams what an async generator function yields: the frames of :meth:`_replay`, one
        run of the session at a time (:meth:`~agent_core.web.handlers.Handlers.exclusive`)."""
        steps = self.runs.exclusive(
            session, lambda s, run: self._replay(s, run, choice, upload, speed, request)
        )
        async with contextlib.aclosing(steps) as frames:
            async for out in frames:
                yield out

    async def _replay(  # noqa: PLR0917 - the handler's inputs, passed on
        self,
        s: BrowserSession,
        run: ActiveRun,
        choice: str | None,
        upload: str | None,
        speed: float,
        request: gr.Request | None,
    ) -> AsyncGenerator[Frame, None]:
        """A recording replayed as a bounded job: its shape checked before anything renders
        (:func:`~agent_core.web.replay.parse_recording`), counted in the visitor's budget, stopped after
        :data:`~agent_core.web.replay.REPLAY_CPU_SECONDS` of the server's time."""
        path = Path(upload) if upload else self.runs.recordings.get(choice or "")
        refused = too_long(s.lang, ("upload_name", path.name if path is not None else ""))
        if refused is not None:
            yield self.runs.refuse(s, refused)
            return
        if path is None:
            yield self.runs.refuse(s, t("replay_choice", s.lang) + "?")
            return
        try:  # parsing and checking up to 2 MB is seconds of CPU: off the event loop, which serves everyone
            events = await asyncio.to_thread(load_recording, path)
        except UserInputError as exc:
            yield self.runs.refuse(s, str(exc))
            return
        s.visitor = client_key(request)
        admission = self.runs.budget.admit_replay(s.visitor, lang=s.lang)
        if isinstance(admission, str):
            yield self.runs.refuse(s, admission)
            return
        try:
            await s.close_analysis()  # a replay replaces the conversation
            s.replaying = path.stem
            s.rate_limit = None
            s.start_view(keep_history=False)
            s.phase = t("status_replaying", s.lang)
            yield self.runs.opening_frame(s)
            played = replay(events, speed=float(speed or 1.0))
            stopped = t("replay_cpu_stopped", s.lang, seconds=f"{REPLAY_CPU_SECONDS:g}")
            meter = CpuMeter(REPLAY_CPU_SECONDS, message=stopped)
            async with contextlib.aclosing(self.runs.stream(s, run, played, meter)) as frames:
                async for out in frames:
                    with meter:  # Gradio serialising and sending the frame: ~5x our rendering of it
                        yield out
        finally:
            self.runs.budget.release(admission, tokens_used=0)
        if meter.exceeded:
            s.phase = meter.message
            yield {self.page.status.line: self.runs.line(s)}
        elif not run.stopped:
            s.phase = t("status_replayed", s.lang)
            yield {self.page.status.line: self.runs.line(s)}
