"""Section 4, concurrency: many simultaneous analyses through the app's queue, against one alone.

The real app runs in its own process (:mod:`bench.app_server`); ``gradio_client`` sessions call its
``/run_analysis`` endpoint like a browser tab would. First one session, alone (a warm-up run, then the
median of ``config.runs``); then ``config.sessions`` sessions released together from a barrier. Each
session's latency is from that common start to its result; a session counts as completed only when its
result carries its own report and a "Done" status. Meanwhile the app's ``VmRSS`` is sampled from
``/proc``; ``VmHWM`` (the kernel's exact high-water mark) gives the peak when it rose during the burst.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from gradio_client import Client  # type: ignore[import-untyped]

from bench.app_server import ROOT, ServedApp, cpu_seconds, rss_kib, served_app
from bench.config import BenchConfig
from bench.table import Metric, Section
from testing.app import api_client

DEFAULT_LIMIT = 4  # Settings.max_concurrent_runs
TARGET_RATIO = 1.5
SAMPLE_EVERY = 0.02  # seconds between two RSS readings
MIB = 1024.0


@dataclass(frozen=True, kw_only=True)
class Burst:
    """What ``sessions`` simultaneous analyses did."""

    sessions: int
    latencies: list[float]  # seconds, completed sessions only
    failures: list[str]
    wall: float
    peak_rss_kib: int
    app_cpu: float  # seconds of CPU the app process used during the burst
    model_in_flight: int
    github_in_flight: int

    @property
    def completed(self) -> int:
        return len(self.latencies)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100), linear between the two nearest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def new_client(app: ServedApp) -> Client:
    return api_client(app.url)


def analyse(client: Client, repo: str) -> str | None:
    """Run one analysis; None if it finished with its report, else what went wrong."""
    _chatbot, report, _stats, status, *_ = client.predict(repo, "", api_name="/run_analysis")
    if not str(report).startswith(f"# {repo}\n"):
        return f"{repo}: no report ({str(status)[-120:]!r})"
    if "**Done" not in str(status):
        return f"{repo}: status {str(status)[-120:]!r}"
    return None


def single_runs(app: ServedApp, runs: int, cpu: list[float] | None = None) -> list[float]:
    """One session alone: a warm-up analysis (not timed), then ``runs`` timed ones, each on a fresh repo.
    ``cpu``, when given, receives the app's CPU seconds per timed run."""
    client = new_client(app)
    try:
        warm, *timed = app.add_repos("single", runs + 1)
        if problem := analyse(client, warm):
            raise RuntimeError(f"the warm-up run failed: {problem}")
        latencies = []
        for repo in timed:
            used = cpu_seconds(app.pid)
            started = time.perf_counter()
            if problem := analyse(client, repo):
                raise RuntimeError(f"a single run failed: {problem}")
            latencies.append(time.perf_counter() - started)
            if cpu is not None:
                cpu.append(cpu_seconds(app.pid) - used)
        return latencies
    finally:
        client.close()


