"""The browser app: the page, its handlers and bindings over one process's services, and how it launches.

:func:`build_app` is the web package's composition root: it builds the process-wide
:class:`~agent_core.top.wiring.Services` (unless given), the hosted-mode budget, the page
(:mod:`~agent_core.web.page`), its handlers (:mod:`~agent_core.web.handlers`) and bindings
(:mod:`~agent_core.web.bindings`), and the public API functions that are also the MCP tools
(:mod:`~agent_core.web.mcp`). This package is the only one that imports Gradio.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import gradio as gr

from agent_core.clock import SystemClock
from agent_core.settings import Settings
from agent_core.top.services import Services
from agent_core.top.wiring import OpenedAnalysis
from agent_core.web.bindings import RESTORE_LANGUAGE, bind
from agent_core.web.browser_session import BrowserSession
from agent_core.web.budget import SpaceBudget
from agent_core.web.handlers import Handlers
from agent_core.web.layout import layout
from agent_core.web.mcp import RepositoryApi
from agent_core.web.page_cache import cache_pages
from agent_core.web.queue_gate import DELETE_CACHE, install_gate, upload_budget
from agent_core.web.replay import bundled_recordings
from agent_core.web.sessions import SessionTable, lighten


def quiet_gradio_locks() -> None:
    """Gradio 6's ``safe_get_lock`` makes and installs a new event loop for every lock it makes outside
    a running loop (about six per app), orphaning the one before with its self-pipe until a garbage
    collection reports it unclosed. ``asyncio.Lock`` needs no loop since Python 3.10: locks are made
    plainly, and so are events (``gradio.routes`` reads both from ``gradio.utils``, ``gradio.queueing``
    holds its own name for the lock)."""
    import gradio.queueing
    import gradio.utils

    gradio.utils.safe_get_lock = asyncio.Lock
    gradio.utils.safe_get_stop_event = asyncio.Event  # the same, for the app's stop event
    gradio.queueing.safe_get_lock = asyncio.Lock  # type: ignore[attr-defined]


quiet_gradio_locks()

logger = logging.getLogger("repo_analyst.app")

# How often Gradio wakes a page's open streams with a heartbeat. A visitor who hangs up is noticed at the
# stream's next frame: while a run waits quietly (on GitHub, in a backoff) that was Gradio's 10 s wait or
# its 15 s heartbeat, and the run kept its slot and its requests that long. A frame every 2 s is a few
# bytes per open page; the operator's own GRADIO_HEARTBEAT_INTERVAL wins.
HEARTBEAT_INTERVAL_S = "2"

CSS = """
#heading span.md { display: flex; flex-wrap: wrap; align-items: baseline; column-gap: 14px; }
#heading h2, #heading p { margin: 0; }
#followup-bar { align-items: flex-end; }
/* The breaker table fits its column: smaller cells, long errors wrap, the last column stays in view. */
#breakers th, #breakers td { font-size: 0.85em; }
#breakers td .cell-wrap, #breakers th .cell-wrap { padding: 3px 6px; }
/* On a phone every column still fits: smaller text, tighter cells. */
@media (max-width: 640px) {
  #breakers th, #breakers td, #breakers [role=gridcell] { font-size: 0.7em; }
  #breakers .cell-wrap { padding: 2px 3px; }
}
#status { font-size: 0.85em; }
/* The trace's floating label sits above its items, never on the first one. */
#trace > .wrapper { padding-top: 34px; }
/* The claim check's verified claims, collapsed under one line. */
#checked details > summary { cursor: pointer; }
/* The stats as one wrapped line of "label: value" pairs, not a tall list. */
#stats ul { display: flex; flex-wrap: wrap; gap: 2px 18px; list-style: none; padding-left: 0; margin: 0; }
#stats li { margin: 0; }
/* The app's own voice: a panel no Markdown the model writes can look like. */
#checked:not(:empty) { border-left: 6px solid #2563eb; background: #eff6ff; border-radius: 6px; padding: 4px 12px; }
"""


def launch_options(settings: Settings, services: Services | None = None) -> dict[str, Any]:
    """Arguments for ``launch()``: where to bind (:attr:`Settings.bind_address`, the same decision local
    paths follow), the upload cap, MCP, no share link, no run history, theme and CSS, and the layers
    :func:`server_lifespan` adds."""
    options: dict[str, Any] = {
        "server_name": settings.bind_address,
        # Gradio refuses a bigger upload while it streams, before it is all on disk.
        "max_file_size": settings.max_upload_mb * 1024 * 1024,
        "share": False,
        "mcp_server": settings.mcp_server,
        # The run history would store handler inputs in the browser; keys must live in the session only.
        "run_history": False,
        "theme": gr.themes.Soft(),
        "css": CSS,
        "app_kwargs": {"lifespan": server_lifespan(settings, services)},
    }
    return options


def server_lifespan(
    settings: Settings, services: Services | None = None
) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """What the server adds to Gradio's app when it starts, its routes and middlewares built: the page
    and its config answered from bytes made once (:mod:`~agent_core.web.page_cache`) and, on a Space,
    each visitor's share of the queue checked before any of Gradio's layers runs
    (:mod:`~agent_core.web.queue_gate`; uploads counted in Redis when ``services`` share state); and a
    heartbeat every :data:`HEARTBEAT_INTERVAL_S`, so a hang-up is noticed within it."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        os.environ.setdefault("GRADIO_HEARTBEAT_INTERVAL", HEARTBEAT_INTERVAL_S)  # read at each stream
        cache_pages(app)
        lighten(app)  # an idle session's record in Gradio: a few KiB, not the whole page's config
        if settings.hosted:
            shared, clock = (services.shared, services.clock) if services else (None, SystemClock())
            install_gate(app, upload_budget(shared, clock=clock))
        yield

    return lifespan


