"""The browser sessions this process holds, and when they let go of what they hold.

Gradio keeps a session's ``gr.State`` until the browser's heartbeat stops; an API client never opens a
heartbeat, so its session (an open analysis, a whole trace, export files) was never released (issue 20:
38 replay sessions held 560 MiB, the downloads step filled the disk). :class:`SessionTable` (one per
app, never module state) sees every session a handler touches and releases
(:meth:`~agent_core.web.browser_session.BrowserSession.release`) those idle longer than ``idle_s``, and
the least recently used ones beyond ``max_sessions`` or beyond ``max_events`` trace events held in
all; a session whose run is streaming is never released. A released session keeps its settings; its next run starts afresh.

Gradio's own record of a session cost more than ours: on a session's first request it computed the config
of every block of the page (``SessionState.config_values``, 144-190 KiB) whether or not the session ever
changed one (issue 35: 10,000 idle session hashes held 1.4-1.9 GB). :func:`lighten` makes those configs
lazy (computed for a block when Gradio first reads or changes it, all of them only for a deep link) and
caps the sessions Gradio remembers (:data:`GRADIO_SESSIONS`): an idle fresh session holds a few KiB.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, ItemsView
from copy import copy
from typing import Any

from gradio.state_holder import SessionState, StateHolder

from agent_core.clock import Clock
from agent_core.top.wiring import OpenedAnalysis
from agent_core.web.browser_session import BrowserSession

IDLE_SECONDS = 1800.0
MAX_SESSIONS = 200  # sessions holding a trace or an analysis at once
MAX_EVENTS_HELD = 200_000  # events of all those traces together (a replay's trace can be 20,000)
GRADIO_SESSIONS = 2_000  # session hashes Gradio remembers (its default 10,000), least recent forgotten


class SessionTable:
    """See the module docstring. Used from the app's event loop (and Gradio's handler threads: each
    call is short and touches one dict, so it takes no lock beyond the GIL's atomic dict operations).

    Every request touches the table, so a touch costs O(1) plus the sessions it releases: the events a
    session holds are counted when it is touched (the handlers touch it again as a run ends), never by
    walking all sessions, and a sweep stops at the first session that may stay."""

    def __init__(
        self,
        clock: Clock,
        *,
        schedule: Callable[[OpenedAnalysis], None] | None = None,
        idle_s: float = IDLE_SECONDS,
        max_sessions: int = MAX_SESSIONS,
        max_events: int = MAX_EVENTS_HELD,
    ) -> None:
        self._clock = clock
        self._schedule = schedule
        self._idle_s = idle_s
        self._max = max_sessions
        self._max_events = max_events
        # least recent first: the session, when it was last used, the events it held then
        self._last: OrderedDict[int, tuple[BrowserSession, float, int]] = OrderedDict()
        self._held = 0  # the sum of those event counts
        self.released = 0
        self.visited = 0  # sessions the sweeps looked at (what a request costs here; tests read it)

    def __len__(self) -> int:
        return len(self._last)

    def touch(self, session: BrowserSession) -> None:
        """``session`` is in use now; release the sessions that expired meanwhile."""
        now = self._clock.monotonic()
        self._forget(id(session))
        weight = _weight(session)
        self._last[id(session)] = (session, now, weight)
        self._held += weight
        self.sweep(now)

    def forget(self, session: BrowserSession) -> None:
        """Gradio deleted the session (its tab closed): nothing left to release here."""
        self._forget(id(session))

    def _forget(self, key: int) -> None:
        entry = self._last.pop(key, None)
        if entry is not None:
            self._held -= entry[2]

    def sweep(self, now: float | None = None) -> None:
        """Release idle sessions, least recently used first: those idle longer than ``idle_s``, then as
        many as it takes to hold at most ``max_sessions`` sessions and ``max_events`` trace events."""
        now = self._clock.monotonic() if now is None else now
        count, held = len(self._last), self._held
        doomed: list[int] = []
        for key, (session, last, weight) in self._last.items():
            self.visited += 1
            over = count > self._max or held > self._max_events
            if not over and last > now - self._idle_s:
                break  # the rest were used more recently
            if session.running:
                continue  # its handler is streaming: it is in use
            doomed.append(key)
            count, held = count - 1, held - weight
        for key in doomed:
            session = self._last[key][0]
            self._forget(key)
            session.release(self._schedule)
            self.released += 1


def _weight(session: BrowserSession) -> int:
    """What a session holds, in trace events (its current run's; none once settled)."""
    return len(session.view.events) if session.view is not None else 0


class _LazyConfigs(dict[int, Any]):
    """A session's block configs, each computed when first read (Gradio's code asks ``key in`` first and
    fills in what is missing itself; iterating fills everything, as a deep link needs)."""

    def __init__(self, state: SessionState, ids: frozenset[int]) -> None:
        super().__init__()
        self._state = state
        self._ids = ids

    def __missing__(self, key: int) -> Any:
        if key not in self._ids:
            raise KeyError(key)
        blocks = self._state.blocks_config
        value = self[key] = blocks.config_for_block(key, [], blocks.blocks[key])
        return value

    def items(self) -> ItemsView[int, Any]:  # type: ignore[override]
        for key in self._ids - self.keys():
            self.__missing__(key)
        return super().items()


class LightSessionState(SessionState):
    """Gradio's SessionState with :class:`_LazyConfigs` (its ``__init__`` otherwise, gradio 6.31)."""

    def __init__(self, blocks: Any) -> None:
        self.blocks_config = copy(blocks.default_config)
        ids = frozenset(k for k in self.blocks_config.blocks if k in blocks.blocks)
        self.config_values = _LazyConfigs(self, ids)
        self.state_data: dict[int, Any] = {}
        self._state_ttl: dict[int, Any] = {}
        self.is_closed = False
        self.STATE_TTL_WHEN_CLOSED = 1 if os.getenv("GRADIO_IS_E2E_TEST", None) else 3600


class LightStateHolder(StateHolder):
    """Gradio's StateHolder creating :class:`LightSessionState` s."""

    def __getitem__(self, session_id: str) -> SessionState:
        if session_id not in self.session_data:
            self.session_data[session_id] = LightSessionState(self.blocks)
        return super().__getitem__(session_id)


def lighten(app: Any) -> None:
    """Make Gradio's session records of ``app`` (a running Gradio app) lazy and capped (module docstring)."""
    holder = app.state_holder
    holder.__class__ = LightStateHolder
    holder.capacity = min(holder.capacity, GRADIO_SESSIONS)
