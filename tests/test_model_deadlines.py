"""A slow local model's report is never replaced by the fallback writer: not past the turn deadline (it
measures stalls, not work), and not past the run deadline (the partial report is kept and completed).

The model is the scripted server (real SSE over a socket) with the llama.cpp preset's deadlines; every
pause between two chunks is held until the test, having seen the run read the chunk before, moves the
clock and the event loop's time forward by ``GAP`` seconds (:class:`testing.clock.SkippingLoop`) and
releases it. Half an hour of model time passes at once, and nothing waits on the wall clock.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_core import events as ev
from agent_core.agent.turn_words import completed_note, partial_reason
from agent_core.llm import LOCAL_TURN_SECONDS, estimate_tokens, resolve_model_config
from agent_core.llm.providers import LOCAL_WALL_SECONDS
from testing.analysis import Run, analysis, make_settings
from testing.clock import HeldWaits, SkippingClock, SkippingLoop
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn

W = {"owner": "acme", "repo": "widgets"}
GAP = 50.0  # seconds between two chunks: slow, never a stall (the preset waits 600 s for progress)
PIECE = 24  # characters a chunk
REPORT = (
    "# acme/widgets\n\n## Overview\nA small command-line word counter written in Python; it reads text "
    "from files or standard input and prints how many words, lines and characters it holds, like wc.\n\n"
    "## Architecture\n" + "The counter reads its input line by line. " * 30
)


def written(events: list[ev.Event]) -> int:
    """Characters the run has read of the model's writing (its thinking too)."""
    return sum(len(e.text) for e in events if isinstance(e, ev.TextDelta | ev.ReasoningDelta))


async def slow_run(emulator: GitHubEmulator, tmp_path: Path, clock: SkippingClock, text: str = REPORT) -> Run:
    """One analysis with the llama.cpp preset whose last turn (``text``) comes a chunk every ``GAP`` s."""
    held = HeldWaits()
    turns = [Turn.calls(("get_repo_info", W)), Turn.final(text, chunk_size=PIECE, delay_per_chunk=GAP)]
    with ScriptedModelServer(turns, waits=held) as server:
        settings = make_settings(emulator, tmp_path, server)  # no time limit set: the preset's
        async with analysis(
            settings, clock=clock, provider="llamacpp", turn_timeout=LOCAL_TURN_SECONDS
        ) as harness:
            seen: list[ev.Event] = []

            async def consume() -> None:
                async for event in harness.opened.analysis.run("What is this project?"):
                    seen.append(event)

            task = asyncio.create_task(consume())
            released = 0
            while not task.done():
                # The server holds its next pause only after writing the chunk before it; wait for that,
                # and for the run to have read every chunk sent, then let GAP seconds pass and go on.
                # (a "<think>" tag is not text, and a possible tag's start is held back: up to 16 characters)
                if len(held.requested) <= released or written(seen) < min(released * PIECE, len(text)) - 16:
                    await asyncio.sleep(0.005)
                    continue
                clock.skip(GAP)
                held.release(1)
                released += 1
            held.open()
            await task
            harness.events.extend(seen)
    return harness


def test_a_slow_model_writes_past_the_turn_deadline_and_its_partial_report_is_kept_at_the_run_deadline(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    assert resolve_model_config(
        provider="llamacpp", base_url=None, model=None, api_key=None
    ).wall_seconds == (LOCAL_WALL_SECONDS)
    clock = SkippingClock()
    with asyncio.Runner(loop_factory=lambda: SkippingLoop(clock)) as runner:
        run = runner.run(slow_run(emulator, tmp_path, clock))

    report_turn = run.of(ev.TurnFinished)[-1]
    assert report_turn.duration_s > LOCAL_TURN_SECONDS  # writing for longer than any one wait may last
    finished = run.finished
    assert finished.writer == "model"  # never the fallback writer's
    kept = len(REPORT) * (LOCAL_WALL_SECONDS / (GAP * len(REPORT) / PIECE))  # what came before the limit
    assert finished.report.startswith(REPORT[: int(kept) - 3 * PIECE])
    assert completed_note("en") in finished.report  # completed by the writer's missing sections
    assert partial_reason("en") in finished.degraded_reasons
    assert not any("deterministic writer" in r or "timed out" in r for r in finished.degraded_reasons)
    assert [n.message for n in run.of(ev.Notice) if n.level == "warning"] == [
        "The run's time limit stopped the model mid-report; its partial report is kept."
    ]
    assert run.of(ev.ClaimsChecked)
    # The cut turn sent no usage chunk: its tokens are the prompt it was sent and what it wrote, not 0+0.
    stats = finished.stats
    assert stats.prompt_tokens > 0
    assert stats.completion_tokens >= estimate_tokens("".join(e.text for e in run.of(ev.TextDelta)))


def test_a_model_still_thinking_at_the_run_deadline_has_no_report_to_keep_and_its_thinking_is_not_one(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    thinking = "".join(
        f"Step {i}: the tree has a src folder; I should read module {i} next. " for i in range(40)
    )
    clock = SkippingClock()
    with asyncio.Runner(loop_factory=lambda: SkippingLoop(clock)) as runner:
        run = runner.run(slow_run(emulator, tmp_path, clock, f"<think>{thinking}</think>{REPORT}"))

    finished = run.finished
    assert finished.writer == "fallback"  # no report had begun: the deterministic writer's, from the facts
    assert "I should read module" not in finished.report
    assert "I should read module" not in "".join(e.text for e in run.of(ev.TextDelta))
    assert "Step 3: the tree" in "".join(e.text for e in run.of(ev.ReasoningDelta))  # shown as thinking
    assert any("time limit" in r for r in finished.degraded_reasons)
