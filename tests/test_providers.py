"""Provider presets and the resolution of settings into a ModelConfig."""

from __future__ import annotations

import pytest

from agent_core.errors import ConfigurationError
from agent_core.llm import PRESETS, ModelConfig, estimate_cost, infer_provider, resolve_model_config

KEY = "sk-test-SECRET"


@pytest.mark.parametrize(
    ("base_url", "provider"),
    [
        (None, "deepseek"),
        ("", "deepseek"),
        ("https://api.deepseek.com", "deepseek"),
        ("https://API.DeepSeek.com/v1/", "deepseek"),
        ("https://api.openai.com/v1", "openai"),
        ("https://router.huggingface.co/v1", "huggingface"),
        ("http://localhost:11434/v1", "ollama"),
        ("http://gpu-box.lan:11434/v1", "ollama"),
        ("http://localhost:8000/v1", "custom"),
        ("https://api.deepseek.com.evil.example/v1", "custom"),
        ("not a url:99999", "custom"),
    ],
)
def test_infer_provider(base_url: str | None, provider: str) -> None:
    assert infer_provider(base_url) == provider


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (
            {"provider": None, "base_url": None, "model": None, "api_key": KEY},
            ("deepseek", "https://api.deepseek.com", "deepseek-flash", KEY),
        ),
        (
            {"provider": "DeepSeek", "base_url": None, "model": "deepseek-v4-pro", "api_key": KEY},
            ("deepseek", "https://api.deepseek.com", "deepseek-v4-pro", KEY),
        ),
        (
            {"provider": "openai", "base_url": None, "model": None, "api_key": KEY},
            ("openai", "https://api.openai.com/v1", "gpt-5-mini", KEY),
        ),
        (
            {
                "provider": None,
                "base_url": "https://router.huggingface.co/v1/",
                "model": None,
                "api_key": None,
            },
            ("huggingface", "https://router.huggingface.co/v1", "openai/gpt-oss-120b:fastest", "hf_token"),
        ),
        (
            {"provider": "huggingface", "base_url": None, "model": "Qwen/Qwen3-8B", "api_key": KEY},
            ("huggingface", "https://router.huggingface.co/v1", "Qwen/Qwen3-8B", KEY),
        ),
        (
            {"provider": "ollama", "base_url": "http://box:11434/v1", "model": None, "api_key": None},
            ("ollama", "http://box:11434/v1", "qwen3:8b", "not-needed"),
        ),
        (
            {"provider": None, "base_url": "http://vllm:8000/v1", "model": "qwen", "api_key": " "},
            ("custom", "http://vllm:8000/v1", "qwen", "not-needed"),
        ),
        (
            {"provider": "", "base_url": "", "model": "", "api_key": ""},
            ("deepseek", "https://api.deepseek.com", "deepseek-flash", None),
        ),
    ],
)
def test_resolve_model_config(
    settings: dict[str, str | None], expected: tuple[str, str, str, str | None]
) -> None:
    config = resolve_model_config(**settings, hf_token="hf_token")
    assert (config.provider, config.base_url, config.model, config.api_key) == expected
    assert config.context_window == PRESETS[config.provider].context_window


def test_unknown_provider_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigurationError) as caught:
        resolve_model_config(provider="anthropic", base_url=None, model=None, api_key=KEY)
    for name in ("custom", "deepseek", "huggingface", "ollama", "openai"):
        assert name in str(caught.value)


@pytest.mark.parametrize(
    ("base_url", "model", "needle"),
    [(None, "some-model", "base URL"), ("http://vllm:8000/v1", None, "model")],
)
def test_custom_needs_base_url_and_model(base_url: str | None, model: str | None, needle: str) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        resolve_model_config(provider="custom", base_url=base_url, model=model, api_key=None)


def test_api_key_never_appears_in_repr() -> None:
    config = resolve_model_config(provider=None, base_url=None, model=None, api_key=KEY)
    assert KEY not in repr(config)
    assert KEY not in str(config)


def test_presets_are_immutable_and_consistent() -> None:
    with pytest.raises(TypeError):
        PRESETS["x"] = PRESETS["deepseek"]  # type: ignore[index]
    assert set(PRESETS) == {
        "deepseek",
        "openai",
        "huggingface",
        "ollama",
        "llamacpp",
        "vllm",
        "lmstudio",
        "custom",
    }
    for name, preset in PRESETS.items():
        assert preset.name == name
        assert preset.default_model in preset.models or not preset.models  # else LLM_MODEL names it
    assert PRESETS["ollama"].needs_key is False
    assert "deepseek-chat" not in PRESETS["deepseek"].models  # retired 2026-07


def test_estimate_cost_uses_the_price_tables_high_end_and_none_for_unknown_models() -> None:
    flash = resolve_model_config(provider="deepseek", base_url=None, model=None, api_key=KEY)
    assert estimate_cost(1_000_000, 1_000_000, flash) == pytest.approx(0.30 + 1.20)  # peak
    assert estimate_cost(2000, 500, flash) == pytest.approx((2000 * 0.30 + 500 * 1.20) / 1e6)
    pro = resolve_model_config(provider="deepseek", base_url=None, model="deepseek-v4-pro", api_key=KEY)
    assert estimate_cost(1_000_000, 0, pro) == pytest.approx(1.32)
    mini = resolve_model_config(provider="openai", base_url=None, model="gpt-4o-mini", api_key=KEY)
    assert estimate_cost(1_000_000, 1_000_000, mini) == pytest.approx(0.15 + 0.60)
    local = resolve_model_config(provider="ollama", base_url=None, model=None, api_key=None)
    assert estimate_cost(1000, 1000, local) == 0.0
    renamed = resolve_model_config(provider="deepseek", base_url=None, model="deepseek-chat", api_key=KEY)
    assert renamed.price is None  # retired name, not in the table: unknown, never a guess
    custom = ModelConfig(
        provider="custom",
        base_url="http://x/v1",
        model="m",
        api_key=None,
        turn_timeout=120.0,
        wall_seconds=300.0,
        context_window=1,
    )
    assert estimate_cost(1, 1, custom) is None
