"""The offline planner answers the question: what it reads for it, the Answer section, follow-ups, the
facts behind them (dev requirements, CI systems, descriptions) -- over real git repositories, through
the local source and the GitHub emulator, with the real loop and the real claim check."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.agent.planner import OfflinePlanner
from agent_core.repo import RepoRef
from agent_core.report.claims import annotate
from agent_core.report.relevance import question_files, ranked, read_question, stem
from agent_core.report.writer import written
from agent_core.settings import Settings
from agent_core.sources.models import FileTree, RepoInfo, TreeEntry
from agent_core.tools.results import ToolResult
from testing.analysis import analysis, make_settings
from testing.app import free_port
from testing.clock import FakeClock
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.linear import growth

ROOT = Path(__file__).resolve().parents[1]

BREAKER = '''"""Circuit breakers: stop calling a failing service for a while."""

from __future__ import annotations


class CircuitBreaker:
    """Closed, open, half-open."""


def trip(breaker: CircuitBreaker) -> None:
    pass


def _private() -> None:
    pass
'''

SERVICE_FILES: dict[str, str | bytes] = {
    "README.md": "# shop\n\nShop sells things online and keeps its stock in one place.\n",
    "pyproject.toml": (
        '[project]\nname = "shop"\ndescription = "Sell things online."\ndependencies = ["httpx>=0.27"]\n'
        '[project.optional-dependencies]\ntest = ["pytest>=8"]\n'
        '[dependency-groups]\nlint = ["ruff"]\n'
        '[project.scripts]\nshop = "shop.cli:main"\n'
        "[tool.pytest.ini_options]\naddopts = '-q'\n"
    ),
    "requirements.txt": "httpx>=0.27\n",
    "requirements-dev.txt": "pytest==8.3.0\nhypothesis\n",
    "requirements/test.txt": "pytest-cov\n",
    "LICENSE": "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n",
    ".ci/run": "#!/usr/bin/env bash\n# CI: lint, then the tests.\nset -e\npip install -r requirements-dev.txt\nruff check .\npython -m pytest\n",
    "src/shop/__init__.py": "",
    "src/shop/cli.py": (
        '"""The shop command line."""\nimport argparse\n\n\ndef main() -> None:\n'
        '    parser = argparse.ArgumentParser()\n    parser.add_argument("--json")\n'
        '    parser.add_argument("item")\n'
    ),
    "src/shop/resilience/breaker.py": BREAKER,
    "src/shop/orders.py": '"""Orders."""\n\n\ndef place() -> None:\n    pass\n',
    "tests/conftest.py": "import pytest\n",
    "tests/test_orders.py": "import pytest\n\n\ndef test_place() -> None:\n    pass\n",
    "tests/test_breaker.py": "def test_trip() -> None:\n    pass\n\n\ndef test_reset() -> None:\n    pass\n",
}


def section(report: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", report, flags=re.MULTILINE | re.DOTALL)
    assert match is not None, f"no section {title!r}"
    return match.group(1)


def reads(events: list[ev.Event]) -> list[str]:
    return [
        str(e.arguments["path"])
        for e in events
        if isinstance(e, ev.ToolCallStarted) and e.tool == "read_file"
    ]


def finished(events: list[ev.Event]) -> ev.RunFinished:
    last = events[-1]
    assert isinstance(last, ev.RunFinished), last
    return last


def contradicted_in(events: list[ev.Event], text: str) -> list[ev.CheckedClaim]:
    """The contradicted claims standing inside ``text`` (a section of the run's report)."""
    report = finished(events).report
    start = report.index(text)
    check = next(e for e in events if isinstance(e, ev.ClaimsChecked))
    return [c for c in check.claims if c.verdict == "contradicted" and start <= c.start < start + len(text)]


# ------------------------------------------------------------------------------------ reading questions


def test_a_question_s_words_are_stemmed_and_subjects_named_in_either_language() -> None:
    assert read_question("How is this project tested?").words == {"test"}
    assert read_question("How do I use the command-line options?").words == {"cli", "line"}
    breaker = read_question("Which files implement the circuit breakers?")
    assert (breaker.words, breaker.written) == ({"circuit", "breaker"}, ("circuit", "breakers"))
    assert read_question("Where are retries and rate limits handled?").words == {"retry", "rate", "limit"}
    assert read_question("这个项目是怎么测试的？").words == {"test"}
    assert read_question("熔断器在哪里实现？").words == {"breaker"}
    assert read_question("CircuitBreaker 在哪里？").words == {"circuit", "breaker"}
    assert read_question("Which file configures the build?").words == {"build"}
    assert read_question("怎么构建？依赖有哪些？").words == {"build", "dependency"}
    assert read_question("Analyse this repository").words == frozenset()
    assert [stem(w) for w in ("breakers", "retries", "parsing", "tested", "classes", "running")] == [
        "breaker",
        "retry",
        "pars",
        "test",
        "class",
        "run",
    ]


def test_question_files_rank_rare_words_first_source_before_tests_and_stay_within_the_budget() -> None:
    paths = sorted(SERVICE_FILES)
    assert question_files("Which files implement the circuit breaker?", paths) == [
        "src/shop/resilience/breaker.py",
        "tests/test_breaker.py",
    ]
    # "report" is not "repo": a word matches a file name's word, not a part of one.
    assert question_files("What does the report writer do?", ["agent/repo.py"]) == []
    # A word naming one file outweighs a word naming many: the breaker, then the tests.
    assert question_files("Which tests cover the breaker?", paths, budget=2) == [
        "tests/test_breaker.py",
        "src/shop/resilience/breaker.py",
    ]
    # At most two files of a folder before the other folders' turn.
    many = [f"tests/test_{i}.py" for i in range(5)] + ["tox.ini"]
    assert question_files("How is it tested?", many, budget=3) == [
        "tox.ini",
        "tests/test_0.py",
        "tests/test_1.py",
    ]
    # Vendored and generated files never answer (the repository model's roles).
    roles = {"vendor/settings.py": "vendored", "app/settings.py": "source"}
    assert question_files("Where are the settings?", sorted(roles), role=roles.__getitem__) == [
        "app/settings.py"
    ]


@pytest.mark.untraced
@pytest.mark.parametrize("unit", ["a.", "a-", "settings", "x.dockerfile.", "CircuitBreaker", "测试熔断"])
def test_ranking_is_linear_in_a_hostile_file_name_and_question(unit: str) -> None:
    """A repository's file names and a visitor's question are hostile input: one long name (or question)
    made of what the name rules and the word splitter look for costs linear work."""
    named = growth(
        lambda name: ranked(read_question("dockerfile settings breaker tested"), [name]), unit.__mul__
    )
    assert named.linear(), named
    asked = growth(lambda text: question_files(text, sorted(SERVICE_FILES)), (unit + " ").__mul__)
    assert asked.linear(), asked


# --------------------------------------------------------------------------- the Answer, end to end


async def test_the_answer_follows_the_question_and_a_follow_up_reads_what_it_adds(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", SERVICE_FILES)
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        first = await run.ask("How is this project tested?")
        second = await run.ask("Which files implement the circuit breaker?")

    tested = section(finished(first).report, "Answer")
    assert tested.strip().splitlines() == [
        "**Files that answer “tested”:**",
        "- `.ci/run` (CI) — CI: lint, then the tests; runs `ruff check .`, `python -m pytest`",
        "- `pyproject.toml` (build)",
        "- `tests/conftest.py` (tests)",
        "- `tests/test_breaker.py` (tests) — 2 test functions",
        "- `requirements/test.txt` (documentation)",
        "- `tests/test_orders.py` (tests) — 1 test function",
    ]
    assert {"tests/conftest.py", "tests/test_breaker.py", ".ci/run"} <= set(reads(first))
    assert contradicted_in(first, tested) == []

    # The follow-up: new reads for the new question only, and a new Answer.
    assert reads(second) == [
        "src/shop/resilience/breaker.py"
    ]  # the test file was read for the first question
    answered = section(finished(second).report, "Answer")
    assert answered.strip().splitlines() == [
        "**Files that answer “circuit breaker”:**",
        "- `src/shop/resilience/breaker.py` — Circuit breakers: stop calling a failing service for a while; "
        "defines `CircuitBreaker`, `trip`",
        "- `tests/test_breaker.py` (tests) — 2 test functions",
    ]
    assert contradicted_in(second, answered) == []


async def test_a_chinese_question_gets_a_chinese_answer(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", SERVICE_FILES)
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        events = await run.ask("命令行怎么用？")

    answered = section(finished(events).report, "回答")
    assert answered.strip().splitlines() == [
        "**回答“命令行”的文件：**",
        "- `src/shop/cli.py` — The shop command line；用 `argparse` 解析参数；选项：`--json`、`item`；定义了 `main`",
    ]
    assert "src/shop/cli.py" in reads(events)


async def test_answer_links_point_at_the_analysed_commit_on_github(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", SERVICE_FILES)
    with GitHubEmulator() as emu:
        emu.add_repo("acme/shop", root, description=None)
        async with analysis(make_settings(emu, tmp_path), "acme/shop") as run:
            events = await run.ask("Which files implement the circuit breaker?")

    report = finished(events).report
    answered = section(report, "Answer")
    base = "https://github.com/acme/shop/blob/main/"
    assert f"[`src/shop/resilience/breaker.py`]({base}src/shop/resilience/breaker.py)" in answered
    check = next(e for e in events if isinstance(e, ev.ClaimsChecked))
    sha = next(e for e in events if isinstance(e, ev.ToolCallFinished) and e.tool == "get_commits")
    assert sha.ok
    shown = annotate(report, check)
    assert re.search(
        r"https://github\.com/acme/shop/blob/[0-9a-f]{40}/src/shop/resilience/breaker\.py", shown
    )
    assert "**Description:** Sell things online. (from [`pyproject.toml`]" in report
    assert contradicted_in(events, answered) == []


async def test_the_apps_own_checkout_answers_how_it_is_tested_with_its_test_and_ci_files(
    tmp_path: Path,
) -> None:
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(ROOT)) as run:
        events = await run.ask("How is this project tested?")

    answered = section(finished(events).report, "Answer")
    ci_line = next(line for line in answered.splitlines() if line.startswith("- `.ci/run` (CI) — runs "))
    for command in (
        "ruff check .",
        "ruff format --check .",
        "mypy",
        "python -m pytest -n 2 --dist loadgroup",
    ):
        assert f"`{command}`" in ci_line  # what .ci/run runs, in its own words (README's test command last)
    assert ci_line.endswith("`python -m pytest -n 2 --dist loadgroup`")
    assert "`tests/conftest.py`" in answered
    assert contradicted_in(events, answered) == []
    report = finished(events).report
    assert "No CI configuration" not in report
    assert "**Description:** unknown" not in report
    assert "- `requirements-dev.txt`: development dependencies" in report


# ------------------------------------------------------------------------------------------ the facts


async def test_development_requirements_are_not_runtime_dependencies(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", SERVICE_FILES)
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        events = await run.ask("")

    stack = section(finished(events).report, "Tech stack")
    assert "- `requirements-dev.txt`: development dependencies (2): `pytest==8.3.0`, `hypothesis`" in stack
    assert "- `requirements.txt`: runtime dependencies (1): `httpx>=0.27`" in stack
    assert (
        "- `pyproject.toml`: runtime dependencies (1): `httpx>=0.27`; dependency groups: "
        "`test` (development: `pytest>=8`), `lint` (development: `ruff`)"
    ) in stack
    assert "Answer" not in finished(events).report  # no question, no Answer section


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (".gitlab-ci.yml", "test:\n  script:\n    - pytest\n"),
        (".circleci/config.yml", "jobs:\n  test:\n    steps:\n      - run: pytest\n"),
        (".travis.yml", "script: pytest\n"),
        ("azure-pipelines.yml", "steps:\n  - script: pytest\n"),
        ("Jenkinsfile", "pipeline { stages { stage('t') { steps { sh 'pytest' } } } }\n"),
        (".ci/check.sh", "#!/bin/sh\npytest\n"),
        ("tox.ini", "[tox]\nenvlist = py311\n[testenv]\ncommands = pytest\n"),
        ("noxfile.py", "import nox\n\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n"),
    ],
)
async def test_other_ci_systems_and_test_runners_count_as_ci(tmp_path: Path, path: str, text: str) -> None:
    root = make_repo(
        tmp_path / "tiny", {"README.md": "# tiny\n", path: text, "test_tiny.py": "def test(): pass\n"}
    )
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        events = await run.ask("How is it tested?")

    report = finished(events).report
    assert "No CI configuration" not in report
    assert "Add continuous integration" not in report
    assert f"`{path}`" in section(report, "Strengths")
    assert f"`{path}`" in section(report, "Answer")


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("pyproject.toml", '[project]\nname = "x"\ndescription = "Count the words."\n'),
        ("setup.cfg", "[metadata]\nname = x\ndescription = Count the words.\n"),
        ("setup.py", 'from setuptools import setup\nsetup(name="x", description="Count the words.")\n'),
    ],
)
async def test_a_manifest_description_is_the_description(tmp_path: Path, path: str, text: str) -> None:
    root = make_repo(tmp_path / "wordy", {"README.md": "# wordy\n", path: text})
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        events = await run.ask("")

    assert f"**Description:** Count the words. (from `{path}`)" in section(
        finished(events).report, "Overview"
    )


