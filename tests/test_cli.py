"""``python -m agent_core``: a real subprocess, no network (local repository) or the loopback emulator."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo

ROOT = Path(__file__).parent.parent


def cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("API_KEY", "HF_TOKEN", "GITHUB_TOKEN", "LLM_PROVIDER")
    }
    base.update({"PYTHONPATH": str(ROOT), **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "agent_core", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=base,
        cwd=cwd or ROOT,
        check=False,
    )


def test_local_repository_offline_json(sample_repo: Path, tmp_path: Path) -> None:
    result = cli(str(sample_repo), "--json", env={"CACHE_DIR": str(tmp_path)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["kind"] == "run_started" and events[0]["mode"] == "planner"
    assert events[-1]["kind"] == "run_finished"
    assert "counts words in text" in events[-1]["report"]


def test_terminal_trace_against_the_emulator(emulator: GitHubEmulator, tmp_path: Path) -> None:
    env = {"GITHUB_API_URL": emulator.base_url, "CACHE_DIR": str(tmp_path), "GITHUB_TOKEN": "ghp_cli_SECRET"}
    result = cli(
        "https://github.com/acme/widgets", "--save", str(tmp_path / "run.jsonl"), env=env, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "🔧 get_repo_info" in out and "## Overview" in out and "✔ done" in out
    assert "ghp_cli_SECRET" not in out + result.stderr + (tmp_path / "run.jsonl").read_text()


def test_a_chinese_question_gets_a_chinese_trace(sample_repo: Path, tmp_path: Path) -> None:
    """The trace speaks the report's language: every line the CLI writes itself comes from the words tables."""
    result = cli(str(sample_repo), "这个项目是做什么的？", env={"CACHE_DIR": str(tmp_path)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "▶ 正在用" in out and "✔ 完成" in out and "个文件" in out
    for english in ("Analysing", "✔ done", " files,", "test files in", "── turn", "next:"):
        assert english not in out, english


def test_bad_target_exits_non_zero_with_a_clear_message(tmp_path: Path) -> None:
    result = cli("https://gitlab.com/a/b", env={"CACHE_DIR": str(tmp_path)}, cwd=tmp_path)
    assert result.returncode == 1
    assert "Expected a GitHub repository" in result.stdout


def test_default_verbosity_shows_the_trace_not_log_lines_and_no_retry_once_open(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    emulator.random_faults(seed=1, down_path="/contents/")  # every file read fails: read_file's breaker opens
    env = {
        "GITHUB_API_URL": emulator.base_url,
        "CACHE_DIR": str(tmp_path),
        "RETRY_BASE_DELAY": "0.01",
        "RETRY_MAX_DELAY": "0.02",
    }
    result = cli("acme/widgets", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    opened = next(i for i, line in enumerate(lines) if "⚡ breaker github:read_file: closed → open" in line)
    assert not [line for line in lines[opened:] if "↻ read_file" in line]
    assert "WARNING:" not in result.stderr and "agent_core." not in result.stderr, result.stderr
    verbose = cli("acme/widgets", "-v", env={**env, "CACHE_DIR": str(tmp_path / "v")}, cwd=tmp_path)
    assert "agent_core.resilience.breaker" in verbose.stderr  # -v still shows the core's own log


def test_tool_results_are_compact_and_the_piped_report_stays_markdown(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    env = {"GITHUB_API_URL": emulator.base_url, "CACHE_DIR": str(tmp_path)}
    out = cli("acme/widgets", env=env, cwd=tmp_path).stdout
    results = [line for line in out.splitlines() if line.startswith("   ✓ ")]
    assert results and all(len(line) < 220 and '"' not in line and "{" not in line for line in results), (
        results
    )
    tree_lines = [line for line in results if "get_file_tree" in line]  # from the typed tree summary
    assert tree_lines and all(
        re.search(r"\d+ files?, .*\d+ test files? in \d+ packages?", line) for line in tree_lines
    )
    assert "\n## Overview" in out  # piped: the report is raw Markdown, ready to redirect to a file
    assert "\x1b[" not in out


def test_on_a_terminal_the_report_is_formatted_and_repository_text_is_inert(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "hostile",
        {"README.md": "# Hostile\x1b]0;pwned\x07\n\nText with \x1b[31mred\x1b[0m and [bold]markup[/bold].\n"},
    )
    result = cli(str(repo), "--color", "always", env={"CACHE_DIR": str(tmp_path / "c")}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "## Overview" not in out and "Overview" in out  # headings rendered, not raw
    assert "\x1b]0;pwned" not in out and "\x07" not in out and "\x1b[31mred" not in out
    assert "✍ writing the report" in out


def test_an_unreachable_github_says_why_and_what_next(tmp_path: Path) -> None:
    env = {"GITHUB_API_URL": "http://127.0.0.1:9", "CACHE_DIR": str(tmp_path), "RETRY_MAX_ATTEMPTS": "1"}
    result = cli("acme/widgets", env=env, cwd=tmp_path)
    assert result.returncode == 1
    assert "could not be reached" in result.stdout and "next:" in result.stdout, result.stdout
    assert "WARNING:" not in result.stderr
