"""Version constraints as each ecosystem writes them, read as sets of versions, so a claimed version can be
held against what a manifest declares (and what a lock file resolved).

Every constraint becomes a union of half-open intervals ``[low, high)`` over version tuples; a claimed
version is an interval too ("1.2" is every 1.2.x, "1.2.3" exactly 1.2.3, "^1.2" a range), and a claim
holds when its interval meets the declared one. Read here: npm and Cargo semver ranges (``^`` ``~`` x-ranges,
comparators, ``||``, hyphen ranges; Cargo's bare version is a caret), PEP 440 (``==`` with ``.*``, ``>=``,
``~=``, ``!=``, commas; Poetry's ``^``/``~``), Composer (``^`` ``~`` ``||`` ``*``, spaces or commas as AND),
RubyGems (``~>``, ``>=``, ``!=``), Maven/Gradle/NuGet exact versions and ``[1.0,2.0)`` ranges (Gradle's
``1.+``), and Go module versions (exact, ``v`` prefix, pre-release and ``+incompatible`` suffixes).
Pre-release labels are dropped (``1.2.0-beta`` reads as ``1.2.0``). What cannot be read (a git URL, a
path, ``${property}``, ``latest``) is None: not checkable. Pure functions; caps on lengths and counts keep
every call small.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Version = tuple[int, int, int, int]
Interval = tuple[Version, Version]
Span = list[Interval]

_ZERO: Version = (0, 0, 0, 0)
_TOP: Version = (1 << 62, 0, 0, 0)
_ANY: Span = [(_ZERO, _TOP)]
_MAX_TEXT = 120  # characters of one constraint read
_MAX_PARTS = 16  # alternatives and comparators of one constraint

_NUMBER = re.compile(r"v?(\d{1,9}(?:\.(?:\d{1,9}|[xX*]))*)(?:\.\+|\+)?(?:[-+][0-9A-Za-z.+-]*)?")
_COMPARATOR = re.compile(r"(\^|~>|~=|~|===|==|=|>=|<=|>|<|!=)?\s*(\S*)")
_EXACT_ONLY = frozenset({"maven", "nuget", "go"})  # a bare version means that version


def ecosystem_of(path: str) -> str:
    """The constraint syntax of a manifest or lock file, by its name."""
    name = path.rsplit("/", 1)[-1].lower()
    if name in ("package.json", "package-lock.json", "pnpm-workspace.yaml", "yarn.lock"):
        return "npm"
    if name in ("cargo.toml", "cargo.lock"):
        return "cargo"
    if name in ("composer.json", "composer.lock"):
        return "composer"
    if name in ("gemfile", "gemfile.lock") or name.endswith(".gemspec"):
        return "rubygems"
    if name in ("go.mod", "go.work", "vendor.mod"):
        return "go"
    if name.endswith((".csproj", ".fsproj", ".vbproj", ".props", "packages.config")):
        return "nuget"
    if name in ("pom.xml", "libs.versions.toml") or name.startswith("build.gradle"):
        return "maven"
    return "pypi"


def parse_version(text: str) -> tuple[Version, int] | None:
    """``text`` as a version and how many parts it gave ("1.2" → ((1, 2, 0, 0), 2)); x/* parts end it."""
    m = _NUMBER.fullmatch(text.strip().lstrip("=").strip())
    if m is None:
        return None
    parts: list[int] = []
    for part in m.group(1).split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    given = min(len(parts), 4)
    padded = [*parts, 0, 0, 0, 0][:4]
    return (padded[0], padded[1], padded[2], padded[3]), given


def _bump(version: Version, at: int) -> Version:
    """The first version past every one sharing ``version``'s first ``at`` parts."""
    if at <= 0:
        return _TOP
    parts = [*version[: at - 1], version[at - 1] + 1, 0, 0, 0, 0][:4]
    return (parts[0], parts[1], parts[2], parts[3])


def _caret(version: Version, given: int) -> Version:
    """npm/Cargo caret: the left-most non-zero part given stays."""
    for at in range(max(given, 1)):
        if version[at] != 0:
            return _bump(version, at + 1)
    return _bump(version, max(given, 1))


def _bounds(op: str, v: Version, given: int) -> Span | None:
    """The comparators whose meaning is the same in every ecosystem."""
    if op == "^":
        return [(v, _caret(v, given))]
    if op in ("~>", "~="):  # RubyGems' pessimistic operator, PEP 440's compatible release
        return [(v, _bump(v, max(given - 1, 1)))]
    if op in (">=", ">"):
        return [(v if op == ">=" else _bump(v, given), _TOP)]
    if op in ("<=", "<"):
        return [(_ZERO, _bump(v, given) if op == "<=" else v)]
    if op == "!=":
        return [(_ZERO, v), (_bump(v, given), _TOP)]
    return None


def _one(op: str, text: str, ecosystem: str) -> Span | None:
    """One comparator (``^1.2``, ``>=3``, ``1.2.x``, a bare version) as an interval list."""
    if text in ("", "*", "x", "X") and op in ("", "="):
        return _ANY
    read = parse_version(text)
    if read is None:
        return None
    v, given = read
    if (bounded := _bounds(op, v, given)) is not None:
        return bounded
    wild = re.search(r"\.[xX*+]|^[^-+]*\+$", text) is not None  # "1.2.x", "1.2.*", Gradle's "1.+"
    if op == "~":  # npm/Cargo/Poetry: the minor stays; Composer's ~1.2: the major stays
        keep = given - 1 if ecosystem == "composer" and given >= 2 and not wild else min(given, 2)
        return [(v, _bump(v, keep))]
    if op == "" and ecosystem == "cargo" and not wild:
        return [(v, _caret(v, given))]  # Cargo's bare version is a caret requirement
    return [(v, _bump(v, given))]  # exact at the precision given, x-ranges, Gradle's "1.+"


def _intersect(a: Span, b: Span) -> Span:
    out = [(max(x[0], y[0]), min(x[1], y[1])) for x in a for y in b]
    return [i for i in out if i[0] < i[1]][:_MAX_PARTS]


def _interval_range(text: str) -> Span | None:
    """Maven/NuGet ranges: ``[1.0,2.0)``, ``[1.0,)``, ``(,1.0]``, ``[1.2]``, unions of them."""
    spans: Span = []
    for m in re.finditer(r"([\[(])([^\[\]()]*)([\])])", text[:_MAX_TEXT]):
        low_text, _, high_text = m.group(2).partition(",")
        if "," not in m.group(2):
            read = parse_version(low_text)
            if read is None:
                return None
            spans.append((read[0], _bump(read[0], read[1])))
            continue
        low = parse_version(low_text) if low_text.strip() else (_ZERO, 0)
        high = parse_version(high_text) if high_text.strip() else (_TOP, 0)
        if low is None or high is None:
            return None
        start = low[0] if m.group(1) == "[" or not low_text.strip() else _bump(low[0], low[1])
        end = _bump(high[0], high[1]) if m.group(3) == "]" and high_text.strip() else high[0]
        spans.append((start, end))
    return spans[:_MAX_PARTS] or None


def constraint_span(constraint: str, ecosystem: str) -> Span | None:
    """The versions ``constraint`` allows, or None when it is not a version constraint one can read."""
    text = constraint.strip()
    if len(text) > _MAX_TEXT or text.endswith("…"):
        return None  # cut where it was read: its last alternative may allow what the whole does not
    if ecosystem in _EXACT_ONLY and text[:1] in "[(":
        return _interval_range(text)
    if ecosystem == "go":
        read = parse_version(text)
        return None if read is None else [(read[0], _bump(read[0], read[1]))]
    text = re.sub(r"@[a-z]+$", "", text)  # Composer's stability flag
    union: Span = []
    alternatives = re.split(r"\s*\|\|?\s*", text)
    if len(alternatives) > _MAX_PARTS:
        return None  # read in part, the union would refuse what a later alternative allows
    for alternative in alternatives:
        span = _alternative(alternative.strip(), ecosystem)
        if span is None:
            return None
        union += span
    return union[:_MAX_PARTS] or None


def _alternative(text: str, ecosystem: str) -> Span | None:
    hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", text)
    if hyphen:
        low, high = parse_version(hyphen.group(1)), parse_version(hyphen.group(2))
        if low is None or high is None:
            return None
        return [(low[0], _bump(high[0], high[1]))]
    span = _ANY
    text = re.sub(r"(\^|~>|~=|~|===|==|=|>=|<=|>|<|!=)\s+", r"\1", text)  # ">= 1.2" as ">=1.2"
    for part in [p for p in re.split(r"[\s,]+", text) if p][:_MAX_PARTS]:
        m = _COMPARATOR.fullmatch(part)
        one = _one(m.group(1) or "", m.group(2), ecosystem) if m else None
        if one is None:
            return None
        span = _intersect(span, one)
    return span


def claimed_span(claimed: str, ecosystem: str) -> Span | None:
    """What a report's version means: a bare version is every version it names at its precision
    ("18" is 18.x, "1.2.3" is 1.2.3), anything else a constraint."""
    read = parse_version(claimed)
    if read is not None:
        return [(read[0], _bump(read[0], read[1]))]
    return constraint_span(claimed, "npm" if ecosystem in _EXACT_ONLY else ecosystem)


def compatible(claimed: str, declared: Sequence[tuple[str, str]]) -> bool | None:
    """Whether a claimed version meets any of the ``(constraint, ecosystem)`` declared; None when neither
    the claim nor any declaration can be read."""
    verdict: bool | None = None
    for constraint, ecosystem in declared:
        want, have = claimed_span(claimed, ecosystem), constraint_span(constraint, ecosystem)
        if want is None or have is None:
            continue
        if _intersect(want, have):
            return True
        verdict = False
    return verdict
