"""A local git repository (working copy or bare directory) as a :class:`RepoSource`, with no network.

What it reads: the COMMITTED tree at ``ref`` (default ``HEAD``, resolved again on every call).
Uncommitted and untracked changes are not seen, just as GitHub only sees what was pushed. A source
serves exactly one repository: the ``RepoRef`` passed to each method only names it in error messages
(the tools layer enforces scope). Use :attr:`LocalGitSource.repo_ref` for the ``local/<folder>`` name.

How git runs is :mod:`agent_core.sources.gitcli`'s business (never a shell, a clean environment, its
process group killed on cancellation). A path reaches git only once, after ``--``, to find its tree
entry; everything else addresses objects by id.

Where it differs from GitHub, on purpose:

- a symlink is reported, never followed: ``read_file`` returns kind ``"symlink"`` with the target,
  and the note names the target's path in the repository so the model can read it (GitHub returns
  the content of a symlink that points to a file);
- stars, forks, watchers, open issues, topics, homepage, archived and fork are unknown (None);
- ``created_at`` is the oldest root commit's committer date and ``pushed_at``/``updated_at`` the tip's
  (UTC, GitHub's format); ``size_kb`` is the object store size (``git count-objects``);
- the description comes from git's ``description`` file (bare repositories, gitweb), unless it is
  git's placeholder text; ``license`` is guessed from the first 4 KiB of a LICENSE/COPYING file;
- of a blob over ``max_file_bytes`` (a file, or a symlink's target) only the beginning is read, and
  the note says what was cut, as for GitHub; git's output past the cap is dropped as it streams.
"""

from __future__ import annotations

import copy
import functools
import posixpath
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from agent_core.cost import CallCost
from agent_core.errors import InvalidArgumentError, InvalidTargetError, NotFoundError
from agent_core.offload import off_loop
from agent_core.repo import RepoRef
from agent_core.sources.base import Sourced
from agent_core.sources.content import DEFAULT_MAX_FILE_BYTES, check_page_args, decode_text, page_file
from agent_core.sources.gitcli import Blob, GitCli, LsTreeEntry, parse_ls_tree
from agent_core.sources.local_facts import (
    CommitTrees,
    current_branch,
    dates,
    description,
    file_tree,
    license_of,
    size_kb,
    utc_from_iso,
)
from agent_core.sources.models import (
    Commit,
    CommitList,
    DirEntry,
    DirListing,
    FileContent,
    FileTree,
    Languages,
    RepoInfo,
)

__all__ = ["DEFAULT_MAX_FILE_BYTES", "LocalGitSource"]

V = TypeVar("V")
P = ParamSpec("P")

_LOG_FORMAT = "--format=%H%x00%an%x00%aI%x00%s%x00"


@dataclass(frozen=True, kw_only=True)
class _Layout:
    git_dir: Path
    bare: bool


def _counted(
    call: Callable[Concatenate[LocalGitSource, P], Awaitable[V]],
) -> Callable[Concatenate[LocalGitSource, P], Coroutine[Any, Any, Sourced[V]]]:
    """A source's call run on a view of its own (:meth:`LocalGitSource._view`), so that the git commands it
    runs are counted apart: their number is its cost."""

    @functools.wraps(call)
    async def counted(self: LocalGitSource, /, *args: P.args, **kwargs: P.kwargs) -> Sourced[V]:
        view = self._view()
        return view._sourced(await call(view, *args, **kwargs))

    return counted


