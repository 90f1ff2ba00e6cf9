"""Licences as SPDX expressions: which licence a LICENSE/COPYING file holds, what a manifest's ``license``
field says, and what several such statements say together.

:func:`detect_license` is pure text matching on a file's first bytes (no network, no git);
:func:`is_license_file`, :data:`LICENSE_FILES` and :data:`LICENSE_SAMPLE` say which top-level files hold a
licence and how much of one to read. :func:`spdx` reads a statement ("MIT OR Apache-2.0", Cargo's old
"MIT/Apache-2.0") with the ``license-expression`` package; :func:`combine` joins what the repository's
metadata, its manifests and its licence files say into one :class:`LicenseFinding`, so a project licensed
"MIT OR Apache-2.0" is found to be under MIT and under Apache-2.0, not under "the other one".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from license_expression import ExpressionError, Licensing, get_spdx_licensing

# Lower-cased top-level file names, in the order they are tried.
LICENSE_FILES = ("license", "license.md", "license.txt", "licence", "licence.md", "copying", "copying.md")
LICENSE_SAMPLE = 4096  # bytes: the title and the first clauses are enough to tell these licenses apart
MAX_LICENSE_FILES = 6  # licence files read at the root of a local repository (LICENSE-MIT, LICENSE-APACHE...)
_MAX_STATEMENT = 200  # characters of one licence statement parsed; past that it is not a statement
# A licence file's name: LICENSE, LICENCE.md, LICENSE-MIT, LICENSE-APACHE-2.0.txt, UNLICENSE, COPYING...
LICENSE_FILE = re.compile(r"(?:un)?licen[cs]e(?:[-_.][\w.-]*)?|copying(?:[-_.][\w.-]*)?", re.IGNORECASE)
# What GitHub says when it cannot name one licence (two licence files, an unknown text).
UNNAMED = frozenset({"noassertion", "other", "unknown", "none"})

# (SPDX id, phrases that must all appear; the first one is the title). License texts quote each other
# (MPL-2.0 names the GPLs, LGPL quotes the GPL), so the title found earliest wins; on a tie the earlier
# rule wins (BSD-3 is BSD-2 plus "neither the name", GPL-3.0 must be tried before GPL-2.0).
_LICENSE_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("AGPL-3.0", ("gnu affero general public license", "version 3")),
    ("LGPL-3.0", ("gnu lesser general public license", "version 3")),
    ("LGPL-2.1", ("gnu lesser general public license", "version 2.1")),
    ("LGPL-2.0", ("gnu library general public license", "version 2")),
    ("GPL-3.0", ("gnu general public license", "version 3")),
    ("GPL-2.0", ("gnu general public license", "version 2")),
    ("Apache-2.0", ("apache license", "version 2.0")),
    ("MPL-2.0", ("mozilla public license", "2.0")),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "neither the name")),
    ("BSD-2-Clause", ("redistribution and use in source and binary forms",)),
    ("MIT", ("permission is hereby granted, free of charge",)),
    ("ISC", ("permission to use, copy, modify, and/or distribute this software for any purpose",)),
    ("Unlicense", ("this is free and unencumbered software released into the public domain",)),
    ("CC-BY-SA-4.0", ("attribution-sharealike 4.0 international", "creative commons")),
    ("CC-BY-4.0", ("attribution 4.0 international", "creative commons")),
    ("CC0-1.0", ("cc0 1.0 universal", "creative commons")),
    ("BSL-1.0", ("boost software license - version 1.0",)),
    ("EPL-2.0", ("eclipse public license - v 2.0",)),
    ("EPL-1.0", ("eclipse public license - v 1.0",)),
)


def detect_license(text: str) -> str | None:
    """The SPDX id of a few common licenses from the start of a license file, or None."""
    words = " ".join(text[: LICENSE_SAMPLE * 2].lower().split())
    found = [
        (words.find(phrases[0]), order, spdx)
        for order, (spdx, phrases) in enumerate(_LICENSE_RULES)
        if all(phrase in words for phrase in phrases)
    ]
    return min(found)[2] if found else None


def is_license_file(path: str) -> bool:
    """A licence file's name (``LICENSE``, ``LICENSE-MIT``, ``COPYING``, ``UNLICENSE``...), at any depth."""
    return LICENSE_FILE.fullmatch(path.rsplit("/", 1)[-1]) is not None


@dataclass(frozen=True, kw_only=True)
class LicenseFinding:
    """What the statements about a repository's licence say together.

    ``expression`` is shown to people ("MIT OR Apache-2.0"); ``keys`` are the SPDX ids in it, as the
    ``license-expression`` package names them ("GPL-3.0-only"); ``sources`` says who stated them."""

    expression: str
    keys: frozenset[str]
    sources: tuple[str, ...]


@cache
def _licensing() -> Licensing:
    """The SPDX licence list, loaded once per process. Its tokenizer is built lazily by the first parse:
    parsing once here builds it before the object is shared, so later parses (from any thread) only read."""
    licensing = get_spdx_licensing()
    licensing.parse("MIT")
    return licensing


def spdx(statement: str | None) -> tuple[str, frozenset[str]] | None:
    """A licence statement as an SPDX expression and the ids in it; None when it names no known licence
    ("NOASSERTION", "Other", a sentence). Cargo's old ``MIT/Apache-2.0`` reads as ``MIT OR Apache-2.0``."""
    if statement is None or not statement.strip() or len(statement) > _MAX_STATEMENT:
        return None
    if statement.strip().lower() in UNNAMED:
        return None
    text = re.sub(r"\s*/\s*", " OR ", statement.strip())
    licensing = _licensing()
    try:
        expression = licensing.parse(text, validate=True, strict=False)
    except ExpressionError:
        return None
    if expression is None:
        return None
    keys = frozenset(str(key) for key in licensing.license_keys(expression) if not _is_exception(key))
    return (str(expression), keys) if keys else None


def _is_exception(key: str) -> bool:
    return key.lower().endswith("-exception")


def combine(statements: Iterable[tuple[str, str | None]]) -> LicenseFinding | None:
    """``(who said it, what they said)`` pairs joined: the widest statement when it holds all the others
    ("MIT OR Apache-2.0" from Cargo.toml with "MIT" from LICENSE-MIT), else every licence found, joined
    with OR (each was offered by one source). None when no statement names a known licence."""
    parsed: list[tuple[str, str, frozenset[str]]] = []
    for who, said in statements:
        found = spdx(said)
        if found is not None:
            parsed.append((who, *found))
    if not parsed:
        return None
    keys = frozenset().union(*(k for _, _, k in parsed))
    sources = tuple(dict.fromkeys(who for who, _, _ in parsed))
    widest = next((expression for _, expression, k in parsed if k == keys), None)
    if widest is None:
        widest = " OR ".join(dict.fromkeys(key for _, _, k in parsed for key in sorted(k)))
    return LicenseFinding(expression=widest, keys=keys, sources=sources)


def same_license(claimed: str, key: str) -> bool:
    """Whether a claimed licence ("MIT", "GPL-3.0", "GPL" for the family) names the SPDX id ``key``
    ("GPL-3.0-only", "GPL-3.0-or-later" and "GPL-3.0" alike)."""
    claim, have = claimed.upper(), re.sub(r"-(ONLY|OR-LATER)$|\+$", "", key.upper())
    family = _family(claim)
    if family != _family(have):
        return False
    if claim in ("GPL", "BSD", "LGPL", "EPL"):
        return True
    return claim == have


def _family(spdx_id: str) -> str:
    return spdx_id.split("-", maxsplit=1)[0]
