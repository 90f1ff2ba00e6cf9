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
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from agent_core import events as ev
from agent_core.report.claim_finders import Found, find_claims
from agent_core.report.claims import annotate
from agent_core.settings import Settings
from agent_core.tools.registry import TOOL_NAMES
from bench.config import BenchConfig
from bench.table import Metric, Section
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator
from testing.llm import LocalModel, local_model
from testing.realrepos import REAL_REPOS, RealRepo, build, serve

CACHE = Path(os.environ.get("BENCH_CACHE", Path.home() / ".cache" / "repo-analyst-bench"))


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
            llm_provider="custom",
            llm_base_url=model.base_url,
            llm_model=model.name,
            llm_max_tokens=model.max_tokens,
            llm_temperature=0.0,
            llm_turn_timeout=model.turn_timeout,  # a CPU-bound local model on a busy machine is slow
            prefetch=prefetch,
        )
        started = time.monotonic()
        run = await run_once(settings, "", target=real.full_name, turn_timeout=model.turn_timeout)
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
    )


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
    with local_model(config.llm_size, max_tokens=config.llm_max_tokens) as model:
        yield model


async def measure_async(config: BenchConfig, workdir: Path) -> Section:
    wanted = [r for r in REAL_REPOS if not config.repos or r.full_name in config.repos]
    outcomes: list[Outcome] = []
    with endpoint(config) as model:
        for real in wanted:
            for prefetch in (True, False):
                outcome = await analyse(real, model, prefetch=prefetch, workdir=workdir)
                outcomes.append(outcome)
                stem = f"{real.full_name.replace('/', '_')}-{'on' if prefetch else 'off'}"
                (workdir / f"{stem}.md").write_text(outcome.report, encoding="utf-8")
                (workdir / f"{stem}.raw.md").write_text(
                    outcome.raw, encoding="utf-8"
                )  # as written: re-judge it
    metrics: list[Metric] = []
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
                ),
                target="every false claim caught",
                met=o.caught == false,
            )
        )
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
    notes = [
        f"model {model.name} at {model.base_url}, max_tokens {model.max_tokens}, temperature 0; reports in {workdir}"
    ]
    for o in outcomes:
        for f in o.judged.false:
            notes.append(f"false in {o.repo} ({'on' if o.prefetch else 'off'}): {f.kind} {f.value!r}")
    return Section(key="realmodel", title="Real model", metrics=metrics, notes=notes)


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir = Path(os.environ.get("BENCH_REPORTS", workdir))
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(measure_async(replace(config), workdir))
