"""What a model's tokens cost: a dated price table (data), and the arithmetic over it.

Prices are US dollars per million tokens, each provider's with the date it was read and the page it was
read from. They change: a model that is not in the table has no price (``None``, shown as "unknown"),
never a guess. Input is priced at the cache-miss rate (cache hits cost less), so a cost computed here is
never below what the provider bills for the same counts, except where noted.

A price is a range (``low``-``high``) where the provider's price depends on when the tokens are
processed: DeepSeek bills half its peak rate off-peak (peak hours 01:00-04:00 and 06:00-10:00 UTC,
Monday to Friday, except Chinese public holidays). Where the price is one number, low == high.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["NO_COST", "PRICE_TABLE", "CostRange", "ModelPrice", "ProviderPrices", "cost_range", "price_of"]


@dataclass(frozen=True, kw_only=True)
class ModelPrice:
    """One model's price per million tokens (input at the cache-miss rate), and where it comes from."""

    input_low: float
    input_high: float
    output_low: float
    output_high: float
    as_of: str  # the date the source was read (YYYY-MM-DD)
    source: str  # the provider's pricing page


@dataclass(frozen=True, kw_only=True)
class ProviderPrices:
    as_of: str
    source: str
    models: Mapping[str, tuple[float, float, float, float]]  # input low, input high, output low, high


@dataclass(frozen=True, kw_only=True)
class CostRange:
    """US dollars, low to high (equal where the price is one number), at the prices of ``as_of``."""

    low_usd: float
    high_usd: float
    as_of: str | None = None


NO_COST = CostRange(low_usd=0.0, high_usd=0.0)
"""What a run without a model costs."""


_FREE = (0.0, 0.0, 0.0, 0.0)

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
        ),
    }
)
"""Per provider preset: when and where its prices were read, and each model's four numbers."""


def price_of(provider: str, model: str) -> ModelPrice | None:
    """The price of ``model`` at ``provider`` (a preset name), or None when the table does not know it.

    Ollama runs on the user's own machine: every model costs nothing. A custom endpoint or the Hugging
    Face router (whose price depends on the provider it picks) has no known price."""
    if provider == "ollama":
        return _price(_FREE, as_of="", source="local")
    prices = PRICE_TABLE.get(provider)
    numbers = prices.models.get(model) if prices is not None else None
    if prices is None or numbers is None:
        return None
    return _price(numbers, as_of=prices.as_of, source=prices.source)


def cost_range(price: ModelPrice, *, prompt_tokens: int, completion_tokens: int) -> CostRange:
    """What these token counts cost at ``price``."""
    return CostRange(
        low_usd=(prompt_tokens * price.input_low + completion_tokens * price.output_low) / 1e6,
        high_usd=(prompt_tokens * price.input_high + completion_tokens * price.output_high) / 1e6,
        as_of=price.as_of or None,
    )


def _price(numbers: tuple[float, float, float, float], *, as_of: str, source: str) -> ModelPrice:
    input_low, input_high, output_low, output_high = numbers
    return ModelPrice(
        input_low=input_low,
        input_high=input_high,
        output_low=output_low,
        output_high=output_high,
        as_of=as_of,
        source=source,
    )
