"""A scoped run's evidence seen from its folder: what a ``/tree/<ref>/<path>`` URL makes the report about.

The source gives the folder's tree with paths from the repository root (so every tool call, link and
permalink stays exact). The report, the diagram and the claim check describe the folder as the project:
:func:`reroot` keeps the tree, the files and the listings inside the folder, with paths relative to it,
and records the folder in :attr:`~agent_core.report.evidence.Evidence.root` so links lead back to it.
The repository's CI files seen in its root listings run for the folder too: kept as ``../`` paths.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent_core.repo import RunScope
from agent_core.repomodel.memo import derived
from agent_core.report.folder_tests import (
    TEST_ROOTS,
    ancestors,
    in_test_root,
    is_test_dir,
    kept_for,
    project_chain,
    source_set_mirror,
)
from agent_core.report.inert import code, plain
from agent_core.report.outline import definitions, summary
from agent_core.sources.languages import tree_languages
from agent_core.sources.licenses import is_license_file
from agent_core.sources.models import DirListing, FileContent, FileTree, Languages, TreeEntry
from agent_core.tools.observe import notable_role
from agent_core.words import Words

if TYPE_CHECKING:
    from agent_core.report.evidence import Evidence
    from agent_core.report.manifests import Manifest
    from agent_core.tools.results import ToolResult


def reroot(evidence: Evidence) -> Evidence:
    """``evidence`` relative to its tree's folder (unchanged when the tree is the repository's): the
    folder's own languages (counted from its tree, the repository's kept beside them), what the listings
    up its path and its tests kept elsewhere show (:func:`outside_of`)."""
    tree = evidence.tree
    if tree is None or not tree.path:
        return evidence
    base = f"{tree.path}/"
    around = evidence.languages.bytes_by_language if evidence.languages is not None else None
    own = derived(tree, "folder_languages", lambda: tree_languages(tree, around=around))  # once per tree
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
        languages=Languages(bytes_by_language=own) if not tree.truncated else None,  # a cut tree: unknown
        repo_languages=evidence.languages,
        **outside_of(evidence, tree.path),
    )


def outside_of(evidence: Evidence, folder: str) -> dict[str, Any]:
    """What a folder's run knows outside the folder, as paths from it (``../../LICENSE``): whether the
    root was listed (``root_known``: the repository's licence and CI are then known), the root's licence
    files, the tests kept for the folder under a test root (folder and file count), and every path the
    listings and those trees show (``outside``: what the claim check may find there)."""
    listed = [v for k, v in evidence.listings.items() if not k.startswith(f"{folder}/") and k != folder]
    root = evidence.listings.get("")
    above_paths = ancestors(folder)
    base = f"{folder}/"
    own_manifest = any(  # a manifest read at the folder's top: it is a project of its own
        p.startswith(base) and "/" not in p[len(base) :] and notable_role(p[len(base) :]) == "manifest"
        for p in evidence.files
    )
    owners = project_chain(folder, own_manifest, evidence.listings.get)
    subtrees = {p: t for p, t in evidence.subtrees.items() if p != folder and not p.startswith(f"{folder}/")}
    matched = set(kept_for(owners, [p for p in subtrees if in_test_root(p, folder)], evidence.listings.get))
    tests = [(path, _files(sub, path)) for path, sub in sorted(subtrees.items()) if path in matched]
    mirror = source_set_mirror(folder)
    project = [  # a test root up its path, fetched whole: the tests of the project the folder belongs to
        (path, _files(sub, path))
        for path, sub in sorted(subtrees.items())
        if path.rpartition("/")[2].lower() in TEST_ROOTS and path.rpartition("/")[0] in above_paths
    ]
    if mirror is not None and mirror[0] in subtrees:  # Maven/Gradle: src/main/x ↔ src/test/x
        inside = _files(subtrees[mirror[0]], mirror[1])
        if inside:
            tests.append((mirror[1], inside))
        else:
            project.append((mirror[0], _files(subtrees[mirror[0]], mirror[0])))
    known = [e.path for listing in listed for e in listing.entries]
    known += [e.path for path, sub in subtrees.items() for e in sub.entries]
    above = [evidence.listings.get(p) for p in above_paths]
    return {
        "ancestors_listed": all(listing is not None and not listing.truncated for listing in above),
        "parent_manifests": tuple(
            posixpath.relpath(e.path, folder)
            for listing in above
            if listing is not None
            for e in listing.entries
            if e.type == "file" and notable_role(e.name) == "manifest"
        ),
        "root_known": root is not None
        and not root.truncated
        and all(evidence.listings.get(p) is not None for p in ci_folders(root)),
        "license_outside": tuple(
            posixpath.relpath(e.path, folder)
            for e in (root.entries if root is not None else ())
            if e.type == "file" and is_license_file(e.path)
        ),
        "tests_outside": tuple((posixpath.relpath(p, folder), n) for p, n in tests),
        "test_dirs_seen": tuple(  # the repository's test folders the listings up its path show
            posixpath.relpath(e.path, folder)
            for listing in above
            if listing is not None
            for e in listing.entries
            if e.type == "dir" and is_test_dir(e.name) and not folder.startswith(f"{e.path}/")
        )[:4],
        "project_tests": tuple((posixpath.relpath(p, folder), n) for p, n in project),
        "outside": tuple(dict.fromkeys(_from(folder, p) for p in known[:_MAX_OUTSIDE])),
    }


_MAX_OUTSIDE = 50_000  # paths kept of what a folder's run saw outside it (a test root may be large)


def _from(folder: str, path: str) -> str:
    """``posixpath.relpath(path, folder)`` for two normalised repository paths, without its cost (this
    runs on every path a folder's run saw outside it)."""
    if not folder:
        return path
    ups, rest = folder.split("/"), path.split("/")
    same = 0
    while same < min(len(ups), len(rest)) and ups[same] == rest[same]:
        same += 1
    return "/".join([".."] * (len(ups) - same) + rest[same:]) or "."


def _files(tree: FileTree, under: str) -> int:
    """The files of ``tree`` under the folder ``under``."""
    base = f"{under}/"
    return sum(1 for e in tree.entries if e.type == "file" and e.path.startswith(base))


def ci_folders(root: DirListing) -> list[str]:
    """The folders of a root listing whose files are CI configuration (``.github/workflows``, ``.ci``,
    ``.circleci``, ``.buildkite``...: what :func:`notable_role` calls CI one level down), at most 4."""
    found = [
        ".github/workflows" if e.name == ".github" else e.path
        for e in root.entries
        if e.type == "dir" and (e.name == ".github" or notable_role(f"{e.path}/ci.yml") == "ci")
    ]
    return found[:4]


def _ci_outside(evidence: Evidence, folder: str) -> tuple[str, ...]:
    """The CI files the repository's root and CI folders' listings show, as paths from ``folder``."""
    root = evidence.listings.get("")
    keys = ["", *(ci_folders(root) if root is not None else [])]
    listings = [evidence.listings.get(k) for k in keys]
    return tuple(
        posixpath.relpath(e.path, folder)
        for listing in listings
        if listing is not None
        for e in listing.entries
        if e.type == "file" and notable_role(e.path) == "ci"
    )


def license_files_of(
    licenses: tuple[str, ...], evidence: Evidence, root_complete: bool
) -> tuple[str, ...] | None:
    """The licence files at the top (of a scoped run: the folder's and the repository root's, from the
    folder); () only when the top, and for a folder the repository's root, were fully listed."""
    if not evidence.root:
        return licenses if licenses or root_complete else None
    found = licenses + evidence.license_outside
    return found if found or evidence.root_known else None


def manifest_scope(manifests: Sequence[Manifest], evidence: Evidence) -> str | None:
    """Whose manifests a scoped run read: "folder" (its own), "parent" (only the nearest one up its
    path, kept as ``../go.mod``), "none" (the folders up its path were listed: none has one), None
    (unknown, or a whole repository's run). Of a folder with none of its own, "no dependency manifest"
    is true only when this is "none"."""
    if not evidence.root:
        return None
    read = [m.path for m in manifests] + [
        p for p in evidence.files if notable_role(p.rpartition("/")[2]) == "manifest"
    ]  # parsed or not: a manifest read is the folder's or its parent's
    if any(not p.startswith("../") for p in read):
        return "folder"
    if read:
        return "parent"
    return "none" if evidence.ancestors_listed and not evidence.parent_manifests else None


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
    a scoped run's folder (outside it: ``../../.github/workflows/ci.yml``, what the run saw there,
    :attr:`~agent_core.report.evidence.Evidence.outside`); the scope's ref may hold slashes."""
    ref = evidence.tree.ref if evidence.root and evidence.tree is not None else None
    rest = "/".join(after)
    path = rest[len(ref) + 1 :] if ref and rest.startswith(f"{ref}/") else "/".join(after[1:])
    path = posixpath.normpath(path) if path else path
    root = evidence.root
    if root and path != root and not path.startswith(f"{root}/"):  # outside the folder: "../../LICENSE"
        return posixpath.relpath(path, root)
    return in_scope(path, evidence)


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
