"""What one model turn has done so far, for the trace and for whatever must end it early.

:class:`TurnWatch` follows a streaming turn: the prompt it is reading, where the server reports it
(``turn_progress`` events: "reading the brief: N tokens", then how far, with percent and ETA), when its
first token came, and the answer text that has arrived (kept, so that a turn stopped by the run's time
limit or a stall still has its partial report).

Never silent: a llama.cpp server reports its prompt progress once per 2,048-token batch (a minute apart
for a small model on two cores) and nothing at all while it writes a tool call. :func:`paced` passes the
stream's parts on and, whenever none came for :data:`HEARTBEAT_S` (the event loop's timers: a test moves
them with the run's clock, :class:`testing.clock.SkippingLoop`), a :data:`QUIET`; the watch answers it
with a ``turn_progress`` of its own (:meth:`TurnWatch.quiet`): the time the turn has taken on the run's
clock and, before the first token, how much of the prompt should be read by now at the speed measured
(the server's last count, then its rate) or assumed (the endpoint's preset), said to be an estimate.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from agent_core import events as ev
from agent_core.agent.accounting import cut_usage
from agent_core.agent.flow import Result, Step
from agent_core.agent.pace import Pace
from agent_core.agent.run import Run
from agent_core.llm import (
    ContentDelta,
    ModelTurn,
    PromptProgress,
    ReasoningDelta,
    StreamPart,
    ToolCallDelta,
    TurnComplete,
    Usage,
)
from agent_core.llm.tokens import written_tokens

MIN_PARTIAL_CHARS = 200
"""A stopped turn's text shorter than this is not worth keeping as a report (a sentence, a heading)."""
_PROGRESS_EVERY = 0.05  # of the prompt: progress events closer than this are not sent
HEARTBEAT_S = 10.0
"""The longest a turn goes without a word in the trace: after this long with nothing from the stream, a
``turn_progress`` says how long it has been and what the model is doing."""
T = TypeVar("T")


class Quiet:
    """Nothing came from the stream for :data:`HEARTBEAT_S` (the one value: :data:`QUIET`)."""


QUIET: Final = Quiet()


async def paced(parts: AsyncIterator[T], every: float = HEARTBEAT_S) -> AsyncGenerator[T | Quiet, None]:
    """``parts`` as they come, and :data:`QUIET` each time ``every`` seconds pass without one. Each part is
    awaited in a task of its own, so a quiet moment never cancels the read under way; closing this
    generator (or cancelling its reader) cancels that task and waits for it."""
    pending: asyncio.Future[T] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(parts))
            done, _ = await asyncio.wait((pending,), timeout=every)
            if not done:
                yield QUIET
                continue
            finished, pending = pending, None
            try:
                part = finished.result()
            except StopAsyncIteration:
                return
            yield part
    finally:
        if pending is not None:
            pending.cancel()
            await asyncio.gather(pending, return_exceptions=True)


@dataclass(frozen=True, kw_only=True)
class Speed:
    """A model's measured prompt speed (tokens per second)."""

    prompt_tokens_per_s: float


