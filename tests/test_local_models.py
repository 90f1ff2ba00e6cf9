"""Local models as people run them: a degeneration guard on the stream, deadlines that measure stalls
and not work, partial reports kept, the server's prompt progress shown, and loop-discouraging sampling.

The model is the scripted server (real SSE over a socket) or, for the stall deadline, a small SSE
server on the same virtual-time event loop, so minutes of model time pass at once and no test waits
on the wall clock.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx2
import pytest

from agent_core import events as ev
from agent_core.agent.turn_words import completed_note, cut_reason, partial_reason
from agent_core.errors import LLMError
from agent_core.grammar import check_grammar
from agent_core.llm import OpenAIChatModel, RepetitionGuard, make_openai_client, resolve_model_config
from agent_core.settings import Settings
from agent_core.top.wiring import build_model, sampling
from agent_core.web.render import TraceView
from agent_core.web.stats import step_usage
from testing.analysis import analysis, make_settings, run_once
from testing.clock import HeldWaits, SkippingClock, run_in_virtual_time
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn
from testing.linear import growth

ROOT = Path(__file__).resolve().parents[1]
W = {"owner": "acme", "repo": "widgets"}
LOOPING_LINE = "- **Flask-StaticFiles-URL-Static**: A tool for generating URLs for static files."
REPORT_START = (
    "# acme/widgets\n\n## Overview\nA small command-line word counter written in Python; it reads text "
    "from files or standard input and prints how many words, lines and characters it holds, like wc.\n\n"
)


def guarded(text: str, step: int = 7) -> tuple[str, RepetitionGuard]:
    """``text`` fed to a guard in pieces of ``step`` characters; what is kept before its cut."""
    guard = RepetitionGuard()
    for i in range(0, len(text), step):
        if guard.feed(text[i : i + step]) is not None:
            break
    found = guard.finish()
    return (text if found is None else text[: found.offset]), guard


# -- the guard -------------------------------------------------------------------------------------


def test_the_guard_cuts_a_looping_list_at_its_first_repeat_and_keeps_one_copy() -> None:
    names = "".join(f"- **Flask-StaticFiles-URL{'-Static' * i}**: {LOOPING_LINE[36:]}\n" for i in range(60))
    kept, guard = guarded("# Flask\n\nA web framework.\n\n## Packages\n" + names)
    assert guard.found is not None and guard.found.line == 7
    assert kept.count("A tool for generating URLs") == 1
    assert kept.endswith("static files.\n")


@pytest.mark.parametrize(
    ("text", "kind", "line"),
    [
        pytest.param(
            "# T\n\n" + "The same sentence appears here again.\n" * 5, "repeated_line", 4, id="line"
        ),
        pytest.param("Hello " + "Static-" * 100, "repeated_phrase", 1, id="phrase"),
        pytest.param(
            "intro\n" + "模型一直在重复同一句话，没有停下来。\n" * 4, "repeated_line", 3, id="chinese"
        ),
        pytest.param("".join(f"- item {i}: {i * 7}\n" for i in range(80)), "runaway_list", 51, id="list"),
    ],
)
def test_each_kind_of_loop_is_cut(text: str, kind: str, line: int) -> None:
    kept, guard = guarded(text)
    assert guard.found is not None
    assert (guard.found.kind, guard.found.line) == (kind, line)
    assert len(kept) < len(text)


def test_real_reports_and_docs_are_never_cut() -> None:
    texts = [(ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "docs/ARCHITECTURE.md")]
    table = "| file | role |\n|---|---|\n" + "".join(f"| `src/m{i}.py` | module {i} |\n" for i in range(30))
    code = "```python\n" + "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(20)) + "```\n"
    for text in [*texts, table, code]:
        assert guarded(text)[1].found is None


@pytest.mark.untraced
def test_the_guard_is_linear_on_adversarial_input() -> None:
    """CPU time at 4x the input grows about 4x, never 16x (a ratio of this process's CPU time, so a busy
    machine's other work does not count)."""
    makers = (
        lambda n: "".join(random.Random(7).choice("ab \n-*`") for _ in range(n)),
        lambda n: "x" * n,
        lambda n: "".join(f"{random.Random(n + i).random()}\n" for i in range(n // 20)),
    )
    for make in makers:
        measured = growth(lambda text: guarded(text, step=4096), make, start=20_000, factor=4)
        assert measured.linear(), str(measured)


# -- a looping model, end to end -------------------------------------------------------------------


async def test_a_looping_report_is_cut_said_where_and_still_checked(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    looping = REPORT_START + "## Dependencies\n" + f"{LOOPING_LINE}\n" * 40
    turns = [Turn.calls(("get_repo_info", W), ("get_file_tree", W)), Turn.final(looping, chunk_size=16)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server), "What is this project?")
        server.assert_exhausted()
    finished = run.finished
    assert finished.writer == "model"
    assert finished.report.count("A tool for generating URLs") == 1
    line = REPORT_START.count("\n") + 3  # the second copy of the line
    assert cut_reason(line, "en") in finished.degraded_reasons
    assert any(f"repeating itself at line {line}" in n.message for n in run.of(ev.Notice))
    assert [e.finish_reason for e in run.of(ev.TurnFinished)][-1] == "repetition"
    assert run.of(ev.ClaimsChecked)


async def test_the_cut_is_said_in_chinese_for_a_chinese_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    looping = "# acme/widgets\n\n## 概述\n" + "这是一个统计单词数量的命令行工具，用 Python 编写。\n" * 6
    turns = [Turn.calls(("get_repo_info", W)), Turn.final(looping)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(
            make_settings(emulator, tmp_path, server, report_language="zh"), "这个项目做什么？"
        )
    assert cut_reason(5, "zh") in run.finished.degraded_reasons
    assert run.finished.report.count("统计单词数量") == 1


# -- stalls, not work --------------------------------------------------------------------------------

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def chunk(content: str | None, finish: str | None = None) -> bytes:
    body = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}],
    }
    data = f"data: {json.dumps(body)}\n\n".encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def paced(gaps: list[float]) -> Handler:
    """An SSE answer whose chunks come ``gaps`` seconds apart (virtual seconds: the loop jumps)."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        for i, gap in enumerate(gaps):
            await asyncio.sleep(gap)
            writer.write(chunk(f"token {i} "))
            await writer.drain()
        writer.write(chunk(None, "stop") + chunk_done())
        await writer.drain()
        writer.close()

    return handler


def chunk_done() -> bytes:
    data = b"data: [DONE]\n\n"
    return f"{len(data):x}\r\n".encode() + data + b"\r\n0\r\n\r\n"


async def stream_through(handler: Handler, *, stall: float) -> tuple[str, float]:
    """The text one turn streamed from ``handler``'s server, and how long it took (virtual seconds)."""
    writers: list[asyncio.StreamWriter] = []

    async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        await handler(reader, writer)

    server = await asyncio.start_server(tracked, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = make_openai_client(
        base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=0, timeout=100_000
    )
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        model = OpenAIChatModel(client, model="m", turn_timeout=stall, max_tokens=64)
        parts = [p async for p in model.stream_turn([{"role": "user", "content": "hi"}], tools=None)]
        return "".join(getattr(p, "text", "") for p in parts), loop.time() - started
    finally:
        await client.close()
        server.close()
        for writer in writers:  # a stalled answer's connection: the server end closes too
            writer.close()


def test_a_slow_but_flowing_stream_is_never_cut_by_the_stall_deadline() -> None:
    # 12 tokens, 50 s apart: ten minutes in all, never a minute without progress.
    text, took = run_in_virtual_time(stream_through(paced([50.0] * 12), stall=60.0))
    assert text.count("token") == 12
    assert took >= 600


def test_a_stream_that_stalls_fails_after_the_stall_deadline() -> None:
    async def stalls() -> float:
        started = asyncio.get_running_loop().time()
        with pytest.raises(LLMError, match="nothing arrived for 60s"):
            await stream_through(paced([5.0, 5.0, 3600.0]), stall=60.0)
        return asyncio.get_running_loop().time() - started

    assert 60 <= run_in_virtual_time(stalls()) < 3600


# -- the model's work is never thrown away ----------------------------------------------------------


async def test_the_run_deadline_keeps_the_partial_report_marked_and_completed(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    report = REPORT_START + "## Architecture\n" + "The counter reads its input line by line. " * 30
    held = HeldWaits()
    turns = [Turn.calls(("get_repo_info", W), ("get_file_tree", W)), Turn.final(report, delay_per_chunk=1.0)]
    clock = SkippingClock()
    settings = make_settings(emulator, tmp_path, None, max_wall_seconds=300.0)
    with ScriptedModelServer(turns, waits=held) as server:
        settings = make_settings(emulator, tmp_path, server, max_wall_seconds=300.0)
        async with analysis(settings, clock=clock) as harness:
            seen: list[ev.Event] = []

            async def consume() -> None:
                async for event in harness.opened.analysis.run("What is this project?"):
                    seen.append(event)  # as it comes, so the test can wait for what the run has read

            task = asyncio.create_task(consume())
            assert await asyncio.to_thread(held.wait_held, 1)
            held.release(40)  # 40 more pieces of 8 characters: the report has begun
            # Wait until the run has READ them (a busy machine's client lags the server), then end its time.
            while sum(len(e.text) for e in seen if isinstance(e, ev.TextDelta)) < 300:
                await asyncio.sleep(0.01)
            clock.skip(10_000)  # the run's time is up while the model still writes
            held.open()
            await task
            check_grammar(seen)
            harness.events.extend(seen)
    finished = harness.finished
    assert finished.writer == "model"
    assert finished.report.startswith(REPORT_START)
    assert completed_note("en") in finished.report
    assert finished.report.index(completed_note("en")) < finished.report.index("## Data sources")
    assert partial_reason("en") in finished.degraded_reasons
    assert not any("deterministic writer" in r for r in finished.degraded_reasons)
    assert harness.of(ev.ClaimsChecked)
    assert any("partial report is kept" in n.message for n in harness.of(ev.Notice))


async def test_a_stream_that_breaks_off_mid_report_keeps_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    report = REPORT_START + "## Architecture\n" + "The counter reads its input line by line. " * 30
    turns = [Turn.calls(("get_repo_info", W)), Turn.final(report, disconnect_after=60)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server), "What is this project?")
        server.assert_exhausted()  # not retried: the report that came is kept
    assert run.finished.writer == "model"
    assert run.finished.report.startswith(REPORT_START)
    assert partial_reason("en") in run.finished.degraded_reasons


# -- progress ---------------------------------------------------------------------------------------


async def test_the_servers_prompt_progress_becomes_percent_and_eta(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    progress = ((0, 3000, 0), (100, 3000, 2000), (1500, 3000, 30_000), (3000, 3000, 60_000))
    turns = [
        Turn.calls(("get_repo_info", W)),
        Turn.final(REPORT_START, prompt_progress=progress, usage=(3000, 60)),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server), "What is this project?")
    said = [(p.done, p.total, p.tokens_per_s) for p in run.of(ev.TurnProgress)]
    # the first says how much it reads; 100 of 3,000 is too little news to say again
    assert said == [(0, 3000, None), (1500, 3000, 50.0), (3000, 3000, 50.0)]
    finished = run.of(ev.TurnFinished)[-1]
    assert finished.first_token_s is not None
    view = TraceView()
    for event in run.events:
        view.apply(event)
        if isinstance(event, ev.TurnProgress) and event.done == 1500:
            step = next(m for m in view.messages() if m.get("metadata", {}).get("id") == f"turn-{event.turn}")
            assert "1,500 / 3,000 tokens (50%)" in step["metadata"]["log"]
            assert "about 30 s left at 50 tokens/s" in step["metadata"]["log"]


def test_the_step_title_says_the_generation_speed() -> None:
    done = ev.TurnFinished(
        t=1, turn=1, tool_calls=0, prompt_tokens=3000, completion_tokens=200, duration_s=70, first_token_s=30
    )
    assert (
        step_usage(done, "en")
        == "3,000 in / 200 out tokens · model 70.0 s · 5.0 tokens/s · first token after 30 s"
    )
    assert "每秒 5.0 token" in (step_usage(done, "zh") or "")


# -- sampling that discourages loops ----------------------------------------------------------------


async def test_local_endpoints_get_loop_discouraging_sampling_and_progress(tmp_path: Path) -> None:
    with ScriptedModelServer([Turn.final("ok"), Turn.final("ok")]) as server:
        for overrides in ({}, {"llm_repeat_penalty": 1.0, "llm_frequency_penalty": 0.0}):
            settings = Settings(
                llm_provider="custom",
                llm_base_url=server.base_url,
                llm_model="m",
                api_key="k",
                cache_dir=tmp_path,
                **overrides,  # type: ignore[arg-type]
            )
            async with httpx2.AsyncClient() as http:
                model, _ = build_model(settings, http)
                assert model is not None
                _ = [p async for p in model.stream_turn([{"role": "user", "content": "hi"}], tools=None)]
        first, second = (r.body or {} for r in server.chat_requests)
    assert (first["frequency_penalty"], first["repeat_penalty"], first["return_progress"]) == (0.3, 1.1, True)
    assert (second["frequency_penalty"], second["repeat_penalty"]) == (0.0, 1.0)
    assert "presence_penalty" not in first


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://192.168.1.20:8080/v1", True),
        ("http://llama:8080/v1", True),
        ("https://gateway.example.com/v1", False),
        ("https://8.8.8.8/v1", False),
    ],
)
def test_llama_cpp_fields_go_only_to_servers_on_this_network(url: str, local: bool) -> None:
    config = resolve_model_config(provider="custom", base_url=url, model="m", api_key="k")
    assert (config.sampling.repeat_penalty == 1.1) is local
    assert ("return_progress" in config.extra_body) is local
    assert config.sampling.frequency_penalty == 0.3  # OpenAI's own field: every server takes it


def test_hosted_apis_get_no_penalties_unless_asked() -> None:
    config = resolve_model_config(provider="deepseek", base_url=None, model=None, api_key="k")
    assert sampling(Settings(), config).frequency_penalty is None
    assert config.extra_body == {}
    assert sampling(Settings(llm_presence_penalty=0.5), config).presence_penalty == 0.5
