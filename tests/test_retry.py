"""call_with_retry and backoff_delay: acceptance scenario 9 of notes/github-api.md, and the contract.

Every wait goes through FakeClock, so nothing here sleeps for real. The composition tests at the end
talk to a real HTTP server on 127.0.0.1 (:class:`testing.loopback.LoopbackServer`) so "sent exactly once"
means what the server saw.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Awaitable, Callable, Iterator
from functools import partial
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import agent_core.resilience
from agent_core.clock import Clock
from agent_core.errors import CircuitOpenError, NotFoundError, RateLimitError, TransientError
from agent_core.resilience import (
    BreakerBoard,
    BreakerConfig,
    BreakerState,
    Outcome,
    RetryDetails,
    RetryPolicy,
    backoff_delay,
    call_with_retry,
)
from testing.clock import FakeClock
from testing.loopback import LoopbackServer

POLICY = RetryPolicy(max_attempts=4, base_delay=0.5, max_delay=8.0, max_total=20.0)


class BoomError(Exception):
    """A failure the tests choose to retry."""


class Failing:
    """An async callable that raises the scripted errors in order, then returns ``"ok"``."""

    def __init__(self, *errors: Exception, clock: FakeClock | None = None, takes: float = 0.0) -> None:
        self.errors = list(errors)
        self.raised: list[Exception] = []
        self.calls = 0
        self._clock = clock
        self._takes = takes

    async def __call__(self) -> str:
        self.calls += 1
        if self._clock is not None:
            self._clock.advance(self._takes)  # the attempt itself takes time
        if self.errors:
            error = self.errors.pop(0)
            self.raised.append(error)
            raise error
        return "ok"


def retry_boom(error: BaseException) -> bool:
    return isinstance(error, BoomError)


def test_clock_fake_satisfies_the_protocol() -> None:
    clock: Clock = FakeClock()
    assert clock.wall() - clock.monotonic() == pytest.approx(1_700_000_000.0 - 1_000.0)


def test_public_api_is_pinned() -> None:
    assert agent_core.resilience.__all__ == [
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
    for name in agent_core.resilience.__all__:
        assert hasattr(agent_core.resilience, name)


# --- backoff_delay: a pure function --------------------------------------------------------------


@pytest.mark.parametrize(
    ("attempt", "expected_ceiling"),
    [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (6, 8.0), (10_000, 8.0)],
)
def test_backoff_is_rng_times_the_capped_exponential(attempt: int, expected_ceiling: float) -> None:
    assert backoff_delay(attempt, POLICY, lambda: 0.5) == pytest.approx(expected_ceiling / 2)
    assert backoff_delay(attempt, POLICY, lambda: 0.0) == 0.0


@given(attempt=st.integers(min_value=1, max_value=5_000), r=st.floats(min_value=0.0, max_value=1.0))
def test_backoff_stays_within_the_formula_bounds(attempt: int, r: float) -> None:
    delay = backoff_delay(attempt, POLICY, lambda: r)
    assert 0.0 <= delay <= min(POLICY.max_delay, POLICY.base_delay * 2.0 ** min(attempt - 1, 60))


def test_backoff_rejects_attempt_zero() -> None:
    with pytest.raises(ValueError, match="1-based"):
        backoff_delay(0, POLICY, random.random)


@pytest.mark.parametrize(
    "bad", [{"max_attempts": 0}, {"base_delay": -1.0}, {"max_delay": -1.0}, {"max_total": -0.1}]
)
def test_policy_rejects_nonsense(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must be >= "):
        RetryPolicy(**(POLICY.__dict__ | bad))


# --- call_with_retry --------------------------------------------------------------------------------


async def test_success_first_time_neither_sleeps_nor_reports() -> None:
    clock, seen = FakeClock(), list[RetryDetails]()
    fn = Failing()
    assert (
        await call_with_retry(fn, policy=POLICY, retry_on=retry_boom, clock=clock, on_retry=seen.append)
        == "ok"
    )
    assert (fn.calls, clock.sleeps, seen) == (1, [], [])


async def test_retries_until_success_and_reports_each_retry() -> None:
    clock, seen = FakeClock(), list[RetryDetails]()
    fn = Failing(BoomError("1"), BoomError("2"))

    result = await call_with_retry(
        fn, policy=POLICY, retry_on=retry_boom, clock=clock, rng=lambda: 0.5, on_retry=seen.append
    )

    assert result == "ok"
    assert fn.calls == 3
    assert clock.sleeps == [0.25, 0.5]
    assert seen == [
        RetryDetails(attempt=1, delay=0.25, error=fn.raised[0], elapsed=0.0, server_requested=False),
        RetryDetails(attempt=2, delay=0.5, error=fn.raised[1], elapsed=0.25, server_requested=False),
    ]


async def test_attempts_are_bounded_and_the_last_error_is_reraised_unchanged() -> None:
    clock = FakeClock()
    fn = Failing(*(BoomError(str(i)) for i in range(10)))

    with pytest.raises(BoomError) as raised:
        await call_with_retry(fn, policy=POLICY, retry_on=retry_boom, clock=clock, rng=lambda: 0.99)

    assert fn.calls == POLICY.max_attempts
    assert raised.value is fn.raised[-1]
    assert len(clock.sleeps) == POLICY.max_attempts - 1


async def test_total_time_is_bounded_including_time_spent_in_attempts() -> None:
    clock = FakeClock()
    start = clock.monotonic()
    policy = RetryPolicy(max_attempts=10, base_delay=1.0, max_delay=8.0, max_total=10.0)
    # Each attempt takes 2 s; backoffs are 0.5 s, 1 s, 2 s...: 2+0.5+2+1+2 = 7.5, then 7.5+2 (attempt)
    # = 9.5, and a 2 s wait would end at 11.5 > 10: give up after the third attempt.
    fn = Failing(*(BoomError(str(i)) for i in range(10)), clock=clock, takes=2.0)
    seen: list[RetryDetails] = []

    with pytest.raises(BoomError):
        await call_with_retry(
            fn, policy=policy, retry_on=retry_boom, clock=clock, rng=lambda: 0.5, on_retry=seen.append
        )

    assert fn.calls == 4
    assert clock.sleeps == [0.5, 1.0, 2.0]
    assert [d.elapsed + d.delay for d in seen] == [2.5, 5.5, 9.5]  # every attempt started in budget
    assert clock.monotonic() - start == 11.5


async def test_delays_from_a_seeded_rng_stay_within_the_formula_bounds() -> None:
    clock, seen = FakeClock(), list[RetryDetails]()
    policy = RetryPolicy(max_attempts=12, base_delay=0.5, max_delay=8.0, max_total=1_000.0)
    fn = Failing(*(BoomError(str(i)) for i in range(11)))

    await call_with_retry(
        fn,
        policy=policy,
        retry_on=retry_boom,
        clock=clock,
        rng=random.Random(1234).random,
        on_retry=seen.append,
    )

    assert [d.attempt for d in seen] == list(range(1, 12))
    for d in seen:
        assert 0.0 <= d.delay <= min(policy.max_delay, policy.base_delay * 2 ** (d.attempt - 1))
    assert len(set(clock.sleeps)) == len(clock.sleeps), "jitter: no two delays alike"


async def test_a_server_requested_wait_overrides_the_backoff() -> None:
    clock, seen = FakeClock(), list[RetryDetails]()
    fn = Failing(RateLimitError("slow down", status=429, kind="secondary", reset_at=None, retry_after=7.0))

    def retry_on(error: BaseException) -> float | None:
        return error.retry_after if isinstance(error, RateLimitError) else None

    assert (
        await call_with_retry(fn, policy=POLICY, retry_on=retry_on, clock=clock, on_retry=seen.append) == "ok"
    )

    assert clock.sleeps == [7.0]  # not the 0..0.5 s backoff, and not capped by max_delay
    assert seen[0].server_requested is True


async def test_a_server_wait_in_the_past_means_go_now() -> None:
    clock = FakeClock()
    fn = Failing(BoomError("reset already passed"))
    await call_with_retry(fn, policy=POLICY, retry_on=lambda _: -3.0, clock=clock)
    assert clock.sleeps == [0.0]


async def test_a_wait_beyond_the_budget_fails_fast_with_the_typed_error_carrying_the_reset() -> None:
    clock = FakeClock()
    start = clock.monotonic()
    reset_at = clock.wall() + 3_600
    limited = RateLimitError("rate limit", status=403, kind="primary", reset_at=reset_at, retry_after=3_600.0)
    fn = Failing(limited)

    def retry_on(error: BaseException) -> float | None:
        return error.retry_after if isinstance(error, RateLimitError) else None

    with pytest.raises(RateLimitError) as raised:
        await call_with_retry(fn, policy=POLICY, retry_on=retry_on, clock=clock)

    assert raised.value is limited
    assert raised.value.reset_at == reset_at
    assert fn.calls == 1
    assert clock.sleeps == []
    assert clock.monotonic() - start < POLICY.max_total


@pytest.mark.parametrize("verdict", [None, False])
async def test_a_non_retryable_error_is_raised_after_exactly_one_attempt(verdict: bool | None) -> None:
    clock = FakeClock()
    fn = Failing(NotFoundError("not found or private", status=404))

    with pytest.raises(NotFoundError):
        await call_with_retry(fn, policy=POLICY, retry_on=lambda _: verdict, clock=clock)

    assert (fn.calls, clock.sleeps) == (1, [])


async def test_cancellation_during_a_backoff_sleep_stops_at_once() -> None:
    clock = FakeClock()
    fn = Failing(*(BoomError(str(i)) for i in range(10)))
    task = asyncio.create_task(call_with_retry(fn, policy=POLICY, retry_on=retry_boom, clock=clock))

    for _ in range(100):  # wait on observable state: the first backoff sleep has begun
        if clock.sleeps:
            break
        await asyncio.sleep(0)
    assert len(clock.sleeps) == 1
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert fn.calls == 1, "no attempt after the cancelled sleep"
    assert len(clock.sleeps) == 1


async def test_cancellation_inside_an_attempt_is_never_offered_to_retry_on() -> None:
    clock, offered = FakeClock(), list[BaseException]()
    calls = 0

    async def cancelled() -> str:
        nonlocal calls
        calls += 1
        raise asyncio.CancelledError

    def retry_everything(error: BaseException) -> bool:
        offered.append(error)
        return True

    with pytest.raises(asyncio.CancelledError):
        await call_with_retry(cancelled, policy=POLICY, retry_on=retry_everything, clock=clock)
    assert (calls, offered, clock.sleeps) == (1, [], [])


async def test_retry_on_is_consulted_with_the_error_itself() -> None:
    clock, offered = FakeClock(), list[BaseException]()
    fn = Failing(BoomError("x"))

    def record(error: BaseException) -> bool:
        offered.append(error)
        return True

    await call_with_retry(fn, policy=POLICY, retry_on=record, clock=clock)
    assert offered == fn.raised


# --- composition: retry (outer) -> breaker (inner) -> HTTP on 127.0.0.1 ----------------------------


class ScriptedServer:
    """Answers the scripted statuses in order (then 200) and counts the requests it saw; thread-safe."""

    def __init__(self) -> None:
        self.statuses: list[int] = []
        self.requests = 0
        self.url = ""
        self._lock = threading.Lock()

    def next_status(self) -> int:
        with self._lock:
            self.requests += 1
            return self.statuses.pop(0) if self.statuses else 200


class StatusHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def __init__(self, *args: Any, script: ScriptedServer) -> None:
        self.script = script
        super().__init__(*args)

    def do_GET(self) -> None:
        self.send_response(self.script.next_status())
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer()
    with LoopbackServer(partial(StatusHandler, script=scripted), name="scripted-statuses") as loopback:
        scripted.url = f"{loopback.url}/repos/o/r"
        yield scripted


def classify(error: BaseException) -> Outcome:
    """The notes' table in miniature: 5xx count against the breaker, 4xx do not."""
    return Outcome.FAILURE if isinstance(error, TransientError) else Outcome.IGNORED


