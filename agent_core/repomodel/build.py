"""Building the repository model: one pass over a tree's entries.

Each folder's context (inside a vendored root? a test folder? examples? documentation? a CI folder?) is
computed once, from its parent's, and memoised; each file then costs a dictionary lookup of its folder,
a few set lookups and ``str.endswith`` checks on its name, and, only when the repository has a
``.gitattributes`` with Linguist overrides, one match per override line. The rules are
:mod:`~agent_core.repomodel.conventions` (Linguist's, and each language's test conventions).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from agent_core.repomodel import conventions as cv
from agent_core.repomodel.attributes import Overrides, parse_gitattributes
from agent_core.repomodel.model import (
    NO_CONTEXT,
    CiSystem,
    ConventionCount,
    FolderCount,
    RepoModel,
    RootContext,
    TestSummary,
    TopFolder,
)
from agent_core.repomodel.packages import APP_LOCKS, Package, manifest_ecosystem, packages_of, set_aside
from agent_core.repomodel.places import Folders as _Folders
from agent_core.repomodel.places import (
    _fixed_role,
    _Folder,
    _Name,
    _name_facts,
    _plain_role,
    _role,
)

_ORDER = {role: i for i, role in enumerate(cv.ROLES)}


class Entry(Protocol):
    """What the model reads of a tree's entry (a :class:`~agent_core.sources.models.TreeEntry`, or a
    lighter record of the same three fields)."""

    @property
    def path(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def size(self) -> int | None: ...


def _new_counts(per_top: dict[str, dict[cv.Role, int]], top: str) -> dict[cv.Role, int]:
    return per_top.setdefault(top, dict.fromkeys(cv.ROLES, 0))


def build_repo_model(
    entries: Sequence[Entry],
    *,
    root: str = "",
    truncated: bool = False,
    context: RootContext = NO_CONTEXT,
) -> RepoModel:
    """The model of the files of ``entries`` under ``root`` ("" for the whole repository); ``truncated``:
    the server cut the tree (the counts are lower bounds); ``context``: what the root's files say."""
    tally = _Tally(
        root.strip("/"), parse_gitattributes(context.gitattributes), above=context.above.strip("/")
    )
    tally.add_all(entries)
    return tally.model(truncated=truncated, context=context)


