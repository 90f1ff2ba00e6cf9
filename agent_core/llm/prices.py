"""What a model's tokens cost: a dated price table (data), and the arithmetic over it.

Prices are US dollars per million tokens, each provider's with the date it was read and the page it was
read from. They change: a model that is not in the table has no price (``None``, shown as "unknown"),
never a guess. Input the provider served from its prompt cache (``Usage.cached_prompt_tokens``) is priced
at the cache-hit rate where the provider publishes one, else at the input rate like the rest, so a cost
computed here is never below what the provider bills for the same counts.

A price is a range (``low``-``high``) where the provider's price depends on when the tokens are
processed: DeepSeek bills half its peak rate off-peak (peak hours 01:00-04:00 and 06:00-10:00 UTC,
Monday to Friday, except Chinese public holidays). Where the price is one number, low == high.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from agent_core.cost import CostPart

__all__ = [
    "LOCAL_PROVIDERS",
    "LOCAL_SOURCE",
    "NO_COST",
    "PRICE_TABLE",
    "CostRange",
    "ModelPrice",
    "ProviderPrices",
    "cost_parts",
    "cost_range",
    "local_price",
    "price_of",
]


@dataclass(frozen=True, kw_only=True)
class ModelPrice:
    """One model's price per million tokens (input at the cache-miss rate), and where it comes from."""

    input_low: float
    input_high: float
    output_low: float
    output_high: float
    as_of: str  # the date the source was read (YYYY-MM-DD)
    source: str  # the provider's pricing page
    cached_low: float | None = None  # input served from the provider's prompt cache; None: not published
    cached_high: float | None = None
    local: bool = False  # a server of the user's own: nothing to pay, no date to cite


@dataclass(frozen=True, kw_only=True)
class ProviderPrices:
    as_of: str
    source: str
    models: Mapping[str, tuple[float, float, float, float]]  # input low, input high, output low, high
    cache_hits: Mapping[str, tuple[float, float]] = field(default_factory=dict)  # cached input low, high


@dataclass(frozen=True, kw_only=True)
class CostRange:
    """US dollars, low to high (equal where the price is one number), at the prices of ``as_of``."""

    low_usd: float
    high_usd: float
    as_of: str | None = None
    parts: tuple[CostPart, ...] = ()  # the cost at each price: cached input, input, output
    local: bool = False  # a server of the user's own: no charge


NO_COST = CostRange(low_usd=0.0, high_usd=0.0)
"""What a run without a model costs."""


_FREE = (0.0, 0.0, 0.0, 0.0)
LOCAL_PROVIDERS = frozenset({"ollama", "llamacpp", "vllm", "lmstudio"})
"""Servers of the user's own: their tokens cost nothing."""
LOCAL_SOURCE = "local"
"""The source of a local server's price (nothing): the cost line says "local: no charge"."""

