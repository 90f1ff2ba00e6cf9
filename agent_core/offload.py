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

A cancelled run stops waiting at once; the step itself finishes in its thread and its result is dropped.
Clean-up a cancelled caller must not stop (closing a connection, killing a process it started) runs as
:func:`outliving` work.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def off_loop(step: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``step(*args, **kwargs)`` in a worker thread (the context variables go along), awaited."""
    context = contextvars.copy_context()
    call = functools.partial(context.run, step, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_WORKER, call)


_WORKER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="cpu")  # see the module's docstring


_OUTLIVING: set[asyncio.Future[Any]] = set()  # the loop keeps only weak references to tasks


def outliving(work: Awaitable[T]) -> asyncio.Future[T]:
    """``work`` as a task that runs to its end whatever happens to the caller: kept referenced until
    it ends; a caller that must also wait for it awaits ``asyncio.shield`` of it."""
    task = asyncio.ensure_future(work)
    _OUTLIVING.add(task)
    task.add_done_callback(_OUTLIVING.discard)
    return task
