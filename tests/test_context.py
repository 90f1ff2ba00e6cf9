"""Context management: old tool results are compacted, never the system prompt or the user's task."""

from __future__ import annotations

import json
from pathlib import Path

from agent_core import events as ev
from agent_core.agent.context import Conversation
from agent_core.llm import estimate_messages
from tests.agent_helpers import make_settings, run_once
from tests.emulator.github import GitHubEmulator
from tests.emulator.model_server import ScriptedModelServer, Turn


def conversation(n_tools: int, size: int) -> Conversation:
    conv = Conversation()
    conv.add({"role": "system", "content": "S" * size})
    conv.add({"role": "user", "content": "analyse acme/widgets " + "U" * size})
    for i in range(n_tools):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        conv.add({"role": "assistant", "content": None, "tool_calls": [call], "reasoning_content": "why"})
        conv.add({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * size})
    return conv


def test_compaction_keeps_system_task_and_recent_results() -> None:
    conv = conversation(8, 4000)
    before = estimate_messages(conv.messages)
    done = conv.compact(budget=before // 2, estimate=estimate_messages)
    assert done > 0 and estimate_messages(conv.messages) <= before // 2
    assert conv.messages[0]["content"] == "S" * 4000
    assert conv.messages[1]["content"].startswith("analyse acme/widgets")
    tools = [m for m in conv.messages if m["role"] == "tool"]
    assert tools[-1]["content"] == "x" * 4000  # the latest result stays whole
    assert tools[0]["content"].startswith("[compacted") and "read_file" in tools[0]["content"]
    assert all(m.get("reasoning_content") == "why" for m in conv.messages if m["role"] == "assistant")


def test_no_compaction_under_budget() -> None:
    conv = conversation(2, 100)
    assert conv.compact(budget=100_000, estimate=estimate_messages) == 0


async def test_long_run_compacts_before_sending(emulator: GitHubEmulator, tmp_path: Path) -> None:
    w = {"owner": "acme", "repo": "widgets"}
    files = [
        "README.md",
        "pyproject.toml",
        "src/pkg/core.py",
        "tests/test_core.py",
        "LICENSE",
        "docs/index.md",
    ]
    turns = [Turn.calls(("read_file", {**w, "path": f})) for f in files] + [Turn.final("# Report\n")]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, context_budget_tokens=1500))
        last = server.chat_requests[-1].messages
    assert isinstance(run.events[-1], ev.RunFinished)
    contents = [m["content"] for m in last if m["role"] == "tool"]
    assert any(c.startswith("[compacted") for c in contents)
    assert not contents[-1].startswith("[compacted")
    assert json.loads(contents[-1])["path"] == "docs/index.md"
