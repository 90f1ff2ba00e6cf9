"""The hosted-mode budget: what one visitor, and all visitors together, may spend of the owner's accounts.

On a Hugging Face Space strangers spend the owner's model key and GitHub quota. Who a visitor is comes
from :func:`visitor_key` (the address the platform's proxy appends, never what the client writes).
:class:`SpaceBudget` (owned by the app, one per process, never module state) holds

* per visitor, in a sliding hour: run starts (:class:`RunBudget`, ``RUNS_PER_HOUR``), replays
  (:data:`REPLAYS_PER_HOUR`) and public tool calls (``RUNS_PER_HOUR × MAX_TOOL_CALLS``), and one run or
  replay at a time;
* for the whole Space: the process-wide :class:`~agent_core.top.wiring.SpaceQuotas` (owner-paid runs,
  model tokens, GitHub requests), which the composition root also hands to the GitHub client.

A run is admitted with :meth:`SpaceBudget.admit` (a :class:`Admission`, or the refusal's text) and
released with :meth:`SpaceBudget.release`, which settles the model tokens it really used.
"""

from __future__ import annotations

import ipaddress
import math
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

from agent_core.clock import Clock, SystemClock
from agent_core.settings import Settings
from agent_core.shared_state import SharedRunBudget, StartDecision, refusal
from agent_core.top.payer import Payer
from agent_core.top.wiring import SpaceQuotas
from agent_core.words import t

WINDOW_SECONDS = 3600.0
REPLAYS_PER_HOUR = 20  # per visitor (or RUNS_PER_HOUR, if more); each also bounded in CPU (web/replay.py)
MAX_KEYS = 10_000  # visitors remembered at once; beyond this new ones wait, known ones are never evicted


def visitor_key(headers: Any, client_host: str | None, session: str | None = None) -> str:
    """Whom the hosted budget counts.

    Behind Hugging Face's proxy every request carries ``X-Forwarded-For``, and the proxy APPENDS the
    address it accepted the connection from: the last entry is the real client, every earlier one is
    whatever the client wrote. So the rightmost entry is the key; without the header (no proxy), the
    socket's peer. IPv6 addresses count per /64 (one subscriber's usual allocation), so rotating
    addresses inside a prefix does not mint new visitors.
    """
    forwarded = ",".join(headers.getlist("x-forwarded-for")) if hasattr(headers, "getlist") else None
    if forwarded is None and headers is not None:
        forwarded = headers.get("x-forwarded-for")
    last = str(forwarded).split(",")[-1].strip() if forwarded else ""
    address = last or (client_host or "")
    if not address:
        return f"session:{session}"
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return f"ip:{address[:64]}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"ip:{ip.ipv4_mapped}"
        return f"ip6:{ipaddress.IPv6Network((ip, 64), strict=False)}"
    return f"ip:{ip}"


class RunBudget:
    """At most ``runs_per_hour`` starts per key in any sliding hour. Thread-safe.

    At most ``max_keys`` keys with starts inside the window are remembered. When the table is full a NEW
    key is refused (``busy``) until some key's window empties: a flood of fresh keys can never push a
    known visitor out of the table (which would reset that visitor's count)."""

    def __init__(
        self,
        runs_per_hour: int,
        *,
        clock: Clock | None = None,
        window: float = WINDOW_SECONDS,
        max_keys: int = MAX_KEYS,
    ) -> None:
        if runs_per_hour < 1:
            raise ValueError(f"runs_per_hour must be >= 1, got {runs_per_hour}")
        self.runs_per_hour = runs_per_hour
        self._clock = clock or SystemClock()
        self._window = window
        self._max_keys = max_keys
        self._starts: dict[str, deque[float]] = {}  # insertion order: oldest first start first
        self._lock = threading.Lock()

    def _forget_expired(self, now: float) -> None:
        for key in [k for k, starts in self._starts.items() if starts[-1] <= now - self._window]:
            del self._starts[key]

    def try_start(self, key: str) -> StartDecision:
        """Count a run for ``key`` if the budget allows it; otherwise say how long to wait."""
        now = self._clock.monotonic()
        with self._lock:
            starts = self._starts.get(key)
            if starts is None:
                if len(self._starts) >= self._max_keys:
                    self._forget_expired(now)
                if len(self._starts) >= self._max_keys:
                    oldest = min(s[-1] for s in self._starts.values())
                    wait = max(0.0, oldest + self._window - now)
                    return StartDecision(allowed=False, remaining=0, retry_after=wait, busy=True)
                starts = self._starts[key] = deque()
            while starts and starts[0] <= now - self._window:
                starts.popleft()
            if len(starts) >= self.runs_per_hour:
                wait = starts[0] + self._window - now
                return StartDecision(allowed=False, remaining=0, retry_after=max(0.0, wait))
            starts.append(now)
            return StartDecision(allowed=True, remaining=self.runs_per_hour - len(starts), retry_after=0.0)

    def remaining(self, key: str) -> int:
        now = self._clock.monotonic()
        with self._lock:
            starts = self._starts.get(key, ())
            return self.runs_per_hour - sum(1 for s in starts if s > now - self._window)


def _budget(quotas: SpaceQuotas | None, name: str, limit: int, clock: Clock) -> RunBudget | SharedRunBudget:
    """Counted in this process, or by every replica when the Space's quotas are shared (``REDIS_URL``)."""
    shared = quotas.visitor_budget(name, limit, clock) if quotas is not None else None
    return shared or RunBudget(limit, clock=clock)


@dataclass(frozen=True, kw_only=True)
class Admission:
    """A run let through: the visitor, who pays, and the model tokens reserved for it."""

    key: str
    payer: Payer
    tokens: int | None
    """Tokens reserved from the Space's allowance (None: the visitor pays the model)."""


