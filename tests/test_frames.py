"""Frames: how often a run's events reach the page, and what each frame sends (on virtual time).

Streamed text coalesces into at most ten frames a second; structure (a step or tool call starting or
finishing, a breaker changing) is handed over the moment it arrives unless a frame left less than 50 ms
ago (then with what else arrives in that gap), and the end at once. Every frame sends
every run output but the state with a plain value, because in Gradio 6 a left-out output costs a
component rebuild, and the breaker table ready-made, because a pandas Styler is rendered again on every
frame (:mod:`agent_core.web.frames`).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.machinery
import importlib.util
import itertools
import sys
from collections.abc import AsyncIterator
from typing import Any

import gradio as gr
import gradio.utils as gradio_utils
import pytest
from gradio.data_classes import GradioModel, GradioRootModel

from agent_core import events as ev
from agent_core.resilience import BreakerSnapshot, BreakerState
from agent_core.settings import Settings
from agent_core.top.services import Services
from agent_core.web.batching import DEFAULT_INTERVAL, URGENT_GAP, batched
from agent_core.web.breakers import TICK_SECONDS, breaker_value
from agent_core.web.browser_session import BrowserSession
from agent_core.web.budget import SpaceBudget
from agent_core.web.frames import BreakerTable, Wire, spare_failed_imports
from agent_core.web.handlers import Handlers
from agent_core.web.layout import layout, styled_breakers
from agent_core.web.page import Page
from testing.app import release_gradio_loops
from testing.clock import FakeClock, run_in_virtual_time

Timed = list[tuple[float, list[ev.Event]]]


def timed_batches(events: AsyncIterator[ev.Event]) -> Timed:
    """``batched(events)`` with the default interval on virtual time: (when, batch) for every frame."""

    async def frames() -> Timed:
        loop = asyncio.get_running_loop()
        return [(loop.time(), batch) async for batch in batched(events, monotonic=loop.time)]

    return run_in_virtual_time(frames())


def test_500_text_deltas_in_one_second_make_ten_frames_give_or_take_one() -> None:
    async def run() -> AsyncIterator[ev.Event]:
        yield ev.TurnStarted(t=0.0, turn=1)
        for i in range(500):  # one every 1.9 ms: 0.95 s of streaming
            await asyncio.sleep(0.0019)
            yield ev.TextDelta(t=i * 0.0019, turn=1, text="word ")

    frames = timed_batches(run())
    assert 9 <= len(frames) <= 11  # ten a second: never more, and text is not held back longer either
    assert sum(len(batch) for _, batch in frames) == 501  # nothing lost, order kept
    texts = [e for _, batch in frames for e in batch if isinstance(e, ev.TextDelta)]
    assert [e.t for e in texts] == sorted(e.t for e in texts)
    streamed = [at for at, _ in frames[1:-1]]  # the end is flushed at once, whenever it comes
    assert all(b - a >= DEFAULT_INTERVAL - 1e-9 for a, b in itertools.pairwise(streamed))


def test_structure_goes_out_at_once_unless_a_frame_just_left_then_together_and_the_end_at_once() -> None:
    breaker = ev.BreakerChanged(t=0.5, breaker="github:read_file", old="closed", new="open", reason="503")
    started = ev.ToolCallStarted(t=0.6, call_id="c1", tool="read_file", arguments={}, turn=1)
    finished = ev.ToolCallFinished(
        t=0.7, call_id="c1", tool="read_file", turn=1, ok=True, preview="{}", duration_s=0.2
    )
    end = ev.RunFinished(t=0.7, report="done", degraded=False)

    async def run() -> AsyncIterator[ev.Event]:
        yield ev.TurnStarted(t=0.0, turn=1)
        for i in range(10):  # deltas every 50 ms: they wait for the interval
            await asyncio.sleep(0.05)
            yield ev.TextDelta(t=0.05 * i, turn=1, text="x")
        await asyncio.sleep(0.001)
        yield breaker  # 1 ms after a frame left (the last delta's)
        await asyncio.sleep(0.001)
        yield started  # 1 ms later: the same frame
        await asyncio.sleep(0.2)
        yield finished  # after a quiet spell: at once
        await asyncio.sleep(0.001)
        yield end  # 1 ms after a frame: the end never waits

    frames = timed_batches(run())
    times = [at for at, _ in frames]
    when = {id(e): at for at, batch in frames for e in batch}
    held = times.index(when[id(breaker)])
    assert when[id(started)] == when[id(breaker)]  # one frame for both
    assert when[id(breaker)] - times[held - 1] == pytest.approx(URGENT_GAP)  # held for the gap, no longer
    assert when[id(breaker)] > 0.501
    assert when[id(finished)] == pytest.approx(0.702)
    assert when[id(end)] == pytest.approx(0.703)
    assert frames[-1][1] == [end]
    assert all(b - a >= URGENT_GAP - 1e-9 for a, b in itertools.pairwise(times[:-1]))


def _snapshot(state: BreakerState, *, failures: int = 0, retry_after: float = 0.0) -> BreakerSnapshot:
    return BreakerSnapshot(
        name="github:read_file", state=state, failures=failures, last_error=None, retry_after=retry_after
    )


def test_the_breaker_table_is_built_again_only_when_the_snapshots_change() -> None:
    table = BreakerTable()
    closed = [_snapshot(BreakerState.CLOSED)]
    first = table.value(closed, "en")
    assert table.value(list(closed), "en") is first
    assert table.value(closed, "zh") is not first
    opened = [_snapshot(BreakerState.OPEN, failures=3, retry_after=9.0)]
    assert table.value(opened, "zh") is not table.value(closed, "zh")


# Building a component makes Gradio 6.31 orphan event loops (ResourceWarning when collected): not ours.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_ready_made_table_shows_what_the_styled_one_shows() -> None:
    snapshots = [
        _snapshot(BreakerState.OPEN, failures=3, retry_after=12.0),
        BreakerSnapshot(
            name="model:api.deepseek.com",
            state=BreakerState.HALF_OPEN,
            failures=1,
            last_error="HTTP 503 <b>x</b>",
            retry_after=0.0,
        ),
        BreakerSnapshot(
            name="local:read_file", state=BreakerState.CLOSED, failures=0, last_error=None, retry_after=0.0
        ),
    ]
    table = gr.Dataframe(interactive=False)
    release_gradio_loops()
    for lang in ("en", "zh"):
        for snaps in (snapshots, []):
            styled = table.postprocess(styled_breakers(snaps, lang)).model_dump()
            assert table.postprocess(breaker_value(snaps, lang)).model_dump() == styled


def _page_and_handlers() -> tuple[Page, BrowserSession, Handlers]:
    """A built page, one session and the page's handlers, on a fake clock."""
    settings = Settings()
    clock = FakeClock()
    services = Services(settings, clock=clock)
    session = BrowserSession(settings, clock=clock)
    with gr.Blocks():
        page = layout(settings, {}, session, lambda _value: None)
    release_gradio_loops()
    budget = SpaceBudget(settings, services.quotas, clock=clock)
    handlers = Handlers(page, settings=settings, services=services, budget=budget, recordings={})
    return page, session, handlers


