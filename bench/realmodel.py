"""Section: a real model. The agent against any OpenAI-compatible endpoint — by default the local
llama.cpp server with Qwen2.5-Coder-Instruct (``../shared/tools/local-llm``, or ``scripts/local-llm``) —
over real projects (source distributions made git repositories, :mod:`testing.realrepos`) served by
the GitHub emulator, with prefetch on and off.

Per repository and mode: facts right and claims false, judged against the project's true facts (the
files, and the numbers the emulator serves) — independently of what the tools observed; claims the
app's checker contradicted; false claims it caught and missed; model turns; wall time; GitHub requests;
whether the report stood on zero observations and whether the context window overflowed.

    python -m bench --only realmodel                       # local 1.5b, all three repositories
    python -m bench --only realmodel --llm-size 0.5b --repos pallets/click
    python -m bench --only realmodel --llm-url http://127.0.0.1:11434/v1 --llm-model qwen3:8b   # Ollama
    python -m bench --only realmodel --llm-url https://api.deepseek.com --llm-model deepseek-flash \\
        --llm-key "$API_KEY"                               # a hosted API
    BENCH_REALMODEL=explore python -m bench --only realmodel --out /tmp/realmodel.json   # questions only

On a machine others share, start the server with a high priority and point the bench at it::

    N_CTX=8192 nice -n -15 PY scripts/local-llm/serve.py MODEL 8191 &
    BENCH_REALMODEL=explore python -m bench --only realmodel --llm-url http://127.0.0.1:8191/v1

``BENCH_LLM_PROVIDER`` (default ``llamacpp``; ``custom`` for a hosted API), ``BENCH_PREFETCH=on|off``
(default both). Two kinds of runs (``BENCH_REALMODEL``, default ``explore,report``): ``explore`` asks each repository a
question the brief cannot answer (which function parses the command line, where retries are
configured): does the model call tools after the brief, and does its answer name a file it read after
it? ``report``: the overview report, prefetch on and off. Both say the time to the first token of the
first model turn, the tool calls after the brief, the claims the checker verified and contradicted, and
the loops the stream's guard cut.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from agent_core import events as ev
from agent_core.llm import infer_provider
from agent_core.report.claim_finders import Found, find_claims
from agent_core.report.claims import annotate
from agent_core.settings import Settings
from agent_core.tools.registry import TOOL_NAMES
from bench.config import BenchConfig
from bench.table import Metric, Section
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator
from testing.llm import LocalModel, local_model
from testing.realrepos import CACHE, REAL_REPOS, RealRepo, build, serve

log = logging.getLogger(__name__)
PREFETCH_MODES = {"on": (True,), "off": (False,)}.get(os.environ.get("BENCH_PREFETCH", ""), (True, False))


@dataclass(frozen=True)
class Judged:
    right: int
    false: list[Found]


@dataclass(frozen=True)
class Outcome:
    repo: str
    prefetch: bool
    judged: Judged
    contradicted: int
    caught: int
    turns: int
    wall: float
    requests: int
    grounded: bool  # the report stands on at least one successful observation
    overflowed: bool
    writer: str
    report: str  # annotated with the checker's marks
    raw: str  # as the writer wrote it
    seen: Seen | None = None


@dataclass(frozen=True, kw_only=True)
class Seen:
    """What the events of one run say, whatever it was asked."""

    first_token_s: float | None  # of the first model turn (after the brief, when there is one)
    first_prompt_tokens: int | None = None  # what that turn read (the endpoint's count)
    explored: int  # tool calls the model made itself (after the brief)
    read_after_brief: tuple[str, ...]  # paths those calls read, successfully
    verified: int
    contradicted: int
    loops_cut: int
    partial: bool

    @classmethod
    def of(cls, events: list[ev.Event]) -> Seen:
        started = {e.call_id: e for e in events if isinstance(e, ev.ToolCallStarted)}
        own = [
            e for e in events if isinstance(e, ev.ToolCallFinished) and not e.call_id.startswith("basics-")
        ]
        read = tuple(
            str(started[e.call_id].arguments.get("path", ""))
            for e in own
            if e.ok and e.call_id in started and started[e.call_id].arguments.get("path")
        )
        check = next((e for e in events if isinstance(e, ev.ClaimsChecked)), None)
        model_turns = [e for e in events if isinstance(e, ev.TurnFinished) and e.first_token_s is not None]
        done = events[-1]
        return cls(
            first_token_s=model_turns[0].first_token_s if model_turns else None,
            first_prompt_tokens=model_turns[0].prompt_tokens if model_turns else None,
            explored=len(own),
            read_after_brief=read,
            verified=check.verified if check else 0,
            contradicted=check.contradicted if check else 0,
            loops_cut=sum(isinstance(e, ev.TurnFinished) and e.finish_reason == "repetition" for e in events),
            partial=isinstance(done, ev.RunFinished)
            and any("partial report" in r for r in done.degraded_reasons),
        )

    def line(self) -> str:
        first = "no token" if self.first_token_s is None else f"first token {self.first_token_s:.0f} s"
        if self.first_prompt_tokens:
            first += f" (first request {self.first_prompt_tokens:,} tokens)"
        return (
            f"{first}; {self.explored} tool calls after the brief; claims {self.verified} verified / "
            f"{self.contradicted} contradicted; {self.loops_cut} loops cut"
            + ("; partial" if self.partial else "")
        )


EXPLORATION: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("pallets/click", "Which function parses the command-line arguments?", ("parser.py",)),
    ("psf/requests", "Where are retries configured?", ("adapters.py",)),
    ("pallets/flask", "Which function runs the `flask` command-line interface?", ("cli.py",)),
)
"""(repository, a question the brief cannot answer, the files whose names an answer from them gives)."""


@dataclass(frozen=True)
class Explored:
    repo: str
    question: str
    seen: Seen
    wall: float
    writer: str
    cites_read_file: bool  # the answer names a file the model read after the brief
    right_file: bool  # ... and it is where the answer lives


@dataclass(frozen=True)
class Truth:
    """What is true of a project, from its own files: the judge's ground, independent of the agent."""

    real: RealRepo
    files: set[str]
    manifests: str  # every manifest and requirements file's text: what the project names as a dependency

    @classmethod
    def of(cls, real: RealRepo, repo: Path) -> Truth:
        files = _files(repo)
        wanted = [f for f in files if _MANIFEST.search(f)]
        text = "\n".join((repo / f).read_text(encoding="utf-8", errors="replace") for f in wanted)
        return cls(real=real, files=files, manifests=text)

    def has_path(self, path: str) -> bool:
        """``path`` names a file or folder of the project (case-insensitively; "README" names README.rst)."""
        wanted = path.strip().removeprefix("./").strip("/").lower()
        for f in (f.lower() for f in self.files):
            stem = f.rsplit(".", 1)[0] if "." in f.rsplit("/", 1)[-1] else f
            if wanted in (f, stem) or f.startswith(wanted + "/"):
                return True
            if f.endswith("/" + wanted) or stem.endswith("/" + wanted):
                return True
        return False

    def names_dependency(self, name: str) -> bool:
        """The project declares ``name`` (runtime, optional, development or test) in one of its manifests."""
        wanted = name.lower().replace("_", "-")
        if wanted in self.real.dependencies:
            return True
        spelled = "[-_.]".join(re.escape(part) for part in wanted.split("-"))
        pattern = re.compile(rf"(?<![\w.-]){spelled}(?![\w-])", re.IGNORECASE)
        return bool(pattern.search(self.manifests))


