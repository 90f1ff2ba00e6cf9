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
from dataclasses import dataclass

from agent_core import events as ev
from agent_core.ledger import Coverage
from agent_core.report.claims import annotate
from agent_core.report.coverage import coverage_lines
from agent_core.report.diagram import diagram_block, graph_of
from agent_core.report.inert import plain
from agent_core.report.sections import DIAGRAM
from agent_core.report.words import Language
from agent_core.report.words_en import EN
from agent_core.report.words_zh import ZH


@dataclass(frozen=True, kw_only=True)
class _Words:
    title: str
    facts: str
    gaps: str
    claims: str
    counts: str
    none: str
    head: str


_WORDS = {
    "en": _Words(
        title="Checked by Repo Analyst (not by the model)",
        facts="Key facts, from the tools' observations",
        gaps="Data gaps",
        claims="Claims held against the observations",
        counts="{verified} verified, {contradicted} contradicted, {unchecked} not checkable",
        none="No checkable claims were found.",
        head="| | claim | observed |",
    ),
    "zh": _Words(
        title="由 Repo Analyst 核对（而非模型）",
        facts="关键事实（来自工具的观察结果）",
        gaps="数据缺口",
        claims="对照观察结果核对的说法",
        counts="已核实 {verified} 条，矛盾 {contradicted} 条，无法核对 {unchecked} 条",
        none="没有找到可以核对的说法。",
        head="| | 说法 | 观察结果 |",
    ),
}
VERDICT_MARKS = {"verified": "✓", "contradicted": "✗", "unchecked": "?"}
FACT_LABELS = {
    "en": {
        "stars": "Stars",
        "forks": "Forks",
        "open_issues": "Open issues",
        "license": "License",
        "language": "Primary language",
        "default_branch": "Default branch",
        "last_commit": "Last commit",
    },
    "zh": {
        "stars": "星标",
        "forks": "复刻",
        "open_issues": "未解决的问题",
        "license": "许可证",
        "language": "主要语言",
        "default_branch": "默认分支",
        "last_commit": "最近提交",
    },
}


def diagram_section(diagrams: Sequence[ev.DiagramDrawn], language: Language = "en") -> str:
    """The architecture diagram section the app appends to a model's report ("" without diagrams): the
    report table's title, then each repository's diagram (under its name when there are several)."""
    diagrams = [d for d in diagrams if d.components]  # no tree, no diagram: nothing to append
    if not diagrams:
        return ""
    words = ZH if language == "zh" else EN
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
    words = _WORDS.get(language, _WORDS["en"])
    out = [annotate(report, check).rstrip(), ""]
    if section := diagram_section(diagrams, language):
        out += [section.rstrip(), ""]
    out += ["---", "", f"## {words.title}", ""]
    if coverage:
        out += [*coverage_lines(coverage, language), ""]
    if check is not None and check.key_facts:
        out += [f"**{words.facts}**", ""]
        labels = FACT_LABELS.get(language, FACT_LABELS["en"])
        several = len({f.repo for f in check.key_facts}) > 1
        for fact in check.key_facts:
            where = f"{plain(fact.repo)} · " if several else ""
            out.append(f"- {where}{labels.get(fact.label, fact.label)}: {plain(fact.value)}")
        out.append("")
    if reasons:
        out += [f"**{words.gaps}**", "", *(f"- ⚠ {plain(r, limit=240)}" for r in reasons), ""]
    if check is not None:
        out += [f"**{words.claims}** — {words.counts.format(**_counts(check))}", ""]
        if check.claims:
            out += [words.head, "|---|---|---|"]
            for claim in check.claims:
                mark = VERDICT_MARKS[claim.verdict]
                observed = plain(claim.observed or "—", limit=160)
                out.append(f"| {mark} | {plain(claim.claim, limit=120)} | {observed} |")
        else:
            out.append(words.none)
    return "\n".join(out).rstrip() + "\n"


def _counts(check: ev.ClaimsChecked) -> dict[str, int]:
    return {"verified": check.verified, "contradicted": check.contradicted, "unchecked": check.unchecked}
