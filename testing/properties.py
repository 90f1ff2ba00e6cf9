"""How many examples a property test tries: sized for CI, or every one when exploring.

CI runs the ``repeatable`` profile (tests/conftest.py): derandomized, so every run tries the same examples,
and a thousand of them buy little over three hundred. ``HYPOTHESIS_PROFILE=explore`` draws new examples on
each run; then a test tries its full count.
"""

from __future__ import annotations

import os

CI_SHARE = 0.3
"""The share of a property's full count that CI tries (at least :data:`CI_FLOOR`)."""
CI_FLOOR = 60


def examples(full: int) -> int:
    """``full`` when exploring, else :data:`CI_SHARE` of it (never fewer than :data:`CI_FLOOR`)."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "explore":
        return full
    return min(full, max(CI_FLOOR, round(full * CI_SHARE)))
