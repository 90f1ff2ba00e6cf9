"""The run-stats panel: turns, tool calls, GitHub requests, cache hits, rate limit, tokens, cost, time."""

from __future__ import annotations

import time
from dataclasses import dataclass

from agent_core import events as ev
from agent_core.web.i18n import t


@dataclass(kw_only=True)
class LiveStats:
    """The run stats as the events tell them while the run streams; the final RunStats once it ended."""

    turns: int = 0
    tool_calls: int = 0
    github_requests: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    rate_limit: tuple[int, int, float] | None = None  # remaining, limit, reset epoch
    final: ev.RunStats | None = None

    def rows(self, lang: str, elapsed: float, *, mode: str | None) -> list[tuple[str, str]]:
        f = self.final
        unknown = t("stat_unknown", lang)
        remaining, reset = (
            (f.rate_limit_remaining, f.rate_limit_reset)
            if f and f.rate_limit_remaining is not None
            else (self.rate_limit[0], self.rate_limit[2])
            if self.rate_limit
            else (None, None)
        )
        rate = unknown if remaining is None else str(remaining)
        if remaining is not None and reset:
            rate += f" (reset {format_clock(reset)})"
        if f is not None and f.cost_usd:
            cost = f"${f.cost_usd:.4f}"
        elif mode == "planner" or (f is not None and f.cost_usd == 0):
            cost = "$0"
        else:
            cost = unknown
        tokens_in, tokens_out = (
            (f.prompt_tokens, f.completion_tokens) if f else (self.tokens_in, self.tokens_out)
        )
        return [
            (t("stat_turns", lang), str(f.turns if f else self.turns)),
            (t("stat_tool_calls", lang), str(f.tool_calls if f else self.tool_calls)),
            (t("stat_github_requests", lang), str(f.github_requests if f else self.github_requests)),
            (t("stat_cache_hits", lang), str(f.cache_hits if f else self.cache_hits)),
            (t("stat_rate_limit", lang), rate),
            (t("stat_tokens", lang), f"{tokens_in:,} / {tokens_out:,}"),
            (t("stat_cost", lang), cost),
            (t("stat_elapsed", lang), f"{(f.elapsed_s if f else elapsed):.1f} s"),
        ]


def format_clock(epoch: float | None) -> str:
    """``14:05 UTC`` for a UTC epoch."""
    if epoch is None:
        return "?"
    return time.strftime("%H:%M UTC", time.gmtime(epoch))
