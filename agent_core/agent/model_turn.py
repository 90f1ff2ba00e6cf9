"""One streamed model turn, with everything around it: the context budget, the model's breaker, one
retry of a broken or empty stream, and the switch to the text protocol when the endpoint rejects tools.

:class:`ModelDriver` belongs to one analysis (its conversation, its protocol, its token accounting);
:meth:`ModelDriver.turn` is a step that streams ``turn_started -> reasoning_delta* / text_delta* ->
turn_finished`` and ends with a :class:`TurnOutcome` (a :class:`~agent_core.agent.flow.Result`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core import events as ev
from agent_core.agent.flow import Result, Step
from agent_core.agent.run import Run
from agent_core.errors import CircuitOpenError, LLMError
from agent_core.llm import (
    ChatModel,
    ContentDelta,
    IncompleteStreamError,
    ModelConfig,
    ModelTurn,
    ReasoningDelta,
    ToolsUnsupportedError,
    TurnComplete,
    estimate_cost,
    estimate_messages,
    render_tools_prompt,
)
from agent_core.resilience import Outcome

LLM_BREAKER = "llm"


@dataclass(frozen=True, kw_only=True)
class TurnOutcome:
    """What a model turn produced: the turn, or why there is none."""

    turn: ModelTurn | None
    error: LLMError | CircuitOpenError | None


class ModelDriver:
    """Streams model turns for one analysis (see the module docstring)."""

    def __init__(
        self,
        model: ChatModel,
        *,
        config: ModelConfig | None,
        tool_schemas: Sequence[Mapping[str, Any]],
        tool_protocol: str,
    ) -> None:
        self.model = model
        self.config = config
        self._schemas = list(tool_schemas)
        self.text_mode = tool_protocol == "text"
        self._auto_protocol = tool_protocol == "auto"
        self._sent = 0
        # (messages the API counted, its count minus our estimate of them): see estimate()
        self._anchor: tuple[int, int] | None = None

    def tools_prompt(self) -> str:
        """The text protocol's instructions, for the system prompt."""
        return render_tools_prompt(self._schemas)

    def cost(self, run: Run) -> float | None:
        if self.config is None:
            return None
        return estimate_cost(run.state.prompt_tokens, run.state.completion_tokens, self.config)

    def available(self, run: Run) -> bool:
        """Whether the model's breaker lets a call through now (or soon)."""
        return run.parts.breakers.get(LLM_BREAKER).snapshot().state != "open"

    async def turn(self, run: Run, *, tools: bool) -> Step[TurnOutcome]:
        """One streamed turn, retried once when the stream breaks off or comes back empty."""
        turn_no = run.next_turn()
        clock = run.parts.clock
        yield ev.TurnStarted(t=run.t(), turn=turn_no)
        started = clock.monotonic()
        outcome = TurnOutcome(turn=None, error=None)
        for attempt in (1, 2):
            async for item in self._stream_once(run, turn_no, tools=tools and not self.text_mode):
                if isinstance(item, Result):
                    outcome = item.value
                else:
                    yield item
            if (
                isinstance(outcome.error, ToolsUnsupportedError)
                and self._auto_protocol
                and not self.text_mode
            ):
                self._switch_to_text(run)
                yield ev.Notice(
                    t=run.t(),
                    level="warning",
                    message=(
                        "The model endpoint does not support native tool calling; switched to the text "
                        "ReAct protocol (Thought / Action / Action Input / Final)."
                    ),
                )
                async for item in self._stream_once(run, turn_no, tools=False):
                    if isinstance(item, Result):
                        outcome = item.value
                    else:
                        yield item
            turn = outcome.turn
            empty = turn is not None and not turn.content.strip() and not turn.tool_calls
            if (isinstance(outcome.error, IncompleteStreamError) or empty) and attempt == 1:
                yield ev.Notice(
                    t=run.t(),
                    level="warning",
                    message="The model's answer was empty or cut off; retrying the turn once.",
                )
                continue
            break
        async for event in run.parts.sink.drain():
            yield event
        turn = outcome.turn
        if turn is not None and turn.usage is not None:
            run.state.prompt_tokens += turn.usage.prompt_tokens
            run.state.completion_tokens += turn.usage.completion_tokens
            counted = estimate_messages(run.parts.conversation.messages[: self._sent])
            self._anchor = (self._sent, turn.usage.prompt_tokens - counted)
        if outcome.error is not None:
            run.state.degraded.append(f"model failed: {outcome.error}")
            yield ev.Notice(t=run.t(), level="warning", message=f"Model turn failed: {outcome.error}")
        yield ev.TurnFinished(
            t=run.t(),
            turn=turn_no,
            tool_calls=len(turn.tool_calls) if turn else 0,
            finish_reason=turn.finish_reason if turn else None,
            prompt_tokens=turn.usage.prompt_tokens if turn and turn.usage else None,
            completion_tokens=turn.usage.completion_tokens if turn and turn.usage else None,
            duration_s=clock.monotonic() - started,
        )
        yield Result(value=outcome)

    async def _stream_once(self, run: Run, turn_no: int, *, tools: bool) -> Step[TurnOutcome]:
        conversation = run.parts.conversation
        conversation.compact(budget=run.parts.limits.context_budget_tokens, estimate=self.estimate)
        self._sent = len(conversation.messages)
        breaker = run.parts.breakers.get(LLM_BREAKER)
        try:
            permit = breaker.acquire()
        except CircuitOpenError as exc:
            yield Result(value=TurnOutcome(turn=None, error=exc))
            return
        outcome, failure = Outcome.IGNORED, None
        turn: ModelTurn | None = None
        try:
            stream = self.model.stream_turn(conversation.messages, tools=self._schemas if tools else None)
            async for part in stream:
                if isinstance(part, ReasoningDelta):
                    yield ev.ReasoningDelta(t=run.t(), turn=turn_no, text=part.text)
                elif isinstance(part, ContentDelta):
                    yield ev.TextDelta(t=run.t(), turn=turn_no, text=part.text)
                elif isinstance(part, TurnComplete):
                    turn = part.turn
            outcome = Outcome.SUCCESS
        except LLMError as exc:
            failure = exc
            unavailable = exc.status is None or exc.status >= 500 or exc.status == 429
            outcome = Outcome.FAILURE if unavailable else Outcome.IGNORED
        finally:
            permit.record(outcome, failure)
        yield Result(value=TurnOutcome(turn=turn, error=failure))

    def _switch_to_text(self, run: Run) -> None:
        self.text_mode = True
        system = run.parts.conversation.messages[0]
        system["content"] = f"{system['content']}\n\n{self.tools_prompt()}"

    def estimate(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of ``messages``: a CJK-aware estimate (characters/4 is 2.6x low on Chinese), corrected
        by how far it was from the API's own count of the last request. For unchanged messages this is
        the API's count plus the estimate of what was added since; the correction is kept apart so that
        compacting messages the API already counted lowers the result (else compaction never sees its
        own effect and empties every observation but the newest)."""
        estimate = estimate_messages(messages)
        if self._anchor is not None and self._anchor[0] <= len(messages):
            return estimate + self._anchor[1]
        return estimate
