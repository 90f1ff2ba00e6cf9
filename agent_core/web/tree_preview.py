"""What the trace shows for a ``get_file_tree`` result: a few lines, not every path.

The model reads the whole summary (:func:`agent_core.tools.observe.summarise_tree`); a person scanning
the trace wants the shape: how many files, how many of them the project's own (vendored and generated
apart), the tests, the largest top-level folders with their role, and whether GitHub cut the tree. All
of it comes from the event's typed :class:`~agent_core.tree_shape.TreeSummary` (the repository
model's counts); nothing here parses the preview text. A trace recorded before the summary existed
gets one plain line.

Folder names are repository content: they are shown inside a fenced block only (:func:`fenced`).
"""

from __future__ import annotations

from agent_core import events as ev
from agent_core.tree_shape import TreeSummary
from agent_core.web.markdown import fenced
from agent_core.words import t

TOP_FOLDERS = 6
VENDORED_ROOTS = 3
CONVENTIONS = 3


def tree_preview(event: ev.ToolCallFinished, lang: str = "en") -> str:
    """The short form of a successful file-tree call, as safe Markdown."""
    if event.tree is None:
        return fenced(t("tree_plain", lang, size=len(event.preview.encode("utf-8"))), "text")
    return fenced("\n".join(tree_lines(event.tree, lang)), "text")


def tree_lines(tree: TreeSummary, lang: str = "en") -> list[str]:
    """Counts, the project's own, tests, the largest top-level folders, top-level files, the cut."""
    lines = [t("tree_counts", lang, files=tree.files, dirs=tree.dirs)]
    if tree.own_files != tree.files:
        where = ", ".join(f"{path}/" for path, _n in tree.vendored[:VENDORED_ROOTS]) or "—"
        lines.append(
            t(
                "tree_own",
                lang,
                own=tree.own_files,
                vendored=tree.vendored_files,
                where=where,
                generated=tree.generated_files,
            )
        )
    if tree.tests:
        kinds = ", ".join(f"{n:,} {label}" for label, n in tree.test_conventions[:CONVENTIONS])
        lines.append(t("tree_tests", lang, files=tree.tests, packages=tree.test_packages, conventions=kinds))
    elif tree.files:
        lines.append(t("tree_no_tests", lang))
    folders = [_folder(f.name, f.files, f.role, lang) for f in tree.top_level[:TOP_FOLDERS]]
    if len(tree.top_level) > TOP_FOLDERS:
        folders.append(t("tree_more_folders", lang, count=len(tree.top_level) - TOP_FOLDERS))
    if folders:
        lines.append(" · ".join(folders))
    if tree.top_files:
        lines.append(t("tree_top_files", lang, count=tree.top_files))
    if tree.truncated:
        lines.append(t("tree_cut", lang, files=tree.files))
    return lines


def _folder(name: str, files: int, role: str, lang: str) -> str:
    """``vendor/ 13,712 vendored``: a folder, its files, and its role unless it is source code."""
    return f"{name}/ {files:,}" + ("" if role == "source" else f" {t(f'tree_role_{role}', lang)}")
