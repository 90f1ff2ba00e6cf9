"""The model seam (:class:`ChatModel`) and its implementation over any OpenAI-compatible endpoint.

:class:`OpenAIChatModel` streams one turn through ``openai.AsyncOpenAI`` and maps every SDK error once,
here, to :class:`~agent_core.errors.LLMError` (or a subclass) with a message a person understands.
Messages are built from our own words, the HTTP status and a short, scrubbed excerpt of the server's
message: never from the SDK's exception text, which can carry request details.

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

_CONNECT_TIMEOUT = 10.0
_SERVER_MESSAGE_LIMIT = 200

# How servers say "this model/endpoint cannot take ``tools``" (Ollama, vLLM, llama.cpp, generic).
_TOOLS_UNSUPPORTED = re.compile(
    r"does not support tools|enable-auto-tool-choice|tools param requires|--jinja"
    r"|tools? (?:calling |use )?(?:is |are )?not supported",
    re.IGNORECASE,
)
# How servers say "the request does not fit the context window" (looked up for each):
#   llama.cpp  type "exceed_context_size_error": "request (8893 tokens) exceeds the available context size
#              (8192 tokens), try increasing it"
#   OpenAI     code "context_length_exceeded": "This model's maximum context length is 4097 tokens. However,
#              your messages resulted in 6988 tokens."
#   vLLM       "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens
#              (112946 in the messages, 10000 in the completion)" / "... your request has 8 input tokens"
#   DeepSeek   the OpenAI wording ("maximum context length is 131072 tokens. However, you requested ...")
_CONTEXT_EXCEEDED = re.compile(
    r"context_length_exceeded|exceed_context_size|exceeds the available context size"
    r"|maximum context length|is longer than the maximum model length|prompt is too long",
    re.IGNORECASE,
)
_WINDOW_NUMBERS = (
    re.compile(r"available context size \((\d+) tokens\)", re.IGNORECASE),
    re.compile(r"maximum context length is (\d+) tokens", re.IGNORECASE),
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


class ContextExceededError(LLMError):
    """The request did not fit the model's context window. Never retried as it is: the caller compacts
    the conversation (to ``window`` when the server said how big it is) and tries once more."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None,
        window: int | None,
        hint: str | None = None,
        kind: str = "context",
    ) -> None:
        super().__init__(message, status=status, hint=hint, kind=kind)
        self.window = window


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
    ) -> AsyncIterator[StreamPart]:
        """``stop``: sequences that end the reply (the text protocol stops before an invented Observation)."""
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
    ) -> None:
        self.name = model
        self._client = client
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
    ) -> AsyncIterator[StreamPart]:
        """Stream one turn. Raises LLMError subclasses; IncompleteStreamError after yielding the parts."""
        deadline = asyncio.get_running_loop().time() + self._turn_timeout
        accumulator = TurnAccumulator()
        stream = await self._open(messages, tools, stop, deadline)
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
    ) -> openai.AsyncStream[openai.types.chat.ChatCompletionChunk]:
        try:
            async with asyncio.timeout_at(deadline):
                return await self._client.chat.completions.create(
                    model=self.name,
                    messages=cast(Any, messages),
                    tools=cast(Any, tools) if tools else openai.omit,
                    tool_choice="auto" if tools else openai.omit,
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
            raise _map_api_error(
                exc, model=self.name, started=False, tools_sent=bool(tools), key=self._key
            ) from exc

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
            raise _map_api_error(exc, model=self.name, started=True, tools_sent=False, key=self._key) from exc

    def _deadline_error(self) -> LLMError:
        return LLMError(
            f"the model endpoint timed out: the turn took longer than {self._turn_timeout:g}s",
            kind="timeout",
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
                "the model stream broke off (read timed out)", hint="the turn can be retried", kind="stream"
            )
        return LLMError(
            "the model endpoint timed out",
            hint="check LLM_BASE_URL and that the server is up",
            kind="timeout",
        )
    if isinstance(exc, openai.APIConnectionError):
        if started:
            return IncompleteStreamError(
                "the model stream broke off",
                hint="the connection dropped; the turn can be retried",
                kind="stream",
            )
        return LLMError(
            "the model endpoint is unreachable",
            hint="check LLM_BASE_URL and your network",
            kind="unreachable",
        )
    if isinstance(exc, openai.APIStatusError):
        logger.info("model endpoint answered %s: %s", exc.status_code, detail)
        return _map_status(exc.status_code, detail, model=model, tools_sent=tools_sent)
    logger.info("model stream reported an error: %s", detail)
    return LLMError(
        f"the model reported an error mid-stream: {detail}" if detail else "the model reported an error",
        hint="usually transient; the turn can be retried",
        kind="stream",
    )


def _map_status(status: int, detail: str, *, model: str, tools_sent: bool) -> LLMError:
    if status in (400, 413, 422) and _CONTEXT_EXCEEDED.search(detail):
        window = next((int(m.group(1)) for p in _WINDOW_NUMBERS if (m := p.search(detail))), None)
        return ContextExceededError(
            "the conversation no longer fits the model's context window"
            + (f" ({window:,} tokens)" if window else ""),
            status=status,
            window=window,
            hint="the agent compacts old observations and tries once more",
            kind="context",
        )
    if tools_sent and status in (400, 422, 500, 501) and _TOOLS_UNSUPPORTED.search(detail):
        return ToolsUnsupportedError(
            f"the model endpoint does not support tool calling: {detail}",
            status=status,
            hint="switching to the text protocol",
            kind="tools_unsupported",
        )
    suffix = f": {detail}" if detail else ""
    if status == 401:
        return LLMError("the model API rejected the key (check API_KEY)", status=status, kind="auth")
    if status == 402:
        return LLMError(
            "no balance on the model account", status=status, hint="top up the account", kind="no_balance"
        )
    if status == 403:
        return LLMError(
            f"the model API refused access{suffix}",
            status=status,
            hint="check the key's permissions",
            kind="refused",
        )
    if status == 404:
        return LLMError(
            f"model not found: {model}",
            status=status,
            hint="check LLM_MODEL, and that LLM_BASE_URL points at the API root (often ending in /v1)",
            kind="not_found",
        )
    if status == 429:
        return LLMError(
            "the model API is rate limiting requests (429)",
            status=status,
            hint="wait a minute, or use another key or provider",
            kind="rate_limited",
        )
    if status >= 500:
        return LLMError(f"the model API failed with {status}{suffix}", status=status, hint="try again later")
    return LLMError(
        f"the model API rejected the request ({status}){suffix}", status=status, kind="bad_request"
    )


def _server_message(exc: openai.APIError) -> str:
    """The server's own message from an error body (``{"message"}``, ``{"error": ...}`` or plain text),
    prefixed by its ``code``/``type`` when there is one (``context_length_exceeded``...)."""
    body: Any = exc.body
    error = body.get("error") if isinstance(body, Mapping) else None
    tags = [str(error.get(k)) for k in ("code", "type") if error.get(k)] if isinstance(error, Mapping) else []
    tags = [tag for tag in tags if not tag.isdigit()]
    text = _message_text(body)
    return f"{' '.join(tags)}: {text}" if tags and text else text or " ".join(tags)


def _message_text(body: Any) -> str:
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
