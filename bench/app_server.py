"""The app as users run it, for the concurrency and UI sections: ``python app.py`` in its own process.

:func:`served_app` starts the GitHub emulator (every request delayed by ``config.github_latency``) and
the scripted model server (``config.model_latency`` before each turn's first byte) in this process,
then the real app in a child process configured only through environment variables, as an operator
would — so its memory can be read from ``/proc/<pid>/status`` without the benchmark's own objects in it.

The model walks one three-turn plan per conversation, chosen by how many assistant messages the request
already holds, so any number of simultaneous conversations each walk it independently:

1. ``get_repo_info`` + ``get_file_tree`` (in parallel),
2. ``read_file README.md`` + ``read_file pyproject.toml`` + ``get_commits`` (in parallel),
3. the final report, whose first line is ``# <owner>/<repo>``.

Every repository is the same git project (``sample_python_project``) served under as many names as a
section asks for (:meth:`ServedApp.add_repos`): a run on a name nobody has read yet pays the GitHub
latency instead of reading the app's shared HTTP cache.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.config import BenchConfig
from bench.plans import plan_responder, realistic_plan
from testing.app import free_port
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import sample_python_project
from testing.emulator.model_server import ScriptedModelServer, Turn

ROOT = Path(__file__).resolve().parents[1]
OWNER = "acme"
MODEL = "scripted-model"
STARTUP_TIMEOUT = 90.0
_REPO_IN_TASK = re.compile(rf"\b{OWNER}/([\w-]+)")
# Settings the child must not inherit from whoever runs the benchmark (real keys, a Space's mode).
_SCRUBBED = ("GITHUB_TOKEN", "HF_TOKEN", "SPACE_ID", "GRADIO_SERVER_NAME", "HOST", "MCP_SERVER")


def plan_turn(body: dict[str, Any]) -> Turn:
    """The realistic plan for the repository the request's task names, by conversation position
    (stateless: safe for any number of concurrent sessions)."""
    task = next((str(m.get("content")) for m in body["messages"] if m["role"] == "user"), "")
    found = _REPO_IN_TASK.search(task)
    full_name = f"{OWNER}/{found.group(1) if found else 'widgets'}"
    return plan_responder(realistic_plan(full_name), metered=False)(body)


@dataclass(frozen=True, kw_only=True)
class ServedApp:
    """The running stack: the app's URL and process id, and the two loopback servers it talks to."""

    url: str
    pid: int
    emulator: GitHubEmulator
    model: ScriptedModelServer
    project: Path
    log: Path

    def add_repos(self, prefix: str, count: int) -> list[str]:
        """Serve the sample project under ``count`` fresh names ``acme/<prefix>-NN``; returns them."""
        names = [f"{OWNER}/{prefix}-{i:02d}" for i in range(1, count + 1)]
        for name in names:
            self.emulator.add_repo(name, self.project, description="Count words, fast.", stars=42)
        return names


def app_environment(
    emulator: GitHubEmulator, model: ScriptedModelServer, workdir: Path, **extra: str
) -> dict[str, str]:
    """The child's environment: the operator's knobs (see ``.env.example``) pointing at loopback."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env.update(
        GITHUB_API_URL=emulator.base_url,
        API_KEY="bench-not-a-real-key",
        LLM_PROVIDER="custom",
        LLM_BASE_URL=model.base_url,
        LLM_MODEL=MODEL,
        CACHE_DIR=str(workdir / "cache"),
        LOG_LEVEL="WARNING",
        GRADIO_ANALYTICS_ENABLED="False",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


@contextmanager
def served_app(
    config: BenchConfig,
    workdir: Path,
    *,
    max_concurrent_runs: int = 4,
    checkout: Path = ROOT,
    **extra_env: str,
) -> Iterator[ServedApp]:
    """Emulator + scripted model here, ``python app.py`` in a child process; stopped on exit.

    ``checkout`` is the copy of the app to run (another version of it, for a side-by-side comparison:
    its ``app.py`` imports the ``agent_core`` beside it); ``extra_env`` adds settings for the app
    (``BREAKER_FAILURE_THRESHOLD="3"``...)."""
    workdir.mkdir(parents=True, exist_ok=True)
    project = workdir / "widgets"
    if not project.exists():
        sample_python_project(project)
    with ExitStack() as stack:
        emulator = stack.enter_context(GitHubEmulator())
        emulator.limit_unauthenticated = 1_000_000  # every session shares one loopback IP
        emulator.latency(config.github_latency)
        model = stack.enter_context(
            ScriptedModelServer(responder=plan_turn, default_latency=config.model_latency)
        )
        port = free_port()
        env = app_environment(
            emulator,
            model,
            workdir,
            MAX_CONCURRENT_RUNS=str(max_concurrent_runs),
            GRADIO_SERVER_PORT=str(port),
            **extra_env,
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
        stack.callback(_stop, process)
        url = f"http://127.0.0.1:{port}/"
        _wait_ready(process, url, log)
        yield ServedApp(url=url, pid=process.pid, emulator=emulator, model=model, project=project, log=log)


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Poll the app's ``/config`` until it answers (the child has no other way to say it is up)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    with httpx.Client(trust_env=False, timeout=2.0) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the app exited with {process.returncode}:\n{_tail(log)}")
            try:
                if client.get(url + "config").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
    raise RuntimeError(f"the app did not answer within {STARTUP_TIMEOUT:.0f} s:\n{_tail(log)}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


def rss_kib(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (peak) of a process, in KiB, from ``/proc/<pid>/status``."""
    values: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0])
    return values


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far, from ``/proc/<pid>/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
