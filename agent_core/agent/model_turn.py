"""One streamed model turn, with everything around it: the model's own context window, the model's
breaker, one retry of a broken or empty stream, one retry after a context overflow, and the switch to
the text protocol when the endpoint rejects tools.

:class:`ModelDriver` belongs to one analysis (its conversation, its protocol, its token accounting);
:meth:`ModelDriver.turn` is a step that streams ``turn_started -> reasoning_delta* / text_delta* ->
turn_finished`` and ends with a :class:`TurnOutcome` (a :class:`~agent_core.agent.flow.Result`).

The context budget is the model's window minus the reply's ``max_tokens``, the tool schemas sent with
every request and a small margin (or the ``CONTEXT_BUDGET_TOKENS`` setting when it is smaller). A server
that still answers "context exceeded" is believed: its window (when it says) replaces ours, the
conversation is compacted to fit, and the turn is sent once more. The same request is never retried.

Slow models: the turn says what it reads and how far the server is (``turn_progress``, through a
:class:`~agent_core.agent.progress.TurnWatch`). A turn that reaches the run's time limit while the model
still writes is stopped there, and the answer text that arrived is its (partial) result; so is the text
of a turn whose stream stalled or broke off after a report had begun: a model's work is never thrown away
for the fallback writer's. A turn the stream's guard stopped because the model looped ends with the text
before the loop, and says where it was cut.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from agent_core import events as ev
from agent_core.agent.accounting import Added
from agent_core.agent.flow import Result, Step, relay
from agent_core.agent.pace import Pace, PromptSpeeds, fitting_budget, measured_speed
from agent_core.agent.progress import StreamCut, TurnWatch
from agent_core.agent.prompts import worked_example
from agent_core.agent.run import Run
from agent_core.agent.turn_words import cut_reason, partial_reason
from agent_core.diagnosis import model_cause
from agent_core.errors import CircuitOpenError, LLMError
from agent_core.llm import (
    ChatModel,
    ContextExceededError,
    IncompleteStreamError,
    ModelConfig,
    ModelTurn,
    ToolsUnsupportedError,
    estimate_messages,
    estimate_tokens,
    render_tools_prompt,
)
from agent_core.llm.prices import CostRange, cost_range
from agent_core.llm.providers import PRESET_HOSTS
from agent_core.resilience import BreakerName, Outcome

Purpose = Literal["explore", "revise"]

LLM_BREAKER = "model"
"""The model's breaker when its endpoint is unknown (a model built outside the presets)."""


def model_breaker(base_url: str | None) -> BreakerName:
    """One breaker per model endpoint: "model:api.deepseek.com" for a provider's public API, else
    "model:endpoint-<6 hex digits of the URL>" (events, exports and the page never carry a private
    endpoint's address, which on a Space is the owner's). Another endpoint starts afresh."""
    if not base_url:
        return BreakerName(source=LLM_BREAKER)
    host = urlsplit(base_url).hostname or ""
    if host in PRESET_HOSTS:
        return BreakerName(source=LLM_BREAKER, subject=host)
    digest = hashlib.blake2s(base_url.encode(), digest_size=3).hexdigest()
    return BreakerName(source=LLM_BREAKER, subject=f"endpoint-{digest}")


TEXT_STOP = ("Observation:",)
"""The text protocol's reply ends before an observation: the model must not write one itself."""
LOCAL_STOP = ("<tool_response>",)
"""A local model's reply ends before a tool's result it would invent (the real 1.5B wrote 700 tokens of a
file it had not been shown, after its call, until its token limit: three minutes on two cores)."""
_RETRY_SQUEEZE = 0.8  # after an overflow the budget shrinks to this share of what seemed to fit


@dataclass(frozen=True, kw_only=True)
class TurnOutcome:
    """What a model turn produced: the turn, or why there is none (:data:`NO_TURN`: neither)."""

    turn: ModelTurn | None
    error: LLMError | CircuitOpenError | None
    first_token_s: float | None = None
    prompt_speed: float | None = None  # tokens/s, from the server's prompt progress


NO_TURN = TurnOutcome(turn=None, error=None)
"""A turn that produced nothing (its step ended without a result)."""


