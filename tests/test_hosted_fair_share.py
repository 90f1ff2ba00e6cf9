"""Issue 35, principle 2: every analysis has a CPU budget and a fair share of the worker threads.

The pool (:class:`agent_core.offload.FairPool`) is driven with steps that block on events, so which step
a free worker takes next is observed, never timed; the CPU budget is a real run of the offline planner
over the GitHub emulator with a budget its first steps spend.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.agent.accounting import RunLimits, cpu_limit_reached
from agent_core.offload import CpuAccount, FairPool, charged_to, off_loop
from agent_core.words import say, t
from testing.analysis import analysis, make_settings
from testing.emulator.github import GitHubEmulator


async def _submit(pool: FairPool, account: CpuAccount, step: Any) -> asyncio.Future[Any]:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    pool.submit(account, (step, future, loop))
    return future


def _held(name: str, gate: threading.Event, started: list[str], ready: threading.Semaphore) -> Any:
    def step() -> str:
        started.append(name)
        ready.release()
        gate.wait(timeout=30)
        return name

    return step


async def test_a_second_analysis_waits_for_the_running_steps_not_for_the_first_ones_queue() -> None:
    pool = FairPool(workers=2)
    hostile, ordinary = CpuAccount(), CpuAccount()
    gates = [threading.Event() for _ in range(12)]
    started: list[str] = []
    ready = threading.Semaphore(0)
    futures = [await _submit(pool, hostile, _held(f"h{i}", gates[i], started, ready)) for i in range(10)]
    for _ in range(2):  # both workers hold one of the hostile steps
        await asyncio.to_thread(ready.acquire)
    assert started == ["h0", "h1"] and pool.waiting() == 8
    futures.append(await _submit(pool, ordinary, _held("o", gates[10], started, ready)))
    gates[0].set()  # one worker frees: it takes the ordinary analysis's step, not h2
    await asyncio.to_thread(ready.acquire)
    assert started == ["h0", "h1", "o"]
    for gate in gates:
        gate.set()
    assert await asyncio.gather(*futures) == [*(f"h{i}" for i in range(10)), "o"]
    assert hostile.steps == 10 and ordinary.steps == 1


async def test_steps_are_charged_their_threads_cpu_and_their_errors_reach_the_caller() -> None:
    account = CpuAccount(budget=0.02)

    def spin() -> float:
        start = time.thread_time()
        while time.thread_time() - start < 0.03:  # CPU, not a wall-clock wait
            pass
        return time.thread_time() - start

    def broken() -> None:
        raise ValueError("a step's own error")

    with charged_to(account):
        spun = await off_loop(spin)
        with pytest.raises(ValueError, match="a step's own error"):
            await off_loop(broken)
    assert account.spent >= spun >= 0.03 and account.steps == 2 and account.exhausted
    assert await off_loop(spin) >= 0.03  # outside the block: charged to nobody
    assert account.steps == 2


async def test_an_analysis_over_its_cpu_budget_stops_exploring_says_why_and_still_reports(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    async with analysis(make_settings(emulator, tmp_path)) as run:
        parts = run.opened.analysis.parts
        run.opened.analysis.parts = replace(parts, limits=replace(parts.limits, max_cpu_seconds=1e-9))
        events = await run.ask("")
    notices = [e for e in events if isinstance(e, ev.Notice) and "CPU budget" in e.message]
    assert [e.message for e in notices] == [
        "Stopping exploration: the CPU budget (0 CPU-s of repository processing) was spent. "
        "The report is written from what was gathered."
    ]
    chinese = say(notices[0].said, "zh")  # the page says it in the visitor's language
    assert chinese == t("notice_cpu_budget", "zh", seconds=0) != notices[0].message
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished) and "acme/widgets" in finished.report
    turns = [e for e in events if isinstance(e, ev.TurnStarted) and e.purpose != "report"]
    assert len(turns) == 1  # the planner's first turn spent the budget; the full plan takes several


def test_the_cpu_limit_is_named_only_once_spent() -> None:
    limits = RunLimits(
        max_turns=5, max_tool_calls=5, max_total_tokens=1, max_wall_seconds=60, observation_max_chars=100
    )
    assert cpu_limit_reached(limits, limits.max_cpu_seconds - 0.001) is None
    assert "CPU budget" in (cpu_limit_reached(limits, limits.max_cpu_seconds) or "")


async def test_a_step_whose_caller_stopped_waiting_is_dropped_before_it_runs() -> None:
    pool = FairPool(workers=1)
    account = CpuAccount()
    gate, ready = threading.Event(), threading.Semaphore(0)
    started: list[str] = []
    held = await _submit(pool, account, _held("held", gate, started, ready))
    await asyncio.to_thread(ready.acquire)
    dropped = await _submit(pool, account, _held("dropped", threading.Event(), started, ready))
    dropped.cancel()  # the run was stopped while its step waited
    after = await _submit(pool, account, _held("after", gate, started, ready))
    gate.set()
    assert await held == "held" and await after == "after"
    assert started == ["held", "after"] and account.steps == 2
