"""Facts about a local git repository that GitHub would report: languages, branch, dates, license,
description, size. Free functions over a :class:`~agent_core.sources.gitcli.GitCli` (read-only)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from agent_core.offload import off_loop
from agent_core.sources.content import decode_text
from agent_core.sources.gitcli import GitCli, LsTreeEntry, entry_type, ls_tree_records, parse_ls_tree
from agent_core.sources.languages import tree_languages
from agent_core.sources.licenses import (
    LICENSE_FILES,
    LICENSE_SAMPLE,
    MAX_LICENSE_FILES,
    combine,
    detect_license,
    is_license_file,
)
from agent_core.sources.models import FileTree, TreeEntry

T = TypeVar("T")

_DEFAULT_DESCRIPTION = "Unnamed repository;"  # what `git init` writes into `description`


class CommitTrees:
    """A commit's whole tree and its bytes per language, each made once however many calls ask, at the
    same time or later: one ``git ls-tree -r -t`` parsed once (a 100,000-entry tree is seconds of CPU),
    from which the languages are counted through the tree's repository model (the one the trace's
    summary, the planner and the report read: :func:`~agent_core.repomodel.model_of`). A source lives
    for one run, and the run holds the tree anyway. Work that failed or was cancelled is done again."""

    def __init__(self) -> None:
        self._trees: dict[str, asyncio.Future[FileTree]] = {}
        self._counts: dict[str, asyncio.Future[dict[str, int]]] = {}

    async def tree(self, cli: GitCli, commit: str) -> FileTree:
        """The whole tree of ``commit``."""
        return await _shared(self._trees, commit, lambda: root_tree(cli, commit))

    async def languages(self, cli: GitCli, commit: str) -> dict[str, int]:
        """Bytes per language at ``commit``, largest first (:func:`languages`)."""
        counts: dict[str, int] = await _shared(self._counts, commit, lambda: languages(self, cli, commit))
        return dict(counts)  # the caller's own copy


def _shared(
    made: dict[str, asyncio.Future[T]], key: str, make: Callable[[], Coroutine[Any, Any, T]]
) -> asyncio.Future[T]:
    """The future of ``make()`` for ``key``: the one already started, unless it failed or was cancelled."""
    found = made.get(key)
    if found is None or (found.done() and (found.cancelled() or found.exception())):
        found = made[key] = asyncio.ensure_future(make())
    return asyncio.shield(found)


def file_tree(out: bytes, commit: str, path: str) -> FileTree:
    """The tree of ``git ls-tree -r -t -l -z`` output under ``path`` (CPU seconds for 100,000 records)."""
    entries = tuple(
        TreeEntry(
            path=f"{path}/{name}" if path else name,
            type=entry_type(mode, kind),
            size=None if size == "-" else int(size),
        )
        for mode, kind, _oid, size, name in ls_tree_records(out)
    )
    return FileTree(ref=commit, path=path, entries=entries)


async def root_tree(cli: GitCli, commit: str) -> FileTree:
    out = await cli.output(["ls-tree", "-r", "-t", "-l", "-z", commit])
    # CPU seconds for a 100,000-entry tree: in a worker thread, so other pages' requests still answer.
    return await off_loop(file_tree, out, commit, "")


ATTRIBUTES_BYTES = 256 * 1024  # a root .gitattributes read up to this (its parser caps lines, too)


async def languages(trees: CommitTrees, cli: GitCli, commit: str) -> dict[str, int]:
    """Bytes per language of the files of ``commit``'s tree (:func:`tree_languages`), with the root
    ``.gitattributes``'s Linguist overrides when there is one (as GitHub counts them)."""
    tree = await trees.tree(cli, commit)
    attributes = (
        await root_attributes(cli, commit) if any(e.path == ".gitattributes" for e in tree.entries) else None
    )
    return await off_loop(partial(tree_languages, gitattributes=attributes), tree)


async def root_attributes(cli: GitCli, commit: str) -> str | None:
    """The first :data:`ATTRIBUTES_BYTES` of ``commit``'s root ``.gitattributes`` (None: not a blob)."""
    found = await cli.run(["rev-parse", "--verify", "--quiet", f"{commit}:.gitattributes"])
    oid = found.stdout.decode("ascii", errors="replace").strip()
    if found.returncode != 0 or not oid:
        return None
    blob = (await cli.blobs([oid], max_bytes=ATTRIBUTES_BYTES)).get(oid)
    return blob.data.decode("utf-8", errors="replace") if blob is not None else None


async def current_branch(cli: GitCli) -> str | None:
    result = await cli.run(["symbolic-ref", "--quiet", "--short", "HEAD"])
    if result.returncode == 1:
        return None  # detached HEAD
    if result.returncode != 0:
        raise cli.failure(["symbolic-ref"], result)
    return result.stdout.decode("utf-8", errors="replace").strip() or None


async def dates(cli: GitCli, commit: str) -> tuple[str | None, str | None]:
    """(oldest root commit, tip commit) committer dates."""
    fmt = "--format=%ct"
    tip = await cli.output(["log", "-1", "--no-show-signature", fmt, commit, "--"])
    roots = await cli.output(["log", "--no-show-signature", "--max-parents=0", fmt, commit, "--"])
    first = min((int(t) for t in roots.split()), default=None)
    last = int(tip.strip()) if tip.strip() else None
    return utc(first), utc(last)


async def license_of(cli: GitCli, commit: str) -> str | None:
    """The licence the root's licence files hold (LICENSE, LICENSE-MIT, LICENSE-APACHE, COPYING...),
    as one SPDX expression: "MIT OR Apache-2.0" for a project offered under either."""
    entries = parse_ls_tree(await cli.output(["ls-tree", "-z", "-l", commit]))
    files = sorted((e for e in entries if e.type == "file" and is_license_file(e.path)), key=_license_rank)
    files = files[:MAX_LICENSE_FILES]
    if not files:
        return None
    blobs = await cli.blobs([e.oid for e in files], max_bytes=LICENSE_SAMPLE)
    found = combine((e.path, detect_license(decode_text(blobs[e.oid].data))) for e in files)
    return found.expression if found is not None else None


def _license_rank(entry: LsTreeEntry) -> tuple[int, str]:
    name = entry.path.lower()
    return (LICENSE_FILES.index(name) if name in LICENSE_FILES else len(LICENSE_FILES), name)


async def description(git_dir: Path) -> str | None:
    """git's ``description`` file, unless missing, a symlink or the placeholder ``git init`` writes."""
    return await asyncio.to_thread(_read_description, git_dir / "description")


async def size_kb(cli: GitCli) -> int | None:
    out = await cli.output(["count-objects", "-v"])
    sizes = dict(line.split(": ", 1) for line in out.decode("ascii", errors="replace").splitlines())
    return int(sizes.get("size", "0")) + int(sizes.get("size-pack", "0"))


def utc(epoch: int | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_from_iso(value: str) -> str | None:
    try:
        return utc(int(datetime.fromisoformat(value).timestamp()))
    except ValueError:
        return None


def _read_description(path: Path) -> str | None:
    """git's ``description`` file unless missing, a symlink or the placeholder ``git init`` writes."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with path.open("rb") as handle:
            text = handle.read(1024).decode("utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text or text.startswith(_DEFAULT_DESCRIPTION):
        return None
    return text
