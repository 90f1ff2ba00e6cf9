"""What a cut tree still tells, and the few listings that recover its top level.

GitHub stops a recursive trees request at 100,000 entries or about 7 MB and answers
``"truncated": true`` with the entries it got: in git's order (depth first, by path), so the top-level
folders after the cut are missing altogether and the one it stopped in is partly listed. One
non-recursive request of the tree's own sha names every top-level entry; one more per folder that the
cut reached gives its direct children. :func:`recover_top_level` makes those requests (at most
:data:`MAX_RECOVERY_LISTINGS` folders) and returns what is known exactly: every top-level folder named,
a lower bound of files for each (a listed folder's direct children: files, and subfolders, which git
never stores empty), and which are only partly known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agent_core.cost import CallCost
from agent_core.sources.models import EntryType, TopFolder, TreeEntry

MAX_RECOVERY_LISTINGS = 30
"""Folders listed one by one after a cut. An unauthenticated client has 60 requests an hour: 30 keeps
the recovery under half of it, leaving the run its reads, and names the top level of real monorepos
(their cut folders number a handful; a root with more folders still has each one named)."""

TREE_TYPES: dict[str, EntryType] = {"blob": "file", "tree": "dir", "commit": "submodule"}

ListTree = Callable[[str], Awaitable[tuple[list[dict[str, Any]], CallCost]]]
"""A non-recursive listing of a tree by its sha: its items (GitHub's shape) and what the request cost."""


@dataclass(frozen=True, kw_only=True)
class Recovered:
    entries: tuple[TreeEntry, ...]  # the recursive entries, then the children the listings added
    top_level: tuple[TopFolder, ...]
    requests: int
    cost: CallCost


def entry_of(item: dict[str, Any], prefix: str = "") -> TreeEntry:
    return TreeEntry(
        path=prefix + str(item["path"]),
        type=TREE_TYPES.get(item.get("type", ""), "file"),
        size=item.get("size"),
    )


async def recover_top_level(
    seen: tuple[TreeEntry, ...], root_sha: str, list_tree: ListTree, *, prefix: str = ""
) -> Recovered:
    """The top level of a cut tree. ``seen``: the entries the recursive request returned (paths with
    ``prefix``, the folder the tree is of); ``root_sha``: that tree's sha."""
    top_items, cost = await list_tree(root_sha)
    requests = 1
    known = {entry.path for entry in seen}
    files_seen: Counter[str] = Counter()
    for entry in seen:
        head, sep, _ = entry.path.removeprefix(prefix).partition("/")
        if sep and entry.type != "dir":
            files_seen[head] += 1
    cut_in = seen[-1].path.removeprefix(prefix).split("/", 1)[0] if seen else None
    added = [entry_of(item, prefix) for item in top_items if prefix + str(item.get("path")) not in known]
    folders: list[TopFolder] = []
    for item in top_items:
        if item.get("type") != "tree":
            continue
        name = str(item["path"])
        seen_files = files_seen[name]
        if seen_files and name != cut_in:  # the cut came after the whole folder
            folders.append(TopFolder(path=prefix + name, files_at_least=seen_files, complete=True))
            continue
        if requests - 1 >= MAX_RECOVERY_LISTINGS:  # the root's listing is not a folder's
            folders.append(
                TopFolder(path=prefix + name, files_at_least=seen_files, complete=False, listed=False)
            )
            continue
        children, spent = await list_tree(str(item["sha"]))
        requests += 1
        cost = cost + spent
        direct = len(children)  # git stores no empty folder: each subfolder holds at least one file
        folders.append(TopFolder(path=prefix + name, files_at_least=max(seen_files, direct), complete=False))
        folder = f"{prefix}{name}/"
        added += [
            entry_of(child, folder) for child in children if f"{folder}{child.get('path')}" not in known
        ]
    return Recovered(entries=seen + tuple(added), top_level=tuple(folders), requests=requests, cost=cost)