class RssSampler:
    """Reads a process's ``VmRSS`` every few milliseconds in a thread; ``peak_kib`` after ``stop()``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.hwm_before = rss_kib(pid)["VmHWM"]
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_kib = max(self.peak_kib, rss_kib(self.pid)["VmRSS"])
            self._stop.wait(SAMPLE_EVERY)

    def stop(self) -> int:
        """Stop sampling; the peak over the sampled period (exact if the kernel's high-water mark rose)."""
        self._stop.set()
        self._thread.join()
        hwm = rss_kib(self.pid)["VmHWM"]
        self.peak_kib = hwm if hwm > self.hwm_before else max(self.peak_kib, rss_kib(self.pid)["VmRSS"])
        return self.peak_kib


def simultaneous(app: ServedApp, sessions: int, prefix: str) -> Burst:
    """``sessions`` clients, connected first, then released together; each on its own repository."""
    repos = app.add_repos(prefix, sessions)
    clients = [new_client(app) for _ in range(sessions)]
    latencies: list[float | None] = [None] * sessions
    failures: list[str] = []
    gate = threading.Barrier(sessions + 1)
    lock = threading.Lock()

    def session(i: int) -> None:
        gate.wait()
        started = time.perf_counter()
        try:
            problem = analyse(clients[i], repos[i])
        except Exception as exc:  # noqa: BLE001 - the benchmark's edge: a failed session is a figure
            problem = f"{repos[i]}: {exc!r}"
        with lock:
            if problem is None:
                latencies[i] = time.perf_counter() - started
            else:
                failures.append(problem)

    threads = [threading.Thread(target=session, args=(i,), name=f"session-{i}") for i in range(sessions)]
    for thread in threads:
        thread.start()
    app.emulator.clear_log()
    model_peak_before = app.model.max_in_flight
    sampler = RssSampler(app.pid)
    cpu_before = cpu_seconds(app.pid)
    gate.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    app_cpu = cpu_seconds(app.pid) - cpu_before
    peak = sampler.stop()
    for client in clients:
        client.close()
    return Burst(
        sessions=sessions,
        latencies=[value for value in latencies if value is not None],
        failures=failures,
        wall=wall,
        peak_rss_kib=peak,
        app_cpu=app_cpu,
        model_in_flight=max(model_peak_before, app.model.max_in_flight),
        github_in_flight=app.emulator.max_in_flight,
    )


def burst_metrics(burst: Burst, single: float, *, label: str, target: bool) -> list[Metric]:
    n = burst.sessions
    p95 = percentile(burst.latencies, 95)
    ratio = p95 / single
    return [
        Metric(
            name=f"completed{label}",
            value=f"{burst.completed}/{n}",
            target=f"{n}/{n}" if target else "",
            met=burst.completed == n if target else None,
        ),
        Metric(name=f"p50 latency{label}", value=percentile(burst.latencies, 50), unit="s"),
        Metric(name=f"p95 latency{label}", value=p95, unit="s"),
        Metric(name=f"max latency{label}", value=max(burst.latencies, default=float("nan")), unit="s"),
        Metric(
            name=f"p95 / single{label}",
            value=round(ratio, 3),
            unit="x",
            target=f"≤ {TARGET_RATIO}" if target else "",
            met=ratio <= TARGET_RATIO if target else None,
        ),
    ]


def measure(config: BenchConfig, workdir: Path) -> Section:
    if config.baseline is not None:
        return compare(config, workdir, Path(config.baseline))
    n = config.sessions
    with served_app(config, workdir / "limit-n", max_concurrent_runs=n) as app:
        alone = single_runs(app, config.runs)
        after_one = rss_kib(app.pid)["VmRSS"]
        burst = simultaneous(app, n, "burst")
    single = statistics.median(alone)
    per_extra = (burst.peak_rss_kib - after_one) / max(1, n - 1)
    metrics = [
        Metric(name=f"single run (median of {len(alone)})", value=single, unit="s"),
        *burst_metrics(burst, single, label=f", {n} at once", target=True),
        Metric(name="app CPU per analysis (burst)", value=burst.app_cpu / n, unit="s"),
        Metric(name="peak RSS", value=burst.peak_rss_kib / MIB, unit="MiB"),
        Metric(name="RSS after single runs", value=after_one / MIB, unit="MiB"),
        Metric(name="RSS per extra session", value=per_extra / MIB, unit="MiB"),
    ]
    notes = [
        f"app served as `python app.py` in its own process with MAX_CONCURRENT_RUNS={n}"
        + (
            f": with the default limit ({DEFAULT_LIMIT}) the queue would run the {n} sessions "
            f"{DEFAULT_LIMIT} at a time"
            if n > DEFAULT_LIMIT
            else ""
        ),
        "every run (warm-up, single, simultaneous) analyses its own repository name (the same git project): "
        "with one shared name the app's HTTP cache would serve all but the first session without GitHub",
        f"{n} gradio_client sessions released together; latency = common start -> result; burst wall "
        f"{burst.wall:.2f} s; in flight at once: model {burst.model_in_flight}, GitHub {burst.github_in_flight}",
        "RSS = the app process's VmRSS sampled every 20 ms (VmHWM when it rose); per extra session = "
        f"(peak - RSS after single runs) / {max(1, n - 1)}",
        f"the app process used {burst.app_cpu:.2f} s of CPU in the {burst.wall:.2f} s burst: one process, "
        "one GIL, so its CPU per analysis bounds how many analyses fit in a single run's time",
        "emulator, model server and client threads run in the benchmark's process on the same cores",
        *burst.failures[:5],
    ]
    if n > DEFAULT_LIMIT and not config.quick:
        with served_app(config, workdir / "limit-default", max_concurrent_runs=DEFAULT_LIMIT) as app:
            single_runs(app, 0)  # warm-up only
            queued = simultaneous(app, n, "queued")
        metrics += burst_metrics(queued, single, label=f", limit {DEFAULT_LIMIT}", target=False)
        notes.append(
            f"rows 'limit {DEFAULT_LIMIT}': the same {n} sessions with the default MAX_CONCURRENT_RUNS "
            f"(expected near {-(-n // DEFAULT_LIMIT)}x single: the queue runs them in waves)"
        )
        notes.extend(queued.failures[:5])
    return Section(key="concurrency", title="Concurrency", metrics=metrics, notes=notes)


def compare(config: BenchConfig, workdir: Path, baseline: Path) -> Section:
    """This checkout and ``baseline`` side by side: both apps up at once, single runs of each, then
    bursts in the order A B B A (so drift of a shared, noisy machine falls on both alike). Ratios are
    the figures to read; absolute seconds only mean something next to each other."""
    n, rounds = config.sessions, 1 if config.quick else 2
    versions = {"baseline": baseline.resolve(), "this": ROOT}
    with ExitStack() as stack:
        apps = {
            name: stack.enter_context(
                served_app(config, workdir / name, max_concurrent_runs=n, checkout=checkout)
            )
            for name, checkout in versions.items()
        }
        alone_cpu: dict[str, list[float]] = {name: [] for name in apps}
        single = {
            name: statistics.median(single_runs(app, config.runs, alone_cpu[name]))
            for name, app in apps.items()
        }
        bursts: dict[str, list[Burst]] = {name: [] for name in apps}
        order = ["baseline", "this", "this", "baseline"][: 2 * rounds]
        for i, name in enumerate(order):
            bursts[name].append(simultaneous(apps[name], n, f"burst{i}"))
    metrics: list[Metric] = []
    cpu: dict[str, float] = {}
    for name in apps:
        done = [value for burst in bursts[name] for value in burst.latencies]
        runs = sum(burst.sessions for burst in bursts[name])
        cpu[name] = sum(burst.app_cpu for burst in bursts[name]) / runs
        p95 = percentile(done, 95)
        is_this = name == "this"
        metrics += [
            Metric(name=f"{name}: single run (median of {config.runs})", value=single[name], unit="s"),
            Metric(name=f"{name}: completed, {n} at once", value=f"{len(done)}/{runs}"),
            Metric(name=f"{name}: p95 latency, {n} at once", value=p95, unit="s"),
            Metric(
                name=f"{name}: p95 / single, {n} at once",
                value=round(p95 / single[name], 3),
                unit="x",
                target=f"≤ {TARGET_RATIO}" if is_this else "",
                met=p95 / single[name] <= TARGET_RATIO if is_this else None,
            ),
            Metric(name=f"{name}: app CPU per analysis (burst)", value=cpu[name], unit="s"),
            Metric(
                name=f"{name}: app CPU per analysis (alone, median)",
                value=statistics.median(alone_cpu[name]),
                unit="s",
            ),
        ]
    alone = {name: statistics.median(values) for name, values in alone_cpu.items()}
    metrics += [
        Metric(
            name="app CPU per analysis (burst), this / baseline",
            value=round(cpu["this"] / cpu["baseline"], 3),
        ),
        Metric(
            name="app CPU per analysis (alone), this / baseline",
            value=round(alone["this"] / alone["baseline"], 3),
        ),
    ]
    notes = [
        f"baseline = {versions['baseline']}, this = {ROOT}; both served at once, each with its own "
        f"emulator and model server, MAX_CONCURRENT_RUNS={n}",
        f"bursts of {n} in the order {' '.join(order)}; p95 over every burst's latencies "
        "of a version, CPU per analysis = its app process's CPU over those bursts / analyses",
        *(problem for name in apps for burst in bursts[name] for problem in burst.failures[:3]),
    ]
    return Section(key="concurrency", title="Concurrency", metrics=metrics, notes=notes)
