"""The scripted model server's HTTP/1.1 plumbing: its request handler.

:class:`Handler` offers the byte-level moves the failure modes need (a JSON answer, a chunked body
written event by event, a connection dropped mid-body); what to answer is decided by the
:class:`Owner` (the :class:`~testing.emulator.model_server.ScriptedModelServer`). The server itself
(threads on 127.0.0.1, ``TCP_NODELAY``, connections cut at stop) is :class:`testing.loopback.LoopbackServer`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from testing.emulator.model_wire import JSONDict

logger = logging.getLogger(__name__)


class Owner(Protocol):
    """What the handler calls on the scripted model server (private to the emulator's modules)."""

    def _handle(self, handler: Handler, method: str) -> None: ...


class Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 plumbing only; what to answer is decided by the owning ``ScriptedModelServer``."""

    protocol_version = "HTTP/1.1"

    def __init__(self, request: Any, client_address: Any, server: Any, *, owner: Owner) -> None:
        self.owner = owner  # before super().__init__, which handles the connection
        super().__init__(request, client_address, server)

    def do_GET(self) -> None:
        self.owner._handle(self, "GET")

    def do_POST(self) -> None:
        self.owner._handle(self, "POST")

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("model server: " + format, *args)

    def read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send_json(self, status: int, body: JSONDict, headers: Mapping[str, str] | None = None) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def start_chunked(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))

    def end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def drop_connection(self) -> None:
        """Close the socket without finishing the body: the client sees an incomplete message."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
