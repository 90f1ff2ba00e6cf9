"""repo-analyst in the browser: a Gradio Blocks page over the agent core's event stream.

Handlers only render events: GitHub and model logic live in ``agent_core``; the trace, report, stats
and breaker rows come from :mod:`agent_core.ui.render`; what a browser session owns (its settings and
keys, breakers, chaos monkey and open analysis) is a :class:`agent_core.ui.session.UiSession` kept in
``gr.State``. The process owns one :class:`agent_core.agent.session.Services` (HTTP pool and cache)
and one :class:`agent_core.ui.budget.RunBudget`.

With ``MCP_SERVER=true`` the app is also an MCP server: the repository tools and ``analyze`` are public
API endpoints (``gr.api``); every UI handler is private (or, for the two run handlers that test
clients drive, undocumented), so none of them becomes an MCP tool.

Run ``python app.py``: 127.0.0.1 locally, 0.0.0.0 on a Hugging Face Space (``SPACE_ID``) or when
``GRADIO_SERVER_NAME``/``HOST`` asks for it; never a public share link.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from agent_core import events as ev
from agent_core.errors import AgentCoreError, ConfigurationError, UserInputError
from agent_core.llm import DEFAULT_PROVIDER, PRESETS
from agent_core.resilience import BreakerSnapshot
from agent_core.settings import Settings
from agent_core.tools.registry import TOOL_NAMES
from agent_core.ui.batching import batched
from agent_core.ui.breakers import STATE_STYLES, breaker_columns, breaker_table, needs_ticking
from agent_core.ui.budget import RunBudget
from agent_core.ui.i18n import UI_LANGUAGES, t, ui_language
from agent_core.ui.markdown import one_line
from agent_core.ui.mcp import RepositoryApi, client_key
from agent_core.ui.replay import bundled_recordings, load_recording, replay
from agent_core.ui.session import UiSession
from agent_core.wiring import OpenedAnalysis, Services, open_analysis

logger = logging.getLogger("repo_analyst.app")

HERE = Path(__file__).resolve().parent
REPORT_LANGUAGES = (("auto", "auto"), ("English", "en"), ("中文", "zh"))
CSS = """
#status { font-size: 0.9em; }
#report { min-height: 200px; }
"""
Frame = dict[Any, Any]


# ------------------------------------------------------------------------------------------ helpers


def examples(settings: Settings) -> list[list[str]]:
    """Examples for the page: a web framework, a renamed repository, a Rust CLI, a comparison, Chinese."""
    rows = [
        ["https://github.com/pallets/flask", ""],
        ["https://github.com/ambv/black", "Was this repository renamed or moved?"],
        ["BurntSushi/ripgrep", "How is the CLI structured?"],
        ["pallets/flask fastapi/fastapi", "Compare their architecture and maintenance."],
        ["pallets/flask", "这个项目的架构是怎样的？维护得好吗？"],
    ]
    if settings.allow_local_paths:
        rows.insert(0, [str(HERE), "How is this project tested?"])
    return rows


def styled_breakers(snapshots: Sequence[BreakerSnapshot], lang: str) -> Any:
    """The breaker table as a pandas Styler: the state column coloured CLOSED/HALF_OPEN/OPEN."""
    frame = pd.DataFrame(breaker_table(snapshots, lang=lang), columns=breaker_columns(lang))
    state_column = frame.columns[1]
    return frame.style.map(lambda value: STATE_STYLES.get(str(value), ""), subset=[state_column])


def launch_options(settings: Settings, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Arguments for ``launch()``: where to bind, MCP, no share link, no run history, theme and CSS."""
    env = os.environ if environ is None else environ
    asked = env.get("GRADIO_SERVER_NAME") or env.get("HOST")
    # A Space must listen on every interface; anywhere else only on loopback unless asked otherwise.
    server_name = asked or ("0.0.0.0" if settings.hosted else "127.0.0.1")  # noqa: S104
    return {
        "server_name": server_name,
        "share": False,
        "mcp_server": settings.mcp_server,
        # The run history would store handler inputs in the browser; keys must live in the session only.
        "run_history": False,
        "theme": gr.themes.Soft(),
        "css": CSS,
    }


# --------------------------------------------------------------------------------------------- page


