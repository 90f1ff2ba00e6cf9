"""The claim check: a report's checkable claims held against what the tools observed, by the app.

The observations are real (the offline planner's reads of the sample repository over the emulator);
the reports are written here to hold every kind of claim, true and false, in English and Chinese.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.event_json import event_from_dict, event_to_dict
from agent_core.repo import RepoRef
from agent_core.report.checked import checked_summary
from agent_core.report.claim_finders import find_claims
from agent_core.report.claims import annotate, check_report
from agent_core.report.export import full_report
from agent_core.settings import Settings
from agent_core.tools.results import ToolResult
from agent_core.top.terminal import TerminalRenderer
from agent_core.web.report_view import checked_markdown
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator

WIDGETS = RepoRef(owner="acme", name="widgets")


@pytest.fixture
async def observed(emulator: GitHubEmulator, tmp_path: Path) -> list[ToolResult]:
    """What the offline planner gathered about acme/widgets (42 stars, MIT, Python, 8 commits)."""
    run = await run_once(Settings(github_api_url=emulator.base_url, cache_dir=tmp_path / "cache"), "")
    return run.opened.analysis.results


def verdicts(
    report: str, results: list[ToolResult], scope: tuple[RepoRef, ...] = (WIDGETS,)
) -> dict[str, tuple[str, str | None]]:
    check = check_report(report, scope, results)
    return {c.claim: (c.verdict, c.observed) for c in check.claims}


def test_numbers_license_language_and_dates_are_held_against_the_observations(
    observed: list[ToolResult],
) -> None:
    report = (
        "acme/widgets has 42 stars, 7 forks and about 1.2k open issues. It is MIT licensed and written in "
        "Rust. The latest commit was on 2024-02-26; it was created in 2019. It has 8 commits."
    )
    got = verdicts(report, observed)
    assert got["stars: 42"] == ("verified", "42")
    assert got["forks: 7"] == ("contradicted", "0")
    assert got["open issues: 1.2k"] == ("contradicted", "0")
    assert got["MIT"] == ("verified", "MIT")
    assert got["Rust"] == ("contradicted", "Python")
    assert got["last commit: 2024-02-26"][0] == "verified"
    assert got["created: 2019"][0] == "contradicted"
    assert got["commits: 8"] == ("verified", "8")


def test_files_dependencies_and_negations(observed: list[ToolResult]) -> None:
    report = (
        "Configured by `pyproject.toml` and `package.json`; the code is in `src/pkg/core.py`, the tests in "
        "`tests/`. There is no `Dockerfile`, and no `README.md`. It depends on `click` and on django."
    )
    got = verdicts(report, observed)
    assert got["pyproject.toml"][0] == "verified"
    assert got["package.json"] == ("contradicted", "not in the repository's tree")
    assert got["src/pkg/core.py"][0] == "verified"
    assert got["tests/"][0] == "verified"
    assert got["no Dockerfile"][0] == "verified"  # absent, and said to be absent
    assert got["no README.md"][0] == "contradicted"  # present, and said to be absent
    assert got["click"][0] == "verified"  # in requirements.txt
    assert got["django"][0] == "contradicted"


def test_the_repositorys_own_name_in_backticks_is_not_a_missing_path(observed: list[ToolResult]) -> None:
    """A real 1.5B model wrote "The repository `psf/requests` is ..." and the check marked it absent."""
    got = verdicts("The repository `acme/widgets` is small; see `acme/gadgets`.", observed)
    assert got["acme/widgets"] == ("unchecked", None)
    # `owner/name` with no such first folder: another repository or a `vendor/package`, never ✗ as a path
    assert got["acme/gadgets"] == ("unchecked", None)
    assert verdicts("See `src/gadgets`.", observed)["src/gadgets"] == (
        "contradicted",
        "not in the repository's tree",
    )


def test_links_become_permalinks_at_the_analysed_commit_and_broken_ones_are_flagged(
    observed: list[ToolResult],
) -> None:
    report = (
        "See [the core](https://github.com/acme/widgets/blob/main/src/pkg/core.py#L3-L9), "
        "[a ghost](https://github.com/acme/widgets/blob/main/src/ghost.py) and "
        "[another project](https://github.com/psf/requests)."
    )
    check = check_report(report, (WIDGETS,), observed)
    by_url = {c.claim: c for c in check.claims}
    core = by_url["https://github.com/acme/widgets/blob/main/src/pkg/core.py#L3-L9"]
    head = next(r.value.commits[0].sha for r in observed if r.tool == "get_commits")
    assert (
        core.verdict == "verified"
        and core.observed == f"https://github.com/acme/widgets/blob/{head}/src/pkg/core.py#L3-L9"
    )
    assert by_url["https://github.com/acme/widgets/blob/main/src/ghost.py"].verdict == "contradicted"
    assert by_url["https://github.com/psf/requests"].verdict == "unchecked"
    marked = annotate(report, check)
    assert f"/blob/{head}/src/pkg/core.py#L3-L9)" in marked
    assert "[a ghost](https://github.com/acme/widgets/blob/main/src/ghost.py) **[✗ checked:" in marked


def test_marks_stand_where_the_claim_stands_without_breaking_its_markdown(observed: list[ToolResult]) -> None:
    report = "Uses `django` for the web.\n\n| Stars | 99 |\n|---|---|\n\nRequires Python 3.7+."
    marked = annotate(report, check_report(report, (WIDGETS,), observed))
    assert "`django` **[✗ checked: not among the dependencies" in marked  # after the code span, not inside
    assert "| Stars | 99 **[✗ checked: 42]** |" in marked


def test_chinese_claims_are_found_too(observed: list[ToolResult]) -> None:
    got = verdicts(
        "该项目有 42 个星标，复刻：5，主要语言为 Python，采用 MIT 许可证，创建于 2024年1月。", observed
    )
    assert got["stars: 42"][0] == "verified"
    assert got["forks: 5"][0] == "contradicted"
    assert got["Python"][0] == "verified"
    assert got["MIT"][0] == "verified"
    assert got["created: 2024年1月"][0] == "verified"


def test_a_comparison_attributes_each_claim_to_the_repository_named_before_it(
    observed: list[ToolResult],
) -> None:
    other = RepoRef(owner="octo", name="other")  # in scope, nothing observed about it
    report = "### acme/widgets\n\n42 stars.\n\n### octo/other\n\n42 stars."
    check = check_report(report, (WIDGETS, other), observed)
    assert [(c.repo, c.verdict) for c in check.claims] == [
        ("acme/widgets", "verified"),
        ("octo/other", "unchecked"),
    ]


def test_prose_and_code_blocks_are_not_claims() -> None:
    assert find_claims("A tidy, well-maintained project with a friendly community.") == []
    in_block = find_claims("```\n70k stars in package.json\n```")  # a block's only claims are its paths
    assert [(f.kind, f.value) for f in in_block] == [("path", "package.json")]


def test_the_key_facts_and_the_panel_are_the_apps_and_quote_the_report_inertly(
    observed: list[ToolResult],
) -> None:
    report = "It has 9 forks <img src=x onerror=alert(1)> and 42 stars."
    check = check_report(report, (WIDGETS,), observed)
    facts = {f.label: f.value for f in check.key_facts}
    assert facts["stars"] == "42" and facts["license"] == "MIT" and facts["language"] == "Python"
    assert facts["last_commit"].startswith("2024-02-26")
    panel = checked_markdown(check, ["get_languages(): no data (down)"], "en", finished=True)
    assert panel.startswith("#### ✔ Checked by Repo Analyst, not by the model")
    assert "✗ forks: 9 — observed: 0" in panel and "Data gaps" in panel and "<img" not in panel
    exported = full_report(report, check, ["get_languages(): no data (down)"])
    assert exported.startswith("It has 9 forks")
    assert "\n---\n\n## ✔ Checked by Repo Analyst, not by the model\n" in exported
    assert "| ✗ | forks: 9 | 0 |" in exported
    # One wording of the check for the page, the export and the CLI.
    summary = "Claims held against the observations: 1 ✓ verified · 1 ✗ contradicted · 0 ? not checkable"
    assert checked_summary(check, "en") == summary
    assert f"**{summary}**" in panel and f"**{summary}**" in exported
    terminal = io.StringIO()
    TerminalRenderer(terminal, rich=False).render(check)
    assert f"✔ Checked by Repo Analyst, not by the model · {summary}" in terminal.getvalue()
    assert "✗ forks: 9 — observed: 0" in terminal.getvalue()
    zh = checked_markdown(check, [], "zh", finished=True)
    assert (
        zh.startswith("#### ✔ 由 Repo Analyst 核对，而非模型") and f"**{checked_summary(check, 'zh')}**" in zh
    )
    assert checked_summary(check, "zh") in full_report(report, check, [], "zh")


async def test_every_report_is_checked_before_run_finished(emulator: GitHubEmulator, tmp_path: Path) -> None:
    run = await run_once(Settings(github_api_url=emulator.base_url, cache_dir=tmp_path / "cache"), "")
    kinds = run.kinds
    assert kinds[-2:] == ["claims_checked", "run_finished"]
    (check,) = run.of(ev.ClaimsChecked)
    assert check.contradicted == 0 and check.verified > 0  # the deterministic writer's own report holds
    assert run.finished.stats.claims_verified == check.verified
    assert event_from_dict(event_to_dict(check)) == check
