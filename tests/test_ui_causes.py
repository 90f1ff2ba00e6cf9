"""Right words for the cause: a failure names the source actually used. Server errors or a timeout while
reading a local checkout (chaos mode injects faults there too) are not "GitHub answered with server
errors"; the same causes on GitHub still say GitHub."""

from __future__ import annotations

import pytest

from agent_core.diagnosis import explain
from agent_core.events import Diagnosis
from agent_core.words import t


@pytest.mark.parametrize("cause", ["github_server", "timeout"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_local_failure_names_the_local_repository_not_github(cause: str, lang: str) -> None:
    said = explain(Diagnosis(cause=cause, source="local"), lang)
    assert "GitHub" not in said.what + said.next_step and "githubstatus" not in said.next_step
    assert ("local repository" if lang == "en" else "本地仓库") in said.what


def test_the_same_causes_on_github_still_say_github() -> None:
    said = explain(Diagnosis(cause="github_server", source="github", host="api.github.com"), "en")
    assert said.what.startswith("GitHub answered with server errors")
    timeout = explain(Diagnosis(cause="timeout", source="github", host="api.github.com"), "en")
    assert timeout.what == "api.github.com did not answer in time."


def test_the_chaos_switch_says_it_reaches_local_reads_too() -> None:
    assert "local" in t("chaos_enabled", "en") and "本地" in t("chaos_enabled", "zh")