@dataclass(frozen=True, kw_only=True)
class Page:
    """Every component the handlers read or update (built by :func:`layout`)."""

    state: Any
    heading: Any
    status: Any
    target: Any
    question: Any
    analyze_btn: Any
    stop_btn: Any
    chatbot: Any
    followup: Any
    ask_btn: Any
    report_heading: Any
    report: Any
    dl_report: Any
    dl_trace: Any
    breakers: Any
    stats_heading: Any
    stats: Any
    chaos_box: Any
    chaos_note: Any
    chaos_on: Any
    fault_rate: Any
    down_tool: Any
    burst_btn: Any
    chaos_status: Any
    replay_box: Any
    replay_choice: Any
    replay_upload: Any
    replay_speed: Any
    replay_btn: Any
    settings_box: Any
    provider: Any
    model: Any
    base_url: Any
    api_key: Any
    github_token: Any
    max_turns: Any
    report_lang: Any
    ui_lang: Any
    apply_btn: Any
    timer: Any

    def run_outputs(self) -> list[Any]:
        """What a run's streamed frames update. Kept to what changes while a run streams: Gradio turns
        every declared output a frame leaves out into an update that rebuilds the component and its
        config (most of the app's CPU per frame, measured by ``python -m bench --only concurrency``)."""
        return [self.state, self.chatbot, self.report, self.stats, self.status, self.breakers, self.timer]

    def control_outputs(self) -> list[Any]:
        """What changes only before and after a run: follow-up, downloads, chaos status."""
        return [self.followup, self.ask_btn, self.dl_report, self.dl_trace, self.chaos_status]

    def labels(self, lang: str, *, hosted_target: bool) -> Frame:
        """Updates that put every label of the page into ``lang``."""
        target_key = "target_label_hosted" if hosted_target else "target_label"
        by_label: dict[Any, str] = {
            self.target: target_key,
            self.chatbot: "trace",
            self.dl_report: "download_report",
            self.dl_trace: "download_trace",
            self.chaos_box: "chaos",
            self.chaos_on: "chaos_enabled",
            self.fault_rate: "chaos_fault_rate",
            self.down_tool: "chaos_down",
            self.replay_box: "replay",
            self.replay_choice: "replay_choice",
            self.replay_upload: "replay_upload",
            self.replay_speed: "replay_speed",
            self.settings_box: "settings",
            self.provider: "provider",
            self.model: "model",
            self.base_url: "base_url",
            self.api_key: "api_key",
            self.github_token: "github_token",
            self.max_turns: "max_turns",
            self.report_lang: "report_language",
            self.ui_lang: "ui_language",
            self.breakers: "breakers",
        }
        by_value: dict[Any, str] = {
            self.analyze_btn: t("analyze", lang),
            self.stop_btn: t("stop", lang),
            self.ask_btn: t("ask", lang),
            self.burst_btn: t("chaos_burst", lang),
            self.replay_btn: t("replay_button", lang),
            self.apply_btn: t("apply_settings", lang),
            self.chaos_note: t("chaos_note", lang),
            self.heading: f"# {t('title', lang)}\n{t('subtitle', lang)}",
            self.report_heading: f"### {t('report', lang)}",
            self.stats_heading: f"### {t('stats', lang)}",
        }
        out: Frame = {component: gr.update(label=t(key, lang)) for component, key in by_label.items()}
        out.update({component: gr.update(value=value) for component, value in by_value.items()})
        out[self.question] = gr.update(
            label=t("question_label", lang), placeholder=t("question_placeholder", lang)
        )
        out[self.followup] = gr.update(
            label=t("followup_label", lang), placeholder=t("followup_placeholder", lang)
        )
        return out


