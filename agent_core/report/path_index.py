"""Per-:class:`Facts` lookups of tree paths, built once in one pass so each claim costs a lookup.

Checking a claim used to scan every path of the tree (``locate``'s shorter-path match, the manifest
list of ``_declared``): claims × paths, minutes on a 100,000-entry tree. :func:`index_of` builds the
sets and the suffix map once per ``Facts`` object (kept for the last few objects by identity: hashing
a ``Facts`` would hash its whole tree) and answers the same as the scans did.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from agent_core.report.facts import Facts

_KEEP = 4


@dataclass
class PathIndex:
    """``known``: paths, folders and files read; ``lower``: lower-cased to one of them (the last one a
    set iteration gives, as the dict comprehension it replaces); ``tails``: every ``a/b`` suffix after a
    ``/`` to the known paths ending with ``/`` + it; ``top``: top-level file paths in ``facts.paths``
    order."""

    known: set[str]
    lower: dict[str, str]
    tails: dict[str, list[str]]
    top: tuple[str, ...]
    _derived: dict[str, object] = field(default_factory=dict)

    def derived(self, name: str, build: Callable[[], object]) -> object:
        """``build()`` once per index (a list of paths derived from the tree, say)."""
        if name not in self._derived:
            self._derived[name] = build()
        return self._derived[name]


def suffixes(path: str) -> Iterable[str]:
    """The parts of ``path`` after each ``/`` in it (``a/b/c`` → ``b/c``, ``c``)."""
    at = path.find("/")
    while at != -1:
        yield path[at + 1 :]
        at = path.find("/", at + 1)


def _build(facts: Facts) -> PathIndex:
    known = set(facts.paths) | set(facts.dirs) | set(facts.evidence.files)  # files read exist too
    tails: dict[str, list[str]] = {}
    for p in known:
        for tail in suffixes(p):
            tails.setdefault(tail, []).append(p)
    return PathIndex(
        known=known,
        lower={p.lower(): p for p in known},
        tails=tails,
        top=tuple(p for p in facts.paths if "/" not in p),
    )


_LOCK = threading.Lock()
_CACHE: list[tuple[weakref.ref[Facts], PathIndex]] = []


def index_of(facts: Facts) -> PathIndex:
    """The index of ``facts`` (built the first time this object is asked for)."""
    with _LOCK:
        for ref, index in _CACHE:
            if ref() is facts:
                return index
    index = _build(facts)
    with _LOCK:
        _CACHE.insert(0, (weakref.ref(facts), index))
        del _CACHE[_KEEP:]
    return index
