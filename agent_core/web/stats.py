"""The run-stats panel: turns, tool calls, GitHub requests, cache hits, rate limit, tokens, cost, time;
and the tokens and model time a step's title shows.

:class:`StatsView` folds one run's events: ``rows()`` / ``markdown()`` (the panel), ``tokens_used()``
(what the run spent, for the Space's budget) and ``breaker_snapshots()`` (breaker states as the events
tell them: a replay has no live board).

Cost: before the run ends, the estimate ``run_started`` carried (a range, from the run's first request
to its whole token budget); once it ended, what its tokens cost (a range where the price depends on
the hour), with the date of the prices. "unknown" when the model has no known price: never a guess.
Input the provider served from its prompt cache is shown apart, and "Cost by price" gives the tokens
at each price (cached input, input, output) and what they cost."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from agent_core import events as ev
from agent_core.cost import CostPart
from agent_core.report.coverage import coverage_lines
from agent_core.resilience import BreakerSnapshot, BreakerState
from agent_core.words import t


@dataclass(kw_only=True)
class LiveStats:
    """The run stats as the events tell them while the run streams (``running``); the final RunStats once
    it ended."""

    running: ev.RunStats = field(default_factory=ev.RunStats)
    estimate: ev.CostEstimate | None = None
    final: ev.RunStats | None = None

    def add(self, **counts: int) -> None:
        """Count what an event adds (``turns=1``, ``prompt_tokens=...``) into ``running``."""
        self.running = replace(self.running, **{k: getattr(self.running, k) + n for k, n in counts.items()})

    def rows(self, lang: str, elapsed: float, *, mode: str | None) -> list[tuple[str, str]]:
        f = self.final
        s = f or self.running
        unknown = t("stat_unknown", lang)
        limited = f if f is not None and f.rate_limit_remaining is not None else self.running
        remaining, reset = limited.rate_limit_remaining, limited.rate_limit_reset
        rate = unknown if remaining is None else str(remaining)
        if remaining is not None and reset:
            rate += t("stat_resets_at", lang, at=format_clock(reset))
        cost = self.cost(lang, mode=mode)
        tokens_in, tokens_out, cached = s.prompt_tokens, s.completion_tokens, s.cached_prompt_tokens
        tokens = (
            t("stat_tokens_cached", lang, tokens_in=tokens_in, cached=cached, tokens_out=tokens_out)
            if cached
            else f"{tokens_in:,} / {tokens_out:,}"
        )
        parts = self.cost_parts(lang)
        return [
            (t("stat_turns", lang), str(s.turns)),
            (t("stat_tool_calls", lang), str(s.tool_calls)),
            (t("stat_github_requests", lang), str(s.github_requests)),
            (t("stat_cache_hits", lang), str(s.cache_hits)),
            (t("stat_rate_limit", lang), rate),
            (t("stat_tokens", lang), tokens),
            (t("stat_cost", lang), cost),
            *([(t("stat_cost_parts", lang), parts)] if parts else []),
            (t("stat_elapsed", lang), f"{(f.elapsed_s if f else elapsed):.1f} s"),
            *(
                (t("stat_coverage", lang), line)
                for line in coverage_lines(s.coverage, "zh" if lang == "zh" else "en")
            ),
        ]

    def cost(self, lang: str, *, mode: str | None) -> str:
        f, estimate = self.final, self.estimate
        if (f is not None and f.local) or (f is None and estimate is not None and estimate.local):
            return t("cost_local", lang)
        if mode == "planner" or (f is not None and f.cost_usd == 0):
            return "$0"
        if f is not None and f.cost_usd is not None:
            low = f.cost_low_usd if f.cost_low_usd is not None else f.cost_usd
            shown = dollars(f.cost_usd) if low == f.cost_usd else f"{dollars(low)} – {dollars(f.cost_usd)}"
            return shown + (f" ({t('cost_prices', lang, date=f.prices_as_of)})" if f.prices_as_of else "")
        if f is None and estimate is not None:
            shown = t(
                "cost_estimate",
                lang,
                low=dollars(estimate.low_usd),
                high=dollars(estimate.high_usd),
                budget=estimate.budget_tokens,
            )
            return f"{shown} ({t('cost_prices', lang, date=estimate.prices_as_of)})"
        return t("cost_unknown", lang) if mode == "model" else t("stat_unknown", lang)

    def cost_parts(self, lang: str) -> str:
        """The tokens at each price and what they cost (once the run ended), or the prices the estimate
        used (before); "" for a model without a known price or a local one."""
        f, estimate = self.final, self.estimate
        if f is not None:
            return "; ".join(
                t(
                    "cost_part",
                    lang,
                    what=t(f"cost_what_{p.what}", lang),
                    tokens=p.tokens,
                    price=_per_mtok(p),
                    cost=_span(p.low_usd, p.high_usd),
                )
                for p in f.cost_parts
                if p.tokens and p.usd_per_mtok_high
            )
        if estimate is None or estimate.local:
            return ""
        return ", ".join(
            t("cost_part_price", lang, what=t(f"cost_what_{p.what}", lang), price=_per_mtok(p))
            for p in estimate.parts
        )


def _per_mtok(part: CostPart) -> str:
    low, high = part.usd_per_mtok_low, part.usd_per_mtok_high
    return f"${low:g}" if low == high else f"${low:g}–{high:g}"


def _span(low: float, high: float) -> str:
    return dollars(high) if low == high else f"{dollars(low)} – {dollars(high)}"


def dollars(amount: float) -> str:
    """``$0.0123``; ``$1.23`` from a dollar up; ``< $0.0001`` for what rounds to nothing."""
    if 0 < amount < 0.00005:
        return "< $0.0001"
    return f"${amount:.2f}" if amount >= 1 else f"${amount:.4f}"


def step_usage(event: ev.TurnFinished, lang: str) -> str | None:
    """``4,800 in (4,096 cached) / 650 out tokens · model 1.2 s`` for a step's title, and the generation
    speed when the first token's time is known (``· 8.1 tokens/s · first token after 42 s``); None when
    the endpoint reported no usage (the step's own duration still shows beside its title)."""
    if event.prompt_tokens is None and event.completion_tokens is None:
        return None
    usage = t(
        "step_usage_cached" if event.cached_prompt_tokens else "step_usage",
        lang,
        tokens_in=event.prompt_tokens or 0,
        cached=event.cached_prompt_tokens or 0,
        tokens_out=event.completion_tokens or 0,
        seconds=event.duration_s,
    )
    writing = event.duration_s - (event.first_token_s or 0.0)
    if event.first_token_s is None or not event.completion_tokens or writing <= 0:
        return usage
    speed = t("step_speed", lang, rate=event.completion_tokens / writing, first=event.first_token_s)
    return f"{usage} · {speed}"


def format_clock(epoch: float | None) -> str:
    """``14:05 UTC`` for a UTC epoch."""
    if epoch is None:
        return "?"
    return time.strftime("%H:%M UTC", time.gmtime(epoch))


class StatsView:
    """One run's stats and breakers. Not thread-safe; one per run, never shared."""

    def __init__(self, lang: str, *, show_rate_limit: bool = True) -> None:
        self.lang = lang
        self.show_rate_limit = show_rate_limit  # off on a Space that reads GitHub with its owner's quota
        self._stats = LiveStats()
        self._breakers: dict[str, tuple[ev.BreakerChanged, str | None]] = {}  # the latest, its last error
        self._mode: ev.Mode | None = None
        self.now = 0.0

    def apply(self, event: ev.Event) -> None:
        self.now = max(self.now, event.t)
        stats = self._stats
        match event:
            case ev.RunStarted():
                stats.estimate, self._mode = event.estimate, event.mode
            case ev.TurnStarted():
                stats.add(turns=1)
            case ev.TurnFinished():
                stats.add(
                    prompt_tokens=event.prompt_tokens or 0,
                    completion_tokens=event.completion_tokens or 0,
                    cached_prompt_tokens=event.cached_prompt_tokens or 0,
                )
            case ev.ToolCallFinished():
                stats.add(
                    tool_calls=1,
                    github_requests=event.http_requests,
                    cache_hits=int(event.from_cache or event.memo),
                )
            case ev.RateLimitUpdated():
                stats.running = replace(
                    stats.running, rate_limit_remaining=event.remaining, rate_limit_reset=event.reset_at
                )
            case ev.BreakerChanged():
                old = self._breakers.get(event.breaker)
                failed = event.new != "closed"
                self._breakers[event.breaker] = (event, event.reason if failed else (old[1] if old else None))
            case ev.DiagramDrawn():
                stats.add(prompt_tokens=event.prompt_tokens, completion_tokens=event.completion_tokens)
            case ev.RunFinished():
                stats.final = event.stats
            case _:
                pass

    def rows(self) -> list[tuple[str, str]]:
        rows = self._stats.rows(self.lang, self.now, mode=self._mode)
        if self.show_rate_limit:
            return rows
        return [row for row in rows if row[0] != t("stat_rate_limit", self.lang)]

    def markdown(self) -> str:
        """The stats as a Markdown list (``- **Turns:** 3``)."""
        return "\n".join(f"- **{label}:** {value}" for label, value in self.rows())

    def tokens_used(self) -> int:
        """Model tokens this run used so far (prompt and completion, as the endpoint reported them)."""
        stats = self._stats.final or self._stats.running
        return stats.prompt_tokens + stats.completion_tokens

    def breaker_snapshots(self, at: float | None = None) -> list[BreakerSnapshot]:
        """Breakers as the events tell them, ``retry_after`` counted down to ``at`` (default: latest t)."""
        now = self.now if at is None else at
        return [
            BreakerSnapshot(
                name=e.breaker,
                source=e.source,
                subject=e.subject,
                state=BreakerState(e.new),
                failures=e.failures,
                last_error=last_error,
                retry_after=max(0.0, e.retry_after_s - (now - e.t)) if e.new == "open" else 0.0,
            )
            for e, last_error in self._breakers.values()
        ]
