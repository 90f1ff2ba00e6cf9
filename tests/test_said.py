"""The app's sentences that travel in events as data (:class:`agent_core.words.Said`): the planner's
narration and the claim check's observations are said in each reader's language, from the event's
structure, never from its English; the JSON export keeps the structure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.event_json import event_from_dict, event_to_dict
from agent_core.repo import RepoRef
from agent_core.report.checked import claim_text, observed_text
from agent_core.report.claims import annotate, check_report
from agent_core.settings import Settings
from agent_core.web.render import TraceView
from agent_core.words import Said, said, say, t
from agent_core.words.tables import TABLES
from testing.analysis import Run, run_once
from testing.emulator.github import GitHubEmulator

WIDGETS = RepoRef(owner="acme", name="widgets")
# Three English words in a row outside code: what a page in Chinese must not show of the app's own.
ENGLISH_RUN = re.compile(r"[A-Za-z]+(?:[ ,;:]+[A-Za-z]+){2,}")


def test_a_said_sentence_joins_lists_clauses_and_parts_as_its_language_does() -> None:
    sentence = said(
        "plan_step",
        parts=[
            said(
                "plan_reading",
                groups=[
                    said("plan_read_readme", files=["README.md"]),
                    said("plan_read_manifest", files=["a.toml", "b.txt"]),
                ],
            ),
            said("plan_listing", folders=["tests/"]),
        ],
    )
    assert say(sentence, "en") == "Reading README.md; the manifests a.toml, b.txt and listing tests/."
    assert say(sentence, "zh") == "读取 README.md；清单文件 a.toml、b.txt，并列出 tests/。"
    assert say([sentence, said("plan_no_tree", repo="o/r")], "zh").count("。") == 2
    with pytest.raises(TypeError):
        said("plan_no_tree", repo={"o": "r"})  # type: ignore[arg-type]


def test_every_key_a_said_sentence_may_name_exists_in_every_language() -> None:
    kinds = ("readme", "manifest", "module", "ci", "license", "attributes", "question")
    keys = {f"plan_read_{kind}" for kind in kinds} | {
        f"said_{sep}_sep" for sep in ("list", "clause", "and", "sentence")
    }
    subjects = (
        "stars",
        "forks",
        "open_issues",
        "commits",
        "created",
        "last_commit",
        "last_push",
        "python",
        "package",
    )
    keys |= {f"claim_label_{subject}" for subject in subjects}
    assert {language: sorted(keys - set(table)) for language, table in TABLES.items()} == {"en": [], "zh": []}


@pytest.fixture
async def chinese_run(emulator: GitHubEmulator, tmp_path: Path) -> Run:
    """The offline planner's run over acme/widgets, asked in Chinese (its report in Chinese)."""
    return await run_once(
        Settings(github_api_url=emulator.base_url, cache_dir=tmp_path / "cache"), "这个项目是怎么测试的？"
    )


async def test_the_planners_narration_is_said_in_the_readers_language_and_its_english_is_kept(
    chinese_run: Run,
) -> None:
    narration = [e for e in chinese_run.events if isinstance(e, ev.ReasoningDelta)]
    assert len(narration) == 2 and all(e.said for e in narration), narration
    overview, reads = (say(e.said, "zh") for e in narration)
    assert overview.startswith("先概览 acme/widgets：") and "最近 30 次提交" in overview, overview
    assert reads.startswith("读取 README.md；清单文件 pyproject.toml"), reads
    assert "，并列出 tests/。" in reads and "为了回答问题（" in reads, reads
    assert [ENGLISH_RUN.findall(text) for text in (overview, reads)] == [[], []]
    assert narration[1].text.startswith("Reading README.md; the manifests pyproject.toml")  # the English kept
    assert narration[1].text == say(narration[1].said, "en")
    assert [event_from_dict(event_to_dict(e)) for e in narration] == narration  # a replay says them anew


def test_the_claim_check_says_what_it_observed_in_the_readers_language(chinese_run: Run) -> None:
    report = (
        "# acme/widgets\n\nIt has 42 stars and 9 forks, was last pushed on 2024-02-26 and depends on `click`.\n"
        "Its code is in `src/pkg/core.py` and `lib/missing.py`.\n"
    )
    check = check_report(report, (WIDGETS,), chinese_run.opened.analysis.results)
    by_claim = {c.claim: c for c in check.claims}
    click, missing = by_claim["click"], by_claim["lib/missing.py"]
    assert click.observed == "declared in pyproject.toml, requirements.txt"  # the English, as before
    assert observed_text(click, "zh") == "声明于 pyproject.toml、requirements.txt"
    assert missing.verdict == "contradicted" and observed_text(missing, "zh") == "不在仓库的文件树中"
    assert by_claim["forks: 9"].verdict == "contradicted"
    named = {claim_text(c, "zh") for c in check.claims if c.claim_said is not None}
    assert {"星标：42", "复刻：9", "最后推送：2024-02-26"} <= named, named
    assert all(ENGLISH_RUN.findall(text) == [] for text in named), named
    # the mark in the report is in the reader's language too
    assert "`lib/missing.py` **[✗ 核对结果：不在仓库的文件树中]**" in annotate(report, check, "zh")
    assert "`lib/missing.py` **[✗ checked: not in the repository's tree]**" in annotate(report, check)
    back = event_from_dict(event_to_dict(check))
    assert back == check and [observed_text(c, "zh") for c in back.claims] == [
        observed_text(c, "zh") for c in check.claims
    ]


def test_a_said_value_is_repository_content_and_never_looked_up() -> None:
    # A path that happens to be a key of the tables stays a path.
    assert say(said("observed_declared_in", where=["checked_title"]), "zh") == "声明于 checked_title"
    assert t("checked_title", "zh") != "checked_title"
    assert isinstance(said("plan_quoted", word="x"), Said)


async def test_a_limit_the_planner_reaches_is_said_in_the_readers_language(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    settings = Settings(github_api_url=emulator.base_url, cache_dir=tmp_path / "cache", max_tool_calls=6)
    run = await run_once(settings, "这个项目是怎么测试的？")
    notices = [e for e in run.events if isinstance(e, ev.Notice) and e.said]
    assert [e.said[0].key for e in notices] == ["notice_tool_limit"], notices
    assert notices[0].message.startswith("Tool-call limit (6) reached;")
    assert say(notices[0].said, "zh").startswith("已达到工具调用上限（6）；跳过了 ")
    view = TraceView(lang="zh")
    for event in run.events:
        view.apply(event)
    shown = " ".join(str(m.get("metadata", {}).get("title", "")) for m in view.messages())
    assert "已达到工具调用上限（6）" in shown and "Tool-call limit" not in shown, shown
