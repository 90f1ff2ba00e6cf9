"""The repository model's values: what one tree holds, by role, as frozen dataclasses.

Built by :func:`agent_core.repomodel.build.build_repo_model` (one pass over the tree's entries); read
by the report, the brief, the trace's tree preview and the diagram, which all say the same counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from agent_core.repomodel.conventions import Role
from agent_core.repomodel.packages import Package


@dataclass(frozen=True, kw_only=True)
class RootContext:
    """What a tree's model is built with besides its entries: what the root's files say (``gitattributes``:
    the root ``.gitattributes`` text when it was read; ``workspace_globs``: the root ``package.json``'s
    workspaces; ``members`` and ``virtual``: what the root's manifests say of its packages; ``read``: the
    manifests read and parsed, :func:`~agent_core.repomodel.packages.packages_of`) and, for a re-rooted
    tree, where its root stands in the repository (``above``). A value: the model memo's key."""

    gitattributes: str | None = None
    workspace_globs: tuple[str, ...] = ()
    members: tuple[str, ...] = ()
    virtual: tuple[str, ...] = ()
    read: tuple[str, ...] = ()
    above: str = ""


NO_CONTEXT = RootContext()
"""A tree from the repository's root, nothing read of its root's files."""


class FolderCount(NamedTuple):
    """A folder and how many files it holds, e.g. ``("vendor", 13712)``."""

    path: str
    files: int


class ConventionCount(NamedTuple):
    """A test convention and how many files follow it, e.g. ``("*_test.go", 1013)``."""

    label: str
    files: int


@dataclass(frozen=True, kw_only=True)
class TestSummary:
    """The project's tests: how many files, by convention (most first), in how many packages (folders
    holding tests, or holding a ``tests/`` folder), and the test folders themselves."""

    __test__ = False  # not a pytest class

    files: int = 0
    by_convention: tuple[ConventionCount, ...] = ()
    packages: int = 0
    dirs: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class CiSystem:
    """A CI system and the files that configure it."""

    name: str
    paths: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class TopFolder:
    """A top-level folder (of the model's root): its files, the project's own among them, and the role
    most of its files have."""

    name: str
    files: int
    own_files: int
    role: Role


@dataclass(frozen=True, kw_only=True)
class RepoModel:
    """One tree, by role. ``own`` is what is neither vendored nor generated. When ``truncated`` (the
    server cut the tree) every count is a lower bound."""

    root: str
    truncated: bool
    files: int
    bytes: int
    own_files: int
    own_bytes: int
    role_counts: Mapping[Role, int]
    vendored: tuple[FolderCount, ...] = ()
    tests: TestSummary = field(default_factory=TestSummary)
    packages: tuple[Package, ...] = ()
    aside: tuple[Package, ...] = ()  # package manifests of examples and test data, not counted
    ci: tuple[CiSystem, ...] = ()
    top_level: tuple[TopFolder, ...] = ()
    top_files: tuple[str, ...] = ()
    docs: tuple[FolderCount, ...] = ()
    examples: tuple[FolderCount, ...] = ()
    dirs: int = 0
    limits: tuple[str, ...] = ()  # caps the model's inputs met, e.g. "gitattributes_lines_capped"
    _roles: Mapping[str, Role] = field(default_factory=dict, repr=False, compare=False)
    _by_role: Mapping[Role, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    def role_of(self, path: str) -> Role:
        """The role of a file of the tree; a path the tree does not hold is "source"."""
        return self._roles.get(path, "source")

    def paths_with_role(self, role: Role) -> tuple[str, ...]:
        """Every file of the tree with ``role``, in the tree's order."""
        return self._by_role.get(role, ())

    def is_own(self, path: str) -> bool:
        """True for the project's own files: neither vendored nor generated."""
        return self.role_of(path) not in ("vendored", "generated")

    @property
    def vendored_files(self) -> int:
        return self.role_counts.get("vendored", 0)

    @property
    def generated_files(self) -> int:
        return self.role_counts.get("generated", 0)

    @property
    def ci_paths(self) -> tuple[str, ...]:
        return tuple(p for system in self.ci for p in system.paths)