def build_app(settings: Settings, *, services: Services | None = None) -> gr.Blocks:
    """The page for ``settings``. ``services`` defaults to a new process-wide :class:`Services`."""
    services = services or Services(settings)
    budget = SpaceBudget(settings, services.quotas, clock=services.clock)
    recordings = bundled_recordings()

    sessions = SessionTable(services.clock, schedule=_schedule_close)

    def discard(value: object) -> None:
        if isinstance(value, BrowserSession):
            sessions.forget(value)
            value.discard(_schedule_close)

    # Uploaded files (and files handed to the page) are deleted 30 minutes old: temporary space stays
    # bounded by what the upload budget lets a visitor send in an hour (web/queue_gate).
    with gr.Blocks(title="Repo Analyst", fill_width=True, delete_cache=DELETE_CACHE) as demo:
        page = layout(settings, recordings, BrowserSession(settings, clock=services.clock), discard)
        handlers = Handlers(
            page,
            settings=settings,
            services=services,
            budget=budget,
            recordings=recordings,
            sessions=sessions,
        )
        bind(page, handlers, settings)
        demo.load(
            handlers.on_load,
            [page.state],
            [page.state, page.status.line],
            api_visibility="private",
            queue=False,
        ).then(None, None, [page.settings.ui_language], js=RESTORE_LANGUAGE, queue=False)
        for fn in RepositoryApi(services, settings, budget).functions():
            gr.api(  # type: ignore[attr-defined]
                fn,
                api_name=fn.__name__,
                concurrency_limit=settings.max_concurrent_runs,
                concurrency_id="analysis",
            )
    return demo  # type: ignore[no-any-return]


def _schedule_close(opened: OpenedAnalysis) -> None:
    """Close an abandoned session's analysis on the running loop, if there is one (else GC does it)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(opened.aclose())
    task.add_done_callback(lambda done: done.exception() if not done.cancelled() else None)


def main() -> None:
    """``python app.py``: settings from the environment and ``.env``, then serve."""
    settings = Settings.from_env()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logger.info("starting repo-analyst: %r", settings)
    services = Services(settings)
    services.warm()  # the model pools' SSL contexts now, not on the loop when the first analysis starts
    demo = build_app(settings, services=services)
    demo.queue(default_concurrency_limit=settings.max_concurrent_runs)
    # Gradio, the page and the services are built once and live as long as the process: move them out
    # of the collector's view, so a full collection during a big analysis does not walk them all while
    # it holds the loop (0.09-0.18 s per full collection on a 100,000-entry tree before this).
    gc.collect()
    gc.freeze()
    # The server's loop and Gradio's request threads share the GIL with the CPU steps' worker threads
    # (agent_core.offload): a thread that waits for the GIL gets it after the switch interval. 1 ms
    # instead of Python's 5 ms: another page's /config during a 100,000-entry analysis, p50 0.057-0.073
    # -> 0.043-0.050 s and max 0.139-0.218 -> 0.099-0.131 s (python -m bench --only bigtree, idle machine),
    # for ~5% more CPU per analysis.
    sys.setswitchinterval(0.001)
    demo.launch(**launch_options(settings, services))
