"""Bookkeeping of one run: its counters, the guardrail checks, the stats and the data problems.

Pure functions over a :class:`RunState` and the run's tool results, so the loop stays about control flow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_core import events as ev
from agent_core.github.ratelimit import RateLimit
from agent_core.llm.parts import Usage
from agent_core.llm.prices import CostRange
from agent_core.offload import CPU_SECONDS
from agent_core.tools.results import ToolResult


@dataclass(frozen=True, kw_only=True)
class RunLimits:
    """The guardrails of a run (from Settings: :func:`agent_core.top.wiring.run_limits`)."""

    max_turns: int
    max_tool_calls: int
    max_total_tokens: int
    max_wall_seconds: float
    observation_max_chars: int
    max_cpu_seconds: float = CPU_SECONDS  # in the worker threads (agent_core.offload), per run


@dataclass(frozen=True, kw_only=True)
class Added:
    """What one step adds to its run, as a value in the step's stream: the tokens of a model call, the
    results of a turn of tool calls, a reason the report is degraded, why the model failed, a turn no
    model took. The run's loop folds each into a new :class:`RunState` (:meth:`RunState.add`); no step
    writes the state."""

    usage: Usage | None = None
    results: tuple[ToolResult, ...] = ()
    degraded: tuple[str, ...] = ()
    failure: ev.Diagnosis | None = None
    free_turns: int = 0


@dataclass(frozen=True, kw_only=True)
class RunState:
    """What one run (a question or a follow-up) has added up so far; the conversation outlives it.
    Frozen: the loop replaces it with ``state.add(added)``."""

    started: float
    turn_base: int
    earlier: tuple[ToolResult, ...] = ()  # the tool results of the analysis's earlier runs
    results: tuple[ToolResult, ...] = ()  # this run's
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0  # of prompt_tokens, served from the provider's prompt cache
    free_turns: int = 0  # turns no model took (the prefetch): not counted against the turn limit
    degraded: tuple[str, ...] = ()
    model_failure: ev.Diagnosis | None = None  # why the model wrote no report, when it failed

    def add(self, added: Added) -> RunState:
        """This state with what a step added (tokens as the endpoint reported them)."""
        usage = added.usage
        return replace(
            self,
            results=self.results + added.results if added.results else self.results,
            prompt_tokens=self.prompt_tokens + (usage.prompt_tokens if usage else 0),
            completion_tokens=self.completion_tokens + (usage.completion_tokens if usage else 0),
            cached_prompt_tokens=self.cached_prompt_tokens
            + (min(usage.cached_prompt_tokens, usage.prompt_tokens) if usage else 0),
            free_turns=self.free_turns + added.free_turns,
            degraded=self.degraded + added.degraded if added.degraded else self.degraded,
            model_failure=added.failure if added.failure is not None else self.model_failure,
        )

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def all_results(self) -> tuple[ToolResult, ...]:
        """Every tool result of the analysis so far: the earlier runs' and this one's."""
        return self.earlier + self.results


def cut_usage(*, prompt_tokens: int, written: int, cached: int = 0) -> Usage:
    """The tokens of a turn cut before the server's usage chunk (the run's time limit, a broken
    stream): the prompt it was sent (the server's count where it gave one, else the estimate), of which
    ``cached`` came from the server's cache (its progress says), and what the model had written.
    Without it a run cut by its deadline said "0+0 tokens"."""
    prompt = max(0, prompt_tokens)
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=max(0, written),
        cached_prompt_tokens=min(max(0, cached), prompt),
    )


def limit_reached(
    limits: RunLimits, *, turns: int, tool_calls: int, tokens: int, elapsed: float, cpu: float = 0.0
) -> str | None:
    """Which guardrail stops exploration, in words, or None. ``cpu``: the CPU seconds the run's steps
    spent in the worker threads (:class:`agent_core.offload.CpuAccount`)."""
    if turns >= limits.max_turns:
        return f"the turn limit ({limits.max_turns}) was reached"
    if tool_calls >= limits.max_tool_calls:
        return f"the tool-call limit ({limits.max_tool_calls}) was reached"
    if tokens >= limits.max_total_tokens:
        return f"the token budget ({limits.max_total_tokens:,}) was used up"
    if elapsed >= limits.max_wall_seconds:
        return f"the time limit ({limits.max_wall_seconds:.0f}s) was reached"
    return cpu_limit_reached(limits, cpu)


def cpu_limit_reached(limits: RunLimits, cpu: float) -> str | None:
    """The CPU budget, in words, once the run's steps spent it (the cause named: the repository's size)."""
    if cpu >= limits.max_cpu_seconds:
        return f"the CPU budget ({limits.max_cpu_seconds:.0f} CPU-s of repository processing) was spent"
    return None


def data_problems(results: Sequence[ToolResult]) -> list[str]:
    """What the report must admit: calls answered from stale cache, or not at all."""
    problems = []
    for r in results:
        what = f"{r.tool}({short_args(r.arguments)})"
        if r.degraded:
            problems.append(f"{what}: no data ({r.error})")
        elif r.stale:
            age = f"{r.stale_age_s / 60:.0f} min old" if r.stale_age_s is not None else "age unknown"
            problems.append(f"{what}: served from cache ({age}) because {r.error}")
    return problems


def run_stats(
    state: RunState,
    results: Sequence[ToolResult],
    *,
    turns: int,
    elapsed: float,
    cost: CostRange | None,
    rate_limit: RateLimit | None,
) -> ev.RunStats:
    """The run's stats; ``cost`` None when the model's price is unknown."""
    return ev.RunStats(
        turns=turns,
        tool_calls=len(results),
        github_requests=sum(r.http_requests for r in results),
        cache_hits=sum(1 for r in results if r.from_cache or r.memo),
        prompt_tokens=state.prompt_tokens,
        completion_tokens=state.completion_tokens,
        cached_prompt_tokens=state.cached_prompt_tokens,
        cost_parts=cost.parts if cost is not None else (),
        cost_usd=cost.high_usd if cost is not None else None,
        cost_low_usd=cost.low_usd if cost is not None else None,
        prices_as_of=cost.as_of if cost is not None else None,
        local=cost is not None and cost.local,
        elapsed_s=elapsed,
        rate_limit_remaining=rate_limit.remaining if rate_limit else None,
        rate_limit_reset=rate_limit.reset_at if rate_limit else None,
    )


def short_args(arguments: Mapping[str, Any]) -> str:
    parts = [str(v) for k, v in arguments.items() if k not in ("owner", "repo")]
    return ", ".join(parts)[:60]
