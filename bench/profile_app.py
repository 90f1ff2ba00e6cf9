"""``python -m bench.profile_app``: where the app process's CPU goes during analyses, and how much.

The app runs as ``python app.py`` (:func:`bench.app_server.served_app`: the GitHub emulator and the
scripted model in this process, or ``--planner``: no model key, the deterministic planner); one
``gradio_client`` session runs a warm-up analysis, then ``--runs`` analyses one after another on fresh
repositories. Printed: the app's CPU seconds per analysis (``/proc``), and with ``--py-spy`` (when the
``py-spy`` command exists) the functions that held the CPU, by own samples and by inclusive samples,
from ``py-spy record --format raw`` over the timed analyses.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.app_server import cpu_seconds, served_app
from bench.concurrency import new_client
from bench.config import BenchConfig
from bench.replicas import (
    Stack,
    analyse,
    burst,
    light_clients,
    stack_environment,
    started,
    wait_ready,
)
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import sample_python_project


def profile(raw: Path, top: int) -> list[str]:
    """The ``top`` functions by own and by inclusive samples, from py-spy's collapsed stacks."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = [frame.split(" (")[0] + " " + _where(frame) for frame in stack.split(";")[1:]]
        samples = int(count)
        total += samples
        if frames:
            own[frames[-1]] += samples
        for frame in set(frames):
            inclusive[frame] += samples
    lines = [f"{total} samples"]
    for title, counter in (("own", own), ("inclusive", inclusive)):
        lines.append(f"-- by {title} samples")
        lines += [f"{100 * n / max(1, total):5.1f}%  {name}" for name, n in counter.most_common(top)]
    return lines


def _where(frame: str) -> str:
    """``(file.py:12)`` → ``file.py`` with the site-packages or checkout prefix cut."""
    inside = frame.partition(" (")[2].rstrip(")")
    path = inside.rsplit(":", 1)[0]
    for marker in ("site-packages/", "agent_core/", "lib/python3"):
        if marker in path:
            return "(" + marker.rstrip("/") + "/" + path.split(marker, 1)[1] + ")"
    return f"({path})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_app", description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--planner", action="store_true", help="no model key: the deterministic planner")
    parser.add_argument("--py-spy", action="store_true", help="sample the app with py-spy while it runs")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--raw", type=Path, help="also keep py-spy's collapsed stacks in this file")
    parser.add_argument("--replicas", type=int, help="profile a burst on scripts/replicas.sh N instead")
    parser.add_argument("--sessions", type=int, default=20, help="the burst's sessions (--replicas)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.replicas:
        lines = replicas_burst(args.replicas, args.sessions, spy=args.py_spy, top=args.top, keep=args.raw)
        sys.stdout.write("\n".join(lines) + "\n")
        return 0
    blank = ("API_KEY", "LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL")
    extra = dict.fromkeys(blank, "") if args.planner else {}
    with (
        tempfile.TemporaryDirectory(prefix="profile-app-") as folder,
        served_app(BenchConfig(), Path(folder), **extra) as app,
    ):
        client = new_client(app)
        warm, *timed = app.add_repos("profile", args.runs + 1)
        if problem := analyse(client, warm):
            raise SystemExit(f"the warm-up run failed: {problem}")
        raw = Path(folder) / "profile.txt"
        spy = None
        if args.py_spy and shutil.which("py-spy"):
            command = [
                "py-spy",
                "record",
                "-p",
                str(app.pid),
                "-f",
                "raw",
                "-o",
                str(raw),
                "-r",
                "250",
                "--gil",
            ]
            spy = subprocess.Popen([*command, "--nonblocking"], stdout=subprocess.DEVNULL)
            time.sleep(1.0)  # py-spy attaches before the first timed run
        used = cpu_seconds(app.pid)
        for repo in timed:
            if problem := analyse(client, repo):
                raise SystemExit(f"a run failed: {problem}")
        per_run = (cpu_seconds(app.pid) - used) / max(1, args.runs)
        client.close()
        lines = [
            f"app CPU per analysis: {per_run:.4f} s (mean of {args.runs}, {'planner' if args.planner else 'scripted model'})"
        ]
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
            lines += profile(raw, args.top)
            if args.raw:
                shutil.copyfile(raw, args.raw)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _stack_processes(run: Path) -> dict[str, int]:
    """Every process ``replicas.sh`` started (REPLICAS_DIR/pids) and nginx's workers."""
    table = dict(line.split() for line in (run / "pids").read_text().splitlines() if line.strip())
    found = {name: int(pid) for name, pid in table.items()}
    master = found.get("nginx")
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == master:
                found[f"nginx worker {entry.name}"] = int(entry.name)
    return found


def replicas_burst(replicas: int, sessions: int, *, spy: bool, top: int, keep: Path | None) -> list[str]:
    """See the module docstring (``--replicas``)."""
    config = BenchConfig()
    with tempfile.TemporaryDirectory(prefix="profile-replicas-") as folder, light_clients():
        workdir = Path(folder)
        project = workdir / "widgets"
        sample_python_project(project)
        with GitHubEmulator() as emulator:
            emulator.limit_unauthenticated = 1_000_000
            emulator.latency(config.github_latency)
            env = stack_environment(emulator, workdir / "stack", MAX_CONCURRENT_RUNS=str(sessions))
            with started(replicas, workdir / "stack", env) as process:
                url, pids = wait_ready(process, workdir / "stack", replicas)
                stack = Stack(replicas=replicas, url=url, pids=pids, emulator=emulator, project=project)
                burst(stack, sessions, "warm")
                processes = _stack_processes(workdir / "stack" / "run")
                raw = workdir / "profile.txt"
                sampler = None
                if spy and shutil.which("py-spy"):
                    command = ["py-spy", "record", "-p", str(pids[0]), "-f", "raw", "-o", str(raw)]
                    command += ["-r", "100", "--gil", "--nonblocking"]
                    sampler = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    time.sleep(1.0)
                before = {name: cpu_seconds(pid) for name, pid in processes.items()}
                own = time.process_time()
                timed = burst(stack, sessions, "timed")
                used = {name: cpu_seconds(pid) - before[name] for name, pid in processes.items()}
                used["this process (emulator, clients)"] = time.process_time() - own
                spied: list[str] = []
                if sampler is not None:
                    sampler.send_signal(signal.SIGINT)
                    sampler.wait(timeout=60)
                    if raw.exists():
                        spied = profile(raw, top)
                        if keep:
                            shutil.copyfile(raw, keep)
    done = max(1, len(timed.latencies))
    lines = [
        f"{replicas} replica(s), {sessions} sessions at once: {len(timed.latencies)} done in {timed.wall:.2f} s, "
        f"load average {Path('/proc/loadavg').read_text().split()[0]}",
        "CPU seconds per analysis, by process:",
        *[f"  {seconds / done:.3f}  {name}" for name, seconds in used.items()],
        f"  {sum(used.values()) / done:.3f}  all of them",
        *[f"failed: {failure}" for failure in timed.failures[:3]],
    ]
    return lines + spied


if __name__ == "__main__":
    raise SystemExit(main())
