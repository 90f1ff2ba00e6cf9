"""Never silent: a turn that hears nothing from its server for 10 s says so in the trace, on its own.

llama.cpp reports prompt progress once per 2,048-token batch (a minute apart for a small model on two
cores) and nothing while a tool call is written. :func:`agent_core.agent.progress.paced` marks each
10 s without a part; the turn answers with a ``turn_progress`` estimated from the speed measured or the
preset's (40 tokens/s for llama.cpp). Time is the run's clock and the event loop's together
(:class:`testing.clock.SkippingLoop`): the test moves both by 10 s at a time while the scripted server holds
its answer, so no test waits on the wall clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from agent_core import events as ev
from agent_core.agent.progress import HEARTBEAT_S, QUIET, paced
from agent_core.grammar import check_grammar
from agent_core.llm import LOCAL_TURN_SECONDS
from agent_core.report.reading import prompt_progress
from testing.analysis import Run, analysis, make_settings
from testing.clock import HeldWaits, SkippingClock, SkippingLoop, run_in_virtual_time
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn

W = {"owner": "acme", "repo": "widgets"}
REPORT = "# acme/widgets\n\n## Overview\nA small command-line word counter written in Python.\n"
BEATS = 3


async def until(condition: Callable[[], bool], task: asyncio.Task[None]) -> None:
    """Wait for what the run has said (a condition, not a time); at most a minute of polling: a bound
    for a broken test, never reached by a passing one."""
    for _ in range(12_000):
        if condition() or task.done():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the run never said it")


def said_at_least(seen: list[ev.Event], count: int) -> Callable[[], bool]:
    return lambda: sum(isinstance(e, ev.TurnProgress) for e in seen) >= count


async def parts(gaps: list[float]) -> AsyncIterator[str]:
    for i, gap in enumerate(gaps):
        await asyncio.sleep(gap)
        yield f"part {i}"


def test_paced_marks_each_quiet_stretch_and_passes_every_part_on() -> None:
    async def seen() -> list[object]:
        return [item async for item in paced(parts([25.0, 1.0, 9.0, 31.0]))]

    got = run_in_virtual_time(seen())
    assert got == [QUIET, QUIET, "part 0", "part 1", "part 2", QUIET, QUIET, QUIET, "part 3"]


def test_closing_paced_while_it_waits_cancels_the_read_under_way() -> None:
    cancelled: list[bool] = []

    async def slow() -> AsyncIterator[str]:
        try:
            await asyncio.sleep(3600)
            yield "never"
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def first_quiet() -> object:
        stream = paced(slow())
        item = await anext(stream)
        await stream.aclose()
        return item

    assert run_in_virtual_time(first_quiet()) is QUIET
    assert cancelled == [True]


async def held_turn(emulator: GitHubEmulator, tmp_path: Path, clock: SkippingClock) -> Run:
    """One analysis with the llama.cpp preset whose first turn the server holds before answering, while
    the test moves time on by :data:`HEARTBEAT_S` ``BEATS`` times, each once the run has said so."""
    held = HeldWaits()
    turns = [Turn.calls(("get_repo_info", W), latency=1.0), Turn.final(REPORT)]
    with ScriptedModelServer(turns, waits=held) as server:
        settings = make_settings(emulator, tmp_path, server)
        async with analysis(
            settings, clock=clock, provider="llamacpp", turn_timeout=LOCAL_TURN_SECONDS
        ) as harness:
            seen: list[ev.Event] = []

            async def consume() -> None:
                async for event in harness.opened.analysis.run("What is this project?"):
                    seen.append(event)

            task = asyncio.create_task(consume())
            assert await asyncio.to_thread(held.wait_held, 1)  # the request is at the server
            for beat in range(1, BEATS + 1):
                clock.skip(HEARTBEAT_S)
                await until(said_at_least(seen, beat), task)
            held.open()
            await task
            harness.events.extend(seen)
    return harness


def test_a_silent_server_gets_a_progress_event_every_10_seconds_on_the_page_and_the_cli(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    clock = SkippingClock()
    with asyncio.Runner(loop_factory=lambda: SkippingLoop(clock)) as runner:
        run = runner.run(held_turn(emulator, tmp_path, clock))

    check_grammar(run.events)
    assert run.finished.writer == "model"
    beats = run.of(ev.TurnProgress)
    assert len(beats) == BEATS
    quiet = next(e for e in run.of(ev.TurnFinished) if e.turn == beats[0].turn)
    assert quiet.first_token_s is not None and quiet.first_token_s >= BEATS * HEARTBEAT_S
    for n, beat in enumerate(beats, 1):
        assert beat.turn == quiet.turn
        assert beat.estimated and not beat.writing
        assert beat.tokens_per_s == 40.0  # the llama.cpp preset's speed: nothing measured yet
        assert beat.elapsed_s is not None and n * HEARTBEAT_S <= beat.elapsed_s < n * HEARTBEAT_S + 5
        # read by now at 40 tokens/s (``elapsed_s`` is rounded to a tenth), never past the whole prompt
        assert beat.done == beat.total or abs(beat.done - 40.0 * beat.elapsed_s) <= 3
    assert 0 < beats[0].done < beats[1].done <= beats[2].done <= beats[2].total
    said = prompt_progress(beats[0], "en", prefix="turn_")
    assert said.startswith(f"reading the brief: about {beats[0].done:,} / {beats[0].total:,} tokens")
    assert "estimated" in said and "10 s so far" in said
    assert "10 s so far" in prompt_progress(beats[0], "en", prefix="cli_")
    assert "已用 10 秒" in prompt_progress(beats[0], "zh", prefix="turn_")


async def between_batches(emulator: GitHubEmulator, tmp_path: Path, clock: SkippingClock) -> Run:
    """A turn whose server says it read 2,048 of 3,000 prompt tokens in 51.2 s (40 tokens/s), then
    nothing while the test moves time on by :data:`HEARTBEAT_S` once."""
    held = HeldWaits()
    progress = ((0, 3000, 0), (2048, 3000, 51_200))
    turns = [
        Turn.calls(("get_repo_info", W), prompt_progress=progress, delay_per_chunk=1.0),
        Turn.final(REPORT),
    ]
    with ScriptedModelServer(turns, waits=held) as server:
        settings = make_settings(emulator, tmp_path, server)
        async with analysis(settings, clock=clock, turn_timeout=LOCAL_TURN_SECONDS) as harness:
            seen: list[ev.Event] = []

            async def consume() -> None:
                async for event in harness.opened.analysis.run("What is this project?"):
                    seen.append(event)

            def said() -> list[ev.TurnProgress]:
                return [e for e in seen if isinstance(e, ev.TurnProgress)]

            task = asyncio.create_task(consume())
            assert await asyncio.to_thread(held.wait_held, 1)  # the first count is out, the second held
            held.release(1)
            await until(lambda: len(said()) >= 2, task)  # the server's own two counts
            assert await asyncio.to_thread(held.wait_held, 1)  # the rest of the answer is held
            clock.skip(HEARTBEAT_S)
            await until(lambda: len(said()) >= 3, task)
            held.open()
            await task
            harness.events.extend(seen)
    return harness


def test_between_the_server_s_counts_the_estimate_goes_on_from_its_last_count_at_its_rate(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    clock = SkippingClock()
    with asyncio.Runner(loop_factory=lambda: SkippingLoop(clock)) as runner:
        run = runner.run(between_batches(emulator, tmp_path, clock))

    check_grammar(run.events)
    first, second, beat = run.of(ev.TurnProgress)[:3]
    assert (first.done, second.done, second.tokens_per_s, second.estimated) == (0, 2048, 40.0, False)
    assert beat.estimated and not beat.writing and beat.total == 3000 and beat.tokens_per_s == 40.0
    # 10 s on from the server's 2,048 at 40 tokens/s (the clock moves a little between the readings)
    assert 2048 + 400 <= beat.done <= 2048 + 400 + 40
    assert beat.elapsed_s is not None and beat.elapsed_s >= HEARTBEAT_S


def test_a_quiet_writer_past_its_first_token_is_said_to_be_writing() -> None:
    beat = ev.TurnProgress(t=1, turn=2, done=900, total=900, elapsed_s=40.0, estimated=True, writing=True)
    assert (
        prompt_progress(beat, "en", prefix="turn_")
        == "writing what is shown when done (a tool call): 40 s so far"
    )
    assert (
        prompt_progress(beat, "en", prefix="cli_")
        == "writing what is shown when done (a tool call): 40 s so far"
    )
