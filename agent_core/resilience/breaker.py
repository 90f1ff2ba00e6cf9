"""Circuit breakers: stop calling a failing dependency for a while, then let one probe find out.

::

    CLOSED ──(failure_threshold consecutive failures)──▶ OPEN
      ▲                                                   │ open_seconds pass; the next acquire()
      │ probe succeeded                                   ▼ takes the single probe
      └──────────────────────────────────────────── HALF_OPEN ──(probe failed)──▶ OPEN, fresh timer
                                                    (probe ignored: stays HALF_OPEN, probe released)

Contracts and the choices behind them:

* **Outcomes.** Every permit records exactly one :class:`Outcome`. ``FAILURE`` counts toward opening,
  ``SUCCESS`` resets the count, ``IGNORED`` (a 404, a bad argument, a cancellation) is neither: it says
  nothing about the dependency's health. ``asyncio.CancelledError`` is always ``IGNORED``.
* **Time is injected.** The breaker reads ``clock.monotonic()`` and never sleeps.
* **State changes only when a call arrives.** An OPEN breaker whose timer has run out still reports
  ``OPEN`` (with ``snapshot().retry_after == 0.0``: a probe is due) until ``acquire()`` takes the probe.
  So every state change happens at one known moment and produces exactly one :class:`StateChange`.
* **Late outcomes are dropped.** Each state period has a generation number and a permit remembers the
  one it was issued in. An outcome from an earlier period (a call that started before the breaker
  opened and failed after) is logged and ignored: it describes the dependency as it was before the
  breaker decided, so it can neither re-open the breaker, extend its timer, nor close it.
* **Concurrency.** Meant for one asyncio event loop: no state change awaits, so none needs a lock.
  Not thread-safe.
* **Listeners** are called synchronously after each change; one that raises is logged and skipped.
* **No globals.** Breakers live in a :class:`BreakerBoard` owned by whoever builds the tools, so two
  sessions or two tests never share one.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from agent_core.clock import Clock
from agent_core.errors import AgentCoreError, CircuitOpenError, InternalError

logger = logging.getLogger(__name__)

T = TypeVar("T")

_MAX_ERROR_TEXT = 200


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class Outcome(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    IGNORED = "ignored"


Classifier = Callable[[BaseException], Outcome]
"""How an exception counts. Never consulted for ``CancelledError``, which is always ``IGNORED``."""


@dataclass(frozen=True, kw_only=True)
class BreakerConfig:
    failure_threshold: int
    """Consecutive failures that open a closed breaker."""
    open_seconds: float
    """How long an open breaker refuses before it lets one probe through."""

    def __post_init__(self) -> None:
        if self.failure_threshold < 1:
            raise ValueError(f"failure_threshold must be >= 1, got {self.failure_threshold}")
        if self.open_seconds < 0:
            raise ValueError(f"open_seconds must be >= 0, got {self.open_seconds}")


@dataclass(frozen=True, kw_only=True)
class BreakerName:
    """What a breaker guards: a ``source`` ("github", "local", "model") and a ``subject`` in it (a tool,
    a model endpoint; "" for the source as a whole). Its text, ``github:read_file``, is built here and
    nowhere else, and never split again: whoever needs the parts reads them from the snapshot or event."""

    source: str
    subject: str = ""

    def __str__(self) -> str:
        return f"{self.source}:{self.subject}" if self.subject else self.source


@dataclass(frozen=True, kw_only=True)
class StateChange:
    """One transition, as told to listeners."""

    name: str
    old: BreakerState
    new: BreakerState
    reason: str
    """Human words, e.g. "3 consecutive failures: HTTP 503" or "probe failed: timeout"."""
    at: float
    """``clock.monotonic()`` at the change."""
    source: str = ""  # the parts of a :class:`BreakerName` ("" for a breaker named by a plain string)
    subject: str = ""


@dataclass(frozen=True, kw_only=True)
class BreakerSnapshot:
    name: str
    state: BreakerState
    failures: int
    """Consecutive failures counted so far (reset by a success)."""
    last_error: str | None
    """Short text of the last failure; kept after the breaker closes again."""
    retry_after: float
    """Seconds until the next probe is allowed; 0.0 unless OPEN."""
    source: str = ""  # the parts of a :class:`BreakerName` ("" for a breaker named by a plain string)
    subject: str = ""


Listener = Callable[[StateChange], None]


class Permit:
    """The right to make one call through a breaker; record its outcome exactly once.

    Obtained from :meth:`CircuitBreaker.acquire`. Recording twice raises :class:`InternalError`.
    A permit that is never recorded holds a half-open probe forever: prefer :meth:`CircuitBreaker.call`.
    """

    def __init__(self, breaker: CircuitBreaker, generation: int) -> None:
        self._breaker = breaker
        self._generation = generation
        self._recorded = False

    def success(self) -> None:
        self.record(Outcome.SUCCESS)

    def failure(self, error: BaseException | str) -> None:
        self.record(Outcome.FAILURE, error)

    def ignore(self) -> None:
        self.record(Outcome.IGNORED)

    def record(self, outcome: Outcome, error: BaseException | str | None = None) -> None:
        """Record ``outcome``; ``error`` is kept (as short text) for failures only."""
        if self._recorded:
            raise InternalError(f"a permit of breaker '{self._breaker.name}' was recorded twice")
        self._recorded = True
        self._breaker._settle(self._generation, outcome, error)


class CircuitBreaker:
    """One breaker, usually one per tool. See the module docstring for the contract."""

    def __init__(
        self,
        name: BreakerName | str,
        *,
        config: BreakerConfig,
        clock: Clock,
        listeners: Sequence[Listener] = (),
    ) -> None:
        self.name = str(name)
        self._parts = (
            {"source": name.source, "subject": name.subject} if isinstance(name, BreakerName) else {}
        )
        self._config = config
        self._clock = clock
        self._listeners: list[Listener] = list(listeners)
        self._state = BreakerState.CLOSED
        self._generation = 0
        self._failures = 0
        self._last_error: str | None = None
        self._opened_at = 0.0
        self._probe_taken = False

    @property
    def state(self) -> BreakerState:
        """The current state; an OPEN breaker stays OPEN until a call takes the probe (module docstring)."""
        return self._state

    def snapshot(self) -> BreakerSnapshot:
        return BreakerSnapshot(
            name=self.name,
            state=self._state,
            failures=self._failures,
            last_error=self._last_error,
            retry_after=self._open_remaining() if self._state is BreakerState.OPEN else 0.0,
            **self._parts,
        )

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every state change; returns a function that removes it."""
        self._listeners.append(listener)
        return lambda: _remove(self._listeners, listener)

    def acquire(self) -> Permit:
        """A permit for one call, or :class:`CircuitOpenError` at once.

        Refuses while OPEN (``retry_after`` = time left) and while HALF_OPEN with the probe taken
        (``retry_after`` = 0.0: the probe in flight decides, try again shortly).
        """
        if self._state is BreakerState.OPEN:
            remaining = self._open_remaining()
            if remaining > 0:
                raise CircuitOpenError(self.name, retry_after=remaining, last_error=self._last_error)
            open_for = self._clock.monotonic() - self._opened_at
            self._transition(BreakerState.HALF_OPEN, f"open for {open_for:.0f}s; probing")
        if self._state is BreakerState.HALF_OPEN:
            if self._probe_taken:
                raise CircuitOpenError(self.name, retry_after=0.0, last_error=self._last_error)
            self._probe_taken = True
        return Permit(self, self._generation)

    async def call(self, fn: Callable[[], Awaitable[T]], *, classify: Classifier) -> T:
        """Acquire a permit, await ``fn()``, record how it went, return its result or re-raise.

        Anything other than a return or a classified ``Exception`` (a cancellation, a classifier that
        raises) is recorded as IGNORED, so the permit is always released.
        """
        permit = self.acquire()
        outcome, error = Outcome.IGNORED, None
        try:
            result = await fn()
        except Exception as exc:
            error = exc
            outcome = classify(exc)
            raise
        else:
            outcome = Outcome.SUCCESS
            return result
        finally:
            permit.record(outcome, error)

    def _settle(self, generation: int, outcome: Outcome, error: BaseException | str | None) -> None:
        if generation != self._generation:
            logger.debug("breaker %s: dropped a late %s from an earlier state", self.name, outcome)
            return
        # Permits are only issued while CLOSED or (the probe) HALF_OPEN, so those are the two cases.
        match self._state, outcome:
            case _, Outcome.IGNORED:
                # Says nothing about health; if this was the half-open probe, the next caller may probe.
                self._probe_taken = False
            case BreakerState.CLOSED, Outcome.SUCCESS:
                self._failures = 0
            case BreakerState.CLOSED, Outcome.FAILURE:
                self._count_failure(error)
                if self._failures >= self._config.failure_threshold:
                    self._transition(
                        BreakerState.OPEN, f"{self._failures} consecutive failures: {self._last_error}"
                    )
            case BreakerState.HALF_OPEN, Outcome.SUCCESS:
                self._failures = 0
                self._transition(BreakerState.CLOSED, "probe succeeded")
            case BreakerState.HALF_OPEN, Outcome.FAILURE:
                self._count_failure(error)
                self._transition(BreakerState.OPEN, f"probe failed: {self._last_error}")
            case _:
                raise InternalError(f"breaker '{self.name}' got {outcome} while {self._state}")

    def _count_failure(self, error: BaseException | str | None) -> None:
        self._failures += 1
        self._last_error = _short_text(error)

    def _open_remaining(self) -> float:
        return max(0.0, self._opened_at + self._config.open_seconds - self._clock.monotonic())

    def _transition(self, new: BreakerState, reason: str) -> None:
        old, now = self._state, self._clock.monotonic()
        self._state = new
        self._generation += 1
        self._probe_taken = False
        if new is BreakerState.OPEN:
            self._opened_at = now
        log = logger.warning if new is BreakerState.OPEN else logger.info
        log("breaker %s: %s -> %s (%s)", self.name, old, new, reason)
        _notify(
            self._listeners,
            StateChange(name=self.name, old=old, new=new, reason=reason, at=now, **self._parts),
        )


