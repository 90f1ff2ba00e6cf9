"""The page's controls around a run: what is clickable when, and the settings form's checks.

* While a run streams, Analyze is disabled and says "Analyzing…", Stop is enabled, follow-up and the
  downloads are disabled (:func:`idle_controls`).
* After it (finished, failed or stopped), Analyze and Stop swap back and each download is enabled only
  when there is something in it: the ``.md`` when a report (or a stopped run's partial report) was
  written, the trace when any event arrived (:func:`run_controls`).
* Apply checks the settings form before anything changes (:func:`form_error`): a known provider, a
  model name, a base URL that is http(s) with a host.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import gradio as gr

from agent_core.llm import PRESETS
from agent_core.web.browser_session import BrowserSession
from agent_core.web.markdown import one_line
from agent_core.web.page import Frame, Page
from agent_core.words import t


def run_buttons(page: Page, lang: str, *, running: bool) -> Frame:
    """Analyze and Stop: one of them is enabled, never both."""
    return {
        page.inputs.analyze: gr.update(
            value=t("analyzing" if running else "analyze", lang), interactive=not running
        ),
        page.inputs.stop: gr.update(value=t("stop", lang), interactive=running),
    }


def idle_controls(page: Page, lang: str) -> Frame:
    """Before a run streams: nothing to follow up or download until it ends; Stop is the only button."""
    idle = gr.update(interactive=False)
    return run_buttons(page, lang, running=True) | {
        page.trace.followup: idle,
        page.trace.ask: idle,
        page.report.download_report: idle,
        page.report.download_trace: idle,
    }


def run_controls(page: Page, s: BrowserSession) -> Frame:
    """After a run (or Stop): downloads of what it produced, follow-up if the conversation allows. While
    another run of the session streams (a refused second request ended), everything stays idle."""
    if s.running:
        return idle_controls(page, s.lang) | {page.chaos.status: chaos_text(s)}
    out: Frame = run_buttons(page, s.lang, running=False) | {page.chaos.status: chaos_text(s)}
    files = s.export_files()
    if files is None:
        out[page.report.download_report] = out[page.report.download_trace] = gr.update(
            value=None, interactive=False
        )
    else:
        report, trace = files
        out[page.report.download_report] = (
            gr.update(value=str(report), interactive=True)
            if s.has_report
            else gr.update(value=None, interactive=False)
        )
        out[page.report.download_trace] = gr.update(value=str(trace), interactive=True)
    out[page.trace.followup] = out[page.trace.ask] = gr.update(interactive=s.can_follow_up)
    return out


def chaos_text(s: BrowserSession) -> str:
    """One line about the session's chaos mode, in the session's language."""
    c, lang = s.chaos.settings, s.lang
    if not c.enabled:
        armed = s.chaos.burst_left
        return t("chaos_off", lang) + (t("chaos_armed", lang, count=armed) if armed else "")
    parts = [t("chaos_on", lang, rate=f"{c.fault_rate:.0%}")]
    if c.down_tool:
        parts.append(t("chaos_down_now", lang, tool=c.down_tool))
    if s.chaos.burst_left:
        parts.append(t("chaos_burst_next", lang, count=s.chaos.burst_left))
    parts.append(t("chaos_injected", lang, count=len(s.chaos.log)))
    return " · ".join(parts)


def form_error(provider: str, model: str | None, base_url: str, lang: str) -> str | None:
    """Why the settings form cannot be applied (one line of markdown, in ``lang``), or None.

    A blank base URL means the provider's own; anything else must be an http(s) URL with a host."""
    if (provider or "").strip().lower() not in PRESETS:
        return t("settings_bad_provider", lang, name=one_line(provider or "", 60))
    if not (model or "").strip():
        return t("settings_no_model", lang)
    url = (base_url or "").strip()
    if url:
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError:
            parts, host = None, None
        spaced = any(c.isspace() for c in url)
        if parts is None or parts.scheme not in ("http", "https") or not host or spaced:
            return t("settings_bad_url", lang, url=one_line(url, 80))
    return None