# ------------------------------------------------------------------------------------------ the planner


def failure(tool: str, cause: str, **arguments: object) -> ToolResult:
    return ToolResult(
        call_id=f"{tool}-x",
        tool=tool,
        arguments={"owner": "acme", "repo": "shop", **arguments},
        ok=False,
        observation={},
        degraded=True,
        error="failed",
        cause=cause,
    )


def test_when_every_failure_is_a_broken_connection_the_planner_stops() -> None:
    planner = OfflinePlanner([RepoRef(owner="acme", name="shop")])
    overview = ["get_repo_info", "get_file_tree", "get_commits", "get_languages"]
    for cause in ("dns", "tls", "network"):
        results = [
            failure(tool, cause, **({"per_page": 30} if tool == "get_commits" else {})) for tool in overview
        ]
        assert planner.next_step(results) is None
    # A server error is no broken connection: the root listing is worth a try.
    mixed = [failure("get_repo_info", "dns"), *(failure(t, "github_server") for t in overview[1:])]
    mixed[2] = failure("get_commits", "github_server", per_page=30)
    step = planner.next_step(mixed)
    assert step is not None
    assert [c.tool for c in step.calls] == ["list_directory"]


def test_the_question_reads_are_bounded_and_said_and_a_follow_up_adds_only_its_own() -> None:
    repo = RepoRef(owner="acme", name="shop")
    tree = FileTree(
        ref="a" * 40,
        path="",
        entries=tuple(TreeEntry(path=f"src/breaker_{i}.py", type="file", size=9) for i in range(9)),
    )
    info = RepoInfo(full_name="acme/shop", description=None, default_branch="main", html_url=None)
    done = [
        ToolResult(
            call_id="i",
            tool="get_repo_info",
            arguments={"owner": "acme", "repo": "shop"},
            ok=True,
            observation={},
            value=info,
            repo=repo,
        ),
        ToolResult(
            call_id="t",
            tool="get_file_tree",
            arguments={"owner": "acme", "repo": "shop"},
            ok=True,
            observation={},
            value=tree,
            repo=repo,
        ),
        ToolResult(
            call_id="c",
            tool="get_commits",
            arguments={"owner": "acme", "repo": "shop", "per_page": 30},
            ok=True,
            observation={},
            repo=repo,
        ),
        ToolResult(
            call_id="l",
            tool="get_languages",
            arguments={"owner": "acme", "repo": "shop"},
            ok=True,
            observation={},
            repo=repo,
        ),
    ]
    step = OfflinePlanner([repo], question="Where is the breaker?", max_question_reads=3).next_step(done)
    assert step is not None
    assert [c.arguments["path"] for c in step.calls] == [
        "src/breaker_0.py",
        "src/breaker_1.py",
        "src/breaker_2.py",
    ]
    assert (
        step.thought
        == "Reading for the question (“breaker”): src/breaker_0.py, src/breaker_1.py, src/breaker_2.py."
    )
    made = [
        *done,
        *(
            ToolResult(
                call_id=f"r{i}",
                tool="read_file",
                arguments=dict(c.arguments),
                ok=True,
                observation={},
                repo=repo,
            )
            for i, c in enumerate(step.calls)
        ),
    ]
    assert (
        OfflinePlanner([repo], question="Where is the breaker?", max_question_reads=3).next_step(made) is None
    )
    assert (
        OfflinePlanner([repo], question="How is it tested?").next_step(made) is None
    )  # nothing to read for it


