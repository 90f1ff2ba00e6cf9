"""Resilience primitives: retry with backoff and jitter, per-tool circuit breakers, hourly quotas.

Both are generic (they know nothing about HTTP) and take an injected :class:`agent_core.clock.Clock`.
The usual composition is retry outside, breaker inside::

    await call_with_retry(lambda: board.get(BreakerName(source="github", subject="read_file")).call(fetch, classify=classify), ...)

with ``retry_on`` answering ``None`` for :class:`agent_core.errors.CircuitOpenError`, so a refusal
is never retried in a tight loop.
"""

from agent_core.resilience.breaker import (
    BreakerBoard,
    BreakerConfig,
    BreakerName,
    BreakerSnapshot,
    BreakerState,
    CircuitBreaker,
    Classifier,
    Outcome,
    Permit,
    StateChange,
)
from agent_core.resilience.quota import HourlyQuota
from agent_core.resilience.retry import (
    RetryDetails,
    RetryOn,
    RetryPolicy,
    backoff_delay,
    call_with_retry,
)

__all__ = [
    "BreakerBoard",
    "BreakerConfig",
    "BreakerName",
    "BreakerSnapshot",
    "BreakerState",
    "CircuitBreaker",
    "Classifier",
    "HourlyQuota",
    "Outcome",
    "Permit",
    "RetryDetails",
    "RetryOn",
    "RetryPolicy",
    "StateChange",
    "backoff_delay",
    "call_with_retry",
]
