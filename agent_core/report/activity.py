"""What a run's page of commits shows: how many, from when to when, by whom (of a folder's run: the
commits that touched the folder, as the source filtered them by its path)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from agent_core.report.phrases import parse_date
from agent_core.sources.models import CommitList


@dataclass(frozen=True, kw_only=True)
class Activity:
    """What the fetched page of commits shows: how many, from when to when, by whom."""

    count: int
    first: datetime | None
    last: datetime | None
    authors: tuple[tuple[str, int], ...]  # most commits first, then by name
    has_more: bool

    @property
    def span_days(self) -> float | None:
        if self.first is None or self.last is None:
            return None
        return (self.last - self.first).total_seconds() / 86400

    @property
    def per_week(self) -> float | None:
        span = self.span_days
        return self.count / (span / 7) if span and span >= 1 else None


def activity_of(commits: CommitList | None) -> Activity | None:
    if commits is None or commits.empty_repository:
        return None
    dates = [d for d in (parse_date(c.date) for c in commits.commits) if d is not None]
    authors = Counter(c.author or "" for c in commits.commits)  # "" = unknown author
    return Activity(
        count=len(commits.commits),
        first=min(dates, default=None),
        last=max(dates, default=None),
        authors=tuple(sorted(authors.items(), key=lambda kv: (-kv[1], kv[0]))),
        has_more=commits.has_more,
    )
