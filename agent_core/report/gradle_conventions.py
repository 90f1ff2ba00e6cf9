"""Gradle's convention plugins: build logic outside any ``build.gradle(.kts)`` that can add a project's
dependencies and test frameworks (``buildSrc/``, ``build-logic/``: precompiled script plugins and Kotlin,
Groovy or Java plugin classes). A claim that a Gradle project does not use a dependency or framework can
be ✗ only when every such source was read; a name found in one leaves the claim open. Pure functions.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from agent_core.report.facts import Facts
from agent_core.report.path_index import index_of
from agent_core.sources.languages import is_vendored

CONVENTION_DIRS = frozenset({"buildsrc", "build-logic", "build-conventions", "gradle-plugins"})
_SOURCE = re.compile(r"\.(?:gradle|kts|kt|groovy|java)$", re.IGNORECASE)
_TESTS = re.compile(r"(?:^|/)src/(?:test|functionalTest|integrationTest)/")


def convention_sources(paths: Iterable[str]) -> list[str]:
    """The convention plugins' sources among root-relative ``paths`` (their tests left out)."""
    return [
        p
        for p in paths
        if p.split("/", 1)[0].lower() in CONVENTION_DIRS
        and _SOURCE.search(p)
        and not _TESTS.search(p)
        and not is_vendored(p)
    ]


def conventions_unread(facts: Facts) -> bool:
    """Whether convention plugins exist that were not all read: of the whole tree, its sources; of a
    folder's run, what it saw at the root (a ``buildSrc/`` nobody fetched is unread). Once per Facts:
    every dependency and framework claim asks."""
    return index_of(facts).derived("conventions_unread", lambda: _unread(facts))  # type: ignore[return-value]


def _unread(facts: Facts) -> bool:
    evidence = facts.evidence
    files = evidence.files
    if not evidence.root:
        return any(p not in files for p in convention_sources(facts.paths))
    seen = {posixpath.normpath(posixpath.join(evidence.root, p)): p for p in evidence.outside}
    dirs = {p.split("/", 1)[0] for p in seen if p.split("/", 1)[0].lower() in CONVENTION_DIRS}
    if not dirs:
        return False
    fetched = {at.split("/", 1)[0] for at in evidence.subtrees}
    if dirs - fetched:
        return True
    return any(seen[p] not in files for p in convention_sources(seen))
