"""Pieces of the hosted-mode security suite (``tests/test_hosted_security.py``): a stranger's view of a
public Space, everything on 127.0.0.1.

* :class:`Listener` — an "internal service" on a loopback port that counts every byte it is sent (an
  SSRF must leave it at zero), and :class:`ImageHost` — an HTTP server that counts requests (a leaked
  image URL must leave it at zero);
* :class:`Stranger` — a gradio_client session sending the headers a visitor behind Hugging Face's
  proxy arrives with (whatever it forged, then the address the proxy appended);
* :func:`hosted_env` — the environment an owner gives the Space, pointing at the loopback emulators.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from testing.app import api_client
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer
from tests.security_helpers import API_KEY


class Listener:
    """A TCP port on 127.0.0.1 that accepts connections and counts what it receives; answers nothing."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.05)
        self.received = 0
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def port(self) -> int:
        return int(self._sock.getsockname()[1])

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(0.2)
                try:
                    while data := conn.recv(65536):
                        self.received += len(data)
                except OSError:
                    pass

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._sock.close()
        self._thread.join()


class _ImageHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        server: Any = self.server
        server.hits.append(self.path)
        body = b"\x89PNG\r\n\x1a\n"
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


class ImageHost:
    """An HTTP server on another loopback port standing for an attacker's image host."""

    def __init__(self) -> None:
        self._server: Any = ThreadingHTTPServer(("127.0.0.1", 0), _ImageHandler)
        self._server.hits = []
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def hits(self) -> list[str]:
        return list(self._server.hits)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


class Stranger:
    """A visitor as the Space sees it: X-Forwarded-For is what they forged, then what the proxy appended."""

    def __init__(self, url: str, downloads: Path, *, real_ip: str, forged: str | None = None) -> None:
        forwarded = f"{forged}, {real_ip}" if forged else real_ip
        self.client = api_client(url, downloads, headers={"X-Forwarded-For": forwarded})

    def run(self, target: str, question: str = "") -> dict[str, str]:
        chatbot, report, stats, status, *_ = self.client.predict(target, question, api_name="/run_analysis")
        return {"chatbot": repr(chatbot), "report": str(report), "stats": str(stats), "status": str(status)}


def phase(status: str) -> str:
    """The bold run part at the end of a status line."""
    found = re.findall(r"\*\*(.+?)\*\*", status)
    return found[-1] if found else ""


def hosted_env(
    emu: GitHubEmulator, model: ScriptedModelServer | None, root: Path, **extra: str
) -> Mapping[str, str]:
    """An owner's Space configuration over the loopback emulators."""
    env = {
        "SPACE_ID": "someone/repo-analyst",
        "GITHUB_API_URL": emu.base_url,
        "CACHE_DIR": str(root / "cache"),
        "LOG_LEVEL": "WARNING",
    }
    if model is not None:
        env |= {
            "API_KEY": API_KEY,
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": model.base_url,
            "LLM_MODEL": "scripted-model",
        }
    return env | extra
