"""Section 6, CPU per event: what the loop itself costs, and what showing its events costs.

The realistic and wide plans run with no latency on either server (both serve from their own threads,
so the CPU clock of the asyncio thread, ``time.thread_time``, counts only our side: the loop, the GitHub
client and cache, the openai SDK, JSON). Per run: that CPU time over the run's events, median of the
runs. One more run of each plan under ``cProfile`` with a thread CPU clock (the profiler hooks only the
thread that enables it, and waiting in ``epoll`` costs nothing) splits that time by package and names
the agent_core functions with the most own time.

Rendering: the recorded events are folded into the UI's :class:`~agent_core.web.render.TraceView`, as
the app does, alone and with a full frame after every event (chat messages, report and stats markdown:
an upper bound, since the app batches streamed text into frames at most every 100 ms); and the cost of
a run's largest frame, its last one; and what Gradio spends postprocessing that frame as the app sends
it, against the same frame with outputs left out (:mod:`bench.frame_cost`).
"""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from agent_core import events as ev
from agent_core.web.render import TraceView
from bench.config import BenchConfig
from bench.frame_cost import frame_postprocess_ms
from bench.plans import plan_responder, realistic_plan, sample_repo, wide_plan, wide_repo, widgets
from bench.table import Metric, Section
from testing.analysis import analysis, make_settings
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn

REPEATS = 20  # rendering is fast: repeat it for a readable CPU clock
QUICK_REPEATS = 2  # --quick checks that the section measures, not the figures
TOP = 5


async def run_events(
    emu: GitHubEmulator, turns: Sequence[Turn], cache: Path, profile: cProfile.Profile | None = None
) -> tuple[list[ev.Event], float]:
    """One analysis; its events and the CPU seconds this thread spent producing them."""
    with ScriptedModelServer(responder=plan_responder(turns)) as server:
        settings = make_settings(emu, cache.parent, server, cache_dir=cache)
        async with analysis(settings) as run:
            if profile is not None:
                profile.enable()
            started = time.thread_time()
            events = [event async for event in run.opened.analysis.run("")]
            cpu = time.thread_time() - started
            if profile is not None:
                profile.disable()
    return events, cpu


def frame(view: TraceView) -> None:
    """What the app computes for one frame of the trace."""
    view.messages()
    view.report.markdown()
    view.stats.markdown()


def render_cpu(events: Sequence[ev.Event], *, frames: bool, repeats: int = REPEATS) -> float:
    """CPU seconds to fold ``events`` into a fresh view (with a frame after each one)."""
    started = time.thread_time()
    for _ in range(repeats):
        view = TraceView()
        for event in events:
            view.apply(event)
            if frames:
                frame(view)
    return (time.thread_time() - started) / repeats


def last_frame_cpu(events: Sequence[ev.Event], repeats: int = REPEATS) -> float:
    view = TraceView()
    for event in events:
        view.apply(event)
    started = time.thread_time()
    for _ in range(repeats):
        frame(view)
    return (time.thread_time() - started) / repeats


