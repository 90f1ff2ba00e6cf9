"""Section bigtree: a 100,000-entry tree, planned within 0.5 s of CPU, and nobody else's page stalls.

The tree is made at bench time from real trees, never stored: a bare repository whose root holds whole
trees of real projects (the bare git directories under ``/work/.mirror/*/repo``, or the ones named in
``BIGTREE_SOURCES``, colon-separated) side by side under numbered folders until about 100,000 entries,
their objects borrowed through git's ``alternates`` (nothing is copied).

(a) Offline planning CPU: the planner's steps after the overview (the one that derives the reads from
the tree, and the next one, as a run makes them), given the tree as the tool returned it; the process's
CPU clock, median of ``config.runs``, without a question and with one. Measured in a child Python whose
``sys.path`` starts at the checkout measured, so ``--baseline <checkout>`` runs the same code against
another version of the planner side by side.

(b) Another page's latency: the app (``python app.py``, no model key: the offline planner) analyses the
100,000-entry repository as a local path (over the GitHub emulator a tree this size is past the
client's 16 MB answer cap, and past GitHub's own 7 MB cut); meanwhile another client asks the same
server for what a new page asks first, the page (``/``) and its ``/config``, every 50 ms. p50 and max
of those answers while the analysis ran, and idle before;
the app process's CPU seconds over the analysis, less the probes' (each costs what one did idle): a
busy shared machine stretches wall times and latencies far more than CPU time.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.app_server import _SCRUBBED, ROOT, _stop, _wait_ready
from bench.config import BenchConfig
from bench.table import Metric, Section
from testing.app import api_client, free_port
from testing.emulator.gitrepo import git_env

ENTRIES = 100_000
PLAN_TARGET_S = 0.5
LATENCY_TARGET_S = 0.1
PROBE_EVERY = 0.05
QUESTION = "How is it tested?"

# Runs in a child Python with the measured checkout first on sys.path (argv: the entries file, the
# question, the repetitions); prints the CPU seconds of each repetition as JSON. Only APIs every version
# since the offline planner has: FileTree, ToolResult, overview_calls, OfflinePlanner.next_step.
_PLAN_CPU = """
import json, sys, time
from agent_core.agent.planner import OfflinePlanner
from agent_core.repo import RepoRef
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools.results import ToolResult
from agent_core.tools.registry import overview_calls

lines = open(sys.argv[1], encoding="utf-8").read().split("\\0")
entries = tuple(TreeEntry(path=l[1:], type="dir" if l[0] == "d" else "file", size=1) for l in lines if l)
tree = FileTree(ref="main", path="", entries=entries)
repo = RepoRef(owner="acme", name="big")
results = tuple(
    ToolResult(call_id=str(i), tool=tool, arguments=args, ok=True, observation={}, repo=repo,
               value=tree if tool == "get_file_tree" else None)
    for i, (tool, args) in enumerate(overview_calls(repo))
)
spent = []
for _ in range(int(sys.argv[3])):
    planner = OfflinePlanner([repo], question=sys.argv[2])
    started = time.process_time()
    planner.next_step(results)
    planner.next_step(results)
    spent.append(time.process_time() - started)
