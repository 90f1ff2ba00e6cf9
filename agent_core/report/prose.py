"""A README's first real paragraph as plain prose, whatever its markup, quoted to a sentence's end.

:func:`readme_summary` reads Markdown, reStructuredText, RDoc, AsciiDoc, HTML and plain text (the format
from the file's name, as GitHub renders it): blocks that are not prose (headings, badges, images, code,
tables, lists, quotes, directives, attribute lines, comments) are skipped, inline markup becomes its text
(links keep their text, roles and emphasis lose their markers, code stays a code span), and the quote ends
at the end of a sentence: never cut at a colon that introduces a list, cut on a word with "…" only when
the first sentence alone is longer than the limit.

The text is a repository's: hostile. Every pattern runs on google-re2 (linear in its input, no
backtracking), a paragraph is read up to :data:`MAX_PARAGRAPH` characters and the whole text up to
:data:`MAX_TEXT`. The result is still untrusted text: render it with :func:`agent_core.report.inert.inline`.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator
from typing import Any, Literal

import re2

README_CHARS = 600
MAX_TEXT = 200_000
MAX_PARAGRAPH = 4_000

Markup = Literal["markdown", "rst", "rdoc", "asciidoc", "html", "text"]

_SUFFIXES: tuple[tuple[tuple[str, ...], Markup], ...] = (
    ((".md", ".markdown", ".mdown", ".mkd", ".mdx"), "markdown"),
    ((".rst", ".rest"), "rst"),
    ((".rdoc",), "rdoc"),
    ((".adoc", ".asciidoc", ".asc"), "asciidoc"),
    ((".html", ".htm"), "html"),
    ((".txt",), "text"),
)


def markup_of(path: str | None) -> Markup:
    """The markup a README is written in, by its name (GitHub's rule); Markdown when it does not say."""
    lower = (path or "").rsplit("/", 1)[-1].lower()
    return next((markup for suffixes, markup in _SUFFIXES if lower.endswith(suffixes)), "markdown")


def _re(pattern: str) -> Any:
    return re2.compile(pattern)


# Whole-text removals (each linear).
_HTML_COMMENT = _re(r"(?s)<!--.*?(?:-->|$)")
_SCRIPT = _re(r"(?is)<script\b.*?(?:</script\s*>|$)|<style\b.*?(?:</style\s*>|$)")
# Inline markup, shared.
_IMAGE_MD = _re(r"!\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_LINK_MD = _re(r"\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_AUTOLINK = _re(r"<(?:https?|mailto|ftp):[^>\s]*>")
_TAG = _re(r"</?[A-Za-z][^<>]*>")
_BOLD = _re(r"\*\*([^*\n]+)\*\*|__([^_\n]+)__")
_EMPHASIS = _re(r"(^|[\s(\"'])[*_]([^\s*_][^*_\n]*)[*_]($|[\s).,;:!?\"'])")
_RST_LINK = _re(r"`([^`<\n]+?)\s*<[^>`\n]*>`__?")
_RST_ROLE = _re(r":[\w.+-]+:`([^`\n]+)`")
_RST_LITERAL = _re(r"``([^`\n]+)``")
_RST_REF = _re(r"`([^`\n]+)`__?")
_RST_SUBST = _re(r"\|[^|\n]+\|_*")
_RST_NAMED = _re(r"\b(\w+)__?(\W|$)")
_RDOC_LINK = _re(r"\{([^}\n]+)\}\[[^\]\n]*\]|\b(\w+)\[(?:https?|mailto|link):[^\]\n]*\]")
_RDOC_CODE = _re(r"(^|[\s(])\+([^+\s][^+\n]*)\+($|[\s).,;:!?])|<tt>([^<\n]*)</tt>")
_ADOC_LINK = _re(r"(?:link:)?(?:https?|mailto|ftp):[^\s\[]*\[([^\]\n]*)\]|link:[^\s\[]*\[([^\]\n]*)\]")
_ADOC_XREF = _re(r"<<[^,>\n]*,([^>\n]*)>>|xref:[^\s\[]*\[([^\]\n]*)\]")
_ADOC_INLINE_IMAGE = _re(r"image:[^\s\[]*\[[^\]\n]*\]")
_ADOC_ATTR_REF = _re(r"\{[\w-]+\}")
_SPACES = _re(r"\s+")


def _sub(regex: Any, replacement: Any, text: str) -> str:
    """``regex.sub`` typed (re2 ships no type information)."""
    return str(regex.sub(replacement, text))


def _groups(match: Any) -> str:
    return str(next((g for g in match.groups() if g), ""))


def _markdown_inline(text: str) -> str:
    text = _sub(_IMAGE_MD, " ", text)
    text = _sub(_LINK_MD, lambda m: m.group(1), text)
    text = _sub(_AUTOLINK, " ", text)
    return _sub(_TAG, " ", text)


def _emphasis(text: str) -> str:
    text = _sub(_BOLD, _groups, text)
    return _sub(_EMPHASIS, lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}", text)


def _rst_inline(text: str) -> str:
    text = _sub(_RST_LINK, lambda m: m.group(1), text)
    text = _sub(_RST_ROLE, lambda m: f"`{m.group(1)}`", text)
    text = _sub(_RST_LITERAL, lambda m: f"`{m.group(1)}`", text)
    text = _sub(_RST_REF, lambda m: m.group(1), text)
    text = _sub(_RST_SUBST, " ", text)
    return _sub(_RST_NAMED, lambda m: f"{m.group(1)}{m.group(2)}", text)


def _rdoc_inline(text: str) -> str:
    text = _sub(_RDOC_LINK, _groups, text)
    text = _sub(
        _RDOC_CODE,
        lambda m: f"{m.group(1) or ''}`{m.group(2)}`{m.group(3) or ''}" if m.group(2) else f"`{m.group(4)}`",
        text,
    )
    return _sub(_TAG, " ", text)


def _asciidoc_inline(text: str) -> str:
    text = _sub(_ADOC_INLINE_IMAGE, " ", text)
    text = _sub(_ADOC_LINK, _groups, text)
    text = _sub(_ADOC_XREF, _groups, text)
    return _sub(_ADOC_ATTR_REF, " ", text)


_INLINE: dict[Markup, Callable[[str], str]] = {
    "markdown": lambda s: _emphasis(_markdown_inline(s)),
    "rst": lambda s: _emphasis(_rst_inline(s)),
    "rdoc": lambda s: _emphasis(_rdoc_inline(s)),
    "asciidoc": lambda s: _emphasis(_asciidoc_inline(s)),
    "html": lambda s: _sub(_TAG, " ", s),
    "text": lambda s: s,
}

# What starts a block that is not prose, by markup (checked on the block's first line, stripped).
_NOT_PROSE: dict[Markup, tuple[str, ...]] = {
    "markdown": ("#", "|", ">", "- ", "* ", "+ ", "<h", "<img", "<picture", "<a ", "<br", "<p align", "<div",
                 "<table", "[![", "![", "<!--", "<sub", "<sup", "<small", "<details", "<source", "<svg", "[//]"),
    "rst": ("..", ":", "|", "- ", "* ", "+ ", ">>>", "#. "),
    "rdoc": ("=", "* ", "- ", "[", "#"),
    "asciidoc": ("=", ":", "[", "image::", "include::", "ifdef::", "ifndef::", "endif::", "toc::", "* ", "- ",
                 ". ", "|", "//"),
    "html": (),
    "text": (),
}  # fmt: skip
_FENCES: dict[Markup, tuple[str, ...]] = {
    "markdown": ("```", "~~~"),
    "asciidoc": ("----", "....", "====", "****", "++++", "////", "____", "```"),
}


def _is_rule(line: str) -> bool:
    """An underline, overline or rule: one repeated punctuation character, three or more."""
    return len(line) >= 3 and line[0] in "=-~^#*`_+.:'\"" and line.count(line[0]) == len(line)


def _blocks(text: str, markup: Markup) -> Iterator[list[str]]:
    """Blank-line separated blocks of stripped lines, fenced and indented (code) blocks left out."""
    fences, fence = _FENCES.get(markup, ()), ""
    block: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if fence:
            closes = line.startswith(fence) if markup == "markdown" else line == fence
            fence = "" if closes else fence
            continue
        opened = next((f for f in fences if line.startswith(f)), "")
        if opened and (markup == "markdown" or line.count(opened[0]) == len(line)):
            fence = opened if markup != "asciidoc" else line
            if block:
                yield block
                block = []
            continue
        indented = raw[:1] in (" ", "\t") and markup in ("rst", "rdoc") and not block
        if not line or indented:
            if block:
                yield block
                block = []
            continue
        block.append(line)
    if block:
        yield block


def _prose(block: list[str], markup: Markup) -> str | None:
    """The block's text when it is prose, else None."""
    first = block[0].lower() if markup in ("markdown", "html") else block[0]
    if first.startswith(_NOT_PROSE[markup]) or any(_is_rule(line) for line in block):
        return None
    if markup == "rst" and block[0].endswith("::") and len(block) == 1:
        return None
    joined = " ".join(block)[:MAX_PARAGRAPH]
    text = html.unescape(_INLINE[markup](joined))
    return _sub(_SPACES, " ", text).strip()


def _letters_enough(prose: str) -> bool:
    """Prose, not a label: 15 letters and 5 words ("View at: http://localhost:4567" is not), or 6 letters
    of Chinese."""
    letters = sum(c.isalpha() for c in prose)
    if any(0x3400 <= ord(c) <= 0x9FFF for c in prose):
        return letters >= 6
    return letters >= 15 and len(prose.split()) >= _MIN_WORDS


def readme_summary(text: str, *, path: str | None = None, limit: int = README_CHARS) -> str | None:
    """The first real paragraph of a README as plain prose, ending at a sentence's end (see the module)."""
    markup = markup_of(path)
    text = _sub(_SCRIPT, " ", _sub(_HTML_COMMENT, " ", text[:MAX_TEXT]))
    if markup == "html":
        text = _sub(_TAG, "\n\n", text)
    for block in _blocks(text, markup):
        prose = _prose(block, markup)
        if not prose or not _letters_enough(prose):
            continue
        quoted = to_sentence_end(prose, limit)
        if quoted is not None:
            return quoted
    return None


def readme_paragraphs(text: str, *, path: str | None = None, limit: int = MAX_TEXT) -> list[str]:
    """Every prose paragraph of a README in order, as plain text (the blocks :func:`readme_summary`
    skips left out: badges, images, code, tables...), until ``limit`` characters are gathered."""
    markup = markup_of(path)
    text = _sub(_SCRIPT, " ", _sub(_HTML_COMMENT, " ", text[:MAX_TEXT]))
    if markup == "html":
        text = _sub(_TAG, "\n\n", text)
    found: list[str] = []
    size = 0
    for block in _blocks(text, markup):
        prose = _prose(block, markup)
        if prose and _letters_enough(prose):
            found.append(prose)
            size += len(prose) + 2
            if size >= limit:
                break
    return found


_MIN_WORDS = 5
_MIN_SENTENCE_WORDS = 8
_SENTENCE_END = _re(r"[.!?](?:[\"')\]]*)(?:\s+|$)|[。！？]")


def to_sentence_end(prose: str, limit: int) -> str | None:
    """``prose`` up to the last sentence end within ``limit``: whole sentences only, a trailing sentence that
    ends in a colon (it introduces what follows) left out. A first sentence longer than ``limit`` is cut
    on a word with "…"; a paragraph that is one sentence ending in a colon is quoted to the colon, said
    with "…", when it is a sentence of its own (8 words or more), else gives None (no quote)."""
    ends = [m.end() for m in _SENTENCE_END.finditer(prose) if not _abbreviation(prose, m.start())]
    introduces = prose.rstrip().endswith((":", "："))
    if len(prose) <= limit and not introduces:
        return prose.strip()
    fitting = [end for end in ends if end <= limit]
    if fitting:
        return prose[: fitting[-1]].strip()
    if len(prose) <= limit:  # one sentence introducing what follows ("… with minimal effort:")
        said = prose.rstrip().rstrip(":：").rstrip()
        return f"{said}…" if len(said.split()) >= _MIN_SENTENCE_WORDS else None
    cut = prose[:limit].rsplit(" ", 1)[0] if " " in prose[:limit] else prose[:limit]
    return cut.rstrip(",;:：，") + "…"


_ABBREVIATIONS = ("e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "no", "fig", "mr", "dr", "st")


def _abbreviation(prose: str, at: int) -> bool:
    """A period that does not end a sentence: an abbreviation (``e.g.``), a version or a decimal (``1.2``)."""
    if prose[at] != ".":
        return False
    after = prose[at + 1 : at + 2]
    if after and not after.isspace() and after not in "\"')]":
        return True  # "1.2", "example.com"
    word = prose[max(0, at - 8) : at].rsplit(" ", 1)[-1].lower().lstrip("(")
    return word in _ABBREVIATIONS
