"""The scripted model's values and its wire format: what one turn is, and the bodies it becomes.

* :class:`Turn` / :class:`ToolCallSpec`: what the fake model answers to one request, including the
  provider quirks we must survive (DeepSeek ``reasoning_content``, vLLM/Ollama ``reasoning``, Ollama's
  repeated ``role``/``id``/``name`` fields, interleaved tool-call fragments, a missing ``index``) and
  the failure modes (HTTP errors, a dropped connection mid-stream, a stream without ``[DONE]``, a hung
  response), which :class:`~testing.emulator.model_server.ScriptedModelServer` acts out.
* :func:`stream_chunks` / :func:`completion_body` / :func:`error_body` / :func:`usage_body` /
  :func:`sse_data`: pure functions from a ``Turn`` (and a :class:`ResponseMeta`) to wire bodies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from http import HTTPStatus
from typing import Any, Literal

JSONDict = dict[str, Any]
ReasoningField = Literal["reasoning_content", "reasoning"]

SYSTEM_FINGERPRINT = "fp_scripted"

# OpenAI-style (type, code) per status; anything else >= 500 is a server_error.
_ERROR_KINDS: Mapping[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("authentication_error", "invalid_api_key"),
    402: ("insufficient_balance", "insufficient_balance"),
    403: ("permission_error", None),
    404: ("not_found_error", "model_not_found"),
    408: ("timeout_error", None),
    429: ("rate_limit_error", "rate_limit_exceeded"),
}


@dataclass(frozen=True)
class ToolCallSpec:
    """One tool call the model makes. ``arguments`` is raw JSON text and may be malformed on purpose.

    ``id=None`` means the server assigns ``call_N`` (N counts up per server, in serving order).
    """

    name: str
    arguments: str = "{}"
    _: KW_ONLY
    id: str | None = None


@dataclass(frozen=True, kw_only=True)
class Turn:
    """What the scripted model answers to one request; every field is optional.

    Content: ``reasoning`` (streamed as ``delta.<reasoning_field>``), ``content``, ``tool_calls``.
    Wire shape: ``interleave`` puts fragments of several tool calls in one chunk (round-robin);
    ``ollama_style`` repeats ``role`` on every delta and ``id``/``type``/``function.name`` on every
    tool-call fragment; ``omit_index`` drops ``index`` from tool-call fragments; ``chunk_size`` is the
    number of characters per text/arguments piece.
    Ending: ``finish_reason`` (default ``"tool_calls"`` if there are tool calls, else ``"stop"``);
    ``usage=(prompt, completion)`` is sent as a last chunk with ``choices == []`` only when the request
    asked ``stream_options.include_usage`` (always in a non-streaming body); ``cache_hit_tokens`` feeds
    DeepSeek's ``prompt_cache_hit_tokens``/``prompt_cache_miss_tokens``.
    Progress: ``prompt_progress``, ``(processed, total, time_ms)`` triples, each streamed first as a chunk
    with llama.cpp's ``prompt_progress`` object (``return_progress``).
    Timing: ``latency`` seconds before the response headers (``None``: the server's default),
    ``delay_per_chunk`` seconds between SSE events, ``keepalive_comments`` ``: keep-alive`` comments
    before the first data event.
    Failures: ``status`` answers that HTTP status with an OpenAI-style error body (``error_message``,
    ``retry_after`` -> ``retry-after`` header); ``disconnect_after=N`` drops the connection after N data
    events (``[DONE]`` counts; a shorter stream is cut where it would have ended); ``no_done`` ends the
    stream cleanly but without a finish chunk, usage or ``[DONE]``; ``hang`` sends headers and then
    nothing until the client goes away or the server stops; ``empty`` streams only a finish chunk.
    A non-streaming request gets the same turn assembled in one ``chat.completion`` body.
    """

    reasoning: str = ""
    content: str = ""
    tool_calls: Sequence[ToolCallSpec] = ()
    reasoning_field: ReasoningField = "reasoning_content"
    interleave: bool = False
    ollama_style: bool = False
    omit_index: bool = False
    finish_reason: str | None = None
    usage: tuple[int, int] | None = None
    cache_hit_tokens: int = 0
    chunk_size: int = 8
    delay_per_chunk: float = 0.0
    latency: float | None = None
    keepalive_comments: int = 0
    status: int | None = None
    retry_after: float | None = None
    error_message: str = ""
    disconnect_after: int | None = None
    no_done: bool = False
    hang: bool = False
    empty: bool = False
    prompt_progress: Sequence[tuple[int, int, int]] = ()

    def __post_init__(self) -> None:
        # A tuple keeps the frozen value hashable and safe from later mutation by the caller.
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        object.__setattr__(self, "prompt_progress", tuple(self.prompt_progress))
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {self.chunk_size}")
        if self.disconnect_after is not None and self.disconnect_after < 0:
            raise ValueError(f"disconnect_after must be >= 0, got {self.disconnect_after}")
        if self.status is not None and not 400 <= self.status <= 599:
            raise ValueError(f"status must be an HTTP error status (4xx/5xx), got {self.status}")
        if self.usage is not None and not 0 <= self.cache_hit_tokens <= self.usage[0]:
            raise ValueError("cache_hit_tokens must lie between 0 and the prompt tokens")

    @property
    def effective_finish_reason(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls and not self.empty else "stop"

    @classmethod
    def final(cls, text: str, **options: Any) -> Turn:
        """A plain answer: ``Turn.final("done", usage=(10, 2))``."""
        return cls(content=text, **options)

    @classmethod
    def calls(cls, *calls: ToolCallSpec | tuple[str, Mapping[str, Any] | str], **options: Any) -> Turn:
        """Tool calls from specs or ``(name, arguments)`` pairs; dict arguments are serialised to JSON."""
        specs = tuple(
            call if isinstance(call, ToolCallSpec) else ToolCallSpec(call[0], _arguments_text(call[1]))
            for call in calls
        )
        return cls(tool_calls=specs, **options)

    @classmethod
    def error(
        cls, status: int, message: str = "", *, retry_after: float | None = None, **options: Any
    ) -> Turn:
        """An HTTP error answer: ``Turn.error(429, retry_after=1)``."""
        return cls(status=status, error_message=message, retry_after=retry_after, **options)


def _arguments_text(arguments: Mapping[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


@dataclass(frozen=True, kw_only=True)
class ResponseMeta:
    """Per-response identity echoed into every chunk; ``call_ids`` align with ``Turn.tool_calls``."""

    completion_id: str
    model: str
    created: int
    call_ids: tuple[str, ...] = ()


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def usage_body(turn: Turn) -> JSONDict | None:
    if turn.usage is None:
        return None
    prompt, completion = turn.usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": turn.cache_hit_tokens},
        "prompt_cache_hit_tokens": turn.cache_hit_tokens,
        "prompt_cache_miss_tokens": prompt - turn.cache_hit_tokens,
    }


def _call_fragments(turn: Turn, index: int, call: ToolCallSpec, call_id: str) -> list[JSONDict]:
    def whole(arguments: str) -> JSONDict:
        function = {"name": call.name, "arguments": arguments}
        return {"index": index, "id": call_id, "type": "function", "function": function}

    pieces = _pieces(call.arguments, turn.chunk_size) or [""]
    if turn.ollama_style:
        fragments = [whole(piece) for piece in pieces]
    else:
        fragments = [whole(""), *({"index": index, "function": {"arguments": p}} for p in pieces if p)]
    if turn.omit_index:
        for fragment in fragments:
            del fragment["index"]
    return fragments


def _tool_call_deltas(turn: Turn, call_ids: Sequence[str]) -> list[JSONDict]:
    per_call = [
        _call_fragments(turn, index, call, call_id)
        for index, (call, call_id) in enumerate(zip(turn.tool_calls, call_ids, strict=True))
    ]
    if turn.interleave:
        rounds = max((len(fragments) for fragments in per_call), default=0)
        groups = [[fragments[k] for fragments in per_call if k < len(fragments)] for k in range(rounds)]
    else:
        groups = [[fragment] for fragments in per_call for fragment in fragments]
    return [{"tool_calls": group} for group in groups]


def _chunk(meta: ResponseMeta, choices: list[JSONDict]) -> JSONDict:
    return {
        "id": meta.completion_id,
        "object": "chat.completion.chunk",
        "created": meta.created,
        "model": meta.model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": choices,
    }


def _choice(delta: JSONDict, finish_reason: str | None = None) -> JSONDict:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}


def stream_chunks(turn: Turn, meta: ResponseMeta, *, include_usage: bool) -> list[JSONDict]:
    """The ``chat.completion.chunk`` objects of a streamed turn, in order, without ``[DONE]``."""
    deltas: list[JSONDict] = []
    if not turn.empty:
        deltas += [{turn.reasoning_field: p} for p in _pieces(turn.reasoning, turn.chunk_size)]
        deltas += [{"content": p} for p in _pieces(turn.content, turn.chunk_size)]
        deltas += _tool_call_deltas(turn, meta.call_ids)
        if turn.ollama_style:
            deltas = [{"role": "assistant", **delta} for delta in deltas]
        else:
            deltas.insert(0, {"role": "assistant", "content": ""})
    chunks = [
        {**_chunk(meta, [_choice({"role": "assistant", "content": None})]), "prompt_progress": progress}
        for progress in (
            {"total": total, "cache": 0, "processed": done, "time_ms": ms}
            for done, total, ms in turn.prompt_progress
        )
    ]
    chunks += [_chunk(meta, [_choice(delta)]) for delta in deltas]
    if turn.no_done:
        return chunks
    final_delta: JSONDict = {"role": "assistant", "content": ""} if turn.ollama_style else {}
    chunks.append(_chunk(meta, [_choice(final_delta, turn.effective_finish_reason)]))
    usage = usage_body(turn)
    if include_usage and usage is not None:
        chunks.append({**_chunk(meta, []), "usage": usage})
    return chunks


def completion_body(turn: Turn, meta: ResponseMeta) -> JSONDict:
    """The single ``chat.completion`` body answering a non-streaming request."""
    message: JSONDict = {"role": "assistant", "content": turn.content or (None if turn.tool_calls else "")}
    if turn.reasoning:
        message[turn.reasoning_field] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call, call_id in zip(turn.tool_calls, meta.call_ids, strict=True)
        ]
    body: JSONDict = {
        "id": meta.completion_id,
        "object": "chat.completion",
        "created": meta.created,
        "model": meta.model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": turn.effective_finish_reason}
        ],
    }
    usage = usage_body(turn)
    if usage is not None:
        body["usage"] = usage
    return body


def error_body(status: int, message: str = "") -> JSONDict:
    """An OpenAI-style error body; an empty message becomes the HTTP reason phrase."""
    default_kind = "server_error" if status >= 500 else "invalid_request_error"
    kind, code = _ERROR_KINDS.get(status, (default_kind, None))
    text = message or HTTPStatus(status).phrase
    return {"error": {"message": text, "type": kind, "param": None, "code": code}}


def sse_data(payload: JSONDict | str) -> bytes:
    """One server-sent event carrying ``payload`` (JSON, or text such as ``[DONE]``)."""
    text = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
    return f"data: {text}\n\n".encode()
