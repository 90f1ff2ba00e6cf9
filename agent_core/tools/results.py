"""What one tool call produced, as a value: the observation the model reads, the typed source value the
planner and the report writer read, and what the call cost and how it failed, for the UI.

It lives apart from the executor so that readers of results (``report/``, the planner) need not import
the machinery that produces them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_core.cost import CallCost
from agent_core.repo import RepoRef
from agent_core.result_shape import (
    CommitsShape,
    FileShape,
    InfoShape,
    LanguagesShape,
    ListingShape,
    ResultShape,
)
from agent_core.sources.models import CommitList, DirListing, FileContent, Languages, RepoInfo


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


def shape_of(value: Any) -> ResultShape | None:
    """The typed shape of a source value (``ToolCallFinished.shape``); None for a tree (it has its own,
    :mod:`agent_core.tree_shape`) and for anything else."""
    match value:
        case FileContent():
            return FileShape(
                path=value.path,
                content=value.kind,
                size=value.size,
                start_line=value.start_line,
                end_line=value.end_line,
                total_lines=value.total_lines,
                cut=value.truncated,
                next_line=value.next_offset,
            )
        case DirListing():
            kinds = Counter(entry.type for entry in value.entries)
            files, dirs = kinds["file"], kinds["dir"]
            other = len(value.entries) - files - dirs
            return ListingShape(path=value.path, files=files, dirs=dirs, other=other, cut=value.truncated)
        case RepoInfo():
            return InfoShape(
                full_name=value.full_name,
                default_branch=value.default_branch,
                language=value.language,
                license=value.license,
                stars=value.stars,
                archived=bool(value.archived),
                renamed_from=value.renamed_from,
            )
        case CommitList():
            return CommitsShape(
                commits=len(value.commits),
                authors=len({c.author for c in value.commits if c.author}),
                newest=value.commits[0].date if value.commits else None,
                more=value.has_more,
                empty_repository=value.empty_repository,
            )
        case Languages():
            total = sum(value.bytes_by_language.values()) or 1
            ranked = sorted(value.bytes_by_language.items(), key=lambda kv: -kv[1])
            return LanguagesShape(languages=tuple((name, round(100 * n / total, 1)) for name, n in ranked))
    return None
