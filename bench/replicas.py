"""Section replicas: 1 against 2 replicas behind the sticky proxy, side by side in one run.

Each stack is ``scripts/replicas.sh N`` as an operator runs it (its own ``redis-server``, N ``python
app.py`` processes, nginx), with no model key (the deterministic planner: the work measured is the
app's own) against one GitHub emulator in this process. ``gradio_client`` sessions call the proxy's
``/run_analysis`` like browser tabs; the proxy's cookie keeps each on one replica, and a session is
pinned to a replica by sending that cookie itself.

* **saturation**: ``config.sessions`` sessions released together (on fresh repository names, so every
  run reads GitHub), bursts in the order 1 2 2 1 so a shared machine's drift falls on both stacks alike:
  analyses per minute (completed / burst wall), p95 latency over a single analysis alone on the same
  stack, and app CPU per analysis (the replicas' CPU seconds from ``/proc``, over the analyses).
* **budgets**: a third stack in hosted mode (``SPACE_ID`` set, ``RUNS_PER_HOUR`` small), one visitor
  asking ``RUNS_PER_HOUR + 2`` analyses, alternately pinned to replica 1 and 2: exactly
  ``RUNS_PER_HOUR`` must run when the budget is shared.
* **warm re-analysis**: a repository analysed on replica 1, then again on replica 2: the GitHub requests
  the second run made that counted against the rate limit (0 when the HTTP cache is shared).

The machine's load average is printed beside the figures (``uptime``): on a shared machine absolute
seconds mean little, ratios and CPU seconds more.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio_client.utils as client_utils  # type: ignore[import-untyped]
import httpx
from gradio_client import Client

from bench.app_server import ROOT, cpu_seconds
from bench.concurrency import percentile
from bench.config import BenchConfig
from bench.table import Metric, Section
from testing.app import api_client, free_port
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import sample_python_project

SCRIPT = ROOT / "scripts" / "replicas.sh"
OWNER = "acme"
COOKIE = "ra_replica"
STARTUP_TIMEOUT = 600.0  # three stacks import Gradio at once on a busy 2-core machine
HOSTED_RUNS_PER_HOUR = 3
TARGET_SPEEDUP = 1.5
TARGET_RATIO = 1.5
# One TLS context for every client: gradio_client opens a new httpx client per request (the heartbeat
# and the stream included), and without one of its own each loads the CA bundle again (ssl's
# create_default_context: 61% of the benchmark process's CPU in a burst, more than a replica's work,
# on plain-HTTP loopback URLs that never use it). The same verification, built once.
_TLS = ssl.create_default_context()
CANCEL_POLL_SECONDS = 0.5
# Settings the stacks must not inherit from whoever runs the benchmark (keys, a model, a Space's mode).
_SCRUBBED = (
    "GITHUB_TOKEN", "API_KEY", "HF_TOKEN", "LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL", "SPACE_ID",
    "GRADIO_SERVER_NAME", "HOST", "MCP_SERVER", "REDIS_URL", "REPLICAS_UPSTREAMS",
)  # fmt: skip


def missing_prerequisite() -> str | None:
    """Why the section cannot run here (a Debian package is absent), else None."""
    for tool in ("redis-server", "redis-cli", "nginx"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


def _check_for_cancel(helper: Any, headers: Any, cookies: Any, ssl_verify: Any) -> None:
    """gradio_client's ``check_for_cancel`` polling every ``CANCEL_POLL_SECONDS`` instead of 50 ms: one
    thread per job wakes up 20 times a second to see whether the job was cancelled (never, here), 26% of
    the benchmark process's CPU in a burst of 20. The job's result does not wait for it (gradio_client
    returns when the stream ends); what it does on a cancel is unchanged."""
    while True:
        time.sleep(CANCEL_POLL_SECONDS)
        with helper.lock:
            if helper.should_cancel:
                break
            if helper.thread_complete:
                raise concurrent.futures.CancelledError()
    if helper.event_id:
        httpx.post(
            helper.reset_url,
            json={"event_id": helper.event_id},
            headers=headers,
            cookies=cookies,
            verify=ssl_verify,
        )
    raise concurrent.futures.CancelledError()


@contextmanager
def light_clients() -> Iterator[None]:
    """The benchmark's clients with :func:`_check_for_cancel`, for as long as this section runs."""
    own = client_utils.check_for_cancel
    client_utils.check_for_cancel = _check_for_cancel
    try:
        yield
    finally:
        client_utils.check_for_cancel = own


