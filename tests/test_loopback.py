"""The loopback HTTP server the test doubles are served by, over real sockets."""

from __future__ import annotations

import http.client
import logging
import socket
import threading
from collections.abc import Iterator
from functools import partial
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest

from testing.loopback import LoopbackServer


class Handler(BaseHTTPRequestHandler):
    """``GET /hold`` sends its headers and then waits for ``release``; ``GET /fail`` raises; else 200."""

    protocol_version = "HTTP/1.1"

    def __init__(self, *args: Any, release: threading.Event, holding: threading.Event) -> None:
        self.release = release
        self.holding = holding
        super().__init__(*args)

    def do_GET(self) -> None:
        if self.path == "/fail":
            raise RuntimeError("a broken handler")
        if self.path == "/hold":
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.holding.set()
            self.release.wait()
            self.wfile.write(b"ok")
            return
        body = repr(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def events() -> dict[str, threading.Event]:
    return {"release": threading.Event(), "holding": threading.Event()}


@pytest.fixture
def server(events: dict[str, threading.Event]) -> Iterator[LoopbackServer]:
    with LoopbackServer(partial(Handler, **events), name="test-loopback") as running:
        yield running


def test_serves_http11_keep_alive_on_an_ephemeral_loopback_port_without_nagle(server: LoopbackServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.port > 0
    assert server.url == f"http://127.0.0.1:{server.port}"
    assert server.server_name == "127.0.0.1"  # bound without a host-name lookup
    assert server.request_queue_size >= 128
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        sockets, bodies = [], []
        for _ in range(2):
            connection.request("GET", "/")
            response = connection.getresponse()
            bodies.append(response.read())
            sockets.append(connection.sock)
        assert response.version == 11
    finally:
        connection.close()
    assert sockets[0] is sockets[1]  # one connection for both requests
    assert bodies == [b"1", b"1"]  # TCP_NODELAY on the server's side of the connection


def test_stop_cuts_idle_and_held_connections_and_joins_every_thread(
    events: dict[str, threading.Event],
) -> None:
    server = LoopbackServer(partial(Handler, **events), name="test-loopback").start()
    idle = httpx.Client(base_url=server.url, timeout=30)
    assert idle.get("/").status_code == 200  # and the connection stays open in the pool
    held = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    held.sendall(b"GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
    assert events["holding"].wait(30)
    threads = {t for t in threading.enumerate() if t.name.startswith(f"test-loopback:{server.port}")}
    assert len(threads) == 3  # the accept loop and one per connection

    stopper = threading.Thread(target=server.stop)
    stopper.start()
    try:
        # The held response is cut: the client sees the end of the stream before the body.
        received = b""
        while chunk := held.recv(1024):
            received += chunk
        assert received.startswith(b"HTTP/1.1 200 OK\r\n")
        assert not received.endswith(b"ok")
    finally:
        events["release"].set()  # the handler returns, so stop() can join it
        stopper.join(30)
        held.close()
        idle.close()
    assert not stopper.is_alive()
    assert not any(t.is_alive() for t in threads)
    server.stop()  # idempotent
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url, timeout=30)
    with pytest.raises(RuntimeError, match="already started"):
        server.start()


def test_a_handler_error_is_logged_at_debug_only(
    server: LoopbackServer, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG, logger="testing.loopback")
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(f"{server.url}/fail", timeout=30)
    server.stop()  # joins the handler thread: its error has been logged by now
    (record,) = [r for r in caplog.records if r.name == "testing.loopback"]
    assert record.levelno == logging.DEBUG
    assert "ended with an error" in record.getMessage()
    assert record.exc_info is not None and isinstance(record.exc_info[1], RuntimeError)
    assert "Traceback" not in capsys.readouterr().err