class SpaceBudget:
    """See the module docstring. In local mode (no ``SPACE_ID``) everything is allowed."""

    def __init__(self, settings: Settings, quotas: SpaceQuotas | None, *, clock: Clock) -> None:
        self.settings = settings
        self.quotas = quotas
        self.runs = _budget(quotas, "runs", settings.runs_per_hour, clock)
        self.tools = _budget(quotas, "tools", settings.runs_per_hour * settings.max_tool_calls, clock)
        self.replays = _budget(quotas, "replays", max(REPLAYS_PER_HOUR, settings.runs_per_hour), clock)
        self._running: set[str] = set()
        self._lock = threading.Lock()

    @property
    def enforced(self) -> bool:
        return self.settings.hosted

    def admit(self, key: str, payer: Payer, *, lang: str = "en") -> Admission | str:
        """Let one run start for ``key``, or the refusal's text (nothing is counted then)."""
        if not self.enforced:
            return Admission(key=key, payer=payer, tokens=None)
        if not self._mark(key):
            return t("run_in_progress", lang)
        counted = self._count(key, payer, lang)
        if isinstance(counted, str):
            self._unmark(key)
            return refusal(lang) if self.quotas and self.quotas.unavailable() else counted
        return Admission(key=key, payer=payer, tokens=counted)

    def admit_replay(self, key: str, *, lang: str = "en") -> Admission | str:
        """Let one replay start for ``key`` (it costs the Space CPU, not money): one run or replay at a
        time per visitor, :data:`REPLAYS_PER_HOUR` an hour; the refusal's text otherwise."""
        free = Admission(key=key, payer=Payer(owner_model=False, owner_github=False), tokens=None)
        if not self.enforced:
            return free
        if not self._mark(key):
            return t("run_in_progress", lang)
        decision = self.replays.try_start(key)
        if decision.allowed:
            return free
        self._unmark(key)
        if decision.busy:
            return t("space_busy", lang, minutes=decision.retry_after_minutes)
        limit = self.replays.runs_per_hour
        return t("replay_budget_exceeded", lang, limit=limit, minutes=decision.retry_after_minutes)

    def _count(self, key: str, payer: Payer, lang: str) -> int | str | None:
        """Count the run against the Space and the visitor: the model tokens reserved (None when the
        visitor pays the model), or the refusal's text with nothing counted."""
        quotas = self.quotas
        owner_paid = quotas is not None and (payer.owner_model or payer.owner_github)
        if quotas is not None and owner_paid and not quotas.runs.take(1):
            return self._space_refusal("runs", quotas.runs.retry_after(), lang)
        tokens: int | None = None
        if quotas is not None and payer.owner_model:
            tokens = quotas.tokens.take_up_to(self.settings.max_total_tokens)
            if tokens < 1:
                quotas.runs.refund(1)
                return self._space_refusal("tokens", quotas.tokens.retry_after(), lang)
        decision = self.runs.try_start(key)
        if not decision.allowed:
            if quotas is not None and owner_paid:
                quotas.runs.refund(1)
            if quotas is not None and tokens:
                quotas.tokens.refund(tokens)
            if decision.busy:
                return t("space_busy", lang, minutes=decision.retry_after_minutes)
            limit = self.runs.runs_per_hour
            return t("budget_exceeded", lang, limit=limit, minutes=decision.retry_after_minutes)
        return tokens

    def _space_refusal(self, what: str, wait: float, lang: str) -> str:
        return t(f"space_{what}_exhausted", lang, minutes=max(1, math.ceil(wait / 60)))

    def release(self, admission: Admission, *, tokens_used: int) -> None:
        """The run ended (finished, failed, stopped or abandoned): settle its model tokens."""
        self._unmark(admission.key)
        if admission.tokens is None or self.quotas is None or not self.enforced:
            return
        if tokens_used < admission.tokens:
            self.quotas.tokens.refund(admission.tokens - tokens_used)
        else:
            self.quotas.tokens.charge(tokens_used - admission.tokens)

    def _mark(self, key: str) -> bool:
        """``key`` starts a run or replay, unless one of its own is running (one at a time per visitor)."""
        with self._lock:
            if key in self._running:
                return False
            self._running.add(key)
            return True

    def _unmark(self, key: str) -> None:
        with self._lock:
            self._running.discard(key)

    def use_tool(self, key: str, *, lang: str = "en") -> str | None:
        """Count one public tool call; the refusal's text when over the visitor's budget."""
        if not self.enforced:
            return None
        decision = self.tools.try_start(key)
        if decision.allowed:
            return None
        if decision.busy:
            return t("space_busy", lang, minutes=decision.retry_after_minutes)
        return t(
            "tool_budget_exceeded", lang, limit=self.tools.runs_per_hour, minutes=decision.retry_after_minutes
        )

    def status(self, key: str | None, payer: Payer, lang: str = "en") -> str | None:
        """What is left this hour, for the status line (hosted mode only): the visitor's runs and, of
        what the owner pays, the Space's runs, model tokens and GitHub requests."""
        if not self.enforced:
            return None
        parts = []
        if key is not None:
            parts.append(t("allowance_visitor", lang, runs=max(0, self.runs.remaining(key))))
        quotas = self.quotas
        if quotas is not None and (payer.owner_model or payer.owner_github):
            parts.append(t("allowance_space_runs", lang, runs=quotas.runs.remaining()))
            if payer.owner_model:
                parts.append(t("allowance_space_tokens", lang, tokens=f"{quotas.tokens.remaining():,}"))
            if payer.owner_github:
                parts.append(t("allowance_space_github", lang, requests=f"{quotas.github.remaining():,}"))
        return t("allowance", lang) + ", ".join(parts) if parts else None
