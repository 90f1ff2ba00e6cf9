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


# Characters that change how the text around them is shown, not what it says: C0/C1 controls,
# bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069: a file named
# "txt.\u202eexe" reads as "exe.txt"), marks, zero-width spaces and invisible characters (not the
# joiners emoji and Persian need), and the tag block (U+E0000-E007F: text invisible to a reader).
# Whitespace and line breaks are left alone: a renderer already shows them as space.
INVISIBLE = [
    cp
    for cp in (
        *range(0x00, 0x20),
        *range(0x7F, 0xA0),
        0xAD,
        0x061C,
        0x180E,
        0x200B,
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2070),
        0xFEFF,
        *range(0xFFF9, 0xFFFC),
        *range(0xE0000, 0xE0080),
    )
    if not chr(cp).isspace()
]
_SHOWN = {cp: (f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}") for cp in INVISIBLE}


def visible(text: str) -> str:
    """Repository-derived text with every control, bidirectional and invisible character shown as its
    escape (``\\u202E``), so what is displayed is the real name. One ``str.translate``: linear."""
    return text.translate(_SHOWN)


def plain(text: str, *, limit: int | None = None) -> str:
    """Untrusted text as inert Markdown prose: one line, Markdown syntax escaped, no HTML tag can
    form (``<`` becomes ``&lt;``), and ``onerror=``-like text neutralised (``=`` as ``&#61;``);
    control and bidirectional characters shown escaped (:func:`visible`)."""
    text = visible(re.sub(r"\s+", " ", text))
    if limit is not None:
        text = shorten(text, limit)
    text = _ESCAPED.sub(r"\\\1", text).replace("<", "&lt;")
    return _EVENT_ATTRIBUTE.sub(r"\1\2&#61;", text)


def code(text: str) -> str:
    """A code span when ``text`` cannot break out of one (or carry HTML), else escaped prose; control
    and bidirectional characters shown escaped (:func:`visible`)."""
    text = visible(" ".join(text.split()))
    if not text or _UNSAFE_IN_CODE.search(text) or _EVENT_ATTRIBUTE.search(text):
        return plain(text)
    return f"`{text}`"


def inline(text: str) -> str:
    """README prose: its code spans kept as code spans, everything else escaped."""
    parts = re.split(r"(`[^`]+`)", text)
    return "".join(code(p[1:-1]) if len(p) > 2 and p[0] == p[-1] == "`" else plain(p) for p in parts).strip()
