"""Time for tests: clocks that move only when told to, so that no test waits on the wall clock.

* :class:`FakeClock` implements :class:`agent_core.clock.Clock` without ever waiting for real.
* :class:`SkippingClock` is the real clock, which a test can move forward at once (a breaker's open
  period in an app that runs on real time, for instance); :class:`SkippingLoop` is an event loop on it.
* :class:`SharedVirtualClock` is virtual time that a run and the emulators' server threads read together:
  it moves only when someone sleeps on it or advances it, and its readings order events across threads.
* :class:`VirtualTimeLoop` (and :func:`run_in_virtual_time`) is an asyncio event loop on virtual time:
  when nothing is ready to run, time jumps to the next timer, so ``asyncio.sleep`` and timeouts cost
  nothing and ``loop.time()`` reads exactly what the code waited for.
* :class:`HeldWaits` is time for the emulators' server threads: every latency, stall or pause between
  streamed events is held until the test releases it (:class:`RealWaits` is what they use otherwise).
"""

from __future__ import annotations

import asyncio
import selectors
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

from agent_core.clock import SystemClock

T = TypeVar("T")


class FakeClock:
    """A clock that moves only when told to: by :meth:`advance`, or by :meth:`sleep`.

    ``sleep(s)`` records ``s`` in :attr:`sleeps`, advances time by ``s`` at once, then yields to the
    event loop once (``await asyncio.sleep(0)``). That one yield is what makes a sleep cancellable
    mid-way: a test that sees the sleep recorded (``while not clock.sleeps: await asyncio.sleep(0)``)
    and then calls ``task.cancel()`` lands the ``CancelledError`` inside ``sleep``, exactly where a
    real backoff would be interrupted. Time has already moved by then; tests assert on what happens
    next (no further attempt), not on the clock.

    Concurrent sleepers add up rather than overlap (two tasks sleeping 5 s each move the clock 10 s):
    for timing between concurrent tasks, call :meth:`advance` explicitly instead.
    """

    def __init__(self, *, start: float = 1_000.0, wall_start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._wall_offset = wall_start - start
        self.sleeps: list[float] = []
        """Every requested sleep, in order, as requested (a negative request moves time by 0)."""

    def monotonic(self) -> float:
        return self._now

    def wall(self) -> float:
        """UTC epoch seconds; moves together with :meth:`monotonic`."""
        return self._now + self._wall_offset

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(max(0.0, seconds))
        await asyncio.sleep(0)

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` (never backward)."""
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds})")
        self._now += seconds

    @property
    def slept(self) -> float:
        """Total seconds requested through :meth:`sleep`."""
        return sum(self.sleeps)


class SkippingClock(SystemClock):
    """The real clock, plus the time a test has skipped (:meth:`skip`): for code that must run on real
    time (an app in its own threads) but whose timers a test wants over at once. Sleeps stay real."""

    def __init__(self) -> None:
        self._skipped = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self._skipped

    def wall(self) -> float:
        return time.time() + self._skipped

    def skip(self, seconds: float) -> None:
        """Move both readings forward by ``seconds`` (never backward)."""
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds})")
        self._skipped += seconds


class SkippingLoop(asyncio.SelectorEventLoop):
    """An event loop on a :class:`SkippingClock`'s time: the test's :meth:`SkippingClock.skip` brings the
    loop's timers (``asyncio.timeout``, sleeps, ``call_later``) that much closer too, while its sockets
    and the emulators' threads stay real. For a run that must see minutes pass between two chunks of a
    real stream (a deadline per wait, not per turn) without anyone waiting for them."""

    def __init__(self, clock: SkippingClock) -> None:
        self._clock = clock
        super().__init__()

    def time(self) -> float:
        return self._clock.monotonic()


class SharedVirtualClock:
    """Virtual time shared by a run and the emulators' threads (their request stamps, a scripted model's
    thinking). Time moves only by :meth:`sleep` (at once, then one yield to the loop, as
    :class:`FakeClock`) and :meth:`advance`; concurrent sleepers add up.

    Every reading is distinct: each adds a nanosecond tick, under a lock, so readings taken in different
    threads are ordered as they happened (a request the emulator stamps after the run announced the call
    that makes it reads later than the announcement). Thread-safe. ``wall()`` starts at the real time of
    construction and moves with the virtual time (rate-limit resets are set from the real clock).
    """

    TICK = 1e-9

    def __init__(self, *, start: float = 1_000.0) -> None:
        self._lock = threading.Lock()
        self._now = start
        self._ticks = 0
        self._wall_offset = time.time() - start

    def monotonic(self) -> float:
        with self._lock:
            self._ticks += 1
            return self._now + self._ticks * self.TICK

    def wall(self) -> float:
        with self._lock:
            return self._now + self._wall_offset

    async def sleep(self, seconds: float) -> None:
        self.advance(max(0.0, seconds))
        await asyncio.sleep(0)

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` (never backward)."""
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds})")
        with self._lock:
            self._now += seconds


# ------------------------------------------------------------------------------------- virtual time


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose ``time()`` is virtual: whenever no callback is ready and no socket has
    anything to read, time jumps straight to the next timer. Starts at 0.

    For code that waits on timers only (sleeps, timeouts, ``call_later``): real I/O would see its timeouts
    expire at once. With nothing scheduled at all, it really waits (for another thread's
    ``call_soon_threadsafe``, for instance). While work it sent to a thread (``run_in_executor``,
    ``asyncio.to_thread``: the OpenAI client's first request reads the platform there) has not come back,
    it waits for it for up to :attr:`THREAD_GRACE` real seconds before jumping: otherwise a thread that
    had not finished by the loop's next look would see a timeout it never reached.
    """

    THREAD_GRACE = 5.0

    def __init__(self) -> None:
        self._virtual_now = 0.0
        self.in_threads = 0
        super().__init__(selector=_JumpingSelector(self))

    def time(self) -> float:
        return self._virtual_now

    def run_in_executor(self, executor: Any, func: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        future = super().run_in_executor(executor, func, *args)
        self.in_threads += 1
        future.add_done_callback(self._came_back)
        return future

    def _came_back(self, _future: asyncio.Future[Any]) -> None:
        self.in_threads -= 1

    def _jump(self, seconds: float) -> None:
        self._virtual_now += seconds


class _JumpingSelector(selectors.DefaultSelector):
    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:  # nothing is scheduled: only another thread can wake the loop
            return super().select(None)
        if self._loop.in_threads:  # a thread's answer wakes the loop (call_soon_threadsafe) when it comes
            ready = super().select(VirtualTimeLoop.THREAD_GRACE)
            if ready or self._loop.in_threads == 0:
                return ready
        self._loop._jump(timeout)  # the loop asked to sleep until its next timer: be there now
        return []


def run_in_virtual_time(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end on a fresh :class:`VirtualTimeLoop` (like ``asyncio.run``)."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(main)


# ----------------------------------------------------------------------------- the servers' threads


class Waits(Protocol):
    """How the emulators' handler threads wait (a latency, a stall, a pause between streamed events)."""

    def wait(self, stopping: threading.Event, seconds: float) -> bool:
        """Wait ``seconds``, or less if ``stopping`` is set first; return whether it is set."""
        ...


class RealWaits:
    """Waits on the wall clock: what the emulators use unless a test gives them :class:`HeldWaits`."""

    def wait(self, stopping: threading.Event, seconds: float) -> bool:
        return stopping.wait(seconds)


class HeldWaits:
    """Waits that end only when the test says so: :meth:`release` (the next ``count`` waits), :meth:`open`
    (every wait from now on) or the server stopping. The requested duration is recorded in
    :attr:`requested` and otherwise ignored.

    A test watches :attr:`held` (or :meth:`wait_held`) instead of a duration, so a client timeout can
    never race the server's latency: nothing the server holds ends before the test releases it.
    Thread-safe.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._held = 0
        self._tickets = 0
        self._open = False
        self._requested: list[float] = []

    def wait(self, stopping: threading.Event, seconds: float) -> bool:
        with self._changed:
            self._requested.append(seconds)
            self._held += 1
            self._changed.notify_all()
            try:
                while not (self._open or self._tickets or stopping.is_set()):
                    # ``stopping`` is an Event of its own, which a Condition cannot wait on: look now and then.
                    self._changed.wait(0.01)
                if stopping.is_set():
                    return True
                if not self._open:
                    self._tickets -= 1
                return False
            finally:
                self._held -= 1
                self._changed.notify_all()

    @property
    def held(self) -> int:
        """How many waits are being held right now."""
        with self._changed:
            return self._held

    @property
    def requested(self) -> list[float]:
        """Every wait's requested duration, in the order the waits began; a snapshot."""
        with self._changed:
            return list(self._requested)

    def wait_held(self, count: int, timeout: float = 60.0) -> bool:
        """Block until at least ``count`` waits are held at once; False after ``timeout`` seconds (a
        bound for a broken test, never reached by a passing one)."""
        with self._changed:
            return self._changed.wait_for(lambda: self._held >= count, timeout)

    def release(self, count: int = 1) -> None:
        """Let ``count`` more waits end: held ones, or the next ones to begin."""
        with self._changed:
            self._tickets += count
            self._changed.notify_all()

    def open(self) -> None:
        """Let every held wait end, and every later one pass at once."""
        with self._changed:
            self._open = True
            self._changed.notify_all()
