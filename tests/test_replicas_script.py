"""``scripts/replicas.sh``: two replicas behind nginx, sessions sticky by cookie, everything stopped on TERM.

The real script, the real Debian ``redis-server`` and ``nginx`` (skipped with the reason when either is
missing), two real ``python app.py`` processes on free loopback ports, no model key (the deterministic
planner) and the GitHub emulator. Readiness is the script's own "ready" line, read from its output.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from testing.app import api_client, free_port
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import sample_python_project

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "replicas.sh"
READY_TIMEOUT = 600.0  # two apps import Gradio at once; a busy CI machine is slow at it
MISSING = next((tool for tool in ("redis-server", "redis-cli", "nginx") if shutil.which(tool) is None), None)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(MISSING is not None, reason=f"{MISSING} is not installed (Debian package)"),
]
_SCRUBBED = ("GITHUB_TOKEN", "API_KEY", "HF_TOKEN", "LLM_PROVIDER", "LLM_BASE_URL", "SPACE_ID", "REDIS_URL")


@dataclass(frozen=True)
class Replicas:
    url: str
    process: subprocess.Popen[str]
    run: Path
    emulator: GitHubEmulator

    def pids(self) -> dict[str, int]:
        lines = (self.run / "pids").read_text().splitlines()
        return {name: int(pid) for name, pid in (line.split() for line in lines)}


def _ready_line(process: subprocess.Popen[str]) -> str:
    """The script's output up to its "ready" line (a thread reads it, so a silent hang times out)."""
    seen: list[str] = []
    done = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            if line.startswith("replicas: ready"):
                break
        done.set()

    threading.Thread(target=read, daemon=True).start()
    done.wait(READY_TIMEOUT)
    assert seen and seen[-1].startswith("replicas: ready"), "".join(seen)[-3000:]
    return seen[-1]


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[Replicas]:
    project = tmp_path / "widgets"
    sample_python_project(project)
    with GitHubEmulator() as emulator:
        emulator.add_repo("acme/widgets", project, description="Count words, fast.")
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        env.update(
            GITHUB_API_URL=emulator.base_url,
            CACHE_DIR=str(tmp_path / "cache"),
            REPLICAS_DIR=str(tmp_path / "run"),
            PYTHON=sys.executable,
            GRADIO_ANALYTICS_ENABLED="False",
            LOG_LEVEL="WARNING",
        )
        process = subprocess.Popen(
            ["bash", str(SCRIPT), "2", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            assert f"http://127.0.0.1:{port}/" in _ready_line(process)
            yield Replicas(f"http://127.0.0.1:{port}/", process, tmp_path / "run", emulator)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
            assert process.stdout is not None
            process.stdout.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sessions_stick_to_one_replica_both_serve_and_term_stops_everything(replicas: Replicas) -> None:
    seen: list[set[str]] = []
    for _ in range(4):  # four browser sessions, one after another, each with its own cookie jar
        with httpx.Client(trust_env=False, timeout=30) as browser:
            served = {browser.get(replicas.url + path).headers["x-replica"] for path in ("", "config") * 3}
            assert browser.cookies.get("ra_replica") in served
        seen.append(served)
    assert all(len(served) == 1 for served in seen), seen  # sticky: one replica per session
    assert set().union(*seen) == {"1", "2"}, seen  # new sessions are spread over both

    # A cookie naming a replica sends the session there, and is not set again.
    with httpx.Client(trust_env=False, timeout=30, cookies={"ra_replica": "2"}) as browser:
        answer = browser.get(replicas.url + "config")
        assert answer.headers["x-replica"] == "2"
        assert "set-cookie" not in answer.headers

    # Gradio's queue through the proxy: joined on one request, streamed on others, on the same replica.
    client = api_client(replicas.url)
    try:
        _chat, report, _stats, status, *_ = client.predict("acme/widgets", "", api_name="/run_analysis")
    finally:
        client.close()
    assert str(report).startswith("# acme/widgets"), status
    assert "**Done" in str(status)

    pids = replicas.pids()
    assert sorted(pids) == ["app-1", "app-2", "nginx", "redis"]
    replicas.process.send_signal(signal.SIGTERM)
    assert replicas.process.wait(timeout=60) == 128 + signal.SIGTERM
    assert [name for name, pid in pids.items() if _alive(pid)] == []


def test_refuses_a_bad_count_before_starting_anything(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", str(SCRIPT), "two"],
        env={**os.environ, "REPLICAS_DIR": str(tmp_path / "run")},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "usage:" in done.stderr
    assert not (tmp_path / "run").exists()
