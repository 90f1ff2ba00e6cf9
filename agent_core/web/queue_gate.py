"""Fair queueing: a visitor's share of Gradio's queue, decided before the queue takes a request.

Gradio queues every event a client joins, whoever sends them: 2,000 ``queue/join`` calls from one
address (no stream ever read) took another visitor's analysis from 0.3 s to 13.8 s (issue 20, attack
9). :class:`QueueGate` is an ASGI layer keyed on the address the budget already trusts
(:func:`~agent_core.web.budget.visitor_key`): per visitor, at most :data:`JOINS_PER_MINUTE` events joined in
any sliding minute and ``streams`` event streams (``queue/data``) open at once; over either, ``429`` with
``Retry-After``, and the queue never sees the request.

A refusal must cost the server as little as possible, since one visitor can send them as fast as the
event loop answers: the gate is the OUTERMOST layer of the app (:func:`install_gate` wraps the app's
built middleware stack at startup, ahead of Gradio's CORS and Brotli middlewares, Starlette's error and
exception layers and FastAPI's routing, which a ``middleware=[...]`` entry would sit behind), every
other request passes after one string test, and a refusal is a constant response computed once.

Uploads (``/upload``, and ``/component_server``, which takes files too) are budgeted by the same key:
at most :data:`UPLOAD_BYTES_PER_HOUR` declared bytes per visitor in any sliding hour
(:class:`UploadBudget`); a body without a declared length, or one over the budget, is refused (``413``)
before a byte of it is read. With Gradio's ``max_file_size`` per file and ``delete_cache`` (:data:`DELETE_CACHE`: an uploaded
file lives at most 40 minutes) one visitor's files on disk stay under the hour's budget. With several
replicas (``REDIS_URL``) the bytes are counted in Redis (:class:`SharedUploadBudget`), so a visitor
whose uploads reach several replicas still has one budget.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from agent_core.clock import Clock, SystemClock
from agent_core.shared_state import SharedQuota, SharedState
from agent_core.web.budget import RunBudget, visitor_key

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

JOINS_PER_MINUTE = 30
STREAMS = 6
KEYS_REMEMBERED = 4096  # (forwarded header, peer) -> visitor key: a flood repeats the same pair
GATED = ("/queue/join", "/queue/data")
UPLOADS = ("/upload", "/component_server", "/component_server/")
UPLOAD_BYTES_PER_HOUR = 25 * 1024 * 1024
HOUR = 3600.0
UPLOADERS = 4096  # visitors whose uploads are counted at once
"""What one visitor may upload in a sliding hour: a maximum-size trace (2 MB) a dozen times over."""
DELETE_CACHE = (600, 1800)
"""Gradio's ``delete_cache`` (frequency, age in seconds): uploads older than 30 minutes are deleted every
10 minutes, so none outlives the upload budget's hour."""

_BODY = b'{"error":"too many requests from this address; try again shortly"}'
_HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(_BODY)).encode())]
_BODY_MESSAGE = {"type": "http.response.body", "body": _BODY}
_UPLOAD_BODY = b'{"error":"this address has used its upload allowance for the hour, or sent no length"}'
_UPLOAD_REFUSAL = (
    {
        "type": "http.response.start",
        "status": 413,
        "headers": [_HEADERS[0], (b"content-length", b"%d" % len(_UPLOAD_BODY))],
    },
    {"type": "http.response.body", "body": _UPLOAD_BODY},
)


class UploadBudget:
    """Bytes per key in a sliding hour; thread-safe under the GIL (the loop's).
    At most :data:`UPLOADERS` keys remembered: a new one beyond that is refused, like :class:`RunBudget`."""

    def __init__(self, limit: int, *, clock: Clock) -> None:
        self.limit = limit
        self._clock = clock
        self._taken: dict[str, deque[tuple[float, int]]] = {}
        self._totals: Counter[str] = Counter()

    def take(self, key: str, size: int) -> bool:
        """Count ``size`` bytes for ``key`` if they fit its window's budget."""
        now = self._clock.monotonic()
        taken = self._taken.get(key)
        if taken is None:
            if len(self._taken) >= UPLOADERS:
                self._forget_expired(now)
                if len(self._taken) >= UPLOADERS:
                    return False
            taken = self._taken[key] = deque()
        while taken and taken[0][0] <= now - HOUR:
            self._totals[key] -= taken.popleft()[1]
        if self._totals[key] + size > self.limit:
            return False
        taken.append((now, size))
        self._totals[key] += size
        return True

    def used(self, key: str) -> int:
        return self._totals.get(key, 0)

    def _forget_expired(self, now: float) -> None:
        for key in [k for k, taken in self._taken.items() if not taken or taken[-1][0] <= now - HOUR]:
            del self._taken[key]
            self._totals.pop(key, None)


