"""The seam between the tools and where repository data comes from.

Two implementations: :class:`agent_core.sources.github.GitHubSource` (the REST API, through the
resilient client) and :class:`agent_core.sources.local.LocalGitSource` (a local working copy or bare
git directory, no network). Both return the typed values of :mod:`agent_core.sources.models` and raise
the errors of :mod:`agent_core.errors` (``NotFoundError`` for a missing path, ``InvalidArgumentError``
for bad input). Arguments reaching a source are already validated (``owner``/``repo``/``path``, see
:mod:`agent_core.sources.targets`); sources still build URLs and file paths defensively.
"""

from __future__ import annotations

from typing import Protocol

from agent_core.repo import RepoRef
from agent_core.sources.models import CommitList, DirListing, FileContent, FileTree, Languages, RepoInfo


class RepoSource(Protocol):
    """Read-only access to repositories. ``path`` is relative to the repository root ("" = root)."""

    async def get_repo_info(self, repo: RepoRef) -> RepoInfo: ...

    async def list_directory(self, repo: RepoRef, path: str = "") -> DirListing: ...

    async def read_file(
        self,
        repo: RepoRef,
        path: str,
        *,
        start_line: int = 1,
        max_lines: int | None = None,
        max_chars: int = 6000,
    ) -> FileContent:
        """A page of a text file: lines from ``start_line`` (1-based), at most ``max_lines`` lines and
        ``max_chars`` characters; ``FileContent`` says how much was left out and where to continue."""
        ...

    async def get_commits(self, repo: RepoRef, per_page: int = 20) -> CommitList: ...

    async def get_file_tree(self, repo: RepoRef, path: str = "") -> FileTree: ...

    async def get_languages(self, repo: RepoRef) -> Languages: ...
