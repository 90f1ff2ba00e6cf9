"""The doubles of time in :mod:`testing.clock` that other tests lean on: virtual time, held waits, skips."""

from __future__ import annotations

import asyncio
import queue
import threading
import time

import pytest

from testing.clock import HeldWaits, RealWaits, SharedVirtualClock, SkippingClock, run_in_virtual_time

PATIENCE = 60.0  # a bound for a broken test, never waited out by a passing one


# -- virtual time ------------------------------------------------------------------------------------


def test_virtual_time_jumps_to_each_timer_in_order() -> None:
    async def main() -> list[tuple[str, float]]:
        loop = asyncio.get_running_loop()
        seen: list[tuple[str, float]] = []

        async def sleeper(name: str, seconds: float) -> None:
            await asyncio.sleep(seconds)
            seen.append((name, loop.time()))

        await asyncio.gather(sleeper("hour", 3600), sleeper("tenth", 0.1), sleeper("minute", 60))
        return seen

    assert run_in_virtual_time(main()) == [("tenth", 0.1), ("minute", 60.0), ("hour", 3600.0)]


def test_virtual_time_fires_timeouts_at_their_deadline() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(2.5):
                await asyncio.Event().wait()  # nothing would ever set it
        return loop.time()

    assert run_in_virtual_time(main()) == 2.5


def test_virtual_time_still_waits_for_other_threads_when_nothing_is_scheduled() -> None:
    async def main() -> tuple[str, float]:
        loop = asyncio.get_running_loop()
        answer = await asyncio.to_thread(lambda: "from a thread")
        return answer, loop.time()

    assert run_in_virtual_time(main()) == ("from a thread", 0.0)


# -- held waits --------------------------------------------------------------------------------------


def waiter(waits: HeldWaits, stopping: threading.Event, seconds: float, done: queue.Queue[bool]) -> None:
    """Wait on another thread; what the wait returned goes to ``done``."""
    threading.Thread(target=lambda: done.put(waits.wait(stopping, seconds)), daemon=True).start()


def test_virtual_time_waits_for_work_it_sent_to_a_thread_before_jumping_to_a_timer() -> None:
    """A thread's answer that comes after the loop's next look is not a timeout: the OpenAI client's
    first request reads the platform in a thread, and a 60 s stall deadline used to fire meanwhile."""

    def slow() -> str:
        time.sleep(0.2)  # real time the loop must not turn into its 60 virtual seconds
        return "answer"

    async def main() -> tuple[str, float]:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(60):
            result = await asyncio.to_thread(slow)
        return result, loop.time()

    result, now = run_in_virtual_time(main())
    assert result == "answer"
    assert now < 60


def test_held_waits_end_only_when_released_whatever_their_duration() -> None:
    held, stopping, done = HeldWaits(), threading.Event(), queue.Queue[bool]()
    waiter(held, stopping, 0.0001, done)
    waiter(held, stopping, 3600, done)
    assert held.wait_held(2, PATIENCE)
    assert done.empty()

    held.release()  # one of them
    assert done.get(timeout=PATIENCE) is False  # released, not stopped
    assert (held.held, done.empty()) == (1, True)
    held.release()
    assert done.get(timeout=PATIENCE) is False
    assert sorted(held.requested) == [0.0001, 3600]
    assert held.held == 0


def test_a_release_given_early_lets_the_next_wait_pass_and_open_lets_all_pass() -> None:
    held, stopping, done = HeldWaits(), threading.Event(), queue.Queue[bool]()
    held.release(2)
    assert held.wait(stopping, 5) is False
    assert held.wait(stopping, 5) is False
    waiter(held, stopping, 5, done)
    assert held.wait_held(1, PATIENCE)
    held.open()
    assert done.get(timeout=PATIENCE) is False
    assert held.wait(stopping, 5) is False  # open stays open
    assert held.requested == [5, 5, 5, 5]


def test_a_stopping_server_ends_held_waits_at_once() -> None:
    held, stopping, done = HeldWaits(), threading.Event(), queue.Queue[bool]()
    waiter(held, stopping, 3600, done)
    assert held.wait_held(1, PATIENCE)
    stopping.set()
    assert done.get(timeout=PATIENCE) is True
    assert held.wait(stopping, 1) is True


def test_wait_held_gives_up_after_its_timeout() -> None:
    assert HeldWaits().wait_held(1, timeout=0) is False


def test_real_waits_wait_on_the_event() -> None:
    stopping = threading.Event()
    assert RealWaits().wait(stopping, 0) is False
    stopping.set()
    assert RealWaits().wait(stopping, 3600) is True


# -- skipping clock ----------------------------------------------------------------------------------


def test_a_skipping_clock_is_the_real_clock_moved_forward() -> None:
    clock = SkippingClock()
    before = (clock.monotonic(), clock.wall())
    clock.skip(3600)
    after = (clock.monotonic(), clock.wall())
    assert after[0] - before[0] >= 3600
    assert after[1] - before[1] >= 3600
    with pytest.raises(ValueError, match="cannot go back"):
        clock.skip(-1)


# -- shared virtual time -------------------------------------------------------------------------------


def test_a_shared_virtual_clock_moves_only_when_told_and_orders_readings_across_threads() -> None:
    clock = SharedVirtualClock(start=100.0)
    first = clock.monotonic()
    assert 100.0 < first < 100.0 + 1e-6  # a reading is the time plus its tick
    wall = clock.wall()

    async def main() -> None:
        await clock.sleep(2.5)  # at once: no loop timer, no real wait
        await clock.sleep(-1.0)  # a negative sleep moves nothing

    asyncio.run(main())
    clock.advance(0.5)
    assert clock.wall() == pytest.approx(wall + 3.0)
    with pytest.raises(ValueError, match="cannot go back"):
        clock.advance(-0.1)
    # Readings from several threads are all distinct and, in each thread, increasing.
    seen: list[list[float]] = [[] for _ in range(4)]

    def read(into: list[float]) -> None:
        for _ in range(500):
            into.append(clock.monotonic())

    threads = [threading.Thread(target=read, args=(into,)) for into in seen]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(PATIENCE)
    readings = [r for into in seen for r in into]
    assert all(into == sorted(into) for into in seen)
    assert len(set(readings)) == len(readings) == 2000
    assert min(readings) > first + 3.0 and max(readings) < 103.0 + 1e-5
