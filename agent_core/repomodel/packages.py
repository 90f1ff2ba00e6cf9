"""Packages and modules, from the manifests found in the tree.

Every ``go.mod`` is a Go module, every ``package.json`` an npm package, every ``Cargo.toml`` a crate,
``pyproject.toml``/``setup.py`` a Python project, ``pom.xml`` a Maven module, ``build.gradle(.kts)`` a
Gradle project (one package per folder: a folder with both ``pyproject.toml`` and ``setup.py`` is one
project). Manifests that are not the project's own are left out: vendored and generated paths
(``node_modules/``, ``vendor/``...), and test fixtures (``testdata/``, ``fixtures/``).

npm, yarn and pnpm workspaces: the root's ``workspaces`` globs (:func:`workspace_globs` reads them from
the root ``package.json``) say which folders are members. They are matched one path segment at a time
with :func:`fnmatch.fnmatchcase`, ``**`` standing for any number of segments, and ``!glob`` excluding,
as npm's workspaces do.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from types import MappingProxyType

#: Manifest file name → ecosystem.
MANIFESTS: Mapping[str, str] = MappingProxyType(
    {
        "go.mod": "go",
        "package.json": "npm",
        "Cargo.toml": "cargo",
        "pyproject.toml": "python",
        "setup.py": "python",
        "pom.xml": "maven",
        "build.gradle": "gradle",
        "build.gradle.kts": "gradle",
        "composer.json": "composer",
        "mix.exs": "hex",
        "pubspec.yaml": "pub",
    }
)
FIXTURE_DIRS = frozenset({"testdata", "fixtures", "__fixtures__", "test-fixtures"})
MAX_GLOBS = 200
_MAX_DOUBLE_STARS = 3  # more ``**`` in one glob is refused: matching stays polynomial in a short path


@dataclass(frozen=True, kw_only=True)
class Package:
    """A package or module: its folder ("" for the root), ecosystem, manifest path, and whether the
    root's workspaces name it."""

    path: str
    ecosystem: str
    manifest: str
    member_of_workspace: bool = False


def manifest_ecosystem(name: str) -> str | None:
    """The ecosystem a manifest file name declares a package of, or None."""
    return MANIFESTS.get(name)


def is_fixture(folder: str) -> bool:
    return any(segment in FIXTURE_DIRS for segment in folder.split("/"))


def workspace_globs(package_json: str | None) -> tuple[str, ...]:
    """The ``workspaces`` globs of a root ``package.json`` (a list, or yarn's ``{"packages": [...]}``);
    () when there are none or the text does not parse."""
    if not package_json:
        return ()
    try:
        data = json.loads(package_json)
    except json.JSONDecodeError:
        return ()
    found = data.get("workspaces") if isinstance(data, dict) else None
    if isinstance(found, dict):
        found = found.get("packages")
    if not isinstance(found, list):
        return ()
    return tuple(g for g in found[:MAX_GLOBS] if isinstance(g, str) and g.strip())


def workspace_member(folder: str, globs: Sequence[str]) -> bool:
    """True when ``folder`` (relative to the workspace root) is named by ``globs``."""
    if not globs or not folder:
        return False
    member = False
    for glob in globs:
        negated = glob.startswith("!")
        pattern = _segments(glob[1:] if negated else glob)
        if pattern.count("**") <= _MAX_DOUBLE_STARS and _matches(folder.split("/"), pattern):
            member = not negated
    return member


def _segments(glob: str) -> list[str]:
    """The glob's segments, ``./`` and repeated ``**`` dropped."""
    out: list[str] = []
    for part in glob.strip().strip("/").split("/"):
        if part not in ("", ".") and not (part == "**" and out and out[-1] == "**"):
            out.append(part)
    return out


def _matches(parts: Sequence[str], pattern: Sequence[str]) -> bool:
    """Segment-wise glob match; ``**`` matches zero or more segments."""
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_matches(parts[i:], rest) for i in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], head) and _matches(parts[1:], rest)


def packages_of(
    manifests: Sequence[tuple[str, str]], *, root: str = "", globs: Sequence[str] = ()
) -> tuple[Package, ...]:
    """One :class:`Package` per folder and ecosystem from ``(folder, manifest path)`` pairs of the
    project's own manifests, in path order."""
    seen: dict[tuple[str, str], Package] = {}
    prefix = f"{root}/" if root else ""
    for folder, manifest in sorted(manifests, key=lambda fm: (fm[0].count("/"), fm)):
        ecosystem = MANIFESTS[manifest.rsplit("/", 1)[-1]]
        if (folder, ecosystem) in seen or is_fixture(folder):
            continue
        relative = folder[len(prefix) :] if prefix and folder.startswith(prefix) else folder
        member = ecosystem == "npm" and workspace_member(relative, globs)
        seen[(folder, ecosystem)] = Package(
            path=folder, ecosystem=ecosystem, manifest=manifest, member_of_workspace=member
        )
    return tuple(sorted(seen.values(), key=lambda p: (p.path, p.ecosystem)))
