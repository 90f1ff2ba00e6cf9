"""How the page is laid out: :func:`layout` creates every component inside the current ``gr.Blocks``
(English labels; :meth:`~agent_core.web.page.Page.labels` switches them) and returns the
:class:`~agent_core.web.page.Page`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from agent_core.llm import DEFAULT_PROVIDER, PRESETS
from agent_core.resilience import BreakerSnapshot
from agent_core.settings import Settings
from agent_core.web.breakers import STATE_STYLES, TICK_SECONDS, breaker_columns, breaker_table
from agent_core.web.browser_session import BrowserSession
from agent_core.web.page import (
    UI_LANGUAGES,
    ChaosPanel,
    Inputs,
    Page,
    ReplayPanel,
    ReportPanel,
    SettingsPanel,
    StatusPanel,
    TracePanel,
    chaos_choices,
    heading_text,
)
from agent_core.words import t

REPORT_LANGUAGES = (("auto", "auto"), *UI_LANGUAGES.items())
CHECKOUT = Path(__file__).resolve().parents[2]


def first_example(settings: Settings, lang: str) -> tuple[str, str]:
    """What the input bar holds when the page opens, so that one click on Analyze gives a report: this
    app's own checkout where local paths are allowed (no key, no network needed), else a GitHub
    repository; and a question in ``lang``."""
    target = str(CHECKOUT) if settings.allow_local_paths else "https://github.com/pallets/flask"
    return target, t("first_question", lang)


def examples(settings: Settings, lang: str = "en") -> list[list[str]]:
    """Examples for the page, their questions in ``lang``: a web framework, a renamed repository, a Rust
    CLI, a comparison, and one asked in Chinese."""
    rows = [
        ["https://github.com/pallets/flask", ""],
        ["https://github.com/ambv/black", t("example_question_renamed", lang)],
        ["BurntSushi/ripgrep", t("example_question_cli", lang)],
        ["pallets/flask fastapi/fastapi", t("example_question_compare", lang)],
        ["pallets/flask", t("example_question_architecture", "zh")],
    ]
    if settings.allow_local_paths:
        rows.insert(0, [str(CHECKOUT), t("first_question", lang)])
    return rows


def example_headers(lang: str) -> list[str]:
    return [t("example_target", lang), t("example_question", lang)]


def styled_breakers(snapshots: Sequence[BreakerSnapshot], lang: str) -> Any:
    """The breaker table as a pandas Styler: the state column coloured CLOSED/HALF_OPEN/OPEN."""
    frame = pd.DataFrame(breaker_table(snapshots, lang=lang), columns=breaker_columns(lang))
    state_column = frame.columns[1]
    styled = frame.style.map(lambda value: STATE_STYLES.get(str(value), ""), subset=[state_column])
    # the state said in the page's language, its name kept in the cell (the style's key), as breaker_value
    return styled.format(lambda value: t(f"breaker_state_{value}", lang), subset=[state_column])


SCROLL_TO_TRACE = """
() => {
  const trace = document.querySelector('#trace');
  if (!trace) return;
  const box = trace.getBoundingClientRect();
  if (box.top > window.innerHeight * 0.6 || box.bottom < 0) trace.scrollIntoView({block: 'start'});
}
"""
"""Run on a run's click, before its handler: where the trace's start is out of sight (a phone, where the
columns stack under the input bar), bring it into view, so the run is seen to start."""


def layout(
    settings: Settings,
    recordings: Mapping[str, Path],
    first: BrowserSession,
    discard: Callable[[object], None],
) -> Page:
    """Create the page's components inside the current ``gr.Blocks`` (English labels).

    Top to bottom: the heading, the input bar (repository, question, Analyze and Stop), the status line;
    then, side by side on a wide screen, the live column (the trace, the breaker table under it) and the
    results column (the report in its own bounded scroll, the app's checked panel, the downloads
    collapsed, the follow-up, the stats); last, collapsed: examples, settings, chaos, replay. At
    1400×1000 the trace, the breaker table and the report are all in view while a run streams; on a
    phone the columns stack."""
    en = "en"
    state = gr.State(None, delete_callback=discard)
    with gr.Row(elem_id="top-bar", equal_height=True):
        with gr.Column(scale=1, min_width=320):  # on a phone the switch wraps under the tagline
            heading = gr.Markdown(heading_text(en), elem_id="heading")
        ui_language = gr.Radio(
            list(UI_LANGUAGES),
            value="English",
            label=t("ui_language", en),
            show_label=False,
            container=False,
            scale=0,
            min_width=200,
            elem_id="ui-lang",
        )
    target, question, analyze, stop = _inputs(settings)
    line = gr.Markdown(first.status_line(), elem_id="status")
    with gr.Row(elem_id="main", equal_height=False):
        with gr.Column(scale=5, min_width=320, elem_id="live"):
            chatbot = gr.Chatbot(
                label=t("trace", en),
                height=TRACE_HEIGHT,
                group_consecutive_messages=False,
                elem_id="trace",
                buttons=["copy_all"],
            )
            breakers = gr.Dataframe(
                value=styled_breakers(first.breaker_snapshots(), en),
                label=t("breakers", en),
                interactive=False,
                wrap=True,
                column_widths=list[str | int](BREAKER_WIDTHS),
                elem_id="breakers",
            )
        with gr.Column(scale=4, min_width=320, elem_id="results"):
            report = _report()
            followup, ask = _followup()
            stats_heading = gr.Markdown(f"#### {t('stats', en)}", elem_id="stats-heading")
            stats = gr.Markdown("", elem_id="stats")
    timer = gr.Timer(TICK_SECONDS, active=False)
    examples_box, examples_dataset = _examples(settings, target, question)
    inputs = Inputs(
        target=target,
        question=question,
        analyze=analyze,
        stop=stop,
        examples=examples_box,
    )
    return Page(
        state=state,
        heading=heading,
        inputs=inputs,
        examples=examples_dataset,
        trace=TracePanel(chatbot=chatbot, followup=followup, ask=ask),
        report=report,
        status=StatusPanel(
            line=line, breakers=breakers, stats_heading=stats_heading, stats=stats, timer=timer
        ),
        settings=_settings(settings, ui_language),
        chaos=_chaos(),
        replay=_replay(recordings),
    )


TRACE_HEIGHT = 380
REPORT_MAX_HEIGHT = 500
BREAKER_WIDTHS = ("30%", "17%", "11%", "27%", "15%")
"""The breaker table's columns (breaker, state, failures, last error, next probe): fixed shares of the
column, long errors wrapping, so the last column is never pushed out of the table."""


def _inputs(settings: Settings) -> tuple[gr.Textbox, gr.Textbox, gr.Button, gr.Button]:
    """The input bar: repository and question side by side, Analyze and Stop beside them; filled with
    :func:`first_example`."""
    en = "en"
    first_target, first_question = first_example(settings, en)
    with gr.Row(elem_id="input-bar", equal_height=True):
        target = gr.Textbox(
            label=t("target_label" if settings.allow_local_paths else "target_label_hosted", en),
            value=first_target,
            placeholder=t("target_placeholder", en),
            scale=4,
            min_width=240,
            elem_id="target",
        )
        question = gr.Textbox(
            label=t("question_label", en),
            value=first_question,
            placeholder=t("question_placeholder", en),
            scale=5,
            min_width=240,
            elem_id="question",
        )
        with gr.Column(scale=1, min_width=120, elem_id="run-buttons"):
            analyze = gr.Button(t("analyze", en), variant="primary", elem_id="analyze")
            stop = gr.Button(t("stop", en), variant="stop", interactive=False, elem_id="stop")
    return target, question, analyze, stop


def _examples(
    settings: Settings, target: gr.Textbox, question: gr.Textbox
) -> tuple[gr.Accordion, gr.Dataset]:
    """The examples, collapsed below the results; the box and its table (whose column headers follow the
    UI language). A click fills the input bar through :meth:`PanelHandlers.use_example`, which keeps the
    page's language (``gr.Examples`` put the inputs' first, English labels back)."""
    box = gr.Accordion(t("examples", "en"), open=False, elem_id="examples")
    with box:
        dataset = gr.Dataset(
            components=[target, question],
            samples=examples(settings),
            headers=example_headers("en"),
            type="index",
            elem_id="examples-table",
        )
    return box, dataset


def _report() -> ReportPanel:
    """The report (its own bounded scroll), the app's checked panel, the downloads (collapsed)."""
    en = "en"
    heading = gr.Markdown(f"#### {t('report', en)}", elem_id="report-heading")
    # Sanitised Markdown (the default): repository content and model output are untrusted.
    markdown = gr.Markdown(
        t("report_empty", en),
        elem_id="report",
        buttons=["copy"],
        container=True,
        padding=True,
        min_height=200,
        max_height=REPORT_MAX_HEIGHT,  # its own scroll: the page does not grow with the report
    )
    checked = gr.Markdown("", elem_id="checked")
    with gr.Accordion(t("export_box", en), open=False, elem_id="downloads") as export_box, gr.Row():
        download_report = gr.DownloadButton(
            t("download_report", en), interactive=False, size="sm", elem_id="dl-report"
        )
        download_trace = gr.DownloadButton(
            t("download_trace", en), interactive=False, size="sm", elem_id="dl-trace"
        )
    return ReportPanel(
        heading=heading,
        checked=checked,
        markdown=markdown,
        download_report=download_report,
        download_trace=download_trace,
        export_box=export_box,
    )


