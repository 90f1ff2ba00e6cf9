"""What the report reads of a whole tree, once per tree (:func:`~agent_core.repomodel.derived`): its
sorted file and folder paths, its largest files and its notable files. The report, the diagram and the
claim check each build their :class:`~agent_core.report.evidence.Facts` from the same tree; sorting and
scanning a 100,000-entry tree once for each of them was seconds of CPU."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_core.repomodel import derived
from agent_core.sources.models import FileTree
from agent_core.tools.observe import notable_files, notable_role

if TYPE_CHECKING:
    from agent_core.report.evidence import Facts

LARGE_FILE_BYTES = 5 * 1024 * 1024

Paths = tuple[str, ...]


def tree_lists(tree: FileTree) -> tuple[Paths, Paths, tuple[tuple[str, int], ...]]:
    """The tree's file paths and folder paths, sorted, and its three largest files (path, bytes)."""
    return derived(tree, "tree_lists", lambda: _tree_lists(tree))


def _tree_lists(tree: FileTree) -> tuple[Paths, Paths, tuple[tuple[str, int], ...]]:
    paths = tuple(sorted(e.path for e in tree.entries if e.type != "dir"))
    dirs = tuple(sorted(e.path for e in tree.entries if e.type == "dir"))
    sizes = {e.path: e.size or 0 for e in tree.entries}
    large = sorted(((p, s) for p, s in sizes.items() if s >= LARGE_FILE_BYTES), key=lambda x: -x[1])
    return paths, dirs, tuple(large[:3])


def notable_paths(facts: Facts) -> tuple[tuple[str, str], ...]:
    """(path, :func:`notable_role`) of every notable file of ``facts.paths``, in their order; from the
    tree's notable files, found once per tree (:func:`notable_files`)."""
    tree = facts.evidence.tree
    if tree is None or tree.path:  # folder listings (or a tree seen from above its folder: never here)
        return tuple((p, role) for p in facts.paths if (role := notable_role(p)))
    return derived(tree, "notable_paths", lambda: tuple(sorted(notable_files(tree).items())))
