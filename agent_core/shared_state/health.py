"""Whether Redis is reachable, as this replica last saw it: one state, one log line per change.

Every use of Redis reports how it went (:meth:`Health.succeeded` / :meth:`Health.failed`). After a
failure Redis is skipped for :data:`RECONNECT_PAUSE` seconds on the injected clock (so a dead server costs
each caller nothing, not a connect timeout each), then ONE caller is let through as a probe: redis-py
reconnects on that call, and its outcome decides the state. Only the changes up → down and down → up are
logged and told to listeners (the runs' traces), never each refused call: a breaker with a threshold of
one, whose probes do not log.

It is thread-safe: budgets are taken from Gradio's worker threads as well as from the event loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from agent_core.clock import Clock

logger = logging.getLogger(__name__)

RECONNECT_PAUSE = 5.0  # seconds between probes of an unreachable Redis

HealthListener = Callable[[bool], None]  # called with the new state: True when Redis is reachable again


class Health:
    """Reachable or not; see the module docstring."""

    def __init__(self, *, clock: Clock, pause: float = RECONNECT_PAUSE, where: str = "redis") -> None:
        self._clock = clock
        self._pause = pause
        self._where = where
        self._up = True
        self._retry_at = 0.0
        self._listeners: list[HealthListener] = []
        self._lock = threading.Lock()

    @property
    def up(self) -> bool:
        """The state last seen (True until a use fails)."""
        return self._up

    def retry_after(self) -> float:
        """Seconds until Redis is tried again (0.0 when it is up)."""
        if self._up:
            return 0.0
        return max(0.0, self._retry_at - self._clock.monotonic())

    def ready(self) -> bool:
        """Whether to use Redis now: it is up, or the pause is over and this caller is the probe."""
        with self._lock:
            if self._up:
                return True
            now = self._clock.monotonic()
            if now < self._retry_at:
                return False
            self._retry_at = now + self._pause  # the others keep skipping while the probe runs
            return True

    def succeeded(self) -> None:
        self._change(up=True, reason="reachable again")

    def failed(self, error: BaseException) -> None:
        with self._lock:
            self._retry_at = self._clock.monotonic() + self._pause
        self._change(up=False, reason=f"unreachable ({type(error).__name__}: {str(error)[:120]})")

    def add_listener(self, listener: HealthListener) -> Callable[[], None]:
        """Call ``listener`` on every change of state; returns a function that removes it."""
        with self._lock:
            self._listeners.append(listener)

        def remove() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return remove

    def _change(self, *, up: bool, reason: str) -> None:
        with self._lock:
            if self._up == up:
                return
            self._up = up
            listeners = list(self._listeners)
        if up:
            logger.info("shared state: %s is %s; sharing again", self._where, reason)
        else:
            logger.warning(
                "shared state: %s is %s; this replica goes on alone and tries again every %.0f s",
                self._where,
                reason,
                self._pause,
            )
        for listener in listeners:
            listener(up)
