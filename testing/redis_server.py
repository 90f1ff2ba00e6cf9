"""A real ``redis-server`` on 127.0.0.1 for the shared-state tests and benchmarks: started on a free port
with nothing persisted (``--save '' --appendonly no``), stopped (killed: what a crash looks like to the
app) and started again on the same port, which is how a test takes Redis away mid-run and brings it back.

:func:`redis_server_path` says whether the Debian package is installed; tests skip with that reason when
it is not (CI installs it: ``.ci/run``).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from testing.app import free_port

REDIS_SERVER = "/usr/bin/redis-server"
READY_SECONDS = 10.0  # a start that takes longer than this failed


def redis_server_path() -> str | None:
    """The ``redis-server`` binary, or None when it is not installed."""
    if Path(REDIS_SERVER).is_file():
        return REDIS_SERVER
    return shutil.which("redis-server")


class RedisServer:
    """One ``redis-server`` process on a fixed free port; see the module docstring."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.port = free_port()
        self._dir = tempfile.mkdtemp(prefix="repo-analyst-redis-")
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        if self.running:
            return
        self._process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self._dir,
                "--protected-mode",
                "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._wait_until_ready()

    def _wait_until_ready(self) -> None:
        """Until the server answers PING (a condition, polled; bounded so a broken start fails)."""
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self._process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.01)
        raise RuntimeError(f"redis-server did not answer on port {self.port} within {READY_SECONDS} s")

    def stop(self) -> None:
        """Kill the server (as a crash would) and wait until it is gone."""
        if self._process is None:
            return
        self._process.kill()
        self._process.wait(timeout=READY_SECONDS)
        self._process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)


@contextmanager
def running_redis() -> Iterator[RedisServer]:
    """A started server, stopped and cleaned up afterwards. Raises if ``redis-server`` is missing."""
    binary = redis_server_path()
    if binary is None:
        raise RuntimeError("redis-server is not installed (Debian package redis-server)")
    server = RedisServer(binary)
    try:
        server.start()
        yield server
    finally:
        server.close()