def layout(  # noqa: PLR0915 - one statement per component is the clearest way to lay out a page
    settings: Settings, recordings: Mapping[str, Path], first: UiSession, discard: Callable[[object], None]
) -> Page:
    """Create the page's components inside the current ``gr.Blocks`` (English labels)."""
    en = "en"
    preset = PRESETS.get(settings.llm_provider or DEFAULT_PROVIDER, PRESETS[DEFAULT_PROVIDER])
    state = gr.State(None, delete_callback=discard)
    heading = gr.Markdown(f"# {t('title', en)}\n{t('subtitle', en)}")
    status = gr.Markdown(first.status_line(), elem_id="status")
    with gr.Row():
        with gr.Column(scale=4):
            target = gr.Textbox(
                label=t("target_label" if settings.allow_local_paths else "target_label_hosted", en),
                placeholder=t("target_placeholder", en),
                elem_id="target",
            )
            question = gr.Textbox(
                label=t("question_label", en), placeholder=t("question_placeholder", en), elem_id="question"
            )
        with gr.Column(scale=1, min_width=140):
            analyze_btn = gr.Button(t("analyze", en), variant="primary", elem_id="analyze")
            stop_btn = gr.Button(t("stop", en), variant="stop", elem_id="stop")
    gr.Examples(
        examples=examples(settings),
        inputs=[target, question],
        label=t("examples", en),
        api_visibility="private",
    )
    with gr.Row():
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(
                label=t("trace", en),
                height=600,
                group_consecutive_messages=False,
                elem_id="trace",
                buttons=["copy_all"],
            )
            with gr.Row():
                followup = gr.Textbox(
                    label=t("followup_label", en),
                    placeholder=t("followup_placeholder", en),
                    interactive=False,
                    scale=4,
                    elem_id="followup",
                )
                ask_btn = gr.Button(t("ask", en), interactive=False, scale=1, elem_id="ask")
        with gr.Column(scale=2):
            report_heading = gr.Markdown(f"### {t('report', en)}")
            # Sanitised Markdown (the default): repository content and model output are untrusted.
            report = gr.Markdown(
                t("report_empty", en), elem_id="report", buttons=["copy"], container=True, padding=True
            )
            with gr.Row():
                dl_report = gr.DownloadButton(
                    t("download_report", en), interactive=False, size="sm", elem_id="dl-report"
                )
                dl_trace = gr.DownloadButton(
                    t("download_trace", en), interactive=False, size="sm", elem_id="dl-trace"
                )
    with gr.Row():
        with gr.Column(scale=3):
            breakers = gr.Dataframe(
                value=styled_breakers(first.breaker_snapshots(), en),
                label=t("breakers", en),
                interactive=False,
                elem_id="breakers",
            )
        with gr.Column(scale=2):
            stats_heading = gr.Markdown(f"### {t('stats', en)}")
            stats = gr.Markdown("", elem_id="stats")
    with gr.Accordion(t("chaos", en), open=False) as chaos_box:
        chaos_note = gr.Markdown(t("chaos_note", en))
        with gr.Row():
            chaos_on = gr.Checkbox(label=t("chaos_enabled", en), value=False, elem_id="chaos-on")
            fault_rate = gr.Slider(0, 1, value=0, step=0.05, label=t("chaos_fault_rate", en))
            down_tool = gr.Dropdown(
                choices=[(t("chaos_none", en), ""), *[(name, name) for name in TOOL_NAMES]],
                value="",
                label=t("chaos_down", en),
                elem_id="chaos-down",
            )
            burst_btn = gr.Button(t("chaos_burst", en))
        chaos_status = gr.Markdown("", elem_id="chaos-status")
    with gr.Accordion(t("replay", en), open=False) as replay_box:
        with gr.Row():
            replay_choice = gr.Dropdown(
                choices=list(recordings),
                value=next(iter(recordings), None),
                label=t("replay_choice", en),
                elem_id="replay-choice",
            )
            replay_upload = gr.File(label=t("replay_upload", en), file_types=[".jsonl"], type="filepath")
            replay_speed = gr.Slider(
                0.25, 8, value=1, step=0.25, label=t("replay_speed", en), elem_id="replay-speed"
            )
        replay_btn = gr.Button(t("replay_button", en), elem_id="replay")
    with gr.Accordion(t("settings", en), open=False) as settings_box:
        with gr.Row():
            provider = gr.Dropdown(
                choices=[(p.label, name) for name, p in PRESETS.items()],
                value=preset.name,
                label=t("provider", en),
            )
            model = gr.Dropdown(
                choices=list(preset.models),
                value=settings.llm_model or preset.default_model or None,
                allow_custom_value=True,
                label=t("model", en),
            )
            base_url = gr.Textbox(
                value=settings.llm_base_url or "", placeholder=preset.base_url, label=t("base_url", en)
            )
        with gr.Row():
            # Password fields; their values reach one handler (apply_settings) and the session's state only.
            api_key = gr.Textbox(type="password", label=t("api_key", en), elem_id="api-key")
            github_token = gr.Textbox(type="password", label=t("github_token", en), elem_id="gh-token")
        with gr.Row():
            max_turns = gr.Slider(
                1,
                settings.max_turns if settings.hosted else max(40, settings.max_turns),
                value=settings.max_turns,
                step=1,
                label=t("max_turns", en),
            )
            report_lang = gr.Radio(
                REPORT_LANGUAGES, value=settings.report_language, label=t("report_language", en)
            )
            ui_lang = gr.Radio(
                list(UI_LANGUAGES), value="English", label=t("ui_language", en), elem_id="ui-lang"
            )
        apply_btn = gr.Button(t("apply_settings", en))
    timer = gr.Timer(1.0, active=False)
    # Every component above is a local named like its Page field.
    return Page(**{name: value for name, value in locals().items() if name in Page.__dataclass_fields__})


