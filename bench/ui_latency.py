"""Section 5, UI latency: the app in headless Chromium, as a user sees it.

The real app runs in its own process (:mod:`bench.app_server`); Debian's Chromium is driven by
Playwright exactly as in ``tests/browser`` (never ``playwright install``). Every measured run gets a
fresh browser context (its own Gradio session, so its own breaker board) and its own repository name.

* **Click → first trace item**: a ``MutationObserver`` installed before the click stamps
  ``performance.now()`` at the click (a capturing listener) and when the first collapsible trace item
  (``#trace .thought-group``, "🧠 Step 1") enters the DOM. One unmeasured warm-up run first.
* **Breaker opens → table shows it**: every ``/contents/`` request of the run's repository answers
  503, so ``read_file`` fails and its breaker opens at the ``BREAKER_FAILURE_THRESHOLD``-th failed
  attempt. The opening instant is when the emulator finished that tripping 503 (its log, in this
  process's wall clock); the showing instant is when a ``MutationObserver`` on ``#breakers`` first sees
  the ``read_file`` row say ``OPEN`` (``performance.timeOrigin + performance.now()``). The page's clock
  is compared with this process's after each run (an ``evaluate`` round trip) and the skew removed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.app_server import OWNER, ServedApp, served_app
from bench.config import BenchConfig
from bench.table import Metric, Section
from testing.browser import CHROMIUM, CHROMIUM_ARGS, loopback_context

TARGET_FIRST_ITEM = 0.5  # seconds
THRESHOLD = 3  # BREAKER_FAILURE_THRESHOLD given to the app (its default)
TIMEOUT_MS = 60_000

# Before the click: the click and the first trace item, on the page's own clock (milliseconds).
WATCH_FIRST_ITEM = """
() => {
  window.__t = {};
  const trace = document.querySelector('#trace');
  document.querySelector('#analyze').addEventListener(
    'click', () => { window.__t.click = performance.now(); }, {capture: true, once: true});
  const observer = new MutationObserver(() => {
    if (window.__t.first === undefined && trace.querySelector('.thought-group')) {
      window.__t.first = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(trace, {childList: true, subtree: true, characterData: true});
}
"""

# Before the click: the epoch (ms) at which the breaker table's row ``name`` first says OPEN.
WATCH_BREAKER_OPEN = """
name => {
  window.__b = {};
  const table = document.querySelector('#breakers');
  const open = () => [...table.querySelectorAll('[role=row]')].some(row => {
    const cells = row.innerText.split(/\\s+/);
    return cells.includes(name) && cells.includes('OPEN');
  });
  const observer = new MutationObserver(() => {
    if (window.__b.open === undefined && open()) {
      window.__b.open = performance.timeOrigin + performance.now();
      observer.disconnect();
    }
  });
  observer.observe(table, {childList: true, subtree: true, characterData: true});
}
"""
RUN_DONE = "() => document.querySelector('#status').innerText.includes('Done')"


@dataclass(frozen=True, kw_only=True)
class BreakerTiming:
    delay: float  # seconds from the tripping 503 to the table showing OPEN
    skew: float  # page clock minus this process's clock, seconds
    round_trip: float  # of the evaluate call that measured the skew, seconds
    failures: int  # 503s the run's read_file attempts got (>= THRESHOLD)


@contextmanager
def fresh_page(browser: Any, app: ServedApp) -> Iterator[Any]:
    """A new browser context (a new Gradio session) with the app loaded."""
    context = loopback_context(browser, viewport={"width": 1400, "height": 1600})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(app.url)
        for ready in ("#analyze", "#trace", "#breakers [role=row]"):  # the observers need all three
            page.wait_for_selector(ready)
        yield page
    finally:
        context.close()


def start_analysis(page: Any, repo: str) -> None:
    page.fill("#target textarea, #target input", repo)
    page.click("#analyze")


def click_to_first_item(browser: Any, app: ServedApp, repo: str) -> float:
    """Seconds from the click on Analyze to the first trace item in the DOM."""
    with fresh_page(browser, app) as page:
        page.evaluate(WATCH_FIRST_ITEM)
        start_analysis(page, repo)
        page.wait_for_function("() => window.__t.first !== undefined")
        timing = page.evaluate("window.__t")
        page.wait_for_function(RUN_DONE)
    return float(timing["first"] - timing["click"]) / 1000


def page_skew(page: Any, tries: int = 7) -> tuple[float, float]:
    """(page epoch - this process's epoch, round trip) in seconds, from the midpoint of the quickest
    of ``tries`` evaluate round trips (the skew is then known to within half that round trip)."""
    samples: list[tuple[float, float]] = []
    for _ in range(tries):
        before = time.time()
        page_now = float(page.evaluate("() => performance.timeOrigin + performance.now()")) / 1000
        after = time.time()
        samples.append((after - before, page_now - (before + after) / 2))
    round_trip, skew = min(samples)
    return skew, round_trip


def breaker_to_table(browser: Any, app: ServedApp, repo: str) -> BreakerTiming:
    """Seconds from the 503 that opened ``read_file``'s breaker to the table row showing OPEN."""
    contents = f"/repos/{repo}/contents/"
    app.emulator.fail("^" + contents, [503] * 20)
    with fresh_page(browser, app) as page:
        page.evaluate(WATCH_BREAKER_OPEN, "read_file")
        start_analysis(page, repo)
        page.wait_for_function("() => window.__b.open !== undefined")
        shown = float(page.evaluate("window.__b.open")) / 1000
        page.wait_for_function(RUN_DONE)
        skew, round_trip = page_skew(page)
    to_epoch = time.time() - time.monotonic()  # the emulator logs time.monotonic()
    failed = sorted(
        r.finished for r in app.emulator.requests if r.path.startswith(contents) and r.status == 503
    )
    if len(failed) < THRESHOLD:
        raise RuntimeError(
            f"{repo}: only {len(failed)} failed read_file requests; the breaker cannot have opened"
        )
    tripped = failed[THRESHOLD - 1] + to_epoch
    return BreakerTiming(delay=shown - skew - tripped, skew=skew, round_trip=round_trip, failures=len(failed))


def measure(config: BenchConfig, workdir: Path) -> Section:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return Section(key="ui", title="UI latency", skipped="the playwright package is missing")
    if not CHROMIUM.is_file():
        return Section(key="ui", title="UI latency", skipped=f"{CHROMIUM} is missing")
    runs = max(1, config.runs)
    with (
        served_app(config, workdir, BREAKER_FAILURE_THRESHOLD=str(THRESHOLD)) as app,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            warm, *timed = app.add_repos("ui", runs + 1)
            cold = click_to_first_item(browser, app, warm)
            first_items = [click_to_first_item(browser, app, repo) for repo in timed]
            breakers = [breaker_to_table(browser, app, repo) for repo in app.add_repos("broken", runs)]
        finally:
            browser.close()
    first = statistics.median(first_items)
    delays = [b.delay for b in breakers]
    metrics = [
        Metric(
            name=f"click -> first trace item (median of {runs})",
            value=first,
            unit="s",
            target=f"≤ {TARGET_FIRST_ITEM}",
            met=first <= TARGET_FIRST_ITEM,
        ),
        Metric(name="click -> first trace item, max", value=max(first_items), unit="s"),
        Metric(name="click -> first trace item, first run (warm-up)", value=cold, unit="s"),
        Metric(
            name=f"breaker opens -> table shows OPEN (median of {runs})",
            value=statistics.median(delays),
            unit="s",
        ),
        Metric(name="breaker opens -> table shows OPEN, max", value=max(delays), unit="s"),
    ]
    skews = [abs(b.skew) * 1000 for b in breakers]
    trips = [b.round_trip * 1000 for b in breakers]
    notes = [
        f"headless Chromium ({CHROMIUM}) via Playwright; app served as `python app.py` in its own process; "
        f"repositories {OWNER}/ui-NN and {OWNER}/broken-NN (fresh names, so no cached GitHub answers)",
        "first trace item = the first `#trace .thought-group` (the run's Step 1) in the DOM, by a "
        "MutationObserver armed before the click; page clock on both ends",
        f"breaker: every /contents/ request of the run's repository answers 503; opened = when the emulator "
        f"finished failing response number {THRESHOLD} (BREAKER_FAILURE_THRESHOLD={THRESHOLD}), shown = when "
        "the `read_file` row first reads OPEN in the DOM (before the browser paints it); "
        f"failing responses per run: {', '.join(str(b.failures) for b in breakers)}",
        f"page vs benchmark clock: skew up to {max(skews):.1f} ms, removed; measured over evaluate round "
        f"trips of up to {max(trips):.1f} ms (the uncertainty is half of that)",
    ]
    return Section(key="ui", title="UI latency", metrics=metrics, notes=notes)