class LocalGitSource:
    """Read-only :class:`~agent_core.sources.base.RepoSource` over one local git repository.

    Prefer :meth:`open`, which checks the directory and the ref and finds the repository's top level.
    ``git`` is the executable to run (tests pass a wrapper script).
    """

    def __init__(
        self,
        root: Path,
        *,
        ref: str = "HEAD",
        git: str = "git",
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        if not ref or ref.startswith("-"):
            raise InvalidArgumentError(f"invalid git ref {ref!r}")
        self._root = root.absolute()
        self._ref = ref
        self._max_file_bytes = max_file_bytes
        self._layout_cache: _Layout | None = None
        self._cli = GitCli(self._root, git=git, label=self.repo_ref.full_name)
        self._trees = CommitTrees()  # shared by the views: the tree and the languages counted from it

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        ref: str = "HEAD",
        git: str = "git",
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> LocalGitSource:
        """A source for the repository containing ``path`` (a working copy, a subdirectory of one, or
        a bare git directory). Raises :class:`InvalidTargetError` if it is not a git repository or
        ``ref`` does not exist; an empty repository (no commits) is accepted."""
        probe = cls(path, ref=ref, git=git, max_file_bytes=max_file_bytes)
        layout = await probe._layout()
        root = layout.git_dir
        if not layout.bare:
            top = await probe._cli.run(["rev-parse", "--show-toplevel"])
            if top.returncode == 0:  # fails when `path` is inside the .git directory itself
                root = Path(top.stdout.decode("utf-8", errors="replace").rstrip("\n"))
        source = cls(root, ref=ref, git=git, max_file_bytes=max_file_bytes)
        source._layout_cache = layout
        try:
            await source._commit(source.repo_ref)
        except NotFoundError as exc:
            raise InvalidTargetError(f"ref {ref!r} not found in {path}", hint=exc.hint) from exc
        return source

    @property
    def name(self) -> str:
        """The folder name (without a bare repository's ``.git`` suffix)."""
        name = self._root.name
        if name == ".git":
            return self._root.parent.name
        return name.removesuffix(".git") or name

    @property
    def repo_ref(self) -> RepoRef:
        return RepoRef(owner="local", name=self.name)

    @property
    def root(self) -> Path:
        return self._root

    # -- RepoSource: each call runs on a view of its own, so its git commands are counted apart ----------

    kind = "local"

    def stale_copy(self) -> None:
        """A local repository is its own copy: there is nothing older to fall back on."""
        return

    def _view(self) -> LocalGitSource:
        view = copy.copy(self)
        view._cli = self._cli.counting()
        return view

    def _sourced(self, value: V) -> Sourced[V]:
        return Sourced(value=value, cost=CallCost(git_commands=self._cli.commands))

    # -- the calls (each on a view of its own: see _counted) ---------------------------------------------

    @_counted
    async def get_repo_info(self, repo: RepoRef) -> RepoInfo:
        commit = await self._commit(repo)
        created_at = pushed_at = language = license_id = None
        if commit is not None:
            created_at, pushed_at = await dates(self._cli, commit)
            language = next(iter(await self._trees.languages(self._cli, commit)), None)
            license_id = await license_of(self._cli, commit)
        return RepoInfo(
            full_name=self.repo_ref.full_name,
            description=await description((await self._layout()).git_dir),
            default_branch=await current_branch(self._cli),
            html_url=None,
            language=language,
            license=license_id,
            size_kb=await size_kb(self._cli),
            created_at=created_at,
            updated_at=pushed_at,
            pushed_at=pushed_at,
        )

    @_counted
    async def list_directory(self, repo: RepoRef, path: str = "") -> DirListing:
        path = _clean_path(path)
        commit = await self._commit(repo)
        if commit is None:
            if path:
                raise self._not_found(path, repo, hint="the repository is empty")
            return DirListing(path="", entries=(), note="empty repository")
        tree = (await self._dir_entry(commit, path, repo)).oid if path else commit
        entries = parse_ls_tree(await self._cli.output(["ls-tree", "-z", "-l", tree]))
        links = [e.oid for e in entries if e.type == "symlink"]
        targets = {oid: blob.data for oid, blob in (await self._blobs(links)).items()}
        urls = await self._cli.submodule_urls(commit) if any(e.type == "submodule" for e in entries) else {}
        listed = []
        for e in entries:
            full = _join(path, e.path)
            target = targets.get(e.oid)
            listed.append(
                DirEntry(
                    name=e.path,
                    path=full,
                    type=e.type,
                    size=e.size if e.type == "file" else None,
                    target=decode_text(target) if target is not None else None,
                    submodule_url=urls.get(full),
                )
            )
        return DirListing(path=path, entries=tuple(listed))

    @_counted
    async def read_file(
        self,
        repo: RepoRef,
        path: str,
        *,
        start_line: int = 1,
        max_lines: int | None = None,
        max_chars: int,
    ) -> FileContent:
        check_page_args(start_line=start_line, max_lines=max_lines, max_chars=max_chars)
        path = _clean_path(path)
        if not path:
            raise InvalidArgumentError("'' is the repository root, a directory; use list_directory")
        commit = await self._commit(repo)
        if commit is None:
            raise self._not_found(path, repo, hint="the repository is empty")
        entry = await self._entry(commit, path, repo)
        ref = None if self._ref == "HEAD" else self._ref
        if entry.type == "dir":
            raise InvalidArgumentError(f"'{path}' is a directory; use list_directory")
        if entry.type == "submodule":
            return FileContent(
                path=path,
                kind="submodule",
                size=0,
                submodule_url=(await self._cli.submodule_urls(commit)).get(path),
                sha=entry.oid,
                ref=ref,
                note=f"submodule pinned at commit {entry.oid[:12]}; its files live in another repository",
            )
        size = entry.size or 0
        if entry.type == "symlink":
            target = decode_text((await self._blobs([entry.oid]))[entry.oid].data)
            return FileContent(
                path=path,
                kind="symlink",
                size=size,
                target=target,
                sha=entry.oid,
                ref=ref,
                note=_link_note(path, target),
            )
        blob = (await self._blobs([entry.oid]))[entry.oid]
        return page_file(
            path=path,
            data=blob.data,
            start_line=start_line,
            max_lines=max_lines,
            max_chars=max_chars,
            sha=entry.oid,
            ref=ref,
            size=blob.size,
        )

    @_counted
    async def get_commits(self, repo: RepoRef, per_page: int = 20, *, path: str = "") -> CommitList:
        path = _clean_path(path)  # a folder's run: the commits that touched it, git log -- path
        if not 1 <= per_page <= 100:
            raise InvalidArgumentError(f"per_page must be between 1 and 100, not {per_page}")
        commit = await self._commit(repo)
        if commit is None:
            return CommitList(commits=(), empty_repository=True)
        limit = f"--max-count={per_page + 1}"
        out = await self._cli.output(
            ["log", "--no-show-signature", limit, _LOG_FORMAT, commit, "--", path][: 7 if path else 6]
        )
        # Each commit is "sha\0author\0date\0subject\0" followed by "\n"; the split leaves a last "\n".
        fields = out.decode("utf-8", errors="replace").split("\0")[:-1]
        commits = [
            Commit(sha=sha.lstrip("\n"), author=author or None, date=utc_from_iso(date), message=subject)
            for sha, author, date, subject in zip(*[iter(fields)] * 4, strict=True)
        ]
        return CommitList(commits=tuple(commits[:per_page]), has_more=len(commits) > per_page)

    @_counted
    async def get_file_tree(self, repo: RepoRef, path: str = "") -> FileTree:
        path = _clean_path(path)
        commit = await self._commit(repo)
        if commit is None:
            if path:
                raise self._not_found(path, repo, hint="the repository is empty")
            return FileTree(ref=None, path="", entries=(), empty_repository=True)
        if not path:
            return await self._trees.tree(self._cli, commit)  # parsed once: the languages count it too
        tree = (await self._dir_entry(commit, path, repo)).oid
        out = await self._cli.output(["ls-tree", "-r", "-t", "-l", "-z", tree])
        return await off_loop(file_tree, out, commit, path)  # off the loop: others' pages answer

    @_counted
    async def get_languages(self, repo: RepoRef) -> Languages:
        commit = await self._commit(repo)
        counts = await self._trees.languages(self._cli, commit) if commit else {}
        return Languages(bytes_by_language=counts)

    # -- git plumbing --------------------------------------------------------------------------------

    async def _blobs(self, oids: list[str]) -> dict[str, Blob]:
        return await self._cli.blobs(oids, max_bytes=self._max_file_bytes)

    async def _layout(self) -> _Layout:
        if self._layout_cache is None:
            out = await self._cli.output(["rev-parse", "--is-bare-repository", "--absolute-git-dir"])
            bare, git_dir = out.decode("utf-8", errors="replace").splitlines()[:2]
            self._layout_cache = _Layout(git_dir=Path(git_dir), bare=bare == "true")
        return self._layout_cache

    async def _commit(self, repo: RepoRef) -> str | None:
        """The commit ``ref`` names; None for an empty repository. Raises NotFoundError for a bad ref."""
        result = await self._cli.run(["rev-parse", "--verify", "--quiet", f"{self._ref}^{{commit}}"])
        if result.returncode == 0:
            return result.stdout.decode("ascii").strip()
        if result.returncode != 1:
            raise self._cli.failure(["rev-parse"], result)
        if not (await self._cli.output(["for-each-ref", "--count=1"])).strip():
            return None  # no refs at all: nothing was ever committed
        raise NotFoundError(
            f"ref {self._ref!r} not found in local repository {repo.full_name}",
            hint="HEAD may point to a branch with no commits" if self._ref == "HEAD" else None,
        )

    async def _entry(self, commit: str, path: str, repo: RepoRef) -> LsTreeEntry:
        out = await self._cli.output(["ls-tree", "-z", "-l", "--full-tree", commit, "--", path])
        for entry in parse_ls_tree(out):
            if entry.path == path:
                return entry
        raise self._not_found(path, repo)

    async def _dir_entry(self, commit: str, path: str, repo: RepoRef) -> LsTreeEntry:
        entry = await self._entry(commit, path, repo)
        if entry.type == "file":
            raise InvalidArgumentError(f"'{path}' is a file; use read_file")
        if entry.type == "symlink":
            raise InvalidArgumentError(f"'{path}' is a symbolic link; use read_file to see its target")
        if entry.type == "submodule":
            raise InvalidArgumentError(f"'{path}' is a submodule; its files live in another repository")
        return entry

    def _not_found(self, path: str, repo: RepoRef, *, hint: str | None = None) -> NotFoundError:
        return NotFoundError(f"'{path}' not found in local repository {repo.full_name}", hint=hint)


def _clean_path(path: str) -> str:
    """Defence in depth (the tools layer validates first): a plain relative path, "" for the root."""
    clean = path.strip("/")
    if any(c in clean for c in "\0\n\r"):
        raise InvalidArgumentError(f"invalid path {path!r}: control characters")
    if clean.startswith("-"):
        raise InvalidArgumentError(f"invalid path {path!r}: must not start with '-'")
    if clean and any(part in ("", ".", "..") for part in clean.split("/")):
        raise InvalidArgumentError(f"invalid path {path!r}: empty, '.' or '..' components")
    return clean


def _join(parent: str, name: str) -> str:
    return f"{parent}/{name}" if parent else name


def _link_note(path: str, target: str) -> str:
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if target.startswith("/") or resolved == ".." or resolved.startswith("../"):
        return f"symbolic link to '{target}', outside the repository; not followed"
    return f"symbolic link to '{target}'; call read_file with path='{resolved}' to read the target"
