"""Built once per tree: :func:`model_of` memoises the model per :class:`FileTree` object.

The report, the brief, the trace's tree summary and the diagram each ask for the model of the same
``FileTree`` value; the first asks builds it, the others get the same object. The memo is keyed by the
tree object's identity (plus the ``.gitattributes`` text and workspace globs the model was built
with) and forgets a tree when the tree is garbage-collected (:func:`weakref.finalize`), so it holds
nothing that outlives the runs using it and nothing two runs could see differently: a model is a pure
function of immutable values. Hashing a 100,000-entry tree on every lookup is what it avoids.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from agent_core.repomodel.build import build_repo_model
from agent_core.repomodel.model import RepoModel
from agent_core.sources.models import FileTree

_Key = tuple[str | None, tuple[str, ...]]
_MEMO: dict[int, dict[_Key, RepoModel]] = {}
_LOCK = threading.Lock()  # the model may be built off the event loop, in worker threads


def model_of(
    tree: FileTree, *, gitattributes: str | None = None, workspace_globs: Sequence[str] = ()
) -> RepoModel:
    """The model of ``tree`` (built the first time this tree object is asked for)."""
    key: _Key = (gitattributes, tuple(workspace_globs))
    ident = id(tree)
    with _LOCK:
        found = _MEMO.get(ident, {}).get(key)
    if found is not None:
        return found
    model = build_repo_model(
        tree.entries,
        root=tree.path,
        truncated=tree.truncated,
        gitattributes=gitattributes,
        workspace_globs=workspace_globs,
    )
    with _LOCK:
        per_tree = _MEMO.get(ident)
        if per_tree is None:
            per_tree = _MEMO[ident] = {}
            weakref.finalize(tree, _forget, ident)
        return per_tree.setdefault(key, model)


def _forget(ident: int) -> None:
    with _LOCK:
        _MEMO.pop(ident, None)


def memoised_trees() -> int:
    """How many trees the memo holds a model for (for tests)."""
    with _LOCK:
        return len(_MEMO)
