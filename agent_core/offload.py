"""CPU-heavy steps off the event loop: one visitor's big tree must not stall everyone else's page.

The server answers every request from one event loop. Deriving a plan, the report, the diagram or the
claim check from a 100,000-entry tree takes CPU time in the hundreds of milliseconds; on the loop, every
other request would wait for it. :func:`off_loop` runs such a step in a worker thread and awaits it, so
the loop keeps serving (the GIL is handed over every few milliseconds). The steps given to it are pure
functions of values the run holds: the run awaits the result before it goes on, so nothing else writes
what they read meanwhile.

The steps share one small pool of worker threads (not asyncio's default pool of up to 32): under the
GIL, more threads crunching at once buy no throughput, and each one more takes a share of the
interpreter from the threads that answer other pages.

Fair shares: each step is charged to the analysis that asked for it (:class:`CpuAccount`, made current
for a run's steps by :func:`charged_to`; the context variable travels into the run's tasks). Waiting
steps are queued per account and the workers take the accounts in turn, so a visitor whose analysis
queued a hundred steps delays another's next step by at most the steps already running, never by its
whole queue. Each step's thread CPU time (``time.thread_time``) is added to its account: the run stops
exploring once its account has spent :data:`CPU_SECONDS` (see
:meth:`agent_core.agent.run.Run.limit_reached`) and writes its report from what it has.

A cancelled run stops waiting at once; a step not yet started is dropped, one running finishes in its
thread and its result is dropped. Clean-up a cancelled caller must not stop (closing a connection,
killing a process it started) runs as :func:`outliving` work.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import threading
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

WORKERS = 2  # see the module's docstring
CPU_SECONDS = 60.0
"""What one run may spend in the worker threads: ordinary analyses spend well under a second; a
100,000-entry tree a few seconds."""


class CpuAccount:
    """One run's share of the workers: the CPU seconds its steps spent (their threads' own time)."""

    def __init__(self, budget: float = CPU_SECONDS) -> None:
        self.budget = budget
        self.spent = 0.0
        self.steps = 0
        self._lock = threading.Lock()  # two workers may finish steps of one account at once

    def charge(self, seconds: float) -> None:
        with self._lock:
            self.spent += seconds
            self.steps += 1

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.budget


_ACCOUNT: contextvars.ContextVar[CpuAccount | None] = contextvars.ContextVar("cpu_account", default=None)


@contextlib.contextmanager
def charged_to(account: CpuAccount) -> Iterator[CpuAccount]:
    """Steps offloaded inside this block (and in tasks it starts) are charged to ``account``. Restored by
    value, not by token: an async generator's ``finally`` may run in another context."""
    previous = _ACCOUNT.get()
    _ACCOUNT.set(account)
    try:
        yield account
    finally:
        _ACCOUNT.set(previous)


_Job = tuple[Callable[[], Any], asyncio.Future[Any], asyncio.AbstractEventLoop]


class FairPool:
    """``workers`` threads taking queued steps one account at a time (see the module's docstring): a
    free worker takes the oldest step of the account with the fewest steps running, ties to the one
    served longest ago. Steps with no account share one queue."""

    def __init__(self, workers: int = WORKERS) -> None:
        self._queues: dict[object, deque[tuple[CpuAccount | None, _Job]]] = {}
        self._running: Counter[object] = Counter()
        self._served: dict[object, int] = {}  # key -> the tick it was last served (forgotten when idle)
        self._tick = 0
        self._ready = threading.Condition()
        self._threads = [
            threading.Thread(target=self._work, name=f"cpu-{n}", daemon=True) for n in range(workers)
        ]
        self._started = False

    def submit(self, account: CpuAccount | None, job: _Job) -> None:
        with self._ready:
            if not self._started:
                self._started = True
                for thread in self._threads:
                    thread.start()
            key = account if account is not None else self
            self._queues.setdefault(key, deque()).append((account, job))
            self._ready.notify()

    def waiting(self) -> int:
        """Steps queued, not yet started."""
        with self._ready:
            return sum(len(queue) for queue in self._queues.values())

    def _next(self) -> tuple[object, CpuAccount | None, _Job]:
        with self._ready:
            while not self._queues:
                self._ready.wait()
            # Linear in the accounts waiting (a handful: the runs in progress), never in their steps.
            key = min(self._queues, key=lambda k: (self._running[k], self._served.get(k, -1)))
            queue = self._queues[key]
            account, job = queue.popleft()
            if not queue:
                del self._queues[key]
            self._tick += 1
            self._served[key] = self._tick
            self._running[key] += 1
            return key, account, job

    def _done(self, key: object) -> None:
        with self._ready:
            self._running[key] -= 1
            if self._running[key] <= 0:
                del self._running[key]
                if key not in self._queues:
                    self._served.pop(key, None)

    def _work(self) -> None:
        while True:
            key, account, (call, future, loop) = self._next()
            try:
                if future.cancelled():  # read across threads: at worst a cancelled step still runs
                    continue
                start = time.thread_time()
                try:
                    outcome: tuple[bool, Any] = (True, call())
                except BaseException as exc:  # noqa: BLE001 - handed to the awaiting caller, raised there
                    outcome = (False, exc)
                if account is not None:
                    account.charge(time.thread_time() - start)
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
                    loop.call_soon_threadsafe(_settle, future, outcome)
            finally:
                self._done(key)


def _settle(future: asyncio.Future[Any], outcome: tuple[bool, Any]) -> None:
    if future.done():
        return
    ok, value = outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


async def off_loop(step: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``step(*args, **kwargs)`` in a worker thread (the context variables go along), awaited; charged
    to the current :class:`CpuAccount`, queued behind its own earlier steps, not behind others'."""
    context = contextvars.copy_context()
    call = functools.partial(context.run, step, *args, **kwargs)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    _POOL.submit(_ACCOUNT.get(), (call, future, loop))
    return await future


_POOL = FairPool()


_OUTLIVING: set[asyncio.Future[Any]] = set()  # the loop keeps only weak references to tasks


def outliving(work: Awaitable[T]) -> asyncio.Future[T]:
    """``work`` as a task that runs to its end whatever happens to the caller: kept referenced until
    it ends; a caller that must also wait for it awaits ``asyncio.shield`` of it."""
    task = asyncio.ensure_future(work)
    _OUTLIVING.add(task)
    task.add_done_callback(_OUTLIVING.discard)
    return task
