"""The run's figures and its breakers as the events tell them, folded from one run's events.

:class:`StatsView`: ``rows()`` / ``markdown()`` (turns, tool calls, requests, tokens, cost, the rate
limit), ``tokens_used()`` (what the run spent, for the Space's budget) and ``breaker_snapshots()``
(breaker states as the events tell them: a replay has no live board).
"""

from __future__ import annotations

from agent_core import events as ev
from agent_core.resilience import BreakerSnapshot, BreakerState
from agent_core.web.i18n import t
from agent_core.web.stats import LiveStats
from agent_core.web.trace_items import BreakerRow


class StatsView:
    """One run's stats and breakers. Not thread-safe; one per run, never shared."""

    def __init__(self, lang: str, *, show_rate_limit: bool = True) -> None:
        self.lang = lang
        self.show_rate_limit = show_rate_limit  # off on a Space that reads GitHub with its owner's quota
        self._stats = LiveStats()
        self._breakers: dict[str, BreakerRow] = {}
        self._mode: ev.Mode | None = None
        self.now = 0.0

    def apply(self, event: ev.Event) -> None:
        self.now = max(self.now, event.t)
        stats = self._stats
        match event:
            case ev.RunStarted():
                stats.estimate, self._mode = event.estimate, event.mode
            case ev.TurnStarted():
                stats.turns += 1
            case ev.TurnFinished():
                stats.tokens_in += event.prompt_tokens or 0
                stats.tokens_out += event.completion_tokens or 0
                stats.tokens_cached += event.cached_prompt_tokens or 0
            case ev.ToolCallFinished():
                stats.tool_calls += 1
                stats.github_requests += event.http_requests
                stats.cache_hits += int(event.from_cache or event.memo)
            case ev.RateLimitUpdated():
                stats.rate_limit = (event.remaining, event.limit, event.reset_at)
            case ev.BreakerChanged():
                old = self._breakers.get(event.breaker)
                failed = event.new != "closed"
                self._breakers[event.breaker] = BreakerRow(
                    state=event.new,
                    failures=event.failures,
                    last_error=event.reason if failed else (old.last_error if old else None),
                    retry_after_s=event.retry_after_s,
                    at=event.t,
                )
            case ev.DiagramDrawn():
                stats.tokens_in += event.prompt_tokens
                stats.tokens_out += event.completion_tokens
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
        final = self._stats.final
        if final is not None:
            return final.prompt_tokens + final.completion_tokens
        return self._stats.tokens_in + self._stats.tokens_out

    def breaker_snapshots(self, at: float | None = None) -> list[BreakerSnapshot]:
        """Breakers as the events tell them, ``retry_after`` counted down to ``at`` (default: latest t)."""
        now = self.now if at is None else at
        return [
            BreakerSnapshot(
                name=name,
                state=BreakerState(row.state),
                failures=row.failures,
                last_error=row.last_error,
                retry_after=max(0.0, row.retry_after_s - (now - row.at)) if row.state == "open" else 0.0,
            )
            for name, row in self._breakers.items()
        ]
