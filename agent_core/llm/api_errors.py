"""The one place where the openai SDK's errors become ours, with a message a person understands.

:func:`map_api_error` maps a trusted endpoint's failure (the owner's): our words, the HTTP status, and a
short, scrubbed excerpt of the server's message, never the SDK's exception text (it can carry request
details). :func:`classify_api_error` maps an untrusted endpoint's failure (one a visitor chose) by class
only: nothing of its answer. Each error carries a ``kind`` (see :class:`agent_core.errors.LLMError`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import openai

from agent_core.errors import LLMError
from agent_core.llm.endpoint_guard import blocked

logger = logging.getLogger(__name__)

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
_REQUESTED_NUMBERS = (
    re.compile(r"request \((\d+) tokens\)", re.IGNORECASE),
    re.compile(r"resulted in (\d+) tokens", re.IGNORECASE),
    re.compile(r"(\d+) in the messages", re.IGNORECASE),
    re.compile(r"has (\d+) input tokens", re.IGNORECASE),
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
        requested: int | None = None,
        hint: str | None = None,
        kind: str = "context",
    ) -> None:
        super().__init__(message, status=status, hint=hint, kind=kind)
        self.window = window
        self.requested = requested  # the prompt tokens the server counted, when it said


def map_api_error(exc: openai.APIError, *, model: str, started: bool, tools_sent: bool, key: str) -> LLMError:
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


def classify_api_error(exc: openai.APIError, *, started: bool, tools_sent: bool) -> LLMError:
    """An untrusted endpoint's failure by class only: nothing of its answer, not even its status."""
    status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
    hint = "check the base URL, key and model in Settings"
    if started and isinstance(exc, openai.APIConnectionError):
        return IncompleteStreamError(
            "the model stream broke off", hint="the turn can be retried", kind="stream"
        )
    if blocked(exc):
        return LLMError(
            "the model endpoint is not allowed: it must be https on a public address",
            hint="use a provider preset, or an https endpoint on the internet",
            kind="refused",
        )
    if isinstance(exc, openai.APIConnectionError):  # timeouts too
        return LLMError("the model endpoint is unreachable", hint=hint, kind="unreachable")
    if status is None or status >= 500:
        return LLMError("the model endpoint gave a bad response", status=status, hint=hint, kind="server")
    detail = _server_message(exc)  # read to classify, never echoed
    if tools_sent and status in (400, 422) and _TOOLS_UNSUPPORTED.search(detail):
        return ToolsUnsupportedError(
            "the model endpoint does not support tool calling",
            status=status,
            hint="switching to text",
            kind="tools_unsupported",
        )
    if status in (400, 413, 422) and _CONTEXT_EXCEEDED.search(detail):
        return ContextExceededError(
            "the conversation no longer fits the model's context window", status=status, window=None
        )
    if status == 401:
        return LLMError(
            "the model endpoint says the key is unauthorised", status=status, hint=hint, kind="auth"
        )
    return LLMError("the model endpoint refused the request", status=status, hint=hint, kind="refused")


_STATUS_ERRORS: Mapping[int, tuple[str, str | None, str]] = {
    401: ("the model API rejected the key (check API_KEY)", None, "auth"),
    402: ("no balance on the model account", "top up the account", "no_balance"),
    403: ("the model API refused access{suffix}", "check the key's permissions", "refused"),
    404: (
        "model not found: {model}",
        "check LLM_MODEL, and that LLM_BASE_URL points at the API root (often ending in /v1)",
        "not_found",
    ),
    429: (
        "the model API is rate limiting requests (429)",
        "wait a minute, or use another key or provider",
        "rate_limited",
    ),
}
"""A model API's refusal by its status: the message (``{suffix}``: the server's own words after a colon,
``{model}``: the model asked for), the hint and the kind."""


def _map_status(status: int, detail: str, *, model: str, tools_sent: bool) -> LLMError:
    if status in (400, 413, 422) and _CONTEXT_EXCEEDED.search(detail):
        window = next((int(m.group(1)) for p in _WINDOW_NUMBERS if (m := p.search(detail))), None)
        requested = next((int(m.group(1)) for p in _REQUESTED_NUMBERS if (m := p.search(detail))), None)
        return ContextExceededError(
            "the conversation no longer fits the model's context window"
            + (f" ({window:,} tokens)" if window else ""),
            status=status,
            window=window,
            requested=requested,
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
    if status in _STATUS_ERRORS:
        message, hint, kind = _STATUS_ERRORS[status]
        return LLMError(message.format(suffix=suffix, model=model), status=status, hint=hint, kind=kind)
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