async def test_the_answer_says_what_the_read_budget_left_unread(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"README.md": "# many\n"}
    files.update({f"src/breaker_{i}.py": f'"""Breaker number {i}."""\n' for i in range(8)})
    root = make_repo(tmp_path / "many", files)
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        events = await run.ask("Which files implement the breakers?")

    assert reads(events) == ["README.md", *(f"src/breaker_{i}.py" for i in range(6))]
    answered = section(finished(events).report, "Answer")
    assert "- `src/breaker_5.py` — Breaker number 5" in answered
    assert (
        "Also relevant and unread (the offline planner reads at most 6 files per question): "
        "`src/breaker_6.py`, `src/breaker_7.py`."
    ) in answered
    assert contradicted_in(events, answered) == []


def test_a_broken_connection_in_an_earlier_run_does_not_stop_the_next_one() -> None:
    overview = ["get_repo_info", "get_file_tree", "get_commits", "get_languages"]
    earlier = [
        failure(tool, "dns", **({"per_page": 30} if tool == "get_commits" else {})) for tool in overview
    ]
    repo = RepoRef(owner="acme", name="shop")

    assert OfflinePlanner([repo], run_start=0).next_step(earlier) is None
    step = OfflinePlanner([repo], run_start=len(earlier)).next_step(earlier)
    assert step is not None
    assert [c.tool for c in step.calls] == ["list_directory"]  # one more try: the network may be back


