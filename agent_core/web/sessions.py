"""The browser sessions this process holds, and when they let go of what they hold.

Gradio keeps a session's ``gr.State`` until the browser's heartbeat stops; an API client never opens a
heartbeat, so its session (an open analysis, a whole trace, export files) was never released (issue 20:
38 replay sessions held 560 MiB, the downloads step filled the disk). :class:`SessionTable` (one per
app, never module state) sees every session a handler touches and releases
(:meth:`~agent_core.web.browser_session.BrowserSession.release`) those idle longer than ``idle_s``, and
the least recently used ones beyond ``max_sessions`` or beyond ``max_events`` trace events held in
all; a session whose run is streaming is never released. A released session keeps its settings; its next run starts afresh.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from agent_core.clock import Clock
from agent_core.top.wiring import OpenedAnalysis
from agent_core.web.browser_session import BrowserSession

IDLE_SECONDS = 1800.0
MAX_SESSIONS = 200  # sessions holding a trace or an analysis at once
MAX_EVENTS_HELD = 200_000  # events of all those traces together (a replay's trace can be 20,000)


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
