"""The deterministic report writer: a factual Markdown report built only from tool results.

Two users: the offline planner (no model), and any run that must end without the model's report
(the model became unreachable, or a limit was hit) -- then ``writer_note`` says why. Every sentence
comes from a typed value in a :class:`~agent_core.tools.executor.ToolResult`; what is missing is
written as "unknown" (未知), and an absence ("no license") is only claimed when the data that would
show the thing was actually fetched.

The pipeline is plain functions, one module per step::

    results ─▶ Evidence per repository (what was fetched)               report_facts.gather
            ─▶ Facts (manifests parsed, CI/tests/license presence,      report_facts.build_facts
               activity, strengths and risks)                           (manifests.parse_manifest)
            ─▶ Markdown, in English or Chinese through one Words table  this module (report_words)

This module owns the last step: the sections, in the order of :mod:`~agent_core.agent.prompts`.
Repository text is untrusted: whatever comes from it goes through
:func:`~agent_core.agent.report_text.plain` or :func:`~agent_core.agent.report_text.code`.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from agent_core.agent.manifests import (
    Dependency,
    Manifest,
    ManifestStatus,
    notable_dependencies,
    parse_manifest,
)
from agent_core.agent.prompts import Language
from agent_core.agent.report_facts import (
    LARGE_FILE_BYTES,
    TEST_DIRS,
    Evidence,
    Facts,
    Finding,
    build_facts,
    call_label,
    gather,
    link,
    risks,
    strengths,
)
from agent_core.agent.report_text import (
    MAX_NAMES,
    README_CHARS,
    code,
    day,
    files_phrase,
    inline,
    join_names,
    parse_date,
    plain,
    readme_summary,
    shorten,
)
from agent_core.agent.report_words import EN, ZH, Words
from agent_core.repo import RepoRef
from agent_core.tools.executor import ToolResult
from agent_core.tools.observe import notable_role

# Names first defined here, still importable from here.
__all__ = [
    "EN",
    "LARGE_FILE_BYTES",
    "MAX_NAMES",
    "README_CHARS",
    "ZH",
    "Dependency",
    "Finding",
    "Manifest",
    "ManifestStatus",
    "notable_dependencies",
    "parse_manifest",
    "readme_summary",
    "write_report",
]


def write_report(
    *,
    scope: Sequence[RepoRef],
    question: str,
    results: Sequence[ToolResult],
    language: Language = "en",
    degraded_reasons: Sequence[str] = (),
    writer_note: str | None = None,
) -> str:
    """The report as Markdown: a level-1 title, the sections of :mod:`~agent_core.agent.prompts` as
    level-2 headings in order (each repository under its own level-3 heading when there are several,
    plus a side-by-side table), and a final "Data sources" section listing every call."""
    words = ZH if language == "zh" else EN
    facts = [build_facts(gather(repo, results, words)) for repo in scope]
    several = len(facts) > 1
    names = plain(", ".join(repo.full_name for repo in scope))
    out = [f"# {(words.title_many if several else words.title_one).format(names)}", ""]
    out += _preface(facts, question, degraded_reasons, writer_note, words)
    renderers = (
        _overview,
        _tech_stack,
        _structure,
        _development,
        _strengths_section,
        _risks_section,
        _advice,
    )
    for title, render in zip(words.sections, renderers, strict=True):
        out += [f"## {title}", ""]
        if several and render is _overview:
            out += _comparison(facts, words)
        for fact in facts:
            if several:
                out += [f"### {plain(fact.evidence.repo.full_name)}", ""]
            out += [*render(fact, words), ""]
    out += [f"## {words.data_sources}", "", *_sources(results, words)]
    return "\n".join(out).rstrip() + "\n"


def gaps_note(reasons: Sequence[str], language: Language = "en") -> str:
    """The data-gaps warning for a report the model wrote: what was missing or stale (and, for a spent
    rate limit, when it resets), as the loop recorded it. A model may leave that out; the reader must not
    miss it. Empty when nothing was missing."""
    if not reasons:
        return ""
    words = ZH if language == "zh" else EN
    return f"> {words.warning.format(words.semi.join(plain(r, limit=200) for r in reasons))}"


def _preface(
    facts: Sequence[Facts], question: str, reasons: Sequence[str], note: str | None, words: Words
) -> list[str]:
    out: list[str] = []
    # The loop passes its own description of stale/degraded calls; without it, describe them here.
    gaps = [plain(r, limit=200) for r in reasons] or list(
        dict.fromkeys(g for f in facts for g in f.evidence.gaps)
    )
    if gaps:
        out += [f"> {words.warning.format(words.semi.join(gaps))}", ""]
    if note:
        out += [f"> ℹ {plain(note, limit=500)}", ""]
    if question.strip():
        out += [words.question.format(plain(question, limit=300)), ""]
    return out


def _overview(facts: Facts, words: Words) -> list[str]:
    ev, info = facts.evidence, facts.evidence.info
    description = info.description if info else None
    readme = ev.files.get(facts.readme or "")
    summary = readme_summary(readme.text) if readme is not None and readme.text else None
    notes = []
    if info is not None and info.renamed_from:
        notes.append(words.renamed.format(code(info.renamed_from), code(info.full_name)))
    if info is not None and info.archived:
        notes.append(words.archived)
    if info is not None and info.fork:
        notes.append(words.is_fork)
    return _blocks(
        [words.no_info] if info is None and "get_repo_info" in ev.attempted else [],
        [words.description.format(plain(description, limit=300) if description else words.unknown)],
        [words.from_readme.format(link(facts, readme.path), inline(summary))] if readme and summary else [],
        [f"- {label}{words.colon}{value}" for label, value in _key_facts(facts, words)],
        notes,
    )


def _key_facts(facts: Facts, words: Words) -> list[tuple[str, str]]:
    info = facts.evidence.info
    unknown = words.unknown

    def number(value: int | None) -> str:
        return f"{value:,}" if value is not None else unknown

    topics = info.topics if info else None
    rows = [
        (words.primary_language, plain(_primary_language(facts) or unknown)),
        (words.stars, number(info.stars if info else None)),
        (words.forks, number(info.forks if info else None)),
        (words.open_issues, number(info.open_issues if info else None)),
        (words.license, _license_text(facts, words)),
        (words.default_branch, code(info.default_branch) if info and info.default_branch else unknown),
        (words.created, _iso_day(info.created_at if info else None, unknown)),
        (words.last_push, _iso_day(info.pushed_at if info else None, unknown)),
        (
            words.topics,
            unknown if topics is None else join_names([code(t) for t in topics], words) or words.none,
        ),
    ]
    if info is not None and info.homepage:
        rows.append((words.homepage, code(info.homepage)))
    return rows


def _tech_stack(facts: Facts, words: Words) -> list[str]:
    ev = facts.evidence
    manifests = [
        words.manifest_line.format(link(facts, m.path), _manifest_text(m, words)) for m in facts.manifests
    ]
    unread = [link(facts, p) for p in facts.paths if notable_role(p) == "manifest" and p not in ev.files]
    none_found = not manifests and not unread and (ev.tree is not None or facts.root_complete)
    notable = [
        code(name) + words.paren.format(words.categories[category])
        for name, category in notable_dependencies(facts.manifests)
    ]
    tooling = [link(facts, p) for p in facts.paths if notable_role(p) in ("build", "container")]
    return _blocks(
        [words.languages.format(_languages(ev, words))],
        [words.manifests, *manifests] if manifests else [],
        [words.unread_manifests.format(join_names(unread, words))] if unread else [],
        [words.no_manifests] if none_found else [],
        [words.notable.format(join_names(notable, words))] if notable else [],
        [words.tooling.format(join_names(tooling, words))] if tooling else [],
    )


def _manifest_text(manifest: Manifest, words: Words) -> str:
    if manifest.status == "unparsed":
        return words.unparsed
    if manifest.status == "invalid":
        return words.invalid.format(plain(manifest.detail or words.unknown, limit=120))
    parts = []
    if manifest.runtime:
        parts.append(words.runtime_deps.format(len(manifest.runtime), _deps_text(manifest.runtime, words)))
    if manifest.dev:
        parts.append(words.dev_deps.format(len(manifest.dev), _deps_text(manifest.dev, words)))
    if manifest.groups:
        groups = [
            code(name) + words.paren.format(_deps_text(deps, words, cap=10)) for name, deps in manifest.groups
        ]
        parts.append(words.groups.format(words.sep.join(groups)))
    if manifest.indirect:
        parts.append(words.indirect.format(manifest.indirect))
    if manifest.build_backend:
        parts.append(words.build_backend.format(code(manifest.build_backend)))
    if manifest.partial:
        parts.append(words.partial)
    return words.semi.join(parts) or words.no_deps


_DIR_ROLES = MappingProxyType(
    {
        **dict.fromkeys(("src", "lib"), "source"),
        **dict.fromkeys(TEST_DIRS, "tests"),
        **dict.fromkeys(("docs", "doc"), "docs"),
        **dict.fromkeys(("examples", "example"), "examples"),
        **dict.fromkeys(("scripts", "tools"), "tooling"),
        ".github": "github",
        **dict.fromkeys(("benchmarks", "bench"), "benchmarks"),
        **dict.fromkeys(("assets", "static"), "assets"),
    }
)
_MAX_TOP_DIRS = 30


def _structure(facts: Facts, words: Words) -> list[str]:
    tree = facts.evidence.tree
    if tree is not None and tree.empty_repository:
        return [words.empty_repo]
    if tree is None:
        return _listings(facts, words)
    top_dirs = [d for d in facts.dirs if "/" not in d]
    dir_lines = []
    for name in top_dirs[:_MAX_TOP_DIRS]:
        count = sum(1 for p in facts.paths if p.startswith(f"{name}/"))
        role = _DIR_ROLES.get(name.lower())
        dir_lines.append(
            words.top_dir.format(
                code(f"{name}/"), files_phrase(count, words), words.roles[role] if role else "—"
            )
        )
    if len(top_dirs) > _MAX_TOP_DIRS:
        dir_lines.append(f"- …{words.more.format(len(top_dirs) - _MAX_TOP_DIRS)}")
    top_files = [code(p) for p in facts.paths if "/" not in p]
    notable = _notable_files(facts, words)
    return _blocks(
        [words.counts.format(tree.files, tree.dirs)],
        dir_lines,
        [words.top_files.format(join_names(top_files, words))] if top_files else [],
        [words.notable_files.format(notable)] if notable else [],
        [words.truncated] if tree.truncated else [],
    )


def _listings(facts: Facts, words: Words) -> list[str]:
    """Without a tree: what the folder listings show, or that nothing is known."""
    listings = facts.evidence.listings
    if "" not in listings:
        return [words.no_tree]
    root = listings[""]
    out = [
        words.root_only.format(
            join_names([code(e.name + ("/" if e.type == "dir" else "")) for e in root.entries], words)
            or words.none
        )
    ]
    for path, listing in sorted(listings.items()):
        if path:
            names = join_names([code(e.name) for e in listing.entries], words, cap=10) or words.none
            out += ["", words.listing.format(code(f"{path}/"), names)]
    return out


def _notable_files(facts: Facts, words: Words) -> str:
    by_role: dict[str, list[str]] = {}
    for path in facts.paths:
        role = notable_role(path)
        if role is not None:
            by_role.setdefault(role, []).append(path)
    order = ("readme", "license", "manifest", "ci", "container", "docs", "build")
    parts = [
        f"{words.roles[role]}{words.colon}{join_names([link(facts, p) for p in by_role[role]], words, cap=8)}"
        for role in order
        if role in by_role
    ]
    return words.semi.join(parts)


def _development(facts: Facts, words: Words) -> list[str]:
    ev, act = facts.evidence, facts.activity
    if ev.commits is None:
        return [words.commits_failed if "get_commits" in ev.attempted else words.not_examined]
    if act is None or act.count == 0:
        return [words.no_commits]
    out = [
        f"- {words.last_commit.format(day(act.last) if act.last else words.unknown)}",
        f"- {words.first_commit.format(day(act.first) if act.first else words.unknown)}",
    ]
    span = act.span_days
    sample = words.sample.format(act.count)
    if span is not None:
        sample += words.same_day if span < 1 else words.span.format(round(span))
    out.append(f"- {sample}")
    if act.per_week is not None:
        out.append(f"- {words.cadence.format(f'{act.per_week:.1f}')}")
    top = [plain(name or words.unknown) + words.paren.format(count) for name, count in act.authors[:5]]
    out.append(f"- {words.authors.format(join_names(top, words, cap=5))}")
    if act.has_more:
        out.append(f"- {words.has_more}")
    commits = ev.commits.commits[:5]
    out += ["", words.latest]
    for commit in commits:
        who = plain(commit.author) if commit.author else words.unknown
        out.append(f"- {_iso_day(commit.date, words.unknown)} — {plain(commit.message, limit=100)} — {who}")
    return out


def _strengths_section(facts: Facts, words: Words) -> list[str]:
    return [f"- {s}" for s in strengths(facts, words)] or [words.no_strengths]


def _risks_section(facts: Facts, words: Words) -> list[str]:
    return [f"- {text}" for _kind, text in risks(facts, words)] or [words.no_risks]


def _advice(facts: Facts, words: Words) -> list[str]:
    kinds = dict.fromkeys(kind for kind, _text in risks(facts, words))
    return [f"- {words.recommend[kind]}" for kind in kinds if kind in words.recommend] or [
        words.no_recommendations
    ]


def _comparison(facts: Sequence[Facts], words: Words) -> list[str]:
    header = [words.aspect, *(f.evidence.repo.full_name for f in facts)]
    columns = [_table_column(f, words) for f in facts]
    rows = [[label, *(column[i] for column in columns)] for i, label in enumerate(words.table_rows)]
    lines = [_row(header), "|" + "---|" * len(header), *(_row(row) for row in rows)]
    return [words.side_by_side, "", *lines, ""]


def _table_column(facts: Facts, words: Words) -> list[str]:
    info, tree, act = facts.evidence.info, facts.evidence.tree, facts.activity
    unknown = words.unknown

    def number(value: int | None) -> str:
        return f"{value:,}" if value is not None else unknown

    if info is not None and info.license:
        license_id = info.license
    else:
        license_id = unknown if facts.license_files is None else words.none
        license_id = facts.license_files[0] if facts.license_files else license_id
    ci = _presence(facts.ci, len(facts.ci or ()), words)
    if facts.tests_dir:
        tests = words.yes_which.format(f"{facts.tests_dir}/")
    else:
        tests = _presence(facts.test_files, facts.test_files, words)
    return [
        shorten(info.description, 80) if info and info.description else unknown,
        _primary_language(facts) or unknown,
        license_id,
        number(info.stars if info else None),
        number(info.forks if info else None),
        day(act.last) if act and act.last else unknown,
        ci,
        tests,
        number(tree.files if tree else None),
    ]


def _presence(found: object, detail: object, words: Words) -> str:
    """A table cell for something that is there ("yes (detail)"), absent ("no") or unknown (None)."""
    if found is None:
        return words.unknown
    return words.yes_which.format(detail) if found else words.no


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(plain(cell) for cell in cells) + " |"


def _sources(results: Sequence[ToolResult], words: Words) -> list[str]:
    if not results:
        return [words.no_calls]
    out = []
    for result in results:
        if result.stale:
            mark = words.mark_stale
        elif result.degraded:
            mark = words.mark_degraded
        else:
            mark = words.mark_ok if result.ok else words.mark_failed
        line = f"- {mark} · {call_label(result)}"
        if result.memo:
            line += f" ({words.mark_memo})"
        if result.error and (result.stale or not result.ok):
            line += f" — {plain(result.error, limit=160)}"
        out.append(line)
    return out


def _languages(evidence: Evidence, words: Words) -> str:
    if evidence.languages is None:
        primary = evidence.info.language if evidence.info else None
        said = f"{words.primary_language}{words.colon}{plain(primary)}" if primary else None
        return words.unknown + words.paren.format(said) if said else words.unknown
    total = sum(evidence.languages.bytes_by_language.values())
    if not total:
        return words.no_languages
    ranked = sorted(evidence.languages.bytes_by_language.items(), key=lambda kv: (-kv[1], kv[0]))
    return join_names([f"{plain(lang)} {100 * n / total:.1f}%" for lang, n in ranked], words, cap=10)


def _primary_language(facts: Facts) -> str | None:
    ev = facts.evidence
    if ev.info is not None and ev.info.language:
        return ev.info.language
    if ev.languages is not None and ev.languages.bytes_by_language:
        return max(ev.languages.bytes_by_language.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return None


def _license_text(facts: Facts, words: Words) -> str:
    info = facts.evidence.info
    if info is not None and info.license:
        return plain(info.license)
    if facts.license_files:
        return join_names([link(facts, p) for p in facts.license_files], words)
    return words.none if facts.license_files == () else words.unknown


def _deps_text(deps: Sequence[Dependency], words: Words, *, cap: int = MAX_NAMES) -> str:
    return join_names([code(d.text()) for d in deps], words, cap=cap)


def _iso_day(value: str | None, unknown: str) -> str:
    moment = parse_date(value)
    return day(moment) if moment is not None else unknown


def _blocks(*blocks: list[str]) -> list[str]:
    """Markdown blocks separated by one blank line; empty blocks left out."""
    out: list[str] = []
    for block in blocks:
        if block:
            out += [*([""] if out else []), *block]
    return out
