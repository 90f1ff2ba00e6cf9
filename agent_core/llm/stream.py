"""The accumulators that build one streamed model turn from OpenAI-compatible chunks.

Owns :class:`ToolCallAccumulator` and :class:`TurnAccumulator`, which turn ``ChatCompletionChunk``
objects (or the server's JSON) into the parts of :mod:`agent_core.llm.parts`.

We do not use the SDK's ``ChatCompletionStreamState``: with Ollama-style repeated ``role``/``id``/``name``
fields it concatenates them (``calccalc``) and a missing ``index`` raises ``TypeError``. The chunks the SDK
yields are built leniently (``construct``), so any field may be missing or ``None``: every access here is
guarded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openai.types.chat import ChatCompletionChunk

from agent_core.tool_call import ToolCallRequest

from .degeneration import Degeneration, RepetitionGuard
from .parts import ContentDelta, ModelTurn, PromptProgress, ReasoningDelta, StreamPart, ToolCallDelta, Usage
from .thinking import CLOSED_LATE, Piece, ThinkSplitter

__all__ = ["ToolCallAccumulator", "TurnAccumulator"]


class _CallBuilder:
    """Mutable state of one tool call while it streams (private to the accumulator)."""

    def __init__(self, ordinal: int, server_index: int | None) -> None:
        self.ordinal = ordinal
        self.server_index = server_index
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []

    def sort_key(self) -> tuple[int, int]:
        return (self.ordinal if self.server_index is None else self.server_index, self.ordinal)

    def build(self) -> ToolCallRequest:
        arguments = "".join(self.arguments)
        return ToolCallRequest(
            call_id=self.id or f"call_{self.ordinal}",
            tool=self.name,
            arguments=arguments if arguments.strip() else "{}",
        )


class ToolCallAccumulator:
    """Assembles streamed tool-call fragments into complete :class:`ToolCallRequest` values.

    Each fragment is matched to a call by its ``index``; when the index is missing, by its ``id``; when
    both are missing, it continues the last call. The first non-empty ``id`` wins and the ``name`` is set
    once (Ollama repeats both on every fragment: they are never concatenated); ``arguments`` pieces are
    concatenated, and null/empty arguments become ``"{}"``. Calls that never got an id receive a stable
    generated one, ``call_<n>`` (n = order of appearance).
    """

    def __init__(self) -> None:
        self._calls: list[_CallBuilder] = []
        self._by_index: dict[int, _CallBuilder] = {}
        self._by_id: dict[str, _CallBuilder] = {}
        self._last: _CallBuilder | None = None

    def feed(self, fragments: Sequence[Any] | None) -> list[ToolCallDelta]:
        """Consume one chunk's ``delta.tool_calls`` (SDK objects or dicts); return the deltas produced."""
        deltas: list[ToolCallDelta] = []
        for fragment in fragments or ():
            delta = self._feed_one(fragment)
            if delta is not None:
                deltas.append(delta)
        return deltas

    def result(self) -> tuple[ToolCallRequest, ...]:
        """The calls seen so far, in index order."""
        return tuple(call.build() for call in sorted(self._calls, key=_CallBuilder.sort_key))

    def _feed_one(self, fragment: Any) -> ToolCallDelta | None:
        index = _as_int(_field(fragment, "index"))
        call_id = _as_text(_field(fragment, "id"))
        function = _field(fragment, "function")
        name = _as_text(_field(function, "name"))
        arguments = _as_text(_field(function, "arguments"))

        call, is_new = self._find_or_create(index, call_id)
        new_id = new_name = None
        if call_id and not call.id:
            call.id = new_id = call_id
            self._by_id.setdefault(call_id, call)
        if name and not call.name:
            call.name = new_name = name
        if arguments:
            call.arguments.append(arguments)
        self._last = call
        if not (is_new or new_id or new_name or arguments):
            return None  # a pure repetition (Ollama): nothing new to report
        return ToolCallDelta(index=call.ordinal, id=new_id, name=new_name, arguments_delta=arguments)

    def _find_or_create(self, index: int | None, call_id: str) -> tuple[_CallBuilder, bool]:
        if index is not None:
            found = self._by_index.get(index)
            if found is None and call_id:
                found = self._by_id.get(call_id)
                if found is not None and found.server_index is None:
                    found.server_index = index
            if found is not None:
                self._by_index.setdefault(index, found)
                return found, False
        elif call_id:
            found = self._by_id.get(call_id)
            if found is not None:
                return found, False
        elif self._last is not None:
            return self._last, False
        call = _CallBuilder(len(self._calls), index)
        self._calls.append(call)
        if index is not None:
            self._by_index[index] = call
        return call, True


