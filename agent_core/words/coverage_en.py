"""How much a run read, in English: the coverage ledger's sentence (report appendix, page stats, CLI)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

COVERAGE: Mapping[str, str] = MappingProxyType(
    {
        "coverage_read": "Read {read:,} of {own:,} of the project's own files ({bytes_read} of {own_bytes})",
        "coverage_read_bound": "Read {read:,} of at least {own:,} of the project's own files ({bytes_read} read)",
        "coverage_read_only": "Read {read:,} {read!p:file|files} ({bytes_read}); the tree was not read, so the project's size is unknown",
        "coverage_listed": "listed {count:,} {count!p:folder|folders}",
        "coverage_listed_one": "listed 1 folder",
        "coverage_listed_none": "listed no folder",
        "coverage_never": "nothing read in: {names}",
        "coverage_more": "{names} and {more:,} more",
        "coverage_all": "looked into every top-level folder",
        "coverage_sep": "; ",
        "coverage_comma": ", ",
        "coverage_end": ".",
        "coverage_repo": "{repo}: ",
        "coverage_gitattributes_lines_capped": "`.gitattributes` read up to its first 2,000 lines",
        "coverage_gitattributes_pattern_too_long": "`.gitattributes` patterns over 256 characters left out",
        "coverage_gitattributes_too_complex": "`.gitattributes` patterns too many or too complex to match together: its Linguist overrides were not applied",
    }
)
