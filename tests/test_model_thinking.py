"""Reasoning models as local servers send them: thinking in ``<think>…</think>`` inside the content, or
in a ``reasoning_content`` delta, before the answer.

Thinking is never the report (nor streamed as the report's text), the degeneration guard never cuts a
report because the thinking repeated itself, and thinking tokens are progress for the stall deadline.
The model is the scripted server (real SSE over a socket) or, for the stall deadline, a small SSE server
on the same virtual-time event loop, so minutes of model time pass at once.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.llm import (
    OpenAIChatModel,
    ReasoningDelta,
    RepetitionGuard,
    TurnAccumulator,
    TurnComplete,
    make_openai_client,
)
from agent_core.llm.thinking import CLOSED_LATE, ThinkSplitter
from testing.analysis import Run, make_settings, run_once
from testing.clock import run_in_virtual_time
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn
from testing.linear import growth

W = {"owner": "acme", "repo": "widgets"}
REPORT = (
    "# acme/widgets\n\n## Overview\nA small command-line word counter written in Python; it reads text "
    "from files or standard input and prints how many words, lines and characters it holds.\n"
)
# Small reasoning models think in circles: the same sentence, over and over.
THINKING = "I should check the README and the manifest before I write anything.\n" * 12


def split(text: str, step: int) -> tuple[str, str, bool]:
    """(reasoning, answer, whether a late ``</think>`` came) of ``text`` fed in pieces of ``step``."""
    splitter = ThinkSplitter()
    pieces = [p for i in range(0, len(text), step) for p in splitter.feed(text[i : i + step])]
    pieces += splitter.finish()
    reasoning = "".join(p[1] for p in pieces if p != CLOSED_LATE and p[0] == "reasoning")
    answer = "".join(p[1] for p in pieces if p != CLOSED_LATE and p[0] == "answer")
    return reasoning, answer, CLOSED_LATE in pieces


# -- the splitter -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reasoning", "answer", "late"),
    [
        ("<think>\nplan it\n</think>\n\n# R\nbody", "\nplan it\n", "# R\nbody", False),
        ("\n  <think>a </thi b</think>R", "a </thi b", "R", False),
        ("<think>never closed", "never closed", "", False),  # cut off mid-thought: no report began
        ("plan it\n</think>\n\n# R\nbody", "", "plan it\n# R\nbody", True),  # the caller moves "plan it"
        ("# R\nQuote `</think>` and <think> freely.", "", "# R\nQuote `</think>` and <think> freely.", False),
        ("# R\nno tags at all", "", "# R\nno tags at all", False),
        ("# R\nIts parser drops </think> tags.", "", "# R\nIts parser drops </think> tags.", False),
        ("\n\n## R\nbody </think>", "", "## R\nbody </think>", False),
        ("<thin", "", "<thin", False),  # the tag's start, then the end: it was text
    ],
)
def test_every_chunking_splits_thinking_from_the_answer_alike(
    text: str, reasoning: str, answer: str, late: bool
) -> None:
    for step in range(1, len(text) + 1):
        got_reasoning, got_answer, got_late = split(text, step)
        assert got_reasoning == reasoning, step
        assert got_late == late, step
        if late:  # the pieces before the late tag came as the answer; what follows it is the answer
            assert got_answer.endswith("# R\nbody") and "</think>" not in got_answer
        else:
            assert got_answer == answer, step


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_the_splitter_is_linear_on_adversarial_input() -> None:
    makers = (
        lambda n: "<think>" + "</thin" * (n // 6),
        lambda n: "</thin`" * (n // 7),
        lambda n: " " * n,  # nothing but blanks: never the answer's start, never held whole
        lambda n: "".join(random.Random(3).choice(["<", "/", "think", ">", "`", "a"]) for _ in range(n // 3)),
    )
    for make in makers:
        measured = growth(lambda text: split(text, 4096), make, start=20_000, factor=4)
        assert measured.linear(), str(measured)


def test_a_late_close_takes_back_what_streamed_as_the_answer_and_restarts_the_guard() -> None:
    thinking = (
        "Let me look at the tree first, it has a src folder.\n" * 2
    )  # twice: the guard's third copy cuts
    text = f"{thinking}</think>\n\nLet me look at the tree first, it has a src folder.\n{REPORT}"
    accumulator = TurnAccumulator(guard=RepetitionGuard())
    parts = [p for i in range(0, len(text), 8) for p in accumulator.feed(chunk(text[i : i + 8]))]
    turn = accumulator.finish()

    taken = [p for p in parts if isinstance(p, ReasoningDelta) and p.was_answer]
    assert [p.text for p in taken] == [thinking]  # what had streamed as the answer, said once
    assert turn.reasoning == thinking and turn.degeneration is None
    assert turn.content == f"Let me look at the tree first, it has a src folder.\n{REPORT}"


def chunk(content: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}]}


# -- end to end over real SSE -----------------------------------------------------------------------


async def run_with(emulator: GitHubEmulator, tmp_path: Path, report_turn: Turn) -> Run:
    turns = [Turn.calls(("get_repo_info", W), ("get_file_tree", W)), report_turn]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server), "What is this project?")
        server.assert_exhausted()
    return run


def streamed(run: Run, kind: type[ev.TextDelta] | type[ev.ReasoningDelta]) -> str:
    return "".join(e.text for e in run.events if isinstance(e, kind))


async def test_inline_thinking_that_repeats_is_reasoning_and_the_report_is_not_cut(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    run = await run_with(emulator, tmp_path, Turn.final(f"<think>\n{THINKING}</think>\n\n{REPORT}"))

    finished = run.finished
    assert finished.writer == "model"
    assert finished.report.startswith("# acme/widgets")
    assert "README and the manifest" not in finished.report and "think>" not in finished.report
    assert "README and the manifest" not in streamed(run, ev.TextDelta)  # never streamed as the report
    assert streamed(run, ev.ReasoningDelta).count("README and the manifest") == 12  # shown as thinking
    assert not any("repeating" in r for r in finished.degraded_reasons)
    assert run.of(ev.TurnFinished)[-1].finish_reason == "stop"


async def test_reasoning_content_that_repeats_never_cuts_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    run = await run_with(emulator, tmp_path, Turn(reasoning=THINKING, content=REPORT))

    assert run.finished.writer == "model"
    assert run.finished.report == REPORT.strip()
    assert streamed(run, ev.ReasoningDelta) == THINKING
    assert not any("repeating" in r for r in run.finished.degraded_reasons)


async def test_thinking_closed_by_a_late_tag_is_taken_back_from_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    # DeepSeek-R1's template opens the <think> in the prompt: the reply only closes it.
    thinking = "Okay, the user wants an overview of acme/widgets. The tree shows one module and tests.\n"
    run = await run_with(emulator, tmp_path, Turn.final(f"{thinking}</think>\n\n{REPORT}"))

    assert run.finished.writer == "model"
    assert run.finished.report == REPORT.strip()
    assert "the user wants" in streamed(run, ev.ReasoningDelta)


async def test_a_looping_answer_after_thinking_is_still_cut_where_the_answer_loops(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    loop = "- **Flask-StaticFiles-URL-Static**: A tool for generating URLs for static files.\n"
    run = await run_with(emulator, tmp_path, Turn.final(f"<think>{THINKING}</think>{REPORT}{loop * 20}"))

    report = run.finished.report
    assert report.count("A tool for generating URLs") == 1
    line = REPORT.count("\n") + 2  # the answer's own lines: the thinking is not counted
    assert any(f"line {line}" in r for r in run.finished.degraded_reasons)


# -- thinking is progress ---------------------------------------------------------------------------


def sse(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    data = json.dumps({**body, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    event = f"data: {data}\n\n".encode()
    return f"{len(event):x}\r\n".encode() + event + b"\r\n"


async def stream_paced(deltas: list[dict[str, Any]], gap: float, stall: float) -> tuple[str, str, float]:
    """(reasoning, answer, virtual seconds) of one turn whose deltas come ``gap`` seconds apart."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")
        )
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        for delta in deltas:
            await asyncio.sleep(gap)
            writer.write(sse(delta))
            await writer.drain()
        done = b"data: [DONE]\n\n"
        writer.write(sse({}, "stop") + f"{len(done):x}\r\n".encode() + done + b"\r\n0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = make_openai_client(
        base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=0, timeout=1e5
    )
    started = asyncio.get_running_loop().time()
    try:
        model = OpenAIChatModel(client, model="m", turn_timeout=stall, max_tokens=64)
        parts = [p async for p in model.stream_turn([{"role": "user", "content": "hi"}], tools=None)]
    finally:
        await client.close()
        server.close()
    turn = next(p.turn for p in parts if isinstance(p, TurnComplete))
    assert "".join(p.text for p in parts if isinstance(p, ReasoningDelta)) == turn.reasoning
    return turn.reasoning, turn.content, asyncio.get_running_loop().time() - started


@pytest.mark.parametrize("inline", [False, True], ids=["reasoning_content", "think_tags"])
def test_ten_minutes_of_thinking_at_a_token_every_50s_never_trips_a_60s_stall_deadline(inline: bool) -> None:
    thoughts = [f"step {i}. " for i in range(12)]
    if inline:
        deltas = [{"content": "<think>"}, *({"content": t} for t in thoughts), {"content": "</think>Answer."}]
    else:
        deltas = [*({"reasoning_content": t} for t in thoughts), {"content": "Answer."}]

    reasoning, answer, took = run_in_virtual_time(stream_paced(deltas, gap=50.0, stall=60.0))

    assert reasoning == "".join(thoughts)
    assert answer == "Answer."
    assert took >= 600
