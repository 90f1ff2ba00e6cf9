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
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from agent_core.repomodel import conventions as cv
from agent_core.repomodel.attributes import Attribute, Overrides, parse_gitattributes
from agent_core.repomodel.ci import CI_DIRS, ci_file
from agent_core.repomodel.model import (
    CiSystem,
    ConventionCount,
    FolderCount,
    RepoModel,
    TestSummary,
    TopFolder,
)
from agent_core.repomodel.packages import manifest_ecosystem, packages_of

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


@dataclass(frozen=True, slots=True)
class _Folder:
    """What a folder's place says about every file inside it."""

    top: str | None = None  # the top-level folder (of the model's root) holding it; None: the root
    vendored: str | None = None  # the vendored root holding it
    generated: bool = False
    test_dir: str | None = None  # the test folder holding it
    test_label: str | None = None
    examples: str | None = None  # the outermost examples folder holding it
    docs: str | None = None  # the documentation folder holding it
    ci: str | None = None  # the CI system whose folder holds it


class _Name(NamedTuple):
    """What a file's name alone says (computed once per distinct name)."""

    vendored: bool
    generated: bool
    test: str | None  # the test convention's label
    docs: bool
    build: bool
    ci: str | None  # the CI system, when the file is at the repository's root


def _name_facts(name: str) -> _Name:
    lower = name.lower()
    return _Name(
        vendored=cv.vendored_name(lower),
        generated=cv.generated_name(lower),
        test=cv.test_name(name),
        docs=cv.doc_name(name, lower),
        build=cv.build_name(lower),
        ci=ci_file(lower),
    )


class _Folders:
    """Folder contexts, computed once per folder from the parent's."""

    def __init__(self, root: str) -> None:
        self._root = root
        self.known: dict[str, _Folder] = {root: _Folder()}
        if root:  # the repository's root, above the model's: only its conventions matter
            self.known[""] = _Folder()

    def get(self, path: str) -> _Folder:
        found = self.known.get(path)
        if found is None:
            parent, _, name = path.rpartition("/")
            up = self.get(parent)
            if (
                parent != self._root
                and name not in _TELLING
                and name.lower() not in _TELLING
                and path not in CI_DIRS
            ):
                found = up  # an ordinary folder inside another says nothing new: share its context
            else:
                top = name if parent == self._root else up.top
                found = _child(up, top, parent, name, path)
            self.known[path] = found
        return found


# Folder names that change a context below the top level (and CI_DIRS' nested paths, checked apart).
_TELLING = cv.VENDORED_DIRS | cv.GENERATED_DIRS | cv.TEST_DIRS | cv.EXAMPLE_DIRS | {"wrapper"}


def _child(up: _Folder, top: str | None, parent: str, name: str, path: str) -> _Folder:
    at_root = not parent
    vendored = up.vendored or (
        path
        if name in cv.VENDORED_DIRS
        or (at_root and name in cv.ROOT_VENDORED_DIRS)
        or (name == "wrapper" and parent.rpartition("/")[2] == "gradle")
        else None
    )
    label = None if up.test_dir else cv.test_dir_label(parent.rpartition("/")[2], name)
    return _Folder(
        top=top,
        vendored=vendored,
        generated=up.generated or name in cv.GENERATED_DIRS,
        test_dir=up.test_dir or (path if label else None),
        test_label=up.test_label or label,
        examples=up.examples or (path if name.lower() in cv.EXAMPLE_DIRS else None),
        docs=up.docs or (path if at_root and name in cv.ROOT_DOC_DIRS else None),
        ci=up.ci or CI_DIRS.get(path),
    )


def _role(folder: _Folder, facts: _Name, at_root: bool, forced: Mapping[Attribute, bool]) -> cv.Role:
    """The rules in order: vendored, generated, CI, tests, examples, docs, build, else source; a
    ``.gitattributes`` override sets (True) or clears (False) vendored, generated and documentation."""
    vendored, generated, docs = forced.get("vendored"), forced.get("generated"), forced.get("documentation")
    if vendored or (vendored is None and (folder.vendored or facts.vendored)):
        return "vendored"
    if generated or (generated is None and (folder.generated or facts.generated)):
        return "generated"
    if docs:
        return "docs"
    if folder.ci or (at_root and facts.ci):
        return "ci"
    if folder.test_dir or facts.test:
        return "tests"
    if folder.examples:
        return "examples"
    if docs is None and (folder.docs or facts.docs):
        return "docs"
    return "build" if facts.build else "source"


def facts_name(path: str, folder_path: str) -> str:
    """The file name of ``path`` in ``folder_path``."""
    return path[len(folder_path) + 1 :] if folder_path else path


def _new_counts(per_top: dict[str, dict[cv.Role, int]], top: str) -> dict[cv.Role, int]:
    return per_top.setdefault(top, dict.fromkeys(cv.ROLES, 0))


def _fixed_role(folder: _Folder) -> cv.Role | None:
    """The role every file of a folder has whatever its name (no overrides): vendored, generated."""
    if folder.vendored:
        return "vendored"
    return "generated" if folder.generated else None


def _plain_role(folder: _Folder, facts: _Name, at_root: bool) -> cv.Role:
    """:func:`_role` without overrides (the common case, kept apart for speed)."""
    if folder.vendored or facts.vendored:
        return "vendored"
    if folder.generated or facts.generated:
        return "generated"
    if folder.ci or (at_root and facts.ci):
        return "ci"
    if folder.test_dir or facts.test:
        return "tests"
    if folder.examples:
        return "examples"
    if folder.docs or facts.docs:
        return "docs"
    return "build" if facts.build else "source"


