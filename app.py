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
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from agent_core import events as ev
from agent_core.agent.session import OpenedAnalysis, Services, open_analysis
from agent_core.errors import AgentCoreError, ConfigurationError, UserInputError
from agent_core.llm import DEFAULT_PROVIDER, PRESETS
from agent_core.resilience import BreakerSnapshot, BreakerState
from agent_core.settings import Settings
from agent_core.ui.batching import batched
from agent_core.ui.budget import RunBudget
from agent_core.ui.i18n import UI_LANGUAGES, t, ui_language
from agent_core.ui.mcp import RepositoryApi, client_key
from agent_core.ui.render import STATE_STYLES, breaker_columns, breaker_table
from agent_core.ui.replay import bundled_recordings, load_recording, replay
from agent_core.ui.session import TOOL_NAMES, UiSession

logger = logging.getLogger("repo_analyst.app")

HERE = Path(__file__).resolve().parent
REPORT_LANGUAGES = [("auto", "auto"), ("English", "en"), ("中文", "zh")]
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


def timer_needed(snapshots: Sequence[BreakerSnapshot]) -> bool:
    """Tick while a breaker is HALF_OPEN or counting down; an OPEN breaker whose probe is due waits for a call."""
    return any(
        s.state is BreakerState.HALF_OPEN or (s.state is BreakerState.OPEN and s.retry_after > 0)
        for s in snapshots
    )


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


# ---------------------------------------------------------------------------------------------- app