print(json.dumps(spent))
"""


def sources() -> list[Path]:
    """The real trees to repeat: ``BIGTREE_SOURCES`` (colon-separated git dirs), else the mirrors."""
    named = os.environ.get("BIGTREE_SOURCES", "")
    found = named.split(":") if named else sorted(glob.glob("/work/.mirror/*/repo"))
    return [Path(p) for p in found if p and Path(p, "objects").is_dir()]


def _git(git_dir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], input=stdin, capture_output=True, check=True, env=git_env()
    ).stdout


def big_repository(target: Path, real: Sequence[Path], entries: int = ENTRIES) -> int:
    """A bare repository at ``target`` of whole real trees side by side, at most ``entries`` entries;
    returns how many it has. Objects are borrowed (``objects/info/alternates``), not copied."""
    _git(target, "init", "-q", "--bare", "-b", "main")
    (target / "objects/info/alternates").write_text("".join(f"{p.resolve()}/objects\n" for p in real))
    trees = []
    for git_dir in real:
        sha = _git(git_dir, "rev-parse", "HEAD^{tree}").decode().strip()
        size = _git(git_dir, "ls-tree", "-r", "-t", "HEAD").count(b"\n")
        trees.append((git_dir.parent.name.split("+")[-1], sha, size))
    lines: list[str] = []
    total = 0
    while fits := [t for t in trees if total + t[2] + 1 <= entries]:
        name, sha, size = fits[len(lines) % len(fits)]
        lines.append(f"040000 tree {sha}\t{name}-{len(lines):02d}")
        total += size + 1
    root = _git(target, "mktree", stdin="\n".join(lines).encode() + b"\n").decode().strip()
    commit = _git(target, "commit-tree", root, "-m", "Real trees side by side").decode().strip()
    _git(target, "update-ref", "refs/heads/main", commit)
    return total


def entries_file(repo: Path, out: Path) -> int:
    """The tree's entries as ``f<path>``/``d<path>`` records separated by NUL; returns their number."""
    records = []
    for record in _git(repo, "ls-tree", "-r", "-t", "-z", "HEAD").split(b"\0"):
        if record:
            meta, path = record.split(b"\t", 1)
            records.append(("d" if meta.split()[1] == b"tree" else "f") + path.decode("utf-8", "replace"))
    out.write_text("\0".join(records), encoding="utf-8")
    return len(records)


def plan_cpu(checkout: Path, entries: Path, question: str, runs: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, "-c", _PLAN_CPU, str(entries), question, str(runs)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    return [float(x) for x in json.loads(done.stdout)]


def cpu_seconds(pid: int) -> float:
    """The CPU seconds (user + system) process ``pid`` has spent so far; NaN where /proc is missing."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def offline_app(workdir: Path, checkout: Path) -> Iterator[tuple[str, int]]:
    """``python app.py`` of ``checkout`` with no model key (the offline planner); yields its URL and
    process id."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = {
        k: v for k, v in os.environ.items() if k not in _SCRUBBED and k not in ("API_KEY", "OPENAI_API_KEY")
    }
    port = free_port()
    env.update(
        CACHE_DIR=str(workdir / "cache"),
        LOG_LEVEL="WARNING",
        GRADIO_ANALYTICS_ENABLED="False",
        PYTHONUNBUFFERED="1",
        GRADIO_SERVER_PORT=str(port),
    )
    log = workdir / f"app-{port}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, str(checkout / "app.py")],
            cwd=workdir,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_ready(process, url, log)
        yield url, process.pid
    finally:
        _stop(process)


PROBED = ("config", "")  # a new page's first requests: its config, and the page


def probe(url: str, stop: threading.Event, latencies: list[float]) -> None:
    """Ask for each of :data:`PROBED` every ``PROBE_EVERY`` seconds until ``stop``; record each answer's
    latency (the two in turn: even indexes are ``/config``, odd ones the page)."""
    with httpx.Client(trust_env=False, timeout=60.0) as client:
        while not stop.is_set():
            for path in PROBED:
                started = time.perf_counter()
                client.get(url + path).raise_for_status()
                latencies.append(time.perf_counter() - started)
            stop.wait(PROBE_EVERY)


@dataclass(frozen=True, kw_only=True)
class Latencies:
    """What another page saw while the app analysed the big tree, and what the analysis cost."""

    idle: list[float]  # /config and page latencies before the analysis, in turn (see probe)
    busy: list[float]  # and during it
    wall: float  # the analysis's wall time
    cpu: float  # the app's CPU seconds over the analysis, less the probes' (their idle cost each)
    done: str  # "ok", or what went wrong


