"""Running the tool calls of one turn, concurrently or one at a time, streaming their events.

Each call is a task; a ``tool_call_finished`` event is queued when it ends, in completion order, while
the results come back in call order (the order the model asked for them), as the stream's last item
(a :class:`~agent_core.agent.flow.Result`). One call's failure never
cancels its siblings (the executor never raises but on cancellation); cancelling the consumer cancels
and awaits every task, so no orphan work continues. :func:`run_one_by_one` is the same thing with one
call at a time (``PARALLEL_TOOL_CALLS=false``: the benchmark's baseline, or an API that dislikes bursts).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_core import events as ev
from agent_core.agent.flow import Result, Step, relay
from agent_core.agent.sink import EventSink
from agent_core.llm.scan import loads
from agent_core.offload import off_loop
from agent_core.repomodel import model_of, tree_summary
from agent_core.sources.models import FileTree
from agent_core.tool_call import ToolCallRequest
from agent_core.tools.executor import Toolbox
from agent_core.tools.results import ToolResult, shape_of

PREVIEW_CHARS = 4000


async def run_parallel(
    toolbox: Toolbox, sink: EventSink, calls: Sequence[ToolCallRequest], *, turn: int
) -> Step[list[ToolResult]]:
    """Yield started events, then every queued event until all calls finished, then the results."""
    for call in calls:
        yield ev.ToolCallStarted(
            t=sink.t(),
            call_id=call.call_id,
            tool=call.tool,
            arguments=display_args(call.arguments),
            turn=turn,
        )

    async def one(call: ToolCallRequest) -> ToolResult:
        result = await toolbox.execute(call.call_id, call.tool, call.arguments)
        # off the loop: a tree's event carries its repository model, built here first for a new tree;
        # stamped when it is queued, so that the trace's times stay in order whatever the thread took
        built = await off_loop(finished_event, 0.0, turn, result)
        sink.put(replace(built, t=sink.t()))
        return result

    tasks = [asyncio.create_task(one(call)) for call in calls]
    try:
        finished = 0
        while finished < len(tasks):
            event = await sink.get()
            finished += isinstance(event, ev.ToolCallFinished)
            yield event
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    yield Result(value=[task.result() for task in tasks])


async def run_one_by_one(
    toolbox: Toolbox, sink: EventSink, calls: Sequence[ToolCallRequest], *, turn: int
) -> Step[list[ToolResult]]:
    """Like :func:`run_parallel`, but each call starts only when the previous one has finished."""
    results: list[ToolResult] = []
    for call in calls:
        one = relay(run_parallel(toolbox, sink, [call], turn=turn), otherwise=[])
        async for item in one:
            yield item
        results.extend(one.value)
    yield Result(value=results)


def finished_event(t: float, turn: int, r: ToolResult) -> ev.ToolCallFinished:
    return ev.ToolCallFinished(
        t=t,
        call_id=r.call_id,
        tool=r.tool,
        turn=turn,
        ok=r.ok,
        preview=preview(r.observation),
        duration_s=round(r.duration_s, 4),
        http_requests=r.http_requests,
        attempts=r.attempts,
        from_cache=r.from_cache,
        memo=r.memo,
        stale=r.stale,
        stale_age_s=r.stale_age_s,
        degraded=r.degraded,
        error=r.error,
        cause=r.cause if not r.ok else None,
        tree=tree_summary(model_of(r.value)) if r.ok and isinstance(r.value, FileTree) else None,
        shape=shape_of(r.value) if r.ok else None,
    )


def preview(observation: Mapping[str, Any], limit: int = PREVIEW_CHARS) -> str:
    """The observation as indented JSON for display, cut with a note past ``limit`` characters."""
    text = json.dumps(observation, ensure_ascii=False, indent=1)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


def display_args(arguments: str | Mapping[str, Any]) -> dict[str, Any]:
    """Arguments as the model sent them, parsed for display (malformed JSON is shown raw)."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    try:
        data = loads(arguments or "{}")  # capped in length and nesting (llm/scan.py)
    except ValueError:
        return {"_raw": arguments[:200]}
    return data if isinstance(data, dict) else {"_raw": str(arguments)[:200]}
