"""What the page is made of: one small frozen dataclass per panel (inputs, trace, report, status, chaos,
replay, settings) joined in :class:`Page`, so a handler names ``page.report.markdown`` and a reader can
find it; the interface-language selector's choices (:data:`UI_LANGUAGES`) and the page's labels in
either language (:meth:`Page.labels`). What the page says lives in :mod:`agent_core.words`; reports
follow the core's report-language setting; repository content is never translated.

:func:`agent_core.web.layout.layout` creates the components and returns the :class:`Page`; handlers live
in :mod:`~agent_core.web.handlers`, what triggers them in :mod:`~agent_core.web.bindings`.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gradio as gr

from agent_core.tools.registry import TOOL_NAMES
from agent_core.words import Language, t

Frame = dict[Any, Any]
UI_LANGUAGES: Mapping[str, Language] = types.MappingProxyType({"English": "en", "中文": "zh"})


def ui_language(choice: str | None) -> Language:
    """A selector's value ("English", "中文", "en", "zh") as a language code; English otherwise."""
    if choice in ("en", "zh"):
        return choice  # type: ignore[return-value]
    return UI_LANGUAGES.get(choice or "", "en")


@dataclass(frozen=True, kw_only=True)
class Inputs:
    target: gr.Textbox
    question: gr.Textbox
    analyze: gr.Button
    stop: gr.Button
    examples: gr.Accordion


@dataclass(frozen=True, kw_only=True)
class TracePanel:
    chatbot: gr.Chatbot
    followup: gr.Textbox
    ask: gr.Button


@dataclass(frozen=True, kw_only=True)
class ReportPanel:
    heading: gr.Markdown
    checked: gr.Markdown  # the app's own panel: key facts, data gaps, claim check (outside the report)
    markdown: gr.Markdown
    download_report: gr.DownloadButton
    download_trace: gr.DownloadButton
    export_box: gr.Accordion


@dataclass(frozen=True, kw_only=True)
class StatusPanel:
    line: gr.Markdown
    breakers: gr.Dataframe
    stats_heading: gr.Markdown
    stats: gr.Markdown
    timer: gr.Timer


@dataclass(frozen=True, kw_only=True)
class ChaosPanel:
    box: gr.Accordion
    note: gr.Markdown
    enabled: gr.Checkbox
    fault_rate: gr.Slider
    down_tool: gr.Dropdown
    burst: gr.Button
    status: gr.Markdown


@dataclass(frozen=True, kw_only=True)
class ReplayPanel:
    box: gr.Accordion
    choice: gr.Dropdown
    upload: gr.File
    speed: gr.Slider
    play: gr.Button


@dataclass(frozen=True, kw_only=True)
class SettingsPanel:
    box: gr.Accordion
    provider: gr.Dropdown
    model: gr.Dropdown
    base_url: gr.Textbox
    api_key: gr.Textbox
    github_token: gr.Textbox
    max_turns: gr.Slider
    report_language: gr.Radio
    ui_language: gr.Radio
    apply: gr.Button
    feedback: gr.Markdown  # Apply's outcome, next to the button

    def inputs(self) -> list[Any]:
        """What Apply reads, in the handler's order."""
        return [
            self.provider,
            self.model,
            self.base_url,
            self.api_key,
            self.github_token,
            self.max_turns,
            self.report_language,
        ]


@dataclass(frozen=True, kw_only=True)
class Page:
    """Every component the handlers read or update (built by :func:`layout`)."""

    state: gr.State
    heading: gr.Markdown
    inputs: Inputs
    examples: gr.Dataset
    trace: TracePanel
    report: ReportPanel
    status: StatusPanel
    chaos: ChaosPanel
    replay: ReplayPanel
    settings: SettingsPanel

    def run_outputs(self) -> list[Any]:
        """What a run's streamed frames update. Kept to what changes while a run streams: Gradio turns
        every declared output a frame leaves out into an update that rebuilds the component and its
        config (most of the app's CPU per frame, measured by ``python -m bench --only concurrency``)."""
        s = self.status
        r = self.report
        return [self.state, self.trace.chatbot, r.markdown, s.stats, s.line, s.breakers, s.timer, r.checked]

    def control_outputs(self) -> list[Any]:
        """What changes only before and after a run: Analyze and Stop, follow-up, downloads, chaos status."""
        r, i = self.report, self.inputs
        return [
            i.analyze,
            i.stop,
            self.trace.followup,
            self.trace.ask,
            r.download_report,
            r.download_trace,
            self.chaos.status,
        ]

    def labels(self, lang: str, *, hosted_target: bool) -> Frame:
        """Updates that put every label of the page into ``lang``."""
        i, tr, r, c, rp, st = self.inputs, self.trace, self.report, self.chaos, self.replay, self.settings
        by_label: dict[Any, str] = {
            i.target: "target_label_hosted" if hosted_target else "target_label",
            i.examples: "examples",
            tr.chatbot: "trace",
            r.download_report: "download_report",
            r.download_trace: "download_trace",
            r.export_box: "export_box",
            self.status.breakers: "breakers",
            c.box: "chaos",
            c.enabled: "chaos_enabled",
            c.fault_rate: "chaos_fault_rate",
            c.down_tool: "chaos_down",
            rp.box: "replay",
            rp.choice: "replay_choice",
            rp.upload: "replay_upload",
            rp.speed: "replay_speed",
            st.box: "settings",
            st.provider: "provider",
            st.model: "model",
            st.base_url: "base_url",
            st.api_key: "api_key",
            st.github_token: "github_token",
            st.max_turns: "max_turns",
            st.report_language: "report_language",
            st.ui_language: "ui_language",
        }
        by_value: dict[Any, str] = {
            i.analyze: t("analyze", lang),
            i.stop: t("stop", lang),
            tr.ask: t("ask", lang),
            c.burst: t("chaos_burst", lang),
            c.note: t("chaos_note", lang),
            rp.play: t("replay_button", lang),
            st.apply: t("apply_settings", lang),
            self.heading: heading_text(lang),
            r.heading: f"#### {t('report', lang)}",
            self.status.stats_heading: f"#### {t('stats', lang)}",
        }
        out: Frame = {component: gr.update(label=t(key, lang)) for component, key in by_label.items()}
        out.update({component: gr.update(value=value) for component, value in by_value.items()})
        out[i.question] = gr.update(
            label=t("question_label", lang), placeholder=t("question_placeholder", lang)
        )
        out[tr.followup] = gr.update(
            label=t("followup_label", lang), placeholder=t("followup_placeholder", lang)
        )
        out[c.down_tool] = gr.update(label=t("chaos_down", lang), choices=chaos_choices(lang))
        return out


def heading_text(lang: str) -> str:
    """The page's title and what it does, on one line."""
    return f"## {t('title', lang)}\n{t('subtitle', lang)}"


def chaos_choices(lang: str) -> list[tuple[str, str]]:
    """The chaos dropdown: none, or one of the registry's tools."""
    return [(t("chaos_none", lang), ""), *[(name, name) for name in TOOL_NAMES]]
