"""Manifests and packages: the ONE table of every ecosystem's manifest files, and the packages a tree holds.

:data:`MANIFEST_KINDS` names each manifest file (by its exact name, case-insensitive, or by its suffix:
``.gemspec``, ``.csproj``...), its ecosystem, whether it declares a package of its folder, and whether the
report parses it (:mod:`agent_core.sources.manifest_files` keeps those whole, and
:mod:`agent_core.report.manifests` holds one parser per kind). Adding an ecosystem is a row here, a
parser there, and its fixtures.

Packages come from the tree alone (no file is read to count them): every ``go.mod`` is a Go module, every
``package.json`` an npm package, every ``Cargo.toml`` a crate, ``pyproject.toml``/``setup.py`` a Python
project, ``pom.xml`` a Maven module, ``build.gradle(.kts)`` a Gradle project, ``composer.json`` a Composer
package, ``NAME.gemspec`` a gem, ``*.csproj``/``*.fsproj``/``*.vbproj`` a .NET project — one package per
folder and ecosystem. C and C++ build files are programs, not package lists: a ``CMakeLists.txt`` (or
``meson.build``) counts as a project only where no folder above it has one, since a nested one is almost
always pulled in by the parent's ``add_subdirectory``/``subdir`` (the parser reads those when the file is
read). Manifests that are not the project's own are left out: vendored and generated paths
(``node_modules/``, ``vendor/``...), a tool's install below the root (a ``composer.json`` beside its own
``composer.lock``: :data:`APP_LOCKS`), examples and test fixtures (``testdata/``, ``fixtures/``); those of
examples and fixtures are kept apart (:func:`set_aside`) so a count says what it leaves out
(:mod:`agent_core.repomodel.counts`). An unread ``pyproject.toml``/``Cargo.toml`` above other packages
may declare only their workspace: it is marked, not counted, until a read says. A package is a test
package when its folder says so (``Foo.Tests``, ``tests/``, ``spec/``, ``tests-integration``).

npm, yarn and pnpm workspaces: the root's ``workspaces`` globs (:func:`workspace_globs`) say which
folders are members, matched in linear work by :mod:`agent_core.repomodel.globs`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal

from agent_core.repomodel.globs import MAX_GLOB_LENGTH, MAX_GLOBS, Globs, workspace_member

__all__ = [
    "APP_LOCKS",
    "FIXTURE_DIRS",
    "MANIFESTS",
    "MANIFEST_KINDS",
    "MAX_GLOBS",
    "MAX_GLOB_LENGTH",
    "TOP_ONLY",
    "Globs",
    "ManifestKind",
    "Package",
    "is_fixture",
    "is_test_folder",
    "is_test_package",
    "manifest_ecosystem",
    "manifest_kind",
    "packages_of",
    "set_aside",
    "workspace_globs",
    "workspace_member",
]


@dataclass(frozen=True, kw_only=True)
class ManifestKind:
    """A kind of manifest file: ``key`` is its lower-cased name, or its suffix starting with a dot."""

    key: str
    ecosystem: str
    package: bool = False  # declares a package of its folder
    parsed: bool = True  # the report parses it


def _kinds(ecosystem: str, *keys: str, package: bool = False, parsed: bool = True) -> list[ManifestKind]:
    return [ManifestKind(key=k, ecosystem=ecosystem, package=package, parsed=parsed) for k in keys]


#: Every manifest the app knows, by ecosystem.
MANIFEST_KINDS: tuple[ManifestKind, ...] = (
    *_kinds("go", "go.mod", package=True),
    *_kinds("go", "go.work", "vendor.mod"),
    *_kinds("npm", "package.json", package=True),
    *_kinds("npm", "pnpm-workspace.yaml"),
    *_kinds("cargo", "cargo.toml", package=True),
    *_kinds("python", "pyproject.toml", package=True),
    *_kinds("python", "setup.py", package=True, parsed=False),
    *_kinds("python", "setup.cfg"),
    *_kinds("maven", "pom.xml", package=True),
    *_kinds("gradle", "build.gradle", "build.gradle.kts", package=True),
    *_kinds("gradle", "settings.gradle", "settings.gradle.kts", ".versions.toml"),
    *_kinds("composer", "composer.json", package=True),
    *_kinds("rubygems", ".gemspec", package=True),
    *_kinds("rubygems", "gemfile"),
    *_kinds("nuget", ".csproj", ".fsproj", ".vbproj", package=True),
    *_kinds("nuget", ".sln", "directory.packages.props", "directory.build.props", "global.json"),
    *_kinds("cmake", "cmakelists.txt", package=True),
    *_kinds("meson", "meson.build", package=True),
    *_kinds("vcpkg", "vcpkg.json"),
    *_kinds("conan", "conanfile.txt", "conanfile.py"),
    *_kinds("hex", "mix.exs", package=True, parsed=False),
    *_kinds("pub", "pubspec.yaml", package=True, parsed=False),
)
_BY_NAME: Mapping[str, ManifestKind] = MappingProxyType({k.key: k for k in MANIFEST_KINDS if k.key[0] != "."})
_SUFFIXES: tuple[tuple[str, ManifestKind], ...] = tuple((k.key, k) for k in MANIFEST_KINDS if k.key[0] == ".")
_SUFFIX_KEYS = tuple(suffix for suffix, _kind in _SUFFIXES)
#: Ecosystems whose nested build files are the parent's parts, not packages of their own.
TOP_ONLY = frozenset({"cmake", "meson"})

#: Manifest file name → ecosystem, for the manifests that declare a package (exact names only).
MANIFESTS: Mapping[str, str] = MappingProxyType(
    {k.key: k.ecosystem for k in MANIFEST_KINDS if k.package and k.key[0] != "."}
)
#: Lock files that pin an application's install, by ecosystem: below the root, the folder holding one is
#: a tool's installation (a build script's ``composer.json`` with its ``composer.lock`` and ``vendor/``),
#: not a package of the repository (a monorepo's packages resolve together, with the root's lock).
APP_LOCKS: Mapping[str, str] = MappingProxyType({"composer.lock": "composer"})
FIXTURE_DIRS = frozenset({"testdata", "fixtures", "__fixtures__", "test-fixtures"})
_TEST_FOLDER = re.compile(
    r"^(tests?|specs?|__tests__|e2e|integration-tests?)$|^tests?[-_.]|[-_.](unit|integration|functional|e2e)?"
    r"tests?$|[-_.]specs?$"
)
_CAMEL_TEST = re.compile(r"[a-z0-9](Unit|Integration|Functional)?Tests?$|\.Specs$")
_GO_TEST = re.compile(r"^(\w*test|testutil|testdata|e2e)$")


def manifest_kind(name: str) -> ManifestKind | None:
    """The kind of manifest a file name is (any case), or None."""
    low = name.lower()
    found = _BY_NAME.get(low)
    if found is not None:
        return found
    if not low.endswith(_SUFFIX_KEYS):  # one call for the common case: no manifest
        return None
    return next((kind for suffix, kind in _SUFFIXES if low.endswith(suffix) and len(low) > len(suffix)), None)


#: Why a package manifest is not counted as one of the project's packages: it lies in examples or in
#: test data (:func:`set_aside`), or it is an unread manifest above other packages of its ecosystem that
#: may declare only their workspace (a ``pyproject.toml`` or ``Cargo.toml``: :func:`packages_of`).
Uncounted = Literal["", "examples", "fixtures", "unread_root"]
#: Manifests that may declare a workspace and no package of their own (uv, Cargo): only a read tells.
_MAYBE_VIRTUAL = frozenset({"pyproject.toml", "cargo.toml"})


@dataclass(frozen=True, kw_only=True)
class Package:
    """A package or module: its folder ("" for the root), ecosystem, manifest path, whether the root's
    workspaces name it, whether it is a test package (by its folder's name or place), and, when it is
    not counted as one of the project's packages, why (:data:`Uncounted`)."""

    path: str
    ecosystem: str
    manifest: str
    member_of_workspace: bool = False
    test: bool = False
    uncounted: Uncounted = ""


def manifest_ecosystem(name: str) -> str | None:
    """The ecosystem a manifest file name declares a package of, or None."""
    kind = manifest_kind(name)
    return kind.ecosystem if kind is not None and kind.package else None


def is_fixture(folder: str) -> bool:
    return any(segment in FIXTURE_DIRS for segment in folder.split("/"))


def is_test_folder(folder: str) -> bool:
    """A folder of tests by its own name or a folder above it: ``Polly.Core.Tests``, ``tests/unit``,
    ``spec``, ``tests-integration``, ``foo_test``."""
    return any(_TEST_FOLDER.search(segment.lower()) for segment in folder.split("/") if segment)


def is_test_package(folder: str, ecosystem: str) -> bool:
    """A package of tests by its own folder's name (not its place: ``test/Polly.TestUtils`` is a helper
    library): ``Polly.Core.Tests``, ``AutoFixtureUnitTest``, ``json-tests``, ``tests-integration``; a Go
    module ``componenttest``."""
    name = folder.rpartition("/")[2]
    return bool(
        _TEST_FOLDER.search(name.lower())
        or _CAMEL_TEST.search(name)
        or (ecosystem == "go" and _GO_TEST.match(name.lower()))
    )


def workspace_globs(package_json: str | None) -> tuple[str, ...]:
    """The ``workspaces`` globs of a root ``package.json`` (a list, or yarn's ``{"packages": [...]}``);
    () when there are none or the text does not parse."""
    if not package_json:
        return ()
    try:
        data = json.loads(package_json)
    except (json.JSONDecodeError, RecursionError):
        return ()
    found = data.get("workspaces") if isinstance(data, dict) else None
    if isinstance(found, dict):
        found = found.get("packages")
    if not isinstance(found, list):
        return ()
    return tuple(g for g in found[:MAX_GLOBS] if isinstance(g, str) and g.strip())


def packages_of(
    manifests: Sequence[tuple[str, str]],
    *,
    root: str = "",
    globs: Sequence[str] = (),
    examples: Sequence[tuple[str, str]] = (),
    members: Sequence[str] = (),
    virtual: Sequence[str] = (),
    read: Sequence[str] = (),
    locked: Collection[tuple[str, str]] = (),
) -> tuple[Package, ...]:
    """One :class:`Package` per folder and ecosystem from ``(folder, manifest path)`` pairs of the
    project's own manifests, in path order. Left out, as not the project's packages: fixtures; scaffolding
    templates (``template-react/``, ``{{cookiecutter.name}}/``); hidden tool folders (``.phpstan/``);
    Composer tools installed with composer-bin-plugin (``vendor-bin/phpstan/``); Gradle's build logic (``buildSrc/``, ``build-logic/``); a nested CMake/Meson file; anything in the
    test folder of another package (``railties/test/.../package.json``: test data); an npm
    ``package.json`` inside another package's folder that the workspaces do not name (an entry point's
    stub such as ``packages/vue/server-renderer/``); and the root's ``package.json`` when it declares
    workspaces (the monorepo's private root, not a package).

    What the root's manifests say, when they were read: ``members`` (the member folders or globs every
    ecosystem's workspace names: Cargo ``members``, Gradle ``include``, Maven ``<modules>``, ``go.work``,
    a solution's projects, npm/pnpm workspaces) makes a manifest under ``examples/`` or ``playground/``
    a package when it names it; ``virtual`` folders declare no package of their own (a Cargo
    ``[workspace]`` without ``[package]``)."""
    prefix = f"{root}/" if root else ""
    matcher = Globs(globs) if globs else None
    explicit = {m.strip().removeprefix("./").strip("/") for m in members if not any(c in m for c in "*?[!")}
    left_out = frozenset(virtual)
    found: list[tuple[str, str, str, str]] = []  # folder, manifest, ecosystem, folder from the root
    candidates = [*manifests, *(examples if explicit else ())]
    for index, (folder, manifest) in enumerate(candidates):
        ecosystem = manifest_ecosystem(manifest.rsplit("/", 1)[-1])
        relative = folder[len(prefix) :] if prefix and folder.startswith(prefix) else folder
        if (
            ecosystem is None
            or is_fixture(folder)
            or _not_a_package(relative, ecosystem)
            or relative in left_out
            or (relative and (folder, ecosystem) in locked)
        ):
            continue
        if index >= len(manifests) and relative not in explicit:
            continue  # an example that no workspace names by its path (a glob such as playground/** is no choice)
        found.append((folder, manifest, ecosystem, relative))
    found = _without_templates(found)
    folders: dict[str, set[str]] = {}  # ecosystem -> its package folders (from the root)
    for _folder, _manifest, ecosystem, relative in found:
        folders.setdefault(ecosystem, set()).add(relative)
    every = set().union(*folders.values()) if folders else set()
    seen: dict[tuple[str, str], Package] = {}
    for folder, manifest, ecosystem, relative in sorted(found, key=lambda f: (f[0].count("/"), f[:2])):
        member = ecosystem == "npm" and matcher is not None and matcher.member(relative)
        if (folder, ecosystem) in seen or _inside_tests_of(relative, every):
            continue
        if ecosystem in TOP_ONLY and _has_ancestor(relative, folders[ecosystem]):
            continue
        if ecosystem == "npm" and not member and _nearest(relative, folders["npm"]):
            continue  # inside another npm package (not the root), and no workspace names it
        if ecosystem == "npm" and not relative and matcher is not None and len(folders["npm"]) > 1:
            continue  # the workspaces' root
        seen[(folder, ecosystem)] = Package(
            path=folder,
            ecosystem=ecosystem,
            manifest=manifest,
            member_of_workspace=member,
            test=bool(relative) and is_test_package(relative, ecosystem),
        )
    return tuple(
        sorted(_unread_roots(seen.values(), prefix, frozenset(read)), key=lambda p: (p.path, p.ecosystem))
    )


def _unread_roots(packages: Iterable[Package], prefix: str, read: frozenset[str]) -> Iterator[Package]:
    """The packages, each unread ``pyproject.toml``/``Cargo.toml`` above another package of its
    ecosystem marked as an unread root (linear: each package's folders above it are named once)."""
    kept = list(packages)
    above: set[tuple[str, str]] = set()
    for package in kept:
        at = package.path.removeprefix(prefix) if prefix else package.path
        while at:
            at = at.rpartition("/")[0]
            if (at, package.ecosystem) in above:
                break
            above.add((at, package.ecosystem))
    for package in kept:
        relative = package.path.removeprefix(prefix) if prefix else package.path
        name = package.manifest.rpartition("/")[2].lower()
        manifest = package.manifest.removeprefix(prefix) if prefix else package.manifest
        if name in _MAYBE_VIRTUAL and (relative, package.ecosystem) in above and manifest not in read:
            yield replace(package, uncounted="unread_root")
        else:
            yield package


def set_aside(
    manifests: Sequence[tuple[str, str]],
    why: Uncounted,
    packages: Sequence[Package],
    *,
    root: str = "",
) -> tuple[Package, ...]:
    """The package manifests of examples or test data (``why``) that are not the project's packages,
    one per folder and ecosystem, said apart so a count says what it leaves out ("47 .NET projects, not
    counting 17 in examples"). Left out as for :func:`packages_of`: templates, hidden tool folders,
    Gradle's build logic, and CMake/Meson files (a nested one is its parent's part)."""
    prefix = f"{root}/" if root else ""
    taken = {(p.path, p.ecosystem) for p in packages}
    found: dict[tuple[str, str], Package] = {}
    for folder, manifest in manifests:
        ecosystem = manifest_ecosystem(manifest.rsplit("/", 1)[-1])
        relative = folder.removeprefix(prefix) if prefix else folder
        if ecosystem is None or ecosystem in TOP_ONLY or _not_a_package(relative, ecosystem):
            continue
        if (folder, ecosystem) not in taken:
            found.setdefault(
                (folder, ecosystem),
                Package(path=folder, ecosystem=ecosystem, manifest=manifest, uncounted=why),
            )
    kept = _without_templates(
        [(p.path, p.manifest, p.ecosystem, p.path.removeprefix(prefix)) for p in found.values()]
    )
    return tuple(found[(f, e)] for f, _m, e, _r in sorted(kept))


_BUILD_LOGIC = frozenset({"buildsrc", "build-logic", "gradle-plugins"})
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "e2e"})


