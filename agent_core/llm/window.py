"""The model's own context window: asked of the endpoint when it says, else the provider's preset.

A local server's window is the server's, not the model's: llama.cpp serves what it was started with
(``GET /v1/models`` reports it as ``data[0].meta.n_ctx``); Ollama truncates silently beyond its
``num_ctx`` (``POST /api/show`` reports the model's ``context_length`` and any ``num_ctx`` parameter;
without one, Ollama's own default applies and the conservative preset stands).
Hosted APIs say nothing: their preset's window stands. A setting (``LLM_CONTEXT_WINDOW``) overrides
all of it. Asking never fails a run: any error means "the endpoint did not say".
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

import httpx2

logger = logging.getLogger(__name__)

_ASK_TIMEOUT = 5.0
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


async def discover_context_window(
    http: httpx2.AsyncClient, *, base_url: str, api_key: str | None, model: str, provider: str
) -> int | None:
    """The context window the endpoint reports, or None when it does not say (or cannot be asked)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        if provider == "ollama":
            return await _ollama_window(http, base_url, model, headers)
        return await _models_window(http, base_url, headers)
    except (httpx2.HTTPError, ValueError, OSError) as exc:
        logger.info("the model endpoint did not report its context window (%s)", type(exc).__name__)
        return None


async def _models_window(http: httpx2.AsyncClient, base_url: str, headers: Mapping[str, str]) -> int | None:
    response = await http.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=_ASK_TIMEOUT)
    if response.status_code != 200:
        return None
    data = _json(response.content).get("data")
    first = data[0] if isinstance(data, list) and data and isinstance(data[0], Mapping) else {}
    meta = first.get("meta")
    return _positive(meta.get("n_ctx")) if isinstance(meta, Mapping) else None


async def _ollama_window(
    http: httpx2.AsyncClient, base_url: str, model: str, headers: Mapping[str, str]
) -> int | None:
    root = base_url.rstrip("/").removesuffix("/v1")
    response = await http.post(
        f"{root}/api/show", json={"model": model}, headers=headers, timeout=_ASK_TIMEOUT
    )
    if response.status_code != 200:
        return None
    body = _json(response.content)
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


def _json(content: bytes) -> dict[str, Any]:
    data = json.loads(content)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
