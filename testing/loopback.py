"""The one loopback HTTP/1.1 server the test doubles are served by: threads on 127.0.0.1, a clean stop.

:class:`LoopbackServer` serves a :class:`~http.server.BaseHTTPRequestHandler` (what to answer stays the
handler's) on an ephemeral port of 127.0.0.1, one thread per connection:

* HTTP/1.1 keep-alive, a deep accept queue (the default 5 stalls bursts of parallel connections), no
  host-name lookup when binding, ``TCP_NODELAY`` on every connection (headers written apart from their
  body, or one SSE event, leave at once instead of waiting for a delayed ACK);
* open connections are tracked, so :meth:`LoopbackServer.stop` cuts idle keep-alive clients and
  responses held open on purpose instead of waiting for them, then joins every thread it started;
* a connection that ends in an error (a client hanging up mid-response is part of many scripts) is
  logged at DEBUG, not printed to stderr.

    with LoopbackServer(Handler) as server:
        httpx.get(f"{server.url}/v1/models")

``handler`` is called like a handler class, ``handler(request, client_address, server)``; pass a
``functools.partial`` to hand the handler its owner (the emulator whose answers it writes).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import socketserver
import threading
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

logger = logging.getLogger(__name__)

HandlerFactory = Callable[[Any, Any, "LoopbackServer"], socketserver.BaseRequestHandler]


class LoopbackServer(ThreadingHTTPServer):
    """A threaded HTTP/1.1 server on ``127.0.0.1:<free port>``; see the module docstring.

    The port is bound when the server is built (:attr:`port`, :attr:`url`); :meth:`start` serves in a
    background thread, :meth:`stop` (idempotent) stops serving, cuts open connections and joins every
    thread. Whoever holds requests (a hang, a latency) must release them before or at :meth:`stop`: the
    join waits for handlers to return.
    """

    request_queue_size = 256
    allow_reuse_address = True

    def __init__(self, handler: HandlerFactory, *, name: str = "loopback-http") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._thread: threading.Thread | None = None
        self._stopped = False
        super().__init__(("127.0.0.1", 0), handler)  # type: ignore[arg-type]  # a factory, not a class

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    # lifecycle -------------------------------------------------------------------------------------

    def start(self) -> Self:
        """Serve in a daemon thread until :meth:`stop`."""
        if self._thread is not None or self._stopped:
            raise RuntimeError(f"{self.name} was already started")
        self._thread = threading.Thread(
            target=self.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"{self.name}:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut every open connection, close the socket and join every thread. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        if self._thread is not None:
            self.shutdown()  # returns once serve_forever has: no new connection is accepted after this
        with self._lock:
            handlers = dict(self._connections)
        for connection in handlers:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self.server_close()
        for thread in handlers.values():
            thread.join()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # socketserver hooks ----------------------------------------------------------------------------

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (getfqdn): slow, and a loopback server needs none.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address

    def process_request(self, request: Any, client_address: Any) -> None:
        # One daemon thread per connection, tracked with its socket so that stop() can cut and join it
        # (ThreadingMixIn joins only non-daemon threads, which would also keep the interpreter alive).
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"{self.name}:{self.port} {client_address[0]}:{client_address[1]}",
            daemon=True,
        )
        with self._lock:
            self._connections[request] = thread
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        with self._lock:
            self._connections.pop(request, None)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.debug(
            "%s: the connection from %s ended with an error", self.name, client_address, exc_info=True
        )
