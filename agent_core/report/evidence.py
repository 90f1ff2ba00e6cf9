"""The report's two values of one repository, below everything that builds or reads them: :class:`Evidence`
(the successful tool results, by kind) and :class:`Facts` (what they show). Built by
:mod:`agent_core.report.facts`; read by it, :mod:`~agent_core.report.scoped` and
:mod:`~agent_core.report.tree_lists` (which ``facts`` imports: the values live here so no import runs back).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote

from agent_core.repo import RepoRef
from agent_core.repomodel import RepoModel
from agent_core.report.activity import Activity
from agent_core.report.manifests import Manifest
from agent_core.sources.models import CommitList, DirListing, FileContent, FileTree, Languages, RepoInfo


@dataclass(frozen=True, kw_only=True)
class Evidence:
    """The successful results for one repository, by kind (the latest of each wins)."""

    repo: RepoRef
    info: RepoInfo | None = None
    tree: FileTree | None = None
    languages: Languages | None = None
    commits: CommitList | None = None
    listings: Mapping[str, DirListing] = field(default_factory=dict)
    files: Mapping[str, FileContent] = field(default_factory=dict)
    attempted: frozenset[str] = frozenset()  # tools called for this repository, whatever the outcome
    gaps: tuple[str, ...] = ()  # stale and degraded results, described
    root: str = ""  # a scoped run's folder: the paths above are relative to it (report/scoped.py)
    ci_outside: tuple[str, ...] = ()  # a scoped run's repository CI files, from its folder ("../…")
    # A scoped run (report/scoped.py): ``languages`` are the folder's own, the repository's kept here
    repo_languages: Languages | None = None
    subtrees: Mapping[str, FileTree] = field(default_factory=dict)  # trees fetched by path (tests/a)
    root_known: bool = False  # the root and its workflows were listed: the repository's licence, CI known
    license_outside: tuple[str, ...] = ()  # the root's licence files, from the folder ("../../LICENSE")
    tests_outside: tuple[tuple[str, int], ...] = ()  # the folder's tests kept elsewhere, with file counts
    project_tests: tuple[tuple[str, int], ...] = ()  # its project's test root (../../tests)
    test_dirs_seen: tuple[str, ...] = ()  # the repository's test folders up its path (../../tests)
    outside: tuple[str, ...] = ()  # every path outside the folder the run saw, from the folder
    ancestors_listed: bool = False  # every folder up its path was listed (report/scoped.py ancestors)
    parent_manifests: tuple[str, ...] = ()  # the manifests those listings show, from the folder


@dataclass(frozen=True, kw_only=True)
class Facts:
    """What the evidence shows for one repository. ``None`` = unknown; ``()`` = known to be absent."""

    evidence: Evidence
    paths: tuple[str, ...]  # every file path known (tree, or root and folder listings)
    dirs: tuple[str, ...]
    root_complete: bool  # the root folder is fully known, so an absence there is a fact
    tree_complete: bool
    manifests: tuple[Manifest, ...]
    readme: str | None
    license_files: tuple[str, ...] | None
    ci: tuple[str, ...] | None
    test_runners: tuple[str, ...]  # tox.ini, noxfile.py at the root
    tests_dir: str | None
    test_files: int | None
    docs_dir: str | None
    activity: Activity | None
    large_files: tuple[tuple[str, int], ...]
    manifest_scope: str | None = None  # a folder's run: "folder", "parent", "none" (scoped.manifest_scope)
    question: str = ""  # what the user asked (the Answer section addresses it)
    model: RepoModel | None = None  # the tree's repository model (None: no tree was fetched)

    @property
    def link_base(self) -> str | None:
        """``https://github.com/OWNER/REPO/blob/REF/`` for a GitHub repository, else None."""
        info = self.evidence.info
        if info is None or not info.html_url or not info.html_url.startswith("https://github.com/"):
            return None
        tree_ref = self.evidence.tree.ref if self.evidence.tree else None
        ref = (tree_ref if self.evidence.root else None) or info.default_branch or tree_ref or "HEAD"
        root = f"{quote(self.evidence.root)}/" if self.evidence.root else ""  # a scoped run's folder
        return f"https://github.com/{quote(info.full_name, safe='/')}/blob/{quote(ref, safe='/')}/{root}"
