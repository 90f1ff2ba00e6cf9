"""A scripted OpenAI-compatible chat model, served over real HTTP on 127.0.0.1 for tests.

Owns three things:

* ``Turn`` / ``ToolCallSpec``: what the fake model answers to one request, including the provider
  quirks we must survive (DeepSeek ``reasoning_content``, vLLM/Ollama ``reasoning``, Ollama's repeated
  ``role``/``id``/``name`` fields, interleaved tool-call fragments, a missing ``index``) and the failure
  modes (HTTP errors, a dropped connection mid-stream, a stream without ``[DONE]``, a hung response).
* ``stream_chunks`` / ``completion_body`` / ``error_body``: pure functions from a ``Turn`` to wire bodies.
* ``ScriptedModelServer``: answers ``POST /v1/chat/completions`` (SSE or one JSON body) from a FIFO of
  turns or, once that is empty, from a responder callable; ``GET /v1/models`` lists models. A request
  with nothing left to answer it gets HTTP 500 *and* is recorded in ``errors`` so that
  ``assert_exhausted()`` fails the test: unexpected calls and leftover turns are both bugs.

Why the stdlib server rather than uvicorn: the failure modes need byte-level control of the socket
(cut a chunked body in the middle, hold a response open after its headers, stop without waiting for
the client), which an ASGI server deliberately hides.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Self

__all__ = [
    "NO_TURN_MESSAGE",
    "RecordedRequest",
    "Responder",
    "ResponseMeta",
    "ScriptedModelServer",
    "ToolCallSpec",
    "Turn",
    "completion_body",
    "error_body",
    "stream_chunks",
    "usage_body",
]

logger = logging.getLogger(__name__)

JSONDict = dict[str, Any]
ReasoningField = Literal["reasoning_content", "reasoning"]
Responder = Callable[[JSONDict], "Turn"]

SYSTEM_FINGERPRINT = "fp_scripted"
NO_TURN_MESSAGE = "scripted model: no turn left for this request"

# OpenAI-style (type, code) per status; anything else >= 500 is a server_error.
_ERROR_KINDS: Mapping[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("authentication_error", "invalid_api_key"),
    402: ("insufficient_balance", "insufficient_balance"),
    403: ("permission_error", None),
    404: ("not_found_error", "model_not_found"),
    408: ("timeout_error", None),
    429: ("rate_limit_error", "rate_limit_exceeded"),
}


# --------------------------------------------------------------------------------------------- values


@dataclass(frozen=True)
class ToolCallSpec:
    """One tool call the model makes. ``arguments`` is raw JSON text and may be malformed on purpose.

    ``id=None`` means the server assigns ``call_N`` (N counts up per server, in serving order).
    """

    name: str
    arguments: str = "{}"
    _: KW_ONLY
    id: str | None = None


@dataclass(frozen=True, kw_only=True)
class Turn:
    """What the scripted model answers to one request; every field is optional.

    Content: ``reasoning`` (streamed as ``delta.<reasoning_field>``), ``content``, ``tool_calls``.
    Wire shape: ``interleave`` puts fragments of several tool calls in one chunk (round-robin);
    ``ollama_style`` repeats ``role`` on every delta and ``id``/``type``/``function.name`` on every
    tool-call fragment; ``omit_index`` drops ``index`` from tool-call fragments; ``chunk_size`` is the
    number of characters per text/arguments piece.
    Ending: ``finish_reason`` (default ``"tool_calls"`` if there are tool calls, else ``"stop"``);
    ``usage=(prompt, completion)`` is sent as a last chunk with ``choices == []`` only when the request
    asked ``stream_options.include_usage`` (always in a non-streaming body); ``cache_hit_tokens`` feeds
    DeepSeek's ``prompt_cache_hit_tokens``/``prompt_cache_miss_tokens``.
    Timing: ``latency`` seconds before the response headers (``None``: the server's default),
    ``delay_per_chunk`` seconds between SSE events, ``keepalive_comments`` ``: keep-alive`` comments
    before the first data event.
    Failures: ``status`` answers that HTTP status with an OpenAI-style error body (``error_message``,
    ``retry_after`` -> ``retry-after`` header); ``disconnect_after=N`` drops the connection after N data
    events (``[DONE]`` counts; a shorter stream is cut where it would have ended); ``no_done`` ends the
    stream cleanly but without a finish chunk, usage or ``[DONE]``; ``hang`` sends headers and then
    nothing until the client goes away or the server stops; ``empty`` streams only a finish chunk.
    A non-streaming request gets the same turn assembled in one ``chat.completion`` body.
    """

    reasoning: str = ""
    content: str = ""
    tool_calls: Sequence[ToolCallSpec] = ()
    reasoning_field: ReasoningField = "reasoning_content"
    interleave: bool = False
    ollama_style: bool = False
    omit_index: bool = False
    finish_reason: str | None = None
    usage: tuple[int, int] | None = None
    cache_hit_tokens: int = 0
    chunk_size: int = 8
    delay_per_chunk: float = 0.0
    latency: float | None = None
    keepalive_comments: int = 0
    status: int | None = None
    retry_after: float | None = None
    error_message: str = ""
    disconnect_after: int | None = None
    no_done: bool = False
    hang: bool = False
    empty: bool = False

    def __post_init__(self) -> None:
        # A tuple keeps the frozen value hashable and safe from later mutation by the caller.
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {self.chunk_size}")
        if self.disconnect_after is not None and self.disconnect_after < 0:
            raise ValueError(f"disconnect_after must be >= 0, got {self.disconnect_after}")
        if self.status is not None and not 400 <= self.status <= 599:
            raise ValueError(f"status must be an HTTP error status (4xx/5xx), got {self.status}")
        if self.usage is not None and not 0 <= self.cache_hit_tokens <= self.usage[0]:
            raise ValueError("cache_hit_tokens must lie between 0 and the prompt tokens")

    @property
    def effective_finish_reason(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls and not self.empty else "stop"

    @classmethod
    def final(cls, text: str, **options: Any) -> Turn:
        """A plain answer: ``Turn.final("done", usage=(10, 2))``."""
        return cls(content=text, **options)

    @classmethod
    def calls(cls, *calls: ToolCallSpec | tuple[str, Mapping[str, Any] | str], **options: Any) -> Turn:
        """Tool calls from specs or ``(name, arguments)`` pairs; dict arguments are serialised to JSON."""
        specs = tuple(
            call if isinstance(call, ToolCallSpec) else ToolCallSpec(call[0], _arguments_text(call[1]))
            for call in calls
        )
        return cls(tool_calls=specs, **options)

    @classmethod
    def error(
        cls, status: int, message: str = "", *, retry_after: float | None = None, **options: Any
    ) -> Turn:
        """An HTTP error answer: ``Turn.error(429, retry_after=1)``."""
        return cls(status=status, error_message=message, retry_after=retry_after, **options)


def _arguments_text(arguments: Mapping[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


@dataclass(frozen=True, kw_only=True)
class RecordedRequest:
    """One request the server received. Header names are lower-cased; ``body`` is None for GET."""

    method: str
    path: str
    body: JSONDict | None
    headers: Mapping[str, str]
    authorization: str | None
    received_at: float  # time.monotonic()
    turn: Turn | None = None  # the turn that answered it, None if none was left

    @property
    def has_authorization(self) -> bool:
        return self.authorization is not None

    @property
    def messages(self) -> list[JSONDict]:
        return list((self.body or {}).get("messages", []))


@dataclass(frozen=True, kw_only=True)
class ResponseMeta:
    """Per-response identity echoed into every chunk; ``call_ids`` align with ``Turn.tool_calls``."""

    completion_id: str
    model: str
    created: int
    call_ids: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------- wire bodies


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def usage_body(turn: Turn) -> JSONDict | None:
    if turn.usage is None:
        return None
    prompt, completion = turn.usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": turn.cache_hit_tokens},
        "prompt_cache_hit_tokens": turn.cache_hit_tokens,
        "prompt_cache_miss_tokens": prompt - turn.cache_hit_tokens,
    }


def _call_fragments(turn: Turn, index: int, call: ToolCallSpec, call_id: str) -> list[JSONDict]:
    def whole(arguments: str) -> JSONDict:
        function = {"name": call.name, "arguments": arguments}
        return {"index": index, "id": call_id, "type": "function", "function": function}

    pieces = _pieces(call.arguments, turn.chunk_size) or [""]
    if turn.ollama_style:
        fragments = [whole(piece) for piece in pieces]
    else:
        fragments = [whole(""), *({"index": index, "function": {"arguments": p}} for p in pieces if p)]
    if turn.omit_index:
        for fragment in fragments:
            del fragment["index"]
    return fragments


def _tool_call_deltas(turn: Turn, call_ids: Sequence[str]) -> list[JSONDict]:
    per_call = [
        _call_fragments(turn, index, call, call_id)
        for index, (call, call_id) in enumerate(zip(turn.tool_calls, call_ids, strict=True))
    ]
    if turn.interleave:
        rounds = max((len(fragments) for fragments in per_call), default=0)
        groups = [[fragments[k] for fragments in per_call if k < len(fragments)] for k in range(rounds)]
    else:
        groups = [[fragment] for fragments in per_call for fragment in fragments]
    return [{"tool_calls": group} for group in groups]


def _chunk(meta: ResponseMeta, choices: list[JSONDict]) -> JSONDict:
    return {
        "id": meta.completion_id,
        "object": "chat.completion.chunk",
        "created": meta.created,
        "model": meta.model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": choices,
    }


def _choice(delta: JSONDict, finish_reason: str | None = None) -> JSONDict:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}


def stream_chunks(turn: Turn, meta: ResponseMeta, *, include_usage: bool) -> list[JSONDict]:
    """The ``chat.completion.chunk`` objects of a streamed turn, in order, without ``[DONE]``."""
    deltas: list[JSONDict] = []
    if not turn.empty:
        deltas += [{turn.reasoning_field: p} for p in _pieces(turn.reasoning, turn.chunk_size)]
        deltas += [{"content": p} for p in _pieces(turn.content, turn.chunk_size)]
        deltas += _tool_call_deltas(turn, meta.call_ids)
        if turn.ollama_style:
            deltas = [{"role": "assistant", **delta} for delta in deltas]
        else:
            deltas.insert(0, {"role": "assistant", "content": ""})
    chunks = [_chunk(meta, [_choice(delta)]) for delta in deltas]
    if turn.no_done:
        return chunks
    final_delta: JSONDict = {"role": "assistant", "content": ""} if turn.ollama_style else {}
    chunks.append(_chunk(meta, [_choice(final_delta, turn.effective_finish_reason)]))
    usage = usage_body(turn)
    if include_usage and usage is not None:
        chunks.append({**_chunk(meta, []), "usage": usage})
    return chunks


def completion_body(turn: Turn, meta: ResponseMeta) -> JSONDict:
    """The single ``chat.completion`` body answering a non-streaming request."""
    message: JSONDict = {"role": "assistant", "content": turn.content or (None if turn.tool_calls else "")}
    if turn.reasoning:
        message[turn.reasoning_field] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call, call_id in zip(turn.tool_calls, meta.call_ids, strict=True)
        ]
    body: JSONDict = {
        "id": meta.completion_id,
        "object": "chat.completion",
        "created": meta.created,
        "model": meta.model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": turn.effective_finish_reason}
        ],
    }
    usage = usage_body(turn)
    if usage is not None:
        body["usage"] = usage
    return body


def error_body(status: int, message: str = "") -> JSONDict:
    """An OpenAI-style error body; an empty message becomes the HTTP reason phrase."""
    default_kind = "server_error" if status >= 500 else "invalid_request_error"
    kind, code = _ERROR_KINDS.get(status, (default_kind, None))
    text = message or HTTPStatus(status).phrase
    return {"error": {"message": text, "type": kind, "param": None, "code": code}}


def _sse_data(payload: JSONDict | str) -> bytes:
    text = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
    return f"data: {text}\n\n".encode()


# ------------------------------------------------------------------------------------------ transport


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 plumbing only; what to answer is decided by the owning ``ScriptedModelServer``."""

    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Each SSE event must leave at once, not wait for Nagle to batch it with the next one.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self.server.owner._handle(self, "GET")

    def do_POST(self) -> None:
        self.server.owner._handle(self, "POST")

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


class _HTTPServer(ThreadingHTTPServer):
    """Tracks open connections so ``stop()`` can cut them instead of waiting for idle clients."""

    daemon_threads = False  # server_close() joins every handler thread
    block_on_close = True

    def __init__(self, owner: ScriptedModelServer) -> None:
        self.owner = owner
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up mid-response are part of the scripts; keep them out of test output.
        logger.debug("model server: error while serving %s", client_address, exc_info=True)


# --------------------------------------------------------------------------------------------- server


class ScriptedModelServer:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 answering from scripted turns.

    Turns are consumed first-in first-out; when none is left, ``responder(request_json)`` is asked (it
    may run on several handler threads at once); with neither, the request gets HTTP 500 and an entry
    in ``errors``. Use as a context manager (or ``start()``/``stop()``); ``stop()`` never waits for a
    client: delays, hung responses and idle keep-alive connections are cut.
    """

    def __init__(
        self,
        turns: Iterable[Turn] = (),
        *,
        responder: Responder | None = None,
        default_latency: float = 0.0,
        models: Sequence[str] = ("scripted-model",),
    ) -> None:
        self.responder = responder
        self.default_latency = default_latency
        self.models = tuple(models)
        self._turns: deque[Turn] = deque(turns)
        self._requests: list[RecordedRequest] = []
        self._errors: list[str] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._completion_ids = itertools.count(1)
        self._call_ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle ---------------------------------------------------------------------------------

    def start(self) -> Self:
        if self._httpd is not None:
            raise RuntimeError("scripted model server already started")
        self._stopping.clear()
        self._httpd = _HTTPServer(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"scripted-model-server:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut open connections and join every thread. Idempotent."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.drop_connections()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join()

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
        return int(self._httpd.server_address[1])

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

    def assert_exhausted(self) -> None:
        """Fail if a turn was never requested or a request came that the script did not expect."""
        with self._lock:
            problems = list(self._errors)
            if self._turns:
                problems.append(f"{len(self._turns)} scripted turn(s) never requested: {list(self._turns)!r}")
        if problems:
            raise AssertionError("scripted model server: " + "; ".join(problems))

    # request handling --------------------------------------------------------------------------

    def _handle(self, handler: _Handler, method: str) -> None:
        received_at = time.monotonic()
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

    def _handle_chat(self, handler: _Handler, received_at: float) -> None:
        try:
            body = json.loads(handler.read_body() or b"null")
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
            with self._lock:
                self._in_flight -= 1

    def _next_turn(self, body: JSONDict) -> tuple[Turn | None, str]:
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

    def _answer(self, handler: _Handler, turn: Turn, body: JSONDict) -> None:
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

    def _stream(self, handler: _Handler, turn: Turn, chunks: list[JSONDict]) -> None:
        handler.start_chunked("text/event-stream; charset=utf-8")
        if turn.hang:
            self._hold_open(handler)
            return
        data_events = [_sse_data(chunk) for chunk in chunks]
        if not turn.no_done:
            data_events.append(_sse_data("[DONE]"))
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

    def _respond_once(self, handler: _Handler, turn: Turn, body: JSONDict) -> None:
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

    def _hold_open(self, handler: _Handler) -> None:
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
        return not self._stopping.wait(seconds)

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
        data = [
            {"id": model, "object": "model", "created": 0, "owned_by": "scripted"} for model in self.models
        ]
        return {"object": "list", "data": data}

    def _record(
        self, handler: _Handler, received_at: float, *, body: JSONDict | None = None, turn: Turn | None = None
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


def _route(handler: _Handler) -> str:
    return handler.path.split("?", 1)[0].rstrip("/")


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else str(seconds)