_MANIFEST = re.compile(
    r"(^|/)(pyproject\.toml|setup\.cfg|setup\.py|tox\.ini|requirements[^/]*\.(txt|in)|requirements/[^/]+\.(txt|in))$"
)


def judge(report: str, real: RealRepo, files: set[str] | Truth) -> Judged:
    """The report's claims against the project's true facts (not against the observations)."""
    right, false = 0, []
    truth_of = files if isinstance(files, Truth) else Truth(real=real, files=files, manifests="")
    truth = {"stars": real.stars, "forks": real.forks, "open_issues": real.open_issues}
    for found in find_claims(report):
        verdict = _true(found, real, truth, truth_of)
        if verdict is True:
            right += 1
        elif verdict is False:
            false.append(found)
    return Judged(right=right, false=false)


def _true(found: Found, real: RealRepo, truth: dict[str, int], project: Truth) -> bool | None:
    if found.kind == "number" and found.subject in truth:
        digits = found.value.lower().replace(",", "")
        scale = 1000 if digits.endswith("k") else 1
        try:
            value = float(digits.rstrip("k")) * scale
        except ValueError:
            return None
        return abs(value - truth[found.subject]) <= (
            0.05 * truth[found.subject] if scale > 1 or "." in digits else 0
        )
    if found.kind == "license":
        family = found.value.split("-")[0].upper()
        return (family == real.license.split("-")[0].upper()) != found.negated
    if found.kind == "language":
        return found.value.lower() == real.language.lower()
    if found.kind == "path":
        if found.value.strip("`/ ").lower() == real.full_name.lower():
            return None  # the repository's own name, not a path in it
        return project.has_path(found.value) != found.negated
    if found.kind == "dependency":
        if found.value.replace("_", "-") == real.full_name.split("/")[1]:
            return None
        if found.value in TOOL_NAMES or found.value.lower() in real.topics:
            return None  # the report naming a tool it used, or the repository's topics: not dependencies
        return project.names_dependency(found.value) != found.negated
    return None


