"""GitHub's JSON answers as the sources' values: a contents listing, its entries, a commit."""

from __future__ import annotations

from typing import Any

from agent_core.errors import InvalidArgumentError
from agent_core.github.client import GitHubResponse
from agent_core.sources.models import Commit, DirEntry, DirListing, EntryType

MAX_DIR_ENTRIES = 1000  # the contents API stops listing here


def listing_of(path: str, response: GitHubResponse) -> DirListing:
    if response.empty_repository:
        return DirListing(path=path, entries=(), note="empty repository: nothing committed yet")
    data = response.json()
    if isinstance(data, dict):
        raise InvalidArgumentError(
            f"'{path}' is a {data.get('type', 'file')}, not a directory; use read_file"
        )
    entries = tuple(dir_entry(item) for item in data if isinstance(item, dict))
    truncated = len(entries) >= MAX_DIR_ENTRIES
    return DirListing(
        path=path,
        entries=entries,
        truncated=truncated,
        note=(
            "GitHub lists at most 1,000 entries per directory; use get_file_tree for the rest"
            if truncated
            else None
        ),
    )


def dir_entry(item: dict[str, Any]) -> DirEntry:
    kind = item.get("type")
    entry_type: EntryType = kind if kind in ("file", "dir", "symlink", "submodule") else "file"
    return DirEntry(
        name=str(item.get("name", "")),
        path=str(item.get("path", "")),
        type=entry_type,
        size=item.get("size") if entry_type == "file" else None,
        target=item.get("target"),
        submodule_url=item.get("submodule_git_url"),
    )


def commit_of(item: dict[str, Any]) -> Commit:
    commit = item.get("commit") or {}
    author = commit.get("author") or {}
    login = (item.get("author") or {}).get("login") if isinstance(item.get("author"), dict) else None
    message = str(commit.get("message") or "").strip().splitlines()
    return Commit(
        sha=str(item.get("sha", "")),
        message=message[0][:200] if message else "",
        author=login or author.get("name"),
        date=author.get("date"),
    )
