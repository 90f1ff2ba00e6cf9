"""Section: real repositories. The offline planner's reports on real repositories of real shapes,
held by a judge against each repository's own files (:mod:`bench.realrepos_judge`).

The corpus: fetched GitHub repositories (bare git directories ``DIR/OWNER+NAME/repo``, by default
under ``/work/.mirror``) — vendored Go, multi-module Go, an npm/pnpm workspaces TypeScript monorepo, a
dual-licensed Cargo workspace, a large Python project, a Gradle multi-module Java project, a small
JavaScript library, Flask; two source distributions from the package registry
(:mod:`testing.realrepos`); and a tree past GitHub's 100,000-entry cut made at bench time from the
real trees of two of them (15 top-level folders, shared objects through git alternates: no copy). A
repository that is absent is skipped with the reason printed. Each one is served by the GitHub
emulator and analysed through ``agent_core`` as the app does with no key, for the whole repository
and, for monorepos, for one subfolder URL (``/tree/<ref>/<folder>``).

Per run: statements judged, false, unjudged; key facts missing; claims the app's check marked
contradicted that the judge finds true; a coverage ledger on the run's events; for the cut tree,
whether every top-level folder is named; for a subfolder, whether the report is about it; wall time
and GitHub requests. ::

    python -m bench --only realrepos --markdown --out /tmp/realrepos.json
    python -m bench --only realrepos --mirror /path/to/mirrors --repos docker/cli,sindresorhus/ky
    BENCH_REPORTS=/tmp/reports python -m bench --only realrepos     # keep each report and its verdicts
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from agent_core import events as ev
from agent_core.settings import Settings
from bench.config import BenchConfig
from bench.realrepos_judge import about_folder, claim_check_errors, judge, names_every_top_folder
from bench.realrepos_truth import Truth
from bench.table import Metric, Section
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator
from testing.realrepos import CACHE, REAL_REPOS, build

MIRROR = Path("/work/.mirror")
CUT_NAME = "bench/cut-tree"
CUT_FOLDERS = 15


@dataclass(frozen=True)
class Entry:
    full_name: str
    shape: str
    license: str | None  # what GitHub's API says of it (the emulator serves it)
    subfolder: str | None = None  # a package folder: also analysed through its /tree/ URL


CORPUS: tuple[Entry, ...] = (
    Entry("docker/cli", "Go, vendor/ (2,652 of 4,025 files)", "Apache-2.0"),
    Entry("open-telemetry/opentelemetry-go", "Go, 28 go.mod modules", "Apache-2.0", "sdk/metric"),
    Entry("typescript-eslint/typescript-eslint", "TypeScript, workspaces", "MIT", "packages/parser"),
    Entry("BurntSushi/ripgrep", "Rust, Cargo workspace, MIT OR Unlicense", "Unlicense", "crates/ignore"),
    Entry("scrapy/scrapy", "Python, large", "BSD-3-Clause"),
    Entry("square/retrofit", "Java, Gradle multi-module", "Apache-2.0", "retrofit-converters/gson"),
    Entry("sindresorhus/ky", "TypeScript/JS, small library", "MIT"),
    Entry("pallets/flask", "Python, docs + examples", "BSD-3-Clause"),
)
SDISTS = ("psf/requests", "pallets/click")  # source distributions from PyPI (testing.realrepos)


@dataclass(frozen=True)
class Served:
    """A repository ready to serve: its git directory and what the emulator says of it."""

    full_name: str
    shape: str
    git_dir: Path
    license: str | None
    subfolder: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Row:
    repo: str
    shape: str
    target: str  # "whole" or the subfolder
    judged: int
    false: int
    unjudged: int
    missing: tuple[str, ...]
    check_wrong: tuple[str, ...]  # contradicted by the app's check, true by the judge
    coverage: bool
    cut_names_all: bool | None  # None: not the cut tree
    about_folder: bool | None  # None: not a subfolder run
    wall_s: float
    requests: int
    writer: str
    false_statements: tuple[str, ...]
    note: str = ""

    def cells(self) -> dict[str, str]:
        def yes(value: bool | None) -> str:
            return "—" if value is None else "yes" if value else "NO"

        return {
            "repository": self.repo,
            "target": self.target,
            "judged": str(self.judged),
            "false": str(self.false),
            "unjudged": str(self.unjudged),
            "missing key facts": ", ".join(self.missing) or "none",
            "check ✗ on true": str(len(self.check_wrong)),
            "coverage line": yes(self.coverage),
            "cut: all top folders": yes(self.cut_names_all),
            "subfolder: about it": yes(self.about_folder),
            "wall s": f"{self.wall_s:.1f}",
            "GitHub requests": str(self.requests),
        }


def has_coverage(events: list[ev.Event]) -> bool:
    """The run carries a coverage ledger: the finished run's ``RunStats.coverage`` names at least one
    repository (read by structure, never from the report's text)."""
    last = events[-1] if events else None
    return isinstance(last, ev.RunFinished) and bool(last.stats.coverage)


def failed_tools(events: list[ev.Event]) -> list[str]:
    """The tool calls that failed or came back degraded, with their error."""
    return [
        f"{e.tool} {'degraded' if e.ok else 'failed'}: {e.error or e.cause or ''}".strip()
        for e in events
        if isinstance(e, ev.ToolCallFinished) and (not e.ok or e.degraded)
    ]


def corpus(config: BenchConfig, mirror: Path, workdir: Path) -> tuple[list[Served], list[str]]:
    """The repositories this run can serve, and a reason for each one it cannot."""
    wanted = set(config.repos)
    served: list[Served] = []
    skipped: list[str] = []
    for entry in CORPUS:
        if wanted and entry.full_name not in wanted:
            continue
        git_dir = mirror / entry.full_name.replace("/", "+") / "repo"
        if not (git_dir / "HEAD").is_file():
            skipped.append(f"{entry.full_name}: skipped, no git repository at {git_dir}")
            continue
        served.append(Served(entry.full_name, entry.shape, git_dir, entry.license, entry.subfolder))
    for real in REAL_REPOS:
        if real.full_name not in SDISTS or (wanted and real.full_name not in wanted):
            continue
        if config.quick:
            skipped.append(f"{real.full_name}: skipped in --quick (a download from PyPI)")
            continue
        try:
            repo = build(real, CACHE)
        except (OSError, subprocess.CalledProcessError) as exc:
            skipped.append(f"{real.full_name}: skipped, its sdist could not be fetched ({exc})")
            continue
        served.append(Served(real.full_name, f"Python sdist {real.requirement}", repo, real.license))
    if not wanted or CUT_NAME in wanted:
        cut, reason = cut_tree(mirror, workdir / "cut-tree", quick=config.quick)
        if cut is not None:
            served.append(cut)
        else:
            skipped.append(f"{CUT_NAME}: skipped, {reason}")
    return served, skipped


def cut_tree(mirror: Path, where: Path, *, quick: bool) -> tuple[Served | None, str]:
    """A repository past GitHub's 100,000-entry cut: the typescript-eslint and docker/cli trees under
    15 top-level folders, made with ``git mktree`` over the mirrors' objects (alternates: no copy)."""
    if quick:
        return None, "not built in --quick"
    sources = [mirror / name / "repo" for name in ("typescript-eslint+typescript-eslint", "docker+cli")]
    absent = [str(s) for s in sources if not (s / "HEAD").is_file()]
    if absent:
        return None, f"its source trees are absent ({', '.join(absent)})"
    if where.exists():
        subprocess.run(["rm", "-rf", str(where)], check=True)
    git = ["git", "-C", str(where)]
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(where)], check=True)
    (where / "objects" / "info" / "alternates").write_text(
        "".join(f"{(s / 'objects').resolve()}\n" for s in sources), encoding="utf-8"
    )
    trees = [_run(["git", "-C", str(s), "rev-parse", "HEAD^{tree}"]) for s in sources]
    license_blob = _run(["git", "-C", str(sources[0]), "rev-parse", "HEAD:LICENSE"])
    readme = _run(
        [*git, "hash-object", "-w", "--stdin"],
        stdin=f"# Cut tree\n\n{CUT_FOLDERS} real trees side by side, past GitHub's 100,000-entry cut.\n",
    )
    folders = [
        f"040000 tree {trees[i % 2]}\t{'ts' if i % 2 == 0 else 'cli'}-{i + 1:02d}" for i in range(CUT_FOLDERS)
    ]
    listing = "\n".join(
        [f"100644 blob {license_blob}\tLICENSE", f"100644 blob {readme}\tREADME.md", *folders]
    )
    root = _run([*git, "mktree"], stdin=listing + "\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2026-01-01T12:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T12:00:00Z",
    }
    ident = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid"]
    commit = _run(["git", "-C", str(where), *ident, "commit-tree", root, "-m", "Cut tree"], env=env)
    _run([*git, "update-ref", "refs/heads/main", commit])
    entries = int(_run(["sh", "-c", f"git -C {where} ls-tree -r -t main | wc -l"]))
    note = (
        f"{entries:,} entries (GitHub cuts at 100,000; the emulator cuts the recursive tree by entry count)"
    )
    return Served(CUT_NAME, f"cut tree: {entries:,} entries", where, "MIT", note=note), ""


