"""The model seam (:class:`ChatModel`) and its implementation over any OpenAI-compatible endpoint.

:class:`OpenAIChatModel` streams one turn through ``openai.AsyncOpenAI`` and maps every SDK error once,
here, to :class:`~agent_core.errors.LLMError` (or a subclass) with a message a person understands.
Messages are built from our own words, the HTTP status and a short, scrubbed excerpt of the server's
message: never from the SDK's exception text, which can carry request details. For an endpoint a
stranger chose (``trusted=False``) not even that: only the class of the failure (unreachable, not
allowed, unauthorised, refused, bad response), so the server cannot be used to read other services'
answers or to tell which ports answer.

Timeouts measure stalls, not work: the SDK's read timeout restarts on every byte, and servers send
keep-alive comments, so a stalled turn would never time out. Each wait for the server (the response,
then every chunk) therefore has its own deadline, ``stall_timeout``: a turn fails when nothing arrives
for that long (a keep-alive comment is not progress; a token of the answer or of the model's thinking, or
a prompt-progress chunk, is), never because a slow model is still writing. What bounds a turn's length
is ``max_tokens`` and the run's time limit (:mod:`agent_core.agent.model_turn`).

A reply that starts looping (:mod:`~agent_core.llm.degeneration`) is stopped at the first repeat: the
connection is closed, which stops the server generating, and the turn ends with what came before.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast

import httpx2
import openai

from agent_core.errors import ConfigurationError, LLMError

from .api_errors import (
    ContextExceededError,
    IncompleteStreamError,
    ToolsUnsupportedError,
    classify_api_error,
    map_api_error,
)
from .degeneration import RepetitionGuard
from .parts import StreamPart, TurnComplete
from .stream import TurnAccumulator

__all__ = [
    "ChatModel",
    "ContextExceededError",
    "IncompleteStreamError",
    "OpenAIChatModel",
    "Sampling",
    "ToolsUnsupportedError",
    "make_openai_client",
]

FAIR_CHUNKS = 8  # stream chunks read (about 1 ms of work) before the loop serves anything else

logger = logging.getLogger(__name__)

ToolChoice = Literal["auto", "none"]

_CONNECT_TIMEOUT = 10.0


@dataclass(frozen=True, kw_only=True)
class Sampling:
    """Sampling settings that discourage loops, each sent only when set: ``frequency_penalty`` and
    ``presence_penalty`` are OpenAI's; ``repeat_penalty`` is llama.cpp's and Ollama's (sent in the body
    beside them, where OpenAI-compatible servers that do not know it ignore it)."""

    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    repeat_penalty: float | None = None

    def body(self) -> dict[str, float]:
        """The non-standard fields, for the request's extra body."""
        return {} if self.repeat_penalty is None else {"repeat_penalty": self.repeat_penalty}


