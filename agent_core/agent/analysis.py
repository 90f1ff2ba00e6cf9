"""An analysis: one conversation about the repositories a user named, answering a question at a time.

:meth:`Analysis.run` answers one question (the first, or a follow-up) as a plain async generator of
:mod:`agent_core.events`, and always ends with ``run_finished`` or, only when nothing at all could be
produced, ``run_failed``. With a model the ReAct loop drives the tools
(:mod:`~agent_core.agent.model_run`); without one (no API key) the offline planner does
(:mod:`~agent_core.agent.planner_run`): the same tools, the same events. The grammar of the stream is
the one :mod:`agent_core.events` states (and :mod:`agent_core.grammar` checks).

An analysis is built by the composition root (:func:`agent_core.top.wiring.open_analysis`) with its parts
already connected: the event sink first, then the client, toolbox and breakers reporting into it.
Cancelling the consumer (the UI's Stop) cancels every tool call in flight: each step awaits or cancels
its tasks in ``finally``.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from agent_core import events as ev
from agent_core.agent.accounting import RunLimits
from agent_core.agent.context import Conversation
from agent_core.agent.flow import Result, relay_events
from agent_core.agent.model_run import model_run
from agent_core.agent.model_turn import ModelDriver
from agent_core.agent.pace import MIN_LOCAL_READS
from agent_core.agent.planner_run import planner_run
from agent_core.agent.prefetch import gather_basics
from agent_core.agent.prompts import detect_language, system_prompt, task_message, worked_example
from agent_core.agent.run import Parts, Run
from agent_core.agent.sink import EventSink
from agent_core.agent.turn_words import beyond_brief, brief_cut
from agent_core.clock import Clock
from agent_core.offload import charged_to
from agent_core.repo import RepoRef, RunScope
from agent_core.resilience import BreakerBoard
from agent_core.tools.executor import Toolbox
from agent_core.tools.results import ToolResult


class Analysis:
    """A conversation about the repositories in ``scope``; ``run`` answers one question at a time."""

    def __init__(
        self,
        *,
        scope: Sequence[RepoRef],
        toolbox: Toolbox,
        breakers: BreakerBoard,
        clock: Clock,
        sink: EventSink,
        limits: RunLimits,
        driver: ModelDriver | None = None,
        language: str = "auto",
        fallback_language: str = "en",
        target_notes: Sequence[str] = (),
        parallel_tool_calls: bool = True,
        prefetch: bool = False,
        diagram_from_model: bool | None = False,
        scopes: Sequence[RunScope] = (),
    ) -> None:
        self.parts = Parts(
            scope=tuple(scope),
            toolbox=toolbox,
            breakers=breakers,
            clock=clock,
            sink=sink,
            conversation=Conversation(),
            limits=limits,
            parallel_tool_calls=parallel_tool_calls,
            diagram_from_model=diagram_from_model,
            scopes=tuple(scopes),
        )
        self.driver = driver
        self.report: str | None = None
        self.questions: list[str] = []
        self._language_setting = language
        self._fallback_language = fallback_language  # the report's language when no question sets it
        self._target_notes = list(target_notes)
        self._prefetch = prefetch
        self._results: tuple[ToolResult, ...] = ()  # every tool result of the runs so far

    @property
    def scope(self) -> tuple[RepoRef, ...]:
        return self.parts.scope

    @property
    def toolbox(self) -> Toolbox:
        return self.parts.toolbox

    @property
    def results(self) -> tuple[ToolResult, ...]:
        """Every tool result of the runs so far (each run adds its own when it ends)."""
        return self._results

    @property
    def mode(self) -> ev.Mode:
        return "model" if self.driver is not None else "planner"

    @property
    def model_name(self) -> str:
        return self.driver.model.name if self.driver is not None else "offline planner"

    async def run(
        self, question: str = "", *, max_total_tokens: int | None = None
    ) -> AsyncGenerator[ev.Event, None]:
        """Answer ``question`` (a follow-up when the conversation already has one). ``max_total_tokens``
        lowers this run's token budget (what a public Space has left for it)."""
        parts = self.parts
        if max_total_tokens is not None and max_total_tokens < parts.limits.max_total_tokens:
            parts = replace(parts, limits=replace(parts.limits, max_total_tokens=max_total_tokens))
        parts.sink.restart()
        follow_up = bool(parts.conversation.messages)
        self.questions.append(question)
        run = Run(
            parts,
            question=question,
            language=detect_language(question, self._language_setting, self._fallback_language),
            earlier=self._results,
        )
        opening = self._opening(run, follow_up)
        estimate = None
        if self.driver is not None:
            limits = parts.limits
            estimate = self.driver.estimate_run(
                [*parts.conversation.messages, *opening],
                budget_tokens=limits.max_total_tokens,
                turns=limits.max_turns,
            )
        yield ev.RunStarted(
            t=0.0,
            run_id=uuid.uuid4().hex[:12],
            targets=tuple(r.full_name for r in parts.scope),
            question=question,
            model=self.model_name,
            mode=self.mode,
            follow_up=follow_up,
            estimate=estimate,
            scopes=parts.scopes,
        )
        with charged_to(run.cpu):  # its steps in the worker threads: its share, its CPU budget
            if self.driver is not None and self._prefetch and not follow_up:
                briefed = relay_events(self._brief(run, self.driver, opening), otherwise=opening)
                async for event in briefed:
                    yield event
                opening = briefed.value
            for message in opening:
                parts.conversation.add(message)
            body = planner_run(run) if self.driver is None else model_run(run, self.driver)
            try:
                async for event in run.through(body):
                    if isinstance(event, ev.RunFinished):
                        self.report = event.report
                    yield event
            finally:
                self._results = run.state.all_results  # what the next question's run starts from

    async def _brief(
        self, run: Run, driver: ModelDriver, opening: list[dict[str, Any]]
    ) -> AsyncIterator[ev.Event | Result[list[dict[str, Any]]]]:
        """The basics gathered before the first turn; the result is the opening with the brief after the
        task, sized for the first request to be read within a minute at the endpoint's speed
        (:mod:`~agent_core.agent.pace`). The trace says what a slow endpoint's brief left out."""
        before = [*self.parts.conversation.messages, *opening]
        reads = MIN_LOCAL_READS if driver.local else 0  # the time of the reads its draft needs
        size = driver.pace.brief_size(budget=driver.budget(), fixed=driver.estimate(before), reads=reads)
        gathered = relay_events(
            run.step_through(gather_basics(run, brief_tokens=size.tokens)), otherwise=None
        )
        async for item in gathered:
            yield item
        if (brief := gathered.value) is not None:
            example = self.scope[0].full_name if driver.pace.local and len(self.scope) == 1 else None
            hint = f"\n\n{beyond_brief(run.language, example)}" if run.question.strip() else ""
            opening = _with_brief(opening, brief.text + hint)
            if size.by_speed and (brief.shortened or brief.left_out):
                first = driver.estimate([*self.parts.conversation.messages, *opening])
                said = brief_cut(size, brief, first_request=first, language=run.language)
                yield ev.Notice(t=run.t(), level="info", message=said)
        yield Result(value=opening)

    def close(self) -> None:
        """Stop listening to the session's breaker board."""
        self.parts.sink.close()

    def _opening(self, run: Run, follow_up: bool) -> list[dict[str, Any]]:
        """The messages a run adds to the conversation before its first request."""
        if follow_up:
            return [{"role": "user", "content": run.question}]
        if self.driver is None:
            prompt = system_prompt(self.parts.scope, language=run.language)
        else:
            briefed = self._prefetch  # a first run's brief (a follow-up keeps the first run's prompt)
            prompt = system_prompt(
                self.parts.scope, language=run.language, tools=self.driver.tool_names, briefed=briefed
            )
            if self.driver.text_mode:
                prompt += f"\n\n{self.driver.tools_prompt()}\n\n{worked_example(self.parts.scope, self.driver.tool_names)}"
        return [
            {"role": "system", "content": prompt},
            {"role": "user", "content": task_message(run.question, self.parts.scope, self._target_notes)},
        ]


def _with_brief(opening: list[dict[str, Any]], brief: str) -> list[dict[str, Any]]:
    """The opening messages with the prefetched brief after the task (a new list: the conversation gets
    the messages once, whole)."""
    *head, task = opening
    return [*head, {**task, "content": f"{task['content']}\n\n{brief}"}]