def retry_on(error: BaseException) -> bool | None:
    """Transient errors are retried; an open breaker's refusal (or anything else) is not."""
    return True if isinstance(error, TransientError) else None


def http_get(client: httpx.AsyncClient, url: str) -> Callable[[], Awaitable[int]]:
    """A GET mapped to our errors, the way the GitHub client does it (in miniature)."""

    async def get() -> int:
        response = await client.get(url)
        if response.status_code >= 500:
            raise TransientError(f"HTTP {response.status_code}", status=response.status_code)
        if response.status_code == 404:
            raise NotFoundError("not found or private", status=404)
        return response.status_code

    return get


async def test_non_retryable_status_reaches_the_server_exactly_once(server: ScriptedServer) -> None:
    clock = FakeClock()
    board = BreakerBoard(config=BreakerConfig(failure_threshold=2, open_seconds=30.0), clock=clock)
    server.statuses = [404]

    async with httpx.AsyncClient(trust_env=False) as client:

        async def guarded() -> int:
            return await board.get("repo").call(http_get(client, server.url), classify=classify)

        with pytest.raises(NotFoundError):
            await call_with_retry(guarded, policy=POLICY, retry_on=retry_on, clock=clock)

    assert server.requests == 1
    assert clock.sleeps == []
    assert board.get("repo").snapshot().failures == 0, "a 404 is not a breaker failure"


