"""Every sentence the app says, in English and 中文: one table per language and one way to look a text up.

The ground floor: imports nothing of the house. :func:`t` looks ``key`` up in a language's table and
fills its ``{}`` fields (``{n!p:file|files}``: the noun that agrees with the count ``n``); :class:`Words` is the same lookup with the language bound, for code that says many
things in one language (a report). The tables are per area (``page_*``, ``report_*``, ...; joined in
:mod:`agent_core.words.tables`); every key exists in every language with the same placeholders
(tests/test_words.py). Repository content and model output never pass through here: only the app's words.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from agent_core.words.tables import LANGUAGES, TABLES, Language

__all__ = ["LANGUAGES", "Language", "Words", "language_of", "t", "words_for"]


def language_of(code: str | None) -> Language:
    """``code`` as a language this package speaks; English for anything else."""
    return "zh" if code == "zh" else "en"


class _Count:
    """A number that says its noun: ``format(_Count(1), "file|files")`` is "file"."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        one, _, many = spec.partition("|")
        value = self.value
        if isinstance(value, str):  # a count already written with its separators, "1" or "1,204"
            value = value.replace(",", "").replace("\u202f", "").strip()
        return one if value in (1, "1") else (many or one)


class _Formatter(string.Formatter):
    """``str.format`` plus number agreement: ``{n!p:folder|folders}`` says the noun for the count ``n``
    (English; a Chinese sentence simply does not use it)."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        return _Count(value) if conversion == "p" else super().convert_field(value, conversion)


_FORMATTER = _Formatter()


def t(key: str, lang: str | None = "en", *args: object, **values: object) -> str:
    """The text ``key`` in ``lang`` (English when the language is unknown), formatted when given values.

    A key no table has comes back as itself: a typo shows on the page, a handler never crashes.
    """
    text = TABLES[language_of(lang)].get(key)
    if text is None:
        return key
    return _FORMATTER.vformat(text, args, values) if args or values else text


@dataclass(frozen=True)
class Words:
    """The lookup of :func:`t` with the language bound: ``words("stars")``, ``words("files_many", 3)``."""

    language: Language

    def __call__(self, key: str, *args: object, **values: object) -> str:
        return t(key, self.language, *args, **values)

    def has(self, key: str) -> bool:
        """Whether the tables say ``key`` (for texts keyed by data, e.g. a recommendation's kind)."""
        return key in TABLES[self.language]


def words_for(language: str | None) -> Words:
    """The bound lookup for ``language`` (English for anything but ``"zh"``)."""
    return Words(language_of(language))
