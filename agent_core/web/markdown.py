"""Making untrusted text safe to hand to Gradio's Markdown renderers, and short display forms.

Repository content and model output are untrusted. These helpers never produce HTML: ``<`` outside code
is escaped as ``&lt;`` (so ``<img onerror=...>`` or ``<script>`` show as text), no Markdown image survives
(it would load a remote URL in the visitor's browser) and a link whose text reads like another place
shows where it really goes (:mod:`agent_core.web.links`), previews are fenced with a fence longer than
any backtick run inside them, titles are single-line and escaped. Gradio's own sanitiser is the second
layer.

Mermaid: Gradio renders a ```` ```mermaid ```` block as a diagram, with Mermaid's ``antiscript`` security
level (HTML in labels, ``click`` links). So a Mermaid block is shown as a diagram only when its text is
exactly one the app compiled itself (``diagrams``: :func:`agent_core.report.diagram.compile_mermaid` of a
``diagram`` event); every other fence that says ``mermaid`` — wherever it stands, in a list or a quote
too — is relabelled ``text`` and shows as code.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection

from agent_core.report.inert import visible
from agent_core.web.links import UNSAFE_SCHEME, mask, neutralize, unmask

TITLE_MAX = 80

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# A link destination (inline ``](...)`` or a reference definition ``[x]: ...``) with an unsafe scheme.
_UNSAFE_LINK = re.compile(rf"(\]\(\s*|^\s{{0,3}}\[[^\]]*\]:\s*)({UNSAFE_SCHEME})", re.IGNORECASE)


def safe_markdown(text: str, *, diagrams: Collection[str] = ()) -> str:
    """Markdown with every ``<`` outside fenced code and inline code spans escaped as ``&lt;``.

    So ``<img onerror=...>`` or ``<script>`` in a README or a model's answer shows as text. Where this
    parser and the renderer might disagree (unusual spans), it errs towards escaping. A Mermaid block
    stays one only when its text is in ``diagrams`` (the module docstring).
    """
    lines = visible(text).splitlines(keepends=True)  # bidi and control characters shown escaped
    return _render(lines, None, keep=_app_diagrams(lines, diagrams))[0]


def _app_diagrams(lines: list[str], diagrams: Collection[str]) -> frozenset[int]:
    """The lines that open a ```` ```mermaid ```` block whose text is exactly one of ``diagrams``.
    Linear: each block is read once (an opening line inside a block is the block's text)."""
    wanted = {d.strip("\n") for d in diagrams if d.strip()}
    longest = max((len(w) for w in wanted), default=0)
    keep = set()
    closers = [j for j, line in enumerate(lines) if wanted and line.rstrip("\r\n") == "```"]
    i = 0
    while wanted and i < len(lines):
        if lines[i].rstrip("\r\n") != "```mermaid":
            i += 1
            continue
        k = bisect_right(closers, i)
        if k == len(closers):
            break
        end = closers[k]
        size = sum(len(line) for line in lines[i + 1 : end])
        if size <= longest + 2 * (end - i) and "".join(lines[i + 1 : end]).strip("\n") in wanted:
            keep.add(i)
        i = end + 1
    return frozenset(keep)


_FENCE_RUN = re.compile(r"`{3,}|~{3,}")
_WORD = re.compile("mermaid", re.IGNORECASE)


def _relabel_mermaid(line: str) -> str:
    """Every ``mermaid`` that follows a fence run on the line becomes ``text`` (as
    ``_MERMAID.sub(r"\\1text", line)`` would, without its rescan of the line from every fence run)."""
    out: list[str] = []
    pos = 0
    while (run := _FENCE_RUN.search(line, pos)) is not None:
        word = _WORD.search(line, run.end())
        if word is None:
            break
        out.append(line[pos : word.start()] + "text")
        pos = word.end()
    return "".join(out) + line[pos:]


def _render(
    lines: list[str], fence: str | None, *, keep: frozenset[int] = frozenset()
) -> tuple[str, str | None]:
    """``lines`` made safe, starting inside ``fence`` (None: outside code); the open fence after them.
    ``keep``: the lines (by index) that open one of the app's own diagrams."""
    out: list[str] = []
    for index, raw in enumerate(lines):
        line = _relabel_mermaid(raw) if index not in keep and "mermaid" in raw.lower() else raw
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
    return "".join(out), fence


