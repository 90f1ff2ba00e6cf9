"""The report pane and what the app says beside it, folded from one run's events.

:class:`ReportView` holds the answer as it streams (rendered once per added line), the app's claim
check and diagrams, and the run's end: ``markdown()`` (safe to display; once the run ended, with its
contradicted claims marked and a model's report followed by the app's diagrams), ``text()`` (raw, for
the export), ``checked_markdown()`` (the panel beside it) and ``export_text()`` (the ``.md`` download).
Until a turn ends nobody knows whether its text is the answer, so it streams as the answer; the trace
takes it back into the turn's step when the turn then asks for tools (:meth:`ReportView.explored`).
"""

from __future__ import annotations

from typing import Literal

from agent_core import events as ev
from agent_core.report.claims import annotate
from agent_core.report.export import full_report
from agent_core.report.inert import visible
from agent_core.web.checked import checked_markdown
from agent_core.web.diagrams import RunDiagrams
from agent_core.web.markdown import MarkdownStream, safe_markdown
from agent_core.web.trace_items import ReportState


class ReportView:
    """One run's report pane. Not thread-safe; one per run, never shared."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.result: ev.RunFinished | None = None
        self.claims: ev.ClaimsChecked | None = None  # the app's check of the report, before run_finished
        self.ended = False  # the run finished, failed or was stopped
        self.diagrams = RunDiagrams()
        self._annotated: str | None = None
        self._answer: list[str] = []
        self._md = MarkdownStream()
        self._turn: int | None = None

    def apply(self, event: ev.Event) -> None:
        match event:
            case ev.TextDelta():
                if self._turn != event.turn:
                    self._set([], event.turn)
                self._answer.append(event.text)
                self._md.feed(event.text)
            case ev.ClaimsChecked():
                self.claims = event
            case ev.DiagramDrawn():
                self.diagrams.add(event)
                self._annotated = None
            case ev.RunFinished():
                self.result, self.ended = event, True
                self._set([event.report], -1)
            case ev.RunFailed():
                self.ended = True
            case _:
                pass

    def stop(self) -> None:
        """The user pressed Stop: the partial answer stays, the run counts as ended."""
        self.ended = True

    def explored(self, event: ev.TurnFinished) -> str | None:
        """The text a turn streamed as the answer, taken back when the turn asked for tools (the trace
        shows it in the turn's step); None when it was not such a turn."""
        if event.tool_calls > 0 and self._turn == event.turn:
            text = "".join(self._answer)
            self._set([], None)
            return text
        return None

    def _set(self, parts: list[str], turn: int | None) -> None:
        self._answer, self._turn = parts, turn
        self._md = MarkdownStream("".join(parts))

    def streamed(self) -> str:
        """The answer as it streamed, rendered (empty before any)."""
        return self._md.value()

    def state(self) -> ReportState:
        if self.result is not None:
            return "done"
        return "partial" if self.ended else "live"

    def text(self) -> str:
        """The report as written (raw markdown, for the ``.md`` export); partial while streaming."""
        return "".join(self._answer).strip()

    def markdown(self) -> str:
        """The report, safe to hand to ``gr.Markdown``: rendered as it streams (once per added line), and
        once the run ended, with its contradicted claims marked, its links at their permalinks (the app's
        claim check) and a model's report followed by the app's diagrams, rendered once."""
        if self.result is not None and self.claims is not None:
            if self._annotated is None:
                report = self.diagrams.with_section(
                    annotate(self.result.report, self.claims, self.lang), self.result
                )
                self._annotated = safe_markdown(report.strip(), diagrams=self.diagrams.mermaid)
            return self._annotated
        return self._md.value()

    def checked_markdown(self) -> str:
        """The app's panel beside the report: key facts, data gaps, the claim check."""
        reasons = self.result.degraded_reasons if self.result is not None else ()
        return checked_markdown(self.claims, reasons, self.lang, finished=self.ended)

    def export_text(self) -> str:
        """The ``.md`` export: the report (a model's with its diagrams) and the app's appendix."""
        if self.result is None:
            return visible(self.text())
        r, shown = self.result, self.diagrams.appended(self.result)
        lang: Literal["en", "zh"] = "zh" if self.lang == "zh" else "en"
        report = full_report(
            r.report, self.claims, r.degraded_reasons, lang, diagrams=shown, coverage=r.stats.coverage
        )
        return visible(report)  # a model's report may quote a bidi-named file raw: escaped here too