async def analyse(real: RealRepo, model: LocalModel, *, prefetch: bool, workdir: Path) -> Outcome:
    with GitHubEmulator() as emu:
        serve(emu, real, CACHE)
        settings = Settings(
            github_api_url=emu.base_url,
            cache_dir=workdir / f"{real.full_name.replace('/', '_')}-{prefetch}",
            api_key=model.key,
            llm_provider=provider(model.base_url),
            llm_base_url=model.base_url,
            llm_model=model.name,
            llm_max_tokens=model.max_tokens,
            llm_temperature=0.0,
            llm_turn_timeout=model.turn_timeout,  # a CPU-bound local model on a busy machine is slow
            prefetch=prefetch,
        )
        started = time.monotonic()
        run = await run_once(
            settings,
            "",
            target=real.full_name,
            turn_timeout=model.turn_timeout,
            presets=True,
            provider=provider(model.base_url),
        )
        wall = time.monotonic() - started
        requests = len(emu.requests)
    done = run.events[-1]
    check = next((e for e in run.events if isinstance(e, ev.ClaimsChecked)), None)
    report = done.report if isinstance(done, ev.RunFinished) else ""
    judged = judge(report, real, Truth.of(real, build(real, CACHE)))
    contradicted = {(c.start, c.end) for c in check.claims if c.verdict == "contradicted"} if check else set()
    caught = sum(1 for f in judged.false if (f.start, f.end) in contradicted)
    return Outcome(
        repo=real.full_name,
        prefetch=prefetch,
        judged=judged,
        contradicted=len(contradicted),
        caught=caught,
        turns=sum(isinstance(e, ev.TurnStarted) and e.purpose != "prefetch" for e in run.events),
        wall=wall,
        requests=requests,
        grounded=any(isinstance(e, ev.ToolCallFinished) and e.ok for e in run.events),
        overflowed=any(isinstance(e, ev.Notice) and "context window" in e.message for e in run.events),
        writer=done.writer if isinstance(done, ev.RunFinished) else "none (run_failed)",
        report=annotate(report, check),
        raw=report,
        seen=Seen.of(run.events),
    )


async def explore(
    real: RealRepo, question: str, answers: tuple[str, ...], model: LocalModel, workdir: Path
) -> Explored:
    """One question the brief cannot answer, asked as a user would (prefetch on)."""
    with GitHubEmulator() as emu:
        serve(emu, real, CACHE)
        settings = Settings(
            github_api_url=emu.base_url,
            cache_dir=workdir / f"{real.full_name.replace('/', '_')}-explore",
            api_key=model.key,
            llm_provider=provider(model.base_url),
            llm_base_url=model.base_url,
            llm_model=model.name,
            llm_max_tokens=model.max_tokens,
            llm_temperature=0.0,
            llm_turn_timeout=model.turn_timeout,
            max_turns=4,
        )
        started = time.monotonic()
        run = await run_once(
            settings,
            question,
            target=real.full_name,
            turn_timeout=model.turn_timeout,
            presets=True,
            provider=provider(model.base_url),
        )
        wall = time.monotonic() - started
    done = run.events[-1]
    report = done.report if isinstance(done, ev.RunFinished) else ""
    seen = Seen.of(run.events)
    names = {p.rsplit("/", 1)[-1] for p in seen.read_after_brief if p}
    writer = done.writer if isinstance(done, ev.RunFinished) else "none (run_failed)"
    # the model's answer (whole or partial), not the deterministic writer's, which cites what was read
    cited = {n for n in names if n and n in report} if writer == "model" else set()
    return Explored(
        repo=real.full_name,
        question=question,
        seen=seen,
        wall=wall,
        writer=writer,
        cites_read_file=bool(cited),
        right_file=any(a in cited for a in answers),
    )


def provider(base_url: str) -> str:
    """The preset an endpoint is run with (``BENCH_LLM_PROVIDER`` names it): a server on 127.0.0.1 gets
    llama.cpp's (its sampling, prompt cache and progress, assumed prompt speed, short tool list); any
    other endpoint the preset its address says (``custom`` when none)."""
    named = os.environ.get("BENCH_LLM_PROVIDER")
    if named:
        return named
    inferred = infer_provider(base_url)
    local = urlsplit(base_url).hostname in ("127.0.0.1", "localhost")
    return "llamacpp" if inferred == "custom" and local else inferred


def _files(repo: Path) -> set[str]:
    listed = subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True, check=True)
    return set(listed.stdout.split())