class MarkdownStream:
    """:func:`safe_markdown` of a text that grows, at a cost proportional to what was added.

    Streamed reasoning and answers are re-rendered on every UI frame; rendering the whole text each time
    is quadratic (2.4 MB of reasoning cost seconds of CPU). Rendering is line by line, the only state
    carried between lines is the open fence, so a completed line is rendered once and kept; each
    :meth:`value` renders only the unfinished last line, of which it shows the first
    :data:`PENDING_SHOWN` characters (a line that never ends must not cost every frame its whole length).
    ``value()`` equals ``safe_markdown(text.strip())`` of everything fed so far (leading and trailing
    whitespace dropped) whenever the last line is shorter than that.
    """

    def __init__(self, text: str = "") -> None:
        self._rendered = ""  # completed lines, rendered
        self._fence: str | None = None
        self._pending: list[str] = []  # the unfinished last line, in the pieces it came in
        self._head = ""  # its first PENDING_SHOWN characters
        self._started = False  # leading whitespace is dropped (the text is shown stripped)
        self._value: str | None = ""
        if text:
            self.feed(text)

    def feed(self, text: str) -> None:
        if not self._started:
            text = text.lstrip()
            if not text:
                return
            self._started = True
        text = visible(text)  # as safe_markdown: bidi and control characters shown escaped
        self._value = None
        if _BREAK.search(text) is None and not (self._pending and self._pending[-1].endswith("\r")):
            self._pending.append(text)  # the last line grows: nothing to render yet
            if len(self._head) < PENDING_SHOWN:
                self._head += text[: PENDING_SHOWN - len(self._head)]
            return
        lines = ("".join(self._pending) + text).splitlines(keepends=True)
        last = lines[-1] if lines else ""
        if last and (not last.endswith(("\n", "\r", *_OTHER_BREAKS)) or last.endswith("\r")):
            pending = lines.pop()  # a lone "\r" may be the first half of "\r\n"
            self._pending, self._head = [pending], pending[:PENDING_SHOWN]
        else:
            self._pending, self._head = [], ""
        if lines:
            rendered, self._fence = _render(lines, self._fence)
            self._rendered += rendered

    def value(self) -> str:
        """The text so far, safe to display (cached until the next :meth:`feed`)."""
        if self._value is None:
            tail = _render([self._head], self._fence)[0] if self._head else ""
            self._value = (self._rendered + tail).rstrip()
        return self._value


PENDING_SHOWN = 8192
# What str.splitlines() also ends a line on, besides "\n" and "\r".
_OTHER_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_BREAK = re.compile("[\n\r" + "".join(_OTHER_BREAKS) + "]")


def _escape_inline(line: str) -> str:
    """One line outside fenced code: code spans kept as they are; in the rest ``<`` escaped, images
    made text, links checked and stray ``[`` escaped (:mod:`agent_core.web.links`)."""
    if "`" not in line and "[" not in line:  # hot: most streamed lines have neither
        return _escape(line)
    spans: list[str] = []
    masked = mask(line, spans)
    return unmask(_escape(neutralize(masked, spans)), spans)


def _escape(text: str) -> str:
    """``<`` as ``&lt;``; a ``javascript:``/``vbscript:``/``data:`` link target becomes an inert fragment
    (``#unsafe-javascript:...``), so the link text and its target stay readable."""
    text = text.replace("<", "&lt;")
    if "]" not in text or ":" not in text:  # no link target at all: skip the regex (hot: every frame)
        return text
    return _UNSAFE_LINK.sub(r"\1#unsafe-\2", text)


def fenced(text: str, info: str = "json") -> str:
    """``text`` in a fenced code block whose fence is longer than any backtick run inside it."""
    text = visible(text)  # a file named with U+202E shows its real name, escaped
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def flat_text(text: str, limit: int = TITLE_MAX) -> str:
    """Single-line, cut to ``limit`` characters (for plain-text cells)."""
    flat = visible(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def one_line(text: str, limit: int = TITLE_MAX) -> str:
    """Single-line, escaped, cut to ``limit`` characters (titles and badges, rendered as markdown): no
    HTML, no image, no misleading link."""
    return _escape_inline(flat_text(text, limit))


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
