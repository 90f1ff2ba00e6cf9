"""Context management: old tool results are compacted, never the system prompt or the user's task."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_core import events as ev
from agent_core.agent.context import Conversation
from agent_core.llm import estimate_messages
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn


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


async def test_compaction_with_reported_usage_removes_only_what_the_budget_needs(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """With ``usage`` reported every turn (as real APIs do), compacting old observations must lower the
    estimate: compaction stops at the budget instead of emptying every observation but the newest."""
    w = {"owner": "acme", "repo": "widgets"}
    files = [
        "src/pkg/core.py",
        "README.md",
        "pyproject.toml",
        "LICENSE",
        "tests/test_core.py",
        "docs/index.md",
    ]
    turns = [Turn.calls(("read_file", {**w, "path": f})) for f in files] + [Turn.final("# Report\n")]

    def metered(body: dict[str, Any]) -> Turn:
        """The next turn, reporting as prompt tokens exactly what the loop's estimator would count."""
        turn = turns[sum(m["role"] == "assistant" for m in body["messages"])]
        return replace(turn, usage=(estimate_messages(body["messages"]), 10))

    budget = 1500
    with ScriptedModelServer(responder=metered) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, context_budget_tokens=budget))
        requests = [r.messages for r in server.chat_requests]
    assert isinstance(run.events[-1], ev.RunFinished)

    def compacted(messages: list[dict[str, Any]]) -> list[int]:
        return [i for i, m in enumerate(messages) if m["role"] == "tool" and "[compacted" in m["content"]]

    first = next(messages for messages in requests if compacted(messages))
    assert estimate_messages(first) <= budget
    # Oldest first, and no more than needed: putting back the newest compacted result would not fit.
    newest = compacted(first)[-1]
    whole = next(messages[newest] for messages in requests if len(messages) > newest)
    assert estimate_messages([*first[:newest], whole, *first[newest + 1 :]]) > budget
