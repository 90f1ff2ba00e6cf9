"""The GitHub rate-limit view shared by every replica, per token partition and resource.

Every response's ``X-RateLimit-*`` headers are recorded (:meth:`SharedRateLimits.record`); any replica
reads the most spent state seen by any of them (:meth:`SharedRateLimits.get`), so one that starts after
another spent the shared token's quota refuses before its first request instead of spending it again.
"Most spent" is decided atomically in Redis: a later reset (a new window) replaces the value, and in the
same window a lower ``remaining`` does (responses of concurrent replicas arrive in any order).

The scope in the key is the token's keyed fingerprint (:meth:`GitHubHTTP.scope`), never the token. When
Redis cannot be used the replica's own view (what it saw itself) answers.

Every response carries the headers and every request reads the view, so both are throttled to keep Redis
off the hot path (each call is a blocking round trip of a few hundred microseconds): a replica writes
when a window starts, when little is left (:data:`LOW_FRACTION`) and otherwise at most every
:data:`REFRESH_SECONDS` per key; it reads Redis on its first request and then at most every
:data:`REFRESH_SECONDS`, answering in between with the most spent of what it read and what it saw itself.
Another replica's exhaustion is therefore seen within that second, never later.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from agent_core.clock import Clock
from agent_core.github.http import LocalRateLimits
from agent_core.github.ratelimit import RateLimit
from agent_core.shared_state.connection import SharedState, SharedStateError

# KEYS: the view. ARGV: the new value (JSON), its reset, its remaining, the key's lifetime (ms).
_RECORD_LUA = """
local current = redis.call('GET', KEYS[1])
local reset, remaining = tonumber(ARGV[2]), tonumber(ARGV[3])
if current then
  local ok, seen = pcall(cjson.decode, current)
  if ok and type(seen) == 'table' and tonumber(seen.reset_at) and tonumber(seen.remaining) then
    local seen_reset, seen_remaining = tonumber(seen.reset_at), tonumber(seen.remaining)
    if reset < seen_reset or (reset == seen_reset and remaining >= seen_remaining) then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
return 1
"""

KEEP_AFTER_RESET = 60.0  # seconds a view outlives its window's reset
REFRESH_SECONDS = 1.0  # longest a replica goes without writing or reading a changed view
LOW_FRACTION = 0.1  # at or below this fraction of the limit left, every change is written at once


def most_spent(a: RateLimit | None, b: RateLimit | None) -> RateLimit | None:
    """The later window's view, and within one window the one with less left."""
    if a is None or b is None:
        return a or b
    return min(a, b, key=lambda limit: (-limit.reset_at, limit.remaining))


class SharedRateLimits:
    """The rate-limit view over Redis, with this replica's own view as the fallback."""

    def __init__(self, shared: SharedState, *, clock: Clock) -> None:
        self._shared = shared
        self._clock = clock
        self._local = LocalRateLimits()
        self._script = shared.sync.register_script(_RECORD_LUA)
        self._written: dict[str, tuple[float, float]] = {}  # key -> (when, the reset written)
        self._read: dict[str, tuple[float, RateLimit | None]] = {}  # key -> (when, what Redis held)

    def _key(self, scope: str, resource: str) -> str:
        return self._shared.key("ratelimit", scope, resource)

    def _due(self, key: str, limit: RateLimit) -> bool:
        now = self._clock.monotonic()
        written = self._written.get(key)
        low = limit.remaining <= limit.limit * LOW_FRACTION
        if (
            written is not None
            and not low
            and written[1] == limit.reset_at
            and now - written[0] < REFRESH_SECONDS
        ):
            return False
        self._written[key] = (now, limit.reset_at)
        return True

    def record(self, scope: str, limit: RateLimit) -> None:
        self._local.record(scope, limit)
        if not self._due(self._key(scope, limit.resource), limit):
            return
        lifetime = max(KEEP_AFTER_RESET, limit.reset_at - self._clock.wall() + KEEP_AFTER_RESET)
        args: list[str | int] = [
            json.dumps(asdict(limit)),
            repr(limit.reset_at),
            limit.remaining,
            int(lifetime * 1000),
        ]
        keys = [self._key(scope, limit.resource)]
        try:
            self._shared.call(lambda client: self._script(keys=keys, args=args, client=client))
        except SharedStateError:
            return  # the local view has it; the others learn from their own responses meanwhile

    def get(self, scope: str, resource: str) -> RateLimit | None:
        key = self._key(scope, resource)
        now = self._clock.monotonic()
        read = self._read.get(key)
        if read is None or now - read[0] >= REFRESH_SECONDS:
            read = self._read[key] = (now, self._fetch(key))
        return most_spent(read[1], self._local.get(scope, resource))

    def _fetch(self, key: str) -> RateLimit | None:
        """What Redis holds under ``key`` (None: nothing, unreadable, or Redis cannot be used)."""
        try:
            raw = self._shared.call(lambda client: client.get(key))
        except SharedStateError:
            return None
        if raw is None:
            return None
        try:
            value = json.loads(raw)
            return RateLimit(
                limit=int(value["limit"]),
                remaining=int(value["remaining"]),
                used=None if value.get("used") is None else int(value["used"]),
                reset_at=float(value["reset_at"]),
                resource=str(value["resource"]),
                authenticated=bool(value["authenticated"]),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            self._shared.garbage(key, "not a rate limit")
            return None
