"""The model's pace: how fast an endpoint reads a prompt, and what that allows the first request to hold.

A 1.5B model on two CPU cores reads about 40 prompt tokens a second: a 5,000-token first request keeps
its user two minutes without a word. So the brief (the evidence gathered before the first turn) is sized
for the whole first request (system prompt, tool list, task and brief) to be read within
:data:`FIRST_TOKEN_WITHIN_S` at the endpoint's speed, and never beyond a third of the window. A local
model that must read files of its own before its report (:data:`MIN_LOCAL_READS`) has the same minute
for all of it, so that its report's first word comes within :data:`FIRST_TOKEN_WITHIN_S`: half of the
time (after its calls are written, :data:`CALL_WRITING_S` each) for the first request, half for what it
reads; each observation it gets is cut to its share of the time then left (:meth:`Pace.read_tokens`),
never more than :data:`READ_WITHIN_S` of reading, never under :data:`MIN_READ_TOKENS`. The speed is:

- measured: llama.cpp's own ``timings.prompt_per_second``, else its prompt progress, else the prompt
  tokens a turn read fresh over the time to its first token; remembered per endpoint for the process
  (:class:`PromptSpeeds`, one per :class:`~agent_core.top.services.Services`), the latest measurement
  winning (a machine's load changes);
- else the preset's assumption (llama.cpp, Ollama: 40 tokens/s);
- else (a hosted API, a custom endpoint) the window alone decides.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.llm import ModelConfig, Usage

FIRST_TOKEN_WITHIN_S = 60.0
"""How long the first request may take to read, on an idle machine."""
MIN_FRESH_TOKENS = 256
"""Fewer prompt tokens read fresh (not from the server's cache) measure a request's overhead, not a speed."""
MIN_BRIEF_TOKENS = 400
"""The brief's floor, whatever the speed: the repository's summary, and a little of its README."""
CHARS_PER_TOKEN = 3.0
"""Characters per token of what the model reads (the brief, observations): ~3.3 for English and code."""
MIN_LOCAL_READS = 2
"""Files a local model reads itself before its draft is taken (asked once): the real 1.5B read one source
file and wrote of the tests and the CI."""
CALL_WRITING_S = 5.0
"""A tool call a small local model writes (about 50 tokens of JSON at about 10 tokens/s on two cores)."""
REPORT_START_S = 10.0
"""Kept from a local model's reading time for what comes between its last read and its report's first
word (the real 1.5B asked again for a file it had, or replied empty once, before writing)."""
READ_WITHIN_S = 15.0
"""The most reading one observation may cost a local model (at its prompt speed)."""
MIN_READ_TOKENS = 300
"""An observation's floor for a local model, whatever the time: a file's head is worth reading."""
_MARGIN = 0.05  # of the window: estimates are estimates


def fitting_budget(window: int, max_tokens: int, setting: int | None = None) -> int:
    """Prompt tokens that fit ``window`` with a ``max_tokens`` reply and a small margin (or ``setting``,
    the CONTEXT_BUDGET_TOKENS setting, when it is smaller)."""
    fits = int(window * (1 - _MARGIN)) - max_tokens
    return max(256, min(fits, setting) if setting else fits)


class PromptSpeeds:
    """Prompt speeds (tokens/s) measured per endpoint, for the life of the process."""

    def __init__(self) -> None:
        self._by_endpoint: dict[str, float] = {}

    def get(self, endpoint: str) -> float | None:
        return self._by_endpoint.get(endpoint)

    def learn(self, endpoint: str, tokens_per_s: float) -> None:
        self._by_endpoint[endpoint] = tokens_per_s


def measured_speed(
    usage: Usage | None, progress_speed: float | None, first_token_s: float | None
) -> float | None:
    """What one turn says of the endpoint's prompt speed; None when it read too little fresh to say."""
    if usage is None or usage.prompt_tokens - usage.cached_prompt_tokens < MIN_FRESH_TOKENS:
        return None
    if usage.prompt_tokens_per_s:
        return usage.prompt_tokens_per_s
    if progress_speed:
        return progress_speed
    if first_token_s:
        return (usage.prompt_tokens - usage.cached_prompt_tokens) / first_token_s
    return None


@dataclass(frozen=True, kw_only=True)
class BriefSize:
    """The brief's size in tokens, and what decided it."""

    tokens: int
    by_window: int  # what the window alone allows
    fixed: int  # the first request's tokens besides the brief (system prompt, tools, task)
    speed: float | None  # prompt tokens/s it was sized for; None: the window alone
    measured: bool

    @property
    def by_speed(self) -> bool:
        """The speed, not the window, set the size."""
        return self.tokens < self.by_window


class Pace:
    """One endpoint's pace, for one analysis: its speed as measured (or assumed), and the brief it allows."""

    def __init__(self, speeds: PromptSpeeds | None, config: ModelConfig | None) -> None:
        self._speeds = speeds or PromptSpeeds()
        self._endpoint = f"{config.base_url} {config.model}" if config is not None else ""
        self._assumed = config.prompt_speed if config is not None else None
        self._local = config is not None and config.local

    @property
    def local(self) -> bool:
        """A server of the user's own (a local preset, an address nearby, or /v1/models says so)."""
        return self._local or self._assumed is not None

    def speed(self) -> tuple[float | None, bool]:
        """(prompt tokens/s, whether measured); (None, False) when neither measured nor assumed."""
        measured = self._speeds.get(self._endpoint)
        return (measured, True) if measured is not None else (self._assumed, False)

    def learn(self, tokens_per_s: float | None) -> None:
        if tokens_per_s is not None and tokens_per_s > 0:
            self._speeds.learn(self._endpoint, tokens_per_s)

    def brief_size(self, *, budget: int, fixed: int, reads: int = 0) -> BriefSize:
        """The brief for a first request whose other parts take ``fixed`` tokens, in a ``budget``;
        ``reads``: the files the model must read itself before its report (its time shared with them)."""
        by_window = budget // 3
        speed, measured = self.speed()
        tokens = by_window
        if speed is not None:
            seconds = FIRST_TOKEN_WITHIN_S - reads * CALL_WRITING_S
            seconds = seconds / 2 if reads else seconds
            tokens = min(by_window, max(MIN_BRIEF_TOKENS, int(speed * seconds) - fixed))
        return BriefSize(tokens=tokens, by_window=by_window, fixed=fixed, speed=speed, measured=measured)

    def reads_over(self, elapsed: float) -> bool:
        """A local model's time for reading is over, ``elapsed`` seconds into the run: one more read (its
        call written, its floor of tokens read) would bring its report's first word past the minute."""
        speed, _ = self.speed()
        if speed is None:
            return False
        one_more = CALL_WRITING_S + MIN_READ_TOKENS / speed + REPORT_START_S
        return elapsed + one_more > FIRST_TOKEN_WITHIN_S

    def read_tokens(self, *, elapsed: float, calls: int, due_after: int) -> int | None:
        """Prompt tokens each of a turn's ``calls`` observations may take for a local model (None: any
        other endpoint, the window alone decides): their share of the time left, ``elapsed`` seconds into
        the run, before its report's first word is due (less :data:`REPORT_START_S`), with ``due_after``
        reads still to come (one more turn of calls to write); at most :data:`READ_WITHIN_S` of reading
        each, at least :data:`MIN_READ_TOKENS`."""
        speed, _ = self.speed()
        if not self.local or speed is None or calls < 1:
            return None
        left = FIRST_TOKEN_WITHIN_S - elapsed - REPORT_START_S - (CALL_WRITING_S if due_after else 0.0)
        seconds = min(READ_WITHIN_S, left / (calls + due_after))
        return max(MIN_READ_TOKENS, int(speed * seconds))
