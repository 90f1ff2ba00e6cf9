"""The page's controls, driven through the real handlers over the GitHub emulator on 127.0.0.1.

Stop cancels the run through the session, wherever the page's handler is (here it is suspended at a
``yield``, as when Gradio is sending a frame, the case ``cancels=`` never reached); a second run of a
session is refused with a message; downloads, the status line and the report pane say what happened;
the settings form is checked; the report follows the page's language when no question sets it.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import gradio as gr
import pytest

from agent_core import events as ev
from agent_core.agent.prompts import detect_language
from agent_core.settings import Settings
from agent_core.top.services import Services
from agent_core.web.browser_session import BrowserSession
from agent_core.web.budget import SpaceBudget
from agent_core.web.handlers import Handlers, run_controls
from agent_core.web.layout import layout
from agent_core.web.page import Frame, Page
from agent_core.web.panels import form_error
from agent_core.web.render import report_pane
from testing.app import api_client, release_gradio_loops, running_app
from testing.clock import HeldWaits, RealWaits
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import sample_python_project

pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
]

REPO = "octo/wordstats"
README = re.compile(r"/repos/octo/wordstats/(contents/README|readme)", re.IGNORECASE)
PATIENCE_S = 60.0  # a bound for a broken app, never reached by a passing test
STOPS = 15


def _page(settings: Settings, services: Services) -> Page:
    """The page's components, built like the app builds them (outside a running server)."""
    with gr.Blocks():
        page = layout(settings, {}, BrowserSession(settings, clock=services.clock), lambda _value: None)
    release_gradio_loops()  # Gradio leaves an event loop per lock it made; closed under our filters
    return page


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitHubEmulator]:
    root = tmp_path_factory.mktemp("repos")
    with GitHubEmulator() as emu:
        emu.add_repo(REPO, sample_python_project(root / "wordstats"), description="Count words")
        emu.cache_control = "private, max-age=0"  # every call reaches the wire
        emu.limit_unauthenticated = 100_000
        yield emu


def fast_retries(emulator: GitHubEmulator, tmp_path: Path, **changes: Any) -> Settings:
    """Offline planner, retrying fast and never opening a breaker: a run whose README keeps failing
    stays in flight, retrying, until it is stopped (or the README heals)."""
    return Settings(
        github_api_url=emulator.base_url,
        cache_dir=tmp_path / "cache",
        prefetch=False,
        retry_base_delay=0.01,
        retry_max_delay=0.02,
        retry_max_attempts=10_000,
        retry_max_total=PATIENCE_S,
        breaker_failure_threshold=10_000,
        **changes,
    )


@pytest.fixture
async def handlers(emulator: GitHubEmulator, tmp_path: Path) -> AsyncIterator[Handlers]:
    """The page's handlers (offline planner), retrying fast and never opening a breaker, so a run whose
    README keeps failing stays in flight, retrying, until it is stopped."""
    settings = fast_retries(emulator, tmp_path)
    services = Services(settings)
    page = _page(settings, services)
    budget = SpaceBudget(settings, services.quotas, clock=services.clock)
    try:
        yield Handlers(page, settings=settings, services=services, budget=budget, recordings={})
    finally:
        emulator.reset_faults()
        await services.aclose()


def _readme_failures(emu: GitHubEmulator) -> int:
    return sum(1 for r in emu.requests if README.search(r.decoded_path) and r.status == 503)


async def _until_retrying(h: Handlers, frames: AsyncIterator[Frame], emu: GitHubEmulator) -> BrowserSession:
    """Pull frames until the run is retrying the README; then leave the handler suspended at its yield."""
    first = last = await anext(frames)
    session = first[h.page.state]
    assert isinstance(session, BrowserSession)
    while _readme_failures(emu) < 2:
        try:
            last = await anext(frames)
        except StopAsyncIteration:
            calls = [(r.method, r.decoded_path, r.status) for r in emu.requests]
            pytest.fail(
                f"the run ended before retrying the README: status {last[h.page.status.line]!r}, "
                f"report {str(last[h.page.report.markdown])[:2000]!r}, requests {calls}"
            )
    return session


