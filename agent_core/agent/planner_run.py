"""A run without a model: the offline planner proposes each turn's calls, the deterministic writer the
report. The same tools, the same events as a model's run::

    run_started
    repeat: turn_started -> reasoning_delta (the planner's thought) -> turn_finished
            tool_call_started* -> [tool_retry | breaker_changed | rate_limit]* -> tool_call_finished*
    report turn (the written report streamed) -> run_finished      or run_failed: nothing gathered

:func:`planner_turns` is also the fallback's way to gather data when a model failed before anything
was gathered. The plan and the report are derived in a worker thread (:mod:`~agent_core.offload`).
"""

from __future__ import annotations

from dataclasses import replace

from agent_core import events as ev
from agent_core.agent.accounting import cpu_limit_reached
from agent_core.agent.endings import failed, finish, written_report
from agent_core.agent.flow import Flow, events_only
from agent_core.agent.planner import OfflinePlanner
from agent_core.agent.run import Run
from agent_core.llm.prices import NO_COST
from agent_core.offload import off_loop
from agent_core.words import said, say


async def planner_run(run: Run) -> Flow:
    async for event in planner_turns(run):
        yield event
    if not any(r.ok for r in run.results()) and not run.state.turn_base:
        yield failed(run)
        return
    report = await off_loop(written_report, run)
    async for event in finish(run, report, writer="planner", cost=NO_COST):
        yield event


async def planner_turns(run: Run, *, within_limits: bool = True) -> Flow:
    """The planner's turns, from the results so far, until it has nothing left or a limit stops it.

    ``within_limits=False`` (the fallback gathering after a model gathered nothing usable) ignores the
    limits a model's run may have spent (turns, tool calls, tokens), not the time limit: the planner's
    plan is short and finite, and a report needs its data."""
    planner = OfflinePlanner(run.parts.scope, question=run.question, run_start=len(run.state.earlier))
    clock = run.parts.clock
    while (run.limit_reached() if within_limits else run.time_limit_reached()) is None:
        step = await off_loop(planner.next_step, run.state.all_results)
        if step is None:
            break
        turn = run.next_turn()
        started = clock.monotonic()
        yield ev.TurnStarted(t=run.t(), turn=turn)
        yield ev.ReasoningDelta(t=run.t(), turn=turn, text=step.thought, said=step.said)
        yield ev.TurnFinished(
            t=run.t(),
            turn=turn,
            tool_calls=len(step.calls),
            finish_reason="tool_calls",
            duration_s=clock.monotonic() - started,
        )
        calls = [replace(c, call_id=f"plan-{turn}-{i}") for i, c in enumerate(step.calls, 1)]
        async for event in events_only(run.tool_turn(calls, feed="none")):
            yield event
    if cpu_limit_reached(run.parts.limits, run.cpu.spent) is not None:
        spent = said("notice_cpu_budget", seconds=run.parts.limits.max_cpu_seconds)
        yield ev.Notice(t=run.t(), level="warning", message=say(spent, "en"), said=(spent,))
