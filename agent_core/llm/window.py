"""What a model endpoint says of itself: the context window it serves, and which local server it is.

A local server's window is the server's, not the model's: llama.cpp serves what it was started with
(``GET /v1/models`` reports it as ``data[0].meta.n_ctx`` in recent builds, ``GET /props`` as
``default_generation_settings.n_ctx`` in all; ``meta.n_ctx_train`` is the model's own, a ceiling);
vLLM reports ``data[0].max_model_len``; Ollama truncates silently beyond its ``num_ctx`` (``POST
/api/show`` reports the model's ``context_length`` and any ``num_ctx`` parameter; without one, Ollama's
own default applies and the conservative preset stands); LM Studio says nothing of it.
Hosted APIs say nothing: their preset's window stands. A setting (``LLM_CONTEXT_WINDOW``) overrides
all of it. Asking never fails a run: any error means "the endpoint did not say".

The server is named by ``owned_by`` in ``/v1/models``, by the values each server is known to use for
itself (read in their sources): llama.cpp ``"llamacpp"``, vLLM ``"vllm"``, LM Studio
``"organization_owner"``, Ollama ``"library"`` (the namespace of its library's models).
"""

from __future__ import annotations

import json
import logging
import re
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx2

logger = logging.getLogger(__name__)

_ASK_TIMEOUT = 5.0
MAX_ANSWER_BYTES = 4 * 1024 * 1024  # of what an endpoint says of itself (Ollama's /api/show: its licence too)
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)
SERVERS: Mapping[str, str] = types.MappingProxyType(
    {"llamacpp": "llamacpp", "vllm": "vllm", "organization_owner": "lmstudio", "library": "ollama"}
)
"""``owned_by`` in ``/v1/models`` → the local server's preset (:data:`agent_core.llm.providers.PRESETS`)."""
MIN_REPLY_TOKENS = 256
REPLY_SHARE = 4
"""A reply may take a quarter of a small window, and so may one tool result: the rest holds the prompt
(system, tools, brief, the model's own messages)."""
_TOKENS_PER_CHAR = 0.3  # the estimate's, for ASCII (agent_core.llm.tokens)


@dataclass(frozen=True, kw_only=True)
class Announced:
    """What an endpoint said: the window it serves, the model's own (a ceiling), the local server it is
    (a preset's name); None where it did not say."""

    window: int | None = None
    trained: int | None = None
    server: str | None = None


SILENT = Announced()


def reply_tokens(window: int, setting: int) -> int:
    """The longest reply a request asks for: the setting (``LLM_MAX_TOKENS``), but no more than a
    quarter of the window, so a 4,096-token server keeps 3,000 tokens for the prompt."""
    return max(1, min(setting, max(MIN_REPLY_TOKENS, window // REPLY_SHARE)))


def observation_chars(window: int, setting: int) -> int:
    """The longest tool result a request carries: the setting (``OBSERVATION_MAX_CHARS``), but no more
    than a quarter of the window (as the reply) at the estimate's 0.3 tokens a character, so the newest
    result leaves room for the system prompt, the tools and the brief; ``window`` 0: unknown, the setting.
    The setting's default (8,000) stands from a 9,600-token window on."""
    return min(setting, int(window / REPLY_SHARE / _TOKENS_PER_CHAR)) if window > 0 else setting


async def ask_endpoint(
    http: httpx2.AsyncClient, *, base_url: str, api_key: str | None, model: str, provider: str
) -> Announced:
    """What the endpoint reports of itself (:class:`Announced`), :data:`SILENT` when it cannot be asked."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        if provider == "ollama":
            return Announced(window=await _ollama_window(http, base_url, model, headers), server="ollama")
        return await _models(http, base_url, headers)
    except (httpx2.HTTPError, ValueError, OSError) as exc:
        logger.info("the model endpoint did not say what it is (%s)", type(exc).__name__)
        return SILENT


async def _models(http: httpx2.AsyncClient, base_url: str, headers: Mapping[str, str]) -> Announced:
    answer = await _ask(http, "GET", f"{base_url.rstrip('/')}/models", headers)
    if answer is None:
        return SILENT
    data = answer.get("data")
    first = data[0] if isinstance(data, list) and data and isinstance(data[0], Mapping) else {}
    owner = first.get("owned_by")
    server = SERVERS.get(owner) if isinstance(owner, str) else None
    meta = first.get("meta")
    meta = meta if isinstance(meta, Mapping) else {}
    window = _positive(meta.get("n_ctx")) or _positive(first.get("max_model_len"))
    if window is None and server == "llamacpp":
        window = await _props_window(http, base_url, headers)
    return Announced(window=window, trained=_positive(meta.get("n_ctx_train")), server=server)


async def _props_window(http: httpx2.AsyncClient, base_url: str, headers: Mapping[str, str]) -> int | None:
    """llama.cpp's ``GET /props`` (beside ``/v1``, not under it): the slots' window."""
    root = base_url.rstrip("/").removesuffix("/v1")
    body = await _ask(http, "GET", f"{root}/props", headers)
    if body is None:
        return None
    settings = body.get("default_generation_settings")
    served = settings.get("n_ctx") if isinstance(settings, Mapping) else None
    return _positive(served) or _positive(body.get("n_ctx"))


async def _ollama_window(
    http: httpx2.AsyncClient, base_url: str, model: str, headers: Mapping[str, str]
) -> int | None:
    root = base_url.rstrip("/").removesuffix("/v1")
    body = await _ask(http, "POST", f"{root}/api/show", headers, json={"model": model})
    if body is None:
        return None
    info = body.get("model_info")
    trained = None
    if isinstance(info, Mapping):
        trained = next((_positive(v) for k, v in info.items() if str(k).endswith(".context_length")), None)
    parameters = body.get("parameters")
    match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    served = int(match.group(1)) if match else None
    if served is None:
        return None  # Ollama's own default num_ctx applies, which it does not report: the preset stands
    return min(served, trained) if trained else served


async def _ask(
    http: httpx2.AsyncClient, method: str, url: str, headers: Mapping[str, str], **body: Any
) -> dict[str, Any] | None:
    """The endpoint's JSON object answer, read up to :data:`MAX_ANSWER_BYTES` (a longer answer, another
    status or no JSON object: None). The endpoint may be a visitor's: its answer is never read whole."""
    async with http.stream(method, url, headers=headers, timeout=_ASK_TIMEOUT, **body) as response:
        if response.status_code != 200:
            return None
        content = bytearray()
        async for chunk in response.aiter_bytes():
            content += chunk
            if len(content) > MAX_ANSWER_BYTES:
                return None
    try:
        data = json.loads(bytes(content))
    except RecursionError:  # nested past the interpreter's limit: no server's own description
        return None
    return data if isinstance(data, dict) else None


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
