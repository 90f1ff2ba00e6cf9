"""How close is an analysis's wall time to its critical path? (issue: parallel tool calls, measured)

Setup, all on 127.0.0.1: the GitHub emulator with ``--github-latency`` per request over a real git
repository, and the scripted model server with ``--model-latency`` before each turn's first byte.
The script is a typical analysis: 4 exploring turns with 2-4 parallel tool calls each, then the report.

Printed, from one run's own events:
- wall: the run's elapsed seconds (RunFinished.stats.elapsed_s);
- critical path: Σ over turns of (model turn duration + the slowest tool call of that turn);
- ideal: Σ over turns of (model latency + GitHub latency × requests on that turn's longest chain);
- sequential: what running each turn's calls one by one would cost (Σ of all tool durations instead
  of the max), i.e. what the original command-line agent did.
Ratios are measured side by side in the same run, so machine noise affects both sides alike.

    python -m benchmarks.bench_parallel [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path

from agent_core import events as ev
from tests.agent_helpers import make_settings, run_once
from tests.emulator.github import GitHubEmulator
from tests.emulator.gitrepo import sample_python_project
from tests.emulator.model_server import ScriptedModelServer, Turn

W = {"owner": "acme", "repo": "widgets"}


def script() -> list[Turn]:
    return [
        Turn.calls(("get_repo_info", W), ("get_languages", W), reasoning="Metadata first."),
        Turn.calls(
            ("get_file_tree", W),
            ("read_file", {**W, "path": "README.md"}),
            ("read_file", {**W, "path": "pyproject.toml"}),
            ("get_commits", {**W, "per_page": 20}),
            reasoning="Structure, docs, manifest and activity in parallel.",
        ),
        Turn.calls(
            ("read_file", {**W, "path": "src/pkg/core.py"}),
            ("read_file", {**W, "path": ".github/workflows/ci.yml"}),
            ("list_directory", {**W, "path": "tests"}),
        ),
        Turn.calls(
            ("read_file", {**W, "path": "tests/test_core.py"}), ("read_file", {**W, "path": "LICENSE"})
        ),
        Turn.final("# acme/widgets\n\n## Overview\nA word counter.\n", usage=(1000, 100)),
    ]


async def one_run(emu: GitHubEmulator, tmp: Path, model_latency: float) -> tuple[float, float, float, float]:
    with ScriptedModelServer(script(), default_latency=model_latency) as server:
        run = await run_once(make_settings(emu, tmp, server), "analyse")
    finished = run.finished
    turn_time = {e.turn: e.duration_s for e in run.of(ev.TurnFinished)}
    tools: dict[int, list[float]] = defaultdict(list)
    for e in run.of(ev.ToolCallFinished):
        tools[e.turn].append(e.duration_s)
    critical = sum(turn_time[t] + max(tools.get(t, [0.0])) for t in turn_time)
    sequential = sum(turn_time[t] + sum(tools.get(t, [0.0])) for t in turn_time)
    return finished.stats.elapsed_s, critical, sequential, len(turn_time)


async def main(runs: int, model_latency: float, github_latency: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        repo = sample_python_project(root / "widgets")
        rows = []
        for i in range(runs):
            with GitHubEmulator() as emu:
                emu.add_repo("acme/widgets", repo)
                emu.latency(github_latency)
                rows.append(await one_run(emu, root / f"run{i}", model_latency))
        # Ideal: 5 model turns; tool chains: turn 1 one request (info gates languages: 2 in a row),
        # turn 2 get_file_tree = info (memo) + tree: 1 request; others 1 request each.
        ideal = 5 * model_latency + (2 + 1 + 1 + 1) * github_latency
        print(
            f"model latency {model_latency * 1000:.0f} ms/turn, GitHub latency {github_latency * 1000:.0f} ms/request"
        )
        print(
            f"{'run':>4} {'wall s':>8} {'critical s':>11} {'wall/critical':>14} {'sequential s':>13} {'wall/ideal':>11}"
        )
        for i, (wall, critical, sequential, _) in enumerate(rows, 1):
            print(
                f"{i:>4} {wall:8.3f} {critical:11.3f} {wall / critical:14.3f} {sequential:13.3f} {wall / ideal:11.3f}"
            )
        walls = [r[0] for r in rows]
        ratio = statistics.median(r[0] / r[1] for r in rows)
        speedup = statistics.median(r[2] / r[0] for r in rows)
        print(
            f"median wall/critical-path ratio: {ratio:.3f}  (ideal path {ideal:.2f}s, median wall {statistics.median(walls):.2f}s)"
        )
        print(f"median speed-up over running each turn's calls one by one: {speedup:.2f}x")


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model-latency", type=float, default=0.3)
    parser.add_argument("--github-latency", type=float, default=0.1)
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.model_latency, args.github_latency))
