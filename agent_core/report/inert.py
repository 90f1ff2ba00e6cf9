"""Untrusted repository text made inert Markdown: nothing from a repository can become markup.

Whatever comes from a repository goes through :func:`plain` (escaped prose in which no HTML tag can
form) or :func:`code` (a code span, only for text that cannot break out of one); :func:`inline` does
both for README prose that holds code spans.
"""

from __future__ import annotations

import re

from agent_core.report.phrases import shorten

_ESCAPED = re.compile(r"([\\`*_\[\]|#~>])")
_EVENT_ATTRIBUTE = re.compile(r"(?i)\b(on[a-z]+)(\s*)=")
# A backtick ends a code span and a table splits on "|"; "<" is fine ("<1" in a version) unless it
# could start a tag: markup is never emitted, even where a renderer would show it literally.
_UNSAFE_IN_CODE = re.compile(r"[`|]|<[A-Za-z/!?]")


def plain(text: str, *, limit: int | None = None) -> str:
    """Untrusted text as inert Markdown prose: one line, Markdown syntax escaped, no HTML tag can
    form (``<`` becomes ``&lt;``), and ``onerror=``-like text neutralised (``=`` as ``&#61;``)."""
    text = re.sub(r"\s+", " ", text)
    if limit is not None:
        text = shorten(text, limit)
    text = _ESCAPED.sub(r"\\\1", text).replace("<", "&lt;")
    return _EVENT_ATTRIBUTE.sub(r"\1\2&#61;", text)


def code(text: str) -> str:
    """A code span when ``text`` cannot break out of one (or carry HTML), else escaped prose."""
    text = " ".join(text.split())
    if not text or _UNSAFE_IN_CODE.search(text) or _EVENT_ATTRIBUTE.search(text):
        return plain(text)
    return f"`{text}`"


def inline(text: str) -> str:
    """README prose: its code spans kept as code spans, everything else escaped."""
    parts = re.split(r"(`[^`]+`)", text)
    return "".join(code(p[1:-1]) if len(p) > 2 and p[0] == p[-1] == "`" else plain(p) for p in parts).strip()
