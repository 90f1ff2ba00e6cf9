"""Per-:class:`Facts` lookups of tree paths, built once in one pass so each claim costs a lookup.

Checking a claim used to scan every path of the tree (``locate``'s shorter-path match, the manifest
list of ``_declared``): claims × paths, minutes on a 100,000-entry tree. :func:`index_of` keeps one
:class:`PathIndex` per ``Facts`` object (the last few objects, by identity: hashing a ``Facts`` would
hash its whole tree); each of its sets and maps is built once, when first asked for (the claim check's
maps over a 100,000-entry tree are CPU the diagram, which needs only the folders, never pays), and
answers the same as the scans did.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable, Iterable

from agent_core.report.facts import Facts

_KEEP = 4


class PathIndex:
    """Lookups over one ``Facts``' paths, each built the first time it is used (a diagram asks only for
    the folders, a claim check for everything). ``known``: paths, folders and files read; ``lower``:
    lower-cased to one of them (the last one a set iteration gives, as the dict comprehension it
    replaces); ``named``: each last path component to the known paths ending with it (:meth:`tails`);
    ``top``: top-level file paths in ``facts.paths`` order."""

    def __init__(self, facts: Facts) -> None:
        self._facts_ref = weakref.ref(facts)  # the cache below keeps indexes, not whole trees, alive
        self._derived: dict[str, object] = {}

    @property
    def _facts(self) -> Facts:
        facts = self._facts_ref()
        if facts is None:  # only the holder of a Facts asks its index anything
            raise RuntimeError("the Facts of this index is gone")
        return facts

    @functools.cached_property
    def known(self) -> set[str]:
        facts = self._facts
        known = set(facts.paths) | set(facts.dirs) | set(facts.evidence.files)  # files read exist too
        return known | set(facts.evidence.outside)  # a folder's run: what it saw outside it ("../../x")

    @functools.cached_property
    def lower(self) -> dict[str, str]:
        return {p.lower(): p for p in self.known}

    @functools.cached_property
    def named(self) -> dict[str, list[str]]:
        named: dict[str, list[str]] = {}
        for p in self.known:
            named.setdefault(p.rpartition("/")[2], []).append(p)
        return named

    def tails(self, tail: str) -> list[str]:
        """The known paths that end with ``/`` + ``tail`` (``tail`` after a ``/`` of theirs), in the
        order of :attr:`known`: those of its last name that end so (one list lookup, not a map of every
        suffix of every path, which cost a 100,000-entry tree's claim check a second of CPU)."""
        ending = f"/{tail}"
        return [p for p in self.named.get(tail.rpartition("/")[2], ()) if p.endswith(ending)]

    @functools.cached_property
    def top(self) -> tuple[str, ...]:
        return tuple(p for p in self._facts.paths if "/" not in p)

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


_LOCK = threading.Lock()
_CACHE: list[tuple[weakref.ref[Facts], PathIndex]] = []


def index_of(facts: Facts) -> PathIndex:
    """The index of ``facts`` (built the first time this object is asked for)."""
    with _LOCK:
        for ref, index in _CACHE:
            if ref() is facts:
                return index
    index = PathIndex(facts)
    with _LOCK:
        _CACHE.insert(0, (weakref.ref(facts), index))
        del _CACHE[_KEEP:]
    return index