def _followup() -> tuple[gr.Textbox, gr.Button]:
    en = "en"
    with gr.Row(elem_id="followup-bar"):
        followup = gr.Textbox(
            label=t("followup_label", en),
            placeholder=t("followup_placeholder", en),
            interactive=False,
            scale=4,
            elem_id="followup",
        )
        ask = gr.Button(t("ask", en), interactive=False, scale=1, min_width=80, elem_id="ask")
    return followup, ask


def _chaos() -> ChaosPanel:
    en = "en"
    with gr.Accordion(t("chaos", en), open=False) as box:
        note = gr.Markdown(t("chaos_note", en))
        with gr.Row():
            enabled = gr.Checkbox(label=t("chaos_enabled", en), value=False, elem_id="chaos-on")
            fault_rate = gr.Slider(0, 1, value=0, step=0.05, label=t("chaos_fault_rate", en))
            down_tool = gr.Dropdown(
                choices=chaos_choices(en), value="", label=t("chaos_down", en), elem_id="chaos-down"
            )
            burst = gr.Button(t("chaos_burst", en))
        status = gr.Markdown("", elem_id="chaos-status")
    return ChaosPanel(
        box=box,
        note=note,
        enabled=enabled,
        fault_rate=fault_rate,
        down_tool=down_tool,
        burst=burst,
        status=status,
    )


