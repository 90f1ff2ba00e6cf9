"""What manifests say about each other, once all of them are read: references resolved, and the
repository's own packages.

:func:`resolve` fills in what one manifest leaves to another: a Gradle build's ``libs.x.y`` becomes the
``group:artifact`` and version of the version catalog (``gradle/libs.versions.toml``) when it was read; an
npm ``"x": "catalog:"`` version becomes the one ``pnpm-workspace.yaml``'s catalog pins; a
.NET ``PackageReference`` without a version takes the central one of ``Directory.Packages.props``; a
Cargo member's ``x = { workspace = true }`` takes the root's ``[workspace.dependencies]`` version.

:func:`own_package_names` is the ONE answer to "is this name one of the repository's own packages?"
(the report's dependency lists and the claim check both ask): every package name a manifest declares
(npm/Cargo/Python/Composer/gem names, Go module paths, Maven ``group:artifact`` and artifact, .NET
project names, CMake/Meson project names) and every name a manifest says is the repository's own
(``own_names``: Composer ``replace``, project references, solution projects, path dependencies).
Names compare lower-cased. Pure functions over parsed manifests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_core.report.manifest_jvm import catalog_alias
from agent_core.report.manifest_values import Dependency

if TYPE_CHECKING:
    from agent_core.report.manifest_values import Manifest

_GRADLE = ("build.gradle", "build.gradle.kts")
_DOTNET = (".csproj", ".fsproj", ".vbproj", "directory.build.props")


def resolve(manifests: tuple[Manifest, ...]) -> tuple[Manifest, ...]:
    """The manifests with catalog aliases, central versions and workspace versions filled in (each
    manifest once; a reference nothing resolves stays as written)."""
    catalog = {alias: deps for m in manifests for alias, deps in m.catalog}
    central = {
        d.name.lower(): d.spec
        for m in manifests
        for d in m.versions
        if _named(m.path, ("directory.packages.props",))
    }
    cargo = {
        d.name: d.spec
        for m in manifests
        for d in m.versions
        if _named(m.path, ("cargo.toml",)) and d.spec != "workspace"
    }
    if not (catalog or central or cargo):
        return manifests
    out = []
    for manifest in manifests:
        fixed = manifest
        if catalog and _named(manifest.path, _GRADLE):
            fixed = _each(manifest, lambda d: _from_catalog(d, catalog))
        elif catalog and _named(manifest.path, ("package.json",)):
            fixed = _each(manifest, lambda d: [_from_pnpm(d, catalog)])
        elif central and _named(manifest.path, _DOTNET):
            fixed = _each(manifest, lambda d: [_with_spec(d, central.get(d.name.lower()))])
        elif cargo and _named(manifest.path, ("cargo.toml",)):
            fixed = _each(
                manifest, lambda d: [_with_spec(d, cargo.get(d.name)) if d.spec == "workspace" else d]
            )
        out.append(fixed)
    return tuple(out)


def own_package_names(manifests: Iterable[Manifest]) -> frozenset[str]:
    """The lower-cased names of the repository's own packages, from the parsed manifests; a name without
    a scope also as Python spells it both ways (``autogen-core`` and ``autogen_core``), and the
    projects of a Gradle build or Maven modules as ``:artifact`` (matched by :func:`is_own` against a
    dependency's ``group:artifact``)."""
    found: set[str] = set()
    for manifest in manifests:
        if manifest.status != "parsed":
            continue
        names = [*([manifest.name] if manifest.name else []), *manifest.own_names]
        for name in names:
            found |= _spellings(name.lower())
        if _named(manifest.path, ("settings.gradle", "settings.gradle.kts")):  # a project's name is its own
            found |= {member.rsplit("/", 1)[-1].lower() for member in manifest.workspaces}
        if _named(manifest.path, ("settings.gradle", "settings.gradle.kts", "pom.xml")):
            found |= {":" + member.rsplit("/", 1)[-1].lower() for member in manifest.workspaces}
        if _named(manifest.path, (*_GRADLE, "pom.xml")):
            found |= {":" + own.rsplit("/", 1)[-1].lower() for own in manifest.own_names if ":" not in own}
            if manifest.name:
                found.add(":" + manifest.name.lower())
    found.discard("")
    found.discard(":")
    return frozenset(found)


_NAMED_BY_FILE = (".gemspec", ".csproj", ".fsproj", ".vbproj")


def own_names_in_tree(manifest_paths: Iterable[str]) -> frozenset[str]:
    """The own packages a tree names without a read: a gem is named by its ``NAME.gemspec`` and a .NET
    project by its ``NAME.csproj`` (their conventions), lower-cased; so a monorepo's sibling packages
    whose manifests were not read are still never listed as its dependencies."""
    found: set[str] = set()
    for path in manifest_paths:
        name = path.rsplit("/", 1)[-1]
        low = name.lower()
        if low.endswith(_NAMED_BY_FILE):
            found.add(name[: name.rfind(".")].lower())
    found.discard("")
    return frozenset(found)


def root_workspaces(manifests: Iterable[Manifest]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What the manifests read (given with paths from the root) say of its packages: the member
    folders or globs of every ecosystem's workspace (npm/pnpm/uv globs, Cargo members, Gradle includes,
    Maven modules, ``go.work``, a solution's project folders), and the folders that declare no package
    of their own (a Cargo ``[workspace]`` without ``[package]``, a pyproject without ``[project]``; "" is
    the root). Members are the root's; a workspace root in a folder is only said to be no package."""
    members: list[str] = []
    virtual: list[str] = []
    for manifest in manifests:
        if manifest.status != "parsed":
            continue
        folder = manifest.path.rpartition("/")[0]  # a nested workspace root: autogen's python/pyproject.toml
        if not folder:
            members += [m for m in manifest.workspaces if m and m != "."]
        if (
            manifest.workspaces
            and not manifest.name
            and _named(manifest.path, ("cargo.toml", "pyproject.toml"))
        ):
            virtual.append(folder)
    return tuple(dict.fromkeys(members)), tuple(dict.fromkeys(virtual))


def is_own(name: str, own: frozenset[str]) -> bool:
    """A dependency's name is one of the repository's own packages: by name (either Python spelling),
    or a ``group:artifact`` whose artifact is one of the build's own projects or modules."""
    low = name.lower()
    if low in own or _pep503(low) in own:
        return True
    return ":" in low and ":" + low.rsplit(":", 1)[1] in own


def _spellings(name: str) -> set[str]:
    if ":" in name or "/" in name or "@" in name:
        return {name}
    return {name, _pep503(name), _pep503(name).replace("-", "_")}


def _pep503(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name)


def _each(manifest: Manifest, fix: Callable[[Dependency], list[Dependency]]) -> Manifest:
    def fixed(items: tuple[Dependency, ...]) -> tuple[Dependency, ...]:
        return tuple(d for dep in items for d in fix(dep))

    return replace(
        manifest,
        runtime=fixed(manifest.runtime),
        dev=fixed(manifest.dev),
        groups=tuple((name, fixed(deps)) for name, deps in manifest.groups),
    )


def _from_catalog(dep: Dependency, catalog: dict[str, tuple[Dependency, ...]]) -> list[Dependency]:
    if not dep.name.startswith("libs."):
        return [dep]
    return list(catalog.get(catalog_alias(dep.name), (dep,)))


def _from_pnpm(dep: Dependency, catalog: dict[str, tuple[Dependency, ...]]) -> Dependency:
    """``"vue": "catalog:"`` (the default catalog) or ``"catalog:name"``: the version pnpm's catalog pins."""
    if not dep.spec.startswith("catalog:"):
        return dep
    found = catalog.get(f"catalog:{dep.spec[8:].strip() or 'default'}:{dep.name}")
    return replace(dep, spec=found[0].spec) if found else dep


def _with_spec(dep: Dependency, spec: str | None) -> Dependency:
    return replace(dep, spec=spec) if spec and (not dep.spec or dep.spec == "workspace") else dep


def _named(path: str, names: tuple[str, ...]) -> bool:
    return path.rsplit("/", 1)[-1].lower().endswith(names)
