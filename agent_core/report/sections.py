"""The report's sections as ONE table: each :class:`Section` has its English and Chinese titles and its
renderer, in the order the report (and the model's prompt) uses them. The Answer section
(:mod:`~agent_core.report.answer`) is only in a report that answers a question.

A renderer turns one repository's :class:`~agent_core.report.facts.Facts` into Markdown lines, in the
language of the :class:`~agent_core.words.Words` it is given. Repository text is untrusted:
whatever comes from it goes through :func:`~agent_core.report.inert.plain` or
:func:`~agent_core.report.inert.code`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from agent_core.repomodel.model import TopFolder as ModelFolder
from agent_core.report.answer import answer
from agent_core.report.diagram import diagram_block
from agent_core.report.diagram_tree import tree_graph
from agent_core.report.facts import Evidence, Facts, description, link, risks, strengths
from agent_core.report.folder_tests import is_test_root
from agent_core.report.frameworks import test_frameworks
from agent_core.report.inert import code, inline, plain
from agent_core.report.licensing import project_license
from agent_core.report.manifest_words import ecosystem_lines, manifest_text, no_manifest_anywhere
from agent_core.report.manifests import is_own, notable_dependencies, own_names_in_tree, own_package_names
from agent_core.report.model_words import (
    ci_line,
    files_count,
    files_line,
    folder_files,
    packages_line,
    role_label,
    tests_line,
)
from agent_core.report.phrases import day, join_names, parse_date
from agent_core.report.prose import readme_summary
from agent_core.report.tree_lists import notable_paths
from agent_core.sources.models import TopFolder as CutFolder
from agent_core.tools.registry import GET_COMMITS, GET_REPO_INFO
from agent_core.words import Language, Words, t

Renderer = Callable[[Facts, Words], list[str]]


@dataclass(frozen=True, kw_only=True)
class Section:
    key: str  # its title is the words' section_<key>
    render: Renderer
    asked: bool = False  # only in a report that answers a question
    model_writes: bool = True  # False: the app adds it to a model's report itself (the model is not asked)

    def title(self, language: Language) -> str:
        return t(f"section_{self.key}", language)


def _overview(facts: Facts, words: Words) -> list[str]:
    ev, info = facts.evidence, facts.evidence.info
    described = description(facts)
    own = next((m for m in facts.manifests if m.description and not m.path.startswith("../")), None)
    if ev.root and own is not None:  # a folder's own manifest describes it better than its repository
        described = (own.description or "", own.path)
    said = words("unknown")
    if described is not None:
        text, manifest = described
        said = plain(text, limit=300) + (words("from_manifest", link(facts, manifest)) if manifest else "")
    told = words("description", said)
    if ev.root and described is not None and described[1] is None:  # the repository's, said as such
        told = words("folder_description", plain(ev.repo.full_name), said)
    rows = [f"- {label}{words('colon')}{value}" for label, value in _key_facts(facts, words)]
    if ev.root:  # a folder's own language, then what is the repository's as a whole
        rows[1:1] = ["", words("folder_repo_facts", plain(ev.repo.full_name))]
    readme = ev.files.get(facts.readme or "")
    summary = readme_summary(readme.text, path=readme.path) if readme is not None and readme.text else None
    notes = []
    if info is not None and info.renamed_from:
        notes.append(words("renamed", code(info.renamed_from), code(info.full_name)))
    if info is not None and info.archived:
        notes.append(words("archived"))
    if info is not None and info.fork:
        notes.append(words("is_fork"))
    return _blocks(
        [words("no_info")] if info is None and GET_REPO_INFO in ev.attempted else [],
        [told],
        [words("from_readme", link(facts, readme.path), inline(summary))] if readme and summary else [],
        rows,
        notes,
    )


def _key_facts(facts: Facts, words: Words) -> list[tuple[str, str]]:
    info = facts.evidence.info
    unknown = words("unknown")

    def number(value: int | None) -> str:
        return f"{value:,}" if value is not None else unknown

    topics = info.topics if info else None
    langs = facts.evidence.languages
    folder = facts.evidence.root and langs is not None and langs.bytes_by_language
    rows = [
        (
            words("folder_primary_language"),
            plain(max(langs.bytes_by_language.items(), key=lambda kv: (kv[1], kv[0]))[0]),
        )
        if folder and langs is not None
        else (words("primary_language"), plain(primary_language(facts) or unknown)),
        (words("stars"), number(info.stars if info else None)),
        (words("forks"), number(info.forks if info else None)),
        (words("open_issues"), number(info.open_issues if info else None)),
        (words("license"), _license_text(facts, words)),
        (words("default_branch"), code(info.default_branch) if info and info.default_branch else unknown),
        (words("created"), _iso_day(info.created_at if info else None, unknown)),
        (words("last_push"), _iso_day(info.pushed_at if info else None, unknown)),
        (
            words("topics"),
            unknown if topics is None else join_names([code(t) for t in topics], words) or words("none"),
        ),
    ]
    if info is not None and info.homepage:
        rows.append((words("homepage"), code(info.homepage)))
    return rows


def _tech_stack(facts: Facts, words: Words) -> list[str]:
    ev = facts.evidence
    tree_manifests = (p.manifest for p in facts.model.packages) if facts.model is not None else ()
    own = own_package_names(facts.manifests) | own_names_in_tree(tree_manifests)
    manifests = [
        words("manifest_line", link(facts, m.path), manifest_text(m, words, own)) for m in facts.manifests
    ]
    notable = notable_paths(facts)
    unread = [link(facts, p) for p, role in notable if role == "manifest" and p not in ev.files]
    none_found = not manifests and not unread and no_manifest_anywhere(facts)
    tooling = [link(facts, p) for p, role in notable if role in ("build", "container")]
    notable_deps = [
        code(name) + words("paren", words(f"category_{category}"))
        for name, category in notable_dependencies(facts.manifests)
        if not is_own(name, own)
    ]
    tests = facts.model.paths_with_role("tests") if facts.model is not None else None
    frameworks = test_frameworks(facts.manifests, test_paths=tests)
    return _blocks(
        [words("languages", _languages(ev, words))],
        [words("manifests"), *manifests] if manifests else [],
        [words("unread_manifests", join_names(unread, words))] if unread else [],
        [words("no_manifests_folder" if ev.root else "no_manifests")] if none_found else [],
        ecosystem_lines(facts, words),
        [words("test_frameworks", join_names([plain(f) for f in frameworks], words))] if frameworks else [],
        [words("notable", join_names(notable_deps, words))] if notable_deps else [],
        [words("tooling", join_names(tooling, words))] if tooling else [],
    )


_MAX_TOP_DIRS = 30


def _structure(facts: Facts, words: Words) -> list[str]:
    """The tree as the repository model counts it: files (vendored and generated apart from the
    project's own), tests by convention, packages, CI, then each top-level folder with its role."""
    tree, model = facts.evidence.tree, facts.model
    if tree is not None and tree.empty_repository:
        return [words("empty_repo")]
    if tree is None or model is None:
        return _listings(facts, words)
    cut = {folder.path: folder for folder in tree.top_level}  # a cut tree's recovered top level
    dir_lines = [
        words("top_dir", code(f"{top.name}/"), _top_files(top, cut, words), role_label(top.role, words))
        for top in model.top_level[:_MAX_TOP_DIRS]
    ]
    if len(model.top_level) > _MAX_TOP_DIRS:
        dir_lines.append(f"- …{words('more', len(model.top_level) - _MAX_TOP_DIRS)}")
    top_files = [code(p.rsplit("/", 1)[-1]) for p in model.top_files]
    notable = _notable_files(facts, words)
    ev = facts.evidence
    inside = tests_line(model, words) if model.tests.files or not ev.tests_outside else None
    if is_test_root(ev.root) and not model.tests.files:  # a test root's own run: all of it is tests
        inside = words("folder_is_tests", files_count(facts.test_files or 0, words))
    elif not model.tests.files and not ev.tests_outside and any(n for _p, n in ev.project_tests):
        kept = [link(facts, f"{p}/") + words("paren", files_count(n, words)) for p, n in ev.project_tests]
        inside = words("folder_project_tests", join_names(kept, words))
    elif not model.tests.files and not ev.tests_outside and ev.test_dirs_seen:
        inside = words(
            "folder_repo_tests", join_names([link(facts, f"{p}/") for p in ev.test_dirs_seen], words)
        )
    summary = [files_line(model, words), inside, packages_line(model, words)]
    kept = [
        link(facts, f"{p}/") + words("paren", files_count(n, words)) for p, n in facts.evidence.tests_outside
    ]
    summary += [words("folder_tests_elsewhere", join_names(kept, words))] if kept else []
    stated_cut = [words("report_tree_cut", len(tree.top_level), tree.recovered_requests)] if cut else []
    return _blocks(
        stated_cut,
        [f"- {line}" for line in (*summary, ci_line(model, words)) if line],
        dir_lines,
        [words("top_files", join_names(top_files, words))] if top_files else [],
        [words("notable_files", notable)] if notable else [],
        [words("truncated")] if tree.truncated and not tree.top_level else [],
    )


def _top_files(top: ModelFolder, cut: Mapping[str, CutFolder], words: Words) -> str:
    """A top-level folder's files; of a cut tree's folder, its recovered lower bound ("at least 2 files")."""
    folder = cut.get(top.name)
    if folder is None:
        return folder_files(top, words)
    files = files_count(max(top.files, folder.files_at_least), words)
    return files if folder.complete else words("at_least", files)


def _listings(facts: Facts, words: Words) -> list[str]:
    """Without a tree: what the folder listings show, or that nothing is known."""
    listings = facts.evidence.listings
    if "" not in listings:
        return [words("no_tree")]
    root = listings[""]
    out = [
        words(
            "root_only",
            join_names([code(e.name + ("/" if e.type == "dir" else "")) for e in root.entries], words)
            or words("none"),
        )
    ]
    for path, listing in sorted(listings.items()):
        if path:
            names = join_names([code(e.name) for e in listing.entries], words, cap=10) or words("none")
            out += ["", words("listing", code(f"{path}/"), names)]
    return out


def _notable_files(facts: Facts, words: Words) -> str:
    by_role: dict[str, list[str]] = {}
    for path, role in notable_paths(facts):
        by_role.setdefault(role, []).append(path)
    order = ("readme", "license", "manifest", "ci", "container", "docs", "build")
    parts = [
        f"{words(f'role_{role}')}{words('colon')}{join_names([link(facts, p) for p in by_role[role]], words, cap=8)}"
        for role in order
        if role in by_role
    ]
    return words("semi").join(parts)


def _diagram(facts: Facts, words: Words) -> list[str]:
    return diagram_block(tree_graph(facts, words), words)


def _development(facts: Facts, words: Words) -> list[str]:
    ev, act = facts.evidence, facts.activity
    if ev.commits is None:
        return [words("commits_failed") if GET_COMMITS in ev.attempted else words("not_examined")]
    if act is None or act.count == 0:
        return [words("no_commits")]
    scoped = [words("folder_commits", code(f"{ev.root}/")), ""] if ev.root else []  # filtered by its path
    out = [
        *scoped,
        f"- {words('last_commit', day(act.last) if act.last else words('unknown'))}",
        f"- {words('first_commit', day(act.first) if act.first else words('unknown'))}",
    ]
    span = act.span_days
    sample = words("sample", act.count)
    if span is not None:
        sample += words("same_day") if span < 1 else words("span", round(span))
    out.append(f"- {sample}")
    if act.per_week is not None:
        out.append(f"- {words('cadence', f'{act.per_week:.1f}')}")
    top = [plain(name or words("unknown")) + words("paren", count) for name, count in act.authors[:5]]
    out.append(f"- {words('authors', join_names(top, words, cap=5))}")
    if act.has_more:
        out.append(f"- {words('has_more')}")
    commits = ev.commits.commits[:5]
    out += ["", words("latest")]
    for commit in commits:
        who = plain(commit.author) if commit.author else words("unknown")
        out.append(
            f"- {_iso_day(commit.date, words('unknown'))} — {plain(commit.message, limit=100)} — {who}"
        )
    return out


def _strengths_section(facts: Facts, words: Words) -> list[str]:
    return [f"- {s}" for s in strengths(facts, words)] or [words("no_strengths")]


def _risks_section(facts: Facts, words: Words) -> list[str]:
    return [f"- {text}" for _kind, text in risks(facts, words)] or [words("no_risks")]


def _advice(facts: Facts, words: Words) -> list[str]:
    kinds = dict.fromkeys(kind for kind, _text in risks(facts, words))
    return [f"- {words(f'recommend_{kind}')}" for kind in kinds if words.has(f"recommend_{kind}")] or [
        words("no_recommendations")
    ]


def _languages(evidence: Evidence, words: Words) -> str:
    if evidence.root and evidence.languages is not None:  # the folder's own, then the repository's
        whole = evidence.repo_languages
        own = _shares(evidence.languages.bytes_by_language, words) or words("no_languages")
        if whole is not None and whole.bytes_by_language:
            own += words("paren", words("folder_repo_languages", _shares(whole.bytes_by_language, words)))
        return own
    if evidence.languages is None:
        primary = evidence.info.language if evidence.info else None
        said = f"{words('primary_language')}{words('colon')}{plain(primary)}" if primary else None
        return words("unknown") + words("paren", said) if said else words("unknown")
    return _shares(evidence.languages.bytes_by_language, words) or words("no_languages")


def _shares(counts: Mapping[str, int], words: Words) -> str:
    """Each language's share of the bytes, largest first ("" when there are none)."""
    total = sum(counts.values())
    if not total:
        return ""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return join_names([f"{plain(lang)} {100 * n / total:.1f}%" for lang, n in ranked], words, cap=10)


def primary_language(facts: Facts) -> str | None:
    ev = facts.evidence
    if ev.info is not None and ev.info.language:
        return ev.info.language
    if ev.languages is not None and ev.languages.bytes_by_language:
        return max(ev.languages.bytes_by_language.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return None


def _license_text(facts: Facts, words: Words) -> str:
    info, found = facts.evidence.info, project_license(facts).finding
    if found is not None:  # metadata, manifests and licence files together: "MIT OR Apache-2.0"
        return plain(found.expression)
    if info is not None and info.license:
        return plain(info.license)
    if facts.license_files:
        return join_names([link(facts, p) for p in facts.license_files], words)
    return words("none") if facts.license_files == () else words("unknown")


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


SECTIONS: tuple[Section, ...] = (
    Section(key="answer", render=answer, asked=True),
    Section(key="overview", render=_overview),
    Section(key="tech_stack", render=_tech_stack),
    Section(key="structure", render=_structure),
    Section(key="diagram", render=_diagram, model_writes=False),
    Section(key="activity", render=_development),
    Section(key="strengths", render=_strengths_section),
    Section(key="risks", render=_risks_section),
    Section(key="recommendations", render=_advice),
)


def section_titles(language: Language, *, asked: bool = False, by_model: bool = False) -> tuple[str, ...]:
    """The level-2 headings of a report, in order; ``asked``: of a report that answers a question;
    ``by_model``: only those the model is asked to write."""
    return tuple(
        s.title(language) for s in SECTIONS if (asked or not s.asked) and (s.model_writes or not by_model)
    )


DIAGRAM = next(section for section in SECTIONS if section.key == "diagram")
"""The section the app appends to a model's report (:mod:`agent_core.agent.diagram_call`)."""
