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
What a step adds to its run (tokens, tool results, degradations, the model's failure) travels the same
way, as :class:`~agent_core.agent.accounting.Added` values that every step forwards like events, up to
the one fold of the run (:meth:`agent_core.agent.run.Run.through`), which builds the run's next frozen
state from each.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from agent_core import events as ev
from agent_core.agent.accounting import Added

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True, kw_only=True)
class Result(Generic[T_co]):
    """The last item of a step's stream: what the step produced."""

    value: T_co


Step = AsyncIterator[ev.Event | Added | Result[T]]
"""A step: events (and what it adds to its run) as they happen, then exactly one :class:`Result`."""

Flow = AsyncIterator[ev.Event | Added]
"""A loop's stream: events and what its steps added, for the run's fold."""


async def events_only(step: Step[object]) -> Flow:
    """A step's events and additions, its result dropped (for steps whose result the caller does not
    need)."""
    async for item in step:
        if not isinstance(item, Result):
            yield item