class TurnAccumulator:
    """Consumes the ``ChatCompletionChunk`` objects of one streamed turn.

    :meth:`feed` returns the stream parts each chunk produced; :meth:`finish` returns the whole turn.
    Only the first choice is read. ``role`` is ignored (Ollama repeats it on every delta). Reasoning is
    read from ``delta.reasoning_content`` (DeepSeek) or ``delta.reasoning`` (Ollama, vLLM >= 0.11), never
    both for one delta, since some servers send the same text under both names. Usage is taken from the
    final chunk whose ``choices`` is empty, or from a choice chunk that carries it (some servers do).
    ``max_reasoning_chars`` caps the reasoning kept per turn: what a server sends past it is dropped.
    ``guard``: watches the answer text for loops; once it finds one, the text past the cut is neither
    kept nor yielded and :attr:`degeneration` says where (the caller stops reading). Reasoning written
    inline in the content (``<think>…</think>``, :mod:`~agent_core.llm.thinking`) is reasoning: never the
    answer, never seen by the guard.
    """

    def __init__(
        self, *, max_reasoning_chars: int | None = None, guard: RepetitionGuard | None = None
    ) -> None:
        self._guard = guard
        self._content_chars = 0
        self.degeneration: Degeneration | None = None
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._reasoning_left = max_reasoning_chars  # None: no cap
        self._tools = ToolCallAccumulator()
        self._think = ThinkSplitter()
        self._finish_reason: str | None = None
        self._usage: Usage | None = None

    def feed(self, chunk: ChatCompletionChunk) -> list[StreamPart]:
        """Consume one chunk; return the parts it produced (possibly none)."""
        usage = _usage_of(_field(chunk, "usage"), _field(chunk, "timings"))
        choices = _field(chunk, "choices") or []
        if not choices:
            if usage is not None:
                self._usage = usage
            return []
        choice = choices[0]
        if usage is None:
            usage = _usage_of(_field(choice, "usage"), _field(chunk, "timings"))
        if usage is not None:
            self._usage = usage
        finish_reason = _as_text(_field(choice, "finish_reason"))
        if finish_reason:
            self._finish_reason = finish_reason
        progress = _progress_of(_field(chunk, "prompt_progress"))
        delta = _field(choice, "delta")
        parts: list[StreamPart] = [progress] if progress is not None else []
        if delta is not None:
            parts.extend(self._feed_delta(delta))
        return parts

    def finish(self, *, partial: bool = False) -> ModelTurn:
        """The turn as accumulated so far (``finish_reason`` is ``None`` if the server never sent one;
        ``"repetition"`` when the guard stopped it). ``partial``: the caller stopped it early."""
        for piece in self._think.finish():  # the few characters held back for a tag that did not come
            self._piece(piece)
        if self._guard is not None and self.degeneration is None and not partial:
            self.degeneration = self._guard.finish()
            if self.degeneration is not None:
                self._cut_content(self.degeneration.offset)
        return ModelTurn(
            content="".join(self._content),
            reasoning="".join(self._reasoning),
            tool_calls=self._tools.result(),
            finish_reason="repetition" if self.degeneration is not None else self._finish_reason,
            usage=self._usage,
            degeneration=self.degeneration,
            partial=partial,
        )

    def _cut_content(self, offset: int) -> None:
        text = "".join(self._content)
        self._content = [text[:offset]]

    def _feed_delta(self, delta: Any) -> list[StreamPart]:
        reasoning = _as_text(_field(delta, "reasoning_content")) or _as_text(_field(delta, "reasoning"))
        parts = self._reason(reasoning)
        content = _as_text(_field(delta, "content"))
        if self._think.settled:  # the common case, and the cheap one: answer text
            parts.extend(self._answer(content))
        else:
            for piece in self._think.feed(content):
                parts.extend(self._piece(piece))
        parts.extend(self._tools.feed(_field(delta, "tool_calls")))
        return parts

    def _piece(self, piece: Piece) -> list[StreamPart]:
        if piece == CLOSED_LATE:  # what streamed as the answer was reasoning: it moves, the guard restarts
            taken, self._content, self._content_chars = "".join(self._content), [], 0
            if self._guard is not None:
                self._guard = self._guard.fresh()
            return self._reason(taken, was_answer=True)
        kind, text = piece
        return self._reason(text) if kind == "reasoning" else self._answer(text)

    def _reason(self, text: str, *, was_answer: bool = False) -> list[StreamPart]:
        if text and self._reasoning_left is not None:
            text = text[: self._reasoning_left]  # past the cap it is neither kept nor shown
            self._reasoning_left -= len(text)
        if not (text or was_answer):
            return []
        self._reasoning.append(text)
        return [ReasoningDelta(text=text, was_answer=was_answer)]

    def _answer(self, text: str) -> list[StreamPart]:
        if not text or self.degeneration is not None:
            return []
        text = self._guarded(text)
        if not text:
            return []
        self._content.append(text)
        self._content_chars += len(text)
        return [ContentDelta(text=text)]

    def _guarded(self, content: str) -> str:
        """``content``, or the part of it before the guard's cut (the rest is dropped)."""
        if self._guard is None or self._guard.feed(content) is None:
            return content
        self.degeneration = self._guard.found
        assert self.degeneration is not None
        keep = self.degeneration.offset - self._content_chars
        if keep < 0:  # the cut lies in text already kept: drop it from there
            self._cut_content(self.degeneration.offset)
            self._content_chars = self.degeneration.offset
            return ""
        return content[:keep]


