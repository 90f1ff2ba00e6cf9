"""The whole report as a file or a library result: the writer's Markdown, then what the app checked.

``run_finished.report`` is the writer's text (the model's, or the deterministic writer's). What the app
itself says — the key facts from the observations, the data gaps, the claim check — travels beside it
as structured events and is rendered by each consumer on its own: the browser app in a panel outside the
report's Markdown. :func:`full_report` is the form for a ``.md`` file and for :func:`agent_core.analyze`:
the report, its contradicted claims marked and links at their permalinks, and an appendix written by the
app, under a rule, that a reader can tell apart from the report.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core import events as ev
from agent_core.ledger import Coverage
from agent_core.report.checked import (
    VERDICT_MARKS,
    checked_heading,
    checked_summary,
    claim_text,
    fact_label,
    observed_text,
)
from agent_core.report.claims import annotate
from agent_core.report.coverage import coverage_lines
from agent_core.report.diagram import diagram_block, graph_of
from agent_core.report.inert import plain
from agent_core.report.sections import DIAGRAM
from agent_core.words import Language, t, words_for


def diagram_section(diagrams: Sequence[ev.DiagramDrawn], language: Language = "en") -> str:
    """The architecture diagram section the app appends to a model's report ("" without diagrams): the
    report table's title, then each repository's diagram (under its name when there are several)."""
    diagrams = [d for d in diagrams if d.components]  # no tree, no diagram: nothing to append
    if not diagrams:
        return ""
    words = words_for(language)
    out = [f"## {DIAGRAM.title(language)}", ""]
    for diagram in diagrams:
        if len(diagrams) > 1:
            out += [f"### {plain(diagram.repo)}", ""]
        out += [*diagram_block(graph_of(diagram), words), ""]
    return "\n".join(out).rstrip() + "\n"


def full_report(
    report: str,
    check: ev.ClaimsChecked | None,
    reasons: Sequence[str],
    language: Language = "en",
    *,
    diagrams: Sequence[ev.DiagramDrawn] = (),
    coverage: Sequence[Coverage] = (),
) -> str:
    """The report (annotated), the architecture diagrams to append to it (a model's report: see
    :func:`diagram_section`) and the app's appendix: how much was read (``coverage``, the run's
    ledger), key facts, data gaps, the claim check."""
    out = [annotate(report, check, language).rstrip(), ""]
    if section := diagram_section(diagrams, language):
        out += [section.rstrip(), ""]
    out += ["---", "", f"## {checked_heading(language)}", ""]
    if coverage:
        out += [*coverage_lines(coverage, language), ""]
    if check is not None and check.key_facts:
        out += [f"**{t('checked_facts', language)}**", ""]
        several = len({f.repo for f in check.key_facts}) > 1
        for fact in check.key_facts:
            where = f"{plain(fact.repo)} · " if several else ""
            out.append(f"- {where}{fact_label(fact.label, language)}: {plain(fact.value)}")
        out.append("")
    if reasons:
        out += [
            f"**{t('checked_gaps', language)}**",
            "",
            *(f"- ⚠ {plain(r, limit=240)}" for r in reasons),
            "",
        ]
    if check is not None:
        out += [f"**{checked_summary(check, language)}**", ""]
        if check.claims:
            out += [t("checked_head", language), "|---|---|---|"]
            for claim in check.claims:
                mark = VERDICT_MARKS[claim.verdict]
                observed = plain(observed_text(claim, language) or "—", limit=160)
                out.append(f"| {mark} | {plain(claim_text(claim, language), limit=120)} | {observed} |")
        else:
            out.append(t("checked_none", language))
    return "\n".join(out).rstrip() + "\n"
