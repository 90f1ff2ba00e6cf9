"""The agent loop end to end: scripted model (real SSE) + GitHub emulator (real HTTP) + the real core.

Whole event sequences are asserted; every scenario must end with a report.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.event_json import dump_events, dumps_event, event_from_dict, load_events
from testing.analysis import API_KEY, analysis, make_settings, run_once
from testing.clock import HeldWaits
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, ToolCallSpec, Turn

W = {"owner": "acme", "repo": "widgets"}
REPORT = "# acme/widgets\n\n## Overview\nA word counter ([README](https://github.com/acme/widgets/blob/main/README.md)).\n"


def explore_turns() -> list[Turn]:
    return [
        Turn.calls(("get_repo_info", W), ("get_file_tree", W), reasoning="Start with metadata and the tree."),
        Turn.calls(
            ("read_file", {**W, "path": "README.md"}),
            ("read_file", {**W, "path": "pyproject.toml"}),
            ("get_commits", {**W, "per_page": 10}),
            interleave=True,
            usage=(300, 40),
        ),
        Turn.final(REPORT, reasoning="Enough evidence.", usage=(900, 120)),
    ]


def assert_well_formed(events: list[ev.Event]) -> None:
    """Invariants every run obeys, whatever happened in it."""
    assert isinstance(events[0], ev.RunStarted)
    assert isinstance(events[-1], (ev.RunFinished, ev.RunFailed))
    assert sum(isinstance(e, (ev.RunFinished, ev.RunFailed)) for e in events) == 1
    started = {e.call_id for e in events if isinstance(e, ev.ToolCallStarted)}
    finished = [e.call_id for e in events if isinstance(e, ev.ToolCallFinished)]
    assert sorted(started) == sorted(finished)
    times = [e.t for e in events]
    assert times == sorted(times)
    for e in events:
        assert event_from_dict(json.loads(dumps_event(e))) == e
        assert API_KEY not in dumps_event(e)


async def test_full_run_event_sequence(emulator: GitHubEmulator, tmp_path: Path) -> None:
    with ScriptedModelServer(explore_turns()) as server:
        run = await run_once(make_settings(emulator, tmp_path, server), "What is this project?")
        server.assert_exhausted()
    assert_well_formed(run.events)
    kinds = [k for k in run.kinds if k not in ("reasoning_delta", "text_delta", "rate_limit")]
    assert kinds == [
        "run_started",
        "turn_started",
        "turn_finished",
        "tool_call_started",
        "tool_call_started",
        "tool_call_finished",
        "tool_call_finished",
        "turn_started",
        "turn_finished",
        "tool_call_started",
        "tool_call_started",
        "tool_call_started",
        "tool_call_finished",
        "tool_call_finished",
        "tool_call_finished",
        "turn_started",
        "turn_finished",
        "diagram",  # the app's architecture diagram (built from the tree: the model is not asked here)
        "claims_checked",
        "run_finished",
    ]
    assert "".join(e.text for e in run.of(ev.ReasoningDelta)).startswith("Start with metadata")
    final_text = "".join(e.text for e in run.of(ev.TextDelta) if e.turn == 3)
    assert final_text == REPORT
    done = run.finished
    assert done.report == REPORT.strip() and not done.degraded and done.writer == "model"
    assert done.stats.turns == 3 and done.stats.tool_calls == 5
    assert done.stats.prompt_tokens == 1200 and done.stats.completion_tokens == 160
    assert done.stats.github_requests == len(emulator.requests)
    # The tool results went back in call order, with the assistant's tool calls before them.
    second = server.chat_requests[1].messages
    assert [m["role"] for m in second[-3:]] == ["assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in second[-2:]] == ["call_1", "call_2"]


def four_calls_turns() -> list[Turn]:
    return [
        Turn.calls(("get_repo_info", W)),
        Turn.calls(
            ("get_languages", W),
            ("get_commits", W),
            ("read_file", {**W, "path": "README.md"}),
            ("list_directory", {**W, "path": "src"}),
        ),
        Turn.final(REPORT),
    ]


async def test_tools_of_one_turn_run_concurrently(emulator: GitHubEmulator, tmp_path: Path) -> None:
    # Turn 2's requests are held until all four are: only calls that run concurrently get there.
    held = emulator.waits = HeldWaits()
    emulator.latency(0.2, r"/(languages|commits|contents/.*)$")

    async def release_once_all_four_are_held() -> None:
        await asyncio.to_thread(held.wait_held, 4)  # False after a minute: the assertions below fail
        held.open()

    with ScriptedModelServer(four_calls_turns()) as server:
        _, run = await asyncio.gather(
            release_once_all_four_are_held(), run_once(make_settings(emulator, tmp_path, server))
        )
    assert_well_formed(run.events)
    assert emulator.max_in_flight == 4  # the server saw all four calls of turn 2 at the same time
    assert held.requested == [0.2] * 4
    assert all(c.ok for c in run.of(ev.ToolCallFinished))


async def test_parallel_tool_calls_off_runs_them_one_at_a_time(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    assert make_settings(emulator, tmp_path).parallel_tool_calls  # the default is parallel
    with ScriptedModelServer(four_calls_turns()) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, parallel_tool_calls=False))
        server.assert_exhausted()
    assert_well_formed(run.events)
    assert emulator.max_in_flight == 1
    turn_two = [
        e for e in run.events if isinstance(e, ev.ToolCallStarted | ev.ToolCallFinished) and e.turn == 2
    ]
    # Each call finished before the next one started (concurrent calls would all start first).
    assert [e.kind for e in turn_two] == ["tool_call_started", "tool_call_finished"] * 4
    assert [e.tool for e in turn_two[::2]] == ["get_languages", "get_commits", "read_file", "list_directory"]
    assert [e.call_id for e in turn_two[::2]] == [e.call_id for e in turn_two[1::2]]
    assert all(c.ok for c in run.of(ev.ToolCallFinished))
    # The model still gets the results in call order.
    last = server.chat_requests[-1].messages
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"][-4:] == [e.call_id for e in turn_two[::2]]


@pytest.mark.parametrize("omit_index", [False, True])
async def test_ollama_style_streams_are_understood(
    emulator: GitHubEmulator, tmp_path: Path, omit_index: bool
) -> None:
    turns = [
        Turn.calls(
            ("get_repo_info", W),
            ollama_style=True,
            omit_index=omit_index,
            reasoning_field="reasoning",
            reasoning="Ollama thinks.",
        ),
        Turn.final(REPORT, ollama_style=True),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        server.assert_exhausted()
    assert_well_formed(run.events)
    (started,) = run.of(ev.ToolCallStarted)
    assert started.tool == "get_repo_info" and started.arguments == W  # no "get_repo_infoget_repo_info"
    assert "".join(e.text for e in run.of(ev.ReasoningDelta)) == "Ollama thinks."
    assert run.finished.report == REPORT.strip()


async def test_bad_model_behaviour_becomes_observations(emulator: GitHubEmulator, tmp_path: Path) -> None:
    turns = [
        Turn.calls(
            ToolCallSpec("read_file", '{"owner": "acme", "repo": "widgets", "path": '),  # malformed JSON
            ToolCallSpec("delete_everything", "{}"),  # unknown tool
            ToolCallSpec("read_file", json.dumps({"owner": "torvalds", "repo": "linux", "path": "README"})),
            ToolCallSpec("get_commits", json.dumps({**W, "per_page": "many"})),  # fails the schema
        ),
        Turn.final(REPORT),  # from memory: nothing it asked for worked
        Turn.final(REPORT),  # asked to use the tools, it answers from memory again
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        tool_messages = [m for m in server.chat_requests[1].messages if m["role"] == "tool"]
        nudge = server.chat_requests[2].messages[-1]
        server.assert_exhausted()
    assert_well_formed(run.events)
    errors = [json.loads(m["content"])["error"] for m in tool_messages]
    assert "not valid JSON" in errors[0]
    assert "unknown tool" in errors[1]
    assert "not one of the repositories named" in errors[2]
    assert "integer" in errors[3]
    assert nudge["role"] == "user" and "have not called any tool" in nudge["content"]
    # Nothing the model wrote is reported: the planner gathers the basics and the writer reports them.
    done = run.finished
    assert done.writer == "fallback" and done.degraded
    assert "answered without using the tools" in done.report
    assert REPORT.strip() not in done.report
    assert {r.path for r in emulator.requests} >= {"/repos/acme/widgets"}


async def test_never_ending_tool_calls_hit_the_turn_limit_then_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    def responder(request: dict[str, Any]) -> Turn:
        if request.get("tool_choice") == "auto":
            return Turn.calls(("get_languages", W))
        return Turn.final("# Report written after the limit\n")

    with ScriptedModelServer(responder=responder) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, max_turns=3))
        first_request = server.chat_requests[0].body or {}
        last_request = server.chat_requests[-1].body or {}
    assert_well_formed(run.events)
    # The report turn may call no tool; the tools are still sent, so that its request keeps the prefix
    # every request of the run shares (the provider's prompt cache serves it).
    assert last_request["tool_choice"] == "none" and last_request["tools"] == first_request["tools"]
    notices = [n.message for n in run.of(ev.Notice)]
    assert any("turn limit" in n for n in notices)
    assert run.finished.report.startswith("# Report written after the limit")
    memo_hits = [e for e in run.of(ev.ToolCallFinished) if e.memo]
    assert len(memo_hits) == 2  # identical repeated calls come from the run's memo
    assert sum(1 for r in emulator.requests if r.path.endswith("/languages")) == 1


async def test_model_unreachable_mid_run_gives_a_degraded_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [
        Turn.calls(("get_repo_info", W), ("get_file_tree", W)),
        Turn.error(500),
        Turn.error(500),
        Turn.error(500),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        del server
    assert_well_formed(run.events)
    done = run.finished
    assert done.degraded and done.writer == "fallback"
    assert "acme/widgets" in done.report and "Count words" in done.report
    assert any("model" in reason for reason in done.degraded_reasons)


@pytest.mark.parametrize(
    "broken",
    [
        Turn(content="partial", disconnect_after=3),
        Turn(content="never finished", no_done=True),
        Turn(empty=True),
    ],
    ids=["disconnect", "no-done", "empty"],
)
async def test_broken_stream_is_retried_once(emulator: GitHubEmulator, tmp_path: Path, broken: Turn) -> None:
    with ScriptedModelServer([Turn.calls(("get_repo_info", W)), broken, Turn.final(REPORT)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        server.assert_exhausted()
    assert_well_formed(run.events)
    assert any("retrying the turn once" in n.message for n in run.of(ev.Notice))
    assert run.finished.report == REPORT.strip() and not run.finished.degraded


async def test_rate_limited_model_is_retried_by_the_sdk(emulator: GitHubEmulator, tmp_path: Path) -> None:
    turns = [Turn.calls(("get_repo_info", W)), Turn.error(429, retry_after=0.1), Turn.final(REPORT)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server), max_retries=1)
        server.assert_exhausted()
    assert run.finished.report == REPORT.strip()


async def test_deepseek_reasoning_content_is_sent_back(emulator: GitHubEmulator, tmp_path: Path) -> None:
    turns = [
        Turn.calls(("get_repo_info", W), reasoning="I should look at the metadata first."),
        Turn.calls(("get_languages", W), reasoning="Now the languages."),
        Turn.final(REPORT),
    ]
    with ScriptedModelServer(turns) as server:
        await run_once(make_settings(emulator, tmp_path, server))
        third = server.chat_requests[2].messages
    assistants = [m for m in third if m["role"] == "assistant"]
    assert [m["reasoning_content"] for m in assistants] == [
        "I should look at the metadata first.",
        "Now the languages.",
    ]


async def test_endpoint_without_tools_switches_to_text_protocol(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [
        Turn.error(400, "registry.ollama.ai/library/gemma does not support tools"),
        Turn.final(
            'Thought: metadata first.\nAction: get_repo_info\nAction Input: {"owner": "acme", "repo": "widgets"}'
        ),
        Turn.final("I have it.\nFinal: " + REPORT),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        requests = server.chat_requests
    assert_well_formed(run.events)
    assert "tools" in (requests[0].body or {}) and "tools" not in (requests[1].body or {})
    assert "Action Input" in requests[1].messages[0]["content"]
    assert requests[2].messages[-1]["content"].startswith("Observation")
    assert any("text ReAct protocol" in n.message for n in run.of(ev.Notice))
    assert run.finished.report == REPORT.strip()


async def test_text_protocol_format_error_is_an_observation(emulator: GitHubEmulator, tmp_path: Path) -> None:
    turns = [
        Turn.final("I think I will look around."),
        Turn.final('Action: get_repo_info\nAction Input: {"owner": "acme", "repo": "widgets"}'),
        Turn.final("Final: " + REPORT),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, tool_protocol="text"))
        second = server.chat_requests[1].messages
    assert "Action" in second[-1]["content"]  # the observation tells the model the expected format
    assert run.finished.report == REPORT.strip()


async def test_follow_up_continues_the_conversation(emulator: GitHubEmulator, tmp_path: Path) -> None:
    turns = [*explore_turns(), Turn.final("It uses pytest for tests.")]
    with ScriptedModelServer(turns) as server:
        async with analysis(make_settings(emulator, tmp_path, server)) as run:
            await run.ask("What is this project?")
            follow = await run.ask("Which test framework does it use?")
        follow_request = server.chat_requests[-1].messages
    assert isinstance(follow[0], ev.RunStarted) and follow[0].follow_up
    assert isinstance(follow[-1], ev.RunFinished) and follow[-1].report == "It uses pytest for tests."
    roles = [m["role"] for m in follow_request]
    assert roles.count("tool") == 5 and roles[-1] == "user"


async def test_cancellation_leaves_no_orphan_tasks(emulator: GitHubEmulator, tmp_path: Path) -> None:
    emulator.hang("/languages")  # get_languages is still running when the run is cancelled
    turns = [Turn.calls(("get_languages", W), ("get_repo_info", W))]
    with ScriptedModelServer(turns) as server:
        async with analysis(make_settings(emulator, tmp_path, server, tool_timeout=30)) as run:
            seen: list[ev.Event] = []

            async def consume() -> None:
                async for event in run.opened.analysis.run("go"):
                    seen.append(event)

            task = asyncio.create_task(consume())
            while not any(isinstance(e, ev.ToolCallFinished) for e in seen):
                await asyncio.sleep(0.01)
            before = set(asyncio.all_tasks())
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await asyncio.sleep(0)
            leftover = {t for t in asyncio.all_tasks() - {asyncio.current_task()} if not t.done()}
            assert leftover <= before - {task}  # nothing new, and the tool tasks are gone
            assert not any("execute" in repr(t.get_coro()) for t in leftover)


async def test_chinese_question_gets_a_chinese_prompt(emulator: GitHubEmulator, tmp_path: Path) -> None:
    with ScriptedModelServer([Turn.final("# 报告\n")]) as server:
        await run_once(make_settings(emulator, tmp_path, server), "这个项目是做什么的？")
        system = server.chat_requests[0].messages[0]["content"]
    assert "Simplified Chinese" in system and "概述" in system


async def test_comparison_has_both_repositories_in_scope(
    emulator: GitHubEmulator, tmp_path: Path, sample_repo: Path
) -> None:
    emulator.add_repo("other/gizmo", sample_repo)
    turns = [
        Turn.calls(("get_repo_info", W), ("get_repo_info", {"owner": "other", "repo": "gizmo"})),
        Turn.final("# Comparison\n\n| | widgets | gizmo |\n|---|---|---|\n"),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(
            make_settings(emulator, tmp_path, server), "compare them", target="acme/widgets other/gizmo"
        )
        system = server.chat_requests[0].messages[0]["content"]
    assert "COMPARISON" in system and "side-by-side" in system
    assert all(e.ok for e in run.of(ev.ToolCallFinished))
    started = run.of(ev.RunStarted)[0]
    assert started.targets == ("acme/widgets", "other/gizmo")


async def test_events_save_and_load(emulator: GitHubEmulator, tmp_path: Path) -> None:
    with ScriptedModelServer(explore_turns()) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
    path = tmp_path / "run.jsonl"
    dump_events(run.events, path)
    assert load_events(path) == run.events
    first = json.loads(path.read_text().splitlines()[0])
    assert first["kind"] == "run_started" and "t" in first


async def test_offline_planner_over_the_emulator(emulator: GitHubEmulator, tmp_path: Path) -> None:
    run = await run_once(make_settings(emulator, tmp_path), "")
    assert_well_formed(run.events)
    done = run.finished
    assert done.writer == "planner" and not done.degraded
    assert run.of(ev.RunStarted)[0].mode == "planner"
    report = done.report
    for expected in ("acme/widgets", "Count words", "Python", "MIT"):
        assert expected in report, expected


async def test_unknown_repository_fails_with_a_clear_message(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    run = await run_once(make_settings(emulator, tmp_path), "", target="acme/does-not-exist")
    last = run.events[-1]
    assert isinstance(last, ev.RunFailed)
    assert "not found or private" in last.message
