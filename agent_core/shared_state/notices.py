"""What a run's trace says when Redis, the replicas' shared state, goes away or comes back (EN + 中文).

The composition root subscribes each run to the replica's :class:`~agent_core.shared_state.health.Health`
(:func:`watch_health`): a run that starts while Redis is down says so once at its start, and a change in
the middle of a run is one :class:`~agent_core.events.Notice` in its trace, never one per request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from agent_core import events as ev
from agent_core.shared_state.health import Health

WORDS: dict[str, dict[bool, str]] = {
    "en": {
        False: (
            "Redis, the state this app's replicas share, is unreachable: this run goes on without the "
            "shared HTTP cache and with this replica's own view of GitHub's rate limit. It reconnects by itself."
        ),
        True: "Redis is reachable again: the shared HTTP cache and rate-limit view are back.",
    },
    "zh": {
        False: (
            "无法连接 Redis（本应用各副本共享的状态）：本次运行继续进行，但不使用共享的 HTTP 缓存，"
            "GitHub 速率限制只按本副本所见计算。连接恢复后会自动重连。"
        ),
        True: "Redis 已恢复连接：共享的 HTTP 缓存和速率限制视图已恢复。",
    },
}


REFUSAL = {
    "en": "This Space cannot count what visitors spend right now (Redis, its shared store, is unreachable), "
    "so no analysis starts; try again in a minute.",
    "zh": "此 Space 暂时无法计算访客的用量（共享存储 Redis 无法连接），因此不会开始分析；请一分钟后再试。",
}


def refusal(lang: str) -> str:
    """Why a hosted run is refused while Redis is down (budgets fail closed: nothing uncounted starts)."""
    return REFUSAL["zh" if lang == "zh" else "en"]


def health_notice(up: bool, *, t: float, lang: str) -> ev.Notice:
    words = WORDS["zh" if lang == "zh" else "en"]
    return ev.Notice(t=t, level="info" if up else "warning", message=words[up])


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