def build_app(settings: Settings, *, services: Services | None = None) -> gr.Blocks:  # noqa: C901, PLR0915
    """The page for ``settings``. ``services`` defaults to a new process-wide :class:`Services`."""
    services = services or Services(settings)
    budget = RunBudget(settings.runs_per_hour, clock=services.clock)
    recordings = bundled_recordings()
    lang0 = "en"

    def new_session() -> UiSession:
        return UiSession(settings, clock=services.clock)

    def ensure(session: object) -> UiSession:
        return session if isinstance(session, UiSession) else new_session()

    def discard(session: object) -> None:
        if isinstance(session, UiSession):
            session.discard(_schedule_close)

    preset = PRESETS.get(settings.llm_provider or DEFAULT_PROVIDER, PRESETS[DEFAULT_PROVIDER])
    with gr.Blocks(title="Repo Analyst") as demo:
        state = gr.State(None, delete_callback=discard)
        heading = gr.Markdown(f"# {t('title', lang0)}\n{t('subtitle', lang0)}")
        status = gr.Markdown(new_session().status_line(), elem_id="status")
        with gr.Row():
            with gr.Column(scale=4):
                target = gr.Textbox(
                    label=t("target_label" if settings.allow_local_paths else "target_label_hosted", lang0),
                    placeholder=t("target_placeholder", lang0),
                    elem_id="target",
                )
                question = gr.Textbox(
                    label=t("question_label", lang0),
                    placeholder=t("question_placeholder", lang0),
                    elem_id="question",
                )
            with gr.Column(scale=1, min_width=140):
                analyze_btn = gr.Button(t("analyze", lang0), variant="primary", elem_id="analyze")
                stop_btn = gr.Button(t("stop", lang0), variant="stop", elem_id="stop")
        gr.Examples(
            examples=examples(settings),
            inputs=[target, question],
            label=t("examples", lang0),
            api_visibility="private",
        )
        with gr.Row():
            with gr.Column(scale=3):
                chatbot = gr.Chatbot(
                    label=t("trace", lang0),
                    height=600,
                    group_consecutive_messages=False,
                    elem_id="trace",
                    buttons=["copy_all"],
                )
                with gr.Row():
                    followup = gr.Textbox(
                        label=t("followup_label", lang0),
                        placeholder=t("followup_placeholder", lang0),
                        interactive=False,
                        scale=4,
                        elem_id="followup",
                    )
                    ask_btn = gr.Button(t("ask", lang0), interactive=False, scale=1, elem_id="ask")
            with gr.Column(scale=2):
                report_heading = gr.Markdown(f"### {t('report', lang0)}")
                report = gr.Markdown(
                    t("report_empty", lang0), elem_id="report", buttons=["copy"], container=True, padding=True
                )
                with gr.Row():
                    dl_report = gr.DownloadButton(
                        t("download_report", lang0), interactive=False, size="sm", elem_id="dl-report"
                    )
                    dl_trace = gr.DownloadButton(
                        t("download_trace", lang0), interactive=False, size="sm", elem_id="dl-trace"
                    )
        with gr.Row():
            with gr.Column(scale=3):
                breakers = gr.Dataframe(
                    value=styled_breakers(new_session().breaker_snapshots(), lang0),
                    label=t("breakers", lang0),
                    interactive=False,
                    elem_id="breakers",
                )
            with gr.Column(scale=2):
                stats_heading = gr.Markdown(f"### {t('stats', lang0)}")
                stats = gr.Markdown("", elem_id="stats")
        with gr.Accordion(t("chaos", lang0), open=False) as chaos_box:
            chaos_note = gr.Markdown(t("chaos_note", lang0))
            with gr.Row():
                chaos_on = gr.Checkbox(label=t("chaos_enabled", lang0), value=False, elem_id="chaos-on")
                fault_rate = gr.Slider(0, 1, value=0, step=0.05, label=t("chaos_fault_rate", lang0))
                down_tool = gr.Dropdown(
                    choices=[(t("chaos_none", lang0), ""), *[(name, name) for name in TOOL_NAMES]],
                    value="",
                    label=t("chaos_down", lang0),
                    elem_id="chaos-down",
                )
                burst_btn = gr.Button(t("chaos_burst", lang0))
            chaos_status = gr.Markdown("")
        with gr.Accordion(t("replay", lang0), open=False) as replay_box:
            with gr.Row():
                replay_choice = gr.Dropdown(
                    choices=list(recordings),
                    value=next(iter(recordings), None),
                    label=t("replay_choice", lang0),
                    elem_id="replay-choice",
                )
                replay_upload = gr.File(
                    label=t("replay_upload", lang0), file_types=[".jsonl"], type="filepath"
                )
                replay_speed = gr.Slider(
                    0.25, 8, value=1, step=0.25, label=t("replay_speed", lang0), elem_id="replay-speed"
                )
            replay_btn = gr.Button(t("replay_button", lang0), elem_id="replay")
        with gr.Accordion(t("settings", lang0), open=False) as settings_box:
            with gr.Row():
                provider = gr.Dropdown(
                    choices=[(p.label, name) for name, p in PRESETS.items()],
                    value=preset.name,
                    label=t("provider", lang0),
                )
                model = gr.Dropdown(
                    choices=list(preset.models),
                    value=settings.llm_model or preset.default_model or None,
                    allow_custom_value=True,
                    label=t("model", lang0),
                )
                base_url = gr.Textbox(
                    value=settings.llm_base_url or "", placeholder=preset.base_url, label=t("base_url", lang0)
                )
            with gr.Row():
                api_key = gr.Textbox(type="password", label=t("api_key", lang0), elem_id="api-key")
                github_token = gr.Textbox(type="password", label=t("github_token", lang0), elem_id="gh-token")
            with gr.Row():
                max_turns = gr.Slider(
                    1,
                    settings.max_turns if settings.hosted else max(40, settings.max_turns),
                    value=settings.max_turns,
                    step=1,
                    label=t("max_turns", lang0),
                )
                report_lang = gr.Radio(
                    REPORT_LANGUAGES, value=settings.report_language, label=t("report_language", lang0)
                )
                ui_lang = gr.Radio(list(UI_LANGUAGES), value="English", label=t("ui_language", lang0))
            apply_btn = gr.Button(t("apply_settings", lang0))
        timer = gr.Timer(1.0, active=False)

        # -- frames -------------------------------------------------------------------------------

        def frame(s: UiSession, *, breakers_too: bool = True) -> Frame:
            view = s.view
            out: Frame = {
                chatbot: s.messages(),
                report: (view.report_markdown() if view is not None else "") or t("report_empty", s.lang),
                stats: view.stats_markdown() if view is not None else "",
                status: s.status_line(),
            }
            if breakers_too:
                snaps = s.breaker_snapshots()
                out[breakers] = styled_breakers(snaps, s.lang)
                # A prop update costs Gradio a component construction: send the timer's only on change.
                if timer_needed(snaps) != s.timer_on:
                    s.timer_on = not s.timer_on
                    out[timer] = gr.update(active=s.timer_on)
            return out

        def closing_frame(s: UiSession) -> Frame:
            out = frame(s)
            files = s.export_files()
            if files is not None:
                out[dl_report] = gr.update(value=str(files[0]), interactive=True)
                out[dl_trace] = gr.update(value=str(files[1]), interactive=True)
            c = s.chaos.settings
            out[chaos_status] = _chaos_text(c.enabled, c.fault_rate, c.down_tool, s)
            can_ask = s.can_follow_up
            out[followup] = gr.update(interactive=can_ask)
            out[ask_btn] = gr.update(interactive=can_ask)
            return out

        def opening_frame(s: UiSession) -> Frame:
            out = frame(s)
            out[state] = s
            out[followup] = gr.update(interactive=False)
            out[ask_btn] = gr.update(interactive=False)
            out[dl_report] = gr.update(interactive=False)
            out[dl_trace] = gr.update(interactive=False)
            return out

        async def stream(s: UiSession, events: AsyncIterator[ev.Event]) -> AsyncIterator[Frame]:
            """Frames for a run's events. On Stop the CancelledError lands here; ``batched`` then cancels
            the run, whose own ``finally`` cancels its tool calls."""
            first = True
            async for batch in batched(events):
                for event in batch:
                    s.observe(event)
                changed = first or any(isinstance(e, ev.BreakerChanged) for e in batch)
                yield frame(s, breakers_too=changed)
                first = False
            yield closing_frame(s)

        def refuse(s: UiSession, message: str) -> Frame:
            gr.Warning(message)
            s.phase = message
            return {state: s, status: s.status_line()}

        def over_budget(s: UiSession, request: gr.Request | None) -> str | None:
            if not settings.hosted:
                return None
            decision = budget.try_start(client_key(request))
            if decision.allowed:
                return None
            return t(
                "budget_exceeded", s.lang, limit=budget.runs_per_hour, minutes=decision.retry_after_minutes
            )

        # -- handlers: runs -------------------------------------------------------------------------

        async def run_analysis(
            target_text: str, question_text: str, session: object, request: gr.Request
        ) -> AsyncIterator[Frame]:
            s = ensure(session)
            await s.close_analysis()
            s.replaying = None
            s.start_view(
                keep_history=False, request="\n\n".join(p for p in (target_text, question_text) if p)
            )
            s.phase = t("status_running", s.lang)
            yield opening_frame(s)
            try:
                s.opened = await open_analysis(
                    services,
                    target_text,
                    question_text,
                    settings=s.settings,
                    breakers=s.breakers,
                    chaos=s.chaos,
                )
            except AgentCoreError as exc:
                s.view = None
                yield refuse(s, str(exc)) | {chatbot: s.messages()}
                return
            refused = over_budget(s, request)  # counted only for input that names a repository
            if refused:
                await s.close_analysis()
                s.view = None
                yield refuse(s, refused) | {chatbot: s.messages()}
                return
            async for out in stream(s, s.opened.analysis.run(question_text)):
                yield out

        async def ask_followup(text: str, session: object, request: gr.Request) -> AsyncIterator[Frame]:
            s = ensure(session)
            if not s.can_follow_up or not text.strip():
                yield refuse(s, t("status_no_followup", s.lang))
                return
            refused = over_budget(s, request)
            if refused:
                yield refuse(s, refused)
                return
            assert s.opened is not None
            s.start_view(keep_history=True, request=text)
            s.phase = t("status_running", s.lang)
            yield opening_frame(s) | {followup: gr.update(value="", interactive=False)}
            async for out in stream(s, s.opened.analysis.run(text)):
                yield out

        async def run_replay(
            choice: str | None, upload: str | None, speed: float, session: object
        ) -> AsyncIterator[Frame]:
            s = ensure(session)
            path = Path(upload) if upload else recordings.get(choice or "")
            if path is None:
                yield refuse(s, t("replay_choice", s.lang) + "?")
                return
            try:
                events = load_recording(path)
            except UserInputError as exc:
                yield refuse(s, str(exc))
                return
            await s.close_analysis()
            s.replaying = path.stem
            s.rate_limit = None
            s.start_view(keep_history=False)
            s.phase = t("status_replaying", s.lang)
            yield opening_frame(s)
            async for out in stream(s, replay(events, speed=float(speed or 1.0))):
                yield out
            s.phase = t("status_replayed", s.lang)
            yield {status: s.status_line()}

        def stop_run(session: object) -> Frame:
            """Stop's own handler: the cancelled generator can no longer yield, so this re-renders."""
            if not isinstance(session, UiSession):
                return {}
            if session.view is not None and not session.view.finished:
                session.view.mark_stopped()
                session.phase = t("status_stopped", session.lang)
            return closing_frame(session)

        run_inputs = [target, question, state]
        outputs = [
            state,
            chatbot,
            report,
            stats,
            status,
            breakers,
            timer,
            followup,
            ask_btn,
            dl_report,
            dl_trace,
            chaos_status,
        ]
        limits: dict[str, Any] = {
            "concurrency_limit": settings.max_concurrent_runs,
            "concurrency_id": "analysis",
        }
        run_event = analyze_btn.click(
            run_analysis,
            run_inputs,
            outputs,
            api_name="run_analysis",
            api_visibility="undocumented",
            **limits,
        )
        submit_event = target.submit(run_analysis, run_inputs, outputs, api_visibility="private", **limits)
        ask_event = ask_btn.click(
            ask_followup,
            [followup, state],
            outputs,
            api_name="ask_followup",
            api_visibility="undocumented",
            **limits,
        )
        followup_event = followup.submit(
            ask_followup, [followup, state], outputs, api_visibility="private", **limits
        )
        replay_event = replay_btn.click(
            run_replay, [replay_choice, replay_upload, replay_speed, state], outputs, api_visibility="private"
        )
        stop_btn.click(
            stop_run,
            [state],
            outputs,
            cancels=[run_event, submit_event, ask_event, followup_event, replay_event],
            api_visibility="private",
            queue=False,
        )

        # -- handlers: live table, chaos, settings, language -----------------------------------------

        def tick(session: object) -> Frame:
            if not isinstance(session, UiSession):
                return {timer: gr.update(active=False)}
            snaps = session.breaker_snapshots()
            session.timer_on = timer_needed(snaps)
            return {breakers: styled_breakers(snaps, session.lang), timer: gr.update(active=session.timer_on)}

        timer.tick(tick, [state], [breakers, timer], api_visibility="private", queue=False)

        def set_chaos(enabled: bool, rate: float, down: str | None, session: object) -> Frame:
            s = ensure(session)
            chaos = s.chaos.configure(
                enabled=bool(enabled), fault_rate=float(rate or 0), down_tool=down or None
            )
            return {state: s, chaos_status: _chaos_text(chaos.enabled, chaos.fault_rate, chaos.down_tool, s)}

        chaos_inputs = [chaos_on, fault_rate, down_tool, state]
        for control in (chaos_on, down_tool):
            control.change(
                set_chaos, chaos_inputs, [state, chaos_status], api_visibility="private", queue=False
            )
        fault_rate.release(
            set_chaos, chaos_inputs, [state, chaos_status], api_visibility="private", queue=False
        )

        def arm_burst(session: object) -> Frame:
            s = ensure(session)
            s.chaos.arm_rate_limit_burst()
            c = s.chaos.settings
            return {state: s, chaos_status: _chaos_text(c.enabled, c.fault_rate, c.down_tool, s)}

        burst_btn.click(arm_burst, [state], [state, chaos_status], api_visibility="private", queue=False)

        def on_provider(name: str) -> Frame:
            chosen = PRESETS.get(name, preset)
            return {
                model: gr.update(choices=list(chosen.models), value=chosen.default_model or None),
                base_url: gr.update(value="", placeholder=chosen.base_url),
            }

        provider.change(on_provider, [provider], [model, base_url], api_visibility="private", queue=False)

        def apply_settings(  # noqa: PLR0917 - Gradio passes inputs positionally
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
            s = ensure(session)
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
            return {state: s, status: s.status_line()}

        apply_btn.click(
            apply_settings,
            [provider, model, base_url, api_key, github_token, max_turns, report_lang, state],
            [state, status],
            api_visibility="private",
            queue=False,
        )

        labelled: list[tuple[Any, Callable[[str], Any]]] = [
            (heading, lambda lg: gr.update(value=f"# {t('title', lg)}\n{t('subtitle', lg)}")),
            (
                target,
                lambda lg: gr.update(
                    label=t("target_label" if settings.allow_local_paths else "target_label_hosted", lg)
                ),
            ),
            (
                question,
                lambda lg: gr.update(
                    label=t("question_label", lg), placeholder=t("question_placeholder", lg)
                ),
            ),
            (analyze_btn, lambda lg: gr.update(value=t("analyze", lg))),
            (stop_btn, lambda lg: gr.update(value=t("stop", lg))),
            (chatbot, lambda lg: gr.update(label=t("trace", lg))),
            (report_heading, lambda lg: gr.update(value=f"### {t('report', lg)}")),
            (stats_heading, lambda lg: gr.update(value=f"### {t('stats', lg)}")),
            (dl_report, lambda lg: gr.update(label=t("download_report", lg))),
            (dl_trace, lambda lg: gr.update(label=t("download_trace", lg))),
            (
                followup,
                lambda lg: gr.update(
                    label=t("followup_label", lg), placeholder=t("followup_placeholder", lg)
                ),
            ),
            (ask_btn, lambda lg: gr.update(value=t("ask", lg))),
            (chaos_box, lambda lg: gr.update(label=t("chaos", lg))),
            (chaos_note, lambda lg: gr.update(value=t("chaos_note", lg))),
            (chaos_on, lambda lg: gr.update(label=t("chaos_enabled", lg))),
            (fault_rate, lambda lg: gr.update(label=t("chaos_fault_rate", lg))),
            (down_tool, lambda lg: gr.update(label=t("chaos_down", lg))),
            (burst_btn, lambda lg: gr.update(value=t("chaos_burst", lg))),
            (replay_box, lambda lg: gr.update(label=t("replay", lg))),
            (replay_choice, lambda lg: gr.update(label=t("replay_choice", lg))),
            (replay_upload, lambda lg: gr.update(label=t("replay_upload", lg))),
            (replay_speed, lambda lg: gr.update(label=t("replay_speed", lg))),
            (replay_btn, lambda lg: gr.update(value=t("replay_button", lg))),
            (settings_box, lambda lg: gr.update(label=t("settings", lg))),
            (provider, lambda lg: gr.update(label=t("provider", lg))),
            (model, lambda lg: gr.update(label=t("model", lg))),
            (base_url, lambda lg: gr.update(label=t("base_url", lg))),
            (api_key, lambda lg: gr.update(label=t("api_key", lg))),
            (github_token, lambda lg: gr.update(label=t("github_token", lg))),
            (max_turns, lambda lg: gr.update(label=t("max_turns", lg))),
            (report_lang, lambda lg: gr.update(label=t("report_language", lg))),
            (ui_lang, lambda lg: gr.update(label=t("ui_language", lg))),
            (apply_btn, lambda lg: gr.update(value=t("apply_settings", lg))),
        ]

        def switch_language(choice: str, session: object) -> Frame:
            s = ensure(session)
            s.lang = ui_language(choice)
            out: Frame = {component: make(s.lang) for component, make in labelled}
            table = styled_breakers(s.breaker_snapshots(), s.lang)
            return out | frame(s) | {state: s, breakers: gr.update(value=table, label=t("breakers", s.lang))}

        ui_lang.change(
            switch_language,
            [ui_lang, state],
            [state, chatbot, report, stats, status, breakers, timer] + [c for c, _ in labelled],
            api_visibility="private",
            queue=False,
        )

        def on_load(session: object) -> Frame:
            s = ensure(session)
            return {state: s, status: s.status_line()}

        demo.load(on_load, [state], [state, status], api_visibility="private", queue=False)

        # -- public API / MCP tools -------------------------------------------------------------------
        for fn in RepositoryApi(services, settings, budget).functions():
            gr.api(  # type: ignore[attr-defined]
                fn,
                api_name=fn.__name__,
                concurrency_limit=settings.max_concurrent_runs,
                concurrency_id="analysis",
            )
    return demo  # type: ignore[no-any-return]


def _chaos_text(enabled: bool, rate: float, down: str | None, s: UiSession) -> str:
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
