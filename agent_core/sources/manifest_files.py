"""Which files are dependency and workspace manifests: the ONE list the sources and the report share.

A source keeps the whole text of these files (up to :data:`PARSE_MAX_BYTES`) beside the page the model
reads, so the report's parsers (:mod:`agent_core.report.manifests`) see every line of a 7 KB
``package.json`` or a 264-line ``go.mod`` require block from the same read. Pure functions, no I/O.
"""

from __future__ import annotations

import re

#: Bytes of one manifest kept whole for parsing; past this only the beginning is parsed (and said so).
PARSE_MAX_BYTES = 512 * 1024

#: Lower-cased file names the report parses, wherever they stand in the tree.
MANIFEST_NAMES = frozenset(
    {
        "pyproject.toml",
        "setup.cfg",
        "package.json",
        "pnpm-workspace.yaml",
        "cargo.toml",
        "go.mod",
        "vendor.mod",
        "pom.xml",
        "settings.gradle",
        "settings.gradle.kts",
    }
)

_REQUIREMENTS = re.compile(r"(^|/)(requirements[\w.-]*|[\w.-]*-requirements|requirements/[\w.-]+)\.txt$")


def is_requirements_file(path: str) -> bool:
    """``requirements*.txt`` and ``*-requirements.txt`` anywhere, or any ``.txt`` in a ``requirements/``
    folder."""
    return bool(_REQUIREMENTS.search(path.lower()))


def is_parsed_manifest(path: str) -> bool:
    """True for the files whose whole text a source keeps for the report's parsers."""
    name = path.rsplit("/", 1)[-1].lower()
    return name in MANIFEST_NAMES or is_requirements_file(path)