class _Tally:
    """The one pass's running counts."""

    def __init__(self, root: str, overrides: Overrides, *, above: str = "") -> None:
        self.root, self.prefix, self.overrides = root, f"{root}/" if root else "", overrides
        self.folders = _Folders(root, above=above)
        self.above = above
        self.names: dict[str, _Name] = {}
        self.roles: dict[str, cv.Role] = {}
        self.by_role: dict[cv.Role, list[str]] = {role: [] for role in cv.ROLES}
        self.sizes: dict[cv.Role, int] = dict.fromkeys(cv.ROLES, 0)
        self.per_top: dict[str, dict[cv.Role, int]] = {}
        self.top_files: list[str] = []
        self.vendored, self.docs, self.examples = Counter[str](), Counter[str](), Counter[str]()
        self.conventions, self.test_packages, self.test_dirs = Counter[str](), set[str](), dict[str, None]()
        self.ci: dict[str, list[str]] = {}
        self.manifests: list[tuple[str, str]] = []
        self.example_manifests: list[tuple[str, str]] = []  # packages only when a workspace names them
        self.fixture_manifests: list[tuple[str, str]] = []  # test data's: never packages, said apart
        self.package_tops: set[str] = set()
        self.locked: set[tuple[str, str]] = set()  # (folder, ecosystem): an application's lock file
        self.dirs = 0

    def add_all(self, entries: Iterable[Entry]) -> None:
        """One pass. The hot loop keeps its lookups in local names and the last folder's context at
        hand (a tree lists a folder's files together); inside a vendored or generated folder the name
        is not even looked at (without overrides, the folder decides)."""
        folders, names = self.folders, self.names
        roles, by_role, sizes, per_top = self.roles, self.by_role, self.sizes, self.per_top
        overrides = self.overrides if self.overrides else None
        last, folder, at_root, counts, fixed = None, _Folder(), True, _NO_COUNTS, None
        for entry in self._files(entries):
            path = entry.path
            folder_path, _, name = path.rpartition("/")
            if folder_path != last:
                last, folder, at_root = (
                    folder_path,
                    folders.get(folder_path),
                    not folder_path and not self.above,
                )
                counts = (per_top.get(folder.top) or _new_counts(per_top, folder.top)) if folder.top else None
                fixed = _fixed_role(folder) if overrides is None else None
            if fixed is not None:
                role = fixed
                self._note_fixed(folder, folder_path, name)
            else:
                key = name if not at_root else f"/{name}"  # a root name may meet root-only rules
                facts = names.get(key)
                if facts is None:
                    facts = names[key] = _name_facts(name, at_root)
                if overrides is not None:
                    role = _role(folder, facts, at_root, overrides.of(path))
                else:
                    role = _plain_role(folder, facts, at_root)
                if role != "source":
                    self._note(role, folder, folder_path, facts, path)
            roles[path] = role
            by_role[role].append(path)
            if entry.size:
                sizes[role] += entry.size
            if counts is None:
                self.top_files.append(path)
            else:
                counts[role] += 1

    def _files(self, entries: Iterable[Entry]) -> list[Entry]:
        """The files under the root; its folders are counted (and the top-level ones noted) here."""
        prefix = self.prefix
        inside = [e for e in entries if e.path.startswith(prefix)] if prefix else list(entries)
        for entry in inside:
            if entry.type == "dir":
                self.dirs += 1
                top = entry.path[len(prefix) :]
                if "/" not in top:
                    self.per_top.setdefault(top, dict.fromkeys(cv.ROLES, 0))
        return [e for e in inside if e.type not in ("dir", "submodule")]  # a submodule is another repository

    def _note(self, role: cv.Role, folder: _Folder, folder_path: str, facts: _Name, path: str) -> None:
        if role == "vendored":  # under its vendored root; by its name (a minified file): no folder; else
            # (a .gitattributes override) its top folder
            top = f"{self.prefix}{folder.top}" if folder.top and not facts.vendored else ""
            self.vendored[folder.vendored or top] += 1
        elif role == "build":
            if facts.manifest:
                self._note_manifest(folder, folder_path, path)
        elif role == "tests":
            self._note_test(folder, folder_path, facts, path)
        elif role == "ci":
            self.ci.setdefault(folder.ci or facts.ci or "CI", []).append(path)
        elif role == "generated" and facts.generated and path.endswith(_LOCK_ENDS):
            name = path.rpartition("/")[2]
            if name in APP_LOCKS:
                self.locked.add((folder_path, APP_LOCKS[name]))
        elif role == "docs" and folder.docs:
            self.docs[folder.docs] += 1
        elif role == "examples" and folder.examples:
            self.examples[folder.examples] += 1
            if facts.manifest:
                self.example_manifests.append((folder_path, path))

    def _note_test(self, folder: _Folder, folder_path: str, facts: _Name, path: str) -> None:
        if folder.fixtures:
            self._note_fixture(folder, folder_path, path.rpartition("/")[2] if facts.manifest else "")
            return
        if facts.manifest:  # a test package (integration-tests/)
            self.manifests.append((folder_path, path))
        by_class = facts.class_test if folder.test_dir or not folder.source else None
        self.conventions[facts.test or by_class or folder.test_label or "spec/"] += 1
        if folder.test_dir:
            self.test_dirs[folder.test_dir] = None
        self.test_packages.add(folder.test_dir.rpartition("/")[0] if folder.test_dir else folder_path)

    def _note_manifest(self, folder: _Folder, folder_path: str, path: str) -> None:
        """A package manifest: the project's own, or an example's (a package only when a workspace names it)."""
        if folder.examples:
            self.example_manifests.append((folder_path, path))
            return
        self.manifests.append((folder_path, path))
        if folder.top and folder_path == f"{self.prefix}{folder.top}":
            self.package_tops.add(folder.top)  # a top folder that is a package (a gem, a crate)

    def _note_fixed(self, folder: _Folder, folder_path: str, name: str) -> None:
        """A file whose folder decides its role: under its vendored root, or test data."""
        if folder.vendored:
            self.vendored[folder.vendored] += 1
        elif folder.fixtures:
            self._note_fixture(folder, folder_path, name)

    def _note_fixture(self, folder: _Folder, folder_path: str, name: str) -> None:
        """A file of test data: counted with the tests, under its folder's label, in no test package; a
        package manifest among them is kept to be said apart from the packages."""
        self.conventions[folder.test_label or "fixtures/"] += 1
        self.test_dirs[folder.test_dir or folder.fixtures or ""] = None
        if name and manifest_ecosystem(name) is not None:
            self.fixture_manifests.append((folder_path, f"{folder_path}/{name}" if folder_path else name))

    def model(self, *, truncated: bool, context: RootContext) -> RepoModel:
        by_role, sizes = self.by_role, self.sizes
        files, total = len(self.roles), sum(sizes.values())
        packages = packages_of(
            self.manifests,
            root=self.root,
            globs=context.workspace_globs,
            examples=self.example_manifests,
            members=context.members,
            virtual=context.virtual,
            read=context.read,
            locked=self.locked,
        )
        aside = (
            *set_aside(self.example_manifests, "examples", packages, root=self.root),
            *set_aside(self.fixture_manifests, "fixtures", packages, root=self.root),
        )
        return RepoModel(
            root=self.root,
            truncated=truncated,
            files=files,
            bytes=total,
            own_files=files - len(by_role["vendored"]) - len(by_role["generated"]),
            own_bytes=total - sizes["vendored"] - sizes["generated"],
            role_counts={role: len(paths) for role, paths in by_role.items() if paths},
            vendored=_folder_counts(self.vendored),
            tests=TestSummary(
                files=len(by_role["tests"]),
                by_convention=tuple(ConventionCount(k, n) for k, n in _ranked(self.conventions)),
                packages=_test_places(self.test_packages, by_role["tests"], packages),
                dirs=tuple(sorted(self.test_dirs)),
            ),
            packages=packages,
            aside=aside,
            ci=tuple(CiSystem(name=name, paths=tuple(paths)) for name, paths in sorted(self.ci.items())),
            top_level=self._top_level(),
            top_files=tuple(self.top_files),
            docs=_folder_counts(self.docs),
            examples=_folder_counts(self.examples),
            dirs=self.dirs,
            limits=self.overrides.limits,
            _roles=self.roles,
            _by_role={role: tuple(paths) for role, paths in by_role.items() if paths},
        )

    def _top_level(self) -> tuple[TopFolder, ...]:
        return tuple(
            TopFolder(
                name=name,
                files=sum(roles.values()),
                own_files=sum(roles.values()) - roles["vendored"] - roles["generated"],
                role=_dominant(roles, package=name in self.package_tops),
            )
            for name, roles in sorted(self.per_top.items())
        )