def _not_a_package(relative: str, ecosystem: str) -> bool:
    for segment in relative.split("/") if relative else ():
        low = segment.lower()
        if low.startswith(".") or low in ("template", "templates") or "{{" in low:
            return True
        if ecosystem == "gradle" and low in _BUILD_LOGIC:
            return True
        if ecosystem == "composer" and low == "vendor-bin":  # composer-bin-plugin's tool installs
            return True
    return False


def _without_templates(found: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    """Without scaffolding templates: several ``template-*`` folders side by side (create-vite's
    ``template-react``, ``template-vue``...); one ``template-explorer`` is a package like any other."""
    per_parent: dict[str, int] = {}
    for *_rest, relative in found:
        parent, _, name = relative.rpartition("/")
        if name.lower().startswith("template"):
            per_parent[parent] = per_parent.get(parent, 0) + 1
    return [
        f
        for f in found
        if not (
            f[3].rpartition("/")[2].lower().startswith("template")
            and per_parent.get(f[3].rpartition("/")[0], 0) > 1
        )
    ]


def _inside_tests_of(relative: str, packages: set[str]) -> bool:
    """The folder lies in a test folder somewhere below another package that is not the root's:
    test data (``railties/test/isolation/assets``, ``packages/vite/src/node/__tests__/packages/x``)."""
    parts = relative.split("/")
    prefix, above = parts[0], False
    for segment in parts[1:-1]:  # a test folder above this one (a test module's own folder is kept)
        above = above or prefix in packages
        if above and segment.lower() in _TEST_DIRS:
            return True
        prefix = f"{prefix}/{segment}"
    return False


def _has_ancestor(folder: str, folders: set[str]) -> bool:
    at = folder
    while at:
        at = at.rpartition("/")[0]
        if at in folders:
            return True
    return False


def _nearest(relative: str, folders: set[str]) -> str | None:
    """The nearest folder above ``relative`` (the root left out) that is in ``folders``."""
    at = relative
    while "/" in at:
        at = at.rpartition("/")[0]
        if at in folders:
            return at
    return None
