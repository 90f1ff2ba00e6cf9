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
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Protocol, cast

import httpx2
import openai

from agent_core.errors import ConfigurationError, LLMError

from .endpoint_guard import blocked
from .stream import StreamPart, TurnAccumulator, TurnComplete

__all__ = [
    "ChatModel",
    "IncompleteStreamError",
    "OpenAIChatModel",
    "ToolsUnsupportedError",
    "make_openai_client",
]

logger = logging.getLogger(__name__)

_CONNECT_TIMEOUT = 10.0
_SERVER_MESSAGE_LIMIT = 200

# How servers say "this model/endpoint cannot take ``tools``" (Ollama, vLLM, llama.cpp, generic).
_TOOLS_UNSUPPORTED = re.compile(
    r"does not support tools|enable-auto-tool-choice|tools param requires|--jinja"
    r"|tools? (?:calling |use )?(?:is |are )?not supported",
    re.IGNORECASE,
)
_SECRETS = (
    re.compile(r"(?i)\bbearer\s+\S+"),
    re.compile(r"\bsk-[\w-]{4,}"),
    re.compile(r"\bhf_[A-Za-z0-9]{8,}"),
    re.compile(r"\b(?:gh[pousr]|github_pat)_\w{8,}"),
)
_MIN_LITERAL_KEY = 8  # shorter "keys" are placeholders (e.g. "ollama") and common words


class IncompleteStreamError(LLMError):
    """The stream broke off, or ended without a finish reason (no ``[DONE]``), after output had started.

    Raised after yielding whatever arrived; the turn is unusable and the SDK will not replay it, so the
    loop may retry the whole turn once.
    """


class ToolsUnsupportedError(LLMError):
    """The endpoint rejected ``tools``: switch this session to the text protocol."""