class StreamCut:
    """Where a local model's answer is stopped as it streams (each character is looked at once):

    * ``report``: at a report's first Markdown heading (``#`` to ``######`` and a space at a line's
      start) written before any ``{``: its reads are due first (the finish reason ``cut_report``);
    * ``calls``: in a reply that opens with a JSON object (after a fence, at most: calls written as
      text), once that many objects are complete, strings skipped: its time allows that many reads now
      (``cut_calls``; the real 1.5B wrote eight calls in one reply, 43 s of writing on two cores). A
      reply that opens otherwise is never cut for its braces (a report's `${TOKEN}`, a C++ block);
    * ``calls=0``, or ``over()`` true when such a reply opens (asked then, not when the turn began: the
      model read its last results first): at that ``{``, its time for reading is over (``cut_time``).
    """

    def __init__(
        self, *, report: bool = True, calls: int | None = None, over: Callable[[], bool] | None = None
    ) -> None:
        self._report, self._calls, self._time_over = report, calls, over
        self._line_start, self._hashes = True, 0
        self._depth, self._string, self._escape, self._complete = 0, False, False, 0
        self._lead: str | None = "start"  # before the reply's first sign: start, fence, tag; None: read
        self._calls_first = False
        self._over = False  # the reply opened with a call, and no call is allowed

    def fresh(self) -> StreamCut:
        """The same rules for another attempt at the turn (a retry streams from the start)."""
        return StreamCut(report=self._report, calls=self._calls, over=self._time_over)

    def __call__(self, text: str) -> str | None:
        for char in text:
            if (cut := self._step(char)) is not None:
                return cut
        return None

    def _opening(self, char: str) -> None:
        """Follow the reply's opening (blanks, a fence and its language tag) to its first sign."""
        if char == "`" and self._lead in ("start", "fence"):
            self._lead = "fence"
        elif char.isspace():
            self._lead = "start"
        elif char.isalpha() and self._lead in ("fence", "tag"):
            self._lead = "tag"
        else:
            self._lead, self._calls_first = None, char == "{"
            self._over = self._calls_first and (
                self._calls == 0 or (self._time_over is not None and self._time_over())
            )

    def _step(self, char: str) -> str | None:
        if self._lead is not None:
            self._opening(char)
            if self._over:
                return "cut_time"
        if self._string:
            self._escape, self._string = (False, True) if self._escape else (char == "\\", char != '"')
            return None
        if char == "{":
            self._depth += 1
        elif char == "}" and self._depth:
            self._depth -= 1
            self._complete += not self._depth
            if self._calls_first and self._calls is not None and self._complete >= self._calls:
                return "cut_calls"
        elif char == '"' and self._depth:
            self._string = True
        if not self._report or self._complete or self._depth:
            return None
        if char == "\n":
            self._line_start, self._hashes = True, 0
        elif self._line_start and char == "#" and self._hashes < 6:
            self._hashes += 1
        elif self._line_start and char == " " and self._hashes:
            return "cut_report"
        else:
            self._line_start, self._hashes = False, 0
        return None


