"""CPU-heavy steps off the event loop: one visitor's big tree must not stall everyone else's page.

The server answers every request from one event loop. Deriving a plan, the report, the diagram or the
claim check from a 100,000-entry tree takes CPU time in the hundreds of milliseconds; on the loop, every
other request would wait for it. :func:`off_loop` runs such a step in a worker thread and awaits it, so
the loop keeps serving (the GIL is handed over every few milliseconds). The steps given to it are pure
functions of values the run holds: the run awaits the result before it goes on, so nothing else writes
what they read meanwhile.

A cancelled run stops waiting at once; the step itself finishes in its thread and its result is dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def off_loop(step: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``step(*args, **kwargs)`` in a worker thread (the context variables go along), awaited."""
    return await asyncio.to_thread(step, *args, **kwargs)
