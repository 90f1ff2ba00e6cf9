"""The part of a repository a run works on: a folder or a file at a ref, from a ``/tree/`` or ``/blob/`` URL.

A URL such as ``https://github.com/o/r/tree/feature/x/pkg/parser`` cannot be split by reading it: the
ref may hold slashes. :func:`resolve_scope` does what GitHub's own pages do: it asks which branches and
tags start with the first segment (``git/matching-refs``, at most two requests) and takes the longest one
the URL begins with; the rest is the path, checked against the listing of its parent folder at that ref
(one request), which also tells a folder from a file and gives the folder's tree sha. An unknown ref or
path is an :class:`~agent_core.errors.InvalidTargetError` that names it, in English and Chinese, with
the next step.

A local path inside a working copy scopes a run the same way, to that folder at ``HEAD``
(:class:`FolderScoped`). A resolved :class:`Scope` pins the ref of every call the run makes on that repository and narrows
``get_file_tree`` to the folder (:class:`~agent_core.sources.github.GitHubSource`); ``event()`` is what
:class:`~agent_core.events.RunStarted` carries to the page and the export.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent_core.cost import FREE, CallCost
from agent_core.errors import GitHubError, InvalidArgumentError, InvalidTargetError, NotFoundError
from agent_core.github.client import GitHubClient
from agent_core.repo import RepoRef, RunScope, normalize_path, preview
from agent_core.sources.base import RepoSource, Sourced
from agent_core.sources.local import LocalGitSource
from agent_core.sources.models import CommitList, DirListing, FileContent, FileTree, Languages, RepoInfo
from agent_core.words import t

__all__ = ["FolderScoped", "Scope", "listed_entry", "resolve_scope"]

_SHA = re.compile(r"[0-9a-f]{7,40}")


@dataclass(frozen=True, kw_only=True)
class Scope:
    """A folder (``kind="tree"``) or a file (``"blob"``) of ``repo`` at ``ref``; ``path`` "" is the root.

    ``tree_sha`` is the folder's tree (for a file: the tree of the folder holding it), None for the root,
    which is read by the ref's name.
    """

    repo: RepoRef
    ref: str
    path: str
    kind: Literal["tree", "blob"]
    tree_sha: str | None = None
    cost: CallCost = FREE  # what resolving it cost

    @property
    def folder(self) -> str:
        """The folder the run's tree covers: the path itself, or a file's folder."""
        return self.path if self.kind == "tree" else posixpath.dirname(self.path)

    def event(self) -> RunScope:
        return RunScope(repo=self.repo.full_name, ref=self.ref, path=self.path, kind=self.kind)


async def resolve_scope(client: GitHubClient, repo: RepoRef, ref_and_path: str) -> Scope:
    """The scope a ``/tree/<ref>/<path>`` or ``/blob/<ref>/<path>`` URL names (``ref_and_path`` is what
    follows ``tree/`` or ``blob/``). The longest branch or tag the URL begins with wins, as on GitHub;
    a 7-40 hex first segment is a commit. What the path is (folder or file) decides the kind, as GitHub
    shows a file for a ``/tree/`` URL that names one. Raises InvalidTargetError naming an unknown ref or
    path."""
    segments = [s for s in ref_and_path.split("/") if s]
    if not segments:
        raise _unknown_ref(repo, "")
    ref, cost = await _longest_ref(client, repo, segments)
    try:
        path = normalize_path("/".join(segments[len(ref.split("/")) :]))
    except InvalidArgumentError as exc:
        raise InvalidTargetError(exc.message) from exc
    if not path:
        return Scope(repo=repo, ref=ref, path="", kind="tree", cost=cost)
    item, listed = await listed_entry(client, repo, ref, path)
    cost = cost + listed
    if item is None:
        raise _unknown_path(repo, ref, path)
    if item.get("type") == "dir":
        return Scope(repo=repo, ref=ref, path=path, kind="tree", tree_sha=str(item.get("sha")), cost=cost)
    parent = posixpath.dirname(path)
    folder_sha = None
    if parent:
        holder, more = await listed_entry(client, repo, ref, parent)
        cost = cost + more
        folder_sha = str(holder.get("sha")) if holder else None
    return Scope(repo=repo, ref=ref, path=path, kind="blob", tree_sha=folder_sha, cost=cost)


async def _longest_ref(client: GitHubClient, repo: RepoRef, segments: list[str]) -> tuple[str, CallCost]:
    first = segments[0]
    if len(first) == 40 and _SHA.fullmatch(first):  # a full commit id is the commit, as git reads it:
        return first, FREE  # no branch or tag lookup (two requests an MCP tree call paid for nothing)
    cost = FREE
    names: list[str] = []
    for space in ("heads", "tags"):
        try:
            response = await client.get_repo(repo, "git", "matching-refs", path=f"{space}/{first}")
        except NotFoundError:  # an empty repository has no refs at all
            continue
        except InvalidArgumentError as exc:
            raise _unknown_ref(repo, first) from exc
        cost = cost + response.cost
        names += [_ref_name(item, space) for item in _list(response.json())]
    fits = [n for n in names if n and segments[: len(n.split("/"))] == n.split("/")]
    if fits:
        return max(fits, key=lambda n: len(n.split("/"))), cost
    if _SHA.fullmatch(first):
        return first, cost
    raise _unknown_ref(repo, first)


async def listed_entry(
    client: GitHubClient, repo: RepoRef, ref: str, path: str
) -> tuple[dict[str, Any] | None, CallCost]:
    """The listing entry of ``path`` in its parent folder at ``ref`` (None when there is none)."""
    parent, _, name = path.rpartition("/")
    try:
        response = await client.get_repo(repo, "contents", path=parent or None, params={"ref": ref})
    except NotFoundError:
        return None, FREE
    except GitHubError as exc:
        if exc.status == 404:
            return None, FREE
        raise
    found = next((item for item in _list(response.json()) if item.get("name") == name), None)
    return found, response.cost


def _list(body: Any) -> list[dict[str, Any]]:
    return [item for item in body if isinstance(item, dict)] if isinstance(body, list) else []


def _ref_name(item: dict[str, Any], space: str) -> str:
    return str(item.get("ref") or "").removeprefix(f"refs/{space}/")


def _unknown_ref(repo: RepoRef, ref: str) -> InvalidTargetError:
    return _said("target_no_ref", repo=repo.full_name, ref=preview(ref))


def _unknown_path(repo: RepoRef, ref: str, path: str) -> InvalidTargetError:
    return _said("target_no_path", repo=repo.full_name, ref=preview(ref), path=preview(path))


def _said(key: str, **values: str) -> InvalidTargetError:
    """The error ``key`` in English (message and hint) with its Chinese text beside it."""
    error = InvalidTargetError(t(key, "en", **values), hint=t(f"{key}_hint", "en"))
    error.zh = f"{t(key, 'zh', **values)}（{t(f'{key}_hint', 'zh')}）"
    return error


def folder_within(root: Path, path: Path) -> str:
    """``path`` relative to a working copy's top level ``root`` ("" for the top level or outside it)."""
    inner, top = path.resolve(), root.resolve()
    return normalize_path(inner.relative_to(top).as_posix()) if inner.is_relative_to(top) else ""


