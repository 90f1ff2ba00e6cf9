"""``python -m agent_core``: a real subprocess, no network (local repository) or the loopback emulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testing.emulator.github import GitHubEmulator

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


def test_bad_target_exits_non_zero_with_a_clear_message(tmp_path: Path) -> None:
    result = cli("https://gitlab.com/a/b", env={"CACHE_DIR": str(tmp_path)}, cwd=tmp_path)
    assert result.returncode == 1
    assert "Expected a GitHub repository" in result.stdout
