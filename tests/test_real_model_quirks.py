"""What real models do, each on the exact shape seen from Qwen2.5-Coder behind llama.cpp (and other
servers' wordings), against the real loop over the scripted model server and the GitHub emulator.

Each of these failed before: prose from memory was accepted as the report; a tool call written in
``content`` was returned as the report; invented observations stayed in the history; a stray
``Final:`` after an action was kept; no ``max_tokens``/``temperature``/``stop`` were sent; the context
window was never learned and an overflow 400 was "unreachable"; a failed model after failed calls ended
in ``run_failed``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.llm.content_calls import calls_in_content
from agent_core.tools.registry import TOOL_NAMES
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn

W = {"owner": "acme", "repo": "widgets"}
FROM_MEMORY = (
    "# acme/widgets\n\nacme/widgets has 23 forks and 9 open issues. The latest commit was in February "
    "2023. It is written in JavaScript and configured by `package.json`.\n"
)
REPORT = "# acme/widgets\n\nCounts words; 42 stars, MIT licensed, written in Python. See `pyproject.toml`.\n"


# -- tool calls written in content -----------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        '```json\n{"function": "read_file", "arguments": {"owner": "acme", "repo": "widgets", "path": "README.md"}}\n```',
        '{"name": "read_file", "arguments": {"owner": "acme", "repo": "widgets", "path": "README.md"}}',
        '{"name": "read_file", "parameters": {"owner": "acme", "repo": "widgets", "path": "README.md"}}',
        '<tool_call>\n{"name": "read_file", "arguments": {"owner": "acme", "repo": "widgets", "path": "README.md"}}\n</tool_call>',
        '{"function": {"name": "read_file", "arguments": "{\\"owner\\": \\"acme\\", \\"repo\\": \\"widgets\\", \\"path\\": \\"README.md\\"}"}}',
        'I will read the README.\n```json\n[{"name": "read_file", "arguments": {"owner": "acme", "repo": "widgets", "path": "README.md"}}]\n```',
    ],
    ids=[
        "fenced-function",
        "bare-name-arguments",
        "name-parameters",
        "qwen-tags",
        "function-object",
        "a-list",
    ],
)
def test_every_shape_of_a_call_written_in_content_is_read(content: str) -> None:
    (call,) = calls_in_content(content, TOOL_NAMES)
    assert call.tool == "read_file"
    assert json.loads(call.arguments) == {**W, "path": "README.md"}


def test_a_report_quoting_a_call_is_not_a_call_and_unknown_names_are_not_calls() -> None:
    report = (
        "# Report\n\n## Usage\nTools are called like this:\n"
        + '```json\n{"name": "read_file", "arguments": {}}\n```\n'
        + "x" * 500
    )
    assert calls_in_content(report, TOOL_NAMES) == []
    assert calls_in_content('{"name": "delete_everything", "arguments": {}}', TOOL_NAMES) == []


async def test_a_call_written_in_content_is_run_never_reported(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    content = '```json\n{"function": "get_repo_info", "arguments": {"owner": "acme", "repo": "widgets"}}\n```'
    with ScriptedModelServer([Turn.final(content), Turn.final(REPORT)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        second = server.chat_requests[1].messages
        server.assert_exhausted()
    (started,) = run.of(ev.ToolCallStarted)
    assert started.tool == "get_repo_info"
    assert run.finished.report == REPORT.strip() and run.finished.writer == "model"
    # The next turn reads a well-formed exchange: the call it meant, and its result.
    assistant = next(m for m in second if m["role"] == "assistant")
    assert assistant["tool_calls"][0]["function"]["name"] == "get_repo_info"
    assert any(m["role"] == "tool" and '"full_name"' in m["content"] for m in second)


# -- answers from memory --------------------------------------------------------------------------


async def test_prose_from_memory_is_sent_back_once_then_replaced_by_the_facts(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer([Turn.final(FROM_MEMORY), Turn.final(FROM_MEMORY)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        nudge = server.chat_requests[1].messages[-1]["content"]
        server.assert_exhausted()
    assert "have not called any tool" in nudge
    done = run.finished
    assert done.writer == "fallback" and done.degraded  # never the model's prose, never degraded: false
    assert "23 forks" not in done.report and "answered without using the tools" in done.report
    assert "Count words, fast." in done.report  # the facts, gathered without the model


async def test_prose_with_prefetch_is_judged_against_the_brief_and_its_false_claims_given_back(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """Grounded in the brief, the draft's false claims are ✗; with no read of its own and a file the
    repository lacks, it is written from memory: sent back once with its findings, then replaced."""
    with ScriptedModelServer([Turn.final(FROM_MEMORY), Turn.final(FROM_MEMORY)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        first = server.chat_requests[0].messages
        asked = server.chat_requests[1].messages[-1]["content"]
        server.assert_exhausted()
    assert [e.purpose for e in run.of(ev.TurnStarted)][:2] == ["prefetch", "prefetch"]
    brief = first[1]["content"]
    assert "Evidence the tools gathered before your first turn" in brief and "42 stars" in brief
    assert "----- README.md" in brief and "----- pyproject.toml" in brief
    assert not any(m["role"] == "tool" for m in first)  # one brief, not many tool messages
    sent_back, replaced = run.of(ev.DraftReviewed)
    contradicted = {c.claim: c.observed for c in sent_back.findings}
    assert {"JavaScript", "package.json", "forks: 23", "open issues: 9", "last commit: February 2023"} <= set(
        contradicted
    )
    assert contradicted["JavaScript"] == "Python" and contradicted["forks: 23"] == "0"
    assert "from_memory" in sent_back.problems and "package.json" in asked
    assert replaced.outcome == "replaced" and run.finished.writer == "fallback"
    assert "23 forks" not in run.finished.report
    (check,) = run.of(ev.ClaimsChecked)
    assert {f.label: f.value for f in check.key_facts}["stars"] == "42"


# -- the text protocol ---------------------------------------------------------------------------


CHAIN = """Thought: I should look at the repository.
Action: get_repo_info
Action Input: {"owner": "acme", "repo": "widgets"}
Observation: {"stars": 105, "created_at": "2021-06-01"}
Action: get_commits
Action Input: {"owner": "acme", "repo": "widgets"}
Observation: [{"sha": "abc", "message": "invented"}]
Final: acme/widgets has 105 stars and was created in June 2021."""


async def test_text_protocol_runs_only_the_first_action_and_keeps_no_invented_observation(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer([Turn.final(CHAIN), Turn.final("Final: " + REPORT)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, tool_protocol="text"))
        requests = server.chat_requests
    assert [e.tool for e in run.of(ev.ToolCallStarted)] == ["get_repo_info"]
    kept = next(m["content"] for m in requests[1].messages if m["role"] == "assistant")
    assert kept.startswith("Thought: I should look") and "Action: get_repo_info" in kept
    assert "105" not in kept and "Observation" not in kept and "Final" not in kept
    assert all(r.body["stop"] == ["Observation:"] for r in requests)
    assert run.finished.report == REPORT.strip()


async def test_every_request_sends_max_tokens_and_a_low_temperature(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer([Turn.calls(("get_repo_info", W)), Turn.final(REPORT)]) as server:
        await run_once(make_settings(emulator, tmp_path, server, llm_max_tokens=700, llm_temperature=0.0))
        bodies = [r.body for r in server.chat_requests]
    assert [(b["max_tokens"], b["temperature"]) for b in bodies] == [(700, 0.0), (700, 0.0)]


# -- the model's own context window ----------------------------------------------------------------


# llama.cpp's words (its body: {"error": {"code": 400, "type": "exceed_context_size_error", "message": ...}})
LLAMA_OVERFLOW = "request (8893 tokens) exceeds the available context size (8192 tokens), try increasing it"


async def test_the_window_is_learned_from_the_server_and_bounds_every_request(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    files = [
        "src/pkg/core.py",
        "README.md",
        "pyproject.toml",
        "LICENSE",
        "tests/test_core.py",
        "docs/index.md",
    ]
    turns = [Turn.calls(("read_file", {**W, "path": f})) for f in files] + [Turn.final(REPORT)]
    limits = {"llm_max_tokens": 300, "read_file_max_chars": 2000, "observation_max_chars": 2500}
    with ScriptedModelServer(turns, n_ctx=2000) as server:  # a loopback server is local: the short tool list
        run = await run_once(make_settings(emulator, tmp_path, server, **limits))
        bodies = [r.body for r in server.chat_requests]
        models_asked = [r for r in server.requests if r.method == "GET" and r.path.endswith("/models")]
    assert models_asked  # asked once, at the start
    from agent_core.llm import estimate_messages, estimate_tokens

    schemas = estimate_tokens(json.dumps(bodies[0]["tools"]))
    sizes = [estimate_messages(b["messages"]) + schemas for b in bodies]
    assert max(sizes) <= 2000 - 300  # the window less the reply, tool schemas counted
    assert any("[compacted" in str(m.get("content")) for m in bodies[-1]["messages"])
    assert run.finished.writer == "model"


async def test_an_overflow_400_compacts_and_is_tried_once_more_never_as_is(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [
        Turn.calls(("read_file", {**W, "path": "README.md"})),
        Turn.calls(("read_file", {**W, "path": "src/pkg/core.py"})),
        Turn.error(400, LLAMA_OVERFLOW),
        Turn.final(REPORT),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        bodies = [r.body for r in server.chat_requests]
        server.assert_exhausted()
    assert any(
        "did not fit the model's context window (8,192 tokens)" in n.message for n in run.of(ev.Notice)
    )
    assert bodies[3]["messages"] != bodies[2]["messages"]  # compacted before trying again
    assert run.finished.report == REPORT.strip()


async def test_an_overflow_that_persists_ends_with_the_reason_in_the_reports_language(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [
        Turn.calls(("get_repo_info", W)),
        Turn.error(400, LLAMA_OVERFLOW),
        Turn.error(400, LLAMA_OVERFLOW),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server), "这个项目做什么？")
    done = run.finished
    assert done.writer == "fallback"
    assert "对话已超出模型的上下文窗口" in done.report  # not "the model could not be reached", not in English
    assert not [e for e in run.events if isinstance(e, ev.Notice) and "unreachable" in e.message]


# -- repeats and endings -----------------------------------------------------------------------------


async def test_a_repeated_call_gets_a_short_reference_not_the_result_again(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    readme = ("read_file", {**W, "path": "README.md"})
    with ScriptedModelServer([Turn.calls(readme), Turn.calls(readme), Turn.final(REPORT)]) as server:
        await run_once(make_settings(emulator, tmp_path, server))
        tools = [m for m in server.chat_requests[2].messages if m["role"] == "tool"]
    first, repeat = json.loads(tools[0]["content"]), json.loads(tools[1]["content"])
    assert "text" in first and repeat["repeat"] is True and "text" not in repeat
    assert len(tools[1]["content"]) < 200


async def test_every_call_failing_then_the_model_failing_gathers_the_basics(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    wrong = ("read_file", {**W, "path": "nope.md"})
    turns = [Turn.calls(wrong), Turn.error(500), Turn.error(500)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, max_turns=2), max_retries=0)
    done = run.events[-1]
    assert isinstance(done, ev.RunFinished), done  # it used to end in run_failed with GitHub healthy
    assert done.writer == "fallback" and "Count words, fast." in done.report
    assert {e.tool for e in run.of(ev.ToolCallFinished) if e.ok} >= {"get_repo_info", "get_file_tree"}


def test_a_local_model_gets_time_enough_for_a_turn() -> None:
    from agent_core.llm import resolve_model_config
    from agent_core.settings import Settings
    from agent_core.top.wiring import run_limits, turn_timeout

    local = resolve_model_config(
        provider="custom", base_url="http://127.0.0.1:8190/v1", model="local", api_key="x"
    )
    hosted = resolve_model_config(provider="deepseek", base_url=None, model=None, api_key="x")
    assert turn_timeout(Settings(), local) >= 600  # the slow local turn (149 s) timed out at 120 s
    assert turn_timeout(Settings(), hosted) == 120
    assert turn_timeout(Settings(llm_turn_timeout=30), local) == 30
    assert run_limits(Settings(), local).max_wall_seconds > run_limits(Settings(), hosted).max_wall_seconds
