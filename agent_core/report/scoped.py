"""A scoped run's evidence seen from its folder: what a ``/tree/<ref>/<path>`` URL makes the report about.

The source gives the folder's tree with paths from the repository root (so every tool call, link and
permalink stays exact). The report, the diagram and the claim check describe the folder as the project:
:func:`reroot` keeps the tree, the files and the listings inside the folder, with paths relative to it,
and records the folder in :attr:`~agent_core.report.facts.Evidence.root` so links lead back to it.
The repository's CI files seen in its root listings run for the folder too: kept as ``../`` paths.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_core.repo import RunScope
from agent_core.report.inert import code, plain
from agent_core.report.outline import definitions, summary
from agent_core.sources.models import FileContent, TreeEntry
from agent_core.tools.observe import notable_role
from agent_core.words import Words

if TYPE_CHECKING:
    from agent_core.report.facts import Evidence
    from agent_core.tools.executor import ToolResult


def reroot(evidence: Evidence) -> Evidence:
    """``evidence`` relative to its tree's folder (unchanged when the tree is the repository's)."""
    tree = evidence.tree
    if tree is None or not tree.path:
        return evidence
    base = f"{tree.path}/"
    entries = tuple(
        TreeEntry(path=e.path.removeprefix(base), type=e.type, size=e.size)
        for e in tree.entries
        if e.path.startswith(base)
    )
    top = tuple(replace(f, path=f.path.removeprefix(base)) for f in tree.top_level if f.path.startswith(base))
    focus = tree.focus.removeprefix(base) if tree.focus else None
    return replace(
        evidence,
        tree=replace(tree, path="", entries=entries, top_level=top, focus=focus),
        files={  # a manifest read up the path stays, as "../package.json": context, not the folder's
            posixpath.relpath(k, tree.path): replace(v, path=posixpath.relpath(v.path, tree.path))
            for k, v in evidence.files.items()
        },
        listings={
            k.removeprefix(base): v
            for k, v in evidence.listings.items()
            if k.startswith(base) or k == tree.path
        },
        root=tree.path,
        ci_outside=_ci_outside(evidence, tree.path),
    )


def _ci_outside(evidence: Evidence, folder: str) -> tuple[str, ...]:
    """The CI files the repository's root and workflows listings show, as paths from ``folder``."""
    listings = [evidence.listings.get(k) for k in ("", ".github/workflows")]
    return tuple(
        posixpath.relpath(e.path, folder)
        for listing in listings
        if listing is not None
        for e in listing.entries
        if e.type == "file" and notable_role(e.path) == "ci"
    )


def whole_tree(evidence: Evidence) -> bool:
    """Whether the tree covers the whole repository, so a path missing from it is missing (a scoped
    run's tree is its folder's: a path outside it may well exist)."""
    return not evidence.root


def in_scope(path: str, evidence: Evidence) -> str:
    """A path from the repository root, relative to a scoped run's folder when it lies inside it."""
    root = evidence.root
    return path[len(root) + 1 :] if root and path.startswith(f"{root}/") else path


def link_path(after: list[str], evidence: Evidence) -> str:
    """The path a ``/blob/<ref>/<path>`` link names (``after``: the segments after ``blob``), relative to
    a scoped run's folder; the scope's ref may hold slashes."""
    ref = evidence.tree.ref if evidence.root and evidence.tree is not None else None
    rest = "/".join(after)
    path = rest[len(ref) + 1 :] if ref and rest.startswith(f"{ref}/") else "/".join(after[1:])
    return in_scope(posixpath.normpath(path) if path else path, evidence)


def file_lines(scope: RunScope, results: Sequence[ToolResult], words: Words) -> list[str]:
    """What the file a ``/blob/`` URL named shows (its size, its own summary line, what it defines), from
    its first page as read; nothing for a folder's scope or a file that was not read."""
    if scope.kind != "blob":
        return []
    read = next(
        (
            r.value
            for r in results
            if r.ok
            and isinstance(r.value, FileContent)
            and r.value.path == scope.path
            and f"{r.arguments.get('owner')}/{r.arguments.get('repo')}".lower() == scope.repo.lower()
        ),
        None,
    )
    if read is None:
        return []
    if read.text is None:
        return [words("file_not_text", code(scope.path), read.kind), ""]
    count = read.total_lines or 0
    lines = [
        words(
            "file_size",
            code(scope.path),
            words("lines_many" if count != 1 else "lines_one", count),
            read.size,
        )
    ]
    said = summary(scope.path, read.text)
    if said:
        lines.append(words("file_says", plain(said, limit=200)))
    names = definitions(scope.path, read.text)
    if names:
        lines.append(words("file_defines", ", ".join(code(n) for n in names)))
    return [" ".join(lines), ""]
