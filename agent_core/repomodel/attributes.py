"""``.gitattributes`` overrides of Linguist, as GitHub reads them (Linguist's "Overrides" documentation):
``linguist-vendored``, ``linguist-generated``, ``linguist-documentation``, ``linguist-detectable`` and
``linguist-language=NAME``.

Each line is a pattern and attributes: ``vendor/** linguist-vendored``, ``*.pb.go linguist-generated``,
``docs/** -linguist-documentation``, ``*.h linguist-language=C++``. ``attr`` or ``attr=true`` sets it,
``-attr`` or ``attr=false`` unsets it (a negation: "this is not vendored", against the conventions),
``!attr`` makes it unspecified again. For each attribute the last line whose pattern matches the path
wins, as git decides.

The file is the repository's, so hostile input: patterns (gitignore-style wildcards, translated to a
regular expression by the ``pathspec`` package; this module writes no glob matching) are matched by
google-re2 (``import re2``), an automaton whose work is linear in the path whatever the pattern
(``*a*a*a*a*a*a*a*a*b`` included), all of a file's patterns at once (one ``re2.Set`` pass per path). At
most :data:`MAX_LINES` lines are read and patterns longer than :data:`MAX_PATTERN` characters are left
out; :attr:`Overrides.limits` says which cap was met, for the report's coverage line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, cast

import re2
from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

Attribute = Literal["vendored", "generated", "documentation", "detectable"]
_NAMES: Mapping[str, Attribute] = MappingProxyType(
    {
        "linguist-vendored": "vendored",
        "linguist-generated": "generated",
        "linguist-documentation": "documentation",
        "linguist-detectable": "detectable",
    }
)
_LANGUAGE = "linguist-language"
MAX_LINES = 2000  # a .gitattributes past this is cut: the overrides stay linear in the tree
MAX_PATTERN = 256  # characters; a longer pattern is left out
MAX_LANGUAGE = 64  # characters of a linguist-language value
LINES_CAPPED = "gitattributes_lines_capped"
PATTERN_CAPPED = "gitattributes_pattern_too_long"
TOO_COMPLEX = "gitattributes_too_complex"  # re2 refused the patterns together: none applied

Value = bool | str | None  # an attribute's state (None: unspecified again), or a language's name


@dataclass(frozen=True)
class _Rule:
    values: tuple[tuple[str, Value], ...]  # attribute ("vendored"..., or "language") and its value


@dataclass(frozen=True, eq=False)
class Overrides:
    """The Linguist attributes a ``.gitattributes`` sets, in file order, and the caps it met."""

    rules: tuple[_Rule, ...] = ()
    matcher: Any = None  # a compiled re2.Set of the rules' patterns, in the same order
    limits: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.rules)

    def _decided(self, path: str) -> dict[str, Value]:
        decided: dict[str, Value] = {}
        if not self.rules:
            return decided
        for index in sorted(self.matcher.Match(path) or (), reverse=True):  # the last line wins
            for name, value in self.rules[index].values:
                decided.setdefault(name, value)
        return decided

    def of(self, path: str) -> Mapping[Attribute, bool]:
        """The attributes set (True) or unset (False) for ``path``; absent keys are unspecified."""
        decided = self._decided(path)
        return {cast(Attribute, k): v for k, v in decided.items() if isinstance(v, bool) and k != "language"}

    def language(self, path: str) -> str | None:
        """The language ``linguist-language`` gives ``path``, or None."""
        value = self._decided(path).get("language")
        return value if isinstance(value, str) else None


NO_OVERRIDES = Overrides()


def parse_gitattributes(text: str | None) -> Overrides:
    """The Linguist overrides of a ``.gitattributes`` file (None or empty: none)."""
    if not text:
        return NO_OVERRIDES
    lines = text.split("\n", MAX_LINES)
    limits: list[str] = []
    if len(lines) > MAX_LINES:
        lines, limits = lines[:MAX_LINES], [LINES_CAPPED]
    rules: list[_Rule] = []
    matcher = re2.Set.MatchSet(re2.Options())
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, *attrs = line.split()
        values = tuple(v for v in (_value(a) for a in attrs) if v is not None)
        if not values or pattern.startswith("!"):  # git rejects negative patterns in attributes
            continue
        if len(pattern) > MAX_PATTERN:
            if PATTERN_CAPPED not in limits:
                limits.append(PATTERN_CAPPED)
            continue
        regex, _include = GitIgnoreBasicPattern.pattern_to_regex(pattern)
        if regex is None:
            continue
        try:
            matcher.Add(regex)
        except re2.error:  # a translation re2 does not take (none known): the line is left out
            continue
        rules.append(_Rule(values=values))
    if not rules:
        return Overrides(limits=tuple(limits)) if limits else NO_OVERRIDES
    try:
        matcher.Compile()  # within re2's memory budget, or refused: never a slow match
    except re2.error:
        return Overrides(limits=(*limits, TOO_COMPLEX))
    return Overrides(rules=tuple(rules), matcher=matcher, limits=tuple(limits))


def _value(attr: str) -> tuple[str, Value] | None:
    state: bool | None = True
    if attr.startswith("-"):
        attr, state = attr[1:], False
    elif attr.startswith("!"):
        attr, state = attr[1:], None
    name, _, value = attr.partition("=")
    if name == _LANGUAGE:
        # ``linguist-language=Objective-C``, or a name whose spaces are written as dashes
        # (``Protocol-Buffer``): resolved against Linguist's names where it is counted
        return ("language", value[:MAX_LANGUAGE]) if value and state else None
    if name not in _NAMES:
        return None
    if value:
        state = value.lower() not in ("false", "0", "no")
    return _NAMES[name], state