def _replay(recordings: Mapping[str, Path]) -> ReplayPanel:
    en = "en"
    with gr.Accordion(t("replay", en), open=False) as box:
        with gr.Row():
            choice = gr.Dropdown(
                choices=list(recordings),
                value=next(iter(recordings), None),
                label=t("replay_choice", en),
                elem_id="replay-choice",
            )
            upload = gr.File(label=t("replay_upload", en), file_types=[".jsonl"], type="filepath")
            speed = gr.Slider(
                0.25, 8, value=1, step=0.25, label=t("replay_speed", en), elem_id="replay-speed"
            )
        play = gr.Button(t("replay_button", en), elem_id="replay")
    return ReplayPanel(box=box, choice=choice, upload=upload, speed=speed, play=play)


def _settings(settings: Settings, ui_language: gr.Radio) -> SettingsPanel:
    """The settings, collapsed; the interface language (``ui_language``) sits in the top bar, in view."""
    en = "en"
    preset = PRESETS.get(settings.llm_provider or DEFAULT_PROVIDER, PRESETS[DEFAULT_PROVIDER])
    with gr.Accordion(t("settings", en), open=False) as box:
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
            # On a Space the owner's endpoint stays on the server: the page's config is public.
            base_url = gr.Textbox(
                value="" if settings.hosted else settings.llm_base_url or "",
                placeholder=preset.base_url,
                label=t("base_url", en),
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
            report_language = gr.Radio(
                REPORT_LANGUAGES, value=settings.report_language, label=t("report_language", en)
            )
        with gr.Row():
            apply = gr.Button(t("apply_settings", en), elem_id="apply-settings", scale=1)
            feedback = gr.Markdown("", elem_id="settings-feedback")
    return SettingsPanel(
        box=box,
        provider=provider,
        model=model,
        base_url=base_url,
        api_key=api_key,
        github_token=github_token,
        max_turns=max_turns,
        report_language=report_language,
        ui_language=ui_language,
        apply=apply,
        feedback=feedback,
    )
