"""Making untrusted text safe to hand to Gradio's Markdown renderers, and short display forms.

Repository content and model output are untrusted. These helpers never produce HTML: ``<`` outside code
is escaped as ``&lt;`` (so ``<img onerror=...>`` or ``<script>`` show as text), previews are fenced with
a fence longer than any backtick run inside them, titles are single-line and escaped. Gradio's own
sanitiser is the second layer.
"""

from __future__ import annotations

import re

TITLE_MAX = 80

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_TICKS = re.compile(r"(?<!\\)`+")
# A link destination (inline ``](...)`` or a reference definition ``[x]: ...``) with a scheme that runs
# code or smuggles content. Browsers ignore tabs, newlines and leading spaces in a scheme, so we do too.
_SCHEME = r"(?:j\s*a\s*v\s*a\s*s\s*c\s*r\s*i\s*p\s*t|v\s*b\s*s\s*c\s*r\s*i\s*p\s*t|d\s*a\s*t\s*a)\s*:"
_UNSAFE_LINK = re.compile(rf"(\]\(\s*|^\s{{0,3}}\[[^\]]*\]:\s*)({_SCHEME})", re.IGNORECASE)


def safe_markdown(text: str) -> str:
    """Markdown with every ``<`` outside fenced code and inline code spans escaped as ``&lt;``.

    So ``<img onerror=...>`` or ``<script>`` in a README or a model's answer shows as text. Where this
    parser and the renderer might disagree (unusual spans), it errs towards escaping.
    """
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line.rstrip("\r\n"))
        if fence is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                fence = match.group(1)
                out.append(line)
            else:
                out.append(_escape_inline(line))
        else:
            out.append(line)
            closes = match is not None and match.group(1)[0] == fence[0] and not match.group(2).strip()
            if closes and match is not None and len(match.group(1)) >= len(fence):
                fence = None
    return "".join(out)


def _escape_inline(line: str) -> str:
    out: list[str] = []
    i = 0
    while True:
        opening = _TICKS.search(line, i)
        if opening is None:
            out.append(_escape(line[i:]))
            return "".join(out)
        out.append(_escape(line[i : opening.start()]))
        ticks = opening.group(0)
        closing = re.compile(rf"(?<!`){ticks}(?!`)").search(line, opening.end())
        if closing is None:
            out.append(ticks)  # a lone backtick run is literal text
            i = opening.end()
        else:
            out.append(line[opening.start() : closing.end()])
            i = closing.end()


def _escape(text: str) -> str:
    """``<`` as ``&lt;``; a ``javascript:``/``vbscript:``/``data:`` link target becomes an inert fragment
    (``#unsafe-javascript:...``), so the link text and its target stay readable."""
    text = text.replace("<", "&lt;")
    if "]" not in text or ":" not in text:  # no link target at all: skip the regex (hot: every frame)
        return text
    return _UNSAFE_LINK.sub(r"\1#unsafe-\2", text)


def fenced(text: str, info: str = "json") -> str:
    """``text`` in a fenced code block whose fence is longer than any backtick run inside it."""
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def flat_text(text: str, limit: int = TITLE_MAX) -> str:
    """Single-line, cut to ``limit`` characters (for plain-text cells)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def one_line(text: str, limit: int = TITLE_MAX) -> str:
    """Single-line, escaped, cut to ``limit`` characters (titles and badges, rendered as markdown)."""
    return _escape(flat_text(text, limit))


def format_age(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} d"