class TurnWatch:
    """One turn's progress (see the module docstring)."""

    def __init__(
        self,
        run: Run,
        turn: int,
        *,
        prompt_tokens: int = 0,
        pace: Pace | None = None,
        cut: Callable[[str], str | None] | None = None,
        aside: bool = False,
    ) -> None:
        """``prompt_tokens``: our estimate of the request (the server's count replaces it when it reports
        progress); ``pace``: the endpoint's prompt speed, measured on an earlier request or its preset's;
        ``cut``: fed the answer's pieces, the finish reason when the turn should stop there
        (:class:`StreamCut`); ``aside``: the answer is not the report (a local model's corrections), it
        streams as reasoning."""
        self._cut = cut
        self._aside = aside
        self._run = run
        self._prompt_tokens = prompt_tokens
        self._assumed_speed = pace.speed()[0] if pace is not None else None
        self._read: tuple[int, int, float] | None = None  # the server's last count (read, of), and when
        self._cached = 0  # of the prompt, from the server's cache (its progress says)
        self._turn = turn
        self._said = False
        self._started = run.parts.clock.monotonic()
        self._last_share = 0.0
        self.first_token_s: float | None = None
        self.speed: Speed | None = None
        self._text: list[str] = []
        self.calls_started = False
        self.prompt_total: int | None = None  # the server's count of the prompt, when it reports progress
        self.written = 0  # tokens the model wrote (answer, reasoning, calls), estimated piece by piece

    def prompt(self, progress: PromptProgress) -> ev.TurnProgress | None:
        """The server's count of what it has read; None when too little changed to say so again."""
        self.prompt_total = progress.total
        self._cached = progress.cached
        self._read = (progress.processed, progress.total, self._run.parts.clock.monotonic())
        fresh = progress.processed - progress.cached
        if fresh > 0 and progress.elapsed_s > 0:
            self.speed = Speed(prompt_tokens_per_s=fresh / progress.elapsed_s)
        share = progress.processed / progress.total
        if self._said and share - self._last_share < _PROGRESS_EVERY and progress.processed < progress.total:
            return None
        self._said, self._last_share = True, share
        rate = self.speed.prompt_tokens_per_s if self.speed is not None else None
        return ev.TurnProgress(
            t=self._run.t(),
            turn=self._turn,
            done=progress.processed,
            total=progress.total,
            tokens_per_s=round(rate, 1) if rate else None,
        )

    async def read(self, stream: AsyncIterator[StreamPart]) -> Step[ModelTurn | None]:
        """The turn's events as its parts stream, and one at least every :data:`HEARTBEAT_S` while nothing
        comes (:func:`paced`); raises TimeoutError when the run's time is up first."""
        run = self._run
        turn: ModelTurn | None = None
        async with (
            contextlib.aclosing(stream),  # type: ignore[type-var]
            contextlib.aclosing(paced(stream)) as parts,
            asyncio.timeout(_time_left(run)),
        ):
            async for part in parts:
                if isinstance(part, Quiet):
                    yield self.quiet()
                elif isinstance(part, PromptProgress):
                    if (progress := self.prompt(part)) is not None:
                        yield progress
                elif isinstance(part, TurnComplete):
                    turn = part.turn
                elif (event := self.event(part)) is not None:
                    yield event
                    reason = self._cut(part.text) if self._cut and isinstance(part, ContentDelta) else None
                    if reason is not None:
                        turn = self.cut(reason)
                        break  # the stream is closed on the way out: the server stops writing
                if turn is None and run.time_limit_reached() is not None:
                    raise TimeoutError  # the run's time is up: stop the model where it is
        yield Result(value=turn)

    def quiet(self) -> ev.TurnProgress:
        """What to say when nothing came for a while: the time taken so far and, before the first token,
        the prompt read by now at the measured or assumed speed (an estimate); after it, that the model is
        writing what the trace does not show as it comes (a tool call's arguments)."""
        now = self._run.parts.clock.monotonic()
        elapsed = round(now - self._started, 1)
        read, total, since = self._read or (0, self._prompt_tokens, self._started)
        rate = self.speed.prompt_tokens_per_s if self.speed is not None else self._assumed_speed
        writing = self.first_token_s is not None
        done = total if writing else min(total, read + int((rate or 0.0) * (now - since)))
        return ev.TurnProgress(
            t=self._run.t(),
            turn=self._turn,
            done=done,
            total=total,
            tokens_per_s=round(rate, 1) if rate else None,
            elapsed_s=elapsed,
            estimated=True,
            writing=writing,
        )

    def token(self, text: str = "") -> None:
        """Something the model wrote arrived (``text``: of its answer)."""
        if self.first_token_s is None:
            self.first_token_s = self._run.parts.clock.monotonic() - self._started
        if text:
            self._text.append(text)

    def event(
        self, part: ReasoningDelta | ContentDelta | ToolCallDelta
    ) -> ev.TextDelta | ev.ReasoningDelta | None:
        """The event for a piece of the model's writing (none for a tool call's pieces), noted."""
        self.written += written_tokens(part.arguments_delta if isinstance(part, ToolCallDelta) else part.text)
        if isinstance(part, ContentDelta):
            self.token(part.text)
            if self._aside:
                return ev.ReasoningDelta(t=self._run.t(), turn=self._turn, text=part.text)
            return ev.TextDelta(t=self._run.t(), turn=self._turn, text=part.text)
        self.token()
        if isinstance(part, ToolCallDelta):
            self.calls_started = True
            return None
        if part.was_answer:  # a late "</think>": the text so far was the model's thinking, not its report
            self._text.clear()
        return ev.ReasoningDelta(t=self._run.t(), turn=self._turn, text=part.text)

    def spent(self) -> Usage:
        """What this turn has cost so far, for a turn cut before its usage chunk: the prompt as the server
        counted it (its progress), else as estimated; what the model wrote, estimated piece by piece."""
        return cut_usage(
            prompt_tokens=self.prompt_total or self._prompt_tokens, written=self.written, cached=self._cached
        )

    def cut(self, reason: str) -> ModelTurn:
        """The turn stopped where :attr:`_cut` said (``reason``, its finish reason): what it wrote, its
        cost estimated."""
        return ModelTurn(
            content="".join(self._text), reasoning="", tool_calls=(), finish_reason=reason, usage=self.spent()
        )

    def partial(self, usage: Usage | None = None) -> ModelTurn | None:
        """The answer text that arrived, as a turn stopped early; None when there is too little of it or
        the turn was asking for tools (half a tool call is not worth running)."""
        text = "".join(self._text)
        if self.calls_started or len(text.strip()) < MIN_PARTIAL_CHARS:
            return None
        return ModelTurn(
            content=text, reasoning="", tool_calls=(), finish_reason="partial", usage=usage, partial=True
        )


def _time_left(run: Run) -> float:
    """Seconds until the run's time limit (at least a moment: the check itself says when it is reached)."""
    limits = run.parts.limits
    return max(1.0, limits.max_wall_seconds - (run.parts.clock.monotonic() - run.state.started))
