"""A scripted OpenAI-compatible chat model, served over real HTTP on 127.0.0.1 for tests.

``ScriptedModelServer`` answers ``POST /v1/chat/completions`` (SSE or one JSON body) from a FIFO of
turns or, once that is empty, from a responder callable; ``GET /v1/models`` lists models. A request
with nothing left to answer it gets HTTP 500 *and* is recorded in ``errors`` so that
``assert_exhausted()`` fails the test: unexpected calls and leftover turns are both bugs. What a turn
is (``Turn`` / ``ToolCallSpec``) and the bodies it becomes live in :mod:`testing.emulator.model_wire`
(re-exported here, where the tests import them from); the request handler in
:mod:`testing.emulator.model_http`, served by :class:`testing.loopback.LoopbackServer`.

Why the stdlib server rather than uvicorn: the failure modes need byte-level control of the socket
(cut a chunked body in the middle, hold a response open after its headers, stop without waiting for
the client), which an ASGI server deliberately hides.
"""

from __future__ import annotations

import itertools
import json
import logging
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import TracebackType
from typing import Self

from testing.clock import RealWaits, Waits
from testing.emulator.model_http import Handler
from testing.emulator.model_wire import (
    JSONDict,
    ResponseMeta,
    ToolCallSpec,
    Turn,
    completion_body,
    error_body,
    sse_data,
    stream_chunks,
    usage_body,
)
from testing.emulator.prompt_cache import PromptCache
from testing.loopback import LoopbackServer

__all__ = [
    "NO_TURN_MESSAGE",
    "RecordedRequest",
    "Responder",
    "ResponseMeta",
    "Router",
    "ScriptedModelServer",
    "ToolCallSpec",
    "Turn",
    "completion_body",
    "error_body",
    "stream_chunks",
    "usage_body",
]

logger = logging.getLogger(__name__)

Responder = Callable[[JSONDict], Turn]
Router = Callable[[JSONDict], Turn | None]

NO_TURN_MESSAGE = "scripted model: no turn left for this request"


@dataclass(frozen=True, kw_only=True)
class RecordedRequest:
    """One request the server received. Header names are lower-cased; ``body`` is None for GET."""

    method: str
    path: str
    body: JSONDict | None
    headers: Mapping[str, str]
    authorization: str | None
    received_at: float  # the server's ``stamp()``: time.monotonic() unless a test shares a virtual clock
    turn: Turn | None = None  # the turn that answered it, None if none was left

    @property
    def has_authorization(self) -> bool:
        return self.authorization is not None

    @property
    def messages(self) -> list[JSONDict]:
        return list((self.body or {}).get("messages", []))


# --------------------------------------------------------------------------------------------- server