# ----------------------------------------------------------------------------------------- handlers


class Handlers:
    """The page's event handlers. They only render events: every decision lives in agent_core."""

    def __init__(
        self,
        page: Page,
        *,
        settings: Settings,
        services: Services,
        budget: RunBudget,
        recordings: Mapping[str, Path],
    ) -> None:
        self.page = page
        self.settings = settings
        self.services = services
        self.budget = budget
        self.recordings = recordings

    def session(self, value: object) -> UiSession:
        """The browser session's state, created on first use (API clients never trigger ``load``)."""
        return value if isinstance(value, UiSession) else UiSession(self.settings, clock=self.services.clock)

    # -- frames -------------------------------------------------------------------------------------

    def frame(self, s: UiSession, *, breakers_too: bool = True) -> Frame:
        p, view = self.page, s.view
        out: Frame = {
            p.chatbot: s.messages(),
            p.report: (view.report_markdown() if view is not None else "") or t("report_empty", s.lang),
            p.stats: view.stats_markdown() if view is not None else "",
            p.status: s.status_line(),
        }
        if breakers_too:
            snaps = s.breaker_snapshots()
            out[p.breakers] = styled_breakers(snaps, s.lang)
            # A prop update costs Gradio a component construction: tell the timer only when it changes.
            if needs_ticking(snaps) != s.timer_on:
                s.timer_on = not s.timer_on
                out[p.timer] = gr.update(active=s.timer_on)
        return out

    def opening_frame(self, s: UiSession) -> Frame:
        return self.frame(s) | {self.page.state: s}

    def idle_controls(self) -> Frame:
        """Before a run streams: nothing to follow up or download until it ends."""
        idle = gr.update(interactive=False)
        p = self.page
        return {p.followup: idle, p.ask_btn: idle, p.dl_report: idle, p.dl_trace: idle}

    def controls(self, s: UiSession) -> Frame:
        """After a run (or Stop): downloads of what it produced, follow-up if the conversation allows."""
        p = self.page
        out: Frame = {p.chaos_status: chaos_text(s)}
        files = s.export_files()
        if files is not None:
            out[p.dl_report] = gr.update(value=str(files[0]), interactive=True)
            out[p.dl_trace] = gr.update(value=str(files[1]), interactive=True)
        out[p.followup] = out[p.ask_btn] = gr.update(interactive=s.can_follow_up)
        return out

    def closing_frame(self, s: UiSession) -> Frame:
        return self.frame(s) | self.controls(s)

    async def stream(self, s: UiSession, events: AsyncIterator[ev.Event]) -> AsyncGenerator[Frame, None]:
        """Frames for a run's events. Callers wrap it in ``aclosing`` as it wraps ``batched``: on Stop
        (CancelledError) or a closed tab (GeneratorExit at a yield) the chain closes at once, ``batched``
        cancels the run, and the run's own ``finally`` cancels its tool calls."""
        first = True
        try:
            async with contextlib.aclosing(batched(events)) as batches:
                async for batch in batches:
                    for event in batch:
                        s.observe(event)
                    changed = first or any(isinstance(e, ev.BreakerChanged) for e in batch)
                    yield self.frame(s, breakers_too=changed)
                    first = False
        except Exception:  # the UI edge: a bug must end the run visibly, not leave spinners spinning
            logger.exception("a run failed unexpectedly")
            at = s.view.now if s.view is not None else 0.0
            s.observe(
                ev.RunFailed(t=at, message="internal error: the run stopped", hint="see the server log")
            )
        yield self.frame(s)

    def refuse(self, s: UiSession, message: str) -> Frame:
        gr.Warning(one_line(message, 300))  # may quote the user's input: never markup
        s.phase = message
        return {self.page.state: s, self.page.status: s.status_line(), self.page.chatbot: s.messages()}

    def over_budget(self, s: UiSession, request: gr.Request | None) -> str | None:
        """In hosted mode, count a run for this visitor; the refusal text when over budget."""
        if not self.settings.hosted:
            return None
        decision = self.budget.try_start(client_key(request))
        if decision.allowed:
            return None
        minutes = decision.retry_after_minutes
        return t("budget_exceeded", s.lang, limit=self.budget.runs_per_hour, minutes=minutes)

    # -- runs -----------------------------------------------------------------------------------------

    async def run_analysis(
        self, target_text: str, question_text: str, session: object, request: gr.Request
    ) -> AsyncIterator[Frame]:
        s = self.session(session)
        await s.close_analysis()
        s.replaying = None
        s.start_view(keep_history=False, request="\n\n".join(p for p in (target_text, question_text) if p))
        s.phase = t("status_running", s.lang)
        yield self.opening_frame(s)
        try:
            s.opened = await open_analysis(
                self.services,
                target_text,
                question_text,
                settings=s.settings,
                breakers=s.breakers,
                chaos=s.chaos,
            )
        except AgentCoreError as exc:
            s.view = None
            yield self.refuse(s, str(exc))
            return
        refused = self.over_budget(s, request)  # counted only for input that names a repository
        if refused:
            await s.close_analysis()
            s.view = None
            yield self.refuse(s, refused)
            return
        async with contextlib.aclosing(self.stream(s, s.opened.analysis.run(question_text))) as frames:
            async for out in frames:
                yield out

    async def ask_followup(self, text: str, session: object, request: gr.Request) -> AsyncIterator[Frame]:
        s = self.session(session)
        if not s.can_follow_up or not text.strip():
            yield self.refuse(s, t("status_no_followup", s.lang))
            return
        refused = self.over_budget(s, request)
        if refused:
            yield self.refuse(s, refused)
            return
        assert s.opened is not None  # can_follow_up says so
        s.start_view(keep_history=True, request=text)
        s.phase = t("status_running", s.lang)
        yield self.opening_frame(s)
        async with contextlib.aclosing(self.stream(s, s.opened.analysis.run(text))) as frames:
            async for out in frames:
                yield out

    async def run_replay(
        self, choice: str | None, upload: str | None, speed: float, session: object
    ) -> AsyncIterator[Frame]:
        s = self.session(session)
        path = Path(upload) if upload else self.recordings.get(choice or "")
        if path is None:
            yield self.refuse(s, t("replay_choice", s.lang) + "?")
            return
        try:
            events = load_recording(path)
        except UserInputError as exc:
            yield self.refuse(s, str(exc))
            return
        await s.close_analysis()  # a replay replaces the conversation
        s.replaying = path.stem
        s.rate_limit = None
        s.start_view(keep_history=False)
        s.phase = t("status_replaying", s.lang)
        yield self.opening_frame(s)
        async with contextlib.aclosing(self.stream(s, replay(events, speed=float(speed or 1.0)))) as frames:
            async for out in frames:
                yield out
        s.phase = t("status_replayed", s.lang)
        yield {self.page.status: s.status_line()}

    def stop_run(self, session: object) -> Frame:
        """Stop's own handler: the cancelled generator can no longer yield, so this re-renders."""
        if not isinstance(session, UiSession):
            return {}
        if session.view is not None and not session.view.finished:
            session.view.mark_stopped()
            session.phase = t("status_stopped", session.lang)
        return self.closing_frame(session)

    def before_run(self) -> Frame:
        return self.idle_controls()

    def after_run(self, session: object) -> Frame:
        return self.controls(session) if isinstance(session, UiSession) else {}

    def after_followup(self, text: str, session: object) -> Frame:
        """Controls after a follow-up; the box is emptied only if the run took its text."""
        if not isinstance(session, UiSession):
            return {}
        out = self.controls(session)
        taken = session.view is not None and session.view.request == text
        follow = session.can_follow_up
        out[self.page.followup] = (
            gr.update(value="", interactive=follow) if taken else gr.update(interactive=follow)
        )
        return out

    # -- live table, chaos, settings, language -----------------------------------------------------------

    def tick(self, session: object) -> Frame:
        p = self.page
        if not isinstance(session, UiSession):
            return {p.timer: gr.update(active=False)}
        snaps = session.breaker_snapshots()
        session.timer_on = needs_ticking(snaps)
        return {p.breakers: styled_breakers(snaps, session.lang), p.timer: gr.update(active=session.timer_on)}

    def set_chaos(self, enabled: bool, rate: float, down: str | None, session: object) -> Frame:
        s = self.session(session)
        s.chaos.configure(enabled=bool(enabled), fault_rate=float(rate or 0), down_tool=down or None)
        return {self.page.state: s, self.page.chaos_status: chaos_text(s)}

    def arm_burst(self, session: object) -> Frame:
        s = self.session(session)
        s.chaos.arm_rate_limit_burst()
        return {self.page.state: s, self.page.chaos_status: chaos_text(s)}

    def on_provider(self, name: str) -> Frame:
        chosen = PRESETS.get(name, PRESETS[DEFAULT_PROVIDER])
        return {
            self.page.model: gr.update(choices=list(chosen.models), value=chosen.default_model or None),
            self.page.base_url: gr.update(value="", placeholder=chosen.base_url),
        }

    def apply_settings(  # noqa: PLR0917 - Gradio passes inputs positionally
        self,
        provider_name: str,
        model_name: str | None,
        url: str,
        key: str,
        token: str,
        turns: float,
        language: str,
        session: object,
    ) -> Frame:
        """Keys arrive here and go into the session's settings only: never logged nor sent back."""
        s = self.session(session)
        try:
            s.apply_settings(
                llm_provider=provider_name,
                llm_model=model_name or "",
                llm_base_url=url,
                api_key=key,
                github_token=token,
                max_turns=int(turns),
                report_language=language,
            )
        except ConfigurationError as exc:
            gr.Warning(str(exc))
        else:
            gr.Info(t("settings_applied", s.lang))
        return {self.page.state: s, self.page.status: s.status_line()}

    def switch_language(self, choice: str, session: object) -> Frame:
        p, s = self.page, self.session(session)
        s.lang = ui_language(choice)
        view = s.view
        table = styled_breakers(s.breaker_snapshots(), s.lang)
        return self.page.labels(s.lang, hosted_target=not self.settings.allow_local_paths) | {
            p.state: s,
            p.breakers: gr.update(value=table, label=t("breakers", s.lang)),
            p.report: (view.report_markdown() if view is not None else "") or t("report_empty", s.lang),
            p.stats: view.stats_markdown() if view is not None else "",
            p.status: s.status_line(),
        }

    def on_load(self, session: object) -> Frame:
        s = self.session(session)
        return {self.page.state: s, self.page.status: s.status_line()}