def latency_during_analysis(url: str, pid: int, target: str) -> Latencies:
    """``/config`` latencies idle and while ``target`` is analysed; the analysis's wall and CPU time."""
    idle: list[float] = []
    stop = threading.Event()
    timer = threading.Timer(2.0, stop.set)
    with httpx.Client(trust_env=False, timeout=120.0) as warm:  # the first answers build caches: not idle
        for _ in range(3):
            warm.get(url + "config").raise_for_status()
    spent = cpu_seconds(pid)
    timer.start()
    probe(url, stop, idle)
    per_probe = (cpu_seconds(pid) - spent) / max(1, len(idle))
    busy: list[float] = []
    stop = threading.Event()
    prober = threading.Thread(target=probe, args=(url, stop, busy), name="probe")
    # a generous timeout: on a busy shared machine the page's config can take seconds
    client = api_client(url, httpx_kwargs={"timeout": 120.0})
    try:
        started, spent = time.perf_counter(), cpu_seconds(pid)
        prober.start()
        _chatbot, report, _stats, status, *_ = client.predict(target, "", api_name="/run_analysis")
        wall = time.perf_counter() - started
    finally:
        stop.set()
        prober.join()
        client.close()
    cpu = cpu_seconds(pid) - spent - per_probe * len(busy)
    done = "ok" if str(report).startswith("# ") else f"no report: {str(status)[-200:]!r}"
    if "the tree was not read" in str(report):  # the coverage line: a tool timed out on a busy machine
        done += ", but the tree was not read"
    return Latencies(idle=idle, busy=busy, wall=wall, cpu=cpu, done=done)


def measure(config: BenchConfig, workdir: Path) -> Section:
    real = sources()
    if not real:
        return Section(
            key="bigtree",
            title="Big tree",
            notes=["no real trees: set BIGTREE_SOURCES to bare git directories (colon-separated)"],
        )
    workdir.mkdir(parents=True, exist_ok=True)
    repo = workdir / "big.git"
    count = big_repository(repo, real)
    listed = entries_file(repo, workdir / "entries")
    versions = {"this": ROOT} | ({"baseline": Path(config.baseline).resolve()} if config.baseline else {})
    runs = max(1, config.runs)
    metrics: list[Metric] = []
    notes = [
        f"tree: {listed:,} entries ({count:,} planned), {len(real)} real trees side by side: "
        + ", ".join(p.parent.name for p in real),
        f"planning: the process CPU clock of the two planner steps after the overview, median of {runs}",
    ]
    for name, checkout in versions.items():
        for question in ("", QUESTION):
            spent = plan_cpu(checkout, workdir / "entries", question, runs)
            value = statistics.median(spent)
            mine = name == "this"
            metrics.append(
                Metric(
                    name=f"{name}: offline planning CPU, {listed:,} entries"
                    + (f", question {QUESTION!r}" if question else ""),
                    value=value,
                    unit="s",
                    target=f"≤ {PLAN_TARGET_S}" if mine else "",
                    met=value <= PLAN_TARGET_S if mine else None,
                )
            )
    for name, checkout in versions.items():
        with offline_app(workdir / f"app-{name}", checkout) as (url, pid):
            seen = latency_during_analysis(url, pid, str(repo))
        mine = name == "this"
        for label, first in (("/config", 0), ("the page (/)", 1)):
            idle, busy = seen.idle[first :: len(PROBED)], seen.busy[first :: len(PROBED)]
            worst = max(busy, default=float("nan"))
            metrics += [
                Metric(name=f"{name}: {label} latency idle, p50", value=statistics.median(idle), unit="s"),
                Metric(
                    name=f"{name}: {label} latency during the analysis, p50",
                    value=statistics.median(busy),
                    unit="s",
                ),
                Metric(
                    name=f"{name}: {label} latency during the analysis, max",
                    value=worst,
                    unit="s",
                    target=f"≤ {LATENCY_TARGET_S}" if mine else "",
                    met=worst <= LATENCY_TARGET_S if mine else None,
                ),
            ]
        metrics += [
            Metric(name=f"{name}: the analysis's wall time", value=seen.wall, unit="s"),
            Metric(
                name=f"{name}: the app's CPU for the analysis (probes' taken out)", value=seen.cpu, unit="s"
            ),
        ]
        notes.append(f"{name}: {len(seen.busy)} requests during a {seen.wall:.1f} s analysis ({seen.done})")
    return Section(key="bigtree", title="Big tree", metrics=metrics, notes=notes)