def _run(args: list[str], *, stdin: str | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, check=True, env=env)
    return done.stdout.strip()


async def analyse(served: Served, target: str, cache: Path) -> tuple[list[ev.Event], float, int]:
    with GitHubEmulator() as emu:
        emu.add_repo(served.full_name, served.git_dir, license=served.license)
        # The emulator reads a 100k-entry tree from git far slower than GitHub answers it; a loaded
        # machine must not turn that into a timeout the app would not meet on GitHub.
        settings = Settings(github_api_url=emu.base_url, cache_dir=cache, github_read_timeout=120.0)
        started = time.monotonic()
        run = await run_once(settings, "", target=target, turn_timeout=600.0)
        return run.events, time.monotonic() - started, len(emu.requests)


def measure_one(served: Served, subfolder: str | None, whole_report: str, workdir: Path) -> tuple[Row, str]:
    branch = _run(["git", "-C", str(served.git_dir), "symbolic-ref", "--short", "HEAD"])
    target = served.full_name
    if subfolder:
        target = f"https://github.com/{served.full_name}/tree/{branch}/{subfolder}"
    stem = served.full_name.replace("/", "_") + (f"--{subfolder.replace('/', '_')}" if subfolder else "")
    events, wall, requests = asyncio.run(analyse(served, target, workdir / "cache" / stem))
    last = events[-1]
    report = last.report if isinstance(last, ev.RunFinished) else ""
    truth = Truth.read(served.git_dir, scope=subfolder or "")
    judgement = judge(report, truth, served.full_name)
    check = next((e for e in events if isinstance(e, ev.ClaimsChecked)), None)
    wrong = claim_check_errors(check.claims if check else (), judgement, truth, served.full_name)
    cut = names_every_top_folder(judgement, truth) if served.full_name == CUT_NAME else None
    row = Row(
        repo=served.full_name,
        shape=served.shape,
        target=subfolder or "whole",
        judged=judgement.judged,
        false=len(judgement.false),
        unjudged=judgement.unjudged,
        missing=judgement.missing,
        check_wrong=tuple(wrong),
        coverage=has_coverage(events),
        cut_names_all=cut[0] if cut else None,
        about_folder=about_folder(judgement, subfolder, same_as_whole=report == whole_report)
        if subfolder
        else None,
        wall_s=wall,
        requests=requests,
        writer=last.writer if isinstance(last, ev.RunFinished) else f"failed: {getattr(last, 'message', '')}",
        false_statements=tuple(f"{s.kind}: {s.text}" for s in judgement.false),
        note="; ".join(
            filter(
                None,
                [
                    served.note,
                    f"top folders not named: {', '.join(cut[1])}" if cut and cut[1] else "",
                    *failed_tools(events),
                ],
            )
        ),
    )
    reports = os.environ.get("BENCH_REPORTS")
    if reports:
        folder = Path(reports)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{stem}.md").write_text(report, encoding="utf-8")
        verdicts = [dataclasses.asdict(s) for s in judgement.statements]
        (folder / f"{stem}.verdicts.json").write_text(
            json.dumps(
                {"missing": judgement.missing, "check_wrong": wrong, "statements": verdicts}, indent=1
            ),
            encoding="utf-8",
        )
    return row, report


