"""Every sentence the app says, in English and 中文: one table per language and one way to look a text up.

The ground floor: imports nothing of the house. :func:`t` looks ``key`` up in a language's table and
fills its ``{}`` fields (``{n!p:file|files}``: the noun that agrees with the count ``n``); :class:`Words` is the same lookup with the language bound, for code that says many
things in one language (a report). The tables are per area (``page_*``, ``report_*``, ...; joined in
:mod:`agent_core.words.tables`); every key exists in every language with the same placeholders
(tests/test_words.py). Repository content and model output never pass through here: only the app's words.

A sentence that travels in an event before anyone reads it (the planner's narration, what the claim check
observed) travels as :class:`Said`: its key and its values (names, paths, numbers: repository content,
never words), so that each consumer says it in its own language with :func:`say`; the event keeps an
English preview beside it for consumers that read no language.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from agent_core.words.tables import LANGUAGES, TABLES, Language

__all__ = [
    "LANGUAGES",
    "Language",
    "Said",
    "SaidValue",
    "Words",
    "language_of",
    "said",
    "said_from_dict",
    "say",
    "t",
    "words_for",
]


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


SaidValue: TypeAlias = "str | int | float | Said | tuple[str | Said, ...]"


@dataclass(frozen=True)
class Said:
    """A sentence of the app's as data: ``key`` in the words tables and its named ``values``. A value is a
    number or a text of the repository's (a path, a name, a version), another :class:`Said` (a clause said
    in the same language), or a tuple of them, joined as the template's field says: ``{files}`` as a list
    (``said_list_sep``: ", " or "、"), ``{groups:clause}`` by ``said_clause_sep``, ``{parts:and}`` by
    ``said_and_sep``."""

    key: str
    values: tuple[tuple[str, SaidValue], ...] = ()


def said(key: str, **values: SaidValue | Sequence[str | Said]) -> Said:
    """``Said(key, values)`` from keyword values; a list becomes a tuple (the value stays frozen)."""
    return Said(key, tuple((name, _frozen(value)) for name, value in values.items()))


def _frozen(value: object) -> SaidValue:
    if isinstance(value, str | int | float | Said):
        return value
    if isinstance(value, Sequence):
        return tuple(item if isinstance(item, Said) else str(item) for item in value)
    raise TypeError(f"a said value is a number, a text, a Said or a sequence of them, not {type(value)}")


def say(what: Said | Sequence[Said], lang: str | None = "en") -> str:
    """``what`` in ``lang``: one sentence, or several joined as the language joins sentences."""
    if isinstance(what, Said):
        return t(what.key, lang, **{name: _said_value(value, lang) for name, value in what.values})
    return t("said_sentence_sep", lang).join(say(one, lang) for one in what)


class _Joined:
    """A tuple of a :class:`Said`, said in ``lang`` and joined by the separator its field names."""

    def __init__(self, items: tuple[str | Said, ...], lang: str | None) -> None:
        self.items = [say(item, lang) if isinstance(item, Said) else item for item in items]
        self.lang = lang

    def __format__(self, spec: str) -> str:
        return t(f"said_{spec or 'list'}_sep", self.lang).join(self.items)


def _said_value(value: SaidValue, lang: str | None) -> object:
    if isinstance(value, Said):
        return say(value, lang)
    if isinstance(value, tuple):
        return _Joined(value, lang)
    return value


def said_from_dict(data: Mapping[str, Any]) -> Said:
    """The inverse of ``dataclasses.asdict`` on a :class:`Said` read back from JSON (lists for tuples)."""

    def value(raw: Any) -> SaidValue:
        if isinstance(raw, Mapping):
            return said_from_dict(raw)
        if isinstance(raw, list | tuple):
            return tuple(said_from_dict(item) if isinstance(item, Mapping) else str(item) for item in raw)
        return raw if isinstance(raw, int | float) else str(raw)

    return Said(str(data["key"]), tuple((str(name), value(raw)) for name, raw in data.get("values", ())))
