"""The run as values: steps yield what they add, one fold builds the run's next frozen state."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.agent.accounting import Added, RunState
from agent_core.llm import Usage
from agent_core.tools.executor import Toolbox, ToolResult
from testing.sourcescan import nodes

ROOT = Path(__file__).resolve().parents[1]


def result(call_id: str, *, ok: bool = True) -> ToolResult:
    return ToolResult(call_id=call_id, tool="read_file", arguments={"path": call_id}, ok=ok, observation={})


def test_a_fold_adds_tokens_results_reasons_and_keeps_the_latest_failure() -> None:
    earlier = (result("a"),)
    state = RunState(started=0.0, turn_base=1, earlier=earlier)
    failure = ev.Diagnosis(cause="model_server", source="model")
    steps = [
        Added(usage=Usage(prompt_tokens=100, completion_tokens=10, cached_prompt_tokens=60)),
        Added(results=(result("b"), result("c", ok=False)), free_turns=1),
        Added(degraded=("first",), failure=failure),
        Added(usage=Usage(prompt_tokens=5, completion_tokens=1, cached_prompt_tokens=9)),  # cached > prompt
        Added(degraded=("second",)),
    ]
    folded = state
    for added in steps:
        folded = folded.add(added)

    assert (folded.prompt_tokens, folded.completion_tokens, folded.cached_prompt_tokens) == (105, 11, 65)
    assert [r.call_id for r in folded.results] == ["b", "c"]
    assert [r.call_id for r in folded.all_results] == ["a", "b", "c"]
    assert folded.degraded == ("first", "second")
    assert folded.model_failure == failure
    assert folded.free_turns == 1
    assert state == RunState(started=0.0, turn_base=1, earlier=earlier)  # the old state is untouched


def test_the_state_is_frozen_and_the_toolbox_keeps_no_results() -> None:
    state = RunState(started=0.0, turn_base=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.prompt_tokens = 1  # type: ignore[misc]
    assert "results" not in {f for f in vars(Toolbox) if not f.startswith("_")}
    assert not hasattr(Toolbox, "results")


def _state_writers(path: Path) -> list[str]:
    """Assignments to an attribute named ``state`` (``run.state = ...``) and to a state's fields."""
    found = []
    for node in nodes(path):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AugAssign | ast.AnnAssign)
            else []
        )
        for target in targets:
            chain = target
            while isinstance(chain, ast.Attribute | ast.Subscript):
                if isinstance(chain, ast.Attribute) and chain.attr == "state":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                    break
                chain = chain.value
    return found


def test_only_the_runs_fold_writes_its_state() -> None:
    writers = [w for p in sorted((ROOT / "agent_core").rglob("*.py")) for w in _state_writers(p)]
    assert writers and all(w.startswith("agent_core/agent/run.py:") for w in writers), writers


def test_no_message_of_the_conversation_is_edited_in_place() -> None:
    """Only the conversation itself replaces a message (whole: compaction shortens an old one, the text
    protocol's switch extends the system prompt), and nothing anywhere assigns to a message's content
    (the switch once wrote ``system["content"] = ...`` on the message already sent)."""
    targets = [
        (p, node.lineno, target)
        for p in sorted((ROOT / "agent_core").rglob("*.py"))
        for node in nodes(p)
        if isinstance(node, ast.AugAssign | ast.Assign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Subscript)
    ]
    messages = [
        f"{p.relative_to(ROOT)}:{line}"
        for p, line, target in targets
        if p.parent.name == "agent" and p.name != "context.py" and "messages" in ast.unparse(target)
    ]
    contents = [
        f"{p.relative_to(ROOT)}:{line}"
        for p, line, target in targets
        if isinstance(target.slice, ast.Constant) and target.slice.value == "content"
    ]
    assert messages == [] and contents == []
