"""What a run's trace says when Redis, the replicas' shared state, goes away or comes back (its words: ``agent_core/words/diagnosis_*``).

The composition root subscribes each run to the replica's :class:`~agent_core.shared_state.health.Health`
(:func:`watch_health`): a run that starts while Redis is down says so once at its start, and a change in
the middle of a run is one :class:`~agent_core.events.Notice` in its trace, never one per request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from agent_core import events as ev
from agent_core.shared_state.health import Health
from agent_core.words import words_for


def refusal(lang: str) -> str:
    """Why a hosted run is refused while Redis is down (budgets fail closed: nothing uncounted starts)."""
    return words_for(lang)("redis_refusal")


def health_notice(up: bool, *, t: float, lang: str) -> ev.Notice:
    message = words_for(lang)("redis_back" if up else "redis_down")
    return ev.Notice(t=t, level="info" if up else "warning", message=message)


def watch_health(
    health: Health, put: Callable[[ev.Event], None], t: Callable[[], float], lang: str
) -> Callable[[], None]:
    """Tell ``put`` now if Redis is down, then on every change; returns the unsubscribe function.

    A change seen in another thread (a budget taken in a worker thread) reaches ``put`` on the event loop
    this was called in (the run's queue is not thread-safe)."""
    if not health.up:
        put(health_notice(False, t=t(), lang=lang))
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        loop = None

    def changed(up: bool) -> None:
        notice = health_notice(up, t=t(), lang=lang)
        if loop is None or _running_loop() is loop:
            put(notice)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(put, notice)

    return health.add_listener(changed)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
