"""The brief sized to the model's speed, and the short tool list for small models.

A local server's preset assumes ~40 prompt tokens/s until the endpoint is measured: its brief is cut so
the whole first request is read within a minute, and the trace says what was left out and why. A
measured speed (llama.cpp's timings, its prompt progress, or tokens over the time to the first token)
is remembered per endpoint for the process and sizes the next brief. Small windows and local servers
are offered three tools in one line each, the same list in every request. The model is the scripted
server (real SSE over a socket).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import openai
import pytest

from agent_core import events as ev
from agent_core.agent.pace import MIN_BRIEF_TOKENS, Pace, PromptSpeeds, measured_speed
from agent_core.agent.prompts import SMALL_WINDOW, system_prompt, tool_list
from agent_core.agent.turn_words import brief_cut
from agent_core.grammar import check_grammar
from agent_core.llm import OpenAIChatModel, Usage, resolve_model_config
from agent_core.llm.stream import TurnAccumulator
from agent_core.repo import RepoRef
from agent_core.settings import Settings
from agent_core.tools.registry import TOOL_NAMES, tool_schemas
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis
from testing.analysis import make_settings
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn

W = {"owner": "acme", "repo": "docs"}
README = "# docs\n\nA documentation generator.\n\n" + "".join(
    f"## Part {i}\n\nThis part explains feature number {i} of the generator in some detail.\n\n"
    for i in range(400)
)
WINDOW = 16_384  # the window leaves the brief ~3,800 tokens: what cuts it is the speed
REPORT = "# acme/docs\n\n## Overview\nA documentation generator (README.md).\n"


@pytest.fixture
def docs_emulator(tmp_path: Path) -> GitHubEmulator:
    repo = make_repo(
        tmp_path / "docs",
        {"README.md": README, "pyproject.toml": '[project]\nname = "docs"\ndependencies = ["jinja2"]\n'},
    )
    with GitHubEmulator() as emu:
        emu.add_repo("acme/docs", repo, description="Docs.", stars=3)
        yield emu


@asynccontextmanager
async def opened(services: Services, settings: Settings, provider: str) -> AsyncIterator[list[ev.Event]]:
    """One analysis of acme/docs over ``services`` (shared by the runs of a test, like a process's)."""
    assert settings.llm_base_url is not None
    client = openai.AsyncOpenAI(base_url=settings.llm_base_url, api_key=settings.api_key, max_retries=0)
    config = resolve_model_config(
        provider=provider, base_url=settings.llm_base_url, model=settings.llm_model, api_key=settings.api_key
    )
    model = OpenAIChatModel(client, model="m", turn_timeout=10.0, max_tokens=settings.llm_max_tokens)
    analysis = await open_analysis(services, "acme/docs", settings=settings, model=model, model_config=config)
    try:
        events = [e async for e in analysis.analysis.run("What is this project?")]
        check_grammar(events)
        yield events
    finally:
        await analysis.aclose()
        await client.close()


def first_user_message(server: ScriptedModelServer) -> str:
    body = server.chat_requests[0].body or {}
    return str(body["messages"][1]["content"])


async def brief_run(
    emu: GitHubEmulator, tmp_path: Path, provider: str, turn: Turn, services: Services | None = None
) -> tuple[list[ev.Event], str, list[dict[str, object]]]:
    """A run with the evidence first: its events, its first user message, and every request's tools."""
    # the report written from the brief alone is asked once for reads (issue 37): the model keeps it
    with ScriptedModelServer([turn], responder=lambda _body: Turn.final(REPORT)) as server:
        settings = make_settings(emu, tmp_path, server, prefetch=True, llm_context_window=WINDOW)
        services = services or Services(settings)
        try:
            async with opened(services, settings, provider) as events:
                server.assert_exhausted()
        finally:
            await services.aclose()
        return events, first_user_message(server), [(r.body or {})["tools"] for r in server.chat_requests]


# -- the brief sized to the speed -------------------------------------------------------------------


async def test_a_slow_endpoints_brief_is_cut_to_start_within_a_minute_and_the_trace_says_what(
    docs_emulator: GitHubEmulator, tmp_path: Path
) -> None:
    fast_events, fast_brief, _ = await brief_run(docs_emulator, tmp_path / "a", "custom", Turn.final(REPORT))
    slow_events, slow_brief, _ = await brief_run(
        docs_emulator, tmp_path / "b", "llamacpp", Turn.final(REPORT)
    )
    assert "README.md" in slow_brief and len(slow_brief) < len(fast_brief) * 0.8
    notices = [n.message for n in slow_events if isinstance(n, ev.Notice) and "Brief cut" in n.message]
    assert len(notices) == 1
    said = notices[0]
    assert "to start within a minute at 40 tokens/s (assumed until measured)" in said
    assert "README.md shortened" in said and "read_file" in said
    first = int(said.split("first request about ")[1].split(")")[0].replace(",", ""))
    assert first <= 40 * 60 * 1.1  # the whole first request reads within about a minute
    assert not any(isinstance(n, ev.Notice) and "Brief cut" in n.message for n in fast_events)


async def test_a_measured_speed_is_remembered_per_endpoint_and_sizes_the_next_brief(
    docs_emulator: GitHubEmulator, tmp_path: Path
) -> None:
    # The first run's report turn reads 3,000 fresh tokens in 15 s by the server's progress: 200 tokens/s,
    # five times the preset's assumption, so the second run's brief holds more of the README.
    fast = Turn.final(REPORT, prompt_progress=((0, 3000, 0), (3000, 3000, 15_000)), usage=(3000, 20))
    with ScriptedModelServer([fast], responder=lambda _body: Turn.final(REPORT)) as server:
        settings = make_settings(docs_emulator, tmp_path, server, prefetch=True, llm_context_window=WINDOW)
        services = Services(settings)
        try:
            async with opened(services, settings, "llamacpp") as first:
                pass
            async with opened(services, settings, "llamacpp") as second:
                pass
        finally:
            await services.aclose()
        firsts = [r for r in server.chat_requests if len((r.body or {})["messages"]) == 2]  # each run's first
        briefs = [str((r.body or {})["messages"][1]["content"]) for r in firsts]
    said = [n.message for n in [*first, *second] if isinstance(n, ev.Notice) and "Brief cut" in n.message]
    assert "at 40 tokens/s (assumed until measured)" in said[0]
    assert f"Brief cut to {MIN_BRIEF_TOKENS:,} tokens" in said[0]  # the first request's half of a minute
    assert len(briefs[1]) > 2 * len(briefs[0])  # sized at 200 tokens/s: nothing cut for the speed
    assert len(said) == 1


def test_the_speed_comes_from_the_servers_timing_then_its_progress_then_the_first_token() -> None:
    timed = Usage(prompt_tokens=2000, completion_tokens=5, prompt_tokens_per_s=38.5)
    plain = Usage(prompt_tokens=2000, completion_tokens=5, cached_prompt_tokens=400)
    assert measured_speed(timed, 50.0, 10.0) == 38.5
    assert measured_speed(plain, 50.0, 10.0) == 50.0
    assert measured_speed(plain, None, 40.0) == 40.0  # 1,600 fresh tokens in 40 s
    # a prompt served from the cache says nothing of the speed
    cached = Usage(prompt_tokens=2000, completion_tokens=5, cached_prompt_tokens=1900)
    assert measured_speed(cached, None, 0.5) is None
    assert measured_speed(None, 50.0, 1.0) is None


def test_llama_cpp_timings_are_read_from_the_final_chunk() -> None:
    accumulator = TurnAccumulator()
    accumulator.feed({"choices": [{"index": 0, "delta": {"content": "hi"}}]})  # type: ignore[arg-type]
    final = {
        "choices": [],
        "usage": {"prompt_tokens": 900, "completion_tokens": 1},
        "timings": {"prompt_n": 900, "prompt_per_second": 41.2, "cache_n": 0},
    }
    accumulator.feed(final)  # type: ignore[arg-type]
    usage = accumulator.finish().usage
    assert usage is not None and usage.prompt_tokens_per_s == 41.2


def test_hosted_endpoints_are_sized_by_their_window_alone() -> None:
    hosted = resolve_model_config(provider="deepseek", base_url=None, model=None, api_key="k")
    size = Pace(PromptSpeeds(), hosted).brief_size(budget=30_000, fixed=2_000)
    assert (size.tokens, size.by_speed, size.speed) == (10_000, False, None)
    local = resolve_model_config(provider="ollama", base_url=None, model=None, api_key=None)
    size = Pace(PromptSpeeds(), local).brief_size(budget=30_000, fixed=2_000)
    assert (size.tokens, size.by_speed, size.measured) == (400, True, False)  # 2,400 - 2,000, floored


def test_the_brief_cut_is_said_in_chinese() -> None:
    local = resolve_model_config(provider="llamacpp", base_url=None, model=None, api_key=None)
    size = Pace(None, local).brief_size(budget=7_000, fixed=700)
    from agent_core.agent.brief import Brief

    said = brief_cut(size, Brief(text="", shortened=("README.md",)), first_request=2_400, language="zh")
    assert said.startswith("简报缩减到 1,700 个 token") and "README.md 被截短" in said and "尚未实测" in said


# -- the short tool list ----------------------------------------------------------------------------


def test_small_windows_and_local_servers_get_three_tools_in_one_line_each() -> None:
    assert tool_list(32_768, local=False) == tool_list(SMALL_WINDOW, local=False) == tool_schemas()
    for short in (tool_list(SMALL_WINDOW, local=True), tool_list(32_768, local=True)):
        names = [t["function"]["name"] for t in short]
        assert names == ["get_repo_info", "get_file_tree", "read_file"]
        assert set(names) <= set(TOOL_NAMES)
        assert all("\n" not in t["function"]["description"] for t in short)
        assert len(json.dumps(short)) < len(json.dumps(tool_schemas())) / 2
    # after a brief, not the repository's info it holds (offered it, the real 1.5B called it first)
    briefed = [t["function"]["name"] for t in tool_list(SMALL_WINDOW, local=True, briefed=True)]
    assert briefed == ["get_file_tree", "read_file"]
    assert tool_list(32_768, local=False, briefed=True) == tool_schemas()
    read = next(t for t in tool_list(SMALL_WINDOW, local=True) if t["function"]["name"] == "read_file")
    assert read["function"]["parameters"]["required"] == ["owner", "repo", "path"]


async def test_a_local_server_is_sent_the_short_list_in_every_request(
    docs_emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [Turn.calls(("read_file", {**W, "path": "pyproject.toml"})), Turn.final(REPORT)]
    # pyproject.toml is in the brief: no new read, so the report is asked once for reads (issue 37)
    with ScriptedModelServer(turns, responder=lambda _body: Turn.final(REPORT)) as server:
        settings = make_settings(docs_emulator, tmp_path, server, prefetch=True)
        services = Services(settings)
        try:
            async with opened(services, settings, "llamacpp") as events:
                server.assert_exhausted()
        finally:
            await services.aclose()
        tools = [(r.body or {})["tools"] for r in server.chat_requests]
    assert tools[0] == tools[1] == tool_list(SMALL_WINDOW, local=True, briefed=True)
    assert any(isinstance(e, ev.ToolCallFinished) and e.ok for e in events)
    system = server.chat_requests[0].messages[0]["content"]
    assert named_tools(system) == {"read_file"}  # the brief holds what get_repo_info and get_file_tree say


def named_tools(text: str) -> set[str]:
    return {name for name in TOOL_NAMES if re.search(rf"\b{name}\b", text)}


def test_the_system_prompt_names_only_the_tools_offered() -> None:
    scope = [RepoRef(owner="acme", name="widgets")]
    short = [t["function"]["name"] for t in tool_list(SMALL_WINDOW, local=True)]
    assert named_tools(system_prompt(scope, language="en", tools=short)) <= set(short)
    everything = system_prompt(scope, language="en")
    assert {"get_repo_info", "get_file_tree", "get_commits"} <= named_tools(everything)
    assert "Check get_commits for activity." in everything
    bare = system_prompt(scope, language="en", tools=["read_file"])
    assert named_tools(bare) == set()
    assert "- Read the README, the manifests" in bare
