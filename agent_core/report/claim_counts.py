"""Package counts per ecosystem claimed in a report ("It is made of 13 gems", "24 .NET projects", "3 个
crate"), found by the units the writer itself uses (``eco_unit_*`` of :mod:`agent_core.words`, English
and Chinese) and the other names people give them ("Ruby gems", "Rust crates", "PHP packages"). A count in a
clause about dependencies ("depends on 12 gems") counts something else and is no claim. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from agent_core.report.claim_names import Found
from agent_core.words import words_for

_ECOSYSTEMS: tuple[str, ...] = (
    "go", "npm", "cargo", "python", "maven", "gradle", "composer", "rubygems", "nuget", "cmake", "meson", "hex", "pub",
)  # fmt: skip
_OTHER_NAMES = {
    "rubygems": ("Ruby gems", "Ruby gem", "gemspecs"),
    "nuget": ("C# projects", "NuGet projects", "MSBuild projects", "csproj projects", "NuGet packages"),
    "composer": ("PHP packages", "PHP package"),
    "maven": ("Maven projects",),
    "gradle": ("Gradle modules", "Gradle subprojects", "Gradle module"),
    "cargo": ("Rust crates", "Cargo crates"),
    "npm": ("JavaScript packages", "TypeScript packages", "pnpm packages", "workspace packages"),
    "python": ("Python packages", "Python distributions"),
}
# A clause about what the project depends on counts dependencies, not its own packages.
_DEPENDENCY_CLAUSE = re.compile(r"depend|requir|install|\buses?\b|\busing\b|vendored|依赖|需要|使用", re.I)


@cache
def _pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    units: dict[str, str] = {}
    for language in ("en", "zh"):
        words = words_for(language)
        for key in _ECOSYSTEMS:
            for plural in ("one", "many"):
                if words.has(f"eco_unit_{key}_{plural}"):
                    units[words(f"eco_unit_{key}_{plural}").lower()] = key
    for key, names in _OTHER_NAMES.items():
        units.update({name.lower(): key for name in names})
    alternatives = "|".join(re.escape(u).replace(r"\ ", r"\s+") for u in sorted(units, key=len, reverse=True))
    number = r"(\d{1,3}(?:,\d{3})+|\d{1,6})"
    return re.compile(rf"(?<![\w.,]){number}\s*(?:个\s*)?({alternatives})(?![\w])", re.IGNORECASE), units


def count_claims(line: str, base: int) -> Iterator[Found]:
    """The package counts ``line`` claims, one per number and unit."""
    pattern, units = _pattern()
    for m in pattern.finditer(line):
        clause = re.split(r"[.;:。；：!?！？,，]", line[max(0, m.start() - 80) : m.start()])[-1]
        if _DEPENDENCY_CLAUSE.search(clause):
            continue
        ecosystem = units[" ".join(m.group(2).lower().split())]
        yield Found(
            kind="count",
            subject=ecosystem,
            value=m.group(1).replace(",", ""),
            start=base + m.start(),
            end=base + m.end(),
        )