def _progress_of(raw: Any) -> PromptProgress | None:
    """llama.cpp's ``prompt_progress`` object, when the chunk carries one."""
    total = _as_int(_field(raw, "total")) if raw is not None else None
    if not total:
        return None
    processed = _as_int(_field(raw, "processed")) or 0
    elapsed = _field(raw, "time_ms")
    return PromptProgress(
        processed=min(processed, total),
        total=total,
        cached=_as_int(_field(raw, "cache")) or 0,
        elapsed_s=float(elapsed) / 1000 if isinstance(elapsed, int | float) else 0.0,
    )


def _field(model: Any, name: str) -> Any:
    """A field of an SDK object (declared, or only present as a pydantic extra) or of a plain dict."""
    if isinstance(model, Mapping):
        return model.get(name)
    value = getattr(model, name, None)
    if value is None:
        extra = getattr(model, "model_extra", None)
        if isinstance(extra, dict):
            value = extra.get(name)
    return value


def _usage_of(raw: Any, timings: Any = None) -> Usage | None:
    """Our :class:`Usage` from an SDK usage object or a plain dict (``None`` when absent). Cached prompt
    tokens: the largest of OpenAI's ``prompt_tokens_details.cached_tokens`` (llama.cpp sends it too),
    DeepSeek's ``prompt_cache_hit_tokens`` and llama.cpp's ``timings.cache_n`` (beside the usage)."""
    if raw is None:
        return None
    reported = (
        _as_int(_field(_field(raw, "prompt_tokens_details"), "cached_tokens")),
        _as_int(_field(raw, "prompt_cache_hit_tokens")),
        _as_int(_field(timings, "cache_n")) if timings is not None else None,
    )
    cached = max((n for n in reported if n is not None), default=None)
    return Usage(
        prompt_tokens=_as_int(_field(raw, "prompt_tokens")) or 0,
        completion_tokens=_as_int(_field(raw, "completion_tokens")) or 0,
        cached_prompt_tokens=cached or 0,
        prompt_tokens_per_s=_speed(_field(timings, "prompt_per_second")) if timings is not None else None,
    )


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    return value if isinstance(value, int) else None


def _speed(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < float("inf")
    return float(value) if ok else None