# ------------------------------------------------------------------------------------------------ app


def wire(page: Page, handlers: Handlers, settings: Settings) -> None:
    """Connect events to handlers. Only the two run handlers are callable by API clients (undocumented,
    so neither appears in the API docs or as an MCP tool); everything else is private."""
    p, h = page, handlers
    outputs, controls = p.run_outputs(), p.control_outputs()
    runs: dict[str, Any] = {"concurrency_limit": settings.max_concurrent_runs, "concurrency_id": "analysis"}
    quick: dict[str, Any] = {"api_visibility": "private", "queue": False}
    run_inputs = [p.target, p.question, p.state]
    followup_inputs = [p.followup, p.state]
    replay_inputs = [p.replay_choice, p.replay_upload, p.replay_speed, p.state]

    def chain(
        trigger: Any, run: Any, inputs: list[Any], after: Any, after_inputs: list[Any], **kw: Any
    ) -> Any:
        """A run is three steps: controls go idle, the run streams frames, controls come back. API clients
        call the middle step alone (by its api_name); the browser chains all three. Returns the middle
        step, which is what Stop cancels."""
        streaming = trigger(h.before_run, None, controls, **quick).then(run, inputs, outputs, **kw)
        streaming.then(after, after_inputs, controls, **quick)
        return streaming

    undocumented = {"api_visibility": "undocumented", **runs}
    private = {"api_visibility": "private", **runs}
    cancellable = [
        chain(
            p.analyze_btn.click,
            h.run_analysis,
            run_inputs,
            h.after_run,
            [p.state],
            api_name="run_analysis",
            **undocumented,
        ),
        chain(p.target.submit, h.run_analysis, run_inputs, h.after_run, [p.state], **private),
        chain(
            p.ask_btn.click,
            h.ask_followup,
            followup_inputs,
            h.after_followup,
            followup_inputs,
            api_name="ask_followup",
            **undocumented,
        ),
        chain(
            p.followup.submit, h.ask_followup, followup_inputs, h.after_followup, followup_inputs, **private
        ),
        chain(
            p.replay_btn.click, h.run_replay, replay_inputs, h.after_run, [p.state], api_visibility="private"
        ),
    ]
    p.stop_btn.click(h.stop_run, [p.state], outputs + controls, cancels=cancellable, **quick)
    p.timer.tick(h.tick, [p.state], [p.breakers, p.timer], **quick)
    chaos_inputs = [p.chaos_on, p.fault_rate, p.down_tool, p.state]
    p.chaos_on.change(h.set_chaos, chaos_inputs, [p.state, p.chaos_status], **quick)
    p.down_tool.change(h.set_chaos, chaos_inputs, [p.state, p.chaos_status], **quick)
    p.fault_rate.release(h.set_chaos, chaos_inputs, [p.state, p.chaos_status], **quick)
    p.burst_btn.click(h.arm_burst, [p.state], [p.state, p.chaos_status], **quick)
    p.provider.change(h.on_provider, [p.provider], [p.model, p.base_url], **quick)
    settings_inputs = [p.provider, p.model, p.base_url, p.api_key, p.github_token, p.max_turns, p.report_lang]
    p.apply_btn.click(h.apply_settings, [*settings_inputs, p.state], [p.state, p.status], **quick)
    relabelled = list(p.labels("en", hosted_target=False))  # the components whose labels change
    language_outputs = [p.state, p.report, p.stats, p.status, *relabelled]
    p.ui_lang.change(h.switch_language, [p.ui_lang, p.state], language_outputs, **quick)


