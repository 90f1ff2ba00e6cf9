"""Phrases the report shares: lists with "and N more", file counts, dates, shortened text (a README's
first paragraph is :mod:`agent_core.report.prose`'s)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from agent_core.words import Words

MAX_NAMES = 25  # longer lists end with "and N more"


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
