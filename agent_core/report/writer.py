"""The deterministic report writer: a factual Markdown report built only from tool results.

Two users: the offline planner (no model), and any run that must end without the model's report
(the model became unreachable, or a limit was hit) -- then ``writer_note`` says why. Every sentence
comes from a typed value in a :class:`~agent_core.tools.executor.ToolResult`; what is missing is
written as "unknown" (未知), and an absence ("no license") is only claimed when the data that would
show the thing was actually fetched.

The pipeline is plain functions, one module per step::

    results ─▶ Evidence per repository (what was fetched)               facts.gather
            ─▶ Facts (manifests parsed, CI/tests/license presence,      facts.build_facts
               activity, strengths and risks)                           (manifests.parse_manifest)
            ─▶ Markdown sections, in English or Chinese                 sections.SECTIONS (words_en/_zh)
               (first, for a question: the Answer)                      answer.answer (relevance, outline)
            ─▶ the whole report: title, preface, sections, sources       this module

Repository text is untrusted: whatever comes from it goes through
:func:`~agent_core.report.inert.plain` or :func:`~agent_core.report.inert.code`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_core.repo import RepoRef, RunScope
from agent_core.report.facts import (
    Facts,
    build_facts,
    call_label,
    description,
    gather,
)
from agent_core.report.inert import code, plain
from agent_core.report.model_words import files_cell, files_count
from agent_core.report.phrases import (
    day,
    shorten,
)
from agent_core.report.scoped import file_lines
from agent_core.report.sections import SECTIONS, primary_language
from agent_core.tools.results import ToolResult
from agent_core.words import Language, Words, words_for

# The comparison table's rows, top to bottom: their labels' keys in agent_core.words.
_TABLE_ROWS = (
    *("row_description", "row_language", "row_license", "row_stars", "row_forks"),
    *("row_last_commit", "row_ci", "row_tests", "row_files"),
)


@dataclass(frozen=True, kw_only=True)
class Written:
    """The deterministic report as a value: the lines before its sections (title, scope, preface), then
    each level-2 section as (title, lines). :meth:`markdown` renders it; a consumer that needs a part
    (a partial report's missing sections) takes it from here, never by splitting the Markdown."""

    head: tuple[str, ...]
    sections: tuple[tuple[str, tuple[str, ...]], ...]

    def section(self, title: str, lines: Sequence[str]) -> str:
        return "\n".join([f"## {title}", "", *lines]).rstrip()

    def markdown(self) -> str:
        body = [self.section(title, lines) for title, lines in self.sections]
        return "\n\n".join(["\n".join(self.head).rstrip(), *body]).rstrip() + "\n"


def written(
    *,
    scope: Sequence[RepoRef],
    question: str,
    results: Sequence[ToolResult],
    language: Language = "en",
    degraded_reasons: Sequence[str] = (),
    writer_note: str | None = None,
    scopes: Sequence[RunScope] = (),
) -> Written:
    """The report: a level-1 title, the sections of :mod:`~agent_core.agent.prompts` as level-2
    headings in order (each repository under its own level-3 heading when there are several, plus a
    side-by-side table), and a final "Data sources" section listing every call. ``scopes``: the folders
    or files the user's URLs pointed at, named in the title."""
    words = words_for(language)
    facts = [build_facts(gather(repo, results, words), question=question) for repo in scope]
    several = len(facts) > 1
    labels = {s.repo.lower(): s.label() for s in scopes}  # "owner/repo · pkg/parser @ main"
    names = plain(", ".join(labels.get(repo.key(), repo.full_name) for repo in scope))
    head = [f"# {words('title_many' if several else 'title_one', names)}", ""]
    for pointed in scopes:  # what the URL narrowed the run to, said before anything else
        template = words("report_scope_file") if pointed.kind == "blob" else words("report_scope_folder")
        head += [
            f"> ℹ {template.format(code(pointed.path or '/'), code(pointed.ref), plain(pointed.repo))}",
            "",
            *file_lines(pointed, results, words),
        ]
    head += _preface(facts, question, degraded_reasons, writer_note, words)
    sections: list[tuple[str, tuple[str, ...]]] = []
    for section in SECTIONS:
        if section.asked and not question.strip():
            continue
        out = _comparison(facts, words) if several and section.key == "overview" else []
        for fact in facts:
            if several:
                out += [f"### {plain(fact.evidence.repo.full_name)}", ""]
            out += [*section.render(fact, words), ""]
        sections.append((section.title(language), tuple(out)))
    sections.append((words("data_sources"), tuple(_sources(results, words))))
    return Written(head=tuple(head), sections=tuple(sections))


def _preface(
    facts: Sequence[Facts], question: str, reasons: Sequence[str], note: str | None, words: Words
) -> list[str]:
    out: list[str] = []
    # The loop passes its own description of stale/degraded calls; without it, describe them here.
    gaps = [plain(r, limit=200) for r in reasons] or list(
        dict.fromkeys(g for f in facts for g in f.evidence.gaps)
    )
    if gaps:
        out += [f"> {words('warning', words('semi').join(gaps))}", ""]
    if note:
        out += [f"> ℹ {plain(note, limit=500)}", ""]
    if question.strip():
        out += [words("question", plain(question, limit=300)), ""]
    return out


def _comparison(facts: Sequence[Facts], words: Words) -> list[str]:
    header = [words("aspect"), *(f.evidence.repo.full_name for f in facts)]
    columns = [_table_column(f, words) for f in facts]
    rows = [
        [label, *(column[i] for column in columns)]
        for i, label in enumerate(words(key) for key in _TABLE_ROWS)
    ]
    lines = [_row(header), "|" + "---|" * len(header), *(_row(row) for row in rows)]
    return [words("side_by_side"), "", *lines, ""]


def _table_column(facts: Facts, words: Words) -> list[str]:
    info, tree, act = facts.evidence.info, facts.evidence.tree, facts.activity
    unknown = words("unknown")

    def number(value: int | None) -> str:
        return f"{value:,}" if value is not None else unknown

    if info is not None and info.license:
        license_id = info.license
    else:
        license_id = unknown if facts.license_files is None else words("none")
        license_id = facts.license_files[0] if facts.license_files else license_id
    ci = _presence(facts.ci, len(facts.ci or ()), words)
    if not facts.ci and facts.test_runners:
        ci = words("yes_which", ", ".join(facts.test_runners))
    model = facts.model
    if model is not None and model.tests.files:
        tests = words("yes_which", files_count(model.tests.files, words))
    elif facts.tests_dir:
        tests = words("yes_which", f"{facts.tests_dir}/")
    else:
        tests = _presence(facts.test_files, facts.test_files, words)
    return [
        shorten(described[0], 80) if (described := description(facts)) else unknown,
        primary_language(facts) or unknown,
        license_id,
        number(info.stars if info else None),
        number(info.forks if info else None),
        day(act.last) if act and act.last else unknown,
        ci,
        tests,
        files_cell(model, words) if model is not None else number(tree.files if tree else None),
    ]


def _presence(found: object, detail: object, words: Words) -> str:
    """A table cell for something that is there ("yes (detail)"), absent ("no") or unknown (None)."""
    if found is None:
        return words("unknown")
    return words("yes_which", detail) if found else words("no")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(plain(cell) for cell in cells) + " |"


def _sources(results: Sequence[ToolResult], words: Words) -> list[str]:
    if not results:
        return [words("no_calls")]
    out = []
    for result in results:
        if result.stale:
            mark = words("mark_stale")
        elif result.degraded:
            mark = words("mark_degraded")
        else:
            mark = words("mark_ok") if result.ok else words("mark_failed")
        line = f"- {mark} · {call_label(result)}"
        if result.memo:
            line += f" ({words('mark_memo')})"
        if result.error and (result.stale or not result.ok):
            line += f" — {plain(result.error, limit=160)}"
        out.append(line)
    return out
