"""The model seam (:class:`ChatModel`) and its implementation over any OpenAI-compatible endpoint.

:class:`OpenAIChatModel` streams one turn through ``openai.AsyncOpenAI`` and maps every SDK error once,
here, to :class:`~agent_core.errors.LLMError` (or a subclass) with a message a person understands.
Messages are built from our own words, the HTTP status and a short, scrubbed excerpt of the server's
message: never from the SDK's exception text, which can carry request details. For an endpoint a
stranger chose (``trusted=False``) not even that: only the class of the failure (unreachable, not
allowed, unauthorised, refused, bad response), so the server cannot be used to read other services'
answers or to tell which ports answer.

Timeouts: the SDK's read timeout restarts on every byte, and servers send keep-alive comments, so a
stalled turn would never time out. Each turn therefore has a wall-clock deadline, checked around every
wait for the server.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
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
from .stream import StreamPart, TurnAccumulator, TurnComplete

__all__ = [
    "ChatModel",
    "ContextExceededError",
    "IncompleteStreamError",
    "OpenAIChatModel",
    "ToolsUnsupportedError",
    "make_openai_client",
]

logger = logging.getLogger(__name__)

ToolChoice = Literal["auto", "none"]

_CONNECT_TIMEOUT = 10.0


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
    ``max_retries``); nothing is retried once output has streamed.
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
    ) -> None:
        self.name = model
        self._client = client
        self._trusted = trusted
        self._max_reasoning_chars = max_reasoning_chars
        self._turn_timeout = turn_timeout
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._extra_body = dict(extra_body) if extra_body else None

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
        deadline = asyncio.get_running_loop().time() + self._turn_timeout
        accumulator = TurnAccumulator(max_reasoning_chars=self._max_reasoning_chars)
        stream = await self._open(messages, tools, stop, deadline, tool_choice)
        async with stream:  # releases the connection on early exit, error or cancellation
            while True:
                chunk = await self._next_chunk(stream, deadline)
                if chunk is None:
                    break
                for part in accumulator.feed(chunk):
                    yield part
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
        deadline: float,
        tool_choice: ToolChoice = "auto",
    ) -> openai.AsyncStream[openai.types.chat.ChatCompletionChunk]:
        try:
            async with asyncio.timeout_at(deadline):
                return await self._client.chat.completions.create(
                    model=self.name,
                    messages=cast(Any, messages),
                    tools=cast(Any, tools) if tools else openai.omit,
                    tool_choice=tool_choice if tools else openai.omit,
                    temperature=self._temperature if self._temperature is not None else openai.omit,
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

    async def _next_chunk(
        self, stream: openai.AsyncStream[openai.types.chat.ChatCompletionChunk], deadline: float
    ) -> openai.types.chat.ChatCompletionChunk | None:
        try:
            async with asyncio.timeout_at(deadline):
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
            f"the model endpoint timed out: the turn took longer than {self._turn_timeout:g}s",
            kind="timeout",
            hint="the server is slow or stalled; try again or use a faster model",
        )

    @property
    def _key(self) -> str:
        return str(getattr(self._client, "api_key", "") or "")
