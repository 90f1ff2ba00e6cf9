"""What a tool result holds, as a typed value the trace carries: ``ToolCallFinished.shape``.

Consumers read structure, never display text: the terminal's one-line results (and anything else that
wants a file's lines or a listing's size) read these values, never the observation's cut JSON preview.
One value per tool besides the tree (:mod:`agent_core.tree_shape`), told apart by their ``shape`` tag. A
ground-floor value beside the events; a trace recorded before it existed has ``shape=None``, as has a
failed call (its ``error`` and ``cause`` say why).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, kw_only=True)
class FileShape:
    """A ``read_file`` result: which lines of how many were shown, and whether the page was cut."""

    shape: Literal["file"] = "file"
    path: str
    content: str  # file, binary, symlink, submodule, too_large
    size: int  # bytes of the whole file
    start_line: int | None = None
    end_line: int | None = None
    total_lines: int | None = None
    cut: bool = False  # the page was cut: ``next_line`` continues it
    next_line: int | None = None


@dataclass(frozen=True, kw_only=True)
class ListingShape:
    """A ``list_directory`` result."""

    shape: Literal["listing"] = "listing"
    path: str  # "" for the root
    files: int
    dirs: int
    other: int = 0  # symlinks, submodules
    cut: bool = False  # GitHub stops a listing at 1,000 entries


@dataclass(frozen=True, kw_only=True)
class InfoShape:
    """A ``get_repo_info`` result: the few values a trace line names."""

    shape: Literal["info"] = "info"
    full_name: str
    default_branch: str | None = None
    language: str | None = None
    license: str | None = None
    stars: int | None = None
    archived: bool = False
    renamed_from: str | None = None


@dataclass(frozen=True, kw_only=True)
class CommitsShape:
    """A ``get_commits`` result."""

    shape: Literal["commits"] = "commits"
    commits: int
    authors: int
    newest: str | None = None  # ISO 8601 date of the newest commit
    more: bool = False
    empty_repository: bool = False


@dataclass(frozen=True, kw_only=True)
class LanguagesShape:
    """A ``get_languages`` result: (language, percent of bytes), most first."""

    shape: Literal["languages"] = "languages"
    languages: tuple[tuple[str, float], ...] = ()


ResultShape = FileShape | ListingShape | InfoShape | CommitsShape | LanguagesShape

SHAPES: Mapping[str, type[ResultShape]] = {
    "file": FileShape,
    "listing": ListingShape,
    "info": InfoShape,
    "commits": CommitsShape,
    "languages": LanguagesShape,
}


def result_shape_from_dict(data: Mapping[str, Any]) -> ResultShape | None:
    """Inverse of ``dataclasses.asdict`` for a :data:`ResultShape`; an unknown tag gives None (a newer
    trace read by older code), unknown keys are ignored."""
    cls = SHAPES.get(str(data.get("shape")))
    if cls is None:
        return None
    values = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
    if cls is LanguagesShape:
        values["languages"] = tuple((str(name), float(pct)) for name, pct in values.get("languages", ()))
    return cls(**values)
