"""Offline answers by subject: "Which file configures the build?" is answered by ``pyproject.toml``'s
``[build-system]``, not by file names matching "configures" -- one question per subject (build, entry
points, dependencies, licensing, deployment, configuration, tests, CI, docs), in English and Chinese,
over a real git repository through the local source, with the real planner, writer and claim check."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.report.relevance import read_question
from agent_core.settings import Settings
from testing.analysis import analysis
from testing.emulator.gitrepo import make_repo
from tests.test_answers import contradicted_in, finished, reads, section

FILES: dict[str, str | bytes] = {
    "README.md": "# depot\n\nDepot keeps stock.\n",
    "pyproject.toml": (
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
        '[project]\nname = "depot"\ndependencies = ["httpx>=0.27"]\n'
        '[project.scripts]\ndepot = "depot.cli:main"\n'
    ),
    "LICENSE": "Apache License\nVersion 2.0, January 2004\n",
    "Dockerfile": "FROM python:3.12-slim\nCOPY . /app\n",
    "fly.toml": 'app = "depot"\n',
    "k8s/deployment.yaml": "kind: Deployment\n",
    ".env.example": "DEPOT_DB=sqlite:///depot.db\n",
    "src/depot/__init__.py": "",
    "src/depot/__main__.py": '"""Run depot."""\n',
    "src/depot/settings.py": '"""Settings from the environment."""\n',
    "src/depot/stock.py": '"""Stock levels."""\n',
    "docs/index.md": "# Depot docs\n",
    "tests/test_stock.py": "def test_level() -> None:\n    pass\n",
    ".github/workflows/ci.yml": "on: push\njobs:\n  t:\n    steps:\n      - run: pytest\n",
    "vendor/lib/Makefile": "all:\n\tcc x.c\n",
    "vendor/lib/settings.py": "X = 1\n",
}

# a subject's question -> a file its Answer must name, and the role said beside it
CASES = [
    ("Which file configures the build?", "pyproject.toml", "(build)"),
    ("What are the entry points?", "src/depot/__main__.py", ""),
    ("What are the dependencies?", "pyproject.toml", "(build)"),
    ("What is the license?", "LICENSE", "(documentation)"),
    ("How is it deployed?", "Dockerfile", "(build)"),
    ("Where is the configuration?", ".env.example", ""),
    ("How is it tested?", "tests/test_stock.py", "(tests)"),
    ("What does CI run?", ".github/workflows/ci.yml", "(CI)"),
    ("Where is the documentation?", "docs/index.md", "(documentation)"),
]


@pytest.fixture
def depot(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "depot", FILES)


@pytest.mark.parametrize(("question", "path", "role"), CASES)
async def test_each_concept_is_answered_by_its_files(
    tmp_path: Path, depot: Path, question: str, path: str, role: str
) -> None:
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(depot)) as run:
        events = await run.ask(question)
    answer = section(finished(events).report, "Answer")
    assert answer.startswith("\n**Files that answer “")
    assert f"- `{path}` {role}".rstrip() in answer
    assert "No file in the tree matches" not in answer
    assert "vendor/" not in answer  # vendored files never answer
    assert contradicted_in(events, answer) == []


async def test_the_build_answer_says_what_the_file_declares_within_the_read_budget(
    tmp_path: Path, depot: Path
) -> None:
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(depot)) as run:
        events = await run.ask("Which file configures the build?")
    answer = section(finished(events).report, "Answer")
    assert "- `pyproject.toml` (build) — `[build-system]`, backend `hatchling.build`" in answer
    assert "pyproject.toml" in reads(events)
    assert len(reads(events)) <= 8 + 6  # the usual reads plus the question's budget


async def test_deployment_names_the_base_image_and_a_chinese_question_gets_chinese_headings(
    tmp_path: Path, depot: Path
) -> None:
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(depot)) as run:
        english = await run.ask("How is it deployed?")
        chinese = await run.ask("如何部署？配置在哪里？")
    assert "- `Dockerfile` (build) — `FROM python:3.12-slim`" in section(finished(english).report, "Answer")
    answer = finished(chinese).report
    assert "**回答“部署 配置”的文件：**" in answer and "`.env.example`" in answer and "`Dockerfile`" in answer


def test_question_words_name_subjects_in_both_languages() -> None:
    assert read_question("Which file configures the build?").words == {"build"}
    assert read_question("怎么构建？依赖有哪些？").words == {"build", "dependency"}
    assert read_question("许可证是什么，文档在哪").words == {"license", "doc"}
    assert read_question("Where are the settings and environment variables?").words == {"config", "variable"}
    assert read_question("Is there a Dockerfile or Helm chart?").words == {"dockerfile", "deploy", "chart"}