def build_app(settings: Settings, *, services: Services | None = None) -> gr.Blocks:
    """The page for ``settings``. ``services`` defaults to a new process-wide :class:`Services`."""
    services = services or Services(settings)
    budget = RunBudget(settings.runs_per_hour, clock=services.clock)
    recordings = bundled_recordings()

    def discard(value: object) -> None:
        if isinstance(value, UiSession):
            value.discard(_schedule_close)

    with gr.Blocks(title="Repo Analyst") as demo:
        page = layout(settings, recordings, UiSession(settings, clock=services.clock), discard)
        handlers = Handlers(page, settings=settings, services=services, budget=budget, recordings=recordings)
        wire(page, handlers, settings)
        demo.load(
            handlers.on_load, [page.state], [page.state, page.status], api_visibility="private", queue=False
        )
        for fn in RepositoryApi(services, settings, budget).functions():
            gr.api(  # type: ignore[attr-defined]
                fn,
                api_name=fn.__name__,
                concurrency_limit=settings.max_concurrent_runs,
                concurrency_id="analysis",
            )
    return demo  # type: ignore[no-any-return]


def chaos_text(s: UiSession) -> str:
    """One line about the session's chaos mode."""
    c = s.chaos.settings
    enabled, rate, down = c.enabled, c.fault_rate, c.down_tool
    if not enabled:
        return "chaos: off" + (
            f" ({s.chaos.burst_left} rate-limited requests armed)" if s.chaos.burst_left else ""
        )
    parts = [f"chaos: **on** · fault rate {rate:.0%}"]
    if down:
        parts.append(f"`{down}` forced down")
    if s.chaos.burst_left:
        parts.append(f"next {s.chaos.burst_left} requests rate-limited")
    parts.append(f"{len(s.chaos.log)} faults injected so far")
    return " · ".join(parts)


def _schedule_close(opened: OpenedAnalysis) -> None:
    """Close an abandoned session's analysis on the running loop, if there is one (else GC does it)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(opened.aclose())
    task.add_done_callback(lambda done: done.exception() if not done.cancelled() else None)


# ------------------------------------------------------------------------------------------------ main


def main() -> None:
    settings = Settings.from_env()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logger.info("starting repo-analyst: %r", settings)
    demo = build_app(settings)
    demo.queue(default_concurrency_limit=settings.max_concurrent_runs)
    demo.launch(**launch_options(settings))


if __name__ == "__main__":
    main()