def run_queue_wait(pid: int) -> float:
    """Seconds the threads of ``pid`` have waited on a run queue (``/proc/<pid>/task/*/schedstat``'s
    second field): time it was ready to run and got no CPU. 0 where the kernel has no schedstat."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(task.read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


@dataclass(frozen=True, kw_only=True)
class Stack:
    """One running ``scripts/replicas.sh``: the proxy's URL and the replicas' process ids."""

    replicas: int
    url: str
    pids: tuple[int, ...]
    emulator: GitHubEmulator
    project: Path

    def waited(self) -> float:
        """Seconds the replicas' threads have spent runnable but waiting for a CPU so far."""
        return sum(run_queue_wait(pid) for pid in self.pids)

    def cpu(self) -> float:
        """CPU seconds all the replicas have used so far."""
        return sum(cpu_seconds(pid) for pid in self.pids)

    def add_repos(self, prefix: str, count: int) -> list[str]:
        names = [f"{OWNER}/{prefix}-{i:02d}" for i in range(1, count + 1)]
        for name in names:
            self.emulator.add_repo(name, self.project, description="Count words, fast.", stars=42)
        return names

    def client(self, replica: int | None = None) -> Client:
        """A session through the proxy; ``replica`` pins it by sending the proxy's cookie itself."""
        cookies = {COOKIE: str(replica)} if replica is not None else {}
        return api_client(self.url, ssl_verify=_TLS, httpx_kwargs={"cookies": cookies})