PRICE_TABLE: Mapping[str, ProviderPrices] = types.MappingProxyType(
    {
        # Off-peak to peak. deepseek-flash is DeepSeek-V4.1-Flash; deepseek-v4-pro is DeepSeek-V4-Pro-0813.
        "deepseek": ProviderPrices(
            as_of="2026-12-02",
            source="https://api-docs.deepseek.com/quick_start/pricing",
            models=types.MappingProxyType(
                {
                    "deepseek-flash": (0.15, 0.30, 0.60, 1.20),
                    "deepseek-v4-pro": (0.66, 1.32, 1.98, 3.96),
                }
            ),
            # Cache hits (usage.prompt_cache_hit_tokens), off-peak to peak. The provider's page could not be
            # read from here; third-party copies of it disagree (Flash: 2% or 20% of the miss price; V4 Pro:
            # 1/120 or 1/12). We take the higher of each, so a cost computed here is never below the bill.
            cache_hits=types.MappingProxyType(
                {"deepseek-flash": (0.03, 0.06), "deepseek-v4-pro": (0.055, 0.11)}
            ),
        ),
        # Standard tier (not Batch, Flex or Priority).
        "openai": ProviderPrices(
            as_of="2026-12-02",
            source="https://developers.openai.com/api/docs/pricing",
            models=types.MappingProxyType(
                {
                    "gpt-5": (1.25, 1.25, 10.00, 10.00),
                    "gpt-5-mini": (0.25, 0.25, 2.00, 2.00),
                    "gpt-5-nano": (0.05, 0.05, 0.40, 0.40),
                    "gpt-4.1": (2.00, 2.00, 8.00, 8.00),
                    "gpt-4.1-mini": (0.40, 0.40, 1.60, 1.60),
                    "gpt-4.1-nano": (0.10, 0.10, 0.40, 0.40),
                    "gpt-4o": (2.50, 2.50, 10.00, 10.00),
                    "gpt-4o-mini": (0.15, 0.15, 0.60, 0.60),
                }
            ),
            # "Cached input" (usage.prompt_tokens_details.cached_tokens, prompts of 1,024+ tokens):
            # GPT-5 family 10% of input, GPT-4.1 family 25%, GPT-4o family 50%.
            cache_hits=types.MappingProxyType(
                {
                    "gpt-5": (0.125, 0.125),
                    "gpt-5-mini": (0.025, 0.025),
                    "gpt-5-nano": (0.005, 0.005),
                    "gpt-4.1": (0.50, 0.50),
                    "gpt-4.1-mini": (0.10, 0.10),
                    "gpt-4.1-nano": (0.025, 0.025),
                    "gpt-4o": (1.25, 1.25),
                    "gpt-4o-mini": (0.075, 0.075),
                }
            ),
        ),
    }
)
"""Per provider preset: when and where its prices were read, and each model's four numbers."""


def price_of(provider: str, model: str) -> ModelPrice | None:
    """The price of ``model`` at ``provider`` (a preset name), or None when the table does not know it.

    Ollama and llama.cpp run on the user's own machine: every model costs nothing. A custom endpoint or
    the Hugging Face router (whose price depends on the provider it picks) has no known price."""
    if provider in LOCAL_PROVIDERS:
        return local_price()
    prices = PRICE_TABLE.get(provider)
    numbers = prices.models.get(model) if prices is not None else None
    if prices is None or numbers is None:
        return None
    return _price(numbers, prices.cache_hits.get(model), as_of=prices.as_of, source=prices.source)


def local_price() -> ModelPrice:
    """What a server of the user's own charges: nothing (any model, any provider preset)."""
    return replace(_price(_FREE, (0.0, 0.0), as_of="", source=LOCAL_SOURCE), local=True)


def cost_parts(
    price: ModelPrice, *, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0
) -> tuple[CostPart, ...]:
    """The tokens at each of ``price``'s prices: input served from the cache (at the cache-hit price, or
    the input price where none is published), the rest of the input, the output."""
    cached = max(0, min(cached_tokens, prompt_tokens))
    hit = (
        (price.cached_low, price.cached_high)
        if price.cached_low is not None and price.cached_high is not None
        else (price.input_low, price.input_high)
    )
    rows = (
        ("cached_input", cached, hit),
        ("input", prompt_tokens - cached, (price.input_low, price.input_high)),
        ("output", completion_tokens, (price.output_low, price.output_high)),
    )
    return tuple(
        CostPart(
            what=what,  # type: ignore[arg-type]
            tokens=tokens,
            usd_per_mtok_low=low,
            usd_per_mtok_high=high,
            low_usd=tokens * low / 1e6,
            high_usd=tokens * high / 1e6,
        )
        for what, tokens, (low, high) in rows
    )


def cost_range(
    price: ModelPrice, *, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0
) -> CostRange:
    """What these token counts cost at ``price``; ``cached_tokens`` of the prompt came from the cache."""
    parts = cost_parts(
        price, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cached_tokens=cached_tokens
    )
    return CostRange(
        low_usd=sum(p.low_usd for p in parts),
        high_usd=sum(p.high_usd for p in parts),
        as_of=price.as_of or None,
        parts=parts,
        local=price.local,
    )


def _price(
    numbers: tuple[float, float, float, float], hits: tuple[float, float] | None, *, as_of: str, source: str
) -> ModelPrice:
    input_low, input_high, output_low, output_high = numbers
    return ModelPrice(
        input_low=input_low,
        input_high=input_high,
        output_low=output_low,
        output_high=output_high,
        cached_low=hits[0] if hits else None,
        cached_high=hits[1] if hits else None,
        as_of=as_of,
        source=source,
    )
