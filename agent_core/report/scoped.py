"""A scoped run's evidence seen from its folder: what a ``/tree/<ref>/<path>`` URL makes the report about.

The source gives the folder's tree with paths from the repository root (so every tool call, link and
permalink stays exact). The report, the diagram and the claim check describe the folder as the project:
:func:`reroot` keeps the tree, the files and the listings inside the folder, with paths relative to it,
and records the folder in :attr:`~agent_core.report.facts.Evidence.root` so links lead back to it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from agent_core.sources.models import TreeEntry

if TYPE_CHECKING:
    from agent_core.report.facts import Evidence


def reroot(evidence: Evidence) -> Evidence:
    """``evidence`` relative to its tree's folder (unchanged when the tree is the repository's)."""
    tree = evidence.tree
    if tree is None or not tree.path:
        return evidence
    base = f"{tree.path}/"
    entries = tuple(
        TreeEntry(path=e.path.removeprefix(base), type=e.type, size=e.size)
        for e in tree.entries
        if e.path.startswith(base)
    )
    top = tuple(replace(f, path=f.path.removeprefix(base)) for f in tree.top_level if f.path.startswith(base))
    focus = tree.focus.removeprefix(base) if tree.focus else None
    return replace(
        evidence,
        tree=replace(tree, path="", entries=entries, top_level=top, focus=focus),
        files={k.removeprefix(base): v for k, v in evidence.files.items() if k.startswith(base)},
        listings={
            k.removeprefix(base): v
            for k, v in evidence.listings.items()
            if k.startswith(base) or k == tree.path
        },
        root=tree.path,
    )