# Building a page makes Gradio 6.31 orphan event loops (ResourceWarning when collected): not ours.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_frame_sends_every_run_output_but_the_state() -> None:
    page, session, handlers = _page_and_handlers()
    session.start_view(keep_history=False, request="acme/widgets")
    frame = handlers.frame(session, table=BreakerTable())
    assert set(frame) == set(page.run_outputs()) - {page.state}
    assert frame[page.status.timer] == TICK_SECONDS  # not a prop update: no component rebuilt
    assert handlers.opening_frame(session)[page.state] is session


def _run_events() -> list[ev.Event]:
    """A run with a step, two tool calls (one failing, with markup in its preview), a breaker change,
    streamed report text and its end."""
    started = [
        ev.ToolCallStarted(t=0.1 + i / 10, call_id=f"c{i}", tool=tool, arguments={"path": "a<b>.py"}, turn=1)
        for i, tool in enumerate(("read_file", "get_commits"))
    ]
    finished = [
        ev.ToolCallFinished(
            t=0.5,
            call_id="c0",
            tool="read_file",
            turn=1,
            ok=True,
            preview='{"text": "<b>x</b>"}',
            duration_s=0.2,
        ),
        ev.ToolCallFinished(
            t=0.6, call_id="c1", tool="get_commits", turn=1, ok=False, preview="HTTP 503", duration_s=0.3
        ),
    ]
    breaker = ev.BreakerChanged(t=0.61, breaker="github:get_commits", old="closed", new="open", reason="503")
    return [
        ev.TurnStarted(t=0.0, turn=1),
        *started,
        *finished,
        breaker,
        ev.TurnFinished(t=0.7, turn=1, tool_calls=2),
        ev.TurnStarted(t=0.8, turn=2),
        *[ev.TextDelta(t=0.9, turn=2, text=f"# acme/widgets\n\nline {i} `x`\n") for i in range(3)],
        ev.RunFinished(t=1.0, report="# acme/widgets\n\nline 0 `x`\n", degraded=False),
    ]