async def test_an_open_breakers_refusal_is_not_retried_in_a_tight_loop(server: ScriptedServer) -> None:
    clock = FakeClock()
    board = BreakerBoard(config=BreakerConfig(failure_threshold=2, open_seconds=30.0), clock=clock)
    server.statuses = [503] * 10
    seen: list[RetryDetails] = []

    async with httpx.AsyncClient(trust_env=False) as client:

        async def guarded() -> int:
            return await board.get("repo").call(http_get(client, server.url), classify=classify)

        # 503, retry, 503 -> the breaker opens; the third attempt is refused and not retried.
        with pytest.raises(CircuitOpenError) as raised:
            await call_with_retry(
                guarded, policy=POLICY, retry_on=retry_on, clock=clock, on_retry=seen.append
            )
        assert server.requests == 2
        assert [type(d.error) for d in seen] == [TransientError, TransientError]
        assert raised.value.last_error == "HTTP 503"
        assert board.get("repo").state is BreakerState.OPEN

        # While open, a new call is refused at once: no request, no sleep.
        sleeps_before = len(clock.sleeps)
        with pytest.raises(CircuitOpenError):
            await call_with_retry(guarded, policy=POLICY, retry_on=retry_on, clock=clock)
        assert server.requests == 2
        assert len(clock.sleeps) == sleeps_before

        # After the open period the probe goes through and the next 200 closes the breaker.
        server.statuses = []
        clock.advance(30.0)
        assert await call_with_retry(guarded, policy=POLICY, retry_on=retry_on, clock=clock) == 200
        assert server.requests == 3
        assert board.get("repo").state is BreakerState.CLOSED
