"""Sliding windows that every replica draws from: the Space's quotas and the per-visitor run budgets.

Each window is one Redis sorted set of takes (score: the wall time of the take; member: time, amount and
a nonce) plus, for amounts, a running total; every operation is ONE Lua script, so a take is atomic
across replicas exactly as :class:`~agent_core.resilience.quota.HourlyQuota`'s lock makes it atomic
inside one process: two replicas × 20 concurrent starts with a limit of 5 admit exactly 5.

Why our windows and not the ``limits`` package: a run reserves model tokens and gives back what it did
not use (:meth:`SharedQuota.refund`), and a cache hit gives back the GitHub request it reserved; ``limits``
can only add hits (``hit(cost=n)``), never return part of one, so reservations would stay spent for an
hour. The scripts keep :class:`HourlyQuota`'s semantics (take, take up to, refund newest first, charge,
remaining, retry after) and its tests run against both.

Times are the injected clock's WALL time: a monotonic clock is per process, and replicas must agree on
when a take happened. When Redis cannot be used, ``fail_closed`` decides: refuse (hosted mode: strangers
spend the owner's accounts, so nothing is spent that cannot be counted) or count in this process alone
(the in-memory window underneath, as without ``REDIS_URL``).
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from functools import partial
from typing import Any

import redis
from redis.commands.core import Script

from agent_core.clock import Clock
from agent_core.resilience.quota import WINDOW_SECONDS, HourlyQuota
from agent_core.shared_state.connection import SharedState, SharedStateError, UnreadableValueError

# KEYS: the takes (sorted set), the running total. ARGV: op, now, window, limit, amount, minimum, nonce.
_QUOTA_LUA = """
local takes, total = KEYS[1], KEYS[2]
local op, now, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local limit, amount, minimum, nonce = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local cutoff = now - window
local ttl = math.ceil(window * 1000)
local function size(member) return tonumber(string.match(member, '^[^:]*:([%d%.]+):')) or 0 end
local used = tonumber(redis.call('GET', total))
if used == nil then  -- absent or not ours: count the live takes again
  used = 0
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', takes, '(' .. cutoff, '+inf')) do used = used + size(m) end
else
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', takes, '-inf', cutoff)) do used = used - size(m) end
end
redis.call('ZREMRANGEBYSCORE', takes, '-inf', cutoff)
if used < 0 then used = 0 end
local function save()
  redis.call('SET', total, tostring(used), 'PX', ttl)
  if redis.call('EXISTS', takes) == 1 then redis.call('PEXPIRE', takes, ttl) end
end
local function add(n)
  redis.call('ZADD', takes, now, string.format('%.6f:%d:%s', now, n, nonce))
  used = used + n
end
local result = 0
if op == 'take' then
  local granted = math.min(amount, math.floor(limit - used))
  if granted >= math.max(1, minimum) then add(granted); result = granted end
elseif op == 'charge' then
  add(amount)
elseif op == 'refund' then
  local left = amount
  while left > 0 do  -- newest first; each take given back whole is removed, so this is linear in them
    local newest = redis.call('ZREVRANGE', takes, 0, 0, 'WITHSCORES')
    if #newest == 0 then break end
    local member, score = newest[1], newest[2]
    local n = size(member)
    local back = math.min(n, left)
    redis.call('ZREM', takes, member)
    if n - back > 0 then
      redis.call('ZADD', takes, score, string.format('%.6f:%d:%s', tonumber(score), n - back, nonce))
    end
    used = used - back
    left = left - back
  end
  if used < 0 then used = 0 end
elseif op == 'remaining' then
  result = math.max(0, math.floor(limit - used))
elseif op == 'retry_after' then
  local oldest = redis.call('ZRANGE', takes, 0, 0, 'WITHSCORES')
  if used >= limit and #oldest == 2 then result = math.max(0, tonumber(oldest[2]) + window - now) end
end
save()
return tostring(result)
"""

# KEYS: the visitor's starts (sorted set), every visitor with starts in the window (sorted set).
# ARGV: op, now, window, limit, max_keys, visitor, nonce. Returns {verdict, remaining, retry_after}.
_BUDGET_LUA = """
local starts, visitors = KEYS[1], KEYS[2]
local op, now, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local limit, max_keys, visitor, nonce = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], ARGV[7]
local cutoff = now - window
local ttl = math.ceil(window * 1000)
redis.call('ZREMRANGEBYSCORE', starts, '-inf', cutoff)
local n = redis.call('ZCARD', starts)
if op == 'remaining' then return {'ok', tostring(limit - n), '0'} end
if n == 0 then
  redis.call('ZREMRANGEBYSCORE', visitors, '-inf', cutoff)
  if redis.call('ZCARD', visitors) >= max_keys and not redis.call('ZSCORE', visitors, visitor) then
    local oldest = redis.call('ZRANGE', visitors, 0, 0, 'WITHSCORES')
    return {'busy', '0', tostring(math.max(0, tonumber(oldest[2]) + window - now))}
  end
