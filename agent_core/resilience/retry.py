"""Retry an async call with exponential backoff and full jitter, bounded in attempts and in time.

The algorithm, once per failed attempt ``n`` (1-based):

1. ``retry_on(error)`` decides. ``None``/``False``: re-raise at once. ``True``: wait the computed
   backoff, ``uniform(0, min(max_delay, base_delay * 2**(n-1)))``. A number: wait exactly that many
   seconds, because the server asked for it (``Retry-After``, a rate-limit reset).
2. If ``n`` was the last allowed attempt, re-raise.
3. If the wait would end past ``max_total`` seconds after the first attempt started, re-raise now
   instead of sleeping: a rate-limit reset an hour away fails fast, and the caller's error (say a
   ``RateLimitError`` carrying the reset time) reaches the user unchanged.
4. Tell ``on_retry``, sleep on the injected clock, try again.

This module knows nothing about HTTP: the caller says what is worth retrying. The error that ends the
loop is always re-raised unchanged (same object, same type) so callers can still ``except`` on it.
``asyncio.CancelledError`` (and every other ``BaseException`` that is not an ``Exception``) passes
straight through: it is never offered to ``retry_on``, and a cancellation during a backoff sleep ends
the call at once.

The budget decides whether a new attempt may *start*; an attempt already running is not interrupted
(per-request timeouts bound that). Counting attempts is the caller's business: use ``on_retry``.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from agent_core.clock import Clock

T = TypeVar("T")

RetryOn = Callable[[BaseException], bool | float | None]
"""Decides about one failure: ``None``/``False`` = do not retry, ``True`` = retry after the computed
backoff, a number = retry after exactly that many seconds (a server-requested wait)."""

# 2**60 half-seconds is ~18 billion years; capping the exponent keeps float arithmetic from overflowing
# for absurd attempt numbers without changing any delay that could matter.
_MAX_EXPONENT = 60


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How hard to try. Every bound is enforced; none is optional, and none has a default here: the
    values come from Settings (:func:`agent_core.top.wiring.retry_policy`)."""

    max_attempts: int
    """Total attempts, including the first."""
    base_delay: float
    """Seconds; the ceiling of the first backoff."""
    max_delay: float
    """Cap on one computed backoff (a server-requested wait is bounded by ``max_total`` instead)."""
    max_total: float
    """Seconds from the start of the first attempt within which every wait must end."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {self.max_attempts}")
        for field in ("base_delay", "max_delay", "max_total"):
            if getattr(self, field) < 0:
                raise ValueError(f"{field} must be >= 0, got {getattr(self, field)}")


@dataclass(frozen=True, kw_only=True)
class RetryDetails:
    """What ``on_retry`` is told before each backoff sleep."""

    attempt: int
    """The attempt that failed (1-based)."""
    delay: float
    """Seconds we will wait before the next attempt."""
    error: BaseException
    """What the failed attempt raised."""
    elapsed: float
    """Seconds since the first attempt started."""
    server_requested: bool
    """``delay`` came from the server (``Retry-After``, a rate-limit reset), not from the backoff."""


def backoff_delay(attempt: int, policy: RetryPolicy, rng: Callable[[], float]) -> float:
    """The wait after failed attempt ``attempt`` (1-based): "full jitter".

    ``rng()`` must return a float in ``[0, 1)``; the result is then in
    ``[0, min(max_delay, base_delay * 2**(attempt-1)))``.

    Why full jitter rather than "equal" or "decorrelated" jitter: AWS's analysis ("Exponential Backoff
    And Jitter", Architecture Blog) shows that when many clients back off from the same failure, full
    jitter spreads their retries the most evenly, so it causes the least contention and the least
    total work while finishing about as fast as the others. It is also a pure function of the attempt
    number (decorrelated jitter depends on the previous delay), which keeps it trivial to test.
    """
    if attempt < 1:
        raise ValueError(f"attempt is 1-based, got {attempt}")
    ceiling = min(policy.max_delay, policy.base_delay * 2.0 ** min(attempt - 1, _MAX_EXPONENT))
    return rng() * ceiling


async def call_with_retry(
    fn: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    retry_on: RetryOn,
    clock: Clock,
    rng: Callable[[], float] = random.random,
    on_retry: Callable[[RetryDetails], None] | None = None,
) -> T:
    """Await ``fn()`` until it succeeds or the policy, the budget or ``retry_on`` says stop.

    Returns what ``fn`` returned; otherwise re-raises the error of the last attempt, unchanged. An
    exception raised by ``retry_on`` or ``on_retry`` is a bug in the caller and propagates as is.
    """
    started = clock.monotonic()
    attempt = 0
    while True:
        attempt += 1
        try:
            return await fn()
        # Only ``Exception``: cancellation, KeyboardInterrupt and SystemExit are never retried.
        except Exception as error:
            elapsed = clock.monotonic() - started
            details = _plan_retry(error, attempt, elapsed, policy=policy, retry_on=retry_on, rng=rng)
            if details is None:
                raise
            if on_retry is not None:
                on_retry(details)
        # Sleep outside the ``except`` block so a cancellation here does not chain the old error.
        await clock.sleep(details.delay)


def _plan_retry(
    error: Exception,
    attempt: int,
    elapsed: float,
    *,
    policy: RetryPolicy,
    retry_on: RetryOn,
    rng: Callable[[], float],
) -> RetryDetails | None:
    """The next wait after ``attempt`` failed with ``error``, or ``None`` to give up now."""
    decision = retry_on(error)
    if decision is None or decision is False or attempt >= policy.max_attempts:
        return None
    if decision is True:
        delay, server_requested = backoff_delay(attempt, policy, rng), False
    else:
        # A reset time already in the past comes out negative: go at once.
        delay, server_requested = max(0.0, float(decision)), True
    if elapsed + delay > policy.max_total:
        return None
    return RetryDetails(
        attempt=attempt, delay=delay, error=error, elapsed=elapsed, server_requested=server_requested
    )
