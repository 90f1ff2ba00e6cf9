"""The deterministic report writer: from hand-built results, and end to end over a real git repository."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent.planner import OfflinePlanner
from agent_core.clock import SystemClock
from agent_core.repo import RepoRef
from agent_core.report.manifests import parse_manifest
from agent_core.report.prose import readme_summary
from agent_core.report.sections import section_titles
from agent_core.report.writer import written
from agent_core.settings import Settings
from agent_core.sources.local import LocalGitSource
from agent_core.sources.models import (
    Commit,
    CommitList,
    DirEntry,
    DirListing,
    EntryType,
    FileContent,
    FileTree,
    Languages,
    RepoInfo,
    TreeEntry,
)
from agent_core.tools.executor import Toolbox
from agent_core.tools.results import ToolResult
from agent_core.top.wiring import new_board, toolbox_config
from testing.emulator.gitrepo import CommitSpec, make_repo

DEMO = RepoRef(owner="octo", name="demo")
LOCAL = RepoRef(owner="local", name="wordy")

PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "demo"
dependencies = [
    "fastapi>=0.110",
    "httpx[http2]>=0.27,<1; python_version >= '3.11'",
]

[project.optional-dependencies]
dev = ["pytest>=8", "ruff"]
"""

PACKAGE_JSON = """{
  "name": "demo-ui",
  "dependencies": {"react": "^18.2.0", "react-dom": "^18.2.0"},
  "devDependencies": {"jest": "^29.0.0", "typescript": "^5.4.0", "vite": "^5.0.0"}
}"""

README = """\
<p align="center"><img src="logo.png" width="120"></p>

# demo

[![CI](https://github.com/octo/demo/actions/workflows/ci.yml/badge.svg)](https://github.com/octo/demo/actions)
[![PyPI](https://img.shields.io/pypi/v/demo.svg)](https://pypi.org/project/demo/)

Demo is a **small** service that turns [GitHub](https://github.com) events into `webhooks` for chat tools.
<img src=x onerror=alert(1)> It runs anywhere.<script>alert("pwned")</script>

## Install

```bash
pip install demo
```
"""


def result(tool: str, repo: RepoRef, value: Any = None, **arguments: Any) -> ToolResult:
    return ToolResult(
        call_id=f"{tool}:{arguments.get('path', '')}",
        tool=tool,
        arguments={**arguments, "owner": repo.owner, "repo": repo.name},
        ok=value is not None,
        observation={},
        value=value,
        repo=repo,
        error=None if value is not None else "not found",
    )


def text_file(path: str, text: str, *, truncated: bool = False) -> FileContent:
    lines = text.count("\n") + 1
    return FileContent(
        path=path,
        kind="file",
        size=len(text),
        text=text,
        start_line=1,
        end_line=lines,
        total_lines=lines,
        truncated=truncated,
    )


def file_tree(*paths: str, truncated: bool = False) -> FileTree:
    dirs = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
    entries = [TreeEntry(path=d, type="dir") for d in dirs]
    entries += [TreeEntry(path=p, type="file", size=100) for p in paths]
    return FileTree(
        ref="0123abc", path="", entries=tuple(sorted(entries, key=lambda e: e.path)), truncated=truncated
    )


def commits(*rows: tuple[str, str], has_more: bool = False) -> CommitList:
    """(author, ISO date) rows, newest first as the sources return them."""
    return CommitList(
        commits=tuple(
            Commit(sha=f"{i:040x}", message=f"change {i}", author=author, date=date)
            for i, (author, date) in enumerate(rows)
        ),
        has_more=has_more,
    )


THREE_AUTHORS = commits(
    ("Ada", "2024-03-01T10:00:00Z"),
    ("Grace", "2024-02-20T10:00:00Z"),
    ("Ada", "2024-02-10T10:00:00Z"),
    ("Linus", "2024-02-01T10:00:00Z"),
    ("Grace", "2024-01-20T10:00:00Z"),
    ("Ada", "2024-01-01T10:00:00Z"),
    has_more=True,
)

