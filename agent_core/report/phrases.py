"""Phrases the report shares: lists with "and N more", file counts, dates, shortened text, and a
README's first real paragraph (:func:`readme_summary`, still untrusted: render it with
:func:`agent_core.report.inert.inline`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from agent_core.words import Words

MAX_NAMES = 25  # longer lists end with "and N more"
README_CHARS = 600


_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_RULE = re.compile(r"^[=\-~^#*`_+]{3,}$")
_BLOCK_START = ("#", "|", ">", "..", "- ", "* ", "+ ", "<h1", "<h2", "<h3", "<img", "<picture", "<a ", "<br")


def readme_summary(text: str, *, limit: int = README_CHARS) -> str | None:
    """The first real paragraph of a README (Markdown or reStructuredText), as plain text.

    Headings, badges, images, HTML, code blocks, tables, lists and quotes are skipped; links keep
    their text; emphasis markers and HTML tags are dropped. Cut at ``limit`` characters on a word.
    The result is still untrusted text: render it with :func:`inline`.
    """
    text = re.sub(r"<!--.*?(-->|$)", " ", text, flags=re.DOTALL)
    text = re.sub(r"(?is)<(script|style)\b.*?(</\1\s*>|$)", " ", text)
    text = _FENCE.sub(" ", text)
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        if not lines or lines[0].lower().startswith(_BLOCK_START) or any(_RULE.match(line) for line in lines):
            continue
        prose = _clean_inline(" ".join(lines))
        letters = sum(c.isalpha() for c in prose)
        if letters >= 15 or (letters >= 6 and re.search(r"[\u3400-\u9fff]", prose)):
            return shorten(prose, limit)
    return None


def _clean_inline(text: str) -> str:
    text = re.sub(r"!\[[^\]]*\](\([^)]*\)|\[[^\]]*\])", " ", text)  # images
    text = re.sub(r"\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])", r"\1", text)  # links keep their text
    text = re.sub(r"<[^>]*>", " ", text)  # any remaining tag
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(\S[^*]*?)\*(?![\w*])", r"\1", text)
    return " ".join(text.split())


def join_names(items: Sequence[str], words: Words, *, cap: int = MAX_NAMES) -> str:
    """Already-rendered items joined, the tail replaced by "and N more"."""
    shown = words("sep").join(items[:cap])
    return shown + words("more", len(items) - cap) if len(items) > cap else shown


def files_phrase(count: int, words: Words) -> str:
    """ "1 file", "N files" in the report's language."""
    return words("files_one" if count == 1 else "files_many", count)


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut on a word to at most ``limit`` characters plus an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(",;:") + "…"


def parse_date(value: str | None) -> datetime | None:
    """An ISO 8601 timestamp as an aware datetime (naive ones taken as UTC); None if absent or invalid."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # comparable with aware ones


def day(moment: datetime) -> str:
    """``YYYY-MM-DD``."""
    return moment.strftime("%Y-%m-%d")
