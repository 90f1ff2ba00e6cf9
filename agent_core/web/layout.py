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
from agent_core.web.breakers import STATE_STYLES, breaker_columns, breaker_table
from agent_core.web.browser_session import BrowserSession
from agent_core.web.i18n import UI_LANGUAGES, t
from agent_core.web.page import (
    ChaosPanel,
    Inputs,
    Page,
    ReplayPanel,
    ReportPanel,
    SettingsPanel,
    StatusPanel,
    TracePanel,
    chaos_choices,
)

REPORT_LANGUAGES = (("auto", "auto"), ("English", "en"), ("中文", "zh"))
CHECKOUT = Path(__file__).resolve().parents[2]


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
        rows.insert(0, [str(CHECKOUT), "How is this project tested?"])
    return rows


def example_headers(lang: str) -> list[str]:
    return [t("example_target", lang), t("example_question", lang)]


def examples_update(lang: str) -> Any:
    """The examples' heading and columns in ``lang``."""
    return gr.update(label=t("examples", lang), headers=example_headers(lang))


def styled_breakers(snapshots: Sequence[BreakerSnapshot], lang: str) -> Any:
    """The breaker table as a pandas Styler: the state column coloured CLOSED/HALF_OPEN/OPEN."""
    frame = pd.DataFrame(breaker_table(snapshots, lang=lang), columns=breaker_columns(lang))
    state_column = frame.columns[1]
    return frame.style.map(lambda value: STATE_STYLES.get(str(value), ""), subset=[state_column])


def layout(
    settings: Settings,
    recordings: Mapping[str, Path],
    first: BrowserSession,
    discard: Callable[[object], None],
) -> Page:
    """Create the page's components inside the current ``gr.Blocks`` (English labels)."""
    en = "en"
    state = gr.State(None, delete_callback=discard)
    heading = gr.Markdown(f"# {t('title', en)}\n{t('subtitle', en)}")
    line = gr.Markdown(first.status_line(), elem_id="status")
    inputs = _inputs(settings)
    shown = gr.Examples(
        examples=examples(settings),
        inputs=[inputs.target, inputs.question],
        label=t("examples", en),
        api_visibility="private",
        elem_id="examples",
    )
    shown.dataset.headers = example_headers(en)
    with gr.Row():
        with gr.Column(scale=3):
            trace = _trace()
        with gr.Column(scale=2):
            report = _report()
    status = _status(first, line)
    return Page(
        state=state,
        heading=heading,
        inputs=inputs,
        examples=shown.dataset,
        trace=trace,
        report=report,
        status=status,
        chaos=_chaos(),
        replay=_replay(recordings),
        settings=_settings(settings),
    )


def _inputs(settings: Settings) -> Inputs:
    en = "en"
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
            analyze = gr.Button(t("analyze", en), variant="primary", elem_id="analyze")
            stop = gr.Button(t("stop", en), variant="stop", interactive=False, elem_id="stop")
    return Inputs(target=target, question=question, analyze=analyze, stop=stop)


def _trace() -> TracePanel:
    en = "en"
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
        ask = gr.Button(t("ask", en), interactive=False, scale=1, elem_id="ask")
    return TracePanel(chatbot=chatbot, followup=followup, ask=ask)


def _report() -> ReportPanel:
    en = "en"
    heading = gr.Markdown(f"### {t('report', en)}")
    checked = gr.Markdown("", elem_id="checked")
    # Sanitised Markdown (the default): repository content and model output are untrusted.
    markdown = gr.Markdown(
        t("report_empty", en), elem_id="report", buttons=["copy"], container=True, padding=True
    )
    with gr.Row():
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
    )


def _status(first: BrowserSession, line: gr.Markdown) -> StatusPanel:
    en = "en"
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
    timer = gr.Timer(1.0, active=False)
    return StatusPanel(line=line, breakers=breakers, stats_heading=stats_heading, stats=stats, timer=timer)


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


def _settings(settings: Settings) -> SettingsPanel:
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
            ui_language = gr.Radio(
                list(UI_LANGUAGES), value="English", label=t("ui_language", en), elem_id="ui-lang"
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