_NO_COUNTS: dict[cv.Role, int] | None = None
_LOCK_ENDS = tuple(APP_LOCKS)


def _ranked(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _folder_counts(counts: Counter[str]) -> tuple[FolderCount, ...]:
    return tuple(FolderCount(path, n) for path, n in _ranked(counts) if path)


def _dominant(roles: Mapping[cv.Role, int], *, package: bool = False) -> cv.Role:
    """The role most files have (ties: the first in :data:`ROLES`); tests count as the code they test
    when at least a quarter of the folder's code is not tests (Go keeps ``_test.go`` beside the code),
    or whenever the folder holds a package manifest (a gem of a Ruby monorepo: ``NAME.gemspec``,
    ``lib/`` and a larger ``test/``), so ``cli/`` is source and an ``e2e/`` of test helpers is tests.
    "source" when empty."""
    source, tests = roles["source"], roles["tests"]
    beside = source and (package or 4 * source >= source + tests)
    counted = [(role, n) for role, n in roles.items() if n and not (role == "tests" and beside)]
    return min(counted, key=lambda kv: (-kv[1], _ORDER[kv[0]]))[0] if counted else "source"


def role_by_convention(path: str) -> cv.Role:
    """The role of one path by the conventions alone (no ``.gitattributes``), e.g. for a path met
    outside a tree; O(depth). A whole tree goes through :func:`build_repo_model` instead."""
    folder_path, _, name = path.rpartition("/")
    return _plain_role(_Folders("").get(folder_path), _name_facts(name, not folder_path), not folder_path)


def _test_places(places: set[str], tests: Sequence[str], packages: Sequence[Package]) -> int:
    """How many packages hold the tests: each package of the manifests (a .NET test project, a gem, a
    Gradle module; not a Go module, whose packages are folders) holding test files counts once; test files
    no package holds count by the places their folders name (``test/`` of the root). One walk up each
    test file's path: linear."""
    # a Go package is a folder, not a module: Go's tests stay counted by their folders
    roots = {p.path for p in packages if p.path and not p.uncounted and p.ecosystem != "go"}
    if not roots:
        return len(places)
    owners: set[str] = set()
    orphans = False
    for path in tests:
        owner = _owner(path, roots, inclusive=False)
        if owner is None:
            orphans = True
        else:
            owners.add(owner)
    outside = [p for p in places if _owner(p, roots, inclusive=True) is None] if orphans else []
    return len(owners) + max(len(outside), 1 if orphans else 0)


def _owner(path: str, roots: set[str], *, inclusive: bool) -> str | None:
    """The deepest of ``roots`` holding ``path`` (itself too when ``inclusive``), walking up its parts."""
    parts = path.split("/")
    top = len(parts) if inclusive else len(parts) - 1
    return next((at for n in range(top, 0, -1) if (at := "/".join(parts[:n])) in roots), None)
