"""The report pane and what the app says beside it, folded from one run's events.

:class:`ReportView` holds the answer as it streams (rendered once per added line), the app's claim
check and diagrams, and the run's end: ``markdown()`` (safe to display; once the run ended, with its
contradicted claims marked and a model's report followed by the app's diagrams), ``text()`` (raw, for
the export), ``checked_markdown()`` (the panel beside it) and ``export_text()`` (the ``.md`` download).
Until a turn ends nobody knows whether its text is the answer, so it streams as the answer; the trace
takes it back into the turn's step when the turn then asks for tools (:meth:`ReportView.explored`).

The diagrams: the Mermaid the app compiled from the ``diagram`` events is the only Mermaid that may
render (:func:`agent_core.web.markdown.safe_markdown`); a model's report gets them appended as a section
(a written report has them in it already).

The "Checked by Repo Analyst" panel (:func:`checked_markdown`): key facts from the observations, the
data gaps the run recorded, and the claim check (✓ verified, ✗ contradicted with what was observed, ?
not checkable), built from structured events only (``claims_checked``, ``run_finished.degraded_reasons``).
It renders in its own component with its own style (the app's CSS for ``#checked``), so neither a model
nor a repository can forge it: whatever text of theirs it quotes (a claim's words) is one escaped line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from agent_core import events as ev
from agent_core.report.checked import (
    VERDICT_MARKS,
    checked_heading,
    checked_summary,
    claim_text,
    fact_label,
    observed_text,
)
from agent_core.report.claims import annotate
from agent_core.report.diagram import compile_mermaid, graph_of
from agent_core.report.export import diagram_section, full_report
from agent_core.report.inert import visible
from agent_core.web.markdown import MarkdownStream, one_line, safe_markdown
from agent_core.web.trace_items import ReportState
from agent_core.words import t

_MAX_OPEN = 12  # ✗ and ? items shown open in the checked panel
_MAX_DETAIL = 60  # verified items, collapsed


class ReportView:
    """One run's report pane. Not thread-safe; one per run, never shared."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.result: ev.RunFinished | None = None
        self.claims: ev.ClaimsChecked | None = None  # the app's check of the report, before run_finished
        self.ended = False  # the run finished, failed or was stopped
        self.diagrams: list[ev.DiagramDrawn] = []  # in the order they came
        self.mermaid: list[str] = []  # compiled by the app from the diagrams' graphs
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
                self.diagrams.append(event)
                self.mermaid.append(compile_mermaid(graph_of(event)))
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
                report = annotate(self.result.report, self.claims, self.lang).rstrip()
                language = self.diagrams[0].language if self.diagrams else "en"
                section = diagram_section(self._appended(), language)
                report = f"{report}\n\n{section}" if section else report
                self._annotated = safe_markdown(report.strip(), diagrams=self.mermaid)
            return self._annotated
        return self._md.value()

    def _appended(self) -> list[ev.DiagramDrawn]:
        """The diagrams the app appends to the report: a model's (a written report has them in it)."""
        return self.diagrams if self.result is not None and self.result.writer == "model" else []

    def checked_markdown(self) -> str:
        """The app's panel beside the report: key facts, data gaps, the claim check."""
        reasons = self.result.degraded_reasons if self.result is not None else ()
        return checked_markdown(self.claims, reasons, self.lang, finished=self.ended)

    def export_text(self) -> str:
        """The ``.md`` export: the report (a model's with its diagrams) and the app's appendix."""
        if self.result is None:
            return visible(self.text())
        r, shown = self.result, self._appended()
        lang: Literal["en", "zh"] = "zh" if self.lang == "zh" else "en"
        report = full_report(
            r.report, self.claims, r.degraded_reasons, lang, diagrams=shown, coverage=r.stats.coverage
        )
        return visible(report)  # a model's report may quote a bidi-named file raw: escaped here too


def checked_markdown(
    check: ev.ClaimsChecked | None, reasons: Sequence[str], lang: str, *, finished: bool
) -> str:
    """The panel's Markdown ("" before anything is known): key facts, data gaps, the counts, the ✗ and ?
    items (each claim once), and the verified ones collapsed under one line."""
    if check is None and not reasons:
        return t("checked_pending", lang) if not finished else ""
    out = [f"#### {checked_heading(lang)}"]
    if check is not None and check.key_facts:
        several = len({f.repo for f in check.key_facts}) > 1
        facts = [
            (f"{one_line(f.repo, 40)} · " if several else "")
            + f"{fact_label(f.label, lang)} **{one_line(f.value, 40)}**"
            for f in check.key_facts
        ]
        out.append(" · ".join(facts))
    if reasons:
        out.append(f"**⚠ {t('checked_gaps', lang)}:** " + "; ".join(one_line(r, 160) for r in reasons[:8]))
    if check is None:
        return "\n\n".join(out)
    out.append(f"**{checked_summary(check, lang)}**")
    rows = distinct_claims(check.claims)
    doubtful = sorted((c for c in rows if c.verdict != "verified"), key=lambda c: c.verdict != "contradicted")
    lines = [_row(c, lang) for c in doubtful[:_MAX_OPEN]]
    if len(doubtful) > _MAX_OPEN:
        lines.append(f"- … {len(doubtful) - _MAX_OPEN}")
    if lines:
        out.append("\n".join(lines))
    verified = [c for c in rows if c.verdict == "verified"]
    if verified:
        detail = [_row(c, lang) for c in verified[:_MAX_DETAIL]]
        if len(verified) > _MAX_DETAIL:
            detail.append(f"- … {len(verified) - _MAX_DETAIL}")
        summary = t("checked_verified_detail", lang, count=len(verified))
        # Sanitised Markdown keeps <details>: collapsed until opened, no script involved.
        out.append(f"<details><summary>{summary}</summary>\n\n" + "\n".join(detail) + "\n\n</details>")
    return "\n\n".join(out)


def distinct_claims(claims: Sequence[ev.CheckedClaim]) -> list[ev.CheckedClaim]:
    """Each claim once: the same words with the same verdict (a report repeats a name or a version in
    several sections) are one entry, the first kept."""
    seen: set[tuple[str, str, str | None]] = set()
    out = []
    for claim in claims:
        key = (" ".join(claim.claim.split()).casefold(), claim.verdict, claim.repo)
        if key not in seen:
            seen.add(key)
            out.append(claim)
    return out


def _row(claim: ev.CheckedClaim, lang: str) -> str:
    """One entry: the mark, the claim, and what was observed unless it only repeats the claim."""
    row = f"- {VERDICT_MARKS[claim.verdict]} {one_line(claim_text(claim, lang), 90)}"
    observed = claim.observed
    if observed and claim.kind != "link" and observed.casefold().strip() != claim.claim.casefold().strip():
        row += f" — {t('checked_observed', lang)} {one_line(observed_text(claim, lang) or observed, 90)}"
    return row
