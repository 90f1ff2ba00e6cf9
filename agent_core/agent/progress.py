"""What one model turn has done so far, for the trace and for whatever must end it early.

:class:`TurnWatch` follows a streaming turn: the prompt it is reading, where the server reports it
(``turn_progress`` events: "reading the brief: N tokens", then how far, with percent and ETA), when its
first token came, and the answer text that has arrived (kept, so that a turn stopped by the run's time
limit or a stall still has its partial report).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_core import events as ev
from agent_core.agent.run import Run
from agent_core.llm import ContentDelta, ModelTurn, PromptProgress, ReasoningDelta, ToolCallDelta, Usage

MIN_PARTIAL_CHARS = 200
"""A stopped turn's text shorter than this is not worth keeping as a report (a sentence, a heading)."""
_PROGRESS_EVERY = 0.05  # of the prompt: progress events closer than this are not sent


@dataclass(frozen=True, kw_only=True)
class Speed:
    """A model's measured prompt speed (tokens per second)."""

    prompt_tokens_per_s: float


class TurnWatch:
    """One turn's progress (see the module docstring)."""

    def __init__(self, run: Run, turn: int) -> None:
        self._run = run
        self._turn = turn
        self._said = False
        self._started = run.parts.clock.monotonic()
        self._last_share = 0.0
        self.first_token_s: float | None = None
        self.speed: Speed | None = None
        self._text: list[str] = []
        self.calls_started = False

    def prompt(self, progress: PromptProgress) -> ev.TurnProgress | None:
        """The server's count of what it has read; None when too little changed to say so again."""
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
        if isinstance(part, ContentDelta):
            self.token(part.text)
            return ev.TextDelta(t=self._run.t(), turn=self._turn, text=part.text)
        self.token()
        if isinstance(part, ToolCallDelta):
            self.calls_started = True
            return None
        if part.was_answer:  # a late "</think>": the text so far was the model's thinking, not its report
            self._text.clear()
        return ev.ReasoningDelta(t=self._run.t(), turn=self._turn, text=part.text)

    def partial(self, usage: Usage | None = None) -> ModelTurn | None:
        """The answer text that arrived, as a turn stopped early; None when there is too little of it or
        the turn was asking for tools (half a tool call is not worth running)."""
        text = "".join(self._text)
        if self.calls_started or len(text.strip()) < MIN_PARTIAL_CHARS:
            return None
        return ModelTurn(
            content=text, reasoning="", tool_calls=(), finish_reason="partial", usage=usage, partial=True
        )
