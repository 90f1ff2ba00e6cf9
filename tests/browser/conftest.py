"""Fixtures for the real-browser tests: the app on 127.0.0.1 over the GitHub emulator and the scripted
model, and Debian's headless Chromium driven by Playwright.

Everything is skipped, with the reason, when Chromium or Playwright is missing (``.ci/run`` installs
the ``chromium`` package; never ``playwright install``, which needs the internet).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.settings import Settings
from testing.app import running_app
from testing.browser import CHROMIUM, CHROMIUM_ARGS, PATIENCE_MS, loopback_context
from testing.clock import HeldWaits, RealWaits, SkippingClock
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo, sample_python_project
from testing.emulator.model_server import ScriptedModelServer, Turn

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
# How long a page waits for a condition before the test fails (testing.browser, every context's default):
# far beyond any busy machine's delay, and never waited out by a passing test (Playwright checks the
# conditions as the page changes). The app's GitHub timeouts are as patient.
PATIENCE_S = PATIENCE_MS / 1000

REPORTS = {
    "wordstats": "# octo/wordstats\n\n## Overview\nA small word-counting library with tests and CI.\n",
    "flaky": "# octo/flaky\n\n## Overview\nThe README could not be read: GitHub kept failing.\n",
    # Long, so that a test can press Stop while it streams (see scripted).
    "slow": "# octo/slow\n\n## Overview\n" + " ".join(f"word{i}" for i in range(400)) + "\n",
    # As long, written at once: a long report's layout, without waiting for it.
    "long": "# octo/long\n\n## Overview\n" + " ".join(f"word{i}" for i in range(400)) + "\n",
    # Streams for about six minutes (see scripted), far longer than any test waits for anything.
    "endless": "# octo/endless\n\n## Overview\n" + " ".join(f"word{i}" for i in range(20_000)) + "\n",
}


BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
]
"""The marks of every browser test module (``pytestmark = BROWSER_MARKS``): Chromium and a live server leave
resource and unraisable warnings at teardown that are not the tests' concern."""


def _repo_in(body: dict[str, Any]) -> str:
    text = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
    match = re.search(r"octo/(\w+)", text)
    return match.group(1) if match else "wordstats"


def scripted(body: dict[str, Any]) -> Turn:
    """First turn: read the README (slowly, so steps are observable); second: the report.

    octo/slow's first turn does not wait at all, so that every wait of its run is a pause of the report
    (which a test holds, see ``held_model``). octo/endless's report keeps streaming for minutes: an app
    that hangs up on it is noticed, one that does not is not waited for. (It must keep streaming: a
    closed tab is noticed by the app at its next frame, which a silent stream would never cause.)"""
    name = _repo_in(body)
    turns = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if turns == 0:
        paced = name not in ("slow", "long")
        return Turn.calls(
            ("get_repo_info", {"owner": "octo", "repo": name}),
            ("read_file", {"owner": "octo", "repo": name, "path": "README.md"}),
            reasoning=f"Looking at octo/{name}: metadata and the README <b>first</b>.",
            chunk_size=8,
            delay_per_chunk=0.03 if paced else 0.0,
            latency=0.1 if paced else 0.0,
            usage=(1200, 40),
        )
    if name == "slow":
        return Turn.final(REPORTS[name], reasoning="Enough gathered.", chunk_size=6, delay_per_chunk=0.01)
    if name == "long":
        return Turn.final(REPORTS[name], reasoning="Enough gathered.", chunk_size=1000)
    if name == "endless":
        return Turn.final(REPORTS[name], reasoning="Enough gathered.", chunk_size=20, delay_per_chunk=0.05)
    return Turn.final(
        REPORTS[name],
        reasoning="Enough gathered; writing the report.",
        chunk_size=40,
        delay_per_chunk=0.01,
        usage=(2400, 300),
    )


def require_browser() -> None:
    """Skip, with the reason, when Chromium or Playwright is missing."""
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


