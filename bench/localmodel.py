"""Section: real local models on the truth bench's repositories (issue 37, "Measured").

Each size of the project's own small model (Qwen2.5-Coder-Instruct 0.5B and 1.5B behind llama.cpp,
:func:`testing.llm.local_model`) analyses repositories that have a truth file (``bench/truth/*.json``,
mirrored as ``/work/.mirror/OWNER+NAME/repo``), served by the GitHub emulator as the truth bench serves
them (:mod:`bench.truth`). The no-key run (the deterministic report) of the same repository is judged
the same way, as the bar the model's report must not fall below. Per run: the tool calls the model made
of its own (the prefetch's are not), the files they read, the FALSE statements by the truth file, the ✗
the app's claim check marked, the claims the draft's revision corrected, the first token and the first
word of the report, the wall time, the diagram's share of it, and the longest silence between events. ::

    nice python -m bench --only localmodel --repos sinatra/sinatra,google/gson,fmtlib/fmt
    BENCH_LLM_SIZES=1.5b BENCH_REPORTS=/tmp/local nice python -m bench --only localmodel --repos google/gson
    python -m bench --only localmodel --llm-url http://127.0.0.1:8191/v1   # a server already running

``BENCH_LLM_SIZES`` (default ``0.5b,1.5b``): the local sizes, each served in turn (one server at a time);
``--llm-url`` measures that endpoint instead. ``BENCH_REPORTS``: a folder for each report and its verdicts.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from agent_core import events as ev
from agent_core.event_json import event_to_dict
from agent_core.settings import Settings
from bench.config import BenchConfig
from bench.realmodel import Seen, endpoint, provider
from bench.realrepos_judge import Judgement
from bench.realrepos_truth import Truth
from bench.table import Metric, Section
from bench.truth import (
    MIRROR,
    TRUTH_DIR,
    _offline,
    api_license,
    git_dir_of,
    linguist_languages,
    served_languages,
    truth_files,
)
from bench.truth_judge import Manifests, TruthFile, judge_truth
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator
from testing.llm import LocalModel

DEFAULT_REPOS = ("sinatra/sinatra", "google/gson", "fmtlib/fmt")


@dataclass(frozen=True, kw_only=True)
class Timing:
    """What the trace says of time: seconds from the run's start."""

    wall: float
    first_token: float | None  # the first token of the first model turn (not the prefetch's thought)
    report_word: float | None  # the first word of the turn whose text is the report (writer model)
    draft_word: float | None  # the first word of the first draft shown as the report (revised or not)
    diagram_s: float  # from the report's last event to the last diagram event
    silence: float  # the longest gap between two events

    @classmethod
    def of(cls, events: list[ev.Event]) -> Timing:
        times = [e.t for e in events]
        gaps = [b - a for a, b in zip([0.0, *times], times, strict=False)]
        streamed = [e for e in events if isinstance(e, ev.TextDelta | ev.ReasoningDelta)]
        starts = {e.turn: e.t for e in events if isinstance(e, ev.TurnStarted) and e.purpose != "prefetch"}
        firsts = [
            starts[e.turn] + e.first_token_s
            for e in events
            if isinstance(e, ev.TurnFinished) and e.first_token_s is not None and e.turn in starts
        ]
        done = events[-1]
        report_turn = (
            _report_turn(events) if isinstance(done, ev.RunFinished) and done.writer == "model" else None
        )
        word = next((e.t for e in streamed if isinstance(e, ev.TextDelta) and e.turn == report_turn), None)
        drafts = {
            e.turn for e in events if isinstance(e, ev.DraftReviewed) and e.outcome in ("revise", "accepted")
        }
        shown = drafts | ({report_turn} if report_turn is not None else set())
        draft = next((e.t for e in streamed if isinstance(e, ev.TextDelta) and e.turn in shown), None)
        return cls(
            wall=done.t,
            first_token=firsts[0] if firsts else None,
            report_word=word,
            draft_word=draft,
            diagram_s=_diagram_span(events),
            silence=max(gaps, default=0.0),
        )


