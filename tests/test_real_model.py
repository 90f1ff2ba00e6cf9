"""One analysis end to end with a real model: Qwen2.5-Coder-0.5B-Instruct behind llama.cpp's server,
through the CLI, over the GitHub emulator. Whatever the model writes, these must hold: a report; grounded
in the prefetched observations; the claim check present; no context overflow; tool calls written in
``content`` executed, never reported.

``.ci/run`` installs the model (cached between runs) and sets ``REQUIRE_LOCAL_LLM=1``, so in CI a missing
model fails the test; elsewhere the test is skipped with the reason when the model is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core.llm.content_calls import calls_in_content
from agent_core.tools.registry import TOOL_NAMES
from testing.emulator.github import GitHubEmulator
from testing.llm import LocalModel

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


@pytest.fixture
def small_model(small_local_model: LocalModel) -> LocalModel:
    return small_local_model  # one server for every real-model test (tests/conftest.py)


def test_a_real_small_model_ends_in_a_grounded_checked_report(
    small_model: LocalModel, emulator: GitHubEmulator, tmp_path: Path
) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "GITHUB_", "API_KEY", "HF_"))},
        "GITHUB_API_URL": emulator.base_url,
        "CACHE_DIR": str(tmp_path / "cache"),
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": small_model.base_url,
        "LLM_MODEL": "local",
        "API_KEY": "not-needed",
        # Two turns and 160-token replies: what the test asks of the model (a call it writes as text, a
        # reply judged before it is the report) fits in them; 3 turns of 320 took 73 s on one core, these 44.
        "LLM_MAX_TOKENS": "160",
        "LLM_TEMPERATURE": "0",
        "LLM_TURN_TIMEOUT": "150",
        "MAX_WALL_SECONDS": "240",
        "MAX_TURNS": "2",
        "PREFETCH": "true",
        # The report's turn only: the diagram call beside it would make the one-thread server read a second
        # 2,600-token prompt at the same time and double the test (72 s alone -> 151 s). The diagram call
        # itself is tested with the scripted model (tests/test_model_calls.py, tests/test_diagram.py).
        "DIAGRAM_FROM_MODEL": "false",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "--json", "acme/widgets", "What does this project do?"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=290,
        check=False,
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    kinds = [e["kind"] for e in events]
    assert done.returncode == 0, (done.returncode, kinds, done.stderr[-2000:])
    finished = events[-1]
    assert finished["kind"] == "run_finished" and finished["report"].strip()
    # Grounded: the basics were gathered before the model's first turn, and succeeded.
    basics = [e for e in events if e["kind"] == "tool_call_finished" and e["call_id"].startswith("basics-")]
    assert basics and all(e["ok"] for e in basics)
    assert not any("not grounded" in r for r in finished["degraded_reasons"])
    # The claim check stands before the end, and its counts are in the stats.
    (check,) = [e for e in events if e["kind"] == "claims_checked"]
    assert finished["stats"]["claims_contradicted"] == check["contradicted"]
    # No context overflow.
    notices = [e["message"] for e in events if e["kind"] == "notice"]
    assert not any("did not fit the model's context window" in n for n in notices)
    assert not any("context window" in r for r in finished["degraded_reasons"])
    # A call written as text was run, and the report is not one.
    written = [n for n in notices if "tool call(s) as text" in n]
    started = [
        e for e in events if e["kind"] == "tool_call_started" and not e["call_id"].startswith("basics-")
    ]
    assert len(started) >= len(written)
    assert calls_in_content(finished["report"], TOOL_NAMES) == []
    print(
        f"\nreal model: {len(kinds)} events, writer {finished['writer']}, {check['verified']} verified, "
        f"{check['contradicted']} contradicted, {finished['stats']['elapsed_s']:.0f} s"
    )