# Building a page makes Gradio 6.31 orphan event loops (ResourceWarning when collected): not ours.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_wired_frames_are_what_gradio_would_postprocess_and_old_messages_are_not_postprocessed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page, session, handlers = _page_and_handlers()
    wire = Wire(page.trace.chatbot, page.status.breakers).run()
    chatbot = page.trace.chatbot
    postprocessed: list[object] = []
    own = chatbot._postprocess

    def counted(message: Any) -> object:
        postprocessed.append(message)
        return own(message)

    monkeypatch.setattr(chatbot, "_postprocess", counted)
    session.start_view(keep_history=False, request="acme/widgets")
    table = BreakerTable()
    by_gradio = by_wire = 0
    for event in _run_events():
        session.observe(event)
        frame = handlers.frame(session, table=table) | {page.state: session}
        frame[page.status.timer] = gr.update(active=True)
        before = len(postprocessed)
        gradio = {
            c: _dump(c.postprocess(v)) for c, v in frame.items() if c not in (page.state, page.status.timer)
        }
        by_gradio += len(postprocessed) - before
        before = len(postprocessed)
        wired = wire.frame(frame)
        by_wire += len(postprocessed) - before
        assert {c: wired[c] for c in gradio} == gradio
        assert wired[page.state] is session
        assert wired[page.status.timer] == frame[page.status.timer]  # a prop update: Gradio's business
    assert by_wire < by_gradio / 3  # the wire postprocessed only the messages it had not sent yet


def _dump(value: object) -> object:
    return value.model_dump() if isinstance(value, GradioModel | GradioRootModel) else value


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None, reason="matplotlib is installed")
def test_the_failed_import_gradio_repeats_every_frame_no_longer_searches_the_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searched: list[str] = []
    own = importlib.machinery.PathFinder.find_spec

    def find_spec(name: str, *args: object, **kwargs: object) -> object:
        searched.append(name)
        return own(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", find_spec)
    # A page built earlier in this worker already marked matplotlib; start from Python's own state.
    monkeypatch.delitem(sys.modules, "matplotlib", raising=False)
    try:
        with gradio_utils.MatplotlibBackendMananger():  # what Gradio wraps every frame's step in
            pass
        assert searched.count("matplotlib") == 2  # in and out: sys.path searched each time
        spare_failed_imports()
        searched.clear()
        with gradio_utils.MatplotlibBackendMananger():
            pass
        assert searched == []
        with pytest.raises(ImportError):
            importlib.import_module("matplotlib")
    finally:
        sys.modules.pop("matplotlib", None)
