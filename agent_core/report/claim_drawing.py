"""A tree drawn in a report's listing block (``├── gson/`` then ``│   ├── metrics/``): each branch names
a path made of the branches above it, and that whole path is the claim.

The real 1.5B drew gson's ``metrics/`` and ``proto/`` inside ``gson/``; each line's name alone exists
somewhere, so the line-by-line check (:mod:`~agent_core.report.claim_code`) verified them all. Here a
branch's path is its parents' joined with its name (subject ``tree``, judged by
:func:`~agent_core.report.verdicts.path`). A first line that is one folder alone is the drawing's root,
named as the writer likes, and left out of the paths.

One pass per line, no pattern that backtracks: the branch is found by a scan, and its depth is its
column over the drawing's indent (the first branch's column past the left edge).
"""

from __future__ import annotations

import re

from agent_core.report.claim_names import Found

_BRANCHES = ("├", "└", "┣", "┗", "|--", "`--", "+--")
_LEAD = frozenset("│|┃ \t\u00a0")
_DASHES = "─━-"
_MAX_DEPTH = 32
_NAME = re.compile(r"[\w.@+-][\w.@+/-]{0,200}")  # a file's or folder's name as drawn (no glob, no "…")


class TreeDrawing:
    """The branches seen so far of one fenced block, fed line by line."""

    def __init__(self) -> None:
        self._stack: list[str] = []
        self._unit = 0  # columns per level, from the first indented branch
        self._lines = 0

    def feed(self, line: str, base: int) -> list[Found] | None:
        """The path claim of a branch line (``[]`` for a branch that names no path, ``...``), or None for
        a line that is no branch (the caller reads it as any other line of the block)."""
        self._lines += 1
        column = _branch_column(line)
        if column is None:
            self._stack = []
            return None
        level = self._level(column)
        start = column
        while start < len(line) and (line[start] in _DASHES or line[start] in "├└┣┗|`+ \t"):
            start += 1
        end = start
        while end < len(line) and not line[end].isspace() and line[end] not in "#←<(":
            end += 1
        name = line[start:end].rstrip(",;:")
        self._stack = self._stack[:level]
        if not _NAME.fullmatch(name) or name.startswith(".."):
            self._stack.append("\0")  # a branch that names no path: its children are not judged
            return []
        self._stack.append(name.strip("/"))
        if "\0" in self._stack or level >= _MAX_DEPTH:
            return []
        full = "/".join(self._stack)
        return [
            Found(kind="path", subject="tree", value=full, start=base + start, end=base + start + len(name))
        ]

    def _level(self, column: int) -> int:
        if column == 0:
            return 0
        if self._unit == 0:
            self._unit = column
        return max(1, round(column / self._unit))


def _branch_column(line: str) -> int | None:
    """Where a branch (``├──``, ``└──``, ``|--``) begins, when all before it is the drawing's lead."""
    for at, char in enumerate(line):
        if line.startswith(_BRANCHES, at):
            return at
        if char not in _LEAD:
            return None
    return None
