"""Serving the real app on a free loopback port, for the gradio_client, MCP and browser tests."""

from __future__ import annotations

import asyncio
import gc
import socket
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent_core.clock import Clock
from agent_core.settings import Settings
from agent_core.top.services import Services

API_PATIENCE_S = 60.0  # what an API client waits for one request, at most, on a busy machine


def api_client(
    url: str,
    downloads: Path | str | None = None,
    *,
    httpx_kwargs: dict[str, Any] | None = None,
    **options: Any,
) -> Any:
    """A gradio_client session (one visitor) that waits up to :data:`API_PATIENCE_S` for each request,
    for the tests and the benchmark alike. httpx's default of 5 s ran out for one of twenty sessions
    joining the queue at once on a machine busy with the suite and CPU burners
    (``scripts/stress_suite.sh``): a ``ReadTimeout`` the app never caused. ``httpx_kwargs`` adds to (or
    overrides) the timeout, e.g. a proxy's cookie."""
    from gradio_client import Client  # type: ignore[import-untyped]

    return Client(
        url,
        verbose=False,
        analytics_enabled=False,
        download_files=str(downloads) if downloads is not None else False,
        httpx_kwargs={"timeout": API_PATIENCE_S, **(httpx_kwargs or {})},
        **options,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def release_gradio_loops() -> None:
    """Close the event loops Gradio 6.31 leaves behind, now, under the calling module's warning filters.

    ``gradio.utils.safe_get_lock`` creates and installs a fresh event loop in the calling thread for
    every lock it makes outside a running loop (about six per app), orphaning the previous one. Left
    alone they are garbage-collected during some later test, whose unraisable-exception check then fails.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:  # none installed (we already removed it)
        loop = None
    if loop is not None and not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)
    gc.collect()


@contextmanager
def running_app(settings: Settings, *, clock: Clock | None = None) -> Iterator[str]:
    """Serve ``build_app(settings)`` like ``main()`` does, on a free loopback port; yields its URL.

    ``clock`` is the app's clock (breaker timers, run budgets, durations); the real one by default."""
    import app as app_module

    services = Services(settings, clock=clock)
    demo = app_module.build_app(settings, services=services)
    demo.queue(default_concurrency_limit=settings.max_concurrent_runs)
    options = app_module.launch_options(settings, services)
    options["server_port"] = free_port()
    _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, **options)
    release_gradio_loops()
    try:
        yield url
    finally:
        demo.close()
        release_gradio_loops()
