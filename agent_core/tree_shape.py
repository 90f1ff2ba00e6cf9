"""A file tree's shape as a typed value the trace carries: :class:`TreeSummary` on ``ToolCallFinished``.

Consumers read structure, never display text: the page's and the terminal's tree lines are rendered
from this value (counts from the repository model, :func:`agent_core.repomodel.tree_summary`), not
parsed back out of the observation's cut JSON preview. A ground-floor value beside the events; a trace
recorded before it existed has ``tree=None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class TreeFolder:
    """A top-level folder: its files, the project's own among them, the role most of them have."""

    name: str
    files: int
    own_files: int
    role: str


@dataclass(frozen=True, kw_only=True)
class TreeSummary:
    """What a ``get_file_tree`` result holds. ``truncated``: the server cut the tree, so every count is
    a lower bound. Pairs are (path or label or role, files)."""

    files: int
    dirs: int
    own_files: int
    truncated: bool = False
    vendored_files: int = 0
    vendored: tuple[tuple[str, int], ...] = ()  # the vendored roots
    generated_files: int = 0
    tests: int = 0
    test_conventions: tuple[tuple[str, int], ...] = ()  # ("*_test.go", 1013), most first
    test_packages: int = 0
    roles: tuple[tuple[str, int], ...] = ()  # files per role
    top_level: tuple[TreeFolder, ...] = ()
    top_files: int = 0  # files at the top level


def tree_summary_from_dict(data: Mapping[str, Any]) -> TreeSummary:
    """Inverse of ``dataclasses.asdict`` for a :class:`TreeSummary` (JSON lists back to tuples);
    unknown keys are ignored."""
    pairs = ("vendored", "test_conventions", "roles")
    values: dict[str, Any] = {
        key: value for key, value in data.items() if key in TreeSummary.__dataclass_fields__
    }
    for key in pairs:
        values[key] = tuple((str(name), int(n)) for name, n in values.get(key, ()))
    values["top_level"] = tuple(
        TreeFolder(**{k: v for k, v in folder.items() if k in TreeFolder.__dataclass_fields__})
        for folder in values.get("top_level", ())
    )
    return TreeSummary(**values)
