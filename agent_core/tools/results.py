"""What one tool call produced, as a value: the observation the model reads, the typed source value the
planner and the report writer read, and what the call cost and how it failed, for the UI.

It lives apart from the executor so that readers of results (``report/``, the planner) need not import
the machinery that produces them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_core.cost import CallCost
from agent_core.repo import RepoRef


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What one call produced: an observation for the model and metadata for the UI."""

    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    ok: bool
    observation: dict[str, Any]
    value: Any = None  # the typed source value (planner and report writer read it)
    repo: RepoRef | None = None
    duration_s: float = 0.0
    http_requests: int = 0
    attempts: int = 0
    from_cache: bool = False
    memo: bool = False
    stale: bool = False
    stale_age_s: float | None = None
    degraded: bool = False
    error: str | None = None
    cause: str | None = None  # the diagnosis key of the failure (agent_core.diagnosis), when known
    host: str | None = None  # the host that failed, when known
    reset_at: float | None = None  # a rate limit's reset (UTC epoch seconds)
    source: str = "github"  # the kind of source the call read ("github", "local")

    @property
    def cost(self) -> CallCost:
        """What the call cost, as the UI shows it (requests, and whether the cache answered)."""
        return CallCost(requests=self.http_requests, cache_hits=int(self.from_cache))

    def observation_text(self) -> str:
        return json.dumps(self.observation, ensure_ascii=False, separators=(",", ":"))