end
if n >= limit then
  local oldest = redis.call('ZRANGE', starts, 0, 0, 'WITHSCORES')
  return {'full', '0', tostring(math.max(0, tonumber(oldest[2]) + window - now))}
end
redis.call('ZADD', starts, now, string.format('%.6f:%s', now, nonce))
redis.call('PEXPIRE', starts, ttl)
redis.call('ZADD', visitors, now, visitor)
redis.call('PEXPIRE', visitors, ttl)
return {'ok', tostring(limit - n - 1), '0'}
"""


def _nonce() -> str:
    return secrets.token_hex(6)


def _type_of(client: redis.Redis, *, key: str) -> Any:
    return client.type(key)


def _delete(client: redis.Redis, *, key: str) -> Any:
    return client.delete(key)


def _decoded(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _script_call(
    shared: SharedState, script: Script, keys: list[str], types: tuple[str, ...], args: list[Any]
) -> Any:
    """Run ``script`` over ``keys`` (of Redis ``types``); a key holding another type (not ours) is logged
    once, dropped (treated as absent) and the script run again."""
    try:
        return shared.call(lambda client: script(keys=keys, args=args, client=client))
    except UnreadableValueError:
        for key, expected in zip(keys, types, strict=True):
            found = _decoded(shared.call(partial(_type_of, key=key)))
            if found not in (expected, "none"):
                shared.garbage(key, f"a {found} where a {expected} belongs")
                shared.call(partial(_delete, key=key))
        return shared.call(lambda client: script(keys=keys, args=args, client=client))


class SharedQuota(HourlyQuota):
    """:class:`HourlyQuota` over Redis under ``name``; the in-memory window underneath is used only when
    Redis cannot be and the quota fails open."""

    def __init__(
        self,
        shared: SharedState,
        name: str,
        limit: int,
        *,
        clock: Clock,
        window: float = WINDOW_SECONDS,
        fail_closed: bool = True,
    ) -> None:
        super().__init__(limit, clock=clock, window=window)
        self._shared = shared
        self._keys = [shared.key("quota", name), shared.key("quota", name, "total")]
        self._script = shared.sync.register_script(_QUOTA_LUA)
        self._fail_closed = fail_closed

    def _run(self, op: str, amount: int = 0, minimum: int = 0) -> float:
        args = [op, repr(self._clock.wall()), repr(self._window), self.limit, amount, minimum, _nonce()]
        reply = _script_call(self._shared, self._script, self._keys, ("zset", "string"), args)
        try:
            return float(reply)
        except (TypeError, ValueError):
            self._shared.garbage(self._keys[0], "not a number")
            return 0.0

    def take_up_to(self, amount: int, *, minimum: int = 1) -> int:
        try:
            return int(self._run("take", amount, minimum))
        except SharedStateError:
            return 0 if self._fail_closed else super().take_up_to(amount, minimum=minimum)

    def refund(self, amount: int) -> None:
        try:
            self._run("refund", amount)
        except SharedStateError:
            if not self._fail_closed:
                super().refund(amount)

    def charge(self, amount: int) -> None:
        if amount <= 0:
            return
        try:
            self._run("charge", amount)
        except SharedStateError:
            if not self._fail_closed:
                super().charge(amount)

    def remaining(self) -> int:
        try:
            return int(self._run("remaining"))
        except SharedStateError:
            return 0 if self._fail_closed else super().remaining()

    def retry_after(self) -> float:
        try:
            return self._run("retry_after")
        except SharedStateError:
            return self._shared.health.retry_after() if self._fail_closed else super().retry_after()


@dataclass(frozen=True, kw_only=True)
class StartDecision:
    """A run start counted or refused, by this process's :class:`agent_core.web.budget.RunBudget` or by
    every replica's :class:`SharedRunBudget`."""

    allowed: bool
    remaining: int
    """Runs left in the window after this decision."""
    retry_after: float
    """Seconds until the next run is allowed (0.0 when allowed)."""
    busy: bool = False
    """Refused because too many visitors are remembered at once (not this visitor's own use)."""
    unavailable: bool = False
    """Refused because Redis could not be used (hosted mode fails closed); ``busy`` too, so a caller that
    knows only ``busy`` says "try again shortly", not "you used your budget"."""

    @property
    def retry_after_minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))


