"""The hand-written ReAct loop: a plain async generator of :mod:`agent_core.events`.

One :class:`Analysis` is one conversation about the repositories a user named; :meth:`Analysis.run`
answers one question (the first, or a follow-up) and always ends with ``run_finished`` or, only when
nothing at all could be produced, ``run_failed``::

    run_started
    repeat (turn = 1, 2, ...):                         until the model answers without tools
        turn_started -> reasoning_delta* / text_delta* -> turn_finished      (one streamed model turn)
        tool_call_started*  -> [tool_retry | breaker_changed | rate_limit]* -> tool_call_finished*
                                 (all calls of the turn run concurrently; with ``parallel_tool_calls``
                                 off, one at a time: started -> finished for each call in turn)
    on a limit (turns, tool calls, tokens, wall time): one report turn without tools;
    if the model is unreachable: the deterministic writer, from the observations gathered so far
    (when none were gathered yet, the offline planner gathers them first)
    run_finished(report, degraded, stats)

With no model (no API key) the :class:`OfflinePlanner` proposes the calls and the deterministic writer
writes the report: the same tools, the same events.

Concurrency needs a queue: tool calls run as tasks and their side events (retries, breaker changes,
rate limits) are produced inside them; the generator forwards them as they happen. Every task is
awaited or cancelled in ``finally``, so cancelling the consumer (the UI's Stop) leaves no orphans.
"""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core import events as ev
from agent_core.agent.accounting import RunLimits, RunState, data_problems, limit_reached, run_stats
from agent_core.agent.context import Conversation
from agent_core.agent.live import EventSink
from agent_core.agent.parallel import PendingCall, run_one_by_one, run_parallel
from agent_core.agent.planner import OfflinePlanner
from agent_core.agent.prompts import detect_language, report_request, system_prompt, task_message
from agent_core.clock import Clock
from agent_core.errors import CircuitOpenError, LLMError
from agent_core.github.client import GitHubClient
from agent_core.llm import (
    ChatModel,
    ContentDelta,
    IncompleteStreamError,
    ModelConfig,
    ModelTurn,
    ReactFormatError,
    ReasoningDelta,
    ToolsUnsupportedError,
    TurnComplete,
    estimate_cost,
    estimate_messages,
    format_observation,
    parse_react,
    render_tools_prompt,
)
from agent_core.repo import RepoRef
from agent_core.report.words import Language
from agent_core.report.writer import gaps_note, write_report
from agent_core.resilience import BreakerBoard, Outcome
from agent_core.tools.executor import Toolbox, ToolResult
from agent_core.tools.observe import cut_for_model

logger = logging.getLogger(__name__)

LLM_BREAKER = "llm"


@dataclass
class _TurnBox:
    """What a streamed turn left behind (generators cannot return values)."""

    turn: ModelTurn | None = None
    error: LLMError | CircuitOpenError | None = None


