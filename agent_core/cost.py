"""What one call cost: network requests, cache answers, local git commands. A value, added up as it travels.

The GitHub client returns it with every response (:class:`agent_core.github.client.GitHubResponse`),
a repository source returns it with every value (:class:`agent_core.sources.base.Sourced`), and the
toolbox adds the costs of a call's attempts into its :class:`agent_core.tools.executor.ToolResult`.
Nothing is counted on the side: a cost is computed where the work happened and handed back up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, kw_only=True)
class CallCost:
    requests: int = 0
    """Requests that reached the network (304 revalidations and followed redirects included)."""
    revalidated: int = 0
    """Of those, answered 304 Not Modified (free against GitHub's limit with a token)."""
    cache_hits: int = 0
    """Answers served by the HTTP cache (fresh, revalidated or stale) or by the run's memo."""
    git_commands: int = 0
    """``git`` processes a local repository source ran."""
    stale_age_s: float | None = None
    """Age of the oldest stale cached answer used (the fallback), else None."""

    def __add__(self, other: CallCost) -> CallCost:
        ages = [a for a in (self.stale_age_s, other.stale_age_s) if a is not None]
        return CallCost(
            requests=self.requests + other.requests,
            revalidated=self.revalidated + other.revalidated,
            cache_hits=self.cache_hits + other.cache_hits,
            git_commands=self.git_commands + other.git_commands,
            stale_age_s=max(ages) if ages else None,
        )

    @property
    def from_cache(self) -> bool:
        """Answered without new data from the network: a cache hit, and every request a 304."""
        return self.cache_hits > 0 and self.requests == self.revalidated


FREE = CallCost()
"""Nothing spent."""


@dataclass(frozen=True, kw_only=True)
class CostPart:
    """Tokens billed at one price (US dollars per million tokens, low to high) and what they cost."""

    what: Literal["cached_input", "input", "output"]
    tokens: int
    usd_per_mtok_low: float
    usd_per_mtok_high: float
    low_usd: float
    high_usd: float
