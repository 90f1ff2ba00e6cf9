"""Which common license a repository's LICENSE/COPYING file holds, as an SPDX id, from its first bytes.

:func:`detect_license` is pure text matching (no network, no git); :data:`LICENSE_FILES` and
:data:`LICENSE_SAMPLE` say which top-level files a source should look at and how much of one to read.
"""

from __future__ import annotations

# Lower-cased top-level file names, in the order they are tried.
LICENSE_FILES = ("license", "license.md", "license.txt", "licence", "licence.md", "copying", "copying.md")
LICENSE_SAMPLE = 4096  # bytes: the title and the first clauses are enough to tell these licenses apart
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
)


def detect_license(text: str) -> str | None:
    """The SPDX id of a few common licenses from the start of a license file, or None."""
    words = " ".join(text.lower().split())
    found = [
        (words.find(phrases[0]), order, spdx)
        for order, (spdx, phrases) in enumerate(_LICENSE_RULES)
        if all(phrase in words for phrase in phrases)
    ]
    return min(found)[2] if found else None