def _own_times(profile: cProfile.Profile) -> list[tuple[float, str, str]]:
    """(share of own time, file, ``module.function:line``) for every profiled function, largest first."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in stats.values()) or 1.0
    rows = [(row[2] / total, f, f"{Path(f).stem}.{name}:{line}") for (f, line, name), row in stats.items()]
    return sorted(rows, reverse=True)


def _package(file: str) -> str:
    if "/agent_core/" in file:
        return "agent_core"
    if "site-packages/" in file:
        return file.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    if file == "~":
        return "built-ins"
    if file.startswith("<frozen "):
        return "stdlib " + file.removeprefix("<frozen ").split(".")[0].rstrip(">")
    parts = Path(file).parts
    lib = next((i for i, part in enumerate(parts) if part.startswith("python3")), len(parts) - 2)
    return f"stdlib {Path(parts[lib + 1]).stem}" if lib + 1 < len(parts) else "other"


def by_package(profile: cProfile.Profile) -> str:
    shares: dict[str, float] = {}
    for share, file, _ in _own_times(profile):
        shares[_package(file)] = shares.get(_package(file), 0.0) + share
    ranked = sorted(shares.items(), key=lambda item: -item[1])
    return ", ".join(f"{name} {share:.0%}" for name, share in ranked[:8])


def hot_spots(profile: cProfile.Profile, *, only: str = "") -> str:
    """The ``TOP`` functions by own time (``only``: a path fragment they must come from)."""
    kept = [(share, where) for share, file, where in _own_times(profile) if only in file][:TOP]
    return ", ".join(f"{where} {share:.1%}" for share, where in kept)


async def measure_plan(
    name: str, repo: Path, config: BenchConfig, workdir: Path
) -> tuple[list[Metric], list[str]]:
    turns = realistic_plan() if name == "realistic" else wide_plan()
    per_event: list[float] = []
    repeats = QUICK_REPEATS if config.quick else REPEATS
    with widgets(repo, latency=0.0) as emu:
        for i in range(config.runs if config.quick else max(config.runs, 3)):
            events, cpu = await run_events(emu, turns, workdir / f"{name}-{i}" / "cache")
            per_event.append(cpu / len(events))
        profile = cProfile.Profile(time.thread_time)
        events, _ = await run_events(emu, turns, workdir / f"{name}-profiled" / "cache", profile)
    loop_us = statistics.median(per_event) * 1e6
    fold_us = render_cpu(events, frames=False, repeats=repeats) / len(events) * 1e6
    frame_us = render_cpu(events, frames=True, repeats=repeats) / len(events) * 1e6
    render_profile = cProfile.Profile(time.thread_time)
    render_profile.runcall(render_cpu, events, frames=True, repeats=repeats)
    sent_ms, left_out_ms = await asyncio.to_thread(frame_postprocess_ms, events, repeats)
    metrics = [
        Metric(name=f"{name}: events per run", value=len(events)),
        Metric(name=f"{name}: loop CPU per event", value=loop_us, unit="µs", note="asyncio thread, median"),
        Metric(name=f"{name}: render, fold only", value=fold_us, unit="µs/event"),
        Metric(
            name=f"{name}: render, a frame per event", value=frame_us, unit="µs/event", note="upper bound"
        ),
        Metric(
            name=f"{name}: render, the last (largest) frame",
            value=last_frame_cpu(events, repeats) * 1e6,
            unit="µs",
        ),
        Metric(name=f"{name}: Gradio postprocess of the last frame", value=sent_ms, unit="ms"),
        Metric(
            name=f"{name}: ... with the breaker table and timer left out",
            value=left_out_ms,
            unit="ms",
            note="what gr.skip() costs: Gradio rebuilds left-out outputs",
        ),
        Metric(
            name=f"{name}: render share of CPU (upper bound)",
            value=round(frame_us / (loop_us + frame_us) * 100, 1),
            unit="%",
            note="a frame per event / (loop + that)",
        ),
    ]
    notes = [
        f"{name}: loop thread CPU by package: {by_package(profile)}",
        f"{name}: top agent_core functions (share of the loop thread): {hot_spots(profile, only='/agent_core/')}",
        f"{name}: rendering, top functions: {hot_spots(render_profile)}",
    ]
    return metrics, notes


async def measure_async(config: BenchConfig, workdir: Path) -> Section:
    repos = {"realistic": sample_repo(workdir), "wide": wide_repo(workdir, seed=config.seed)}
    metrics: list[Metric] = []
    notes: list[str] = []
    for name, repo in repos.items():
        more_metrics, more_notes = await measure_plan(name, repo, config, workdir)
        metrics += more_metrics
        notes += more_notes
    return Section(key="events", title="CPU per event", metrics=metrics, notes=notes)


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(measure_async(config, workdir))