class ScriptedModelServer:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 answering from scripted turns.

    Turns are consumed first-in first-out; when none is left, ``responder(request_json)`` is asked (it
    may run on several handler threads at once); with neither, the request gets HTTP 500 and an entry
    in ``errors``. Use as a context manager (or ``start()``/``stop()``); ``stop()`` never waits for a
    client: delays, hung responses and idle keep-alive connections are cut.

    Latencies and the pauses between streamed events go through ``waits`` (an attribute, read at each
    wait): the wall clock by default, or a :class:`testing.clock.HeldWaits` that holds each one until
    the test releases it.
    """

    def __init__(
        self,
        turns: Iterable[Turn] = (),
        *,
        responder: Responder | None = None,
        default_latency: float = 0.0,
        models: Sequence[str] = ("scripted-model",),
        n_ctx: int | None = None,
        waits: Waits | None = None,
        router: Router | None = None,
        prefix_cache: bool = False,
    ) -> None:
        """``n_ctx``: report a context window in ``GET /v1/models`` as llama.cpp does (``meta.n_ctx``).
        ``router``: asked first for every chat request; a turn it returns answers the request (requests
        that may come in any order, such as calls made concurrently, are answered by what they ask),
        None leaves the request to the queue. ``prefix_cache``: count and bill the prompt as DeepSeek
        does (:mod:`testing.emulator.prompt_cache`)."""
        self.n_ctx = n_ctx
        self.router = router
        self.prompt_cache = PromptCache(ready_after=default_latency) if prefix_cache else None
        self.responder = responder
        self.default_latency = default_latency
        self.waits: Waits = waits or RealWaits()
        self.stamp: Callable[[], float] = time.monotonic  # what ``received_at`` reads (or a virtual clock)
        self.models = tuple(models)
        self._turns: deque[Turn] = deque(turns)
        self._requests: list[RecordedRequest] = []
        self._errors: list[str] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._completion_ids = itertools.count(1)
        self._call_ids = itertools.count(1)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified when the last response under way ends
        self._stopping = threading.Event()
        self._httpd: LoopbackServer | None = None

    # lifecycle ---------------------------------------------------------------------------------

    def start(self) -> Self:
        if self._httpd is not None:
            raise RuntimeError("scripted model server already started")
        self._stopping.clear()
        self._httpd = LoopbackServer(partial(Handler, owner=self), name="scripted-model-server").start()
        return self

    def stop(self) -> None:
        """Stop serving, cut open connections and join every thread. Idempotent."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("scripted model server is not running")
        return self._httpd.port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # scripting and observation -----------------------------------------------------------------

    def push(self, *turns: Turn) -> None:
        """Append turns to the end of the queue."""
        with self._lock:
            self._turns.extend(turns)

    @property
    def remaining_turns(self) -> int:
        with self._lock:
            return len(self._turns)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received (chat and model list), in arrival order; a snapshot."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def errors(self) -> list[str]:
        """Problems the script did not foresee (no turn left, bad request, unknown path); a snapshot."""
        with self._lock:
            return list(self._errors)

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    def wait_idle(self, timeout: float) -> bool:
        """Block until no chat response is under way; False after ``timeout`` seconds (a bound for a
        broken test, never reached by a passing one)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout)

    def assert_exhausted(self) -> None:
        """Fail if a turn was never requested or a request came that the script did not expect."""
        with self._lock:
            problems = list(self._errors)
            if self._turns:
                problems.append(f"{len(self._turns)} scripted turn(s) never requested: {list(self._turns)!r}")
        if problems:
            raise AssertionError("scripted model server: " + "; ".join(problems))

    # request handling --------------------------------------------------------------------------

    def _handle(self, handler: Handler, method: str) -> None:
        received_at = self.stamp()
        path = _route(handler)
        try:
            if method == "GET" and path.endswith("/models"):
                self._record(handler, received_at)
                handler.send_json(200, self._models_body())
            elif method == "POST" and path.endswith("/chat/completions"):
                self._handle_chat(handler, received_at)
            else:
                self._record(handler, received_at)
                self._add_error(f"unexpected {method} {handler.path}")
                handler.close_connection = True  # an unread body would corrupt the next request
                handler.send_json(404, error_body(404, f"scripted model: no route for {method} {path}"))
        except OSError:
            # The client went away or stop() cut the socket; nothing left to tell anyone.
            logger.debug("model server: connection lost while answering %s %s", method, path, exc_info=True)
            handler.close_connection = True

    def _handle_chat(self, handler: Handler, received_at: float) -> None:
        raw = handler.read_body()
        if len(raw) < int(handler.headers.get("Content-Length") or 0):
            self._record(handler, received_at)  # the client went away mid-request (a cancelled call)
            handler.close_connection = True
            return
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._record(handler, received_at)
            self._add_error("chat request body is not a JSON object")
            handler.send_json(400, error_body(400, "scripted model: body must be a JSON object"))
            return
        turn, problem = self._next_turn(body)
        self._record(handler, received_at, body=body, turn=turn)
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            if turn is None:
                self._add_error(f"chat request #{len(self.chat_requests)}: {problem}")
                handler.send_json(500, {"error": {"message": problem, "type": "server_error"}})
            else:
                self._answer(handler, turn, body)
        finally:
            with self._idle:
                self._in_flight -= 1
                if self._in_flight == 0:
                    self._idle.notify_all()

    def _next_turn(self, body: JSONDict) -> tuple[Turn | None, str]:
        turn, problem = self._scripted_turn(body)
        if turn is not None and self.prompt_cache is not None:
            turn = self.prompt_cache.metered(body, turn)
        return turn, problem

    def _scripted_turn(self, body: JSONDict) -> tuple[Turn | None, str]:
        if self.router is not None:
            try:
                routed = self.router(body)
            except Exception as exc:  # a broken router is a test bug: report it, answer 500
                logger.debug("model server: router raised", exc_info=True)
                return None, f"scripted model: router raised {exc!r}"
            if routed is not None:
                return routed, ""
        with self._lock:
            if self._turns:
                return self._turns.popleft(), ""
            responder = self.responder
        if responder is None:
            return None, NO_TURN_MESSAGE
        try:
            return responder(body), ""
        except Exception as exc:  # a broken responder is a test bug: report it, answer 500
            logger.debug("model server: responder raised", exc_info=True)
            return None, f"scripted model: responder raised {exc!r}"

    def _answer(self, handler: Handler, turn: Turn, body: JSONDict) -> None:
        latency = self.default_latency if turn.latency is None else turn.latency
        if not self._pause(latency):
            handler.drop_connection()
            return
        if turn.status is not None:
            headers = {} if turn.retry_after is None else {"retry-after": _format_seconds(turn.retry_after)}
            handler.send_json(turn.status, error_body(turn.status, turn.error_message), headers)
            return
        meta = self._meta(turn, body)
        if body.get("stream") is True:
            options = body.get("stream_options") or {}
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            self._stream(handler, turn, stream_chunks(turn, meta, include_usage=include_usage))
        else:
            self._respond_once(handler, turn, completion_body(turn, meta))

    def _stream(self, handler: Handler, turn: Turn, chunks: list[JSONDict]) -> None:
        handler.start_chunked("text/event-stream; charset=utf-8")
        if turn.hang:
            self._hold_open(handler)
            return
        data_events = [sse_data(chunk) for chunk in chunks]
        if not turn.no_done:
            data_events.append(sse_data("[DONE]"))
        if turn.disconnect_after is not None:
            data_events = data_events[: turn.disconnect_after]
        events = [b": keep-alive\n\n"] * turn.keepalive_comments + data_events
        for position, event in enumerate(events):
            if position and not self._pause(turn.delay_per_chunk):
                handler.drop_connection()  # the server is stopping
                return
            handler.write_chunk(event)
        if turn.disconnect_after is None:
            handler.end_chunked()
        else:
            handler.drop_connection()

    def _respond_once(self, handler: Handler, turn: Turn, body: JSONDict) -> None:
        if turn.hang or turn.disconnect_after is not None:
            payload = json.dumps(body).encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            if turn.hang:
                self._hold_open(handler)
                return
            handler.wfile.write(payload[: len(payload) // 2])
            handler.drop_connection()
            return
        handler.send_json(200, body)

    def _hold_open(self, handler: Handler) -> None:
        """Send nothing until the client hangs up or the server stops, then drop the connection."""
        connection = handler.connection
        while not self._stopping.is_set():
            readable, _, _ = select.select([connection], [], [], 0.05)
            if not readable:
                continue
            try:
                if not connection.recv(1, socket.MSG_PEEK):
                    break  # EOF: the client gave up
            except OSError:
                break
            self._stopping.wait(0.05)  # the client sent more bytes; they are not ours to read
        handler.drop_connection()

    def _pause(self, seconds: float) -> bool:
        """Wait ``seconds`` unless the server stops first; True if still running."""
        if seconds <= 0:
            return not self._stopping.is_set()
        return not self.waits.wait(self._stopping, seconds)

    def _meta(self, turn: Turn, body: JSONDict) -> ResponseMeta:
        with self._lock:
            completion_id = f"chatcmpl-scripted-{next(self._completion_ids)}"
            call_ids = tuple(call.id or f"call_{next(self._call_ids)}" for call in turn.tool_calls)
        model = body.get("model")
        return ResponseMeta(
            completion_id=completion_id,
            model=model if isinstance(model, str) else self.models[0],
            created=int(time.time()),
            call_ids=call_ids,
        )

    def _models_body(self) -> JSONDict:
        data: list[JSONDict] = [
            {"id": model, "object": "model", "created": 0, "owned_by": "scripted"} for model in self.models
        ]
        if self.n_ctx is not None:
            for entry in data:
                entry["meta"] = {"n_ctx": self.n_ctx, "n_ctx_train": 32768}
        return {"object": "list", "data": data}

    def _record(
        self, handler: Handler, received_at: float, *, body: JSONDict | None = None, turn: Turn | None = None
    ) -> None:
        headers = {name.lower(): value for name, value in handler.headers.items()}
        request = RecordedRequest(
            method=handler.command,
            path=_route(handler),
            body=body,
            headers=headers,
            authorization=headers.get("authorization"),
            received_at=received_at,
            turn=turn,
        )
        with self._lock:
            self._requests.append(request)

    def _add_error(self, problem: str) -> None:
        logger.debug("model server: %s", problem)
        with self._lock:
            self._errors.append(problem)


def _route(handler: Handler) -> str:
    return handler.path.split("?", 1)[0].rstrip("/")


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else str(seconds)