class ModelDriver:
    """Streams model turns for one analysis (see the module docstring)."""

    def __init__(
        self,
        model: ChatModel,
        *,
        config: ModelConfig | None,
        tool_schemas: Sequence[Mapping[str, Any]],
        tool_protocol: str,
        window: int,
        max_tokens: int,
        budget: int | None = None,
        speeds: PromptSpeeds | None = None,
    ) -> None:
        self.model = model
        self.config = config
        self.pace = Pace(speeds, config)  # the endpoint's prompt speed: what the brief may hold
        self.breaker = model_breaker(config.base_url if config is not None else None)
        self._host = urlsplit(config.base_url).hostname if config is not None and config.base_url else None
        # A server on the user's own CPU (one slot, a small model): its time is the run's scarcest.
        self.local = config is not None and config.local  # a preset's, an address's or /v1/models' word
        self._last_failure: LLMError | None = None
        self._schemas = list(tool_schemas)
        self._schema_tokens = estimate_tokens(json.dumps(self._schemas))
        self.text_mode = tool_protocol == "text"
        self._auto_protocol = tool_protocol == "auto"
        self.window = window
        self.max_tokens = max_tokens
        self._budget_setting = budget
        self._sent = 0
        # (messages the API counted, its count minus our estimate of them): see estimate()
        self._anchor: tuple[int, int] | None = None

    def tools_prompt(self) -> str:
        """The text protocol's instructions, for the system prompt."""
        return render_tools_prompt(self._schemas)

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The names of the tools the model is offered (the system prompt names no other)."""
        return tuple(str(schema["function"]["name"]) for schema in self._schemas)

    def prefix_tools(self) -> list[Mapping[str, Any]] | None:
        """The tool schemas every request of the analysis carries, with or without tools wanted (so the
        system prompt, the tools and the brief stay one prefix the provider's cache can reuse); None in
        the text protocol, whose tools are in the system prompt."""
        return None if self.text_mode else self._schemas

    def budget(self) -> int:
        """Prompt tokens a request may hold (tool schemas included)."""
        return fitting_budget(self.window, self.max_tokens, self._budget_setting)

    def _tools_tokens(self) -> int:
        """What the tool schemas add to every request (text mode: they are in the system prompt)."""
        return 0 if self.text_mode else self._schema_tokens

    def cost(self, run: Run) -> CostRange | None:
        """What the run's tokens cost, as the endpoint counted them; None when the price is unknown."""
        price = self.config.price if self.config is not None else None
        if price is None:
            return None
        state = run.state
        return cost_range(
            price,
            prompt_tokens=state.prompt_tokens,
            completion_tokens=state.completion_tokens,
            cached_tokens=state.cached_prompt_tokens,
        )

    def estimate_run(
        self, opening: Sequence[Mapping[str, Any]], *, budget_tokens: int, turns: int
    ) -> ev.CostEstimate | None:
        """What a run may cost before it starts; None when the model's price is unknown.

        Low: its first request alone (``opening`` and the tool schemas), at the low input price: no run
        costs less. High: its whole token budget at the high prices, as many of those tokens as its
        ``turns`` (and the report turn) can write priced as output, the rest as input."""
        price = self.config.price if self.config is not None else None
        if price is None:
            return None
        first = min(self.estimate(opening), budget_tokens)
        written = min(budget_tokens - first, (turns + 1) * self.max_tokens)
        low = cost_range(price, prompt_tokens=first, completion_tokens=0).low_usd
        high = cost_range(price, prompt_tokens=budget_tokens - written, completion_tokens=written)
        return ev.CostEstimate(
            low_usd=low,
            high_usd=high.high_usd,
            budget_tokens=budget_tokens,
            prices_as_of=price.as_of,
            source=price.source,
            parts=high.parts,
            local=price.local,
        )

    def diagnose(self, error: BaseException | None) -> ev.Diagnosis:
        """Why the model failed, for the page and the report: its error's kind, or for an open breaker the
        failure that opened it."""
        if isinstance(error, CircuitOpenError):
            error = self._last_failure
        cause = model_cause(error.kind) if isinstance(error, LLMError) else "model_server"
        return ev.Diagnosis(cause=cause, source="model", host=self._host)

    def available(self, run: Run) -> bool:
        """Whether the model's breaker lets a call through now (or soon)."""
        return run.parts.breakers.get(self.breaker).snapshot().state != "open"

    async def turn(
        self, run: Run, *, tools: bool, cut: StreamCut | None = None, purpose: Purpose = "explore"
    ) -> Step[TurnOutcome]:
        """One streamed turn, retried once when the stream breaks off or comes back empty, and once
        after a context overflow (compacted to fit first). ``cut``: where a local model's answer is
        stopped as it streams (a report begun before its reads, calls beyond its time); the turn ends
        with what it wrote, its finish reason the cut's (:class:`~agent_core.agent.progress.StreamCut`).
        ``purpose`` ``revise``: its text is no report (it streams as reasoning)."""
        turn_no = run.next_turn()
        clock = run.parts.clock
        yield ev.TurnStarted(t=run.t(), turn=turn_no, purpose=purpose)
        started = clock.monotonic()
        outcome = NO_TURN
        for attempt in (1, 2):
            tried = relay(
                self._attempt(run, turn_no, tools=tools, cut=cut, aside=purpose == "revise"),
                otherwise=NO_TURN,
            )
            async for item in tried:
                yield item
            outcome = tried.value
            retry = self._retry_reason(run, outcome) if attempt == 1 else None
            if retry is None:
                break
            yield _notice(run, retry)
        async for event in run.parts.sink.drain():
            yield event
        turn = outcome.turn
        if turn is not None and turn.usage is not None:
            yield Added(usage=turn.usage)
            counted = estimate_messages(run.parts.conversation.messages[: self._sent]) + self._tools_tokens()
            self._anchor = (self._sent, turn.usage.prompt_tokens - counted)
            stopped = (turn.finish_reason or "").startswith("cut_")  # usage estimated: its progress measures
            speed = measured_speed(turn.usage, outcome.prompt_speed, outcome.first_token_s)
            self.pace.learn(outcome.prompt_speed if stopped else speed)
        if outcome.error is not None:
            yield Added(degraded=(f"model failed: {outcome.error}",))
            yield _notice(run, f"Model turn failed: {outcome.error}")
        if turn is not None and turn.degeneration is not None:
            reason = cut_reason(turn.degeneration.line, run.language)
            yield Added(degraded=(reason,))
            yield _notice(run, cut_reason(turn.degeneration.line, "en").capitalize() + ".")
        yield ev.TurnFinished(
            t=run.t(),
            turn=turn_no,
            tool_calls=len(turn.tool_calls) if turn else 0,
            finish_reason=turn.finish_reason if turn else None,
            prompt_tokens=turn.usage.prompt_tokens if turn and turn.usage else None,
            completion_tokens=turn.usage.completion_tokens if turn and turn.usage else None,
            cached_prompt_tokens=turn.usage.cached_prompt_tokens if turn and turn.usage else None,
            duration_s=clock.monotonic() - started,
            first_token_s=outcome.first_token_s,
        )
        yield Result(value=outcome)

    async def _attempt(
        self, run: Run, turn_no: int, *, tools: bool, cut: StreamCut | None, aside: bool = False
    ) -> Step[TurnOutcome]:
        """One try at the turn; an endpoint that rejects tools gets it again in the text protocol."""
        once = relay(
            self._stream_once(run, turn_no, tools=tools, cut=cut, aside=aside),
            otherwise=NO_TURN,
        )
        async for item in once:
            yield item
        outcome = once.value
        if isinstance(outcome.error, ToolsUnsupportedError) and self._auto_protocol and not self.text_mode:
            self._switch_to_text(run)
            yield _notice(
                run,
                "The model endpoint does not support native tool calling; switched to the text ReAct "
                "protocol (Thought / Action / Action Input / Final).",
            )
            async for again in self._stream_once(run, turn_no, tools=False, cut=cut, aside=aside):
                yield again  # its result, too: the turn's
            return
        yield Result(value=outcome)

    def _retry_reason(self, run: Run, outcome: TurnOutcome) -> str | None:
        """Why the turn is worth one more try (said to the user), or None."""
        if isinstance(outcome.error, ContextExceededError):
            return self._after_overflow(run, outcome.error)
        turn = outcome.turn
        empty = turn is not None and not turn.content.strip() and not turn.tool_calls
        if isinstance(outcome.error, IncompleteStreamError) or empty:
            return "The model's answer was empty or cut off; retrying the turn once."
        return None

    def _after_overflow(self, run: Run, error: ContextExceededError) -> str | None:
        """Believe the server: its window and its count of the request replace ours, then compact to fit.
        None (no retry) when compacting changes nothing: the same request is never sent twice."""
        if error.window:
            self.window = min(self.window, error.window)
        sent = run.parts.conversation.messages[: self._sent]
        counted = error.requested or int(self.estimate(sent) / _RETRY_SQUEEZE)
        self._anchor = (self._sent, counted - estimate_messages(sent) - self._tools_tokens())
        if not run.parts.conversation.compact(budget=self.budget(), estimate=self.estimate, keep_last=0):
            return None
        return (
            f"The request did not fit the model's context window ({self.window:,} tokens); compacted older "
            "observations to fit and trying once more."
        )

    async def _stream_once(
        self, run: Run, turn_no: int, *, tools: bool, cut: StreamCut | None, aside: bool = False
    ) -> Step[TurnOutcome]:
        conversation = run.parts.conversation
        conversation.compact(budget=self.budget(), estimate=self.estimate)
        self._sent = len(conversation.messages)
        breaker = run.parts.breakers.get(self.breaker)
        try:
            permit = breaker.acquire()
        except CircuitOpenError as exc:
            yield Result(value=TurnOutcome(turn=None, error=exc))
            return
        outcome, failure = Outcome.IGNORED, None
        turn: ModelTurn | None = None
        watch = TurnWatch(
            run,
            turn_no,
            prompt_tokens=self.estimate(conversation.messages),
            pace=self.pace,
            cut=cut.fresh() if cut is not None else None,
            aside=aside,
        )
        try:
            stream = self.model.stream_turn(
                conversation.messages,
                tools=self.prefix_tools(),
                stop=TEXT_STOP if self.text_mode else LOCAL_STOP if self.local else None,
                tool_choice="auto" if tools else "none",
            )
            read = relay(watch.read(stream), otherwise=turn)
            async for item in read:
                yield item
            turn = read.value
            outcome = Outcome.SUCCESS
        except TimeoutError:
            outcome = Outcome.IGNORED  # the run's limit, not the endpoint's fault
            turn, failure = watch.partial(), None
            yield Added(usage=watch.spent())  # cut before its usage chunk: what it read and wrote
            if turn is None:
                failure = LLMError(
                    "the run's time limit was reached before the model's answer", kind="timeout"
                )
            else:
                for kept in _kept(run, "The run's time limit stopped the model mid-report"):
                    yield kept
        except LLMError as exc:
            failure = self._last_failure = exc
            unavailable = exc.status is None or exc.status >= 500 or exc.status == 429
            outcome = Outcome.FAILURE if unavailable and exc.kind != "context" else Outcome.IGNORED
            yield Added(usage=watch.spent() if exc.kind in ("timeout", "stream") else None)  # a cut stream's
            if exc.kind in ("timeout", "stream") and (turn := watch.partial()) is not None:
                failure = None  # the report had begun: keep it rather than write another
                for kept in _kept(run, f"The model stream stopped mid-report ({exc})"):
                    yield kept
        finally:
            permit.record(outcome, failure)
        speed = watch.speed.prompt_tokens_per_s if watch.speed else None
        yield Result(
            value=TurnOutcome(turn=turn, error=failure, first_token_s=watch.first_token_s, prompt_speed=speed)
        )

    def _switch_to_text(self, run: Run) -> None:
        self.text_mode = True
        example = worked_example(run.parts.scope, self.tool_names)
        run.parts.conversation.extend_system(f"{self.tools_prompt()}\n\n{example}")

    def estimate(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Prompt tokens of a request with ``messages`` (and the tool schemas): a CJK-aware estimate
        (characters/4 is 2.6x low on Chinese), corrected by how far it was from the API's own count of
        the last request. For unchanged messages this is the API's count plus the estimate of what was
        added since; the correction is kept apart so that compacting messages the API already counted
        lowers the result (else compaction never sees its own effect and empties every observation but
        the newest)."""
        estimate = estimate_messages(messages) + self._tools_tokens()
        if self._anchor is not None and self._anchor[0] <= len(messages):
            return estimate + self._anchor[1]
        return estimate


def _kept(run: Run, why: str) -> tuple[Added, ev.Notice]:
    """A turn stopped mid-report keeps what it wrote: said in the trace and in the report's gaps."""
    return Added(degraded=(partial_reason(run.language),)), _notice(
        run, f"{why}; its partial report is kept."
    )


def _notice(run: Run, message: str) -> ev.Notice:
    return ev.Notice(t=run.t(), level="warning", message=message)