def _report_turn(events: list[ev.Event]) -> int | None:
    """The last model turn that answered in text (no tool call): the report's (a turn correcting its
    sentences is no report: the draft it corrects is)."""
    revising = {e.turn for e in events if isinstance(e, ev.TurnStarted) and e.purpose == "revise"}
    answers = [
        e.turn
        for e in events
        if isinstance(e, ev.TurnFinished) and e.tool_calls == 0 and e.first_token_s and e.turn not in revising
    ]
    return answers[-1] if answers else None


def _diagram_span(events: list[ev.Event]) -> float:
    """The diagram step's seconds: from the event before its first (a notice asking the model, or the
    diagram itself) to its last diagram event."""
    marks = [i for i, e in enumerate(events) if isinstance(e, ev.DiagramDrawn)]
    if not marks:
        return 0.0
    first = marks[0]
    while first > 0 and _asks_diagram(events[first - 1]):
        first -= 1
    start = events[first - 1].t if first > 0 else 0.0
    return events[marks[-1]].t - start


def _asks_diagram(event: ev.Event) -> bool:
    return isinstance(event, ev.Notice) and "diagram" in event.message.lower()


@dataclass(frozen=True, kw_only=True)
class LocalRun:
    size: str
    repo: str
    writer: str
    seen: Seen
    false: tuple[str, ...]  # the truth judge's FALSE statements, "kind: text"
    invented_paths: tuple[str, ...]
    judged: int
    baseline_false: int  # the deterministic (no-key) report's FALSE statements on the same repository
    corrected: int  # claims the draft's revision corrected (DraftReviewed)
    reviews: tuple[str, ...]  # each draft review's outcome, in order
    timing: Timing
    degraded: tuple[str, ...]
    context_errors: int = 0  # requests the server refused as over its window


async def _model_run(facts: TruthFile, git_dir: Path, model: LocalModel, cache: Path) -> list[ev.Event]:
    with GitHubEmulator() as emu:
        emu.add_repo(facts.repo, git_dir, license=api_license(facts))
        preset = provider(model.base_url)
        settings = Settings(
            github_api_url=emu.base_url,
            cache_dir=cache,
            github_read_timeout=120.0,
            api_key=model.key,
            llm_provider=preset,
            llm_base_url=model.base_url,
            llm_model=model.name,
            llm_max_tokens=model.max_tokens,
            llm_temperature=0.0,
            prefetch=True,
        )
        # The app's client retries a request that never reached the server (its SDK's default, 2): a
        # connection the server closed between two turns is not an unreachable endpoint.
        run = await run_once(
            settings,
            "",
            target=facts.repo,
            turn_timeout=model.turn_timeout,
            presets=True,
            provider=preset,
            max_retries=2,
        )
        return run.events


def _judged(
    report: str, facts: TruthFile, truth: Truth, manifests: Manifests, linguist: dict[str, int]
) -> Judgement:
    return judge_truth(report, facts, truth, None, manifests=manifests, linguist=linguist)


def measure_repo(
    facts: TruthFile, git_dir: Path, model: LocalModel, *, size: str, work: Path, baseline: dict[str, int]
) -> LocalRun:
    truth = Truth.read(git_dir)
    manifests = Manifests.read(git_dir, truth)
    linguist = linguist_languages(git_dir, truth)
    stem = f"{size}-{facts.repo.replace('/', '_')}"
    with served_languages(facts.repo, linguist):
        if facts.repo not in baseline:
            offline = asyncio.run(_offline(facts, git_dir, facts.repo, work / "cache" / f"offline-{stem}"))
            done = offline[-1]
            plain = done.report if isinstance(done, ev.RunFinished) else ""
            baseline[facts.repo] = len(_judged(plain, facts, truth, manifests, linguist).false)
            _keep(work, f"offline-{facts.repo.replace('/', '_')}", plain, None)
        events = asyncio.run(_model_run(facts, git_dir, model, work / "cache" / stem))
    done = events[-1]
    report = done.report if isinstance(done, ev.RunFinished) else ""
    judgement = _judged(report, facts, truth, manifests, linguist)
    reviews = [e for e in events if isinstance(e, ev.DraftReviewed)]
    run = LocalRun(
        size=size,
        repo=facts.repo,
        writer=done.writer if isinstance(done, ev.RunFinished) else "none (run failed)",
        seen=Seen.of(events),
        false=tuple(f"{s.kind}: {s.text}" for s in judgement.false),
        invented_paths=tuple(s.text for s in judgement.false if s.kind == "path"),
        judged=judgement.judged,
        baseline_false=baseline[facts.repo],
        corrected=sum(len(r.corrected) for r in reviews),
        reviews=tuple(r.outcome for r in reviews),
        timing=Timing.of(events),
        degraded=done.degraded_reasons if isinstance(done, ev.RunFinished) else (),
        context_errors=sum(isinstance(e, ev.Notice) and _over_window(e.message) for e in events),
    )
    _keep(work, stem, report, run)
    trace = "\n".join(json.dumps(event_to_dict(e), default=str) for e in events)
    (Path(os.environ.get("BENCH_REPORTS", work)) / f"{stem}.events.jsonl").write_text(trace, encoding="utf-8")
    return run


