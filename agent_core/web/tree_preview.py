"""What the trace shows for a ``get_file_tree`` result: a few lines, not every path.

The model reads the whole summary (:func:`agent_core.tools.observe.summarise_tree`); a person scanning
the trace wants the shape: how many files and folders, the top-level folders by size, the first few
paths and how many more there are. The event carries the observation as display JSON cut at a few
thousand characters (:func:`agent_core.agent.parallel.preview`), so the cut text is mended first: the
counts and the top level come before the path list, and survive the cut.

Paths are repository content: they are shown inside a fenced block only (:func:`fenced`).
"""

from __future__ import annotations

import json
from typing import Any

from agent_core.web.i18n import t
from agent_core.web.markdown import fenced

TOP_FOLDERS = 6
FIRST_PATHS = 5
_CLOSERS = {"{": "}", "[": "]"}


def tree_preview(preview: str, lang: str = "en") -> str | None:
    """The short form of a file-tree preview, as safe Markdown; None when it is not a tree summary
    (an error result, say), so the caller shows the preview as it is."""
    summary = parse_cut_json(preview)
    if summary is None or not isinstance(summary.get("files"), int):
        return None
    files: int = summary["files"]
    lines = [t("tree_counts", lang, files=files, dirs=summary.get("dirs", 0))]
    lines += _top_level(summary.get("top_level"), lang)
    paths = [p for p in summary.get("paths") or () if isinstance(p, str)][:FIRST_PATHS]
    lines += [f"  {path}" for path in paths]
    if files > len(paths):
        lines.append(t("tree_more", lang, count=files - len(paths)))
    if summary.get("truncated"):
        lines.append(t("tree_truncated", lang))
    return fenced("\n".join(lines), "text")


def _top_level(entries: Any, lang: str) -> list[str]:
    """``src/ 7 · tests/ 11 · …`` — the largest top-level folders first, then how many files sit at the top."""
    if not isinstance(entries, list):
        return []
    folders = sorted(
        (e for e in entries if isinstance(e, dict) and e.get("type") == "dir"),
        key=lambda e: -int(e.get("files") or 0),
    )
    shown = [f"{e.get('name')}/ {int(e.get('files') or 0)}" for e in folders[:TOP_FOLDERS]]
    if len(folders) > TOP_FOLDERS:
        shown.append(t("tree_more_folders", lang, count=len(folders) - TOP_FOLDERS))
    at_top = sum(1 for e in entries if isinstance(e, dict) and e.get("type") != "dir")
    out = [" · ".join(shown)] if shown else []
    if at_top:
        out.append(t("tree_top_files", lang, count=at_top))
    return out


def parse_cut_json(text: str) -> dict[str, Any] | None:
    """A JSON object, or as much of it as survives a cut at any character: the text up to the last
    complete element is closed with the brackets still open. None when nothing parses."""
    body = text.rsplit("\n… (", 1)[0] if "\n… (" in text else text
    for candidate in (body, _mended(body)):
        if candidate is None:
            continue
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        return value if isinstance(value, dict) else None
    return None


def _mended(text: str) -> str | None:
    """``text`` cut just before its last comma outside a string, with the brackets open there closed."""
    stack: list[str] = []
    in_string = escaped = False
    last: tuple[int, str] | None = None
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif char in "}]" and stack:
            stack.pop()
        elif char == ",":
            last = (i, "".join(reversed(stack)))
    if last is None:
        return None
    cut, closers = last
    return text[:cut] + closers
