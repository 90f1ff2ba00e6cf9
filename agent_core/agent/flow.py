"""How a step of a run hands back its result: as the last item of its event stream, a value.

A step of the loop (one model turn, one turn of tool calls) is an async generator: it yields the
events a person watching should see as they happen, and, last, one :class:`Result` with what the step
produced. The caller relays the events and keeps the result (:class:`Relay`, what ``x = yield from step``
is for a generator, which an async one cannot say)::

    turn = relay(model_turn(...), otherwise=None)
    async for item in turn:
        yield item
    ... turn.value ...

No out-parameter for someone else to fill: the result travels in the stream, and only the caller that
relayed it reads it.
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
E = TypeVar("E")
T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True, kw_only=True)
class Result(Generic[T_co]):
    """The last item of a step's stream: what the step produced."""

    value: T_co


Step = AsyncIterator[ev.Event | Added | Result[T]]
"""A step: events (and what it adds to its run) as they happen, then exactly one :class:`Result`."""

Flow = AsyncIterator[ev.Event | Added]
"""A loop's stream: events and what its steps added, for the run's fold."""


class Relay(Generic[E, T]):
    """A step relayed by its caller: iterating it gives the step's events (and additions), and once it
    is done :attr:`value` is the step's result (``otherwise`` when it ended without one: cancelled, or a
    step that had nothing to give)."""

    def __init__(self, step: AsyncIterator[E | Result[T]], *, otherwise: T) -> None:
        self._step = step
        self.value: T = otherwise

    async def __aiter__(self) -> AsyncIterator[E]:
        async for item in self._step:
            if isinstance(item, Result):
                self.value = item.value
            else:
                yield item


def relay(step: Step[T], *, otherwise: T) -> Relay[ev.Event | Added, T]:
    """:class:`Relay` of a step of the loop (its events and additions relayed)."""
    return Relay(step, otherwise=otherwise)


def relay_events(step: AsyncIterator[ev.Event | Result[T]], *, otherwise: T) -> Relay[ev.Event, T]:
    """:class:`Relay` of a step whose additions its run has already folded (events alone relayed)."""
    return Relay(step, otherwise=otherwise)


async def events_only(step: Step[object]) -> Flow:
    """A step's events and additions, its result dropped (for steps whose result the caller does not
    need)."""
    async for item in Relay[ev.Event | Added, object](step, otherwise=None):
        yield item