async def test_stop_cancels_the_run_and_its_retries_even_when_the_handler_waits_at_a_yield(
    handlers: Handlers, emulator: GitHubEmulator
) -> None:
    h, lags, settles = handlers, [], []
    for _ in range(STOPS):
        emulator.clear_log()
        emulator.fail(README.pattern, [503] * 3_000)
        frames = h.run_analysis(REPO, "", None, None)  # type: ignore[arg-type]
        session = await _until_retrying(h, frames, emulator)
        run = session.run
        assert run is not None
        pressed = time.monotonic()
        stopped = await h.stop_run(session)
        answered = time.monotonic()
        settled = answered - pressed
        # The run's task has ended before Stop answers: it can send no request any more.
        assert run.unwound and session.run is None
        rest = [frame async for frame in frames]  # the suspended handler ends by itself, without error
        # Faults stay until the request in flight is answered: healed first, it could cache a README the
        # next round would then read without a request (and never retry).
        assert emulator.wait_idle(PATIENCE_S)
        emulator.reset_faults()
        last = max(r.started for r in emulator.requests)
        lags.append(last - pressed)
        settles.append(settled)
        # Once Stop answered, no request starts: at most the one already sent reaches the server late.
        late = [r for r in emulator.requests if r.started > answered]
        assert len(late) <= 1, f"{len(late)} requests after Stop answered"
        assert settled < PATIENCE_S
        assert "**Stopped.**" in stopped[h.page.status.line]
        assert rest and "**Stopped.**" in rest[-1][h.page.status.line]
        assert rest[-1][h.page.trace.chatbot] == stopped[h.page.trace.chatbot]  # one settled state
        titles = [(m.get("metadata") or {}).get("title") for m in stopped[h.page.trace.chatbot]]
        assert "⏹ Stopped" in titles and "🧠 Step 1" in titles  # the trace is kept
        assert all(
            (m.get("metadata") or {}).get("status") != "pending" for m in stopped[h.page.trace.chatbot]
        )
        analyze, stop = stopped[h.page.inputs.analyze], stopped[h.page.inputs.stop]
        assert analyze["interactive"] is True and analyze["value"] == "Analyze"
        assert stop["interactive"] is False
    print(
        f"\n{STOPS} stops: last request after Stop max {max(lags) * 1000:.0f} ms, "
        f"median {statistics.median(lags) * 1000:.0f} ms (negative: before the click); Stop answered after "
        f"max {max(settles) * 1000:.0f} ms, median {statistics.median(settles) * 1000:.0f} ms"
    )


async def test_a_second_run_while_one_streams_is_refused_with_a_message(
    handlers: Handlers, emulator: GitHubEmulator
) -> None:
    h = handlers
    emulator.fail(README.pattern, [503] * 3_000)
    frames = h.run_analysis(REPO, "", None, None)  # type: ignore[arg-type]
    session = await _until_retrying(h, frames, emulator)
    with pytest.warns(UserWarning, match="already running"):
        refused = [frame async for frame in h.run_analysis(REPO, "", session, None)]  # type: ignore[arg-type]
    assert len(refused) == 1
    assert "press Stop first" in refused[0][h.page.status.line]
    assert session.running  # the first run goes on
    controls = h.after_run(session)  # the refused request's chain ends: the controls stay idle
    assert controls[h.page.inputs.analyze] == gr.update(value="Analyzing…", interactive=False)
    assert controls[h.page.inputs.stop] == gr.update(value="Stop", interactive=True)
    await h.stop_run(session)
    async for _ in frames:
        pass


async def test_in_chinese_stop_says_so_in_chinese(handlers: Handlers, emulator: GitHubEmulator) -> None:
    h = handlers
    emulator.fail(README.pattern, [503] * 3_000)
    session = BrowserSession(h.settings, clock=h.services.clock)
    session.lang = "zh"
    frames = h.run_analysis(REPO, "", session, None)  # type: ignore[arg-type]
    assert await _until_retrying(h, frames, emulator) is session
    stopped = await h.stop_run(session)
    assert "**已停止。**" in stopped[h.page.status.line]
    assert stopped[h.page.inputs.analyze] == gr.update(value="分析", interactive=True)
    titles = [(m.get("metadata") or {}).get("title") for m in stopped[h.page.trace.chatbot]]
    assert "⏹ 已停止" in titles
    async for _ in frames:
        pass


