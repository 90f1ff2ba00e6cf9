"""Built once per tree: :func:`model_of` memoises the model per :class:`FileTree` object, and
:func:`derived` any other value computed from a tree alone (its sorted paths, the diagram's packages).

The report, the brief, the trace's tree summary, the claim check and the diagram each ask for the model
of the same ``FileTree`` value; the first asks builds it, the others get the same object. The memo is
keyed by the tree object's identity (plus the :class:`~agent_core.repomodel.model.RootContext` the
model was built with, or the derived value's name) and forgets a tree when the tree is garbage-collected
(:func:`weakref.finalize`), so it holds nothing that outlives the runs using it and nothing two runs
could see differently: a model is a pure function of immutable values. Hashing a 100,000-entry tree on
every lookup is what it avoids. A derived value must not refer to its tree (the memo would keep the tree
alive): paths, counts and models of other trees do not.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from typing import Protocol, TypeVar, cast

from agent_core.repomodel.build import Entry, build_repo_model
from agent_core.repomodel.model import NO_CONTEXT, RepoModel, RootContext


class Tree(Protocol):
    """What the memo reads of a tree (a :class:`~agent_core.sources.models.FileTree`): its entries, the
    folder it is rooted at, whether it was cut. Said here, so the model's floor imports no source's."""

    @property
    def entries(self) -> Sequence[Entry]: ...
    @property
    def path(self) -> str: ...
    @property
    def truncated(self) -> bool: ...


T = TypeVar("T")

_MEMO: dict[
    int, dict[Hashable, object]
] = {}  # per tree: models by RootContext, derived values by ("derived", …)
_MISSING = object()
# The model may be built off the event loop, in worker threads. Re-entrant: a tree that dies in a
# reference cycle is forgotten (``_forget``) by the collector, which may run in any allocation, also
# one inside this lock's sections in the same thread; a plain lock deadlocked the thread there.
_LOCK = threading.RLock()


def model_of(tree: Tree, context: RootContext = NO_CONTEXT) -> RepoModel:
    """The model of ``tree`` in ``context`` (built the first time this tree object is asked for in it:
    see :func:`~agent_core.repomodel.build.build_repo_model`)."""
    return _memoised(
        tree,
        context,
        lambda: build_repo_model(tree.entries, root=tree.path, truncated=tree.truncated, context=context),
    )


def derived(tree: Tree, name: Hashable, build: Callable[[], T]) -> T:
    """``build()``, a value computed from ``tree`` alone, once per tree object and ``name`` (a name of
    one kind of value; add to it whatever else the value depends on, e.g. the model's identity)."""
    return _memoised(tree, ("derived", name), build)


def _memoised(tree: Tree, key: Hashable, build: Callable[[], T]) -> T:
    """The value for ``key`` of ``tree``: built by the first thread that asks; a thread asking while it
    is being built waits for it (the trace's summary and the languages count ask for a model at once,
    in two workers: building it twice was a second of CPU taken from everyone else's requests)."""
    ident = id(tree)
    with _LOCK:
        per_tree = _MEMO.get(ident)
        if per_tree is None:
            per_tree = _MEMO[ident] = {}
            weakref.finalize(tree, _forget, ident)
        found = per_tree.get(key, _MISSING)
        if found is _MISSING:  # nobody has built it: this thread will
            per_tree[key] = building = Future[object]()
    if isinstance(found, Future):
        return cast(T, found.result())  # another thread is building it (its error is raised here too)
    if found is not _MISSING:
        return cast(T, found)
    try:
        value = build()
    except BaseException as error:
        with _LOCK:
            per_tree.pop(key, None)  # the next one to ask tries again
        building.set_exception(error)
        raise
    with _LOCK:
        per_tree[key] = value
    building.set_result(value)
    return value


def _forget(ident: int) -> None:
    with _LOCK:
        _MEMO.pop(ident, None)


def memoised_trees() -> int:
    """How many trees the memo holds a model for (for tests)."""
    with _LOCK:
        return len(_MEMO)
