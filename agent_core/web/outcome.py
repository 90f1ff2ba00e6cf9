"""What the page says about how a run ended, in the UI's language (no gradio here).

The status line and the report pane name the part that failed and what to do next, from the run's
:class:`~agent_core.events.Diagnosis` through :func:`agent_core.diagnosis.explain`:

* a report the deterministic writer wrote because the model failed says so (never "some data could
  not be read", which blames GitHub);
* a report with GitHub (or local) data missing says which data and why;
* a failed run shows the explanation in the report pane instead of the empty-report placeholder;
* a stopped run says "Stopped", without any error styling, and keeps the partial report.
"""

from __future__ import annotations

from agent_core import events as ev
from agent_core.diagnosis import explain
from agent_core.web.markdown import safe_markdown
from agent_core.web.render import TraceView
from agent_core.words import t


def explanation(diagnosis: ev.Diagnosis, lang: str) -> str:
    """``what`` and ``next step`` as one sentence pair (plain text)."""
    said = explain(diagnosis, lang)
    return f"{said.what} {said.next_step}"


def finished_phase(event: ev.RunFinished, lang: str) -> str:
    """The status line's phase for a finished run: who wrote the report, and what went missing."""
    d = event.diagnosis
    if event.writer == "fallback" or (d is not None and d.source == "model"):
        why = (
            explanation(d, lang) if d is not None and d.source == "model" else t("model_failed_unknown", lang)
        )
        return t("status_model_failed", lang, why=why)
    if not event.degraded:
        return t("status_done", lang)
    if d is not None:
        return t(f"status_missing_{d.source}", lang, why=explanation(d, lang))
    return t("status_degraded", lang)


def failed_phase(event: ev.RunFailed, lang: str, *, in_pane: bool = False) -> str:
    """The status line's phase for a failed run: the cause and the next step when they are known; only
    a pointer when the report pane says them (``in_pane``: a failure is said once, not three times)."""
    if in_pane:
        return t("status_failed_see_report", lang)
    if event.diagnosis is not None:
        return t("status_failed", lang, message=explanation(event.diagnosis, lang))
    return t("status_failed", lang, message=event.message + (f" ({event.hint})" if event.hint else ""))


def failure_markdown(event: ev.RunFailed, lang: str) -> str:
    """The report pane of a failed run: what happened and what to do (may quote a repository name)."""
    if event.diagnosis is not None:
        said = explain(event.diagnosis, lang)
        what, next_step = said.what, said.next_step
    else:
        what, next_step = event.message, event.hint or t("failed_next_unknown", lang)
    return safe_markdown(
        f"### {t('failed_heading', lang)}\n\n**{what}**\n\n{t('next_step', lang)} {next_step}"
    )


def report_pane(view: TraceView | None, lang: str) -> str:
    """What the report pane shows: the report (partial while it streams or after Stop), else why there
    is none (a failure's explanation, a run stopped before its report), else the placeholder."""
    report = view.report.markdown() if view is not None else ""
    if report:
        return report
    if view is not None and isinstance(view.result, ev.RunFailed):
        return failure_markdown(view.result, lang)
    if view is not None and view.stopped:
        return t("report_stopped_empty", lang)
    return t("report_empty", lang)