@contextmanager
def endpoint(config: BenchConfig) -> Iterator[LocalModel]:
    """The endpoint the section uses: a given URL, or the local server started for it."""
    if config.llm_url:
        yield LocalModel(
            base_url=config.llm_url,
            name=config.llm_model or "local",
            key=config.llm_key or "not-needed",
            max_tokens=config.llm_max_tokens,
            turn_timeout=900.0,
        )
        return
    window = int(os.environ.get("BENCH_LLM_CTX", "8192"))  # 4096: a server with a small window
    log = Path(os.environ.get("BENCH_REPORTS", tempfile.gettempdir())) / f"llama-{config.llm_size}.log"
    with local_model(config.llm_size, n_ctx=window, max_tokens=config.llm_max_tokens, log=log) as model:
        yield model


async def measure_async(config: BenchConfig, workdir: Path) -> Section:
    wanted = [r for r in REAL_REPOS if not config.repos or r.full_name in config.repos]
    kinds = os.environ.get("BENCH_REALMODEL", "explore,report").split(",")
    outcomes: list[Outcome] = []
    explored: list[Explored] = []
    with endpoint(config) as model:
        for repo, question, answers in EXPLORATION if "explore" in kinds else ():
            real = next((r for r in wanted if r.full_name == repo), None)
            if real is not None:
                explored.append(await explore(real, question, answers, model, workdir))
                log.warning("realmodel explore %s: %s", repo, explored[-1])
        for real in wanted if "report" in kinds else ():
            for prefetch in PREFETCH_MODES:
                outcome = await analyse(real, model, prefetch=prefetch, workdir=workdir)
                outcomes.append(outcome)
                stem = f"{real.full_name.replace('/', '_')}-{'on' if prefetch else 'off'}"
                (workdir / f"{stem}.md").write_text(outcome.report, encoding="utf-8")
                (workdir / f"{stem}.raw.md").write_text(
                    outcome.raw, encoding="utf-8"
                )  # as written: re-judge it
    metrics = _explore_metrics(explored)
    for o in outcomes:
        mode = "prefetch on" if o.prefetch else "prefetch off"
        false = len(o.judged.false)
        metrics.append(
            Metric(
                name=f"{o.repo} · {mode}",
                value=f"{o.judged.right} right / {false} false",
                note=(
                    f"{o.contradicted} contradicted, caught {o.caught}/{false} false; {o.turns} model turns; "
                    f"{o.wall:.0f} s; {o.requests} GitHub requests; writer {o.writer}"
                    + ("" if o.grounded else "; NOT GROUNDED")
                    + ("; context overflow" if o.overflowed else "")
                    + (f"; {o.seen.line()}" if o.seen else "")
                ),
                target="every false claim caught",
                met=o.caught == false,
            )
        )
    if not outcomes:
        return Section(key="realmodel", title="Real model", metrics=metrics, notes=_notes(model, workdir))
    total_false = sum(len(o.judged.false) for o in outcomes)
    caught = sum(o.caught for o in outcomes)
    metrics += [
        Metric(name="false claims caught by the checker", value=f"{caught}/{total_false}"),
        Metric(
            name="runs grounded (a report on zero observations: none)",
            value=f"{sum(o.grounded for o in outcomes)}/{len(outcomes)}",
            met=all(o.grounded for o in outcomes),
            target="all",
        ),
        Metric(
            name="runs without a context overflow",
            value=f"{sum(not o.overflowed for o in outcomes)}/{len(outcomes)}",
            met=not any(o.overflowed for o in outcomes),
            target="all",
        ),
    ]
    notes = _notes(model, workdir)
    for o in outcomes:
        for f in o.judged.false:
            notes.append(f"false in {o.repo} ({'on' if o.prefetch else 'off'}): {f.kind} {f.value!r}")
    return Section(key="realmodel", title="Real model", metrics=metrics, notes=notes)


def _explore_metrics(explored: list[Explored]) -> list[Metric]:
    metrics = [
        Metric(
            name=f"{e.repo} · {e.question}",
            value="answered from what it read" if e.cites_read_file else "not from observations",
            note=f"{e.seen.line()}; {e.wall:.0f} s; writer {e.writer}"
            + ("; names the right file" if e.right_file else ""),
        )
        for e in explored
    ]
    if explored:
        metrics.append(
            Metric(
                name="exploration questions answered from observations made after the brief",
                value=f"{sum(e.cites_read_file for e in explored)}/{len(explored)}",
                note=f"right file named in {sum(e.right_file for e in explored)}/{len(explored)}; "
                f"tool calls after the brief: {[e.seen.explored for e in explored]}",
            )
        )
    return metrics


def _notes(model: LocalModel, workdir: Path) -> list[str]:
    return [
        f"model {model.name} at {model.base_url}, max_tokens {model.max_tokens}, temperature 0, the "
        f"{provider(model.base_url)} preset's sampling (frequency penalty 0.3, repeat penalty 1.1); reports in {workdir}"
    ]


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir = Path(os.environ.get("BENCH_REPORTS", workdir))
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(measure_async(replace(config), workdir))
