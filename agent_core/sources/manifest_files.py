"""Which files are dependency and workspace manifests: what the sources keep whole, and which the
planner reads first. The kinds themselves are ONE table, :data:`agent_core.repomodel.packages.MANIFEST_KINDS`.

A source keeps the whole text of the parsed manifests (up to :data:`PARSE_MAX_BYTES`) beside the page the
model reads, so the report's parsers (:mod:`agent_core.report.manifests`) see every line of a 7 KB
``package.json`` or a 264-line ``go.mod`` require block from the same read. :func:`manifest_rank` orders
manifests for reading: the root's first, then the ones that say most (a solution before its projects, a
workspace before its members), then by depth. :func:`manifests_to_read` picks a bounded, varied set of
package manifests from a whole tree (every ecosystem, test packages too, so the test framework is
observed). Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent_core.repomodel.packages import MANIFEST_KINDS, ManifestKind, is_test_folder, manifest_kind

#: Bytes of one manifest kept whole for parsing; past this only the beginning is parsed (and said so).
PARSE_MAX_BYTES = 512 * 1024

#: Lower-cased file names (or ``.suffix``es) the report parses, wherever they stand in the tree.
MANIFEST_NAMES = frozenset(kind.key for kind in MANIFEST_KINDS if kind.parsed)

_REQUIREMENTS = re.compile(r"(^|/)(requirements[\w.-]*|[\w.-]*-requirements|requirements/[\w.-]+)\.txt$")
_VENDORED = frozenset(
    {"node_modules", "vendor", "third_party", "third-party", "thirdparty", "external", "deps"}
)
_SKIPPED = _VENDORED | {
    "testdata",
    "fixtures",
    "__fixtures__",
    "test-fixtures",
    "examples",
    "example",
    "samples",
}

# The order manifests are read in at one depth: the long-standing order of the Python, JavaScript, Rust
# and Go ones (requirements files at 5 and 6), then what names the rest (solutions, settings, workspaces),
# then the packages' own, then the files that pin versions or toolchains.
_RANK = {
    key: i
    for i, keys in enumerate(
        (
            ("pyproject.toml",),
            ("package.json",),
            ("cargo.toml",),
            ("go.mod",),
            ("setup.cfg",),
            (),  # requirements.txt
            (),  # requirements-*.txt
            ("setup.py",),
            ("pom.xml", "build.gradle", "build.gradle.kts", "gemfile", "composer.json"),
            (".sln", "settings.gradle.kts", "settings.gradle", "cmakelists.txt", "meson.build", "go.work"),
            (".gemspec", ".versions.toml", "directory.packages.props", "pnpm-workspace.yaml", "vcpkg.json"),
            ("conanfile.txt", "conanfile.py", ".csproj", ".fsproj", ".vbproj"),
            ("global.json", "directory.build.props", "vendor.mod"),
        )
    )
    for key in keys
}
_LAST = 13


def is_requirements_file(path: str) -> bool:
    """``requirements*.txt`` and ``*-requirements.txt`` anywhere, or any ``.txt`` in a ``requirements/``
    folder."""
    return bool(_REQUIREMENTS.search(path.lower()))


def parsed_kind(path: str) -> ManifestKind | None:
    """The kind of a manifest the report parses, by the path's file name; None for any other file."""
    kind = manifest_kind(path.rsplit("/", 1)[-1])
    return kind if kind is not None and kind.parsed else None


def is_parsed_manifest(path: str) -> bool:
    """True for the files whose whole text a source keeps for the report's parsers."""
    return parsed_kind(path) is not None or is_requirements_file(path)


def is_manifest(path: str) -> bool:
    """Any manifest the app knows (parsed or not) or a requirements file."""
    return manifest_kind(path.rsplit("/", 1)[-1]) is not None or is_requirements_file(path)


def manifest_rank(path: str) -> tuple[int, int, str]:
    """The order to read manifests in: by depth, then what the kind says (:data:`_RANK`), then path."""
    name = path.rsplit("/", 1)[-1].lower()
    kind = manifest_kind(name)
    if kind is not None:
        order = _RANK.get(kind.key, _LAST)
    elif is_requirements_file(path):
        order = 5 if name == "requirements.txt" else 6
    else:
        order = _LAST
    return (path.count("/"), order, path)


def manifests_to_read(paths: Iterable[str], *, limit: int) -> list[str]:
    """Up to ``limit`` nested manifests (not at the root) worth reading, most useful first: a test
    package's of each ecosystem (so its test framework is observed), the shallowest package of each,
    then the rest taking turns between ecosystems. Vendored folders, fixtures and examples are left out. Linear in the
    number of paths."""
    by_ecosystem: dict[str, list[str]] = {}
    tests: dict[str, str] = {}
    for path in paths:
        if "/" not in path:
            continue
        kind = manifest_kind(path.rsplit("/", 1)[-1])
        if kind is None or not kind.parsed:
            continue
        folder = path.rpartition("/")[0]
        if any(segment.lower() in _SKIPPED for segment in folder.split("/")):
            continue
        if is_test_folder(folder):
            best = tests.get(kind.ecosystem)
            if best is None or manifest_rank(path) < manifest_rank(best):
                tests[kind.ecosystem] = path
        else:
            by_ecosystem.setdefault(kind.ecosystem, []).append(path)
    queues = [sorted(found, key=manifest_rank)[:limit] for _eco, found in sorted(by_ecosystem.items())]
    picked = [tests[eco] for eco in sorted(tests)]  # a test package of each ecosystem: its framework
    picked += [queue.pop(0) for queue in queues]  # then the shallowest package of each
    turn = 0
    while len(picked) < limit and any(queues):
        queue = queues[turn % len(queues)]
        if queue:
            picked.append(queue.pop(0))
        turn += 1
    return picked[:limit]
