"""Provider presets (all OpenAI-compatible) and the resolution of settings into one :class:`ModelConfig`.

Model names and context windows are data, not code: they change. The values below were checked in
late 2026; operators override base URL and model through settings. Prices live in the dated table of
:mod:`agent_core.llm.prices`; a model it does not know has no price ("cost unknown"), never a guess.
"""

from __future__ import annotations

import ipaddress
import types
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from agent_core.errors import ConfigurationError
from agent_core.llm.model import Sampling
from agent_core.llm.prices import LOCAL_PROVIDERS, ModelPrice, cost_range, local_price, price_of

HOSTED_TURN_SECONDS = 120.0
"""A hosted API answers a turn in seconds; two minutes means it stalled."""
LOCAL_TURN_SECONDS = 600.0
"""A turn's longest wait for progress with a small model on a laptop's CPU: a server that does not report
its prompt progress sends nothing while it reads (8,000 prompt tokens at ~20 tokens/s: 400 s)."""
LOCAL_SAMPLING = Sampling(frequency_penalty=0.3, repeat_penalty=1.1)
"""What discourages a small local model from looping: OpenAI's frequency penalty (Ollama maps it to its
own) and llama.cpp's/Ollama's repeat penalty over the last 64 tokens (1.0 is off)."""
LOCAL_BODY: Mapping[str, object] = types.MappingProxyType({"return_progress": True})
"""llama.cpp streams its prompt progress when asked; other local servers ignore the field."""
DEFAULT_WALL_SECONDS = 300.0
"""One run's time limit with a hosted model, and for the offline planner."""
LOCAL_WALL_SECONDS = 1800.0
"""One run's time limit with a local server: the user's budget, not a verdict on the model. When it fires
it throws no writing away (the report the model is writing is kept, marked partial, claim-checked and
completed by the deterministic writer's sections it did not reach), and nothing else bounds a run in
time: turns, calls and tokens count work, and the stall deadline bounds each wait, not their sum, so a
model at 1 token/s could otherwise hold the server's one slot for hours (12 turns of 4,096 tokens). Half
an hour holds the issue's slow case with room: a busy 2-core machine read the brief in ~4 min and wrote at
~2 tokens/s, a 2,000-token report by ~21 min. MAX_WALL_SECONDS overrides it."""
LOCAL_PROMPT_SPEED = 40.0
"""Prompt tokens per second a 1.5B model reads on 2 CPU cores: assumed until measured."""
DEFAULT_CONTEXT_WINDOW = 32_768
"""What a model built outside the presets (a test's, ``run_agent``'s) is assumed to hold."""


@dataclass(frozen=True, kw_only=True)
class ProviderPreset:
    """What we know about one provider (its prices: :data:`agent_core.llm.prices.PRICE_TABLE`).

    ``needs_key=False`` means any non-empty key is accepted (the SDK insists on sending one).
    """

    name: str
    label: str
    base_url: str
    default_model: str
    models: tuple[str, ...]
    key_hint: str
    context_window: int
    needs_key: bool = True
    turn_timeout: float = HOSTED_TURN_SECONDS
    """Default longest wait for progress in one model turn (LLM_TURN_TIMEOUT overrides it)."""
    wall_seconds: float = DEFAULT_WALL_SECONDS
    """Default wall-clock limit of one run (MAX_WALL_SECONDS overrides it)."""
    sampling: Sampling = field(default_factory=Sampling)
    """Sampling settings sent with every request (LLM_FREQUENCY_PENALTY and friends override them);
    hosted models do not loop, and some of their APIs refuse penalties: none by default."""
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    """Fields of the server's own sent with every request (llama.cpp: ``cache_prompt``, ``return_progress``)."""
    prompt_speed: float | None = None
    """Prompt tokens per second assumed until the endpoint's own speed is measured (a local server on a
    laptop's CPU); None: fast enough that the brief is sized by the window alone."""


@dataclass(frozen=True, kw_only=True)
class ModelConfig:
    """The resolved model endpoint for one session. ``api_key`` is kept out of ``repr``."""

    provider: str
    base_url: str
    model: str
    api_key: str | None = field(repr=False)
    context_window: int
    turn_timeout: float
    wall_seconds: float
    price: ModelPrice | None = None
    """The model's price (:func:`agent_core.llm.prices.price_of`); None: unknown."""
    sampling: Sampling = field(default_factory=Sampling)
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    """The preset's fields of the server's own, sent with every request."""
    prompt_speed: float | None = None
    """The preset's assumed prompt speed (tokens/s) until one is measured; None: not assumed slow."""
    local: bool = False
    """A server of the user's own (a local preset, an address on this machine or network, or one whose
    ``/v1/models`` names llama.cpp, Ollama, vLLM or LM Studio): its tokens cost nothing, and it serves
    one request at a time."""


DEFAULT_PROVIDER = "deepseek"


# Placeholder sent to endpoints that ignore the key (the SDK refuses to build a client without one).
_PLACEHOLDER_KEY = "not-needed"

