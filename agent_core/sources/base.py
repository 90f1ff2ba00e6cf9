"""The seam between the tools and where repository data comes from.

Two implementations: :class:`agent_core.sources.github.GitHubSource` (the REST API, through the
resilient client) and :class:`agent_core.sources.local.LocalGitSource` (a local working copy or bare
git directory, no network). Both return the typed values of :mod:`agent_core.sources.models`, each
with what getting it cost (:class:`Sourced`), and raise the errors of :mod:`agent_core.errors`
(``NotFoundError`` for a missing path, ``InvalidArgumentError`` for bad input). Arguments reaching a
source are already validated (``owner``/``repo``/``path``, see :mod:`agent_core.repo`); sources still
build URLs and file paths defensively.

``kind`` names the source for the people watching ("github", "local"); ``stale_copy`` is the
fallback: the same source answering from whatever it stored earlier, whatever its age, or None when
the source keeps nothing (a local repository is its own copy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from agent_core.cost import CallCost
from agent_core.repo import RepoRef
from agent_core.sources.models import CommitList, DirListing, FileContent, FileTree, Languages, RepoInfo

T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True, kw_only=True)
class Sourced(Generic[T_co]):
    """A value from a source, and what getting it cost."""

    value: T_co
    cost: CallCost


class RepoSource(Protocol):
    """Read-only access to repositories. ``path`` is relative to the repository root ("" = root)."""

    @property
    def kind(self) -> str:
        """ "github" or "local": which breakers guard it, and what the trace calls it."""
        ...

    def stale_copy(self) -> RepoSource | None:
        """The fallback: this source answering from what it stored earlier (any age), or None."""
        ...

    async def get_repo_info(self, repo: RepoRef) -> Sourced[RepoInfo]: ...

    async def list_directory(self, repo: RepoRef, path: str = "") -> Sourced[DirListing]: ...

    async def read_file(
        self,
        repo: RepoRef,
        path: str,
        *,
        start_line: int = 1,
        max_lines: int | None = None,
        max_chars: int,
    ) -> Sourced[FileContent]:
        """A page of a text file: lines from ``start_line`` (1-based), at most ``max_lines`` lines and
        ``max_chars`` characters; ``FileContent`` says how much was left out and where to continue."""
        ...

    async def get_commits(self, repo: RepoRef, per_page: int = 20) -> Sourced[CommitList]: ...

    async def get_file_tree(self, repo: RepoRef, path: str = "") -> Sourced[FileTree]: ...

    async def get_languages(self, repo: RepoRef) -> Sourced[Languages]: ...