def build_repo_model(
    entries: Sequence[Entry],
    *,
    root: str = "",
    truncated: bool = False,
    gitattributes: str | None = None,
    workspace_globs: Sequence[str] = (),
) -> RepoModel:
    """The model of the files of ``entries`` under ``root`` ("" for the whole repository); ``truncated``:
    the server cut the tree (the counts are lower bounds); ``gitattributes``: the root ``.gitattributes``
    text when it was read; ``workspace_globs``: the root ``package.json``'s workspaces."""
    tally = _Tally(root.strip("/"), parse_gitattributes(gitattributes))
    tally.add_all(entries)
    return tally.model(truncated=truncated, workspace_globs=workspace_globs)


class _Tally:
    """The one pass's running counts."""

    def __init__(self, root: str, overrides: Overrides) -> None:
        self.root, self.prefix, self.overrides = root, f"{root}/" if root else "", overrides
        self.folders = _Folders(root)
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
        self.dirs = 0

    def add_all(self, entries: Iterable[Entry]) -> None:
        """One pass. The hot loop keeps its lookups in local names and the last folder's context at
        hand (a tree lists a folder's files together); inside a vendored or generated folder the name
        is not even looked at (without overrides, the folder decides)."""
        folders, names = self.folders, self.names
        roles, by_role, sizes, per_top, vendored = (
            self.roles,
            self.by_role,
            self.sizes,
            self.per_top,
            self.vendored,
        )
        overrides = self.overrides if self.overrides else None
        last, folder, at_root, counts, fixed = None, _Folder(), True, _NO_COUNTS, None
        for entry in self._files(entries):
            path = entry.path
            folder_path, _, name = path.rpartition("/")
            if folder_path != last:
                last, folder, at_root = folder_path, folders.get(folder_path), not folder_path
                counts = (per_top.get(folder.top) or _new_counts(per_top, folder.top)) if folder.top else None
                fixed = _fixed_role(folder) if overrides is None else None
            if fixed is not None:
                role = fixed
                if folder.vendored:
                    vendored[folder.vendored] += 1
            else:
                facts = names.get(name)
                if facts is None:
                    facts = names[name] = _name_facts(name)
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
        return [e for e in inside if e.type != "dir"]

    def _note(self, role: cv.Role, folder: _Folder, folder_path: str, facts: _Name, path: str) -> None:
        if role == "vendored":  # under its vendored root; else (an override, a minified file) its top folder
            self.vendored[folder.vendored or (f"{self.prefix}{folder.top}" if folder.top else "")] += 1
        elif role == "build":
            if not folder.examples and manifest_ecosystem(facts_name(path, folder_path)):
                self.manifests.append((folder_path, path))
        elif role == "tests":
            if manifest_ecosystem(facts_name(path, folder_path)):  # a test package (integration-tests/)
                self.manifests.append((folder_path, path))
            self.conventions[facts.test or folder.test_label or "tests/"] += 1
            if folder.test_dir:
                self.test_dirs[folder.test_dir] = None
            if facts.test or (folder.test_label != "testdata/" and folder.test_dir):
                self.test_packages.add(folder.test_dir.rpartition("/")[0] if folder.test_dir else folder_path)
        elif role == "ci":
            self.ci.setdefault(folder.ci or facts.ci or "CI", []).append(path)
        elif role == "docs" and folder.docs:
            self.docs[folder.docs] += 1
        elif role == "examples" and folder.examples:
            self.examples[folder.examples] += 1

    def model(self, *, truncated: bool, workspace_globs: Sequence[str]) -> RepoModel:
        by_role, sizes = self.by_role, self.sizes
        files, total = len(self.roles), sum(sizes.values())
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
                packages=len(self.test_packages),
                dirs=tuple(sorted(self.test_dirs)),
            ),
            packages=packages_of(self.manifests, root=self.root, globs=workspace_globs),
            ci=tuple(CiSystem(name=name, paths=tuple(paths)) for name, paths in sorted(self.ci.items())),
            top_level=self._top_level(),
            top_files=tuple(self.top_files),
            docs=_folder_counts(self.docs),
            examples=_folder_counts(self.examples),
            build_config=tuple(by_role["build"]),
            dirs=self.dirs,
            _roles=self.roles,
            _by_role={role: tuple(paths) for role, paths in by_role.items() if paths},
        )

    def _top_level(self) -> tuple[TopFolder, ...]:
        return tuple(
            TopFolder(
                name=name,
                files=sum(roles.values()),
                own_files=sum(roles.values()) - roles["vendored"] - roles["generated"],
                role=_dominant(roles),
            )
            for name, roles in sorted(self.per_top.items())
        )


_NO_COUNTS: dict[cv.Role, int] | None = None


def _ranked(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _folder_counts(counts: Counter[str]) -> tuple[FolderCount, ...]:
    return tuple(FolderCount(path, n) for path, n in _ranked(counts) if path)


def _dominant(roles: Mapping[cv.Role, int]) -> cv.Role:
    """The role most files have (ties: the first in :data:`ROLES`); tests count as the code they test
    when at least a quarter of the folder's code is not tests (Go keeps ``_test.go`` beside the code),
    so ``cli/`` is source and an ``e2e/`` of test helpers is tests. "source" when empty."""
    source, tests = roles["source"], roles["tests"]
    beside = source and 4 * source >= source + tests
    counted = [(role, n) for role, n in roles.items() if n and not (role == "tests" and beside)]
    return min(counted, key=lambda kv: (-kv[1], _ORDER[kv[0]]))[0] if counted else "source"


def role_by_convention(path: str) -> cv.Role:
    """The role of one path by the conventions alone (no ``.gitattributes``), e.g. for a path met
    outside a tree; O(depth). A whole tree goes through :func:`build_repo_model` instead."""
    folder_path, _, name = path.rpartition("/")
    return _plain_role(_Folders("").get(folder_path), _name_facts(name), not folder_path)
