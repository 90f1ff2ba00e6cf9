"""Fair queueing: a visitor's share of Gradio's queue, decided before the queue takes a request.

Gradio queues every event a client joins, whoever sends them: 2,000 ``queue/join`` calls from one
address (no stream ever read) took another visitor's analysis from 0.3 s to 13.8 s (issue 20, attack
9). :class:`QueueGate` is an ASGI middleware in front of the app (``launch(app_kwargs=...)``, see
:func:`gate_middleware`), keyed on the address the budget already trusts
(:func:`~agent_core.web.budget.visitor_key`): per visitor, at most ``joins_per_minute`` events joined in
any sliding minute and ``streams`` event streams (``queue/data``) open at once; over either, ``429`` with
``Retry-After``, and the queue never sees the request.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware import Middleware

from agent_core.clock import Clock, SystemClock
from agent_core.web.budget import RunBudget, visitor_key

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

JOINS_PER_MINUTE = 30
STREAMS = 6


class QueueGate:
    """See the module docstring. One per app (Starlette builds it with the app); state in the instance."""

    def __init__(
        self,
        app: App,
        *,
        joins_per_minute: int = JOINS_PER_MINUTE,
        streams: int = STREAMS,
        clock: Clock | None = None,
    ) -> None:
        self.app = app
        self.joins = RunBudget(joins_per_minute, clock=clock or SystemClock(), window=60.0)
        self.max_streams = streams
        self.streams: Counter[str] = Counter()
        self.refused = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", "")) if scope.get("type") == "http" else ""
        if not path.endswith(("/queue/join", "/queue/data")):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        key = visitor_key(Headers(scope=scope), client[0] if client else None)
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

    async def _refuse(self, send: Send, retry_after: float) -> None:
        self.refused += 1
        body = json.dumps({"error": "too many requests from this address; try again shortly"}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(max(1, math.ceil(retry_after))).encode()),
        ]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def gate_middleware(**limits: Any) -> Middleware:
    """The gate as a Starlette middleware entry, for ``launch(app_kwargs={"middleware": [...]})``."""
    return Middleware(QueueGate, **limits)