_LOCAL = ProviderPreset(
    name="",
    label="",
    base_url="",
    default_model="",
    models=(),
    key_hint="no key needed",
    context_window=DEFAULT_CONTEXT_WINDOW,
    needs_key=False,
    turn_timeout=LOCAL_TURN_SECONDS,
    wall_seconds=LOCAL_WALL_SECONDS,
    sampling=LOCAL_SAMPLING,
)
"""What the presets of a server of the user's own (and a custom endpoint) share: no key needed, a laptop's
patience, and the sampling that keeps a small model from looping."""

# Models as of 2026-07; they change, and are configuration, not facts of nature.
PRESETS: Mapping[str, ProviderPreset] = types.MappingProxyType(
    {
        "deepseek": ProviderPreset(
            name="deepseek",
            label="DeepSeek",
            base_url="https://api.deepseek.com",
            default_model="deepseek-flash",
            # deepseek-chat / deepseek-reasoner were retired in 2026-07.
            models=("deepseek-flash", "deepseek-v4-pro"),
            key_hint="API_KEY from platform.deepseek.com",
            context_window=1_000_000,
        ),
        "openai": ProviderPreset(
            name="openai",
            label="OpenAI",
            base_url="https://api.openai.com/v1",
            default_model="gpt-5-mini",
            models=("gpt-5-mini", "gpt-5"),
            key_hint="API_KEY from platform.openai.com",
            context_window=400_000,
        ),
        "huggingface": ProviderPreset(
            name="huggingface",
            label="Hugging Face Inference Providers",
            base_url="https://router.huggingface.co/v1",
            # Hub ids; the ``:fastest`` / ``:cheapest`` / ``:<provider>`` suffix picks the provider.
            default_model="openai/gpt-oss-120b:fastest",
            models=("openai/gpt-oss-120b:fastest", "openai/gpt-oss-20b:fastest"),
            key_hint="HF_TOKEN (a Hugging Face access token with Inference Providers permission)",
            context_window=131_072,
        ),
        "ollama": replace(
            _LOCAL,
            name="ollama",
            label="Ollama (local)",
            base_url="http://localhost:11434/v1",
            default_model="qwen3:8b",
            models=("qwen3:8b",),
            # Conservative: Ollama silently truncates prompts beyond its num_ctx setting.
            context_window=8_192,
            extra_body=LOCAL_BODY,
            prompt_speed=LOCAL_PROMPT_SPEED,
        ),
        "llamacpp": replace(
            _LOCAL,
            name="llamacpp",
            label="llama.cpp server (local)",
            base_url="http://127.0.0.1:8080/v1",
            default_model="local",
            models=("local",),
            context_window=8_192,  # llama-server's -c; GET /v1/models tells the real one
            # Reuse the KV cache of the prompt prefix an earlier request left in the slot; say how far
            # the prompt is read.
            extra_body=types.MappingProxyType({"cache_prompt": True, "return_progress": True}),
            prompt_speed=LOCAL_PROMPT_SPEED,
        ),
        "vllm": replace(
            _LOCAL,
            name="vllm",
            label="vLLM (local)",
            base_url="http://127.0.0.1:8000/v1",
            default_model="",  # the served model's id (its --served-model-name): LLM_MODEL
            models=(),
            key_hint="API_KEY if the server was started with --api-key",
            context_window=32_768,  # GET /v1/models tells the real one (max_model_len)
        ),
        "lmstudio": replace(
            _LOCAL,
            name="lmstudio",
            label="LM Studio (local)",
            base_url="http://127.0.0.1:1234/v1",
            # Conservative: LM Studio's default context length; its /v1/models does not report one.
            context_window=4_096,
            prompt_speed=LOCAL_PROMPT_SPEED,
        ),
        "custom": replace(
            _LOCAL,
            name="custom",
            label="Custom OpenAI-compatible endpoint",
            key_hint="API_KEY if the endpoint needs one",
            extra_body=LOCAL_BODY,
        ),
    }
)

_HOSTS = types.MappingProxyType(
    {
        "api.deepseek.com": "deepseek",
        "api.openai.com": "openai",
        "router.huggingface.co": "huggingface",
    }
)
_OLLAMA_PORT = 11434

#: The hosts of the https presets: a visitor may point the model at them without an address check.
PRESET_HOSTS = frozenset(
    urlsplit(p.base_url).hostname or "" for p in PRESETS.values() if p.base_url.startswith("https://")
)


def infer_provider(base_url: str | None) -> str:
    """The preset a base URL belongs to: by host, Ollama by port, else ``custom`` (local when the host is
    on this machine or network: :attr:`ModelConfig.local`; ``/v1/models`` may name the server later,
    :func:`announced_config`); no URL: the default."""
    if not base_url:
        return DEFAULT_PROVIDER
    parts = urlsplit(base_url.strip())
    host = (parts.hostname or "").lower()
    if host in _HOSTS:
        return _HOSTS[host]
    try:
        port = parts.port
    except ValueError:
        port = None
    return "ollama" if port == _OLLAMA_PORT else "custom"


