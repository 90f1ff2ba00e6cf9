"""Section 3, context: the wide plan's peak prompt, with and without compaction, against the budget.

The wide plan reads 25 files of about 9,000 characters. With ``READ_FILE_MAX_CHARS`` and
``OBSERVATION_MAX_CHARS`` raised so each file reaches the model whole, the conversation outgrows the
default ``CONTEXT_BUDGET_TOKENS`` (60,000) before the report turn. It runs twice: with that budget
(compaction on), and with a budget so large that compaction never triggers.

Prompt tokens are counted on what the model server actually received: every request's ``messages``,
tokenised with the project's own estimator (:func:`agent_core.llm.estimate_messages`). The scripted
model reports that same count as its ``usage`` (see :func:`bench.plans.plan_responder`), so the loop's
usage-anchored budgeting sees what a real API would report. Tool schemas sent alongside are counted
separately: the budget covers messages only.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

from agent_core.agent.context import COMPACTED_MARK
from agent_core.agent.model_turn import fitting_budget
from agent_core.llm import estimate_messages
from agent_core.llm.tokens import estimate_tokens
from agent_core.settings import Settings
from bench.config import BenchConfig
from bench.plans import PlanRun, run_plan, wide_plan, wide_repo, widgets
from bench.table import Metric, Section

READ_LIMITS = {"read_file_max_chars": 10_000, "observation_max_chars": 12_000}
NEVER = 10**9  # a window no analysis fills: compaction off


@dataclass(frozen=True)
class Peak:
    tokens: int  # the largest request (messages and tool schemas), by the project's estimator
    turn: int  # 1-based request number where it happened
    compacted: int  # observations replaced by a note in the last request
    observations: int  # observations in the last request
    schema_tokens: int  # tool schemas sent alongside (counted in the request, and in the budget)
    billed: int  # prompt tokens of the whole run, from the usage the model reported


def peak(run: PlanRun) -> Peak:
    tools = (run.chat_requests[0].body or {}).get("tools", [])
    schema = estimate_tokens(json.dumps(tools))
    sizes = [
        estimate_messages(r.messages) + (schema if (r.body or {}).get("tools") else 0)
        for r in run.chat_requests
    ]
    top = max(range(len(sizes)), key=sizes.__getitem__)
    last = run.chat_requests[-1]
    observations = [str(m.get("content", "")) for m in last.messages if m.get("role") == "tool"]
    return Peak(
        tokens=sizes[top],
        turn=top + 1,
        compacted=sum(COMPACTED_MARK in text for text in observations),
        observations=len(observations),
        schema_tokens=estimate_tokens(json.dumps(tools)),
        billed=run.finished.stats.prompt_tokens,
    )


WINDOW = 64_000  # a model's context window, as LLM_CONTEXT_WINDOW would set it


async def measure_async(config: BenchConfig, workdir: Path) -> Section:
    budget = fitting_budget(WINDOW, Settings().llm_max_tokens)
    repo = wide_repo(workdir, seed=config.seed)
    peaks: dict[str, Peak] = {}
    with widgets(repo, latency=0.0) as emu:  # token counts do not depend on latency
        for label, window in (("on", WINDOW), ("off", NEVER)):
            run = await run_plan(
                emu,
                wide_plan(),
                workdir / f"compaction-{label}" / "cache",
                model_latency=0.0,
                llm_context_window=window,
                **READ_LIMITS,
            )
            peaks[label] = peak(run)
    on, off = peaks["on"], peaks["off"]
    metrics = [
        Metric(name=f"budget (a {WINDOW:,}-token window less the reply)", value=budget, unit="tokens"),
        Metric(
            name="wide plan peak prompt, compaction on",
            value=on.tokens,
            unit="tokens",
            target=f"≤ {budget:,}",
            met=on.tokens <= budget,
            note=f"request {on.turn} of {len(wide_plan())}",
        ),
        Metric(
            name="wide plan peak prompt, compaction off",
            value=off.tokens,
            unit="tokens",
            note=f"request {off.turn}; {off.tokens / budget:.2f}x the budget",
        ),
        Metric(name="observations compacted (compaction on)", value=f"{on.compacted} of {on.observations}"),
    ]
    notes = [
        f"wide plan: 25 files read 5 per turn, {READ_LIMITS}; tokens by agent_core.llm.estimate_messages "
        f"on the requests the model server received, plus the tool schemas (~{on.schema_tokens:,} tokens "
        "per request, inside the budget)",
        f"usage (the scripted model reports the same estimate): prompt tokens of the whole run "
        f"{on.billed:,} with compaction, {off.billed:,} without",
    ]
    return Section(key="context", title="Context", metrics=metrics, notes=notes)


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(measure_async(config, workdir))