def app_settings(emu: GitHubEmulator, model: ScriptedModelServer, root: Path, **changes: Any) -> Settings:
    """The app's settings for a browser test: the emulator, the scripted model, a fresh cache."""
    return Settings(
        github_api_url=emu.base_url,
        cache_dir=root / "cache",
        api_key="browser-test-key",
        llm_provider="custom",
        llm_base_url=model.base_url,
        llm_model="scripted-model",
        # A request a test holds is never timed out while the test looks at the page.
        github_read_timeout=PATIENCE_S,
        tool_timeout=PATIENCE_S,
        # The scripted model plans every call itself; a failing call's retries (chaos mode) show in the
        # trace as they would, 0.05-0.2 s apart instead of 0.5-8 s.
        **(
            {"prefetch": False, "diagram_from_model": False, "retry_base_delay": 0.05, "retry_max_delay": 0.2}
            | changes
        ),
    )


@pytest.fixture(scope="module")
def browser_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The emulator, the model server and the app, started once for the browser tests."""
    require_browser()
    root = tmp_path_factory.mktemp("browser-repos")
    with (
        pytest.MonkeyPatch.context() as mp,
        GitHubEmulator() as emu,
        ScriptedModelServer(responder=scripted) as model,
    ):
        mp.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        emu.add_repo("octo/wordstats", sample_python_project(root / "wordstats"))
        for name, readme in (
            ("flaky", "# flaky\n"),
            ("slow", "# slow\n"),
            ("long", "# long\n"),
            ("endless", "# endless\n"),
        ):
            emu.add_repo(f"octo/{name}", make_repo(root / name, {"README.md": readme}))
        emu.cache_control = "private, max-age=0"  # every request reaches the wire (and chaos mode)
        # An open breaker stays open until a test skips the app's clock past its open period.
        clock = SkippingClock()
        settings = app_settings(emu, model, root, breaker_open_seconds=3600.0)
        with running_app(settings, clock=clock) as url:
            yield {"url": url, "emulator": emu, "model": model, "clock": clock}


@pytest.fixture
def held_model(browser_env: dict[str, Any]) -> Iterator[HeldWaits]:
    """Every latency and pause of the scripted model is held until the test releases it."""
    model: ScriptedModelServer = browser_env["model"]
    held = model.waits = HeldWaits()
    try:
        yield held
    finally:
        held.open()
        model.waits = RealWaits()


@pytest.fixture
def held_readme(browser_env: dict[str, Any]) -> Iterator[HeldWaits]:
    """octo/wordstats' README request is held until the test releases it: its tool call stays pending
    (with its spinner) for as long as the test needs to look at the page."""
    emu: GitHubEmulator = browser_env["emulator"]
    held = emu.waits = HeldWaits()
    emu.latency(1.0, r"/repos/octo/wordstats/contents/")
    try:
        yield held
    finally:
        held.open()
        emu.reset_faults()
        emu.waits = RealWaits()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Chromium for one module (a module that serves its own app starts no default one)."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def open_app(page: Any, url: str) -> None:
    """Load the app and wait until the page is laid out: the input bar, the trace and the breaker table's
    rows (the table renders last). In a stress run a click made as soon as Analyze existed left the desktop
    page scrolled by 61 px: a trace not yet in its place is scrolled into view (``SCROLL_TO_TRACE``)."""
    page.goto(url)
    for ready in ("#analyze", "#trace", "#breakers [role=row]"):
        page.wait_for_selector(ready)


@pytest.fixture
def page(chromium: Any, browser_env: dict[str, Any]) -> Iterator[Any]:
    """A fresh browser session (its own Gradio session state) with the app loaded; the page may not
    reach anything but loopback (checked after the test)."""
    blocked: list[str] = []
    context = loopback_context(chromium, blocked, viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    open_app(page, browser_env["url"])
    try:
        yield page
    finally:
        context.close()
    assert blocked == [], f"the page tried to leave 127.0.0.1: {blocked}"
