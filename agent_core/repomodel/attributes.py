"""``.gitattributes`` overrides of the Linguist roles: ``linguist-vendored``, ``linguist-generated`` and
``linguist-documentation``, as GitHub reads them (Linguist's "Overrides" documentation).

Each line is a pattern and attributes: ``vendor/** linguist-vendored``, ``*.pb.go linguist-generated``,
``docs/** -linguist-documentation``. ``attr`` or ``attr=true`` sets it, ``-attr`` or ``attr=false`` unsets
it (a negation: "this is not vendored", against the conventions), ``!attr`` makes it unspecified again.
For each attribute the last line whose pattern matches the path wins, as git decides. Patterns are
gitignore-style wildcards matched by the ``pathspec`` package; this module writes no glob matching.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

Attribute = Literal["vendored", "generated", "documentation"]
_NAMES: Mapping[str, Attribute] = MappingProxyType(
    {
        "linguist-vendored": "vendored",
        "linguist-generated": "generated",
        "linguist-documentation": "documentation",
    }
)
MAX_LINES = 2000  # a .gitattributes past this is cut: the overrides stay linear in the tree


@dataclass(frozen=True)
class _Rule:
    regex: re.Pattern[str]
    values: tuple[tuple[Attribute, bool | None], ...]  # None: unspecified again (``!attr``)


@dataclass(frozen=True)
class Overrides:
    """The Linguist attributes a ``.gitattributes`` sets, in file order."""

    rules: tuple[_Rule, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.rules)

    def of(self, path: str) -> Mapping[Attribute, bool]:
        """The attributes set (True) or unset (False) for ``path``; absent keys are unspecified."""
        decided: dict[Attribute, bool | None] = {}
        for rule in reversed(self.rules):
            if all(name in decided for name, _value in rule.values):
                continue
            if rule.regex.match(path) is None:
                continue
            for name, value in rule.values:
                decided.setdefault(name, value)
        return {name: value for name, value in decided.items() if value is not None}


NO_OVERRIDES = Overrides()


def parse_gitattributes(text: str | None) -> Overrides:
    """The Linguist overrides of a ``.gitattributes`` file (None or empty: none)."""
    if not text:
        return NO_OVERRIDES
    rules = []
    for raw in text.splitlines()[:MAX_LINES]:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, *attrs = line.split()
        values = tuple(v for v in (_value(a) for a in attrs) if v is not None)
        if not values or pattern.startswith("!"):  # git rejects negative patterns in attributes
            continue
        compiled = GitIgnoreBasicPattern(pattern).regex
        if compiled is not None:
            rules.append(_Rule(regex=compiled, values=values))
    return Overrides(rules=tuple(rules))


def _value(attr: str) -> tuple[Attribute, bool | None] | None:
    state: bool | None = True
    if attr.startswith("-"):
        attr, state = attr[1:], False
    elif attr.startswith("!"):
        attr, state = attr[1:], None
    name, _, value = attr.partition("=")
    if name not in _NAMES:
        return None
    if value:
        state = value.lower() not in ("false", "0", "no")
    return _NAMES[name], state
