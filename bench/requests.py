"""Section 2, GitHub requests per analysis, read from the emulator's request log.

Every row is a full analysis (the real loop, client, cache and SDK over the emulator and model server):

* cold: a new persistent HTTP cache; requests sent, and how many counted against the rate limit;
* warm: a second analysis with a token over the same persistent cache, within GitHub's 60 s max-age,
  then the same after max-age has passed (every answer revalidated: 304s, which are free with a token);
* renamed: ``acme/widgets`` renamed to ``acme/gadgets``; extra requests over the same cold analysis of
  the unrenamed repository (target: the one 301, once per run however many calls name the repository);
* exhausted limit: how long the slowest tool call takes to fail when the limit resets in an hour.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_core import events as ev
from bench.config import BenchConfig
from bench.plans import PlanRun, realistic_plan, run_plan, sample_repo, wide_plan, wide_repo, widgets
from bench.table import Metric, Section
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import Turn

TOKEN = "ghp_BENCHTOKEN0123456789abcdefghijklmn"  # the emulator only checks the shape; not a secret


@dataclass(frozen=True)
class Cost:
    sent: int
    counted: int
    not_modified: int
    redirects: int
    calls: int


async def analyse(
    emu: GitHubEmulator, turns: Sequence[Turn], cache: Path, config: BenchConfig, **settings: object
) -> tuple[Cost, PlanRun]:
    emu.clear_log()
    run = await run_plan(emu, turns, cache, model_latency=config.model_latency, **settings)
    log = emu.requests
    cost = Cost(
        sent=len(log),
        counted=sum(r.counted for r in log),
        not_modified=sum(r.status == 304 for r in log),
        redirects=sum(r.status == 301 for r in log),
        calls=run.finished.stats.tool_calls,
    )
    return cost, run


async def caching(repo: Path, config: BenchConfig, workdir: Path) -> list[Metric]:
    plan = realistic_plan()
    with widgets(repo, latency=config.github_latency) as emu:
        cold, _ = await analyse(emu, plan, workdir / "fresh" / "cache", config, github_token=TOKEN)
        warm, _ = await analyse(emu, plan, workdir / "fresh" / "cache", config, github_token=TOKEN)
        emu.cache_control = "private, max-age=0"  # stored as already stale: the next run revalidates
        await analyse(emu, plan, workdir / "stale" / "cache", config, github_token=TOKEN)
        stale, _ = await analyse(emu, plan, workdir / "stale" / "cache", config, github_token=TOKEN)
    return [
        Metric(
            name="cold: requests per analysis",
            value=cold.sent,
            note=f"{cold.calls} tool calls, {cold.counted} counted against the limit",
        ),
        Metric(name="warm (token): requests sent", value=warm.sent, note=f"{warm.calls} tool calls"),
        Metric(name="warm (token): requests counted", value=warm.counted, target="0", met=warm.counted == 0),
        Metric(
            name="warm after max-age: requests sent",
            value=stale.sent,
            note=f"{stale.not_modified} answered 304 Not Modified",
        ),
        Metric(
            name="warm after max-age: requests counted",
            value=stale.counted,
            target="0",
            met=stale.counted == 0,
        ),
    ]


async def renamed(repos: dict[str, Path], config: BenchConfig, workdir: Path) -> list[Metric]:
    metrics = []
    for name, repo in repos.items():
        plan = realistic_plan() if name == "realistic" else wide_plan()
        with widgets(repo, latency=config.github_latency) as emu:
            plain, _ = await analyse(emu, plan, workdir / f"{name}-plain" / "cache", config)
            emu.rename("acme/widgets", "acme/gadgets")
            moved, _ = await analyse(emu, plan, workdir / f"{name}-renamed" / "cache", config)
        extra = moved.sent - plain.sent
        metrics.append(
            Metric(
                name=f"renamed ({name} plan): extra requests per run",
                value=extra,
                target="1",
                met=extra == 1,
                note=f"{moved.calls} tool calls, {moved.redirects} redirect(s), {moved.sent} requests",
            )
        )
    return metrics


async def exhausted(repo: Path, config: BenchConfig, workdir: Path) -> Metric:
    with widgets(repo, latency=config.github_latency) as emu:
        emu.exhaust(reset_in=3600)
        # Every call fails, so the model's report is from memory: it is asked once to use the tools, answers
        # from memory again, and the run ends without a report (run_failed) - what this row times is the calls.
        plan = [*realistic_plan(), realistic_plan()[-1]]
        emu.clear_log()
        run = await run_plan(
            emu, plan, workdir / "exhausted" / "cache", model_latency=config.model_latency, strict=False
        )
        sent = len(emu.requests)
    calls = [e for e in run.events if isinstance(e, ev.ToolCallFinished)]
    slowest = max(e.duration_s for e in calls)
    failed = sum(not e.ok for e in calls)
    return Metric(
        name="exhausted limit: slowest tool call to fail",
        value=round(slowest * 1000, 1),
        unit="ms",
        target="< 1000 ms (reset in 1 h)",
        met=slowest < 1.0 and failed == len(calls),
        note=f"{failed}/{len(calls)} calls failed, {sent} requests sent",
    )


async def measure_async(config: BenchConfig, workdir: Path) -> Section:
    repos = {"realistic": sample_repo(workdir), "wide": wide_repo(workdir, seed=config.seed)}
    metrics = await caching(repos["realistic"], config, workdir)
    metrics += await renamed(repos, config, workdir)
    metrics.append(await exhausted(repos["realistic"], config, workdir))
    notes = [
        "full analyses of the realistic plan (the wide plan too for the rename); warm runs use a new "
        "client over the same persistent cache, as after an app restart",
    ]
    return Section(key="requests", title="GitHub requests", metrics=metrics, notes=notes)


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(measure_async(config, workdir))
