"""A new page's first requests, ``GET /`` and ``GET /config``, answered from bytes made once per root URL.

Gradio answers each of them by deep-copying the page's whole config (88 components, ~98 KB of JSON),
rewriting the root URL in every node and serialising the copy; ``/`` also builds the API description
and renders the page template. That is CPU in a worker thread that shares the GIL with the analyses'
CPU steps, so while a 100,000-entry analysis ran another page's ``/config`` took up to 0.13 s.

The answer is a function of the config (built once at launch), the root URL the request resolves to
(Gradio's own :func:`gradio.route_utils.get_root_url`, from the host and forwarded headers), the query
and the user. :class:`PageCache` keeps Gradio's answer (status, headers, body) per (route, root URL)
and replays it while the config is the same object, only when nothing else can change it: a GET with
no query string on an app without authentication or OAuth (then there is no user). Anything else goes
to Gradio as before. A visitor choosing ``Host`` headers cannot grow it past :data:`ROOTS_KEPT` roots.
CORS and compression sit outside the routes, so they still answer each request's own ``Origin`` and
``Accept-Encoding``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from gradio.route_utils import get_root_url
from starlette.requests import Request

from agent_core.web.queue_gate import App, Message, Receive, Scope, Send

CACHED_ROUTES = ("/", "/config", "/config/")
ROOTS_KEPT = 16


@dataclass(frozen=True, slots=True)
class _Answer:
    config: object  # the config object the answer was made from: a new one makes it stale
    start: Message
    body: bytes


class PageCache:
    """Wraps one route's ASGI app; ``server`` is the Gradio app (its ``get_blocks()``, auth and root path)."""

    def __init__(self, route_app: App, server: Any, route_path: str) -> None:
        self.app = route_app
        self.server = server
        self.route_path = route_path
        self.answers: OrderedDict[str, _Answer] = OrderedDict()
        self.hits = 0

    def _cacheable(self, scope: Scope) -> bool:
        server = self.server
        return (
            scope.get("method") == "GET"
            and not scope.get("query_string")
            and server.auth is None
            and server.auth_dependency is None
            and not getattr(server.get_blocks(), "expects_oauth", False)
        )

    def _root(self, scope: Scope) -> str:
        blocks = self.server.get_blocks()
        root_path = self.server.root_path or scope.get("root_path") or blocks.custom_mount_path
        # the route path Gradio resolves the root with: "/" for the page, "/config" for both configs
        return get_root_url(Request(scope), "/" if self.route_path == "/" else "/config", root_path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._cacheable(scope):
            await self.app(scope, receive, send)
            return
        config = self.server.get_blocks().config
        root = self._root(scope)
        kept = self.answers.get(root)
        if kept is not None and kept.config is config:
            self.hits += 1
            self.answers.move_to_end(root)
            await send(kept.start)
            await send({"type": "http.response.body", "body": kept.body})
            return
        sent: list[Message] = []

        async def record(message: Message) -> None:
            sent.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self._keep(root, config, sent)  # kept before the last byte goes out: the next request sees it
            await send(message)

        await self.app(scope, receive, record)

    def _keep(self, root: str, config: object, sent: list[Message]) -> None:
        start = next((m for m in sent if m["type"] == "http.response.start"), None)
        if start is None or start.get("status") != 200:
            return  # an error is never kept
        body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        self.answers[root] = _Answer(config, dict(start), body)
        self.answers.move_to_end(root)
        while len(self.answers) > ROOTS_KEPT:
            self.answers.popitem(last=False)


def cache_pages(server: Any) -> list[PageCache]:
    """Put a :class:`PageCache` in front of the GET routes of :data:`CACHED_ROUTES` of ``server`` (a
    Gradio app, its routes built); returns them."""
    caches: list[PageCache] = []
    for route in server.router.routes:
        path = getattr(route, "path", None)
        if path in CACHED_ROUTES and "GET" in (getattr(route, "methods", None) or ()):
            cache = PageCache(route.app, server, path)
            route.app = cache
            caches.append(cache)
    return caches
