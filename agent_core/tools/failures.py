"""What a failed tool call means: which breaker it counts against, whether it counts, how it is said, and
which cause (:mod:`agent_core.diagnosis`) explains it — for an open breaker, the failure that opened it."""

from __future__ import annotations

from typing import Any

from agent_core.errors import AgentCoreError, CircuitOpenError, GitHubError, RateLimitError, TransientError
from agent_core.resilience import BreakerName, Outcome


def breaker_key(source: str, tool: str) -> BreakerName:
    """The breaker of one tool on one kind of source ("github:read_file", "local:read_file"): a failing
    GitHub never blocks a local repository, nor one tool another."""
    return BreakerName(source=source, subject=tool)


def classify(error: BaseException) -> Outcome:
    """Breaker accounting: only GitHub's own failures count; callers' errors and rate limits do not."""
    if isinstance(error, TransientError):
        return Outcome.FAILURE
    if isinstance(error, AgentCoreError):
        return Outcome.IGNORED  # 404, 403, rate limits, bad arguments: GitHub is healthy
    return Outcome.FAILURE  # an unexpected error inside the tool


def failure_reason(exc: BaseException) -> str:
    """A failure in words, for the observation and the trace."""
    if isinstance(exc, TimeoutError):
        return "the tool timed out"
    if isinstance(exc, CircuitOpenError):
        return exc.message
    if isinstance(exc, AgentCoreError):
        return str(exc)
    return type(exc).__name__


class FailureMemory:
    """The cause of each breaker's latest counted failure, so that a call an open breaker refused is
    explained by what opened it (one per toolbox: a run's own failures)."""

    def __init__(self) -> None:
        self._causes: dict[BreakerName, tuple[str | None, str | None]] = {}

    def saw(self, error: GitHubError, key: BreakerName) -> None:
        if classify(error) is Outcome.FAILURE:
            self._causes[key] = (error.cause, error.host)

    def diagnose(self, exc: BaseException, key: BreakerName) -> dict[str, Any]:
        """The :class:`~agent_core.tools.executor.ToolResult` fields of a failed call's cause: the error's
        own, or for an open breaker the failure that opened it (``github_paused`` when this run did not
        see it)."""
        source = key.source
        if isinstance(exc, RateLimitError):
            limit = "space_quota" if exc.kind == "space" else exc.cause
            return {"cause": limit, "host": exc.host, "reset_at": exc.reset_at, "source": source}
        if isinstance(exc, GitHubError):
            return {"cause": exc.cause, "host": exc.host, "source": source}
        if isinstance(exc, CircuitOpenError):
            cause, host = self._causes.get(key, ("github_paused", None))
            return {"cause": cause, "host": host, "source": source}
        if isinstance(exc, TimeoutError):
            return {"cause": "timeout", "source": source}
        return {}