DEMO_TREE = file_tree(
    "README.md",
    "LICENSE",
    "pyproject.toml",
    "web/package.json",
    "src/demo/app.py",
    "src/demo/hooks.py",
    "tests/test_app.py",
    ".github/workflows/ci.yml",
    "docs/index.md",
    "Dockerfile",
)


def github_results(
    *, description: str = "Webhooks for chat", license_id: str | None = "MIT"
) -> list[ToolResult]:
    info = RepoInfo(
        full_name="octo/demo",
        description=description,
        default_branch="main",
        html_url="https://github.com/octo/demo",
        language="Python",
        license=license_id,
        topics=("webhooks", "chatops"),
        stars=1234,
        forks=56,
        open_issues=7,
        created_at="2023-05-01T12:00:00Z",
        pushed_at="2024-03-01T10:00:00Z",
    )
    return [
        result("get_repo_info", DEMO, info),
        result("get_file_tree", DEMO, DEMO_TREE, path=""),
        result("get_languages", DEMO, Languages(bytes_by_language={"Python": 9000, "TypeScript": 1000})),
        result("get_commits", DEMO, THREE_AUTHORS, per_page=30),
        result("read_file", DEMO, text_file("README.md", README), path="README.md"),
        result("read_file", DEMO, text_file("pyproject.toml", PYPROJECT), path="pyproject.toml"),
        result("read_file", DEMO, text_file("web/package.json", PACKAGE_JSON), path="web/package.json"),
    ]


def local_results() -> list[ToolResult]:
    """A local repository without a license, CI or tests, by one author."""
    info = RepoInfo(
        full_name="local/wordy", description=None, default_branch="main", html_url=None, language="Go"
    )
    return [
        result("get_repo_info", LOCAL, info),
        result("get_file_tree", LOCAL, file_tree("README.md", "go.mod", "main.go"), path=""),
        result("get_languages", LOCAL, Languages(bytes_by_language={"Go": 500})),
        result(
            "get_commits",
            LOCAL,
            commits(("Solo", "2024-02-01T00:00:00Z"), ("Solo", "2024-01-01T00:00:00Z")),
            per_page=30,
        ),
        result("read_file", LOCAL, text_file("go.mod", GO_MOD), path="go.mod"),
    ]


GO_MOD = """\
module example.com/wordy

go 1.22

require github.com/spf13/cobra v1.8.0

require (
\tgithub.com/stretchr/testify v1.9.0
\tgolang.org/x/sys v0.18.0 // indirect
)
"""


def headings(report: str, level: int) -> list[str]:
    return re.findall(rf"^{'#' * level} (.+)$", report, flags=re.MULTILINE)