class SharedRunBudget:
    """At most ``runs_per_hour`` starts per key in any sliding window, across every replica; at most
    ``max_keys`` keys at once (a new key is refused as ``busy`` when full, as in the in-memory budget)."""

    def __init__(
        self,
        shared: SharedState,
        name: str,
        runs_per_hour: int,
        *,
        clock: Clock,
        window: float = WINDOW_SECONDS,
        max_keys: int = 10_000,
        fail_closed: bool = True,
    ) -> None:
        if runs_per_hour < 1:
            raise ValueError(f"runs_per_hour must be >= 1, got {runs_per_hour}")
        self.runs_per_hour = runs_per_hour
        self._shared = shared
        self._name = name
        self._clock = clock
        self._window = window
        self._max_keys = max_keys
        self._script = shared.sync.register_script(_BUDGET_LUA)
        self._fail_closed = fail_closed

    def _run(self, op: str, key: str) -> tuple[str, int, float]:
        keys = [self._shared.key("budget", self._name, key), self._shared.key("budget", self._name)]
        args = [op, repr(self._clock.wall()), repr(self._window), self.runs_per_hour, self._max_keys, key]
        reply = _script_call(self._shared, self._script, keys, ("zset", "zset"), [*args, _nonce()])
        try:
            verdict, remaining, wait = (
                part.decode() if isinstance(part, bytes) else str(part) for part in reply
            )
            return verdict, int(remaining), float(wait)
        except (TypeError, ValueError):
            self._shared.garbage(keys[0], "an unexpected reply")
            return "full", 0, self._window

    def try_start(self, key: str) -> StartDecision:
        """Count a run for ``key`` if the budget allows it; otherwise say how long to wait."""
        try:
            verdict, remaining, wait = self._run("start", key)
        except SharedStateError:
            if self._fail_closed:
                wait = self._shared.health.retry_after()
                return StartDecision(
                    allowed=False, remaining=0, retry_after=wait, busy=True, unavailable=True
                )
            return StartDecision(allowed=True, remaining=self.runs_per_hour, retry_after=0.0)
        if verdict == "ok":
            return StartDecision(allowed=True, remaining=remaining, retry_after=0.0)
        return StartDecision(allowed=False, remaining=0, retry_after=wait, busy=verdict == "busy")

    def remaining(self, key: str) -> int:
        try:
            return self._run("remaining", key)[1]
        except SharedStateError:
            return 0 if self._fail_closed else self.runs_per_hour
