"""Section 1, overhead: how close an analysis's wall time comes to its critical path.

For each plan, parallel and with ``PARALLEL_TOOL_CALLS=false``, ``config.runs`` cold runs each (a new
HTTP cache every run). Per run, from the run's own events:

* wall: ``RunFinished.stats.elapsed_s``;
* critical path: Σ over turns of (the turn's *measured* model duration, ``TurnFinished.duration_s``,
  + the slowest ``ToolCallFinished.duration_s`` of that turn). Both parts are measured, so the ratio
  shows what the loop adds between and around them, not how fast the servers were;
* ideal path: Σ over turns of (configured model latency + configured GitHub latency × the requests
  of that turn that had to run one after another, read from the emulator's log: e.g. the file tree
  needs the default branch from the repository's info, so turn 1 is two requests deep): what the
  run would take if nothing but the two servers' configured latencies cost time.

Medians are reported; the speed-up is median sequential wall / median parallel wall.
"""

from __future__ import annotations

import asyncio
import bisect
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from agent_core import events as ev
from bench.config import BenchConfig
from bench.plans import PlanRun, realistic_plan, run_plan, sample_repo, wide_plan, wide_repo, widgets
from bench.table import Metric, Section
from testing.emulator.github import RecordedRequest

TARGET = 1.05


@dataclass(frozen=True)
class Timing:
    wall: float
    critical: float
    ideal: float


def depth(requests: list[RecordedRequest]) -> int:
    """The longest run of requests each of which started after the previous one finished."""
    ordered = sorted(requests, key=lambda r: r.finished)
    chain: list[int] = []
    for i, request in enumerate(ordered):
        before = [chain[j] for j in range(i) if ordered[j].finished <= request.started]
        chain.append(1 + max(before, default=0))
    return max(chain, default=0)


def depths(run: PlanRun, log: list[RecordedRequest]) -> dict[int, int]:
    """Request depth per turn; turn n's requests came after the model's n-th request."""
    asked = [request.received_at for request in run.chat_requests]
    per_turn: dict[int, list[RecordedRequest]] = defaultdict(list)
    for request in log:
        per_turn[bisect.bisect_right(asked, request.started)].append(request)
    return {turn: depth(requests) for turn, requests in per_turn.items()}


def timing(run: PlanRun, log: list[RecordedRequest], config: BenchConfig) -> Timing:
    turn_time = {e.turn: e.duration_s for e in run.events if isinstance(e, ev.TurnFinished)}
    slowest: dict[int, float] = defaultdict(float)
    for e in run.events:
        if isinstance(e, ev.ToolCallFinished):
            slowest[e.turn] = max(slowest[e.turn], e.duration_s)
    critical = sum(duration + slowest[turn] for turn, duration in turn_time.items())
    chains = depths(run, log)
    ideal = len(turn_time) * config.model_latency + config.github_latency * sum(chains.values())
    return Timing(wall=run.finished.stats.elapsed_s, critical=critical, ideal=ideal)


async def measure_plan(
    name: str, repo: Path, config: BenchConfig, workdir: Path, *, parallel: bool
) -> list[Timing]:
    turns = realistic_plan() if name == "realistic" else wide_plan()
    mode = "parallel" if parallel else "sequential"
    timings = []
    with widgets(repo, latency=config.github_latency) as emu:
        for i in range(config.runs):
            cache = workdir / f"{name}-{mode}-{i}" / "cache"
            emu.clear_log()
            run = await run_plan(
                emu, turns, cache, model_latency=config.model_latency, parallel_tool_calls=parallel
            )
            timings.append(timing(run, emu.requests, config))
    return timings


def median(values: list[float]) -> float:
    return statistics.median(values)


async def measure_async(config: BenchConfig, workdir: Path) -> Section:
    repos = {"realistic": sample_repo(workdir), "wide": wide_repo(workdir, seed=config.seed)}
    metrics: list[Metric] = []
    notes = [
        "critical path = Σ per turn (measured model turn duration + slowest tool call of the turn); "
        "ideal = Σ per turn (configured model latency + GitHub latency × requests that ran one after "
        "another, from the emulator's log)",
    ]
    for name, repo in repos.items():
        par = await measure_plan(name, repo, config, workdir, parallel=True)
        seq = await measure_plan(name, repo, config, workdir, parallel=False)
        ratio = median([t.wall / t.critical for t in par])
        wall, seq_wall = median([t.wall for t in par]), median([t.wall for t in seq])
        metrics += [
            Metric(
                name=f"{name}: wall / critical path",
                value=ratio,
                unit="x",
                target=f"≤ {TARGET}",
                met=ratio <= TARGET,
                note=f"median of {len(par)} runs",
            ),
            Metric(
                name=f"{name}: wall / ideal path", value=median([t.wall / t.ideal for t in par]), unit="x"
            ),
            Metric(name=f"{name}: wall, parallel", value=wall, unit="s"),
            Metric(name=f"{name}: wall, one call at a time", value=seq_wall, unit="s"),
            Metric(
                name=f"{name}: speed-up from parallel calls",
                value=seq_wall / wall,
                unit="x",
                note="median sequential wall / median parallel wall",
            ),
        ]
        notes.append(
            f"{name}: median wall {wall:.3f} s, critical {median([t.critical for t in par]):.3f} s, "
            f"ideal {median([t.ideal for t in par]):.3f} s; one call at a time: {seq_wall:.3f} s"
        )
    return Section(key="overhead", title="Overhead", metrics=metrics, notes=notes)


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(measure_async(config, workdir))