class ChatModel(Protocol):
    """One streamed model turn. The last item of a successful stream is a :class:`TurnComplete`.

    Implementations raise :class:`~agent_core.errors.LLMError` (or a subclass) for every endpoint failure
    and let ``asyncio.CancelledError`` through.
    """

    name: str

    def stream_turn(
        self, messages: Sequence[Mapping[str, Any]], *, tools: Sequence[Mapping[str, Any]] | None
    ) -> AsyncIterator[StreamPart]: ...


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
        turn_timeout: float = 120.0,
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
        self._temperature = temperature
        self._extra_body = dict(extra_body) if extra_body else None

    async def stream_turn(
        self, messages: Sequence[Mapping[str, Any]], *, tools: Sequence[Mapping[str, Any]] | None
    ) -> AsyncIterator[StreamPart]:
        """Stream one turn. Raises LLMError subclasses; IncompleteStreamError after yielding the parts."""
        deadline = asyncio.get_running_loop().time() + self._turn_timeout
        accumulator = TurnAccumulator(max_reasoning_chars=self._max_reasoning_chars)
        stream = await self._open(messages, tools, deadline)
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
                hint="the server closed the stream without a finish reason; the turn can be retried",
            )
        yield TurnComplete(turn=turn)

    async def _open(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        deadline: float,
    ) -> openai.AsyncStream[openai.types.chat.ChatCompletionChunk]:
        try:
            async with asyncio.timeout_at(deadline):
                return await self._client.chat.completions.create(
                    model=self.name,
                    messages=cast(Any, messages),
                    tools=cast(Any, tools) if tools else openai.omit,
                    tool_choice="auto" if tools else openai.omit,
                    temperature=self._temperature if self._temperature is not None else openai.omit,
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
            raise LLMError("the model stream sent data that is not JSON") from exc
        except openai.APIError as exc:
            raise self._error(exc, started=True, tools_sent=False) from exc

    def _error(self, exc: openai.APIError, *, started: bool, tools_sent: bool) -> LLMError:
        if self._trusted:
            return _map_api_error(exc, model=self.name, started=started, tools_sent=tools_sent, key=self._key)
        return _classify_api_error(exc, started=started, tools_sent=tools_sent)

    def _deadline_error(self) -> LLMError:
        return LLMError(
            f"the model endpoint timed out: the turn took longer than {self._turn_timeout:g}s",
            hint="the server is slow or stalled; try again or use a faster model",
        )

    @property
    def _key(self) -> str:
        return str(getattr(self._client, "api_key", "") or "")


def _map_api_error(
    exc: openai.APIError, *, model: str, started: bool, tools_sent: bool, key: str
) -> LLMError:
    """The one place SDK errors become ours. ``started``: output had already streamed."""
    detail = _scrub(_server_message(exc), key)
    if isinstance(exc, openai.APITimeoutError):
        if started:
            return IncompleteStreamError(
                "the model stream broke off (read timed out)", hint="the turn can be retried"
            )
        return LLMError("the model endpoint timed out", hint="check LLM_BASE_URL and that the server is up")
    if isinstance(exc, openai.APIConnectionError):
        if started:
            return IncompleteStreamError(
                "the model stream broke off", hint="the connection dropped; the turn can be retried"
            )
        return LLMError("the model endpoint is unreachable", hint="check LLM_BASE_URL and your network")
    if isinstance(exc, openai.APIStatusError):
        logger.info("model endpoint answered %s: %s", exc.status_code, detail)
        return _map_status(exc.status_code, detail, model=model, tools_sent=tools_sent)
    logger.info("model stream reported an error: %s", detail)
    return LLMError(
        f"the model reported an error mid-stream: {detail}" if detail else "the model reported an error",
        hint="usually transient; the turn can be retried",
    )


def _classify_api_error(exc: openai.APIError, *, started: bool, tools_sent: bool) -> LLMError:
    """An untrusted endpoint's failure by class only: nothing of its answer, not even its status."""
    status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
    hint = "check the base URL, key and model in Settings"
    if started and isinstance(exc, openai.APIConnectionError):
        return IncompleteStreamError("the model stream broke off", hint="the turn can be retried")
    if blocked(exc):
        return LLMError(
            "the model endpoint is not allowed: it must be https on a public address",
            hint="use a provider preset, or an https endpoint on the internet",
        )
    if isinstance(exc, openai.APIConnectionError):  # timeouts too
        return LLMError("the model endpoint is unreachable", hint=hint)
    if status is None or status >= 500:
        return LLMError("the model endpoint gave a bad response", status=status, hint=hint)
    if tools_sent and status in (400, 422) and _TOOLS_UNSUPPORTED.search(_server_message(exc)):
        return ToolsUnsupportedError(
            "the model endpoint does not support tool calling", status=status, hint="switching to text"
        )
    if status == 401:
        return LLMError("the model endpoint says the key is unauthorised", status=status, hint=hint)
    return LLMError("the model endpoint refused the request", status=status, hint=hint)


def _map_status(status: int, detail: str, *, model: str, tools_sent: bool) -> LLMError:
    if tools_sent and status in (400, 422, 500, 501) and _TOOLS_UNSUPPORTED.search(detail):
        return ToolsUnsupportedError(
            f"the model endpoint does not support tool calling: {detail}",
            status=status,
            hint="switching to the text protocol",
        )
    suffix = f": {detail}" if detail else ""
    if status == 401:
        return LLMError("the model API rejected the key (check API_KEY)", status=status)
    if status == 402:
        return LLMError("no balance on the model account", status=status, hint="top up the account")
    if status == 403:
        return LLMError(
            f"the model API refused access{suffix}", status=status, hint="check the key's permissions"
        )
    if status == 404:
        return LLMError(
            f"model not found: {model}",
            status=status,
            hint="check LLM_MODEL, and that LLM_BASE_URL points at the API root (often ending in /v1)",
        )
    if status == 429:
        return LLMError(
            "the model API is rate limiting requests (429)",
            status=status,
            hint="wait a minute, or use another key or provider",
        )
    if status >= 500:
        return LLMError(f"the model API failed with {status}{suffix}", status=status, hint="try again later")
    return LLMError(f"the model API rejected the request ({status}){suffix}", status=status)


def _server_message(exc: openai.APIError) -> str:
    """The server's own message from an error body: ``{"message"}``, ``{"error": ...}`` or plain text."""
    body: Any = exc.body
    for _ in range(3):  # unwrap {"error": {"message": ...}} and similar nestings
        if not isinstance(body, Mapping):
            break
        body = next((body[key] for key in ("message", "error", "detail") if body.get(key)), None)
    return body if isinstance(body, str) else ""


def _scrub(text: str, key: str) -> str:
    """One short line of ``text`` with anything resembling a credential replaced."""
    text = " ".join(text.split())
    if len(key) >= _MIN_LITERAL_KEY:
        text = text.replace(key, "[redacted]")
    for pattern in _SECRETS:
        text = pattern.sub("[redacted]", text)
    if len(text) > _SERVER_MESSAGE_LIMIT:
        text = text[: _SERVER_MESSAGE_LIMIT - 1] + "…"
    return text