def section(report: str, title: str) -> str:
    """The body of one level-2 section."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", report, flags=re.MULTILINE | re.DOTALL)
    assert match is not None, f"no section {title!r}"
    return match.group(1)


# ---------------------------------------------------------------------------------------- one report


def test_a_report_has_every_section_in_order_under_one_title() -> None:
    report = written(scope=[DEMO], question="", results=github_results()).markdown()

    assert headings(report, 1) == ["octo/demo — repository analysis"]
    assert headings(report, 2) == [*section_titles("en"), "Data sources"]
    assert "⚠" not in report.split("## Overview")[0]  # nothing degraded, no warning


def test_the_overview_states_metadata_and_the_first_real_readme_paragraph() -> None:
    overview = section(written(scope=[DEMO], question="", results=github_results()).markdown(), "Overview")

    assert "**Description:** Webhooks for chat" in overview
    assert (
        "([`README.md`](https://github.com/octo/demo/blob/main/README.md)): Demo is a small service that turns "
        "GitHub events into `webhooks` for chat tools. It runs anywhere."
    ) in overview
    for line in (
        "- Stars: 1,234",
        "- Forks: 56",
        "- Open issues: 7",
        "- License: MIT",
        "- Default branch: `main`",
        "- Created: 2023-05-01",
        "- Last push: 2024-03-01",
        "- Topics: `webhooks`, `chatops`",
    ):
        assert line in overview


def test_the_tech_stack_lists_parsed_dependencies_with_links() -> None:
    stack = section(written(scope=[DEMO], question="", results=github_results()).markdown(), "Tech stack")

    assert "**Languages:** Python 90.0%, TypeScript 10.0%" in stack
    assert (
        "- [`pyproject.toml`](https://github.com/octo/demo/blob/main/pyproject.toml): runtime dependencies (2): "
        "`fastapi>=0.110`, `httpx>=0.27,<1`; dependency groups: "
        "`dev` (development: `pytest>=8`, `ruff`); "
        "build backend: `hatchling.build`"
    ) in stack
    assert (
        "runtime dependencies (2): `react ^18.2.0`, `react-dom ^18.2.0`; development dependencies (3): "
        "`jest ^29.0.0`, `typescript ^5.4.0`, `vite ^5.0.0`"
    ) in stack
    notable = re.search(r"\*\*Notable dependencies:\*\* (.+)", stack)
    assert notable is not None
    assert re.findall(r"`([^`]+)`", notable.group(1)) == [
        "fastapi",
        "httpx",
        "jest",
        "pytest",
        "react",
        "ruff",
        "typescript",
        "vite",
    ]
    assert "`Dockerfile`" in stack  # build and tooling files


def test_structure_activity_and_findings_come_from_the_tree_and_commits() -> None:
    report = written(scope=[DEMO], question="", results=github_results()).markdown()

    structure = section(report, "Architecture and structure")
    assert "- 10 files in 7 folders, all the project's own." in structure
    assert "- **Tests:** 1 `test_*.py` file across 1 package." in structure
    assert "- `src/` — 2 files — source code" in structure
    assert "- `tests/` — 1 file — tests" in structure
    assert "- `web/` — 1 file — build configuration" in structure  # the role its files have
    assert "- **CI:** GitHub Actions (1 file)." in structure

    activity = section(report, "Development activity")
    assert "- Last commit: 2024-03-01" in activity
    assert "- Oldest commit in the sample: 2024-01-01" in activity
    assert "- Commits in the sample: 6 over 60 days" in activity
    assert "- Average cadence: 0.7 commits per week over the sample" in activity
    assert "- Top authors in the sample: Ada (3), Grace (2), Linus (1)" in activity
    assert "More commits exist beyond this sample." in activity

    strengths = section(report, "Strengths")
    assert (
        "[`.github/workflows/ci.yml`](https://github.com/octo/demo/blob/main/.github/workflows/ci.yml)"
        in strengths
    )
    assert "Tests are present: 1 `test_*.py` file across 1 package." in strengths
    assert "A license is declared: MIT." in strengths
    assert "3 different authors" in strengths
    assert section(report, "Risks").strip() == "No risks are visible in the data gathered."


def test_a_local_repository_without_license_ci_or_tests_gets_those_risks_and_nothing_invented() -> None:
    report = written(scope=[LOCAL], question="", results=local_results()).markdown()

    overview = section(report, "Overview")
    for label in ("Stars", "Forks", "Open issues", "Topics", "Created", "Last push"):
        assert f"- {label}: unknown" in overview
    assert "- License: none" in overview
    assert "**Description:** unknown" in overview

    risks = section(report, "Risks")
    assert "No license" in risks
    assert "No CI configuration" in risks
    assert "No tests folder or test files" in risks
    assert "Bus factor: all 2 commits in the sample are by one author (Solo)." in risks
    # No license name anywhere, no links for a local repository.
    assert not re.search(r"\b(MIT|Apache|GPL|BSD)\b", report)
    assert "https://" not in report

    advice = section(report, "Recommendations")
    assert "Add a LICENSE file" in advice
    assert "Add continuous integration" in advice
    assert "Add automated tests" in advice

    stack = section(report, "Tech stack")
    assert (
        "`go.mod`: module `example.com/wordy` (Go 1.22); runtime dependencies (2): `github.com/spf13/cobra v1.8.0`, "
        in stack
    )
    assert "indirect requirements: 1" in stack
    assert "`github.com/spf13/cobra` (command line)" in stack


def test_unknown_data_is_said_to_be_unknown_not_absent() -> None:
    """Without a tree there is no "no license" claim: only that it could not be checked."""
    info = RepoInfo(full_name="octo/demo", description=None, default_branch=None, html_url=None)
    results = [
        result("get_repo_info", DEMO, info),
        result("get_file_tree", DEMO, None, path=""),
        result("get_commits", DEMO, None, per_page=30),
    ]

    report = written(scope=[DEMO], question="", results=results).markdown()

    assert "No license" not in report
    assert "Could not check the license, CI, tests" in section(report, "Risks")
    assert section(report, "Architecture and structure").strip() == "The file tree could not be fetched."
    assert section(report, "Development activity").strip() == "The commit history could not be fetched."
    assert "**Languages:** unknown" in section(report, "Tech stack")
    assert "- ✗ failed · `get_file_tree` octo/demo — not found" in section(report, "Data sources")


def test_degraded_and_stale_data_gets_a_visible_note_under_the_title() -> None:
    results = github_results()
    results[2] = ToolResult(
        call_id="lang",
        tool="get_languages",
        arguments={"owner": "octo", "repo": "demo"},
        ok=False,
        observation={"ok": False, "degraded": True},
        repo=DEMO,
        degraded=True,
        error="circuit open: get_languages is failing",
    )
    results[4] = ToolResult(**{**results[4].__dict__, "stale": True, "error": "GitHub is unreachable"})

    report = written(
        scope=[DEMO],
        question="",
        results=results,
        writer_note="The model became unreachable; this report was written from the 6 observations gathered so far.",
    ).markdown()

    top = report.split("## Overview")[0]
    assert (
        "> ⚠ Some data could not be fetched: `get_languages` octo/demo (circuit open: get\\_languages is failing); "
        "`read_file` octo/demo `README.md` (served from an older cached copy)."
    ) in top
    assert "> ℹ The model became unreachable; this report was written from the 6 observations" in top
    sources = section(report, "Data sources")
    assert "- ⚠ degraded · `get_languages` octo/demo — circuit open" in sources
    assert "- ⚠ stale · `read_file` octo/demo `README.md` — GitHub is unreachable" in sources
    assert "Run the analysis again" in section(report, "Recommendations")


def test_the_loops_own_reasons_replace_the_generated_list() -> None:
    report = written(
        scope=[DEMO], question="", results=github_results(), degraded_reasons=["rate limited"]
    ).markdown()

    assert "> ⚠ Some data could not be fetched: rate limited." in report


def test_repository_html_never_reaches_the_report() -> None:
    hostile = "Nice <img src=x onerror=alert(1)> tool <script>alert(1)</script> [x](javascript:alert(1))"
    report = written(
        scope=[DEMO], question="<b>why</b>", results=github_results(description=hostile)
    ).markdown()

    lowered = report.lower()
    assert "<script" not in lowered
    assert "onerror=" not in lowered
    assert "<img" not in lowered
    assert "<b>" not in lowered
    assert not re.search(r"(?<!\\)\]\(javascript:", report)  # no link can be formed from repository text
    assert (
        "Nice &lt;img src=x onerror&#61;alert(1)&gt; tool &lt;script&gt;" not in report
    )  # `>` escaped as `\>`
    assert "Nice &lt;img src=x onerror&#61;alert(1)\\> tool &lt;script\\>alert(1)&lt;/script\\>" in report


# ------------------------------------------------------------------------------ Chinese, comparison


def test_a_chinese_report_uses_chinese_headings_and_labels() -> None:
    report = written(
        scope=[LOCAL], question="分析这个仓库", results=local_results(), language="zh"
    ).markdown()

    assert headings(report, 1) == ["local/wordy — 仓库分析"]
    assert headings(report, 2) == [*section_titles("zh", asked=True), "数据来源"]
    assert "- 星标：未知" in report
    assert "没有许可证" in report
    assert "**问题：** 分析这个仓库" in report
    assert "unknown" not in report
    assert "Stars" not in report


def test_several_repositories_get_per_repository_sections_and_a_table() -> None:
    report = written(scope=[DEMO, LOCAL], question="", results=github_results() + local_results()).markdown()

    assert headings(report, 1) == ["octo/demo, local/wordy — repository comparison"]
    assert headings(report, 2) == [*section_titles("en"), "Data sources"]
    assert headings(report, 3) == [
        "Side by side",
        *(["octo/demo", "local/wordy"] * len(section_titles("en"))),
    ]
    table = [line for line in section(report, "Overview").splitlines() if line.startswith("|")]
    assert table == [
        "| Aspect | octo/demo | local/wordy |",
        "|---|---|---|",
        "| Description | Webhooks for chat | unknown |",
        "| Primary language | Python | Go |",
        "| License | MIT | none |",
        "| Stars | 1,234 | unknown |",
        "| Forks | 56 | unknown |",
        "| Last commit | 2024-03-01 | 2024-02-01 |",
        "| CI | yes (1) | no |",
        "| Tests | yes (1 file) | no |",
        "| Files | 10 | 3 |",
    ]
    # Each repository's facts stay under its own heading.
    risks = section(report, "Risks")
    assert risks.index("### local/wordy") < risks.index("No license")


def test_a_table_cell_cannot_break_the_table() -> None:
    report = written(
        scope=[DEMO, LOCAL], question="", results=github_results(description="a | b\nc") + local_results()
    ).markdown()

    assert "| Description | a \\| b c | unknown |" in report


# ------------------------------------------------------------------------------ parsing the sources


def test_readme_summary_skips_badges_headings_html_and_code() -> None:
    rst = "Title\n=====\n\n.. image:: badge.svg\n\nA library for parsing things, written in plain reStructuredText.\n"
    long = "# t\n\n" + "word " * 300

    assert (
        readme_summary(rst, path="README.rst")
        == "A library for parsing things, written in plain reStructuredText."
    )
    assert readme_summary("# Only a title\n\n```\ncode block here that is long enough\n```\n") is None
    summary = readme_summary(long)
    assert summary is not None
    assert len(summary) <= 601
    assert summary.endswith("…")
    assert readme_summary("# 标题\n\n一个统计单词频率的小工具。\n") == "一个统计单词频率的小工具。"


def test_requirements_files_keep_names_and_specifiers_only() -> None:
    text = (
        "# pinned\n-r base.txt\n-e .\n--index-url https://example.org/simple\n"
        "requests==2.31.0  # http\nuvicorn[standard] >= 0.29 ; sys_platform != 'win32'\n"
        "git+https://github.com/x/y.git#egg=y\nnumpy\n"
    )
    manifest = parse_manifest("requirements.txt", text)

    assert [d.text() for d in manifest.runtime] == ["requests==2.31.0", "uvicorn>=0.29", "numpy"]


@pytest.mark.parametrize(
    ("path", "text", "runtime", "dev", "groups"),
    [
        (
            "Cargo.toml",
            '[dependencies]\ntokio = { version = "1", features = ["full"] }\nclap = "4"\nlocal = { path = "../x" }\n'
            '[dev-dependencies]\ninsta = "1"\n',
            ["tokio 1", "clap 4", "local path"],
            ["insta 1"],
            [],
        ),
        (
            "setup.cfg",
            "[options]\ninstall_requires =\n    click>=8\n    attrs\n[options.extras_require]\ntest = pytest\n",
            ["click>=8", "attrs"],
            [],
            [("test", ["pytest"])],
        ),
        (
            "pyproject.toml",
            '[tool.poetry.dependencies]\npython = "^3.11"\ndjango = "^5.0"\n'
            '[tool.poetry.group.dev.dependencies]\npytest = "*"\n',
            ["django ^5.0"],
            [],
            [("dev", ["pytest"])],
        ),
    ],
)
def test_manifests_are_parsed_by_kind(
    path: str, text: str, runtime: list[str], dev: list[str], groups: list[tuple[str, list[str]]]
) -> None:
    manifest = parse_manifest(path, text)

    assert manifest.status == "parsed"
    assert [d.text() for d in manifest.runtime] == runtime
    assert [d.text() for d in manifest.dev] == dev
    assert [(name, [d.text() for d in deps]) for name, deps in manifest.groups] == groups


def test_broken_cut_and_unknown_manifests_say_so() -> None:
    assert parse_manifest("mix.exs", "defmodule Demo.MixProject do\nend\n").status == "unparsed"
    broken = parse_manifest("package.json", "{ nope")
    assert broken.status == "invalid"
    assert broken.detail
    cut = parse_manifest("pyproject.toml", '[project]\ndependencies = ["a",', partial=True)
    assert (cut.status, cut.detail) == ("invalid", "the file was cut when read")

    results = [
        *github_results(),
        result("read_file", DEMO, text_file("mix.exs", "defmodule Demo.MixProject do"), path="mix.exs"),
        result(
            "read_file",
            DEMO,
            text_file("requirements.txt", "flask\n", truncated=True),
            path="requirements.txt",
        ),
    ]
    stack = section(written(scope=[DEMO], question="", results=results).markdown(), "Tech stack")
    assert "/mix.exs): present but not parsed" in stack
    assert "`flask`; the file was cut when read, so the lists may be incomplete" in stack


# -------------------------------------------------------------------------------------- end to end


async def test_planner_and_writer_end_to_end_over_a_real_git_repository(tmp_path: Path) -> None:
    def commit(who: str, day: int, message: str, files: dict[str, str | bytes | None]) -> CommitSpec:
        email = f"{who.split(maxsplit=1)[0].lower()}@example.com"
        date = f"2024-01-{day:02d}T09:00:00+00:00"
        return CommitSpec(message=message, files=files, author_name=who, author_email=email, date=date)

    root = make_repo(
        tmp_path / "wordy",
        {
            "README.md": "# wordy\n\nWordy counts the words in text files and prints the most common ones.\n",
            "pyproject.toml": '[project]\nname = "wordy"\ndependencies = ["click>=8.1", "rich"]\n',
            "LICENSE": "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n",
            "src/wordy/__init__.py": "",
        },
        commits=[
            commit("Ada Lovelace", 1, "Initial commit", {}),
            commit("Grace Hopper", 8, "Add tests", {"tests/test_words.py": "def test(): pass\n"}),
            commit("Ada Lovelace", 15, "Add CI", {".github/workflows/ci.yml": "on: push\n"}),
        ],
    )
    source = await LocalGitSource.open(root)
    scope = [source.repo_ref]
    settings = Settings()
    clock = SystemClock()
    toolbox = Toolbox(
        sources={"local/wordy": source},
        scope=scope,
        breakers=new_board(settings, clock),
        clock=clock,
        config=toolbox_config(settings),
    )
    planner = OfflinePlanner(scope)
    turns, results = 0, []
    while (step := planner.next_step(results)) is not None:
        turns += 1
        results += await asyncio.gather(
            *(toolbox.execute(f"{turns}-{i}", c.tool, c.arguments) for i, c in enumerate(step.calls))
        )

    assert turns == 2
    assert all(r.ok for r in results)
    report = written(scope=scope, question="", results=results).markdown()

    assert headings(report, 2) == [*section_titles("en"), "Data sources"]
    assert "Wordy counts the words in text files and prints the most common ones." in report
    assert "- Stars: unknown" in report
    assert "- License: MIT" in report
    assert "runtime dependencies (2): `click>=8.1`, `rich`" in report
    assert "- Top authors in the sample: Ada Lovelace (2), Grace Hopper (1)" in report
    assert "- Commits in the sample: 3 over 14 days" in report
    assert "Continuous integration is configured: `.github/workflows/ci.yml`." in report
    assert "Tests are present: 1 `test_*.py` file across 1 package." in report
    assert "- ✓ ok · `read_file` local/wordy `pyproject.toml`" in report
    assert "- ✓ ok · `list_directory` local/wordy `tests`" in report
    risks = section(report, "Risks")
    assert "No license" not in risks
    assert "No CI" not in risks


def test_metadata_and_tree_signals_are_reported() -> None:
    info = RepoInfo(
        full_name="octo/demo2",
        description="old",
        default_branch="dev",
        html_url="https://github.com/octo/demo2",
        archived=True,
        fork=True,
        renamed_from="octo/demo",
        topics=(),
    )
    big = FileTree(
        ref="abc",
        path="",
        entries=(
            TreeEntry(path="README", type="file", size=20),
            TreeEntry(path="data", type="dir"),
            TreeEntry(path="data/dump.bin", type="file", size=12 * 1024 * 1024),
        ),
        truncated=True,
    )
    results = [
        result("get_repo_info", DEMO, info),
        result("get_file_tree", DEMO, big, path=""),
        result("read_file", DEMO, text_file("README", "demo2\n"), path="README"),
    ]

    report = written(scope=[DEMO], question="", results=results).markdown()

    overview = section(report, "Overview")
    assert "The repository was renamed: `octo/demo` now redirects to `octo/demo2`." in overview
    assert "The repository is archived (read-only)." in overview
    assert "The repository is a fork." in overview
    assert "- Topics: none" in overview
    assert "The tree was truncated by the server" in section(report, "Architecture and structure")
    risks = section(report, "Risks")
    assert "The repository is archived" in risks
    assert "The README is very short (2 lines)." in risks
    assert "[`data/dump.bin`](https://github.com/octo/demo2/blob/dev/data/dump.bin) (12.0 MB)" in risks
    # A truncated tree proves presence, never absence.
    assert "No license" not in risks
    assert "Could not check the license, CI, tests" in risks
    assert "Move large binary files out of git" in section(report, "Recommendations")


def test_an_empty_repository_is_said_to_be_empty() -> None:
    results = [
        result("get_repo_info", DEMO, None),
        result(
            "get_file_tree", DEMO, FileTree(ref=None, path="", entries=(), empty_repository=True), path=""
        ),
        result("get_commits", DEMO, CommitList(commits=(), empty_repository=True), per_page=30),
    ]

    report = written(scope=[DEMO], question="", results=results).markdown()

    assert section(report, "Architecture and structure").strip() == "The repository is empty (no commits)."
    assert section(report, "Development activity").strip() == "The repository has no commits."
    assert section(report, "Risks").strip() == "- The repository is empty: there is nothing to assess yet."
    assert "Repository metadata could not be fetched." in section(report, "Overview")


def test_without_a_tree_the_folder_listings_are_the_evidence() -> None:
    """What the planner gathers when the tree call degraded: the root, the workflows and tests folders."""

    def folder(path: str, *entries: tuple[str, EntryType]) -> DirListing:
        items = tuple(DirEntry(name=n, path=f"{path}/{n}" if path else n, type=t) for n, t in entries)
        return DirListing(path=path, entries=items)

    root = folder("", (".github", "dir"), ("README.md", "file"), ("src", "dir"), ("tests", "dir"))
    results = [
        ToolResult(
            call_id="t",
            tool="get_file_tree",
            arguments={"owner": "octo", "repo": "demo", "path": ""},
            ok=False,
            observation={},
            repo=DEMO,
            degraded=True,
            error="the tool timed out",
        ),
        result("list_directory", DEMO, root, path=""),
        result(
            "list_directory",
            DEMO,
            folder(".github/workflows", ("test.yml", "file")),
            path=".github/workflows",
        ),
        result("list_directory", DEMO, folder("tests", ("test_a.py", "file")), path="tests"),
    ]

    report = written(scope=[DEMO], question="", results=results).markdown()

    structure = section(report, "Architecture and structure")
    assert (
        "The full tree could not be fetched; the root folder holds: `.github/`, `README.md`, `src/`, `tests/`"
        in structure
    )
    assert "Contents of `tests/`: `test_a.py`" in structure
    strengths = section(report, "Strengths")
    assert "Continuous integration is configured: `.github/workflows/test.yml`." in strengths
    assert "A tests folder is present: `tests/` (1 file)." in strengths
    risks = section(report, "Risks")
    assert "No license" in risks  # the whole root folder was listed: its absence is a fact
    assert "`get_file_tree` octo/demo (the tool timed out)" in risks
    assert "> ⚠ Some data could not be fetched: `get_file_tree` octo/demo (the tool timed out)." in report


def test_file_links_are_percent_encoded_and_cannot_break_out() -> None:
    odd_tree = file_tree("README.md", ".github/workflows/ci (x)].yml")
    results = [*github_results(), result("get_file_tree", DEMO, odd_tree, path="")]  # the latest tree wins

    report = written(scope=[DEMO], question="", results=results).markdown()

    assert (
        "Continuous integration is configured: [`.github/workflows/ci (x)].yml`]"
        "(https://github.com/octo/demo/blob/main/.github/workflows/ci%20%28x%29%5D.yml)."
    ) in report