def _over_window(message: str) -> bool:
    """A notice of a request the server refused as too long (the retry after compacting, or the failure)."""
    return (
        "context window" in message
        or "context length" in message
        or "exceeds the available context" in message
    )


def _keep(work: Path, stem: str, report: str, run: LocalRun | None) -> None:
    folder = Path(os.environ.get("BENCH_REPORTS", work))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.md").write_text(report, encoding="utf-8")
    if run is not None:
        (folder / f"{stem}.json").write_text(json.dumps(asdict(run), indent=1, default=str), encoding="utf-8")


def _metric(r: LocalRun) -> Metric:
    t = r.timing
    share = t.diagram_s / t.wall if t.wall else 0.0
    word = "—" if t.report_word is None else f"{t.report_word:.0f} s"
    draft = "—" if t.draft_word is None else f"{t.draft_word:.0f} s"
    token = "—" if t.first_token is None else f"{t.first_token:.0f} s"
    distinct = len(set(r.seen.read_after_brief))  # a file read again is a memo hit, no new read
    met = (
        distinct >= 2
        and not r.invented_paths
        and len(r.false) <= r.baseline_false
        and share <= 0.15
        and t.silence <= 30
        and t.report_word is not None
        and t.report_word <= 60
        and r.context_errors <= 1
    )
    return Metric(
        name=f"{r.size} · {r.repo}",
        value=f"{r.seen.explored} own calls ({distinct} files), {len(r.false)} false (no-key {r.baseline_false})",
        target=(
            "≥2 files read of its own, 0 invented paths, false ≤ no-key, diagram ≤15%, silence ≤30 s, "
            "report's first word ≤60 s, ≤1 context error"
        ),
        met=met,
        note=(
            f"read {len(r.seen.read_after_brief)} files {list(r.seen.read_after_brief)}; "
            f"invented paths {len(r.invented_paths)}; ✗ by the app {r.seen.contradicted}; "
            f"corrected by the revision {r.corrected} (reviews {list(r.reviews)}); first token {token}, "
            f"first draft's first word {draft}, report's first word {word}; wall {t.wall:.0f} s; diagram {t.diagram_s:.1f} s ({100 * share:.0f}%); "
            f"longest silence {t.silence:.1f} s; context errors {r.context_errors}; writer {r.writer}"
        ),
    )


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    mirror = Path(config.mirror) if config.mirror else MIRROR
    files, skipped = truth_files(TRUTH_DIR, config.repos or DEFAULT_REPOS)
    present = [(f, g) for f in files if (g := git_dir_of(mirror, f.repo)) is not None]
    skipped += [f"{f.repo}: not mirrored under {mirror}" for f in files if git_dir_of(mirror, f.repo) is None]
    sizes = ["url"] if config.llm_url else os.environ.get("BENCH_LLM_SIZES", "0.5b,1.5b").split(",")
    runs: list[LocalRun] = []
    baseline: dict[str, int] = {}
    for size in sizes:
        with endpoint(replace(config, llm_size=size.strip())) as model:
            for facts, git_dir in present:
                runs.append(
                    measure_repo(facts, git_dir, model, size=size.strip(), work=workdir, baseline=baseline)
                )
    notes = [*skipped, f"reports in {os.environ.get('BENCH_REPORTS', workdir)}"]
    notes += [f"{r.size} · {r.repo}: FALSE {s}" for r in runs for s in r.false]
    notes += [f"{r.size} · {r.repo}: degraded {d}" for r in runs for d in r.degraded]
    return Section(key="localmodel", title="Local models", metrics=[_metric(r) for r in runs], notes=notes)