def measure(config: BenchConfig, workdir: Path) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    mirror = Path(config.mirror) if config.mirror else MIRROR
    served, skipped = corpus(config, mirror, workdir)
    if not served:
        reason = f"no repository of the corpus is on this machine (looked under {mirror})"
        return Section(key="realrepos", title="Real repositories", notes=skipped, skipped=reason)
    rows: list[Row] = []
    for repo in served:
        row, whole = measure_one(repo, None, "", workdir)
        rows.append(row)
        if repo.subfolder:
            rows.append(measure_one(repo, repo.subfolder, whole, workdir)[0])
    return section(rows, skipped, mirror)


def section(rows: list[Row], skipped: list[str], mirror: Path) -> Section:
    metrics = [
        Metric(
            name=f"{r.repo} · {r.target}",
            value=f"{r.false} false / {r.judged} judged",
            target="0 false",
            met=r.false == 0,
            note=f"missing: {', '.join(r.missing) or 'none'}; check ✗ on true: {len(r.check_wrong)}; "
            f"{r.unjudged} unjudged; {r.wall_s:.1f} s; {r.requests} GitHub requests; writer {r.writer}",
        )
        for r in rows
    ]
    cut = [r for r in rows if r.cut_names_all is not None]
    sub = [r for r in rows if r.about_folder is not None]
    metrics += [
        Metric(name="false statements, all reports", value=sum(r.false for r in rows), target="0",
               met=sum(r.false for r in rows) == 0),
        Metric(name="key facts missing, all reports", value=sum(len(r.missing) for r in rows), target="0",
               met=not any(r.missing for r in rows)),
        Metric(name="claim check ✗ on true statements", value=sum(len(r.check_wrong) for r in rows), target="0",
               met=not any(r.check_wrong for r in rows)),
        Metric(name="reports with a coverage line", value=f"{sum(r.coverage for r in rows)}/{len(rows)}",
               target="all", met=all(r.coverage for r in rows)),
        Metric(name="cut tree names every top-level folder", value=_yes_all(cut), target="yes",
               met=all(r.cut_names_all for r in cut) if cut else None),
        Metric(name="subfolder reports about their folder", value=_yes_all(sub), target="all",
               met=all(r.about_folder for r in sub) if sub else None),
    ]  # fmt: skip
    notes = [
        f"repositories from {mirror}; offline planner (no key); emulator without latency; "
        "GitHub read timeout 120 s (the emulator reads big trees from git slowly)",
        *skipped,
    ]
    for r in rows:
        notes += [f"{r.repo} · {r.target}: {r.note}"] if r.note else []
        notes += [f"{r.repo} · {r.target}: FALSE {s}" for s in r.false_statements[:12]]
        notes += [f"{r.repo} · {r.target}: check ✗ on true {c}" for c in r.check_wrong]
    return Section(
        key="realrepos",
        title="Real repositories",
        metrics=metrics,
        notes=notes,
        table=[r.cells() for r in rows],
    )


def _yes_all(rows: list[Row]) -> str:
    if not rows:
        return "not measured"
    good = sum(bool(r.cut_names_all if r.cut_names_all is not None else r.about_folder) for r in rows)
    return f"{good}/{len(rows)}"
