"""Claims that name people or organisations behind a project ("created in 2007 by Aaron Patterson",
"maintained by Google", "contributors include Marcono1234 and Éamonn McManus", "由 X 创建"), held against
what the tools read: a name some file, commit or listing read holds is ✓; one none holds is not
checkable (?), never ✗ — nothing read says who did not write a project.

The real 1.5B named DHH and Aaron Patterson as Sinatra's author; neither appears in anything it read.

The names read are indexed once (:class:`NamesRead`: the words and word pairs of every string the tools
returned), and each claimed name is looked up in it: linear in what was read plus the report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import pairwise
from typing import Any

from agent_core.report.claim_names import Found
from agent_core.report.verdicts import Outcome
from agent_core.tools.results import ToolResult
from agent_core.words import said

_NAME_WORD = r"@?[A-ZÀ-Þ](?:[\w'’-]|\.(?=\w)){0,40}"  # a dot inside a word ("J.R.R."), never after it
_NAME = rf"{_NAME_WORD}(?:[ \t]+(?:(?:de|van|von|der|da|di|la|le)[ \t]+)?{_NAME_WORD}){{0,3}}"
_MARKS = r"[*_`\"“]{0,2}"
_BY = re.compile(  # the verbs in any case, the name capitalised
    r"\b(?i:(?:created|written|developed|maintained|authored|founded|started|designed|initiated|"
    r"conceived|invented|originated|owned|sponsored)"
    r"(?:[ \t]+(?:in|around|back in)[ \t]+\d{4})?(?:[ \t]+(?:originally|mainly|primarily|largely|now))?[ \t]+by[ \t]+"
    r"(?:the[ \t]+)?)"
    rf"{_MARKS}(?P<name>{_NAME})",
)
_LIST = re.compile(
    r"\b(?:authors?|contributors?|maintainers?|creators?|committers?)\b[^.\n]{0,40}?"
    r"\b(?:including|include|includes|such as|like|are|is|were|was)[ \t]+",
    re.IGNORECASE,
)
_LISTED = re.compile(rf"{_MARKS}(?P<name>{_NAME}){_MARKS}(?:[ \t]*(?:,|and|&)[ \t]*(?:and[ \t]+)?)?")
_ZH = re.compile(
    r"由[ \t]*(?P<name>[A-Za-z@][\w.@' -]{0,40}?)[ \t]*(?:于[ \t]*\d{4}[ \t]*年[ \t]*)?(?:创建|开发|维护|编写|发起|创立)"
)
_MAX_LISTED = 6  # names read after "contributors include"
_WORD = re.compile(r"\w+")
_NOT_NAMES = frozenset(
    {"the", "a", "an", "its", "this", "his", "her", "their", "github", "i", "we", "you", "it", "he", "she"}
)


def people_claims(line: str, base: int) -> Iterator[Found]:
    """The names of one line said to be behind the project: subject ``by`` (created/maintained by X, 由 X
    创建) or ``listed`` (contributors include X, Y and Z)."""
    for pattern in (_BY, _ZH):
        for m in pattern.finditer(line):
            name = m.group("name").strip().rstrip(".'’-")
            if _is_name(name):
                start = base + m.start("name")
                yield Found(kind="person", subject="by", value=name, start=start, end=start + len(name))
    for m in _LIST.finditer(line):
        at = m.end()
        for _ in range(_MAX_LISTED):
            listed = _LISTED.match(line, at)
            if listed is None:
                break
            name = listed.group("name").strip().rstrip(".'’-")
            if _is_name(name):
                start = base + listed.start("name")
                yield Found(kind="person", subject="listed", value=name, start=start, end=start + len(name))
            at = listed.end()


def _is_name(name: str) -> bool:
    words = _WORD.findall(name.lower())
    return bool(words) and words[0] not in _NOT_NAMES


class NamesRead:
    """Every word and every pair of adjacent words in the strings the tools returned (lower case)."""

    def __init__(self, results: Sequence[ToolResult]) -> None:
        self._words: set[str] = set()
        self._pairs: set[tuple[str, str]] = set()
        for result in results:
            for text in strings_of(result.observation):
                words = _WORD.findall(text.casefold())
                self._words.update(words)
                self._pairs.update(pairwise(words))

    def holds(self, name: str) -> bool:
        """Whether ``name`` was read as written (its words, each next to the one it follows)."""
        words = _WORD.findall(name.casefold())
        if not words or any(w not in self._words for w in words):
            return False
        return all(pair in self._pairs for pair in pairwise(words))


def strings_of(value: Any) -> Iterable[str]:
    """The strings of an observation (its keys and values, nested), without a recursion a deep one could
    exhaust."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def person(found: Found, names: NamesRead) -> Outcome:
    if names.holds(found.value):
        return "verified", said("observed_name_read")
    return "unchecked", said("observed_name_not_read")