def resolve_model_config(
    *,
    provider: str | None,
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    hf_token: str | None = None,
) -> ModelConfig:
    """Combine settings with a preset. Blank strings count as unset.

    ``provider=None`` infers it from ``base_url`` (see :func:`infer_provider`). An explicit ``base_url``
    or ``model`` overrides the preset's; the price is the table's for that provider and model (None when
    the table does not know it). Hugging Face uses ``hf_token`` when ``api_key`` is unset; keyless
    endpoints get a placeholder key. ``api_key`` stays ``None`` when a needed key is missing: the caller
    decides whether that is an error.

    Raises ConfigurationError for an unknown provider or a ``custom`` one without a base URL or model.
    """
    provider, base_url, model = _blank_to_none(provider), _blank_to_none(base_url), _blank_to_none(model)
    api_key, hf_token = _blank_to_none(api_key), _blank_to_none(hf_token)
    name = provider.lower() if provider else infer_provider(base_url)
    preset = PRESETS.get(name)
    if preset is None:
        valid = ", ".join(sorted(PRESETS))
        raise ConfigurationError(f"unknown model provider {provider!r}", hint=f"use one of: {valid}")
    resolved_url = (base_url or preset.base_url).rstrip("/")
    if not resolved_url:
        raise ConfigurationError(
            "the custom model provider needs a base URL", hint="set LLM_BASE_URL, e.g. http://host:8000/v1"
        )
    resolved_model = model or preset.default_model
    if not resolved_model:
        raise ConfigurationError("no model name configured", hint="set LLM_MODEL to the endpoint's model id")
    if api_key is None and name == "huggingface":
        api_key = hf_token
    if api_key is None and not preset.needs_key:
        api_key = _PLACEHOLDER_KEY
    nearby = _on_this_network(resolved_url)
    strict = name == "custom" and not nearby  # a hosted gateway may refuse extras
    local = name in LOCAL_PROVIDERS or (name == "custom" and nearby)
    return ModelConfig(
        provider=name,
        base_url=resolved_url,
        model=resolved_model,
        api_key=api_key,
        price=local_price() if local else price_of(name, resolved_model),
        context_window=preset.context_window,
        turn_timeout=preset.turn_timeout,
        wall_seconds=preset.wall_seconds,
        sampling=replace(preset.sampling, repeat_penalty=None) if strict else preset.sampling,
        extra_body={} if strict else dict(preset.extra_body),
        prompt_speed=preset.prompt_speed,
        local=local,
    )


def announced_config(
    config: ModelConfig, *, server: str | None, window: int | None, trained: int | None
) -> ModelConfig:
    """``config`` with what its endpoint said of itself (:func:`agent_core.llm.window.ask_endpoint`).

    ``server``: the local preset ``/v1/models`` named (``llamacpp``, ``ollama``, ``vllm``, ``lmstudio``).
    A ``custom`` endpoint takes that preset's treatment (sampling, the server's own fields, its assumed
    prompt speed) and becomes local; a named provider keeps its own. ``window``: the window it serves,
    else the preset's, never beyond ``trained`` (the model's own, which a server cannot exceed)."""
    preset = PRESETS.get(server) if server is not None and config.provider == "custom" else None
    if preset is not None:
        config = replace(
            config,
            provider=preset.name,
            context_window=preset.context_window,
            sampling=preset.sampling,
            extra_body=dict(preset.extra_body),
            prompt_speed=preset.prompt_speed,
        )
    if server is not None and not config.local:
        config = replace(config, local=True, price=local_price())
    served = window or config.context_window
    return replace(config, context_window=min(served, trained) if trained else served)


def model_configured(
    *,
    provider: str | None,
    api_key: str | None,
    hf_token: str | None,
    base_url: str | None = None,
    model: str | None = None,  # the settings' model_config(), whole: not needed to say
) -> bool:
    """Whether these settings reach a model: a key is set, or the provider needs none (Ollama, a custom
    local server). ``provider=None`` is the one ``base_url`` names (:func:`infer_provider`): with no
    base URL the default provider, which needs a key; ``LLM_BASE_URL`` and ``LLM_MODEL`` alone reach a
    keyless endpoint. Takes ``Settings.model_config()`` as it is."""
    if _blank_to_none(api_key) or _blank_to_none(hf_token):
        return True
    name = _blank_to_none(provider) or infer_provider(_blank_to_none(base_url))
    preset = PRESETS.get(name.lower())
    return preset is not None and not preset.needs_key


def estimate_cost(usage_prompt: int, usage_completion: int, config: ModelConfig) -> float | None:
    """US dollars for the given token counts at the high end of the model's price (an upper bound), or
    ``None`` when the price is unknown."""
    if config.price is None:
        return None
    return cost_range(config.price, prompt_tokens=usage_prompt, completion_tokens=usage_completion).high_usd


def _on_this_network(url: str) -> bool:
    """Whether ``url`` points at a server on this machine or network (localhost, a private address, a
    bare or ``.local`` host name): where llama.cpp and Ollama run, and their own fields are welcome."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or "." not in host or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local


def _blank_to_none(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value or None
