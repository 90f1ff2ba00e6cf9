"""One run of an analysis (the first question or a follow-up): its parts, its counters, and the steps
every kind of run shares — a turn of tool calls, the guardrails, the stats.

:class:`Parts` are what an :class:`~agent_core.agent.analysis.Analysis` owns for its whole life (the
conversation, the toolbox, the sink...); a :class:`Run` adds what belongs to one question. The model's
loop (:mod:`~agent_core.agent.model_run`), the offline planner's (:mod:`~agent_core.agent.planner_run`)
and the endings (:mod:`~agent_core.agent.endings`) all work on a ``Run``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, TypeVar

from agent_core import events as ev
from agent_core.agent.accounting import (
    Added,
    RunLimits,
    RunState,
    cpu_limit_reached,
    data_problems,
    limit_reached,
    run_stats,
)
from agent_core.agent.context import COMPACTED_MARK, Conversation
from agent_core.agent.flow import Flow, Result, Step, relay
from agent_core.agent.parallel import run_one_by_one, run_parallel
from agent_core.agent.planner import call_key
from agent_core.agent.sink import EventSink
from agent_core.clock import Clock
from agent_core.llm import format_observation
from agent_core.llm.prices import CostRange
from agent_core.offload import CpuAccount
from agent_core.repo import RepoRef, RunScope
from agent_core.resilience import BreakerBoard
from agent_core.sources.models import FileTree
from agent_core.tool_call import ToolCallRequest
from agent_core.tools.executor import Toolbox
from agent_core.tools.observe import cut_for_model
from agent_core.tools.results import ToolResult
from agent_core.words import Language, said, say, words_for

T = TypeVar("T")

Feed = Literal["native", "text", "none"]
"""How tool results go back to the model: as ``tool`` messages, as text observations, or not at all
(the offline planner has no model to feed)."""


@dataclass(frozen=True, kw_only=True)
class Parts:
    """What an analysis owns for its whole life, shared by each of its runs."""

    scope: tuple[RepoRef, ...]
    toolbox: Toolbox
    breakers: BreakerBoard
    clock: Clock
    sink: EventSink
    conversation: Conversation
    limits: RunLimits
    parallel_tool_calls: bool
    diagram_from_model: bool | None = False  # the model proposes its report's diagram; None: unless local
    scopes: tuple[RunScope, ...] = ()  # the folders or files /tree/ and /blob/ URLs pointed at


class Run:
    """One question's run: the parts, the question, its language and its counters."""

    def __init__(
        self,
        parts: Parts,
        *,
        question: str,
        language: Language,
        earlier: tuple[ToolResult, ...] = (),
    ) -> None:
        self.parts = parts
        self.question = question
        self.language: Language = language
        self.follow_up = bool(parts.conversation.messages)  # an earlier question opened the conversation
        self.state = RunState(
            started=parts.clock.monotonic(), turn_base=parts.conversation.turns, earlier=earlier
        )
        self.cpu = CpuAccount(parts.limits.max_cpu_seconds)  # its steps' share of the worker threads

    # -- the fold -------------------------------------------------------------------------------------

    async def through(self, flow: Flow) -> AsyncIterator[ev.Event]:
        """The run's one fold: each value a step added becomes the run's next (frozen) state; the events
        pass on. Async generators run on demand, so a step that yields an addition resumes with the
        state already folded."""
        async for item in flow:
            if isinstance(item, Added):
                self.state = self.state.add(item)
            else:
                yield item

    async def step_through(self, step: Step[T]) -> AsyncIterator[ev.Event | Result[T]]:
        """:meth:`through` for a step whose result the caller keeps."""
        async for item in step:
            if isinstance(item, Added):
                self.state = self.state.add(item)
            else:
                yield item

    # -- shortcuts ----------------------------------------------------------------------------------

    def t(self) -> float:
        return self.parts.sink.t()

    def next_turn(self) -> int:
        return self.parts.conversation.next_turn()

    @property
    def turn(self) -> int:
        """The number of the latest turn (of this conversation)."""
        return self.parts.conversation.turns

    # -- bookkeeping --------------------------------------------------------------------------------

    def results(self) -> tuple[ToolResult, ...]:
        """The tool results of this run (a follow-up does not see the earlier run's as its own)."""
        return self.state.results

    def today(self) -> datetime:
        """The run's moment on the wall clock (UTC): what "not maintained" is judged against."""
        return datetime.fromtimestamp(self.parts.clock.wall(), UTC)

    def data_problems(self) -> list[str]:
        return data_problems(self.results())

    def limit_reached(self) -> str | None:
        return limit_reached(
            self.parts.limits,
            turns=self.turn - self.state.turn_base - self.state.free_turns,
            tool_calls=len(self.results()),
            tokens=self.state.prompt_tokens + self.state.completion_tokens,
            elapsed=self.parts.clock.monotonic() - self.state.started,
            cpu=self.cpu.spent,
        )

    def time_limit_reached(self) -> str | None:
        """The time and CPU limits alone (the fallback's gathering may exceed the others, never these)."""
        limits = self.parts.limits
        if self.parts.clock.monotonic() - self.state.started >= limits.max_wall_seconds:
            return f"the time limit ({limits.max_wall_seconds:.0f}s) was reached"
        return cpu_limit_reached(limits, self.cpu.spent)

    def stats(self, cost: CostRange | None) -> ev.RunStats:
        return run_stats(
            self.state,
            self.results(),
            turns=self.turn - self.state.turn_base,
            elapsed=self.parts.clock.monotonic() - self.state.started,
            cost=cost,
            rate_limit=self.parts.sink.rate_limit,
        )

    # -- a turn of tool calls -------------------------------------------------------------------------

    def calls_left(self) -> int:
        """Tool calls this run may still make."""
        return max(0, self.parts.limits.max_tool_calls - len(self.results()))

    async def tool_turn(
        self,
        calls: Sequence[ToolCallRequest],
        *,
        feed: Feed,
        dropped: int = 0,
        allowance: int = 0,
        observation_chars: int | None = None,
    ) -> Step[list[ToolResult]]:
        """Run the calls of a turn (concurrently unless configured otherwise), streaming their events;
        the observations go back into the conversation in call order. The result: the calls' results
        (calls over the tool-call limit are skipped, and told so ONCE: one observation and one notice
        however many were asked, ``dropped`` of them already left out of the conversation by the reply's
        reader, :func:`agent_core.agent.replies.native_step`). ``allowance``: calls the app makes beyond
        the model's limit (the claim check's reads, :mod:`~agent_core.agent.check_reads`).
        ``observation_chars``: what each observation may hold for the model when less than the run's
        setting (a local model's share of its time, :meth:`~agent_core.agent.pace.Pace.read_tokens`)."""
        parts = self.parts
        budget = self.calls_left() + allowance
        runnable, skipped = list(calls[:budget]), list(calls[budget:])
        run_calls = run_parallel if parts.parallel_tool_calls else run_one_by_one
        ran = relay(run_calls(parts.toolbox, parts.sink, runnable, turn=self.turn), otherwise=[])
        async for item in ran:
            yield item
        results: list[ToolResult] = ran.value
        for call, result in zip(runnable, results, strict=True):
            self._observe(call, self._for_model(result, feed, results, observation_chars), feed)
        if skipped:  # one observation for all of them (the reply's reader kept one call to carry it)
            not_run = len(skipped) + dropped
            refusal = {
                "ok": False,
                "error": f"skipped: the tool-call limit for this run was reached ({not_run:,} call(s) not run)",
            }
            self._observe(skipped[0], json.dumps(refusal), feed)
        for result in results:  # a cut tree: say what its top level cost and that counts are lower bounds
            if isinstance(result.value, FileTree) and result.value.top_level and not result.memo:
                message = words_for(self.language)(
                    "tree_cut_notice",
                    result.repo.full_name if result.repo else "?",
                    len(result.value.top_level),
                    result.value.recovered_requests,
                )
                yield ev.Notice(t=self.t(), level="info", message=message)
        if skipped:
            limit = said(
                "notice_tool_limit", limit=parts.limits.max_tool_calls, skipped=len(skipped) + dropped
            )
            yield ev.Notice(t=self.t(), level="warning", message=say(limit, "en"), said=(limit,))
        yield Added(results=tuple(results))
        yield Result(value=results)

    def _for_model(
        self, result: ToolResult, feed: Feed, turn: Sequence[ToolResult], chars: int | None = None
    ) -> str:
        """The observation as the model reads it: cut to size, or, for a repeat of a call whose result the
        model still has in its conversation, a short reference instead of the same text again."""
        if result.memo and feed == "native":
            shown = self._shown_earlier(result, turn)
            if shown is not None:
                return json.dumps(
                    {
                        "ok": result.ok,
                        "repeat": True,
                        "note": f"identical to tool call {shown} above; use that result",
                    }
                )
        limit = self.parts.limits.observation_max_chars
        return cut_for_model(result.observation, limit if chars is None else min(chars, limit))

    def _shown_earlier(self, repeat: ToolResult, turn: Sequence[ToolResult]) -> str | None:
        """The call id of the original of ``repeat`` when its result is still in the conversation, whole."""
        key = call_key(repeat.tool, repeat.arguments)
        original = next(
            (
                r
                for r in (*self.state.all_results, *turn)
                if not r.memo and call_key(r.tool, r.arguments) == key
            ),
            None,
        )
        if original is None:
            return None
        for message in self.parts.conversation.messages:
            if message.get("role") == "tool" and message.get("tool_call_id") == original.call_id:
                return None if COMPACTED_MARK in str(message.get("content", "")) else original.call_id
        return None

    def _observe(self, call: ToolCallRequest, text: str, feed: Feed) -> None:
        conversation = self.parts.conversation
        if feed == "text":
            conversation.add({"role": "user", "content": format_observation(call.tool, text)})
        elif feed == "native":
            conversation.add({"role": "tool", "tool_call_id": call.call_id, "content": text})
