"""The hand-written ReAct loop: a model proposes tool calls, the toolbox runs them, until it answers.

::

    repeat (turn = 1, 2, ...):                          until the model answers without tools
        turn_started -> reasoning_delta* / text_delta* -> turn_finished        (ModelDriver.turn)
        tool_call_started* -> [tool_retry | breaker_changed | rate_limit]* -> tool_call_finished*
                                  (all calls of the turn at once; one at a time when configured)
    on a limit (turns, tool calls, tokens, wall time): one report turn without tools;
    if the model is unreachable: the deterministic writer, from the observations gathered so far
    (when none were gathered yet, the offline planner gathers them first)
    run_finished(report, degraded, stats)

Native tool calling reads the model's ``tool_calls``; the text protocol parses ``Action:`` /
``Action Input:`` / ``Final:`` from the model's text (:func:`agent_core.llm.parse_react`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from agent_core import events as ev
from agent_core.agent.endings import failed, finish, gathered_anything, written_report
from agent_core.agent.flow import Result, events_only
from agent_core.agent.model_turn import ModelDriver, TurnOutcome
from agent_core.agent.parallel import PendingCall
from agent_core.agent.planner_run import planner_turns
from agent_core.agent.prompts import report_request
from agent_core.agent.run import Run
from agent_core.llm import ModelTurn, ReactFormatError, format_observation, parse_react


async def model_run(run: Run, driver: ModelDriver) -> AsyncIterator[ev.Event]:
    report: str | None = None
    stop_reason: str | None = None
    while report is None:
        stop_reason = run.limit_reached()
        if stop_reason is not None:
            break
        outcome = TurnOutcome(turn=None, error=None)
        async for item in driver.turn(run, tools=not driver.text_mode):
            if isinstance(item, Result):
                outcome = item.value
            else:
                yield item
        if outcome.error is not None or outcome.turn is None:
            break
        step = _react_step if driver.text_mode else _native_step
        report, calls = step(run, outcome.turn)
        if calls:
            async for event in events_only(
                run.tool_turn(calls, feed="text" if driver.text_mode else "native")
            ):
                yield event
    if report is None:
        async for event in _finish_without_answer(run, driver, stop_reason):
            yield event
        return
    async for event in finish(run, report, writer="model", cost_usd=driver.cost(run)):
        yield event


def _native_step(run: Run, turn: ModelTurn) -> tuple[str | None, list[PendingCall]]:
    conversation = run.parts.conversation
    if not turn.tool_calls:
        report = turn.content.strip() or None
        if report is not None:
            conversation.add({"role": "assistant", "content": turn.content})
        return report, []
    message: dict[str, Any] = {
        "role": "assistant",
        "content": turn.content or None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in turn.tool_calls
        ],
    }
    if turn.reasoning:
        # DeepSeek thinking mode: an assistant message that carried tool calls must keep its
        # reasoning_content in every later request, or the API answers 400.
        message["reasoning_content"] = turn.reasoning
    conversation.add(message)
    return None, [PendingCall(call_id=c.id, tool=c.name, arguments=c.arguments) for c in turn.tool_calls]


def _react_step(run: Run, turn: ModelTurn) -> tuple[str | None, list[PendingCall]]:
    conversation = run.parts.conversation
    conversation.add({"role": "assistant", "content": turn.content})
    try:
        step = parse_react(turn.content)
    except ReactFormatError as exc:
        conversation.add({"role": "user", "content": format_observation("format", exc.message)})
        return None, []
    if step.final is not None:
        return step.final.strip() or None, []
    if step.action is None:
        return None, []
    return None, [
        PendingCall(call_id=f"react-{run.turn}", tool=step.action, arguments=step.action_input or {})
    ]


async def _finish_without_answer(
    run: Run, driver: ModelDriver, stop_reason: str | None
) -> AsyncIterator[ev.Event]:
    """A limit stopped exploration, or the model failed: ask once without tools, else write it ourselves."""
    if stop_reason is not None and driver.available(run):
        yield ev.Notice(
            t=run.t(),
            level="warning",
            message=f"Stopping exploration: {stop_reason}. Asking the model for the report.",
        )
        run.parts.conversation.add({"role": "user", "content": report_request(run.language, stop_reason)})
        outcome = TurnOutcome(turn=None, error=None)
        async for item in driver.turn(run, tools=False):
            if isinstance(item, Result):
                outcome = item.value
            else:
                yield item
        if outcome.turn is not None and outcome.turn.content.strip():
            content = outcome.turn.content
            if driver.text_mode:
                with contextlib.suppress(ReactFormatError):
                    content = parse_react(content).final or content
            run.parts.conversation.add({"role": "assistant", "content": outcome.turn.content})
            async for event in finish(run, content.strip(), writer="model", cost_usd=driver.cost(run)):
                yield event
            return
    if stop_reason is None and not gathered_anything(run):
        # The model failed before anything was gathered: GitHub may be fine, so gather without it.
        yield ev.Notice(
            t=run.t(),
            level="warning",
            message="The model could not be reached; the offline planner gathers the data instead.",
        )
        async for event in planner_turns(run):
            yield event
    if not gathered_anything(run):
        yield failed(run)
        return
    reason = stop_reason or "the model could not be reached"
    gathered = sum(r.ok for r in run.parts.toolbox.results)
    note = f"This report was written without the model ({reason}), from the {gathered} observations gathered so far."
    report = written_report(run, note)
    run.state.degraded.append(f"report written by the deterministic writer: {reason}")
    async for event in finish(run, report, writer="fallback", cost_usd=driver.cost(run)):
        yield event
