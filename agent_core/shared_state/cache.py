"""The HTTP cache every replica shares: hishel's own Redis storage, guarded so that Redis never fails a
GitHub request, and the scope secret that partitions it by token, the same for every replica.

hishel keeps the cache logic (keys, freshness, revalidation, chunked bodies, expiry); this module only
decides whether to use it. While :class:`~agent_core.shared_state.health.Health` says Redis is down,
lookups are misses and answers pass through unstored, with no call to Redis and nothing logged; the
probe after each pause is our own PING, so hishel (which logs every Redis error it catches) meets Redis
only when it was up a moment ago. Bodies of
entries found are read at lookup, so a Redis that dies mid-read, a body deleted under a reader, or a
value that is not hishel's (garbage under our prefix) is a miss there, never an error in the middle of
a GitHub response. Redis's ``maxmemory`` (with an ``allkeys-lru`` policy) bounds the cache's size.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from functools import partial
from typing import Any

import hishel
import redis
import redis.asyncio as aioredis
from hishel import Entry, Headers, Request, Response

from agent_core.shared_state.connection import (
    REDIS_ERRORS,
    SharedState,
    SharedStateError,
    UnreadableValueError,
)
from agent_core.shared_state.health import Health

SECRET_BYTES = 32
MAX_STORED_BODY = 16 * 1024 * 1024  # github/http.py reads at most this much JSON

# What a lookup can meet in a value that is not a complete hishel entry of this version.
_UNREADABLE = (ValueError, TypeError, KeyError, RuntimeError, UnicodeDecodeError)


class _WatchedRedis(aioredis.Redis):
    """The asyncio client hishel uses: every command's outcome updates the replica's Redis health
    (hishel catches its own Redis errors, so this is where a failure is seen)."""

    health: Health
    foreign: set[str]
    """Keys a command found another type under (``WRONGTYPE``): not hishel's, to be dropped."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            result = await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except aioredis.ResponseError as exc:
            if str(exc).startswith("WRONGTYPE") and len(args) > 1:
                key = args[1]
                self.foreign.add(key.decode(errors="replace") if isinstance(key, bytes) else str(key))
            raise
        except REDIS_ERRORS as exc:
            self.health.failed(exc)
            raise
        self.health.succeeded()
        return result


async def _delete_async(client: aioredis.Redis, *, key: str) -> Any:
    return await client.delete(key)


async def _replay(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


class SharedCacheStorage(hishel.AsyncBaseStorage):
    """hishel's :class:`~hishel.AsyncRedisStorage` under our key prefix, skipped while Redis is down."""

    def __init__(self, shared: SharedState, *, default_ttl: float, max_stream_size: int = MAX_STORED_BODY):
        super().__init__(default_ttl=default_ttl, max_stream_size=max_stream_size)
        self._shared = shared
        client = _WatchedRedis(connection_pool=shared.aio.connection_pool)
        client.health = shared.health
        client.foreign = set()
        self._client = client
        self._inner = hishel.AsyncRedisStorage(
            client,
            default_ttl=default_ttl,
            max_stream_size=max_stream_size,
            key_prefix=shared.key("http"),
        )

    async def create_entry(
        self,
        request: Request,
        response: Response,
        key: str,
        *,
        ttl: float | None = None,
        tti: float | None = None,
    ) -> Entry:
        if not await self._shared.usable():
            return Entry(id=uuid.uuid4(), request=request, response=response)  # served, not stored
        return await self._inner.create_entry(request, response, key, ttl=ttl, tti=tti)

    async def get_entries(self, key: str) -> list[Entry]:
        if not await self._shared.usable():
            return []
        try:
            entries = [await self._read(entry) for entry in await self._inner.get_entries(key)]
        except REDIS_ERRORS as exc:
            self._shared.health.failed(exc)
            return []
        except _UNREADABLE as exc:
            self._shared.garbage(self._shared.key("http", "idx", key), type(exc).__name__)
            return []
        await self._drop_foreign()
        return entries

    async def _drop_foreign(self) -> None:
        """Drop the values of another type hishel met (logged once each), so that the next answer can be
        stored there instead of failing to be, request after request."""
        while self._client.foreign:
            key = self._client.foreign.pop()
            if not key.startswith(self._shared.key("http")):
                continue  # never touch what is not under our prefix
            self._shared.garbage(key, "not hishel's")
            try:
                await self._shared.acall(partial(_delete_async, key=key))
            except SharedStateError:
                return

    async def _read(self, entry: Entry) -> Entry:
        """The entry with its body read now (see the module docstring)."""
        stream = entry.response.stream
        chunks: list[bytes] = []
        if isinstance(stream, AsyncIterator):
            chunks = [bytes(chunk) async for chunk in stream]
        return replace(entry, response=replace(entry.response, stream=_replay(chunks)))

    async def update_headers(self, id: uuid.UUID, headers: Headers) -> None:
        if await self._shared.usable():
            await self._inner.update_headers(id, headers)

    async def remove_entry(self, id: uuid.UUID) -> None:
        if await self._shared.usable():
            await self._inner.remove_entry(id)

    async def close(self) -> None:
        """Nothing: the connection belongs to :class:`SharedState`, closed by whoever built it."""


def _set_once(client: redis.Redis, *, key: str, value: bytes) -> Any:
    return client.set(key, value, nx=True, get=True)


def shared_scope_secret(shared: SharedState, fallback: Callable[[], bytes]) -> bytes:
    """The key of the cache's scope fingerprints, the same for every replica: the first replica's random
    one, stored once (``SET NX``). ``fallback`` (the process's own secret) when Redis cannot be used: the
    cache stays partitioned by token, this replica's entries are simply not shared."""
    key = shared.key("scope-secret")
    for _ in range(2):
        candidate = secrets.token_bytes(SECRET_BYTES)
        try:
            stored = shared.call(partial(_set_once, key=key, value=candidate))
            if stored is None:
                return candidate
            if isinstance(stored, bytes) and len(stored) >= SECRET_BYTES:
                return stored
        except UnreadableValueError:
            pass  # another type under our key
        except SharedStateError:
            return fallback()
        shared.garbage(key, "not a secret")
        try:
            shared.call(lambda client: client.delete(key))
        except SharedStateError:
            return fallback()
    return fallback()
