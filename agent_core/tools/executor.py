"""Executing one tool call: check, scope, memo, then retry ⟶ breaker ⟶ source, then fallback.

This is where the three layers of protection meet::

    execute(call)
      ├─ arguments parsed and checked; repository in scope?      else: an observation saying why
      ├─ identical call earlier in this run?                     answered from the run's memo
      └─ timeout(tool_timeout):
           call_with_retry(                                       layer 1: backoff + full jitter,
               breaker[source:tool].call(source.method(...)))     layer 2: a breaker per source and tool
      on TransientError / CircuitOpenError / RateLimitError / timeout:
           stale copy of the source (the persistent cache, any age)   layer 3: fallback, marked stale
           or a structured degraded result the model can explain      (ok: false, degraded: true)

The tool wrapper is one of the two places where a broad ``except Exception`` is allowed: a bug in a
tool becomes an error observation, never a crashed run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from agent_core.clock import Clock
from agent_core.cost import FREE, CallCost
from agent_core.errors import (
    AgentCoreError,
    CacheMissError,
    CircuitOpenError,
    GitHubError,
    InvalidArgumentError,
    NotFoundError,
    OutOfScopeError,
    RateLimitError,
    TransientError,
    UserInputError,
)
from agent_core.llm.scan import JSONLimitError, loads
from agent_core.repo import Renames, RepoRef
from agent_core.resilience import BreakerBoard, BreakerState, RetryDetails, RetryPolicy, call_with_retry
from agent_core.sources.base import RepoSource
from agent_core.tools.failures import FailureMemory, breaker_key, classify, failure_reason
from agent_core.tools.registry import (
    BY_NAME,
    GET_REPO_INFO,
    ToolCall,
    ToolLimits,
    ToolOutput,
    ToolSpec,
    tool_schemas,
)
from agent_core.tools.results import ToolResult

logger = logging.getLogger(__name__)


RetryListener = Callable[[str, str, RetryDetails], None]


class FaultInjector(Protocol):
    """Chaos mode's seam: called before each attempt reaches a source; raises the fault it injects
    (a :class:`TransientError`, a :class:`RateLimitError`) or returns to let the attempt through."""

    def before_call(self, tool: str, source: str) -> None: ...


@dataclass(frozen=True, kw_only=True)
class ToolboxConfig:
    """How hard the toolbox tries (from Settings: :func:`agent_core.top.wiring.toolbox_config`)."""

    retry: RetryPolicy
    rate_limit_max_wait: float
    tool_timeout: float
    limits: ToolLimits


class Toolbox:
    """The tools of one run: bound to the repositories the user named, and to this run's breakers."""

    def __init__(
        self,
        *,
        sources: Mapping[str, RepoSource],
        scope: Sequence[RepoRef],
        breakers: BreakerBoard,
        clock: Clock,
        config: ToolboxConfig,
        rng: Callable[[], float] = random.random,
        on_retry: RetryListener | None = None,
        faults: FaultInjector | None = None,
        renames: Renames | None = None,
    ) -> None:
        self._sources = {key.lower(): source for key, source in sources.items()}
        self._scope = {repo.key(): repo for repo in scope}
        self._renames = renames if renames is not None else Renames()  # shared with the GitHub client
        self._breakers = breakers
        self._clock = clock
        self._config = config
        self._rng = rng
        self._on_retry = on_retry
        self._faults = faults
        self._memo: dict[str, ToolResult] = {}
        self._inflight: dict[str, asyncio.Future[ToolResult]] = {}
        self._failures = FailureMemory()

    @staticmethod
    def schemas() -> list[dict[str, Any]]:
        return tool_schemas()

    def add_alias(self, alias: str, target: RepoRef) -> None:
        """A rename learned during the run: the new name reads the same repository."""
        if target.key() in self._scope:
            self._renames.learn_name(target, alias)

    async def execute(self, call_id: str, tool: str, arguments: str | Mapping[str, Any] | None) -> ToolResult:
        """Run one call; never raises except on cancellation."""
        started = self._clock.monotonic()
        spec = BY_NAME.get(tool)
        if spec is None:
            known = ", ".join(BY_NAME)
            return self._refused(call_id, tool, {}, f"unknown tool '{tool}'; the tools are: {known}", started)
        try:
            parsed = _parse_arguments(arguments)
            call = spec.check(parsed)
            repo_key = self._in_scope(call.repo)
        except UserInputError as exc:
            raw = arguments if isinstance(arguments, Mapping) else {"raw": str(arguments)[:200]}
            return self._refused(call_id, tool, raw, exc.message, started)
        call = replace(call, repo=self._scope[repo_key])
        memo_key = call.memo_key()
        if memo_key in self._memo:
            earlier = self._memo[memo_key]
            return replace(
                earlier,
                call_id=call_id,
                memo=True,
                from_cache=True,
                http_requests=0,
                attempts=0,
                duration_s=self._clock.monotonic() - started,
            )
        pending = self._inflight.get(memo_key)
        if pending is not None:  # the same call is running in parallel: share its answer
            earlier = await asyncio.shield(pending)
            return replace(earlier, call_id=call_id, memo=True, http_requests=0, attempts=0)
        future: asyncio.Future[ToolResult] = asyncio.get_running_loop().create_future()
        self._inflight[memo_key] = future
        try:
            result = await self._run(call_id, spec, call, self._sources[repo_key], started)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()
            raise
        finally:
            self._inflight.pop(memo_key, None)
        future.set_result(result)
        if result.ok and not result.stale:
            self._memo[memo_key] = result
        return result

    def _in_scope(self, repo: RepoRef) -> str:
        key = self._renames.typed(repo.key())
        if key not in self._scope:
            named = ", ".join(r.full_name for r in self._scope.values())
            raise OutOfScopeError(
                f"{repo.full_name} is not one of the repositories named for this analysis ({named}); "
                "only those can be read"
            )
        return key

    async def _run(
        self, call_id: str, spec: ToolSpec, call: ToolCall, source: RepoSource, started: float
    ) -> ToolResult:
        attempts = 0
        spent = FREE  # what failed attempts cost: each failure says how many requests it made
        key = breaker_key(source.kind, spec.name)
        breaker = self._breakers.get(key)

        async def guarded() -> ToolOutput:
            if self._faults is not None:
                self._faults.before_call(spec.name, source.kind)
            return await spec.run(source, call, self._config.limits)

        async def attempt() -> ToolOutput:
            nonlocal attempts, spent
            attempts += 1
            try:
                return await breaker.call(guarded, classify=classify)
            except GitHubError as exc:
                spent += CallCost(requests=exc.requests)
                self._failures.saw(exc, key)
                raise

        def on_retry(details: RetryDetails) -> None:
            if self._on_retry is not None:
                self._on_retry(call_id, spec.name, details)

        base = ToolResult(
            call_id=call_id,
            tool=spec.name,
            arguments=dict(call.args) | _repo_args(call),
            ok=False,
            observation={},
            repo=call.repo,
        )
        try:
            async with asyncio.timeout(self._config.tool_timeout):
                output = await call_with_retry(
                    attempt,
                    policy=self._config.retry,
                    retry_on=lambda error: (
                        None if breaker.state is BreakerState.OPEN else self._retry_on(error)
                    ),
                    clock=self._clock,
                    rng=self._rng,
                    on_retry=on_retry,
                )
            self._learn_alias(call, output.value)
            return replace(
                base,
                ok=True,
                observation=output.observation,
                value=output.value,
                attempts=attempts,
                **self._costs(spent + output.cost, started),
            )
        except (TransientError, CircuitOpenError, RateLimitError, TimeoutError) as exc:
            base = replace(base, **self._failures.diagnose(exc, key))
            return await self._fallback(
                base=base,
                spec=spec,
                call=call,
                source=source,
                exc=exc,
                spent=spent,
                attempts=attempts,
                started=started,
            )
        except AgentCoreError as exc:  # 404, 403, bad arguments...: GitHub is fine, the call is not
            what = f"{call.repo.full_name}" + (f": '{call.args['path']}'" if call.args.get("path") else "")
            message = f"{what} {exc.message}" if isinstance(exc, NotFoundError) else exc.message
            base = replace(base, **self._failures.diagnose(exc, key))
            return self._failed(base, message, exc.hint, attempts=attempts, costs=self._costs(spent, started))
        except Exception as exc:  # the marked edge: a tool bug becomes an error observation
            logger.exception("tool %s failed unexpectedly", spec.name)
            message = f"internal error in {spec.name}: {type(exc).__name__}"
            return self._failed(base, message, None, attempts=attempts, costs=self._costs(spent, started))

    @staticmethod
    def _failed(
        base: ToolResult, message: str, hint: str | None, *, attempts: int, costs: dict[str, Any]
    ) -> ToolResult:
        observation = {"ok": False, "error": message} | ({"hint": hint} if hint else {})
        return replace(base, ok=False, observation=observation, attempts=attempts, error=message, **costs)

    async def _fallback(
        self,
        *,
        base: ToolResult,
        spec: ToolSpec,
        call: ToolCall,
        source: RepoSource,
        exc: BaseException,
        spent: CallCost,
        attempts: int,
        started: float,
    ) -> ToolResult:
        reason = failure_reason(exc)
        hint = getattr(exc, "hint", None) or "the data may be available again shortly"
        stale_source = source.stale_copy()
        if stale_source is not None:
            try:
                output = await spec.run(stale_source, call, self._config.limits)
            except (CacheMissError, AgentCoreError):
                pass
            else:
                age = output.cost.stale_age_s
                observation = {
                    "stale": True,
                    "age_seconds": round(age) if age is not None else None,
                    "why": reason,
                } | output.observation
                return replace(
                    base,
                    ok=True,
                    observation=observation,
                    value=output.value,
                    attempts=attempts,
                    stale=True,
                    stale_age_s=age,
                    error=reason,
                    **self._costs(spent + output.cost, started),
                )
        observation = {"ok": False, "degraded": True, "reason": reason, "hint": hint}
        return replace(
            base,
            ok=False,
            observation=observation,
            attempts=attempts,
            degraded=True,
            error=reason,
            **self._costs(spent, started),
        )

    def _retry_on(self, error: BaseException) -> bool | float | None:
        if isinstance(error, TransientError):
            return True
        if isinstance(error, RateLimitError) and error.retry_after is not None:
            return error.retry_after if error.retry_after <= self._config.rate_limit_max_wait else None
        return None

    def _learn_alias(self, call: ToolCall, value: Any) -> None:
        full_name = getattr(value, "full_name", None)
        if call.tool == GET_REPO_INFO and isinstance(full_name, str):
            self.add_alias(full_name, call.repo)

    def _costs(self, cost: CallCost, started: float) -> dict[str, Any]:
        return {
            "duration_s": self._clock.monotonic() - started,
            "http_requests": cost.requests,
            "from_cache": cost.from_cache,
        }

    def _refused(
        self, call_id: str, tool: str, arguments: Mapping[str, Any], message: str, started: float
    ) -> ToolResult:
        return ToolResult(
            call_id=call_id,
            tool=tool,
            arguments=dict(arguments),
            ok=False,
            observation={"ok": False, "error": message},
            error=message,
            duration_s=self._clock.monotonic() - started,
        )


def _parse_arguments(arguments: str | Mapping[str, Any] | None) -> Mapping[str, Any]:
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, Mapping):
        return arguments
    try:
        data = loads(arguments)  # the model's text: capped in length and nesting (llm/scan.py)
    except JSONLimitError as exc:
        raise InvalidArgumentError(f"the arguments were not read: {exc}; send a flat JSON object") from exc
    except json.JSONDecodeError as exc:
        raise InvalidArgumentError(
            f"the arguments are not valid JSON ({exc.msg} at position {exc.pos}); send a JSON object"
        ) from exc
    if not isinstance(data, dict):
        raise InvalidArgumentError("the arguments must be a JSON object")
    return data


def _repo_args(call: ToolCall) -> dict[str, Any]:
    return {"owner": call.repo.owner, "repo": call.repo.name}
