"""What a local model says a dependency *is*, held against what was read about it.

The real 1.5B wrote "- **Mustermann**: A templating engine that allows developers to create dynamic
HTML pages": Mustermann matches route patterns, and nothing it read said otherwise. A list item that
names a declared dependency and says what it is keeps its words only when what was read says them too:
at least half of the description's words (:func:`content_words`) stand near the name somewhere in what the
tools returned (:data:`NEAR` characters either side of up to :data:`MAX_PLACES` places). Otherwise the
item is unsupported, for :mod:`~agent_core.agent.set_aside` to set aside. So is an item saying a top
folder holds tests when the whole tree shows no test file in it (fmt's `support/`, "support files for build
systems and testing").

Linear: the draft once, then each of at most :data:`MAX_NAMES` names looked up in what was read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from agent_core import events as ev
from agent_core.report.claims import Named
from agent_core.words import Said, said, say

NEAR = 240  # characters either side of a name, read as what is said about it
MAX_PLACES = 24  # places of one name looked at
MAX_NAMES = 32  # names described in one draft that are looked up
_MIN_WORDS = 2  # a description of fewer content words claims too little to judge
_STEM = 5  # letters compared ("templating" and "template" agree)

_ITEM = re.compile(
    r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\*\*|__|`){0,2}(?P<name>[\w@][\w@./+-]{0,79})(?:\*\*|__|`){0,2}"
    r"(?P<cut>(?:[ \t]*(?::|：| — | – | - )|[ \t]+(?:(?:directory|folder)[ \t]+)?"
    r"(?:contains|holds|has|includes|is|are|provides)\b)[ \t]*(?P<text>[^\n]+))",
    re.MULTILINE,
)
_WORD = re.compile(r"\w+")
_TESTS = re.compile(r"\b(?:tests?|testing|specs?|unit[ -]tests?)\b", re.IGNORECASE)
_STOP = frozenset(
    [
        "about",
        "also",
        "allows",
        "allow",
        "able",
        "based",
        "being",
        "build",
        "built",
        "code",
        "contains",
        "contain",
        "containing",
        "data",
        "each",
        "easy",
        "file",
        "files",
        "from",
        "have",
        "helps",
        "help",
        "into",
        "includes",
        "include",
        "including",
        "itself",
        "just",
        "like",
        "main",
        "makes",
        "make",
        "many",
        "more",
        "most",
        "much",
        "other",
        "over",
        "project",
        "provides",
        "provide",
        "related",
        "repository",
        "same",
        "simple",
        "some",
        "such",
        "support",
        "supports",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "tool",
        "tools",
        "used",
        "uses",
        "using",
        "very",
        "various",
        "well",
        "what",
        "when",
        "where",
        "which",
        "while",
        "with",
        "within",
        "work",
        "works",
        "would",
        "your",
        "additional",
        "features",
        "feature",
        "library",
        "libraries",
        "package",
        "packages",
        "dependency",
        "dependencies",
        "gem",
        "gems",
        "module",
        "modules",
        "crate",
        "crates",
    ]
)


@dataclass(frozen=True, kw_only=True)
class Described:
    """A list item that says what a dependency is: where its description stands (from the colon to the
    line's end), the name and the description's words."""

    name: str
    start: int
    end: int
    words: frozenset[str]


def content_words(text: str, *, besides: Iterable[str] = ()) -> frozenset[str]:
    """The words of ``text`` that carry a claim, stemmed: four letters or more (or an acronym), no
    common word, none of ``besides`` (the name's own)."""
    own = {_stem(w) for name in besides for w in _WORD.findall(name.casefold())}
    kept = set()
    for word in _WORD.findall(text):
        low = word.casefold()
        if (len(low) >= 4 or (len(low) >= 2 and word.isupper())) and low not in _STOP and not low.isdigit():
            stem = _stem(low)
            if stem not in own:
                kept.add(stem)
    return frozenset(kept)


def _stem(word: str) -> str:
    """A word's first letters, a plural's "s" left out first ("tests" is "test", "engines" "engin")."""
    return (word[:-1] if word.endswith("s") and len(word) > 4 else word)[:_STEM]


def unsupported_descriptions(
    draft: str, named: Named, strings: Iterable[str], *, key: Callable[[str], str]
) -> list[ev.CheckedClaim]:
    """The list items of ``draft`` that say what a declared dependency is (names compared through
    ``key``; a top-level folder's name is the folder's) in words nothing read says near its name, and
    those that say a folder without tests holds tests, as unchecked claims where their descriptions stand."""
    items = []
    found = []
    for m in _ITEM.finditer(draft):
        name = m.group("name").rstrip("/.")
        folder = name.casefold()
        if folder in named.untested and _TESTS.search(m.group("text")):
            nothing = said("observed_no_tests_in", folder=f"{name}/")
            found.append(_unchecked(name, nothing, m.start("cut"), m.end("text")))
        elif key(name) in named.declared and folder not in named.folders:
            words = content_words(m.group("text"), besides=(name,))
            if len(words) >= _MIN_WORDS:
                items.append(Described(name=name, start=m.start("cut"), end=m.end("text"), words=words))
    if not items:
        return found
    names = list(dict.fromkeys(item.name.casefold() for item in items))[:MAX_NAMES]
    near = _words_near(names, strings)
    for item in items:
        known = near.get(item.name.casefold())
        if known is None:
            continue  # beyond the names looked up: not judged
        if 2 * len(item.words & known) < len(item.words):
            nowhere = said("observed_described_nowhere", name=item.name)
            found.append(_unchecked(item.name, nowhere, item.start, item.end))
    return sorted(found, key=lambda c: c.start)


def _unchecked(name: str, observed: Said, start: int, end: int) -> ev.CheckedClaim:
    return ev.CheckedClaim(
        kind="description",
        claim=name,
        verdict="unchecked",
        observed=say(observed, "en"),
        observed_said=(observed,),
        start=start,
        end=end,
    )


def _words_near(names: Sequence[str], strings: Iterable[str]) -> dict[str, frozenset[str]]:
    """For each name, the content words within :data:`NEAR` characters of its first places in ``strings``."""
    near: dict[str, set[str]] = {name: set() for name in names}
    places = dict.fromkeys(names, 0)
    for text in strings:
        low = text.casefold()
        source = text if len(low) == len(text) else low  # casefold may lengthen ("ß"): offsets are low's
        for name in names:
            at = low.find(name)
            while at >= 0 and places[name] < MAX_PLACES:
                end = at + len(name)
                if _bounded(low, at, end):
                    places[name] += 1
                    near[name] |= content_words(source[max(0, at - NEAR) : end + NEAR], besides=(name,))
                at = low.find(name, end)
    return {name: frozenset(words) for name, words in near.items()}


def _bounded(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before in "-_") and not (after.isalnum() or after in "-_")
