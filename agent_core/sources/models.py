"""Typed values that every repository source returns (GitHub over HTTP, or a local git repository).

The tools turn them into compact JSON observations for the model (``to_observation``); the offline
planner and the report writer read the typed fields directly. ``None`` always means *unknown*
(for example stars of a local repository): never guess a value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EntryType = Literal["file", "dir", "symlink", "submodule"]


@dataclass(frozen=True, kw_only=True)
class RepoInfo:
    full_name: str
    description: str | None
    default_branch: str | None
    html_url: str | None
    homepage: str | None = None
    language: str | None = None
    license: str | None = None  # SPDX id, e.g. "MIT"
    topics: tuple[str, ...] | None = None
    stars: int | None = None
    forks: int | None = None
    open_issues: int | None = None
    watchers: int | None = None
    size_kb: int | None = None
    archived: bool | None = None
    fork: bool | None = None
    created_at: str | None = None
    updated_at: str | None = None
    pushed_at: str | None = None
    renamed_from: str | None = None  # the name the user typed, when GitHub redirected

    def to_observation(self) -> dict[str, Any]:
        return _compact(self.__dict__)


@dataclass(frozen=True, kw_only=True)
class DirEntry:
    name: str
    path: str
    type: EntryType
    size: int | None = None  # bytes, files only
    target: str | None = None  # symlink target
    submodule_url: str | None = None


@dataclass(frozen=True, kw_only=True)
class DirListing:
    path: str  # "" for the root
    entries: tuple[DirEntry, ...]
    truncated: bool = False  # GitHub stops listings at 1,000 entries
    note: str | None = None

    def to_observation(self) -> dict[str, Any]:
        items = []
        for e in self.entries:
            item: dict[str, Any] = {"name": e.name, "type": e.type}
            if e.type == "file" and e.size is not None:
                item["size"] = e.size
            if e.target:
                item["target"] = e.target
            if e.submodule_url:
                item["submodule_url"] = e.submodule_url
            items.append(item)
        obs: dict[str, Any] = {"path": self.path or "/", "count": len(items), "entries": items}
        if self.truncated:
            obs["truncated"] = True
        if self.note:
            obs["note"] = self.note
        return obs


@dataclass(frozen=True, kw_only=True)
class FileContent:
    """A file (or a page of it). ``text`` is None for binary files, symlinks and submodules."""

    path: str
    kind: Literal["file", "binary", "symlink", "submodule", "too_large"]
    size: int  # bytes of the whole file
    text: str | None = None
    start_line: int | None = None  # 1-based, inclusive, of ``text`` within the file
    end_line: int | None = None
    total_lines: int | None = None
    truncated: bool = False
    omitted_chars: int = 0  # characters of the requested range left out by the cut
    next_offset: int | None = None  # where to continue (a line number for ``start_line``)
    target: str | None = None
    submodule_url: str | None = None
    sha: str | None = None
    ref: str | None = None
    note: str | None = None
    # For parsers, never for the model: a manifest's text from its first line, whatever page was asked
    # for, up to PARSE_MAX_BYTES (``whole_cut``: the file goes on past it). None for other files.
    whole_text: str | None = field(default=None, repr=False)
    whole_cut: bool = False

    def to_observation(self) -> dict[str, Any]:
        shown = {k: v for k, v in self.__dict__.items() if k not in ("whole_text", "whole_cut")}
        return _compact(shown)


@dataclass(frozen=True, kw_only=True)
class Commit:
    sha: str
    message: str  # first line only
    author: str | None
    date: str | None  # ISO 8601


@dataclass(frozen=True, kw_only=True)
class CommitList:
    commits: tuple[Commit, ...]
    empty_repository: bool = False
    has_more: bool = False

    def to_observation(self) -> dict[str, Any]:
        obs: dict[str, Any] = {
            "count": len(self.commits),
            "commits": [
                _compact({"sha": c.sha[:10], "date": c.date, "author": c.author, "message": c.message})
                for c in self.commits
            ],
        }
        if self.empty_repository:
            obs["empty_repository"] = True
        if self.has_more:
            obs["has_more"] = True
        return obs


@dataclass(frozen=True, kw_only=True)
class TreeEntry:
    path: str
    type: EntryType
    size: int | None = None


@dataclass(frozen=True, kw_only=True)
class TopFolder:
    """A top-level folder of a cut tree (``path`` relative to the repository root).

    ``files_at_least``: the files seen under it (the recursive entries, or its direct children from a
    non-recursive listing, whichever is more); ``complete``: the cut came after all of it, so that is
    its exact count; ``listed``: its direct children were requested (False: only named, past the bound).
    """

    path: str
    files_at_least: int
    complete: bool
    listed: bool = True


@dataclass(frozen=True, kw_only=True)
class FileTree:
    """The whole tree (or the part under ``path``), as returned by one recursive trees request.

    Paths are relative to the repository root, also when ``path`` narrows the tree to one folder. When
    the server cut the tree (``truncated``; GitHub: past 100,000 entries or about 7 MB), ``top_level``
    holds what non-recursive listings recovered: every top-level folder (of ``path``) by name, with lower
    bounds; ``recovered_requests`` is what that cost. The recovered children are in ``entries`` too.
    ``focus`` is the file a ``/blob/`` URL named, when the run is about that file.
    """

    ref: str | None
    path: str
    entries: tuple[TreeEntry, ...]
    truncated: bool = False  # the server cut the tree (GitHub: past 100,000 entries or 7 MB)
    empty_repository: bool = False
    top_level: tuple[TopFolder, ...] = ()
    recovered_requests: int = 0
    focus: str | None = None  # the file a /blob/ URL named (the tree is its folder's)
    files: int = field(init=False, default=0)
    dirs: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", sum(1 for e in self.entries if e.type != "dir"))
        object.__setattr__(self, "dirs", sum(1 for e in self.entries if e.type == "dir"))

    @property
    def partial_folders(self) -> tuple[str, ...]:
        """The top-level folders only partly known (their counts are lower bounds)."""
        return tuple(f.path for f in self.top_level if not f.complete)

    def cut_observation(self) -> dict[str, Any] | None:
        """What the cut left known, for the model and the trace (None when the tree is whole)."""
        if not self.truncated:
            return None
        return {
            "cut": "GitHub cut this tree (100,000 entries or about 7 MB); counts are lower bounds",
            "top_level_folders": [
                _compact({"path": f.path, "files_at_least": f.files_at_least, "complete": f.complete})
                for f in self.top_level
            ],
            "recovery_requests": self.recovered_requests,
        }


@dataclass(frozen=True, kw_only=True)
class Languages:
    bytes_by_language: dict[str, int]

    def to_observation(self) -> dict[str, Any]:
        total = sum(self.bytes_by_language.values()) or 1
        return {
            "languages": [
                {"language": lang, "bytes": n, "percent": round(100 * n / total, 1)}
                for lang, n in sorted(self.bytes_by_language.items(), key=lambda kv: -kv[1])
            ]
        }


def _compact(values: dict[str, Any]) -> dict[str, Any]:
    """Drop noise: None, empty strings/tuples and False flags; tuples become lists."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None or value is False or value in ("", ()) or (key == "omitted_chars" and value == 0):
            continue
        out[key] = list(value) if isinstance(value, tuple) else value
    return out
