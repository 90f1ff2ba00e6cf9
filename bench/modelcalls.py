"""Section: every model call earns its time and money (issue 21).

* **Time.** The realistic plan (metadata and tree, then README, manifest and commits, then the report)
  with ``PREFETCH`` off, ``config.model_latency`` to the first token of every model call and
  ``config.github_latency`` per GitHub request, twice per run: ``DIAGRAM_FROM_MODEL`` unset (the
  scripted server is on loopback, a local model: the tree's diagram, no call) and on (one call after
  the report; the scripted model answers with a proposal of paths from its own list). Per run, from its
  events: wall (``RunFinished.stats.elapsed_s``), critical path (Σ per model turn of its measured
  duration and its slowest tool call, as in the overhead section: the diagram is not on it) and how long
  after the report turn ended the ``diagram`` event came. Targets, unset: wall / critical ≤ 1.10, the
  diagram ≤ 0.1 s after the report; on, the diagram's call is one more model call on the path.
* **Money.** One analysis and one follow-up with every request metered the way DeepSeek bills its
  context cache (:class:`testing.emulator.prompt_cache.PromptCache`: a byte-identical prefix with an
  earlier request is a hit, in 64-token units, once the model has read it): prompt tokens, cache hits
  and what is billed at the
  full input price (the misses), per analysis and per follow-up. Target: a follow-up's billed input
  ≤ 30% of its prompt tokens.

``--baseline DIR`` measures another checkout (e.g. ``git worktree add /tmp/base main``) the same way,
side by side: this module and the prompt cache are loaded from this checkout by path, the app and the
servers from ``DIR``, in a process of their own.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from agent_core.llm.prices import price_of
from bench.config import BenchConfig
from bench.plans import realistic_plan, sample_repo, widgets
from bench.table import Metric, Section

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 1.10
TARGET_DELAY = 0.1
TARGET_FOLLOW_UP = 0.30
FOLLOW_UP = "Which test framework does it use?"
_PATHS = re.compile(r"Paths of its tree \(folders end with /\):\n(.*?)\n\n", re.S)
_OLD_DIAGRAM = "You draw the architecture of a software repository as data"  # before issue 21


@dataclass(frozen=True)
class Timing:
    wall: float
    critical: float
    diagram_delay: float
    diagram_source: str


@dataclass(frozen=True)
class Billing:
    prompt: int
    cached: int

    @property
    def billed(self) -> int:
        return self.prompt - self.cached


def _prompt_cache() -> ModuleType:
    """This checkout's prompt cache, also when the app and servers come from a baseline checkout."""
    spec = importlib.util.spec_from_file_location(
        "bench_prompt_cache", ROOT / "testing" / "emulator" / "prompt_cache.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def is_diagram_request(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or []
    first = str(messages[0].get("content", "")) if messages else ""
    return _OLD_DIAGRAM in first or any(
        m.get("role") == "user" and str(m.get("content", "")).startswith("Draw the architecture of ")
        for m in messages
    )


def proposal(body: dict[str, Any]) -> str:
    """A usable proposal: the first folders of the tree the request lists, the rest calling the first."""
    text = next(
        (str(m.get("content")) for m in reversed(body["messages"]) if _PATHS.search(str(m.get("content")))),
        "",
    )
    found = _PATHS.search(text)
    paths = [p.rstrip("/") for p in (found.group(1).splitlines() if found else []) if p.endswith("/")][:4]
    components = [{"name": p.rsplit("/", 1)[-1], "path": p, "role": "part of the project"} for p in paths]
    relations = [{"from": p, "to": paths[0], "label": "uses"} for p in paths[1:]]
    return json.dumps({"components": components, "relations": relations})


class Responder:
    """The plan's turn for each request (by its place in the conversation), the diagram's proposal for
    a diagram request, and every answer metered by the prompt cache; a log of what each request billed."""

    def __init__(self, turns: list[Any], *, latency: float) -> None:
        from testing.emulator.model_server import Turn

        self._turn = Turn
        self._turns = turns
        self._cache = _prompt_cache().PromptCache(ready_after=latency)
        self.log: list[Billing] = []

    def __call__(self, body: dict[str, Any]) -> Any:
        if is_diagram_request(body):
            turn = self._turn.final(proposal(body))
        else:
            answered = sum(m.get("role") == "assistant" for m in body.get("messages", []))
            turn = self._turns[min(answered, len(self._turns) - 1)]
        metered = self._cache.metered(body, turn)
        self.log.append(Billing(prompt=metered.usage[0], cached=metered.cache_hit_tokens))
        return metered


def _timing(events: list[Any]) -> Timing:
    from agent_core import events as ev

    turn_time = {e.turn: e.duration_s for e in events if isinstance(e, ev.TurnFinished)}
    slowest: dict[int, float] = {}
    for e in events:
        if isinstance(e, ev.ToolCallFinished):
            slowest[e.turn] = max(slowest.get(e.turn, 0.0), e.duration_s)
    critical = sum(duration + slowest.get(turn, 0.0) for turn, duration in turn_time.items())
    diagram = next(e for e in events if isinstance(e, ev.DiagramDrawn))
    report_end = max(e.t for e in events if isinstance(e, ev.TurnFinished) and e.t <= diagram.t)
    finished = events[-1]
    return Timing(
        wall=finished.stats.elapsed_s,
        critical=critical,
        diagram_delay=diagram.t - report_end,
        diagram_source=diagram.source,
    )


async def _runs(config: BenchConfig, workdir: Path) -> dict[str, Any]:
    from testing.analysis import analysis, make_settings
    from testing.emulator.model_server import ScriptedModelServer, Turn

    repo = sample_repo(workdir)
    turns = [
        *realistic_plan(),
        Turn.final("It uses pytest ([tests](https://github.com/acme/widgets/tree/main/tests))."),
    ]
    timings: dict[str, list[Timing]] = {"unset": [], "on": []}
    billing: dict[str, list[Billing]] = {"analysis": [], "follow-up": []}
    with widgets(repo, latency=config.github_latency) as emu:
        for run_no in range(config.runs):
            for diagram, wanted in (("unset", None), ("on", True)):
                responder = Responder(turns, latency=config.model_latency)
                server = ScriptedModelServer(responder=responder, default_latency=config.model_latency)
                with server:
                    settings = make_settings(
                        emu,
                        workdir / f"run-{run_no}-{diagram}",
                        server,
                        cache_dir=workdir / f"run-{run_no}-{diagram}" / "cache",
                        diagram_from_model=wanted,
                        prefetch=False,
                    )
                    async with analysis(settings) as run:
                        events = [e async for e in run.opened.analysis.run("")]
                        first = len(responder.log)
                        [e async for e in run.opened.analysis.run(FOLLOW_UP)]
                timings[diagram].append(_timing(events))
            for phase, part in (("analysis", responder.log[:first]), ("follow-up", responder.log[first:])):
                billing[phase].append(
                    Billing(prompt=sum(b.prompt for b in part), cached=sum(b.cached for b in part))
                )
    return {
        "timings": [asdict(t) for t in timings["unset"]],
        "asked": [asdict(t) for t in timings["on"]],
        "billing": {phase: [asdict(b) for b in runs] for phase, runs in billing.items()},
    }


def _measured(config: BenchConfig, workdir: Path) -> dict[str, Any]:
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(_runs(config, workdir))


def _baseline(config: BenchConfig, workdir: Path, checkout: Path) -> dict[str, Any]:
    """The same measurement of ``checkout``'s app, in a process whose imports come from it."""
    script = (
        "import json, sys, importlib.util\n"
        f"sys.path.insert(0, {str(checkout.resolve())!r})\n"
        "from bench.config import BenchConfig\n"
        f"spec = importlib.util.spec_from_file_location('bench_modelcalls', {str(Path(__file__))!r})\n"
        "module = importlib.util.module_from_spec(spec); sys.modules[spec.name] = module\n"
        "spec.loader.exec_module(module)\n"
        f"config = BenchConfig(**json.loads({json.dumps(json.dumps(_config_fields(config)))}))\n"
        f"print(json.dumps(module._measured(config, __import__('pathlib').Path({str(workdir)!r}))))\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # the baseline checkout is only read
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=checkout, capture_output=True, text=True, check=False, env=env
    )
    if out.returncode != 0:
        raise RuntimeError(f"the baseline's measurement failed:\n{out.stderr[-3000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _config_fields(config: BenchConfig) -> dict[str, Any]:
    return {
        k: v for k, v in asdict(config).items() if k in ("github_latency", "model_latency", "seed", "runs")
    }


def _metrics(label: str, data: dict[str, Any], *, targets: bool) -> tuple[list[Metric], str]:
    timings = [Timing(**t) for t in data["timings"]]
    ratio = statistics.median(t.wall / t.critical for t in timings)
    delay = statistics.median(t.diagram_delay for t in timings)
    bills = {phase: [Billing(**b) for b in runs] for phase, runs in data["billing"].items()}

    def median(phase: str, field: str) -> float:
        return statistics.median(getattr(b, field) for b in bills[phase])

    share = statistics.median(b.billed / b.prompt for b in bills["follow-up"])
    flash = price_of("deepseek", "deepseek-flash")
    assert flash is not None
    assert flash.cached_high is not None

    def dollars(phase: str) -> float:
        return statistics.median(
            (b.billed * flash.input_high + b.cached * flash.cached_high) / 1e6  # type: ignore[operator]
            for b in bills[phase]
        )

    prefix = f"{label}: " if label else ""
    metrics = [
        Metric(
            name=f"{prefix}wall / critical path, diagram unset",
            value=round(ratio, 3),
            unit="x",
            target=f"≤ {TARGET_RATIO}" if targets else "",
            met=ratio <= TARGET_RATIO if targets else None,
        ),
        Metric(
            name=f"{prefix}diagram after the report ends, diagram unset",
            value=round(delay, 3),
            unit="s",
            target=f"≤ {TARGET_DELAY}" if targets else "",
            met=delay <= TARGET_DELAY if targets else None,
        ),
        *_asked(prefix, [Timing(**t) for t in data.get("asked", ())]),
        Metric(name=f"{prefix}analysis: prompt tokens", value=int(median("analysis", "prompt"))),
        Metric(
            name=f"{prefix}analysis: billed input (cache misses)", value=int(median("analysis", "billed"))
        ),
        Metric(
            name=f"{prefix}analysis: input cost, deepseek-flash peak",
            value=f"${dollars('analysis'):.6f}",
            note="misses at the input price, hits at the cache-hit price",
        ),
        Metric(name=f"{prefix}follow-up: prompt tokens", value=int(median("follow-up", "prompt"))),
        Metric(
            name=f"{prefix}follow-up: billed input (cache misses)", value=int(median("follow-up", "billed"))
        ),
        Metric(
            name=f"{prefix}follow-up: billed / prompt",
            value=round(share, 3),
            unit="x",
            target=f"≤ {TARGET_FOLLOW_UP}" if targets else "",
            met=share <= TARGET_FOLLOW_UP if targets else None,
        ),
        Metric(
            name=f"{prefix}follow-up: input cost, deepseek-flash peak", value=f"${dollars('follow-up'):.6f}"
        ),
    ]
    sources = ", ".join(sorted({t.diagram_source for t in timings}))
    asked = ", ".join(sorted({t["diagram_source"] for t in data.get("asked", ())}))
    note = (
        f"{label or 'this'}: median wall {statistics.median(t.wall for t in timings):.3f} s, critical "
        f"{statistics.median(t.critical for t in timings):.3f} s; diagram drawn by: {sources} (unset), "
        f"{asked or '-'} (on)"
    )
    return metrics, note


def _asked(prefix: str, timings: list[Timing]) -> list[Metric]:
    """The runs with DIAGRAM_FROM_MODEL on (an older checkout may have none)."""
    if not timings:
        return []
    ratio = statistics.median(t.wall / t.critical for t in timings)
    delay = statistics.median(t.diagram_delay for t in timings)
    return [
        Metric(name=f"{prefix}wall / critical path, diagram on", value=round(ratio, 3), unit="x"),
        Metric(name=f"{prefix}diagram after the report ends, diagram on", value=round(delay, 3), unit="s"),
    ]


def measure(config: BenchConfig, workdir: Path) -> Section:
    this = _measured(config, workdir / "this")
    metrics, note = _metrics("", this, targets=True)
    notes = [
        f"realistic plan, {config.runs} cold run(s), medians; model {config.model_latency:g} s to the first "
        f"token of every call, GitHub {config.github_latency:g} s per request, PREFETCH off",
        "billed input = prompt tokens the DeepSeek-like prompt cache did not serve (64-token units)",
        note,
    ]
    if config.baseline is not None:
        before = _baseline(replace(config), workdir / "baseline", Path(config.baseline))
        base_metrics, base_note = _metrics("baseline", before, targets=False)
        metrics = [
            Metric(name=f"this: {m.name}", value=m.value, unit=m.unit, target=m.target, met=m.met)
            for m in metrics
        ] + base_metrics
        notes.append(base_note)
    return Section(key="modelcalls", title="Model calls", metrics=metrics, notes=notes)