def stack_environment(emulator: GitHubEmulator, workdir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env.update(
        GITHUB_API_URL=emulator.base_url,
        CACHE_DIR=str(workdir / "cache"),
        LOG_LEVEL="WARNING",
        GRADIO_ANALYTICS_ENABLED="False",
        PYTHONUNBUFFERED="1",
        PYTHON=os.environ.get(
            "PYTHON", sys.executable
        ),  # the interpreter running the bench, activated or not
        REPLICAS_DIR=str(workdir / "run"),
        REPLICAS_READY_SECONDS=str(int(STARTUP_TIMEOUT)),
    )
    env.update(extra)
    return env


@contextmanager
def started(replicas: int, workdir: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """``scripts/replicas.sh replicas PORT`` in its own process group; TERM (it stops its children) on exit."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    with (workdir / "replicas.log").open("wb") as sink:
        process = subprocess.Popen(
            ["bash", str(SCRIPT), str(replicas), str(port)],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_ready(process: subprocess.Popen[bytes], workdir: Path, replicas: int) -> tuple[str, tuple[int, ...]]:
    """Poll until the proxy answers; the proxy's URL and the replicas' pids (from REPLICAS_DIR/apps)."""
    url = f"http://127.0.0.1:{process.args[-1]}/"  # type: ignore[index]
    deadline = time.monotonic() + STARTUP_TIMEOUT
    with httpx.Client(trust_env=False, timeout=2.0) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                log = (workdir / "replicas.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"replicas.sh {replicas} exited with {process.returncode}:\n{log}")
            try:
                if client.get(url + "config").status_code == 200:
                    table = (workdir / "run" / "apps").read_text().split("\n")
                    return url, tuple(int(line.split()[2]) for line in table if line.strip())
            except httpx.TransportError:
                pass
            time.sleep(0.5)
    raise RuntimeError(f"replicas.sh {replicas} not ready within {STARTUP_TIMEOUT:.0f} s")


def analyse(client: Client, repo: str) -> str | None:
    """Run one analysis; None if it finished with its report, else the status it ended with."""
    _chatbot, report, _stats, status, *_ = client.predict(repo, "", api_name="/run_analysis")
    if not str(report).startswith(f"# {repo}") or "**Done" not in str(status):
        return f"{repo}: {str(status)[-160:]!r}"
    return None


@dataclass(frozen=True, kw_only=True)
class Burst:
    sessions: int
    latencies: list[float]
    failures: list[str]
    wall: float
    cpu: float
    bench_cpu: float  # this process (emulator + clients) during the burst
    waited: float  # the replicas' seconds runnable without a CPU during the burst
    spread: dict[str, int]  # replica number (the proxy's cookie) -> sessions it served

    @property
    def per_minute(self) -> float:
        return 60.0 * len(self.latencies) / self.wall


def single(stack: Stack, runs: int, prefix: str) -> list[float]:
    """One session alone: a warm-up analysis, then ``runs`` timed ones on fresh repositories."""
    client = stack.client()
    try:
        warm, *timed = stack.add_repos(prefix, runs + 1)
        if problem := analyse(client, warm):
            raise RuntimeError(f"the warm-up run failed: {problem}")
        latencies = []
        for repo in timed:
            began = time.perf_counter()
            if problem := analyse(client, repo):
                raise RuntimeError(f"a single run failed: {problem}")
            latencies.append(time.perf_counter() - began)
        return latencies
    finally:
        client.close()


def burst(stack: Stack, sessions: int, prefix: str) -> Burst:
    """``sessions`` clients connected through the proxy first (the cookie spreads them), then released
    together, each on its own repository; latency from the common start."""
    repos = stack.add_repos(prefix, sessions)
    clients = [stack.client() for _ in range(sessions)]
    spread: dict[str, int] = {}
    for client in clients:
        replica = client.cookies.get(COOKIE, "?")
        spread[replica] = spread.get(replica, 0) + 1
    latencies: list[float] = []
    failures: list[str] = []
    gate = threading.Barrier(sessions + 1)
    lock = threading.Lock()

    def session(i: int) -> None:
        gate.wait()
        began = time.perf_counter()
        try:
            problem = analyse(clients[i], repos[i])
        except Exception as exc:  # noqa: BLE001 - the benchmark's edge: a failed session is a figure
            problem = f"{repos[i]}: {exc!r}"
        with lock:
            if problem is None:
                latencies.append(time.perf_counter() - began)
            else:
                failures.append(problem)

    threads = [threading.Thread(target=session, args=(i,)) for i in range(sessions)]
    for thread in threads:
        thread.start()
    cpu_before, own_before, waited_before = stack.cpu(), time.process_time(), stack.waited()
    gate.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    cpu = stack.cpu() - cpu_before
    waited = stack.waited() - waited_before
    own = time.process_time() - own_before
    for client in clients:
        client.close()
    return Burst(
        sessions=sessions,
        latencies=latencies,
        failures=failures,
        wall=wall,
        cpu=cpu,
        bench_cpu=own,
        waited=waited,
        spread=spread,
    )


def budget_runs(stack: Stack, asked: int) -> tuple[int, list[str]]:
    """One visitor (one address) asking ``asked`` analyses, alternately on replica 1 and 2: how many
    ran, and the statuses of the refused ones."""
    ran, refused = 0, []
    for i, repo in enumerate(stack.add_repos("budget", asked)):
        client = stack.client(replica=1 + i % 2)
        try:
            problem = analyse(client, repo)
        finally:
            client.close()
        if problem is None:
            ran += 1
        else:
            refused.append(problem)
    return ran, refused


def warm_requests(stack: Stack) -> tuple[int, int]:
    """A repository analysed on replica 1, then on replica 2: (counted requests of the first run, of
    the second)."""
    (repo,) = stack.add_repos("warm", 1)
    counted = []
    for replica in (1, 2):
        stack.emulator.clear_log()
        client = stack.client(replica=replica)
        try:
            if problem := analyse(client, repo):
                raise RuntimeError(f"the warm re-analysis failed on replica {replica}: {problem}")
        finally:
            client.close()
        counted.append(sum(1 for r in stack.emulator.requests if r.counted))
    return counted[0], counted[1]


def least_ratio(bursts: list[Burst], single: float) -> float:
    """The lowest p95 / single the machine's cores allow for these bursts, whatever the app does.

    The 95th-percentile session cannot finish before 95% of the burst's work is done, and that work is
    CPU seconds (the replicas', and this process's: the emulator and the clients) shared by
    ``os.cpu_count()`` cores; nginx's and redis-server's few are left out, so the bound is low if
    anything. Mean over the bursts."""
    cores = os.cpu_count() or 1
    floors = [0.95 * (b.cpu + b.bench_cpu) / cores for b in bursts]
    return statistics.mean(floors) / single if floors else float("nan")


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def measure(config: BenchConfig, workdir: Path) -> Section:
    if reason := missing_prerequisite():
        return Section(key="replicas", title="Replicas", skipped=reason)
    n, rounds = config.sessions, 1 if config.quick else 2
    project = workdir / "widgets"
    sample_python_project(project)
    loads = [load_average()]
    with ExitStack() as exits:
        exits.enter_context(light_clients())
        emulator = exits.enter_context(GitHubEmulator())
        emulator.limit_unauthenticated = 1_000_000  # every session shares one loopback address
        emulator.latency(config.github_latency)
        plain = {"MAX_CONCURRENT_RUNS": str(n)}
        hosted = {"SPACE_ID": "bench/replicas", "RUNS_PER_HOUR": str(HOSTED_RUNS_PER_HOUR)}
        wanted = {"1": (1, plain), "2": (2, plain), "hosted": (2, hosted)}
        processes = {
            name: exits.enter_context(
                started(count, workdir / name, stack_environment(emulator, workdir / name, **extra))
            )
            for name, (count, extra) in wanted.items()
        }
        stacks = {}
        for name, process in processes.items():
            url, pids = wait_ready(process, workdir / name, wanted[name][0])
            stacks[name] = Stack(
                replicas=wanted[name][0], url=url, pids=pids, emulator=emulator, project=project
            )
        loads.append(load_average())
        alone = {name: statistics.median(single(stacks[name], config.runs, f"single{name}")) for name in "12"}
        bursts: dict[str, list[Burst]] = {"1": [], "2": []}
        for i, name in enumerate(["1", "2", "2", "1"][: 2 * rounds]):
            bursts[name].append(burst(stacks[name], n, f"burst{i}"))
        loads.append(load_average())
        ran, refused = budget_runs(stacks["hosted"], HOSTED_RUNS_PER_HOUR + 2)
        first, second = warm_requests(stacks["2"])
        loads.append(load_average())
    return section(
        config, alone=alone, bursts=bursts, budget=(ran, refused), warm=(first, second), loads=loads
    )


def section(
    config: BenchConfig,
    *,
    alone: dict[str, float],
    bursts: dict[str, list[Burst]],
    budget: tuple[int, list[str]],
    warm: tuple[int, int],
    loads: list[str],
) -> Section:
    n = config.sessions
    metrics: list[Metric] = []
    rate: dict[str, float] = {}
    for name in ("1", "2"):
        done = [value for b in bursts[name] for value in b.latencies]
        runs = sum(b.sessions for b in bursts[name])
        rate[name] = sum(len(b.latencies) for b in bursts[name]) * 60.0 / sum(b.wall for b in bursts[name])
        ratio = percentile(done, 95) / alone[name]
        label = f"{name} replica{'s' if name != '1' else ''}"
        metrics += [
            Metric(name=f"{label}: single run (median of {config.runs})", value=alone[name], unit="s"),
            Metric(name=f"{label}: completed, {n} at once", value=f"{len(done)}/{runs}"),
            Metric(name=f"{label}: analyses per minute, {n} at once", value=rate[name], unit="/min"),
            Metric(name=f"{label}: p95 latency, {n} at once", value=percentile(done, 95), unit="s"),
            Metric(
                name=f"{label}: p95 / single",
                value=round(ratio, 3),
                unit="x",
                target=f"≤ {TARGET_RATIO}" if name == "2" else "",
                met=ratio <= TARGET_RATIO if name == "2" else None,
            ),
            Metric(
                name=f"{label}: app CPU per analysis",
                value=sum(b.cpu for b in bursts[name]) / max(1, len(done)),
                unit="s",
            ),
            Metric(
                name=f"{label}: least p95 / single this machine allows",
                value=round(least_ratio(bursts[name], alone[name]), 3),
                unit="x",
            ),
        ]
    speedup = rate["2"] / rate["1"]
    ran, refused = budget
    first, second = warm
    metrics += [
        Metric(
            name="analyses per minute, 2 replicas / 1",
            value=round(speedup, 3),
            unit="x",
            target=f"≥ {TARGET_SPEEDUP}",
            met=speedup >= TARGET_SPEEDUP,
        ),
        Metric(
            name=f"a visitor's runs across 2 replicas (RUNS_PER_HOUR={HOSTED_RUNS_PER_HOUR})",
            value=ran,
            target=f"= {HOSTED_RUNS_PER_HOUR}",
            met=ran == HOSTED_RUNS_PER_HOUR,
        ),
        Metric(name="warm re-analysis: counted requests on replica 1 (cold)", value=first),
        Metric(
            name="warm re-analysis: counted requests on replica 2 after 1",
            value=second,
            target="= 0",
            met=second == 0,
        ),
    ]
    spreads = "; ".join(
        f"{name}: " + ", ".join(f"replica {k}: {v}" for k, v in sorted(b.spread.items()))
        for name in ("1", "2")
        for b in bursts[name]
    )
    notes = [
        "each stack is `scripts/replicas.sh N` (its own redis-server, N `python app.py`, nginx with the "
        "ra_replica cookie), no model key (the deterministic planner), GitHub emulator in this process "
        f"({config.github_latency:g} s per request), MAX_CONCURRENT_RUNS={n} per replica",
        f"bursts of {n} gradio_client sessions through the proxy, in the order 1 2 2 1 over {2 * len(bursts['1'])} "
        "bursts; analyses per minute = completed / burst wall; app CPU = the replicas' user+system CPU "
        "during the bursts over the analyses",
        f"sessions per replica by the proxy's cookie: {spreads}",
        "CPU seconds in the bursts (replicas | this process: emulator and clients) / wall: "
        + "; ".join(
            f"{name}: {b.cpu:.1f} | {b.bench_cpu:.1f} / {b.wall:.1f}"
            for name in ("1", "2")
            for b in bursts[name]
        ),
        "the replicas' seconds ready to run but waiting for a CPU (run queue, /proc schedstat) against "
        "their CPU seconds, per burst: "
        + "; ".join(
            f"{name}: {b.waited:.1f} waiting | {b.cpu:.1f} running"
            for name in ("1", "2")
            for b in bursts[name]
        )
        + " (waiting well above running: the machine's other work, not the stack, set the wall figures)",
        "least p95 / single: 95% of a burst's CPU seconds (the replicas' and this process's) shared by "
        f"the {os.cpu_count()} cores, over a single run: no app and no scheduling can finish the 95th "
        "session sooner on this machine",
        f"budget: one visitor asked {HOSTED_RUNS_PER_HOUR + 2} analyses alternately on replica 1 and 2 of a "
        f"hosted stack (SPACE_ID set); {ran} ran",
        *refused[:3],
        f"load average (1, 5, 15 min) at start, stacks up, after bursts, at end: {' | '.join(loads)} on "
        f"{os.cpu_count()} cores; the emulator and the clients run in the benchmark's process on the same cores",
        *[failure for name in ("1", "2") for b in bursts[name] for failure in b.failures[:3]],
    ]
    return Section(key="replicas", title="Replicas", metrics=metrics, notes=notes)
