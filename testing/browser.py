"""Debian's headless Chromium driven by Playwright, for tests and the benchmark.

Never ``playwright install`` (it cannot download here): ``.ci/run`` installs Debian's ``chromium`` and
Playwright drives it through ``executable_path``. ``CHROMIUM_PATH`` names another binary (a machine
whose Chromium lives elsewhere, or a path that does not exist to try the suite as on a machine without
one: the browser tests and the benchmark's UI section then skip, saying so). :func:`loopback_context`
is a browser context that can reach 127.0.0.1 only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH") or "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Every request but loopback's (which Chromium never sends to a proxy) goes to a port where nothing
    # listens, and fails: the page cannot leave 127.0.0.1, and no request waits on Playwright to pass it.
    "--proxy-server=http://127.0.0.1:9",
]
LOOPBACK = ("127.0.0.1", "localhost")


PATIENCE_MS = 60_000.0  # what a browser test waits for, at most, on a busy machine


def loopback_context(chromium: Any, blocked: list[str] | None = None, **options: Any) -> Any:
    """A browser context that can reach 127.0.0.1 only (the machines have no internet, and a test must
    not depend on it): any other request fails (:data:`CHROMIUM_ARGS`' proxy) and its URL is appended to
    ``blocked``. Its pages wait up to :data:`PATIENCE_MS` for what a test expects (Playwright's 30 s ran
    out on a machine busy with the suite and two CPU burners, ``scripts/stress_suite.sh``).

    Routing every request through Playwright to abort the others cost each page load a round trip per
    asset: ``tests/browser/test_browser.py`` alone took 18.6 user-s that way, 17.0 with the proxy."""
    context = chromium.new_context(**options)
    context.set_default_timeout(PATIENCE_MS)

    def seen(request: Any) -> None:
        url = urlsplit(request.url)
        if blocked is not None and url.scheme in ("http", "https") and url.hostname not in LOOPBACK:
            blocked.append(request.url)

    context.on("request", seen)
    return context


def expand_all(page: Any) -> None:
    """Open every collapsed trace item, nested ones too (a closed item's children are not in the DOM).

    A forced click skips Playwright's wait for each title to be stable and hit-testable, 0.3-1 s apiece
    (9 s of a replay's 12 s test), and the scrolling: the title is scrolled into view first (once it was
    outside the viewport), then clicked with the mouse. (A click from page script opened a title without
    its content, now and then, on a loaded machine.)"""
    closed = page.locator("#trace .thought-group > .title:not(.expanded):visible")
    for _ in range(60):
        if closed.count() == 0:
            return
        title = closed.first
        title.evaluate("el => el.scrollIntoView({block: 'center'})")  # a forced click does not scroll
        title.click(force=True)
    raise AssertionError("trace items keep collapsing")