class Analysis:
    """A conversation about the repositories in ``scope``; ``run`` answers one question at a time."""

    def __init__(
        self,
        *,
        scope: Sequence[RepoRef],
        toolbox: Toolbox,
        breakers: BreakerBoard,
        clock: Clock,
        model: ChatModel | None = None,
        model_config: ModelConfig | None = None,
        github: GitHubClient | None = None,
        limits: RunLimits | None = None,
        language: str = "auto",
        tool_protocol: str = "auto",
        target_notes: Sequence[str] = (),
        parallel_tool_calls: bool = True,
    ) -> None:
        self.scope = list(scope)
        self.toolbox = toolbox
        self.breakers = breakers
        self.conversation = Conversation()
        self._clock = clock
        self._model = model
        self._model_config = model_config
        self._github = github
        self._limits = limits or RunLimits()
        self._language_setting = language
        self._text_mode = tool_protocol == "text"
        self._auto_protocol = tool_protocol == "auto"
        self._target_notes = list(target_notes)
        self._run_calls = run_parallel if parallel_tool_calls else run_one_by_one
        self._turns = 0
        self.sink = EventSink(clock, breakers)
        self.report: str | None = None
        self.questions: list[str] = []
        self._sent = 0
        # (messages the API counted, its count minus our estimate of them): see _estimate
        self._anchor: tuple[int, int] | None = None

    @property
    def mode(self) -> ev.Mode:
        return "model" if self._model is not None else "planner"

    @property
    def model_name(self) -> str:
        return self._model.name if self._model is not None else "offline planner"

    # -- the run ----------------------------------------------------------------------------------

    async def run(self, question: str = "") -> AsyncGenerator[ev.Event, None]:
        """Answer ``question`` (a follow-up when the conversation already has one)."""
        self.sink.restart()
        state = RunState(
            started=self._clock.monotonic(), turn_base=self._turns, results_base=len(self.toolbox.results)
        )
        unsubscribe = self.breakers.subscribe(self.sink.on_breaker)
        follow_up = bool(self.conversation.messages)
        self.questions.append(question)
        language = detect_language(question, self._language_setting)
        try:
            yield ev.RunStarted(
                t=0.0,
                run_id=uuid.uuid4().hex[:12],
                targets=tuple(r.full_name for r in self.scope),
                question=question,
                model=self.model_name,
                mode=self.mode,
                follow_up=follow_up,
            )
            self._open_conversation(question, language, follow_up)
            if self._model is None:
                body = self._planner_run(state, language)
            else:
                body = self._model_run(state, language)
            async for event in body:
                yield event
        finally:
            unsubscribe()

    def _open_conversation(self, question: str, language: Language, follow_up: bool) -> None:
        if follow_up:
            self.conversation.add({"role": "user", "content": question})
            return
        prompt = system_prompt(self.scope, language=language)
        if self._text_mode:
            prompt += "\n\n" + render_tools_prompt(self.toolbox.schemas())
        self.conversation.add({"role": "system", "content": prompt})
        self.conversation.add(
            {"role": "user", "content": task_message(question, self.scope, self._target_notes)}
        )

    # -- model-driven ---------------------------------------------------------------------------------

    async def _model_run(self, state: RunState, language: Language) -> AsyncIterator[ev.Event]:
        report: str | None = None
        stop_reason: str | None = None
        while report is None:
            stop_reason = self._limit_reached(state)
            if stop_reason is not None:
                break
            box = _TurnBox()
            async for event in self._model_turn(state, box, tools=not self._text_mode):
                yield event
            if box.error is not None or box.turn is None:
                break
            turn = box.turn
            if self._text_mode:
                report, calls = self._react_step(turn)
            else:
                report, calls = self._native_step(turn)
            if calls:
                async for event in self._execute(state, calls, text_mode=self._text_mode):
                    yield event
        if report is None:
            async for event in self._finish_without_answer(state, language, stop_reason):
                yield event
            return
        async for event in self._finish(state, report, writer="model", language=language):
            yield event

    async def _model_turn(self, state: RunState, box: _TurnBox, *, tools: bool) -> AsyncIterator[ev.Event]:
        """One streamed turn, retried once when the stream breaks off or comes back empty."""
        self._turns += 1
        turn_no = self._turns
        yield ev.TurnStarted(t=self.sink.t(), turn=turn_no)
        started = self._clock.monotonic()
        for attempt in (1, 2):
            current = _TurnBox()
            async for event in self._stream_once(turn_no, current, tools=tools and not self._text_mode):
                yield event
            if (
                isinstance(current.error, ToolsUnsupportedError)
                and self._auto_protocol
                and not self._text_mode
            ):
                self._switch_to_text()
                yield ev.Notice(
                    t=self.sink.t(),
                    level="warning",
                    message=(
                        "The model endpoint does not support native tool calling; switched to the text "
                        "ReAct protocol (Thought / Action / Action Input / Final)."
                    ),
                )
                current = _TurnBox()
                async for event in self._stream_once(turn_no, current, tools=False):
                    yield event
            box.turn, box.error = current.turn, current.error
            empty = (
                current.turn is not None and not current.turn.content.strip() and not current.turn.tool_calls
            )
            if (isinstance(current.error, IncompleteStreamError) or empty) and attempt == 1:
                yield ev.Notice(
                    t=self.sink.t(),
                    level="warning",
                    message="The model's answer was empty or cut off; retrying the turn once.",
                )
                continue
            break
        async for event in self.sink.drain():
            yield event
        turn = box.turn
        if turn is not None and turn.usage is not None:
            state.prompt_tokens += turn.usage.prompt_tokens
            counted = estimate_messages(self.conversation.messages[: self._sent])
            self._anchor = (self._sent, turn.usage.prompt_tokens - counted)
            state.completion_tokens += turn.usage.completion_tokens
        if box.error is not None:
            state.degraded.append(f"model failed: {box.error}")
            yield ev.Notice(t=self.sink.t(), level="warning", message=f"Model turn failed: {box.error}")
        yield ev.TurnFinished(
            t=self.sink.t(),
            turn=turn_no,
            tool_calls=len(turn.tool_calls) if turn else 0,
            finish_reason=turn.finish_reason if turn else None,
            prompt_tokens=turn.usage.prompt_tokens if turn and turn.usage else None,
            completion_tokens=turn.usage.completion_tokens if turn and turn.usage else None,
            duration_s=self._clock.monotonic() - started,
        )

    async def _stream_once(self, turn_no: int, box: _TurnBox, *, tools: bool) -> AsyncIterator[ev.Event]:
        assert self._model is not None
        self.conversation.compact(budget=self._limits.context_budget_tokens, estimate=self._estimate)
        self._sent = len(self.conversation.messages)
        breaker = self.breakers.get(LLM_BREAKER)
        try:
            permit = breaker.acquire()
        except CircuitOpenError as exc:
            box.error = exc
            return
        outcome, error = Outcome.IGNORED, None
        try:
            stream = self._model.stream_turn(
                self.conversation.messages, tools=self.toolbox.schemas() if tools else None
            )
            async for part in stream:
                if isinstance(part, ReasoningDelta):
                    yield ev.ReasoningDelta(t=self.sink.t(), turn=turn_no, text=part.text)
                elif isinstance(part, ContentDelta):
                    yield ev.TextDelta(t=self.sink.t(), turn=turn_no, text=part.text)
                elif isinstance(part, TurnComplete):
                    box.turn = part.turn
            outcome = Outcome.SUCCESS
        except LLMError as exc:
            box.error, error = exc, exc
            unavailable = exc.status is None or exc.status >= 500 or exc.status == 429
            outcome = Outcome.FAILURE if unavailable else Outcome.IGNORED
        finally:
            permit.record(outcome, error)

    def _switch_to_text(self) -> None:
        self._text_mode = True
        system = self.conversation.messages[0]
        system["content"] = f"{system['content']}\n\n{render_tools_prompt(self.toolbox.schemas())}"

    def _native_step(self, turn: ModelTurn) -> tuple[str | None, list[PendingCall]]:
        if not turn.tool_calls:
            report = turn.content.strip() or None
            if report is not None:
                self.conversation.add({"role": "assistant", "content": turn.content})
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
        self.conversation.add(message)
        return None, [PendingCall(call_id=c.id, tool=c.name, arguments=c.arguments) for c in turn.tool_calls]

    def _react_step(self, turn: ModelTurn) -> tuple[str | None, list[PendingCall]]:
        self.conversation.add({"role": "assistant", "content": turn.content})
        try:
            step = parse_react(turn.content)
        except ReactFormatError as exc:
            self.conversation.add({"role": "user", "content": format_observation("format", exc.message)})
            return None, []
        if step.final is not None:
            return step.final.strip() or None, []
        if step.action is None:
            return None, []
        return None, [
            PendingCall(call_id=f"react-{self._turns}", tool=step.action, arguments=step.action_input or {})
        ]

    # -- offline planner ---------------------------------------------------------------------------

    async def _planner_run(self, state: RunState, language: Language) -> AsyncIterator[ev.Event]:
        async for event in self._planner_turns(state):
            yield event
        results = self._run_results(state)
        if not any(r.ok for r in results) and not state.turn_base:
            yield self._failed(results)
            return
        report = self._written_report(state, language)
        async for event in self._finish(state, report, writer="planner"):
            yield event

    async def _planner_turns(self, state: RunState) -> AsyncIterator[ev.Event]:
        """The planner's turns, from the results so far, until it has nothing left or a limit stops it."""
        planner = OfflinePlanner(self.scope)
        while self._limit_reached(state) is None:
            step = planner.next_step(self.toolbox.results)
            if step is None:
                break
            self._turns += 1
            turn_no = self._turns
            started = self._clock.monotonic()
            yield ev.TurnStarted(t=self.sink.t(), turn=turn_no)
            yield ev.ReasoningDelta(t=self.sink.t(), turn=turn_no, text=step.thought)
            yield ev.TurnFinished(
                t=self.sink.t(),
                turn=turn_no,
                tool_calls=len(step.calls),
                finish_reason="tool_calls",
                duration_s=self._clock.monotonic() - started,
            )
            calls = [
                PendingCall(call_id=f"plan-{turn_no}-{i}", tool=c.tool, arguments=dict(c.arguments))
                for i, c in enumerate(step.calls, 1)
            ]
            async for event in self._execute(state, calls, text_mode=None):
                yield event

    # -- tools ------------------------------------------------------------------------------------------

    async def _execute(
        self, state: RunState, calls: Sequence[PendingCall], *, text_mode: bool | None
    ) -> AsyncIterator[ev.Event]:
        """Run the calls of a turn (concurrently by default); stream their events; add the results in
        call order."""
        budget = self._limits.max_tool_calls - len(self._run_results(state))
        runnable, skipped = list(calls[: max(0, budget)]), list(calls[max(0, budget) :])
        results: list[ToolResult] = []
        async for event in self._run_calls(
            self.toolbox, self.sink, runnable, turn=self._turns, results=results
        ):
            yield event
        for call, result in zip(runnable, results, strict=True):
            text = cut_for_model(result.observation, self._limits.observation_max_chars)
            self._add_observation(call, text, text_mode)
        for call in skipped:
            message = json.dumps(
                {"ok": False, "error": "skipped: the tool-call limit for this run was reached"}
            )
            self._add_observation(call, message, text_mode)
        if skipped:
            yield ev.Notice(
                t=self.sink.t(),
                level="warning",
                message=f"Tool-call limit ({self._limits.max_tool_calls}) reached; {len(skipped)} call(s) skipped.",
            )

    def _add_observation(self, call: PendingCall, text: str, text_mode: bool | None) -> None:
        if text_mode is None:
            return  # planner: no conversation to feed
        if text_mode:
            self.conversation.add({"role": "user", "content": format_observation(call.tool, text)})
        else:
            self.conversation.add({"role": "tool", "tool_call_id": call.call_id, "content": text})

    # -- endings ----------------------------------------------------------------------------------------

    async def _finish_without_answer(
        self, state: RunState, language: Language, stop_reason: str | None
    ) -> AsyncIterator[ev.Event]:
        """A limit stopped exploration, or the model failed: ask once without tools, else write it ourselves."""
        model_ok = self._model is not None and self.breakers.get(LLM_BREAKER).snapshot().state != "open"
        if stop_reason is not None and model_ok:
            yield ev.Notice(
                t=self.sink.t(),
                level="warning",
                message=f"Stopping exploration: {stop_reason}. Asking the model for the report.",
            )
            self.conversation.add({"role": "user", "content": report_request(language, stop_reason)})
            box = _TurnBox()
            async for event in self._model_turn(state, box, tools=False):
                yield event
            if box.turn is not None and box.turn.content.strip():
                content = box.turn.content
                if self._text_mode:
                    with contextlib.suppress(ReactFormatError):
                        content = parse_react(content).final or content
                self.conversation.add({"role": "assistant", "content": box.turn.content})
                async for event in self._finish(state, content.strip(), writer="model", language=language):
                    yield event
                return
        if stop_reason is None and not any(r.ok for r in self.toolbox.results):
            # The model failed before anything was gathered: GitHub may be fine, so gather without it.
            yield ev.Notice(
                t=self.sink.t(),
                level="warning",
                message="The model could not be reached; the offline planner gathers the data instead.",
            )
            async for event in self._planner_turns(state):
                yield event
        results = self._run_results(state)
        if not any(r.ok for r in self.toolbox.results):
            yield self._failed(results)
            return
        reason = stop_reason or "the model could not be reached"
        note = (
            f"This report was written without the model ({reason}), from the "
            f"{sum(r.ok for r in self.toolbox.results)} observations gathered so far."
        )
        report = self._written_report(state, language, note)
        state.degraded.append(f"report written by the deterministic writer: {reason}")
        async for event in self._finish(state, report, writer="fallback"):
            yield event

    def _written_report(self, state: RunState, language: Language, note: str | None = None) -> str:
        """The deterministic writer's report from everything gathered (planner runs and fallbacks)."""
        return write_report(
            scope=self.scope,
            question=self._question(),
            results=self.toolbox.results,
            language=language,
            degraded_reasons=self._data_problems(state),
            writer_note=note,
        )

    async def _finish(
        self, state: RunState, report: str, *, writer: str, language: Language = "en"
    ) -> AsyncIterator[ev.Event]:
        problems = self._data_problems(state)
        note = gaps_note(problems, language) if writer == "model" else ""
        if note:  # the deterministic writers state the gaps themselves; a model may not
            report = f"{report}\n\n{note}"
            yield ev.TextDelta(t=self.sink.t(), turn=self._turns, text=f"\n\n{note}")
        if writer != "model":
            # Stream the written report like a model would, so every consumer renders it the same way.
            self._turns += 1
            yield ev.TurnStarted(t=self.sink.t(), turn=self._turns, purpose="report")
            for piece in _paragraphs(report):
                yield ev.TextDelta(t=self.sink.t(), turn=self._turns, text=piece)
            yield ev.TurnFinished(t=self.sink.t(), turn=self._turns, tool_calls=0, finish_reason="stop")
            self.conversation.add({"role": "assistant", "content": report})
        async for event in self.sink.drain():
            yield event
        self.report = report
        reasons = list(dict.fromkeys([*state.degraded, *problems]))
        yield ev.RunFinished(
            t=self.sink.t(),
            report=report,
            degraded=bool(reasons),
            degraded_reasons=tuple(reasons),
            writer=writer,  # type: ignore[arg-type]
            stats=self._stats(state),
        )

    def _failed(self, results: Sequence[ToolResult]) -> ev.RunFailed:
        errors = [r.error for r in results if r.error]
        message = errors[0] if errors else "nothing could be gathered about the repository"
        hint = next((str(r.observation.get("hint")) for r in results if r.observation.get("hint")), None)
        return ev.RunFailed(t=self.sink.t(), message=f"No report could be produced: {message}", hint=hint)

    # -- bookkeeping --------------------------------------------------------------------------------------

    def _limit_reached(self, state: RunState) -> str | None:
        return limit_reached(
            self._limits,
            turns=self._turns - state.turn_base,
            tool_calls=len(self._run_results(state)),
            tokens=state.prompt_tokens + state.completion_tokens,
            elapsed=self._clock.monotonic() - state.started,
        )

    def _run_results(self, state: RunState) -> list[ToolResult]:
        return self.toolbox.results[state.results_base :]

    def _data_problems(self, state: RunState) -> list[str]:
        return data_problems(self._run_results(state))

    def _stats(self, state: RunState) -> ev.RunStats:
        cost = 0.0 if self._model is None else None
        if self._model is not None and self._model_config is not None:
            cost = estimate_cost(state.prompt_tokens, state.completion_tokens, self._model_config)
        return run_stats(
            state,
            self._run_results(state),
            turns=self._turns - state.turn_base,
            elapsed=self._clock.monotonic() - state.started,
            cost_usd=cost,
            rate_limit=self._github.rate_limit if self._github is not None else None,
        )

    def _question(self) -> str:
        return self.questions[-1] if self.questions else ""

    def _estimate(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of ``messages``: a CJK-aware estimate (characters/4 is 2.6x low on Chinese), corrected
        by how far it was from the API's own count of the last request. For unchanged messages this is
        the API's count plus the estimate of what was added since; the correction is kept apart so that
        compacting messages the API already counted lowers the result (else compaction never sees its
        own effect and empties every observation but the newest)."""
        estimate = estimate_messages(messages)
        if self._anchor is not None and self._anchor[0] <= len(messages):
            return estimate + self._anchor[1]
        return estimate


def _paragraphs(text: str) -> list[str]:
    pieces = text.split("\n\n")
    return [p + ("\n\n" if i < len(pieces) - 1 else "") for i, p in enumerate(pieces)]
