"""The trace's :class:`~agent_core.tree_shape.TreeSummary` of a tree, from its repository model."""

from __future__ import annotations

from agent_core.repomodel.model import RepoModel
from agent_core.tree_shape import TreeFolder, TreeSummary

MAX_TOP_LEVEL = 100  # the trace shows a few; the event stays small even for a very wide root


def tree_summary(model: RepoModel) -> TreeSummary:
    """The counts a person scanning the trace wants, as typed data."""
    return TreeSummary(
        files=model.files,
        dirs=model.dirs,
        own_files=model.own_files,
        truncated=model.truncated,
        vendored_files=model.vendored_files,
        vendored=tuple((v.path, v.files) for v in model.vendored[:MAX_TOP_LEVEL]),
        generated_files=model.generated_files,
        tests=model.tests.files,
        test_conventions=tuple((c.label, c.files) for c in model.tests.by_convention),
        test_packages=model.tests.packages,
        roles=tuple(model.role_counts.items()),
        top_level=tuple(
            TreeFolder(name=t.name, files=t.files, own_files=t.own_files, role=t.role)
            for t in sorted(model.top_level, key=lambda t: (-t.files, t.name))[:MAX_TOP_LEVEL]
        ),
        top_files=len(model.top_files),
    )