class ChatModel(Protocol):
    """One streamed model turn. The last item of a successful stream is a :class:`TurnComplete`.

    Implementations raise :class:`~agent_core.errors.LLMError` (or a subclass) for every endpoint failure
    and let ``asyncio.CancelledError`` through.
    """

    name: str

    def stream_turn(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None,
        stop: Sequence[str] | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> AsyncIterator[StreamPart]:
        """``stop``: sequences that end the reply (the text protocol stops before an invented Observation).
        ``tool_choice="none"``: the tools are sent (the request keeps the prefix every request of the
        run shares, which the provider's prompt cache reuses) but the model must answer in text."""
        ...


def make_openai_client(
    *,
    base_url: str,
    api_key: str,
    max_retries: int = 2,
    timeout: float = 60.0,
    http_client: httpx2.AsyncClient | None = None,
) -> openai.AsyncOpenAI:
    """An SDK client with a short connect timeout and ``timeout`` as the (per-byte) read timeout.

    ``http_client`` lets many SDK clients (one per session key) share one connection pool and SSL
    context; its owner closes it, not the SDK client.

    Raises ConfigurationError for an empty key: the SDK would send ``Bearer `` and get a confusing 401.
    """
    if not api_key:
        raise ConfigurationError("no API key for the model endpoint", hint="set API_KEY")
    return openai.AsyncOpenAI(
        base_url=base_url,
        api_key=api_key,
        max_retries=max_retries,
        timeout=httpx2.Timeout(timeout, connect=min(_CONNECT_TIMEOUT, timeout)),
        http_client=http_client,
    )


class OpenAIChatModel:
    """:class:`ChatModel` over ``openai.AsyncOpenAI``; the caller owns (and closes) the client.

    The SDK retries connection errors, timeouts, 408/409/429 and 5xx before the stream starts (its
    ``max_retries``); nothing is retried once output has streamed. ``turn_timeout`` is the longest wait
    for progress (see the module docstring); ``guard=False`` lets loops through.
    """

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        *,
        model: str,
        turn_timeout: float,
        max_tokens: int,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        trusted: bool = True,
        max_reasoning_chars: int | None = None,
        sampling: Sampling | None = None,
        guard: bool = True,
    ) -> None:
        self.name = model
        self._sampling = sampling or Sampling()
        self._guard = guard
        self._client = client
        self._trusted = trusted
        self._max_reasoning_chars = max_reasoning_chars
        self._turn_timeout = turn_timeout
        self._max_tokens = max_tokens
        self._temperature = temperature
        body = {**(extra_body or {}), **self._sampling.body()}
        self._extra_body = body or None

    @property
    def max_tokens(self) -> int:
        """The longest reply a turn may write (sent with every request)."""
        return self._max_tokens

    async def stream_turn(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None,
        stop: Sequence[str] | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> AsyncIterator[StreamPart]:
        """Stream one turn. Raises LLMError subclasses; IncompleteStreamError after yielding the parts."""
        guard = RepetitionGuard() if self._guard else None
        accumulator = TurnAccumulator(max_reasoning_chars=self._max_reasoning_chars, guard=guard)
        stream = await self._open(messages, tools, stop, tool_choice)
        read = 0
        async with stream:  # releases the connection on early exit, error or cancellation
            while accumulator.degeneration is None:  # a loop: stop reading, the server stops writing
                chunk = await self._next_chunk(stream)
                if chunk is None:
                    break
                for part in accumulator.feed(chunk):
                    yield part
                read += 1
                if read % FAIR_CHUNKS == 0:
                    # Chunks already received are read without the loop ever waiting: a fast server's
                    # 4,000 chunks (one turn of 4,000 tool calls, a 50 KB reply in 13-character deltas)
                    # held every other visitor's requests for a second. Let them in between.
                    await asyncio.sleep(0)
        turn = accumulator.finish()
        if turn.finish_reason is None:
            raise IncompleteStreamError(
                "the model stream ended before the turn was complete",
                kind="stream",
                hint="the server closed the stream without a finish reason; the turn can be retried",
            )
        yield TurnComplete(turn=turn)

    async def _open(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        stop: Sequence[str] | None,
        tool_choice: ToolChoice = "auto",
    ) -> openai.AsyncStream[openai.types.chat.ChatCompletionChunk]:
        sampling = self._sampling
        try:
            async with asyncio.timeout(self._turn_timeout):
                stream = await self._client.chat.completions.create(
                    model=self.name,
                    messages=cast(Any, messages),
                    tools=cast(Any, tools) if tools else openai.omit,
                    tool_choice=tool_choice if tools else openai.omit,
                    temperature=self._temperature if self._temperature is not None else openai.omit,
                    frequency_penalty=_or_omit(sampling.frequency_penalty),
                    presence_penalty=_or_omit(sampling.presence_penalty),
                    max_tokens=self._max_tokens,
                    stop=list(stop) if stop else openai.omit,
                    stream=True,
                    stream_options={"include_usage": True},
                    extra_body=self._extra_body,
                )
        except TimeoutError as exc:
            raise self._deadline_error() from exc
        except openai.APIError as exc:
            raise self._error(exc, started=False, tools_sent=bool(tools)) from exc
        # Chunks as the server's JSON, not SDK objects: TurnAccumulator reads both alike, and building an
        # SDK object per chunk (openai._models.construct_type) was a quarter of the app's CPU per analysis
        # (py-spy: `python -m bench.profile_app --py-spy`). The stream reads this before its first chunk;
        # an SDK that no longer does yields SDK objects again: slower, still right.
        stream._cast_to = cast(Any, object)
        return stream

    async def _next_chunk(
        self, stream: openai.AsyncStream[openai.types.chat.ChatCompletionChunk]
    ) -> openai.types.chat.ChatCompletionChunk | None:
        try:
            async with asyncio.timeout(self._turn_timeout):
                return await stream.__anext__()
        except StopAsyncIteration:
            return None
        except TimeoutError as exc:
            raise self._deadline_error() from exc
        except json.JSONDecodeError as exc:
            raise LLMError("the model stream sent data that is not JSON", kind="stream") from exc
        except openai.APIError as exc:
            raise self._error(exc, started=True, tools_sent=False) from exc

    def _error(self, exc: openai.APIError, *, started: bool, tools_sent: bool) -> LLMError:
        if self._trusted:
            return map_api_error(exc, model=self.name, started=started, tools_sent=tools_sent, key=self._key)
        return classify_api_error(exc, started=started, tools_sent=tools_sent)

    def _deadline_error(self) -> LLMError:
        return LLMError(
            f"the model endpoint timed out: nothing arrived for {self._turn_timeout:g}s",
            kind="timeout",
            hint="the server is slow or stalled; try again or use a faster model",
        )

    @property
    def _key(self) -> str:
        return str(getattr(self._client, "api_key", "") or "")


def _or_omit(value: float | None) -> Any:
    return openai.omit if value is None else value
