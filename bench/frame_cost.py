"""What Gradio spends on one frame of a run, for the CPU-per-event section.

The app's page is built in this process and a recorded run's events are folded into a browser session
as the app does; then ``Blocks.postprocess_data`` (what Gradio runs on every yielded frame) is timed on
that session's frame two ways: as the app sends it (every run output but the state, with plain values)
and with the breaker table and the timer left out, which is what ``gr.skip()`` amounts to. In Gradio
6.31 a left-out output is rebuilt as a component, config and JSON schema included, so leaving out an
unchanged output costs more than sending it again (see :mod:`agent_core.web.frames`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import gradio as gr
from gradio.state_holder import SessionState

from agent_core import events as ev
from agent_core.settings import Settings
from agent_core.top.services import Services
from agent_core.web.bindings import bind
from agent_core.web.browser_session import BrowserSession
from agent_core.web.budget import SpaceBudget
from agent_core.web.frames import BreakerTable
from agent_core.web.handlers import Handlers
from agent_core.web.layout import layout
from testing.app import release_gradio_loops

REPEATS = 50


async def _postprocess_ms(demo: gr.Blocks, fn: object, frame: dict[object, object], repeats: int) -> float:
    state = SessionState(demo)  # one browser session's, as in the app: kept from frame to frame
    await demo.postprocess_data(fn, dict(frame), state)  # the first frame fills it
    started = time.thread_time()
    for _ in range(repeats):
        await demo.postprocess_data(fn, dict(frame), state)
    return (time.thread_time() - started) / repeats * 1e3


def frame_postprocess_ms(events: Sequence[ev.Event], repeats: int = REPEATS) -> tuple[float, float]:
    """Milliseconds of Gradio postprocess for the last frame of ``events``: (as sent, with the breaker
    table and the timer left out)."""
    settings = Settings()
    services = Services(settings)
    session = BrowserSession(settings, clock=services.clock)
    with gr.Blocks() as demo:
        page = layout(settings, {}, session, lambda _value: None)
        budget = SpaceBudget(settings, services.quotas, clock=services.clock)
        handlers = Handlers(page, settings=settings, services=services, budget=budget, recordings={})
        bind(page, handlers, settings)
    release_gradio_loops()
    fn = next(f for f in demo.fns.values() if f.api_name == "run_analysis")
    session.start_view(keep_history=False, request="acme/widgets")
    for event in events:
        session.observe(event)
    sent = handlers.frame(session, table=BreakerTable())
    left_out = {k: v for k, v in sent.items() if k not in (page.status.breakers, page.status.timer)}

    async def both() -> tuple[float, float]:
        return await _postprocess_ms(demo, fn, sent, repeats), await _postprocess_ms(
            demo, fn, left_out, repeats
        )

    return asyncio.run(both())