class SharedUploadBudget:
    """:class:`UploadBudget` counted in Redis by every replica: per visitor, a
    :class:`~agent_core.shared_state.SharedQuota` of bytes in a sliding window (one Lua script a take).
    Fails closed: while Redis cannot count, uploads are refused. The handles are stateless (the count
    lives in Redis), so at most ``max_keys`` are kept, least recently used forgotten."""

    def __init__(self, shared: SharedState, limit: int, *, clock: Clock, max_keys: int = UPLOADERS) -> None:
        self.limit = limit
        self._shared = shared
        self._clock = clock
        self._max_keys = max_keys
        self._quotas: OrderedDict[str, SharedQuota] = OrderedDict()

    def _quota(self, key: str) -> SharedQuota:
        quota = self._quotas.get(key)
        if quota is None:
            quota = SharedQuota(self._shared, f"uploads:{key}", self.limit, clock=self._clock, window=HOUR)
            self._quotas[key] = quota
            if len(self._quotas) > self._max_keys:
                self._quotas.popitem(last=False)
        self._quotas.move_to_end(key)
        return quota

    def take(self, key: str, size: int) -> bool:
        """Count ``size`` bytes for ``key`` if they fit its window's budget (in every replica's count)."""
        return size <= self.limit and self._quota(key).take(size)

    def used(self, key: str) -> int:
        return self.limit - self._quota(key).remaining()


def upload_budget(shared: SharedState | None, *, clock: Clock) -> UploadBudget | SharedUploadBudget:
    """The upload budget: in Redis when the replicas share state, else in this process."""
    if shared is None:
        return UploadBudget(UPLOAD_BYTES_PER_HOUR, clock=clock)
    return SharedUploadBudget(shared, UPLOAD_BYTES_PER_HOUR, clock=clock)


class _RawHeaders:
    """What :func:`visitor_key` reads of a request (``getlist``), over the scope's raw header pairs."""

    def __init__(self, forwarded: list[str]) -> None:
        self.forwarded = forwarded

    def getlist(self, _name: str) -> list[str]:
        return self.forwarded


class QueueGate:
    """See the module docstring. One per app; state in the instance."""

    def __init__(
        self,
        app: App,
        *,
        streams: int = STREAMS,
        uploads: UploadBudget | SharedUploadBudget | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.app = app
        self.joins = RunBudget(JOINS_PER_MINUTE, clock=clock or SystemClock(), window=60.0)
        self.uploads = uploads or UploadBudget(UPLOAD_BYTES_PER_HOUR, clock=clock or SystemClock())
        self.max_streams = streams
        self.streams: Counter[str] = Counter()
        self._keys: dict[tuple[bytes, str], str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path")
        if scope["type"] != "http" or not isinstance(path, str) or not path.endswith(GATED):
            uploading = isinstance(path, str) and path.endswith(UPLOADS) and scope.get("method") == "POST"
            if uploading and not self._upload_fits(scope):
                for message in _UPLOAD_REFUSAL:
                    await send(message)
                return
            await self.app(scope, receive, send)
            return
        key = self.key(scope)
        if path.endswith("/queue/join"):
            decision = self.joins.try_start(key)
            if not decision.allowed:
                await self._refuse(send, decision.retry_after)
                return
            await self.app(scope, receive, send)
            return
        if self.streams[key] >= self.max_streams:
            await self._refuse(send, 5.0)
            return
        self.streams[key] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.streams[key] -= 1
            if self.streams[key] <= 0:
                del self.streams[key]

    def _upload_fits(self, scope: Scope) -> bool:
        """Whether the body's declared length fits the visitor's upload budget (counted when it does).
        A body with no length (chunked) is refused: its size could only be learned by reading it."""
        declared = next((v for n, v in scope.get("headers", ()) if n == b"content-length"), None)
        if declared is None or not declared.isdigit():
            return False
        return self.uploads.take(self.key(scope), int(declared))

    def key(self, scope: Scope) -> str:
        """The visitor key of a request, remembered per (forwarded header, peer): constant work per request."""
        forwarded = b",".join(value for name, value in scope.get("headers", ()) if name == b"x-forwarded-for")
        client = scope.get("client")
        peer = str(client[0]) if client else ""
        known = self._keys.get((forwarded, peer))
        if known is None:
            header = [forwarded.decode("latin-1")] if forwarded else []
            known = visitor_key(_RawHeaders(header), peer or None)
            if len(self._keys) >= KEYS_REMEMBERED:
                self._keys.clear()
            self._keys[forwarded, peer] = known
        return known

    async def _refuse(self, send: Send, retry_after: float) -> None:
        wait = str(max(1, -int(-retry_after // 1))).encode()  # whole seconds, rounded up
        await send(
            {"type": "http.response.start", "status": 429, "headers": [*_HEADERS, (b"retry-after", wait)]}
        )
        await send(_BODY_MESSAGE)


def install_gate(app: Any, uploads: UploadBudget | SharedUploadBudget) -> None:
    """Put a :class:`QueueGate` in front of ``app``'s whole middleware stack, from its lifespan startup.
    Starlette builds the stack on the app's first call (the lifespan startup itself) and calls
    ``app.middleware_stack`` for every request after: wrapping it there puts the gate ahead of every
    middleware Gradio adds."""
    stack = app.middleware_stack if app.middleware_stack is not None else app.build_middleware_stack()
    app.middleware_stack = QueueGate(stack, uploads=uploads)
