"""CircuitBreaker and BreakerBoard: acceptance scenarios 1-8 of notes/github-api.md, and the contract.

Time only moves through FakeClock.advance; "concurrent" means real asyncio tasks gathered together.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest

from agent_core.errors import CircuitOpenError, InternalError, NotFoundError, TransientError
from agent_core.resilience import (
    BreakerBoard,
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    CircuitBreaker,
    Outcome,
    StateChange,
)
from testing.clock import FakeClock

CLOSED, OPEN, HALF_OPEN = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN
CONFIG = BreakerConfig(failure_threshold=3, open_seconds=30.0)


def classify(error: BaseException) -> Outcome:
    """5xx/timeouts are failures; anything else (404, bad input) says nothing about health."""
    return Outcome.FAILURE if isinstance(error, TransientError) else Outcome.IGNORED


class Upstream:
    """The guarded function: counts calls and answers as told."""

    def __init__(self) -> None:
        self.calls = 0
        self.gate: asyncio.Event | None = None  # when set, each call waits for it before answering

    def answer(self, error: Exception | None = None) -> Callable[[], Awaitable[str]]:
        async def call() -> str:
            self.calls += 1
            if self.gate is not None:
                await self.gate.wait()
            if error is not None:
                raise error
            return "ok"

        return call


class Harness:
    def __init__(self, config: BreakerConfig = CONFIG) -> None:
        self.clock = FakeClock()
        self.events: list[StateChange] = []
        self.breaker = CircuitBreaker(
            "get_file", config=config, clock=self.clock, listeners=[self.events.append]
        )
        self.upstream = Upstream()

    async def ok(self) -> str:
        return await self.breaker.call(self.upstream.answer(), classify=classify)

    async def fail(self, text: str = "HTTP 503") -> None:
        with pytest.raises(TransientError):
            await self.breaker.call(self.upstream.answer(TransientError(text, status=503)), classify=classify)

    async def trip(self) -> None:
        for _ in range(CONFIG.failure_threshold):
            await self.fail()
        assert self.breaker.state is OPEN

    def transitions(self) -> list[tuple[BreakerState, BreakerState]]:
        return [(e.old, e.new) for e in self.events]


@pytest.fixture
def h() -> Harness:
    return Harness()


# 1. Starts CLOSED; successes keep counters at zero.
async def test_starts_closed_and_successes_keep_counters_at_zero(h: Harness) -> None:
    assert h.breaker.state is CLOSED
    for _ in range(5):
        assert await h.ok() == "ok"
    assert h.breaker.snapshot() == BreakerSnapshot(
        name="get_file", state=CLOSED, failures=0, last_error=None, retry_after=0.0
    )
    assert h.events == []


# 2. Failures below the threshold keep it CLOSED; reaching it opens it with exactly one event.
async def test_failures_below_the_threshold_keep_it_closed_and_a_success_resets_the_count(h: Harness) -> None:
    await h.fail()
    await h.fail()
    assert (h.breaker.state, h.breaker.snapshot().failures) == (CLOSED, 2)
    await h.ok()
    assert h.breaker.snapshot().failures == 0
    await h.fail()
    await h.fail()
    assert h.breaker.state is CLOSED
    assert h.events == []


async def test_reaching_the_threshold_opens_with_exactly_one_event(h: Harness) -> None:
    await h.fail("HTTP 500")
    await h.fail("HTTP 502")
    await h.fail("HTTP 503")

    assert h.events == [
        StateChange(
            name="get_file", old=CLOSED, new=OPEN, reason="3 consecutive failures: HTTP 503", at=1_000.0
        )
    ]
    assert h.breaker.snapshot() == BreakerSnapshot(
        name="get_file", state=OPEN, failures=3, last_error="HTTP 503", retry_after=30.0
    )


# 3. OPEN refuses at once, without calling the function, with a retry_after that shrinks.
async def test_open_refuses_without_calling_and_retry_after_shrinks(h: Harness) -> None:
    await h.trip()
    calls = h.upstream.calls

    retry_afters = []
    for _ in range(3):
        with pytest.raises(CircuitOpenError) as refused:
            await h.ok()
        retry_afters.append(refused.value.retry_after)
        assert (refused.value.name, refused.value.last_error) == ("get_file", "HTTP 503")
        h.clock.advance(10.0)

    assert retry_afters == [30.0, 20.0, 10.0]
    assert h.upstream.calls == calls, "the guarded function was never called while open"
    assert h.breaker.snapshot().retry_after == 0.0, "timer ran out: a probe is due"
    assert h.breaker.state is OPEN, "state changes when a call takes the probe, not before"


async def test_acquire_refuses_synchronously_while_open(h: Harness) -> None:
    await h.trip()
    h.clock.advance(29.5)
    with pytest.raises(CircuitOpenError) as refused:
        h.breaker.acquire()
    assert refused.value.retry_after == pytest.approx(0.5)


# 4. After the open duration the next call is the single HALF_OPEN probe; concurrent callers are refused.
async def test_after_the_open_period_one_probe_goes_and_concurrent_callers_are_refused(h: Harness) -> None:
    await h.trip()
    h.clock.advance(30.0)
    calls = h.upstream.calls
    h.upstream.gate = asyncio.Event()

    probe = asyncio.create_task(h.ok())
    others = [asyncio.create_task(h.ok()) for _ in range(5)]
    await asyncio.sleep(0)  # every task has run: the probe waits at the gate, the others were answered
    state_while_probing = h.breaker.state
    h.upstream.gate.set()
    results = await asyncio.gather(probe, *others, return_exceptions=True)

    assert state_while_probing is HALF_OPEN
    assert results[0] == "ok"
    refusals = [r for r in results[1:] if isinstance(r, CircuitOpenError)]
    assert len(refusals) == 5
    assert all(r.retry_after == 0.0 for r in refusals)
    assert h.upstream.calls == calls + 1, "only the probe reached the upstream"
    assert h.events[1] == StateChange(
        name="get_file", old=OPEN, new=HALF_OPEN, reason="open for 30s; probing", at=1_030.0
    )


# 5. Probe success -> CLOSED (counters reset, one event); probe failure -> OPEN with a fresh timer.
async def test_probe_success_closes_and_resets(h: Harness) -> None:
    await h.trip()
    h.clock.advance(30.0)

    assert await h.ok() == "ok"

    assert h.transitions() == [(CLOSED, OPEN), (OPEN, HALF_OPEN), (HALF_OPEN, CLOSED)]
    assert h.events[-1].reason == "probe succeeded"
    snapshot = h.breaker.snapshot()
    assert (snapshot.state, snapshot.failures, snapshot.retry_after) == (CLOSED, 0, 0.0)
    await h.fail()
    await h.fail()
    assert h.breaker.state is CLOSED, "counting starts again from zero"


async def test_probe_failure_reopens_with_a_fresh_timer(h: Harness) -> None:
    await h.trip()
    h.clock.advance(45.0)  # well past the first timer

    await h.fail("timeout")

    assert h.transitions() == [(CLOSED, OPEN), (OPEN, HALF_OPEN), (HALF_OPEN, OPEN)]
    assert h.events[-1].reason == "probe failed: timeout"
    assert h.events[-1].at == 1_045.0
    assert h.breaker.snapshot().retry_after == 30.0, "timed from the probe failure, not the first opening"
    h.clock.advance(29.0)
    with pytest.raises(CircuitOpenError):
        await h.ok()


# 6. Ignored outcomes are neither success nor failure and release the probe permit.
async def test_ignored_outcomes_neither_count_nor_reset_while_closed(h: Harness) -> None:
    await h.fail()
    await h.fail()
    with pytest.raises(NotFoundError):
        await h.breaker.call(h.upstream.answer(NotFoundError("nope", status=404)), classify=classify)
    assert h.breaker.snapshot().failures == 2, "a 404 did not reset the count"
    await h.fail()
    assert h.breaker.state is OPEN


async def test_an_ignored_probe_releases_the_permit_and_stays_half_open(h: Harness) -> None:
    await h.trip()
    h.clock.advance(30.0)

    with pytest.raises(NotFoundError):
        await h.breaker.call(h.upstream.answer(NotFoundError("nope", status=404)), classify=classify)

    assert h.breaker.state is HALF_OPEN
    assert h.transitions() == [(CLOSED, OPEN), (OPEN, HALF_OPEN)]
    assert await h.ok() == "ok", "the next caller may probe"
    assert h.breaker.state is CLOSED


async def test_a_cancelled_probe_is_ignored_whatever_the_classifier_says(h: Harness) -> None:
    await h.trip()
    h.clock.advance(30.0)
    h.upstream.gate = asyncio.Event()
    consulted: list[BaseException] = []

    def everything_fails(error: BaseException) -> Outcome:
        consulted.append(error)
        return Outcome.FAILURE

    probe = asyncio.create_task(h.breaker.call(h.upstream.answer(), classify=everything_fails))
    await asyncio.sleep(0)
    probe.cancel()
    with pytest.raises(asyncio.CancelledError):
        await probe

    assert consulted == []
    assert h.breaker.state is HALF_OPEN
    h.upstream.gate.set()
    assert await h.ok() == "ok"


async def test_a_classifier_that_raises_still_releases_the_probe(h: Harness) -> None:
    await h.trip()
    h.clock.advance(30.0)

    def broken(error: BaseException) -> Outcome:
        raise LookupError("classifier bug")

    with pytest.raises(LookupError):
        await h.breaker.call(h.upstream.answer(TransientError("HTTP 500")), classify=broken)
    assert h.breaker.state is HALF_OPEN
    assert await h.ok() == "ok"


# 7. Concurrency: N concurrent failures count N; exactly one transition each way.
async def test_concurrent_failures_count_each_one() -> None:
    h = Harness(BreakerConfig(failure_threshold=10, open_seconds=30.0))
    h.upstream.gate = asyncio.Event()
    calls = [asyncio.create_task(h.fail()) for _ in range(7)]
    await asyncio.sleep(0)  # all seven hold permits before any answers
    h.upstream.gate.set()
    await asyncio.gather(*calls)

    assert (h.breaker.state, h.breaker.snapshot().failures) == (CLOSED, 7)


async def test_concurrent_failures_past_the_threshold_open_once_and_late_ones_do_nothing(
    h: Harness,
) -> None:
    gate = asyncio.Event()

    async def slow_failure() -> str:
        await gate.wait()
        h.clock.advance(1.0)  # each failure lands one second after the previous one
        raise TransientError("HTTP 503", status=503)

    calls = [asyncio.create_task(h.breaker.call(slow_failure, classify=classify)) for _ in range(10)]
    await asyncio.sleep(0)
    gate.set()
    results = await asyncio.gather(*calls, return_exceptions=True)

    assert all(isinstance(r, TransientError) for r in results)
    assert h.transitions() == [(CLOSED, OPEN)]
    assert h.events[0].at == 1_003.0, "opened by the third failure"
    # Seven late failures (t = 1004..1010) neither re-opened nor extended the timer.
    assert h.breaker.snapshot().retry_after == 1_003.0 + 30.0 - 1_010.0
    assert h.breaker.snapshot().failures == 3


async def test_a_late_success_from_before_the_opening_does_not_close_it(h: Harness) -> None:
    gate = asyncio.Event()

    async def slow_success() -> str:
        await gate.wait()
        return "ok"

    slow = asyncio.create_task(h.breaker.call(slow_success, classify=classify))
    await asyncio.sleep(0)  # it holds a permit from the CLOSED period
    await h.trip()
    gate.set()

    assert await slow == "ok"
    assert h.breaker.state is OPEN
    assert h.transitions() == [(CLOSED, OPEN)]


async def test_late_outcomes_cannot_decide_a_half_open_breaker(h: Harness) -> None:
    early_failure, early_success = h.breaker.acquire(), h.breaker.acquire()
    await h.trip()
    h.clock.advance(30.0)
    probe = h.breaker.acquire()

    early_failure.failure("HTTP 500")
    early_success.success()
    assert h.breaker.snapshot() == BreakerSnapshot(
        name="get_file", state=HALF_OPEN, failures=3, last_error="HTTP 503", retry_after=0.0
    )

    probe.success()
    assert h.transitions() == [(CLOSED, OPEN), (OPEN, HALF_OPEN), (HALF_OPEN, CLOSED)]


async def test_concurrent_callers_after_the_timer_make_exactly_one_half_open_transition(
    h: Harness,
) -> None:
    await h.trip()
    h.clock.advance(30.0)
    h.upstream.gate = asyncio.Event()
    calls_before = h.upstream.calls

    tasks = [asyncio.create_task(h.ok()) for _ in range(20)]
    await asyncio.sleep(0)
    h.upstream.gate.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)

    assert results.count("ok") == 1
    assert sum(isinstance(r, CircuitOpenError) for r in results) == 19
    assert h.upstream.calls == calls_before + 1
    assert h.transitions() == [(CLOSED, OPEN), (OPEN, HALF_OPEN), (HALF_OPEN, CLOSED)]


# 8. Breakers are per tool: tripping one leaves the others CLOSED.
async def test_tripping_one_tool_leaves_the_others_closed() -> None:
    clock = FakeClock()
    board = BreakerBoard(config=CONFIG, clock=clock)
    files, commits = board.get("read_file"), board.get("get_commits")

    for _ in range(3):
        permit = files.acquire()
        permit.failure(TransientError("HTTP 502", status=502))

    assert (files.state, commits.state) == (OPEN, CLOSED)
    commits.acquire().success()
    assert [s.state for s in board.snapshot()] == [OPEN, CLOSED]


async def test_board_creates_lazily_shares_by_name_and_keeps_creation_order() -> None:
    board = BreakerBoard(config=CONFIG, clock=FakeClock())
    assert board.names() == []
    assert board.snapshot() == []
    first = board.get("b")
    board.get("a")
    assert board.get("b") is first
    assert board.names() == ["b", "a"]
    assert [s.name for s in board.snapshot()] == ["b", "a"]


async def test_two_boards_never_share_breakers() -> None:
    clock = FakeClock()
    one, two = BreakerBoard(config=CONFIG, clock=clock), BreakerBoard(config=CONFIG, clock=clock)
    assert one.get("read_file") is not two.get("read_file")
    for _ in range(3):
        one.get("read_file").acquire().failure("HTTP 500")
    assert (one.get("read_file").state, two.get("read_file").state) == (OPEN, CLOSED)


async def test_board_subscribers_hear_every_breaker_until_they_unsubscribe() -> None:
    board = BreakerBoard(config=BreakerConfig(failure_threshold=1, open_seconds=30.0), clock=FakeClock())
    early = board.get("early")
    heard: list[str] = []
    unsubscribe = board.subscribe(lambda change: heard.append(f"{change.name}:{change.new}"))
    late = board.get("late")  # created after subscribing

    early.acquire().failure("HTTP 500")
    late.acquire().failure("HTTP 500")
    unsubscribe()
    unsubscribe()  # harmless twice
    board.get("third").acquire().failure("HTTP 500")

    assert heard == ["early:open", "late:open"]


# Listeners, permits and error text.
async def test_a_raising_listener_is_logged_and_does_not_break_the_breaker(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock, heard = FakeClock(), list[StateChange]()

    def broken(change: StateChange) -> None:
        raise RuntimeError("listener bug")

    breaker = CircuitBreaker("x", config=CONFIG, clock=clock, listeners=[broken, heard.append])
    with caplog.at_level(logging.ERROR, logger="agent_core.resilience.breaker"):
        for _ in range(3):
            breaker.acquire().failure("HTTP 500")

    assert breaker.state is OPEN
    assert [c.new for c in heard] == [OPEN], "the listener after the broken one still heard it"
    assert "listener" in caplog.text
    assert "listener bug" in caplog.text  # the traceback is logged


async def test_add_listener_returns_a_remover() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker("x", config=BreakerConfig(failure_threshold=1, open_seconds=30.0), clock=clock)
    heard: list[StateChange] = []
    remove = breaker.add_listener(heard.append)
    breaker.acquire().failure("HTTP 500")
    remove()
    clock.advance(30.0)
    breaker.acquire().success()  # OPEN -> HALF_OPEN -> CLOSED, unheard
    assert [(c.old, c.new) for c in heard] == [(CLOSED, OPEN)]
    assert breaker.state is CLOSED


async def test_a_permit_records_exactly_once(h: Harness) -> None:
    permit = h.breaker.acquire()
    permit.failure("HTTP 500")
    with pytest.raises(InternalError, match="recorded twice"):
        permit.success()
    with pytest.raises(InternalError, match="recorded twice"):
        permit.ignore()
    h.breaker.acquire().ignore()
    h.breaker.acquire().record(Outcome.FAILURE)  # a failure without an error to describe

    assert (h.breaker.snapshot().failures, h.breaker.snapshot().last_error) == (2, "unspecified failure")


async def test_last_error_keeps_our_messages_but_only_the_type_of_foreign_errors(h: Harness) -> None:
    h.breaker.acquire().failure(TransientError("HTTP 504", status=504))
    assert h.breaker.snapshot().last_error == "HTTP 504"
    h.breaker.acquire().failure(OSError("connect to https://x-access-token:SECRET@host failed"))
    assert h.breaker.snapshot().last_error == "OSError"
    h.breaker.acquire().failure("x" * 1_000)
    assert h.breaker.snapshot().last_error == "x" * 200


def test_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="failure_threshold"):
        BreakerConfig(failure_threshold=0, open_seconds=30.0)
    with pytest.raises(ValueError, match="open_seconds"):
        BreakerConfig(open_seconds=-1.0, failure_threshold=3)
