"""The paths a plan is chosen from, derived from a tree in one pass: linear in its entries.

:func:`tree_paths` keeps the files (in the tree's order: whoever picks from them ranks its picks by a
key ending in the path, and the question's reads sort them), the top-level folders and the notable
files by role (:func:`~agent_core.tools.observe.notable_role`). The planner derives it once per tree
(:class:`~agent_core.agent.planner.OfflinePlanner`). Whether the tools would accept a path
(:func:`usable`) is asked only of the few paths that may become a call, not of every file: on a
100,000-entry tree the whole derivation is a few tens of milliseconds of CPU.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agent_core.errors import InvalidArgumentError
from agent_core.repo import MAX_PATH_CHARS, normalize_path
from agent_core.tools.observe import notable_role

# An ASCII path normalize_path keeps as it is: segments of printable characters other than a backslash,
# ?, # , % and "/", none of them "." or "..", the first no drive ("C:") and no home ("~", "~user"); or "" (the root).
CI_DEPTH = 2  # notable_role names no file deeper than .github/workflows/<file>: deeper paths are skipped
SEGMENT = r"(?!\.\.?(?:/|\Z))[^\x00-\x1f\x7f\\?#%/]+"
PLAIN_PATH = re.compile(rf"(?:(?![A-Za-z]:)(?!~[A-Za-z0-9._-]*(?:/|\Z)){SEGMENT}(?:/{SEGMENT})*)?")


@dataclass(frozen=True, kw_only=True)
class TreePaths:
    """What the plan is chosen from: every file (in the tree's order; check :func:`usable` before
    calling a tool on one), the top-level folders, and the usable notable files
    (:func:`~agent_core.tools.observe.notable_role`) by role."""

    files: tuple[str, ...]
    top_dirs: frozenset[str]
    notable: Mapping[str, tuple[str, ...]]

    def role(self, role: str) -> tuple[str, ...]:
        return self.notable.get(role, ())


def tree_paths(entries: Iterable[tuple[str, str]]) -> TreePaths:
    """One pass over a tree's or a listing's entries: linear in their number."""
    files: list[str] = []
    top_dirs: set[str] = set()
    for path, kind in entries:
        if kind == "file":
            files.append(path)
        elif kind == "dir" and "/" not in path:
            top_dirs.add(path)
    notable: dict[str, list[str]] = {}
    for path in files:
        role = notable_role(path) if path.count("/") <= CI_DEPTH else None
        if role is not None and usable(path):
            notable.setdefault(role, []).append(path)
    return TreePaths(
        files=tuple(files),
        top_dirs=frozenset(top_dirs),
        notable={role: tuple(found) for role, found in notable.items()},
    )


def usable(path: str) -> bool:
    """Whether the tools would accept ``path`` as it is (a hostile name must not become a refused call):
    :func:`~agent_core.repo.normalize_path` returns it unchanged. A plain ASCII path is decided by one
    regular expression (NFKC leaves ASCII as it is); any other goes through ``normalize_path`` itself."""
    if path.isascii() and len(path) <= MAX_PATH_CHARS:
        return PLAIN_PATH.fullmatch(path) is not None
    try:
        return normalize_path(path) == path
    except InvalidArgumentError:
        return False
