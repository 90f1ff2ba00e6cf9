"""The suite's plan for two workers (tests/conftest.py): the groups named to start first exist, so that a
renamed module cannot silently fall back to starting last."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import LONGEST, SPREAD, TOGETHER

ROOT = Path(__file__).resolve().parents[1]


def test_every_group_named_to_start_first_is_a_group_of_this_suite() -> None:
    for group in LONGEST:
        if group in TOGETHER.values():
            continue
        assert (ROOT / group).is_file(), group
        assert Path(group).name not in SPREAD, group  # a spread module has no group to start
    assert len(set(LONGEST)) == len(LONGEST)
