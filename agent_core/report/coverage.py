"""The coverage ledger: how much of each repository a run read, against the project's own files.

:func:`coverage_of` folds the run's observations (files read, folders listed) with the repository model
(:func:`~agent_core.report.facts.repo_model`: the project's own files and bytes, neither vendored nor
generated, and the top-level folders) into a :class:`~agent_core.ledger.Coverage`, carried on
``RunStats.coverage``. :func:`coverage_line` words it, in English or Chinese, for the report's appendix
(the app's words, outside any model's Markdown), the page's stats and the CLI::

    Read 8 of 4,134 of the project's own files (61 KB of 12.3 MB); listed 3 folders;
    nothing read in: `cmd/`, `internal/`
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.ledger import Coverage
from agent_core.repo import RepoRef
from agent_core.report.facts import gather, repo_model
from agent_core.report.inert import code
from agent_core.tools.results import ToolResult
from agent_core.words import Language, words_for

_SHOWN = 8  # unvisited folders named in the line; the rest are counted
# the caps of the repository model's inputs that the line names (repomodel.attributes)
_LIMITS = frozenset(
    {
        "coverage_gitattributes_lines_capped",
        "coverage_gitattributes_pattern_too_long",
        "coverage_gitattributes_too_complex",
    }
)


def coverage_of(repo: RepoRef, results: Sequence[ToolResult]) -> Coverage:
    """What the results read of ``repo``, against its repository model (when its tree was read)."""
    evidence = gather(repo, results, words_for("en"))
    files = evidence.files
    bytes_read = sum(len(c.text.encode("utf-8", "replace")) for c in files.values() if c.text is not None)
    model = repo_model(evidence)
    if model is None:
        return Coverage(
            repo=repo.full_name,
            files_read=len(files),
            bytes_read=bytes_read,
            own_files=None,
            own_bytes=None,
            folders_listed=len(evidence.listings),
        )
    base = f"{model.root}/" if model.root else ""
    looked = {p.removeprefix(base).split("/", 1)[0] for p in [*files, *evidence.listings] if "/" in p}
    looked |= {p.removeprefix(base) for p in evidence.listings if p}
    tops = [t.name for t in model.top_level]
    return Coverage(
        repo=repo.full_name,
        files_read=len(files),
        bytes_read=bytes_read,
        own_files=model.own_files,
        own_bytes=model.own_bytes,
        folders_listed=len(evidence.listings),
        top_folders=len(tops),
        unvisited=tuple(t for t in tops if t not in looked),
        truncated=model.truncated,
        limits=model.limits,
    )


def run_coverage(scope: Sequence[RepoRef], results: Sequence[ToolResult]) -> tuple[Coverage, ...]:
    """The ledger of every repository in scope."""
    return tuple(coverage_of(repo, results) for repo in scope)


def coverage_line(coverage: Coverage, language: Language = "en", *, several: bool = False) -> str:
    """One sentence (Markdown, folder names as code spans) for the report, the page and the CLI."""
    w = words_for(language)
    size = human_bytes(coverage.bytes_read)
    if coverage.own_files is None:
        head = w("coverage_read_only", read=coverage.files_read, bytes_read=size)
    else:
        template = "coverage_read_bound" if coverage.truncated else "coverage_read"
        head = w(
            template,
            read=coverage.files_read,
            own=coverage.own_files,
            bytes_read=size,
            own_bytes=human_bytes(coverage.own_bytes or 0),
        )
    listed = {0: "coverage_listed_none", 1: "coverage_listed_one"}.get(
        coverage.folders_listed, "coverage_listed"
    )
    parts = [head, w(listed, count=coverage.folders_listed)]
    if coverage.own_files is not None and coverage.top_folders:
        names = w("coverage_comma").join(code(f"{n}/") for n in coverage.unvisited[:_SHOWN])
        more = len(coverage.unvisited) - _SHOWN
        if more > 0:
            names = w("coverage_more", names=names, more=more)
        parts.append(w("coverage_never", names=names) if coverage.unvisited else w("coverage_all"))
    parts += [w(f"coverage_{limit}") for limit in coverage.limits if f"coverage_{limit}" in _LIMITS]
    where = w("coverage_repo", repo=code(coverage.repo)) if several else ""
    return where + w("coverage_sep").join(parts) + w("coverage_end")


def coverage_lines(ledger: Sequence[Coverage], language: Language = "en") -> list[str]:
    return [coverage_line(c, language, several=len(ledger) > 1) for c in ledger]


def human_bytes(count: int) -> str:
    """``61 KB``, ``12.3 MB``, ``420 MB`` (powers of 1,000, as file browsers show sizes)."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if count >= scale:
            value = count / scale
            shown = f"{value:.1f}".removesuffix(".0") if value < 100 else f"{value:,.0f}"
            return f"{shown} {unit}"
    return f"{count:,} B"
