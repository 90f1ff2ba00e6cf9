"""Repository data from the GitHub REST API (the :class:`RepoSource` used for real repositories).

One method per tool, each making as few requests as the API allows: the whole tree comes from one
recursive trees request (at ``HEAD``, beside the repository's info, not after it: no call of a turn
waits for another), large files (1-100 MB, ``encoding: "none"``) are fetched once with the raw media
type, and renamed repositories are followed by the client (one redirect per request sent before the new
name was known). Every value comes back with the cost of the responses it was built from.

File bodies are read up to ``max_file_bytes`` (the rest is never downloaded; the observation says how
much was cut). With ``public_only`` (a public Space reading with its owner's token) every call first
checks the repository's own ``private``/``visibility`` (memoised for the run, so usually free) and refuses
a private one: the owner's token must not open the owner's private repositories to strangers.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from dataclasses import replace
from typing import Any

from agent_core.cost import FREE, CallCost
from agent_core.errors import GitHubError, InvalidArgumentError, PermissionDeniedError
from agent_core.github.client import GitHubClient, GitHubResponse
from agent_core.github.http import RAW_MEDIA
from agent_core.repo import RepoRef
from agent_core.sources.base import Sourced
from agent_core.sources.content import DEFAULT_MAX_FILE_BYTES, page_file
from agent_core.sources.cut_trees import entry_of, recover_top_level
from agent_core.sources.github_json import commit_of, listing_of
from agent_core.sources.models import (
    CommitList,
    DirListing,
    FileContent,
    FileTree,
    Languages,
    RepoInfo,
    TreeEntry,
)
from agent_core.sources.scope import Scope, listed_entry

MAX_CONTENTS_BYTES = 100 * 1024 * 1024  # the contents API refuses bigger files


class GitHubSource:
    """:class:`agent_core.sources.base.RepoSource` over :class:`GitHubClient`."""

    kind = "github"

    def __init__(
        self,
        client: GitHubClient,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        public_only: bool = False,
        scope: Scope | None = None,
    ) -> None:
        """``scope``: the folder or file a ``/tree/`` or ``/blob/`` URL named; every call then reads its
        ref, and the whole tree (``get_file_tree`` with no path) is that folder's."""
        self.client = client
        self.max_file_bytes = max_file_bytes
        self.public_only = public_only
        self.scope = scope

    def stale_copy(self) -> GitHubSource:
        """The same source answering only from the persistent cache (the fallback)."""
        return GitHubSource(
            self.client.stale_view(),
            max_file_bytes=self.max_file_bytes,
            public_only=self.public_only,
            scope=self.scope,
        )

    def _at_ref(self, params: dict[str, str | int] | None = None) -> dict[str, str | int] | None:
        """``?ref=`` of the scope (none: the default branch, and the URL GitHub's cache already knows)."""
        if self.scope is None:
            return params
        return {**(params or {}), "ref": self.scope.ref}

    async def check_public(self, repo: RepoRef) -> CallCost:
        """With ``public_only``: refuse a repository GitHub reports private (or internal); what the
        check cost (the repository's info, memoised for the run)."""
        if not self.public_only:
            return FREE
        response = await self.client.get_repo(repo)
        _refuse_private(repo, response.json())
        # Only what reached the network: the run's memo answering the check is not a cache hit to report.
        return CallCost(requests=response.cost.requests, revalidated=response.cost.revalidated)

    async def get_repo_info(self, repo: RepoRef) -> Sourced[RepoInfo]:
        response = await self.client.get_repo(repo)
        if self.public_only:
            _refuse_private(repo, response.json())
        return Sourced(value=self._repo_info(repo, response.json()), cost=response.cost)

    def _repo_info(self, repo: RepoRef, body: Any) -> RepoInfo:
        data = _object(body)
        full_name = str(data.get("full_name") or repo.full_name)
        self.client.learn_canonical(repo, full_name)
        license_data = data.get("license") or {}
        return RepoInfo(
            full_name=full_name,
            description=data.get("description"),
            default_branch=data.get("default_branch"),
            html_url=data.get("html_url"),
            homepage=data.get("homepage") or None,
            language=data.get("language"),
            license=(license_data.get("spdx_id") or license_data.get("name")) if license_data else None,
            topics=tuple(data.get("topics") or ()),
            stars=data.get("stargazers_count"),
            forks=data.get("forks_count"),
            open_issues=data.get("open_issues_count"),
            watchers=data.get("subscribers_count", data.get("watchers_count")),
            size_kb=data.get("size"),
            archived=data.get("archived"),
            fork=data.get("fork"),
            created_at=data.get("created_at"),
            updated_at=data.get("updated_at"),
            pushed_at=data.get("pushed_at"),
            renamed_from=repo.full_name if full_name.lower() != repo.key() else None,
        )

    async def list_directory(self, repo: RepoRef, path: str = "") -> Sourced[DirListing]:
        checked = await self.check_public(repo)
        response = await self.client.get_repo(repo, "contents", path=path or None, params=self._at_ref())
        return Sourced(value=listing_of(path, response), cost=checked + response.cost)

    async def read_file(
        self,
        repo: RepoRef,
        path: str,
        *,
        start_line: int = 1,
        max_lines: int | None = None,
        max_chars: int,
    ) -> Sourced[FileContent]:
        if not path:
            raise InvalidArgumentError("read_file needs a file path; use list_directory for the root")
        checked = await self.check_public(repo)
        response = await self.client.get_repo(repo, "contents", path=path, params=self._at_ref())
        response = replace(response, cost=checked + response.cost)
        data = response.json()
        if response.empty_repository or isinstance(data, list):
            raise InvalidArgumentError(f"'{path}' is a directory; use list_directory or get_file_tree")
        data = _object(data)
        kind = data.get("type")
        size = int(data.get("size") or 0)
        if kind == "symlink":
            value = FileContent(path=path, kind="symlink", size=size, target=data.get("target"))
            return Sourced(value=value, cost=response.cost)
        if kind == "submodule":
            value = FileContent(
                path=path, kind="submodule", size=0, submodule_url=data.get("submodule_git_url")
            )
            return Sourced(value=value, cost=response.cost)
        if size > MAX_CONTENTS_BYTES:
            value = FileContent(
                path=path,
                kind="too_large",
                size=size,
                note="over 100 MB: GitHub's contents API cannot serve it",
            )
            return Sourced(value=value, cost=response.cost)
        raw, cost = await self._file_bytes(repo, path, data, response.cost)
        value = page_file(
            path=path,
            data=raw[: self.max_file_bytes],
            start_line=start_line,
            max_lines=max_lines,
            max_chars=max_chars,
            sha=data.get("sha"),
            size=max(size, len(raw)),
        )
        return Sourced(value=value, cost=cost)

    async def _file_bytes(
        self, repo: RepoRef, path: str, data: dict[str, Any], spent: CallCost
    ) -> tuple[bytes, CallCost]:
        if data.get("encoding") == "base64" and data.get("content") is not None:
            try:
                return base64.b64decode("".join(str(data["content"]).split()), validate=True), spent
            except (binascii.Error, ValueError) as exc:
                raise GitHubError(f"GitHub sent undecodable base64 for '{path}'") from exc
        # 1-100 MB: the object media type has no content; the raw media type has the bytes.
        try:
            raw = await self.client.get_repo(
                repo,
                "contents",
                path=path,
                params=self._at_ref(),
                accept=RAW_MEDIA,
                max_bytes=self.max_file_bytes,
            )
        except GitHubError as exc:
            exc.requests += spent.requests
            raise
        return raw.content, spent + raw.cost

    async def get_commits(self, repo: RepoRef, per_page: int = 20) -> Sourced[CommitList]:
        per_page = max(1, min(100, per_page))
        checked = await self.check_public(repo)
        params: dict[str, str | int] = {"per_page": per_page}
        if self.scope is not None:
            params["sha"] = self.scope.ref
            if self.scope.folder:  # a folder's run: the commits that touched it, as GitHub's history page
                params["path"] = self.scope.folder
        response = await self.client.get_repo(repo, "commits", params=params)
        cost = checked + response.cost
        if response.empty_repository:
            return Sourced(value=CommitList(commits=(), empty_repository=True), cost=cost)
        commits = tuple(commit_of(item) for item in response.json() or () if isinstance(item, dict))
        value = CommitList(commits=commits, has_more='rel="next"' in response.headers.get("link", ""))
        return Sourced(value=value, cost=cost)

    async def get_file_tree(self, repo: RepoRef, path: str = "") -> Sourced[FileTree]:
        sourced = await self._file_tree(repo, path)
        scope = self.scope
        if scope is None or scope.kind != "blob" or sourced.value.path != scope.folder:
            return sourced
        return replace(sourced, value=replace(sourced.value, focus=scope.path))

    async def _file_tree(self, repo: RepoRef, path: str) -> Sourced[FileTree]:
        """The recursive tree (of the scope's folder when ``path`` is empty and a scope is set), filtered
        to ``path``; paths relative to the repository root. A cut tree's top level is recovered with
        non-recursive listings (:mod:`~agent_core.sources.cut_trees`), counted in the cost."""
        scope = self.scope
        if scope is not None and path in ("", scope.folder):
            path, tree_id, prefix = scope.folder, scope.tree_sha or scope.ref, ""
            if scope.tree_sha is not None and scope.folder:
                prefix = f"{scope.folder}/"
            ref: str = scope.ref
            spent = FREE
        elif scope is not None and path:
            # another folder of a scoped run (the root's tests/<package>/ of a package folder): its own
            # tree by the sha its parent's listing gives, not the whole repository's recursive tree
            sha, spent = await self._folder_sha(repo, scope.ref, path)
            if sha is None:
                raise InvalidArgumentError(f"'{path}' is not a directory in this repository")
            ref, tree_id, prefix = scope.ref, sha, f"{path}/"
        elif scope is None and not self.public_only:
            # the root's tree by HEAD, beside the repository's info (which names the branch): neither
            # waits for the other, so a turn asking both is one round trip to GitHub, not two
            return await self._root_tree(repo, path)
        else:
            info = await self.get_repo_info(repo)  # memoised: usually free; with public_only, the check
            ref = scope.ref if scope is not None else (info.value.default_branch or "HEAD")
            tree_id, prefix, spent = ref, "", info.cost
        try:
            response = await self.client.get_repo(repo, "git", "trees", path=tree_id, params={"recursive": 1})
        except GitHubError as exc:
            exc.requests += spent.requests
            raise
        return await self._tree_of(
            repo, response, ref=ref, path=path, prefix=prefix, cost=spent + response.cost
        )

    async def _root_tree(self, repo: RepoRef, path: str) -> Sourced[FileTree]:
        """The whole tree at ``HEAD`` (filtered to ``path``) and the repository's info (memoised: one
        request for this and the info tool), asked at once; the tree's ref is the branch the info names."""
        tree, info = await asyncio.gather(
            self.client.get_repo(repo, "git", "trees", path="HEAD", params={"recursive": 1}),
            self.get_repo_info(repo),
            return_exceptions=True,
        )
        for outcome in (tree, info):
            if isinstance(outcome, BaseException) and not isinstance(outcome, GitHubError):
                raise outcome  # cancelled, or our bug: never swallowed
        spent = info.cost if isinstance(info, Sourced) else CallCost(requests=getattr(info, "requests", 0))
        if isinstance(tree, BaseException):
            if isinstance(tree, GitHubError):  # (it is: see above)
                tree.requests += spent.requests
            raise tree
        ref = (info.value.default_branch if isinstance(info, Sourced) else None) or "HEAD"
        return await self._tree_of(repo, tree, ref=ref, path=path, prefix="", cost=spent + tree.cost)

    async def _tree_of(
        self, repo: RepoRef, response: GitHubResponse, *, ref: str, path: str, prefix: str, cost: CallCost
    ) -> Sourced[FileTree]:
        """The tree a recursive trees ``response`` holds, filtered to ``path`` (entries under ``prefix``)."""
        if response.empty_repository:
            return Sourced(value=FileTree(ref=None, path=path, entries=(), empty_repository=True), cost=cost)
        data = _object(response.json())
        within = f"{path}/" if path else ""
        entries = tuple(
            entry_of(item, prefix)
            for item in data.get("tree") or ()
            if isinstance(item, dict) and "path" in item and (prefix + str(item["path"])).startswith(within)
        )
        if path and not entries:
            raise InvalidArgumentError(f"'{path}' is not a directory in this repository")
        if not data.get("truncated"):
            return Sourced(value=FileTree(ref=ref, path=path, entries=entries), cost=cost)
        sha = str(data.get("sha") or "")
        return await self._recovered(
            repo, ref=ref, path=path, prefix=prefix, seen=entries, sha=sha, cost=cost
        )

    async def _folder_sha(self, repo: RepoRef, ref: str, path: str) -> tuple[str | None, CallCost]:
        """The tree sha of the folder ``path`` at ``ref``, from its parent's listing (None: not a folder)."""
        found, cost = await listed_entry(self.client, repo, ref, path)
        if found is None or found.get("type") != "dir" or not found.get("sha"):
            return None, cost
        return str(found.get("sha")), cost

    async def _recovered(
        self,
        repo: RepoRef,
        *,
        ref: str,
        path: str,
        prefix: str,
        seen: tuple[TreeEntry, ...],
        sha: str,
        cost: CallCost,
    ) -> Sourced[FileTree]:
        """A cut tree with its top level listed (the top level of ``prefix``'s folder, when the tree is a
        folder's; the whole repository's tree narrowed to ``path`` is left as cut)."""
        if (path and not prefix) or not sha:
            return Sourced(value=FileTree(ref=ref, path=path, entries=seen, truncated=True), cost=cost)

        async def list_tree(tree_sha: str) -> tuple[list[dict[str, Any]], CallCost]:
            response = await self.client.get_repo(repo, "git", "trees", tree_sha)
            items = _object(response.json()).get("tree") or ()
            return [item for item in items if isinstance(item, dict) and "path" in item], response.cost

        try:
            recovered = await recover_top_level(seen, sha, list_tree, prefix=prefix)
        except GitHubError as exc:
            exc.requests += cost.requests
            raise
        tree = FileTree(
            ref=ref,
            path=path,
            entries=recovered.entries,
            truncated=True,
            top_level=recovered.top_level,
            recovered_requests=recovered.requests,
        )
        return Sourced(value=tree, cost=cost + recovered.cost)

    async def get_languages(self, repo: RepoRef) -> Sourced[Languages]:
        checked = await self.check_public(repo)
        response = await self.client.get_repo(repo, "languages")
        response = replace(response, cost=checked + response.cost)
        data = _object(response.json() or {})
        languages = Languages(
            bytes_by_language={str(k): int(v) for k, v in data.items() if isinstance(v, int)}
        )
        return Sourced(value=languages, cost=response.cost)


def _refuse_private(repo: RepoRef, body: Any) -> None:
    data = body if isinstance(body, dict) else {}
    if data.get("private") is True or data.get("visibility") in ("private", "internal"):
        raise PermissionDeniedError(
            f"{repo.full_name} is a private repository, and this Space does not read private "
            "repositories with its owner's token",
            status=403,
            hint="to analyse it, paste your own GitHub token (one that can read it) in Settings",
        )


def _object(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise GitHubError("GitHub answered with an unexpected shape")
    return data