class BreakerBoard:
    """The breakers of one session, by name (one per tool), created on first use.

    Every breaker shares the board's config and clock; board subscribers hear every breaker's changes,
    including breakers created after they subscribed.
    """

    def __init__(self, *, config: BreakerConfig, clock: Clock) -> None:
        self._config = config
        self._clock = clock
        self._breakers: dict[str, CircuitBreaker] = {}
        self._listeners: list[Listener] = []

    def get(self, name: BreakerName | str) -> CircuitBreaker:
        breaker = self._breakers.get(str(name))
        if breaker is None:
            breaker = CircuitBreaker(name, config=self._config, clock=self._clock, listeners=(self._publish,))
            self._breakers[str(name)] = breaker
        return breaker

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Hear every change of every breaker on this board; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: _remove(self._listeners, listener)

    def snapshot(self) -> list[BreakerSnapshot]:
        """Every breaker, in creation order."""
        return [breaker.snapshot() for breaker in self._breakers.values()]

    def names(self) -> list[str]:
        return list(self._breakers)

    def _publish(self, change: StateChange) -> None:
        _notify(self._listeners, change)


def _notify(listeners: Iterable[Listener], change: StateChange) -> None:
    # A copy, so a listener may unsubscribe itself while being called.
    for listener in tuple(listeners):
        try:
            listener(change)
        # A broken listener (a UI, a metrics hook) must not break the breaker: log and go on.
        except Exception:
            logger.exception("breaker %s: listener %r failed", change.name, listener)


def _remove(listeners: list[Listener], listener: Listener) -> None:
    """Remove ``listener`` if still there; unsubscribing twice is harmless."""
    if listener in listeners:
        listeners.remove(listener)


def _short_text(error: BaseException | str | None) -> str:
    """Text that is safe to show and to log: our own errors' messages, other errors' type names only.

    Third-party messages can carry URLs, headers or tokens; ours are built from validated inputs.
    """
    if error is None:
        text = "unspecified failure"
    elif isinstance(error, str):
        text = error
    elif isinstance(error, AgentCoreError):
        text = str(error) or type(error).__name__
    else:
        text = type(error).__name__
    return text[:_MAX_ERROR_TEXT]