def test_an_api_client_s_second_run_is_told_to_stop_the_first(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """One gradio_client is one session: its second request while the first streams gets the message."""
    held = emulator.waits = HeldWaits()
    emulator.latency(1.0, README.pattern)  # the README is held until released: the first run streams
    try:
        with running_app(fast_retries(emulator, tmp_path, max_concurrent_runs=2)) as url:
            api = api_client(url, tmp_path / "dl")
            first = api.submit(REPO, "", api_name="/run_analysis")
            assert held.wait_held(1, timeout=PATIENCE_S)
            second = api.predict(REPO, "", api_name="/run_analysis")
            assert "already running in this session: press Stop first" in second[3]
            held.open()  # the first run goes on to its report
            assert first.result()[1].startswith(f"# {REPO}")
    finally:
        held.open()
        emulator.reset_faults()
        emulator.waits = RealWaits()


async def test_a_failed_run_explains_itself_and_offers_only_the_trace(handlers: Handlers) -> None:
    h = handlers
    frames = [frame async for frame in h.run_analysis("octo/missing", "", None, None)]  # type: ignore[arg-type]
    session = frames[0][h.page.state]
    report, status = frames[-1][h.page.report.markdown], frames[-1][h.page.status.line]
    assert "not found or private on GitHub" in report and "Check the spelling" in report
    assert "The report appears here" not in report
    # said once: the report pane explains, the status line points there (issue 38: not three times)
    assert "not found or private on GitHub" not in status and "report panel" in status
    controls = h.after_run(session)
    assert controls[h.page.report.download_report]["interactive"] is False
    assert controls[h.page.report.download_trace]["interactive"] is True


async def test_with_the_page_in_chinese_and_no_question_the_report_is_chinese(handlers: Handlers) -> None:
    h = handlers
    session = BrowserSession(h.settings, clock=h.services.clock)
    session.lang = "zh"
    frames = [frame async for frame in h.run_analysis(REPO, "", session, None)]  # type: ignore[arg-type]
    assert isinstance(session.view, object) and session.view is not None
    report = session.view.report.text()
    assert re.search(r"##\s*概述|概览|总结", report), report[:300]
    assert "完成" in frames[-1][h.page.status.line]
    assert detect_language("", "auto", "zh") == "zh"
    assert detect_language("What is it?", "auto", "zh") == "en"
    assert detect_language("", "en", "zh") == "en"


# -- what the page says ------------------------------------------------------------------------------


def _observed(*events: ev.Event, lang: str = "en") -> BrowserSession:
    session = BrowserSession(Settings(), clock=Services(Settings()).clock)
    session.lang = lang
    session.start_view(keep_history=False)
    for event in events:
        session.observe(event)
    return session


def test_the_status_line_blames_the_model_when_the_deterministic_writer_wrote_the_report() -> None:
    model = ev.Diagnosis(cause="model_auth", source="model", host="api.example.com")
    failed = ev.RunFinished(t=1, report="# r", degraded=True, writer="fallback", diagnosis=model)
    line = _observed(failed).status_line()
    assert "the model failed" in line and "rejected the API key" in line
    assert "deterministic writer wrote the report" in line
    assert "some data could not be read" not in line
    zh = _observed(failed, lang="zh").status_line()
    assert "模型出错" in zh and "确定性写作器" in zh


def test_the_status_line_says_which_github_data_is_missing() -> None:
    limited = ev.Diagnosis(cause="rate_limit", source="github", reset_at=0.0)
    line = _observed(ev.RunFinished(t=1, report="# r", degraded=True, diagnosis=limited)).status_line()
    assert "some GitHub data is missing" in line and "rate limit" in line and "GITHUB_TOKEN" in line


def test_a_failure_names_its_cause_in_the_report_pane_in_the_page_language() -> None:
    dns = ev.Diagnosis(cause="dns", source="github", host="api.github.com")
    failed = ev.RunFailed(t=1, message="could not resolve", diagnosis=dns)
    en, zh = _observed(failed), _observed(failed, lang="zh")
    assert "could not be resolved (DNS)" in report_pane(en.view, "en")
    assert "analyse a local path" in report_pane(en.view, "en")
    assert "无法解析" in report_pane(zh.view, "zh") and "本地路径" in report_pane(zh.view, "zh")
    assert "could not be resolved (DNS)" not in en.status_line() and "report panel" in en.status_line()
    assert report_pane(None, "en") == "*The report appears here as it is written.*"


def test_downloads_are_enabled_only_with_something_in_them() -> None:
    settings = Settings()
    page = _page(settings, Services(settings))
    empty = BrowserSession(settings, clock=Services(settings).clock)
    assert run_controls(page, empty)[page.report.download_report]["interactive"] is False
    finished = _observed(ev.RunFinished(t=1, report="# Report", degraded=False))
    out = run_controls(page, finished)
    assert out[page.report.download_report]["interactive"] is True
    assert out[page.report.download_trace]["interactive"] is True


@pytest.mark.parametrize(
    ("provider", "model", "url", "expected"),
    [
        ("custom", "m", "not a url", "base URL must start with http:// or https://"),
        ("custom", "m", "ftp://host/v1", "base URL must start"),
        ("custom", "m", "https://", "base URL must start"),
        ("nonsense", "m", "", "unknown model provider"),
        ("custom", " ", "https://host/v1", "choose or type a model name"),
        ("custom", "m", "http://127.0.0.1:8080/v1", None),
        ("custom", "m", "", None),
    ],
)
def test_the_settings_form_is_checked_before_it_applies(
    provider: str, model: str, url: str, expected: str | None
) -> None:
    error = form_error(provider, model, url, "en")
    assert error is None if expected is None else expected in (error or "")
    if expected is not None:
        assert form_error(provider, model, url, "zh") != error  # said in Chinese too
