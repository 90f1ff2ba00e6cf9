"""The gradio-free parts of the app: per-session state, event batching, the hosted run budget, labels."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.agent.model_turn import LLM_BREAKER
from agent_core.errors import ConfigurationError
from agent_core.resilience import BreakerState
from agent_core.settings import Settings
from agent_core.tools.registry import TOOL_NAMES
from agent_core.web.batching import batched
from agent_core.web.browser_session import BrowserSession
from agent_core.web.budget import RunBudget
from agent_core.web.page import ui_language
from agent_core.web.replay import bundled_recordings, load_recording
from agent_core.words import t
from testing.clock import FakeClock, run_in_virtual_time

# -- batching -------------------------------------------------------------------------------------------


def _delta(i: int) -> ev.Event:
    return ev.TextDelta(t=i / 100, turn=1, text=f"{i} ")


async def test_first_event_and_urgent_events_are_handed_over_at_once_and_deltas_coalesce() -> None:
    release = asyncio.Event()

    async def run() -> AsyncIterator[ev.Event]:
        yield ev.TurnStarted(t=0, turn=1)
        await release.wait()
        for i in range(50):
            yield _delta(i)
        yield ev.TurnFinished(t=1, turn=1, tool_calls=0)

    batches: list[list[ev.Event]] = []
    async for batch in batched(run(), interval=10.0):
        batches.append(batch)
        release.set()
    assert len(batches[0]) == 1  # the first event alone, at once
    assert len(batches) == 2  # 50 deltas and the urgent end arrived together: one frame, not 51
    assert isinstance(batches[1][-1], ev.TurnFinished)


def test_quiet_deltas_are_flushed_after_the_interval() -> None:
    # On virtual time (the loop's clock is batched()'s clock too), so the frames' times are exact.
    async def run() -> AsyncIterator[ev.Event]:
        yield ev.TurnStarted(t=0, turn=1)
        await asyncio.sleep(0.01)
        yield _delta(1)  # not urgent, and too soon after the last frame for its own
        await asyncio.sleep(0.3)  # then nothing for a while
        yield ev.TurnFinished(t=1, turn=1, tool_calls=0)

    async def frames() -> list[tuple[float, list[str]]]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        return [
            (loop.time() - started, [e.kind for e in batch])
            async for batch in batched(run(), interval=0.1, monotonic=loop.time)
        ]

    assert run_in_virtual_time(frames()) == [
        (0.0, ["turn_started"]),  # the first event at once
        (pytest.approx(0.1), ["text_delta"]),  # the lone delta once the interval since that frame passed,
        (pytest.approx(0.31), ["turn_finished"]),  # not with the next event, and the end at once
    ]


async def test_generator_errors_reach_the_consumer() -> None:
    async def run() -> AsyncIterator[ev.Event]:
        yield ev.TurnStarted(t=0, turn=1)
        raise ConfigurationError("boom")

    with pytest.raises(ConfigurationError, match="boom"):
        async for _ in batched(run()):
            pass


async def test_stopping_the_consumer_cancels_the_run_and_leaves_no_task() -> None:
    cleaned = asyncio.Event()
    running = asyncio.Event()

    async def run() -> AsyncIterator[ev.Event]:
        try:
            yield ev.TurnStarted(t=0, turn=1)
            running.set()
            await asyncio.sleep(60)
            yield _delta(1)
        finally:
            cleaned.set()

    async def consume() -> None:
        async for _ in batched(run()):
            pass

    before = len(asyncio.all_tasks())
    task = asyncio.create_task(consume())
    await running.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned.is_set()  # the run's finally ran: its own tool calls would be cancelled there
    assert len(asyncio.all_tasks()) == before


# -- the session ----------------------------------------------------------------------------------------


def _session(**settings: object) -> BrowserSession:
    return BrowserSession(Settings(**settings), clock=FakeClock())  # type: ignore[arg-type]


def test_a_session_has_a_breaker_row_for_every_tool_and_the_model() -> None:
    planner = _session()
    github_rows = [f"github:{tool}" for tool in TOOL_NAMES]
    assert [s.name for s in planner.breaker_snapshots()] == github_rows  # no model: no model row
    model = _session(api_key="k")
    assert [s.name for s in model.breaker_snapshots()] == [*github_rows, "model:api.deepseek.com"]
    assert all(s.state is BreakerState.CLOSED for s in model.breaker_snapshots())
    assert planner.breakers is not model.breakers
    assert planner.chaos is not model.chaos


def test_apply_settings_keeps_operator_keys_for_blank_fields_and_validates() -> None:
    session = _session(api_key="operator-key", github_token="operator-token")
    session.apply_settings(api_key="  ", github_token="", llm_provider="openai", llm_model="", max_turns=30)
    assert session.settings.api_key == "operator-key"
    assert session.settings.github_token == "operator-token"
    assert session.settings.llm_model is None  # blank: the preset's default model
    assert session.settings.max_turns == 30
    session.apply_settings(api_key=" user-key ", llm_provider="deepseek", report_language="zh")
    assert session.settings.api_key == "user-key"
    assert session.settings.report_language == "zh"
    before = session.settings
    with pytest.raises(ConfigurationError):
        session.apply_settings(api_key="k", llm_provider="custom", llm_base_url="")
    assert session.settings is before  # nothing changed


def test_hosted_sessions_cannot_raise_max_turns() -> None:
    session = _session(space_id="me/space", max_turns=8)
    session.apply_settings(max_turns=40)
    assert session.settings.max_turns == 8
    session.apply_settings(max_turns=3)
    assert session.settings.max_turns == 3


def test_status_line_says_which_mode_runs() -> None:
    assert _session().status_line().startswith("offline planner (no API key) · GitHub: unauthenticated")
    model = _session(api_key="k", github_token="tok")
    assert model.status_line().startswith("model: deepseek-flash via DeepSeek · GitHub: authenticated")
    hosted = _session(space_id="me/space")
    assert "no GitHub token on this Space" in hosted.status_line()
    broken = _session(api_key="k", llm_provider="custom")
    assert broken.status_line().startswith("⚠️ the custom model provider needs a base URL")
    zh = _session()
    zh.lang = "zh"
    assert zh.status_line().startswith("离线规划器")


def test_observing_a_run_updates_phase_rate_limit_and_follow_up() -> None:
    session = _session()
    session.start_view(keep_history=False, request="octo/demo")
    session.observe(
        ev.RateLimitUpdated(t=0, limit=60, remaining=42, reset_at=0, resource="core", authenticated=False)
    )
    assert "42 requests left" in session.status_line()
    session.observe(ev.RunFinished(t=1, report="# R", degraded=True))
    assert session.phase.startswith("Done (degraded")
    assert not session.can_follow_up  # no open analysis behind it
    assert session.messages()[-1]["content"] == "📄 Report written — see the report panel."
    session.start_view(keep_history=True, request="and?")
    assert session.messages()[0] == {"role": "user", "content": "octo/demo"}
    # The report panel shows the follow-up's answer now: the earlier report moves into the trace, in full.
    assert session.messages()[1] == {"role": "assistant", "content": "# R"}
    assert session.messages()[-1] == {"role": "user", "content": "and?"}


def test_replay_breakers_come_from_the_recording(tmp_path: Path) -> None:
    session = _session()
    session.replaying = "model-breaker-recovery"
    view = session.start_view(keep_history=False)
    events = load_recording(bundled_recordings()["model-breaker-recovery"])
    opened_at = next(i for i, e in enumerate(events) if isinstance(e, ev.BreakerChanged))
    for event in events[: opened_at + 1]:
        session.observe(event)
    snaps = {s.name: s for s in session.breaker_snapshots()}
    assert snaps["github:read_file"].state is BreakerState.OPEN
    assert any(name.startswith(LLM_BREAKER) for name in snaps)  # recorded with a model
    assert (
        session.breakers.get("github:read_file").state is BreakerState.CLOSED
    )  # the live board is untouched
    assert "replay of model-breaker-recovery (recorded with scripted-model)" in session.status_line()
    assert view.started is not None


def test_export_writes_the_report_and_the_trace(tmp_path: Path) -> None:
    session = _session(api_key="sk-never-exported")
    assert session.export_files() is None
    session.start_view(keep_history=False)
    session.observe(ev.RunStarted(t=0, run_id="r", targets=("o/r",), question="", model="m", mode="model"))
    session.observe(ev.RunFinished(t=1, report="# Report <b>", degraded=False))
    files = session.export_files()
    assert files is not None
    report, trace = files
    written = report.read_text(encoding="utf-8")
    assert written.startswith("# Report <b>\n\n---\n")  # the report as written, then the app's appendix
    assert "## ✔ Checked by Repo Analyst, not by the model" in written
    assert load_recording(trace)[-1] == ev.RunFinished(t=1, report="# Report <b>", degraded=False)
    assert "sk-never" not in report.read_text() + trace.read_text()
    session.discard()
    assert not report.exists()


# -- the hosted budget ----------------------------------------------------------------------------------


def test_run_budget_is_a_sliding_hour_per_visitor() -> None:
    clock = FakeClock()
    budget = RunBudget(2, clock=clock)
    assert budget.try_start("ip:1").allowed
    clock.advance(600)
    second = budget.try_start("ip:1")
    assert second.allowed
    assert second.remaining == 0
    refused = budget.try_start("ip:1")
    assert not refused.allowed
    assert refused.retry_after == 3000  # the first run leaves the window an hour after it started
    assert refused.retry_after_minutes == 50
    assert budget.try_start("ip:2").allowed  # other visitors are not affected
    clock.advance(3000)
    assert budget.try_start("ip:1").allowed
    assert budget.remaining("ip:1") == 0
    with pytest.raises(ValueError, match="runs_per_hour"):
        RunBudget(0)


# -- labels ---------------------------------------------------------------------------------------------


def test_labels_look_up_in_both_languages_and_fall_back_to_english() -> None:
    assert t("analyze", "zh") == "分析"
    assert t("stat_unknown", "zh") == "—"
    assert t("no-such-key", "zh") == "no-such-key"
    assert t("status_failed", "en", message="x") == "Failed: x"
    assert ui_language("中文") == "zh"
    assert ui_language("English") == "en"
    assert ui_language(None) == "en"
