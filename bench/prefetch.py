"""Section: evidence first. The realistic plan with prefetch off (the pure ReAct loop) and on (the
basics gathered in parallel before the model's first turn; the scripted model skips what its brief
already answers, as a model that reads before it asks). Turns, wall time and GitHub requests, medians
of ``config.runs`` cold runs each. Target: wall time with prefetch ≤ 0.8× without, with no more requests.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass
from pathlib import Path

from agent_core import events as ev
from bench.config import BenchConfig
from bench.plans import realistic_plan, run_plan, sample_repo, widgets
from bench.table import Metric, Section

TARGET = 0.8


@dataclass(frozen=True)
class Sample:
    wall: float
    model_turns: int
    requests: int


async def sample(repo: Path, config: BenchConfig, workdir: Path, *, prefetch: bool) -> list[Sample]:
    samples = []
    with widgets(repo, latency=config.github_latency) as emu:
        for run_no in range(config.runs):
            emu.clear_log()
            cache = workdir / f"prefetch-{prefetch}-{run_no}" / "cache"
            run = await run_plan(
                emu,
                realistic_plan(),
                cache,
                model_latency=config.model_latency,
                strict=False,
                prefetch=prefetch,
            )
            if run.finished.writer != "model":
                raise RuntimeError(f"the run did not end with the model's report: {run.finished}")
            turns = [e for e in run.events if isinstance(e, ev.TurnStarted) and e.purpose != "prefetch"]
            samples.append(
                Sample(wall=run.finished.stats.elapsed_s, model_turns=len(turns), requests=len(emu.requests))
            )
    return samples


async def measure_async(config: BenchConfig, workdir: Path) -> Section:
    repo = sample_repo(workdir)
    off = await sample(repo, config, workdir, prefetch=False)
    on = await sample(repo, config, workdir, prefetch=True)

    def median(samples: list[Sample], field: str) -> float:
        return statistics.median(getattr(s, field) for s in samples)

    ratio = median(on, "wall") / median(off, "wall")
    more = median(on, "requests") - median(off, "requests")
    metrics = [
        Metric(name="off: model turns", value=int(median(off, "model_turns"))),
        Metric(name="on: model turns", value=int(median(on, "model_turns"))),
        Metric(name="off: wall", value=round(median(off, "wall"), 3), unit="s"),
        Metric(name="on: wall", value=round(median(on, "wall"), 3), unit="s"),
        Metric(
            name="wall, on / off", value=round(ratio, 3), unit="x", target=f"≤ {TARGET}", met=ratio <= TARGET
        ),
        Metric(name="off: GitHub requests", value=int(median(off, "requests"))),
        Metric(
            name="on: GitHub requests",
            value=int(median(on, "requests")),
            target="≤ off",
            met=more <= 0,
        ),
    ]
    notes = [
        f"realistic plan, {config.runs} cold run(s) each, medians; the model skips what the brief answered"
    ]
    return Section(key="prefetch", title="Prefetch", metrics=metrics, notes=notes)


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(measure_async(config, workdir))
