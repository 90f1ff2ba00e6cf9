"""How a step of a run hands back its result: as the last item of its event stream, a value.

A step of the loop (one model turn, one turn of tool calls) is an async generator: it yields the
events a person watching should see as they happen, and, last, one :class:`Result` with what the step
produced. The caller forwards the events and keeps the result::

    async for item in model_turn(...):
        if isinstance(item, Result):
            turn = item.value
        else:
            yield item

No out-parameter, no box filled for someone else to read back: the result travels in the stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from agent_core import events as ev

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True, kw_only=True)
class Result(Generic[T_co]):
    """The last item of a step's stream: what the step produced."""

    value: T_co


Step = AsyncIterator[ev.Event | Result[T]]
"""A step: events as they happen, then exactly one :class:`Result`."""


async def events_only(step: Step[object]) -> AsyncIterator[ev.Event]:
    """A step's events, its result dropped (for steps whose result the caller does not need)."""
    async for item in step:
        if not isinstance(item, Result):
            yield item
