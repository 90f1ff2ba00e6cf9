"""The connection to Redis that replicas share, built from ``REDIS_URL``, and the one way to use it.

:class:`SharedState` holds two clients on the same URL: a synchronous one for the seams that are
synchronous today (budgets and quotas are taken from Gradio's worker threads and from the GitHub client
between awaits; the rate-limit view is read before each request) and an asyncio one for the HTTP cache.
Both have short socket timeouts and no retries of their own: a failed call marks :class:`Health` down and
Redis is skipped until the next probe, so a dead or hung server stalls a caller at most one timeout per
pause, never per request. redis-py reconnects by itself on the next call after a failure.

Every key lives under :data:`KEY_PREFIX` (versioned: a later format takes ``v2`` and never reads ``v1``
values). Errors from redis-py are mapped once, here, to :class:`SharedStateError`; what a caller does
then (miss, fail open, fail closed) is its own decision. Values that are not what we wrote (garbage,
another program's data under our prefix) are reported with :meth:`SharedState.garbage`: logged once per
key, treated as absent by the caller.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

from agent_core.clock import Clock
from agent_core.errors import UpstreamError
from agent_core.shared_state.health import RECONNECT_PAUSE, Health

logger = logging.getLogger(__name__)

KEY_PREFIX = "repo-analyst:v1:"
SOCKET_TIMEOUT = 0.5  # seconds: loopback or a LAN answers in well under a millisecond
CONNECT_TIMEOUT = 0.5
MAX_GARBAGE_LOGGED = 100  # distinct keys reported before we stop remembering them

T = TypeVar("T")

# What redis-py raises for an unreachable, hung or refusing server (OSError: a socket error before
# redis-py wraps it); ResponseError (a WRONGTYPE on a foreign value...) is a RedisError too.
REDIS_ERRORS: tuple[type[BaseException], ...] = (redis.RedisError, OSError)


class SharedStateError(UpstreamError):
    """Redis could not be used for this call (down, or skipped until the next probe)."""


class UnreadableValueError(SharedStateError):
    """Redis answered, but refused the command on the value it holds (another type under our key: a
    ``WRONGTYPE``): the value is not ours, Redis itself is healthy."""


class SharedState:
    """The Redis connection of one replica; see the module docstring. Built by the composition root."""

    def __init__(
        self,
        *,
        sync_client: redis.Redis,
        async_client: aioredis.Redis,
        clock: Clock,
        pause: float = RECONNECT_PAUSE,
    ) -> None:
        self.sync = sync_client
        self.aio = async_client
        self.health = Health(clock=clock, pause=pause)
        self._garbage: set[str] = set()
        self._lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, *, clock: Clock, pause: float = RECONNECT_PAUSE) -> SharedState:
        """Clients for ``url`` (no connection is made until the first use)."""
        return cls(
            sync_client=redis.Redis.from_url(
                url,
                retry=Retry(NoBackoff(), 0),
                socket_timeout=SOCKET_TIMEOUT,
                socket_connect_timeout=CONNECT_TIMEOUT,
            ),
            async_client=aioredis.Redis.from_url(
                url,
                retry=AsyncRetry(NoBackoff(), 0),
                socket_timeout=SOCKET_TIMEOUT,
                socket_connect_timeout=CONNECT_TIMEOUT,
            ),
            clock=clock,
            pause=pause,
        )

    @staticmethod
    def key(*parts: str) -> str:
        """A key under the versioned prefix: ``repo-analyst:v1:part:part``."""
        return KEY_PREFIX + ":".join(parts)

    def call(self, fn: Callable[[redis.Redis], T]) -> T:
        """Run ``fn`` with the synchronous client; :class:`SharedStateError` when Redis is skipped
        or fails (which marks it down)."""
        with self._watched():
            return fn(self.sync)

    async def acall(self, fn: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
        """:meth:`call` for the asyncio client."""
        with self._watched():
            return await fn(self.aio)

    @contextmanager
    def _watched(self) -> Iterator[None]:
        """A call to Redis, skipped while it is down; its failure marks it down, and its answer (a refusal
        included: the server answered) marks it up."""
        if not self.health.ready():
            raise SharedStateError("Redis is unreachable; trying again shortly")
        try:
            yield
        except redis.ResponseError as exc:
            self.health.succeeded()
            raise UnreadableValueError(f"Redis refused: {str(exc)[:80]}") from exc
        except REDIS_ERRORS as exc:
            self.health.failed(exc)
            raise SharedStateError(f"Redis failed: {type(exc).__name__}") from exc
        self.health.succeeded()

    async def usable(self) -> bool:
        """Whether to use Redis now, for callers that cannot see its errors (hishel catches and logs
        them): up, or the pause is over and a PING, this caller's probe, got an answer."""
        if self.health.up:
            return True
        if not self.health.ready():
            return False
        try:
            await self.aio.ping()
        except REDIS_ERRORS as exc:
            self.health.failed(exc)
            return False
        self.health.succeeded()
        return True

    def garbage(self, key: str, what: str) -> None:
        """A value under ``key`` is not ours (or not in this version's format): logged once per key."""
        with self._lock:
            if key in self._garbage or len(self._garbage) >= MAX_GARBAGE_LOGGED:
                return
            self._garbage.add(key)
        logger.warning("shared state: ignoring an unreadable value under %s (%s)", key[:200], what)

    def close(self) -> None:
        self.sync.close()

    async def aclose(self) -> None:
        self.sync.close()
        await self.aio.aclose()