class FolderScoped:
    """A source whose whole tree (``get_file_tree`` without a path) is one folder's: a local path that
    points inside a working copy. Every other call passes through (paths stay from the repository root)."""

    def __init__(self, source: RepoSource, folder: str) -> None:
        self.source = source
        self.folder = folder

    @property
    def kind(self) -> str:
        return self.source.kind

    def stale_copy(self) -> RepoSource | None:
        stale = self.source.stale_copy()
        return FolderScoped(stale, self.folder) if stale is not None else None

    async def get_repo_info(self, repo: RepoRef) -> Sourced[RepoInfo]:
        return await self.source.get_repo_info(repo)

    async def list_directory(self, repo: RepoRef, path: str = "") -> Sourced[DirListing]:
        return await self.source.list_directory(repo, path)

    async def read_file(
        self, repo: RepoRef, path: str, *, start_line: int = 1, max_lines: int | None = None, max_chars: int
    ) -> Sourced[FileContent]:
        return await self.source.read_file(
            repo, path, start_line=start_line, max_lines=max_lines, max_chars=max_chars
        )

    async def get_commits(self, repo: RepoRef, per_page: int = 20) -> Sourced[CommitList]:
        """The commits that touched the folder (``git log -- folder``) from a local repository."""
        if isinstance(self.source, LocalGitSource):
            return await self.source.get_commits(repo, per_page, path=self.folder)
        return await self.source.get_commits(repo, per_page)

    async def get_file_tree(self, repo: RepoRef, path: str = "") -> Sourced[FileTree]:
        return await self.source.get_file_tree(repo, path or self.folder)

    async def get_languages(self, repo: RepoRef) -> Sourced[Languages]:
        return await self.source.get_languages(repo)