async def test_with_no_connection_the_planner_stops_after_the_overview(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there: every connection is refused
    with GitHubEmulator() as emu:
        settings = make_settings(emu, tmp_path, github_api_url=f"http://127.0.0.1:{port}")
        async with analysis(settings, "acme/shop", clock=FakeClock()) as run:  # backoff without waiting
            events = await run.ask("How is this project tested?")

    started = [e.tool for e in events if isinstance(e, ev.ToolCallStarted)]
    assert sorted(started) == ["get_commits", "get_file_tree", "get_languages", "get_repo_info"]
    assert sum(isinstance(e, ev.TurnStarted) for e in events) == 1  # no root listing, no reads
    failed = events[-1]
    assert isinstance(failed, ev.RunFailed)
    assert failed.diagnosis is not None and failed.diagnosis.cause == "network"


async def test_what_the_tree_shows_is_missing_is_said_and_checks_out(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "bare", {"README.md": "# bare\n", "lib.py": '"""Helpers."""\n'})
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        events = await run.ask("How is it tested, and how does the command line export csv files?")

    answered = section(finished(events).report, "Answer")
    assert answered.strip() == "No file in the tree matches “tested command line export csv”."
    assert reads(events) == ["README.md"]
    assert contradicted_in(events, answered) == []


def test_without_a_tree_the_answer_says_it_could_not_look() -> None:
    repo = RepoRef(owner="acme", name="shop")
    results = [failure(tool, "github_server") for tool in ("get_repo_info", "get_file_tree")]
    report = written(scope=[repo], question="Which files implement the breaker?", results=results).markdown()

    assert section(report, "Answer").strip() == (
        "The file tree could not be fetched, so the files that answer the question could not be looked up; "
        "the sections below say what is known."
    )
    assert "## Answer" not in written(scope=[repo], question=" ", results=results).markdown()
