"""The vocabulary of one streamed model turn: the values a turn produces and the parts it streams.

Owns the values a model turn produces (:class:`Usage`, :class:`ModelTurn`; :class:`ToolCallRequest` is
:mod:`agent_core.tool_call`'s) and the parts yielded while a turn streams (:data:`StreamPart`: prompt
progress, reasoning, content and tool-call deltas, then one :class:`TurnComplete`). What builds them from
the server's chunks is :mod:`agent_core.llm.stream`.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.tool_call import ToolCallRequest

from .degeneration import Degeneration

__all__ = [
    "ContentDelta",
    "ModelTurn",
    "PromptProgress",
    "ReasoningDelta",
    "StreamPart",
    "ToolCallDelta",
    "TurnComplete",
    "Usage",
]


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token counts reported by the endpoint for one turn."""

    prompt_tokens: int
    completion_tokens: int
    cached_prompt_tokens: int = 0
    prompt_tokens_per_s: float | None = None  # llama.cpp's ``timings.prompt_per_second``, when it says


@dataclass(frozen=True, kw_only=True)
class ModelTurn:
    """Everything one model turn produced.

    ``finish_reason`` is whatever the server said (``"stop"``, ``"tool_calls"``, ``"length"``...); some
    servers (Ollama) say ``"stop"`` even when they called tools, so callers should look at ``tool_calls``
    rather than at the finish reason. ``usage`` is ``None`` when the server did not report it.

    ``degeneration``: the model started looping and the turn was stopped there (``content`` ends before
    the first repeat, ``finish_reason`` is ``"repetition"``). ``partial``: the turn was stopped before
    its end (a stall, the run's time limit) and ``content`` is what had arrived.
    """

    content: str
    reasoning: str
    tool_calls: tuple[ToolCallRequest, ...]
    finish_reason: str | None
    usage: Usage | None
    degeneration: Degeneration | None = None
    partial: bool = False


@dataclass(frozen=True, kw_only=True)
class ReasoningDelta:
    """A piece of the model's reasoning ("thinking") text. ``was_answer``: it had streamed as answer text
    (:class:`ContentDelta`) until a late ``</think>`` showed it was reasoning: the answer so far is void."""

    text: str
    was_answer: bool = False


@dataclass(frozen=True, kw_only=True)
class ContentDelta:
    """A piece of the model's visible answer text."""

    text: str


@dataclass(frozen=True, kw_only=True)
class ToolCallDelta:
    """Progress on the tool call at position ``index`` (stable for the turn, 0-based, order of appearance).

    ``id`` and ``name`` are reported once, on the delta where they first became known, and are ``None``
    afterwards; ``arguments_delta`` is the newly arrived piece of the JSON arguments (possibly ``""``).
    """

    index: int
    id: str | None
    name: str | None
    arguments_delta: str


@dataclass(frozen=True, kw_only=True)
class TurnComplete:
    """The last part of every successful turn."""

    turn: ModelTurn


@dataclass(frozen=True, kw_only=True)
class PromptProgress:
    """How far the server is in reading the prompt (llama.cpp's ``prompt_progress`` with
    ``return_progress``): ``processed`` of ``total`` tokens, ``cached`` of them from its cache, in
    ``elapsed_s`` seconds so far."""

    processed: int
    total: int
    cached: int
    elapsed_s: float


StreamPart = ReasoningDelta | ContentDelta | ToolCallDelta | PromptProgress | TurnComplete
