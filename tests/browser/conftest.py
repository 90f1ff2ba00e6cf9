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
from testing.browser import CHROMIUM, CHROMIUM_ARGS, loopback_context
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo, sample_python_project
from testing.emulator.model_server import ScriptedModelServer, Turn

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

REPORTS = {
    "wordstats": "# octo/wordstats\n\n## Overview\nA small word-counting library with tests and CI.\n",
    "flaky": "# octo/flaky\n\n## Overview\nThe README could not be read: GitHub kept failing.\n",
    # Long and slow, so a test can press Stop while it streams.
    "slow": "# octo/slow\n\n## Overview\n" + " ".join(f"word{i}" for i in range(400)) + "\n",
}


def _repo_in(body: dict[str, Any]) -> str:
    text = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
    match = re.search(r"octo/(\w+)", text)
    return match.group(1) if match else "wordstats"


def scripted(body: dict[str, Any]) -> Turn:
    """First turn: read the README (slowly, so steps are observable); second: the report."""
    name = _repo_in(body)
    turns = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if turns == 0:
        return Turn.calls(
            ("get_repo_info", {"owner": "octo", "repo": name}),
            ("read_file", {"owner": "octo", "repo": name, "path": "README.md"}),
            reasoning=f"Looking at octo/{name}: metadata and the README <b>first</b>.",
            chunk_size=8,
            delay_per_chunk=0.03,
            latency=0.1,
            usage=(1200, 40),
        )
    slow = name == "slow"
    return Turn.final(
        REPORTS[name],
        reasoning="Enough gathered; writing the report.",
        chunk_size=6 if slow else 40,
        delay_per_chunk=0.08 if slow else 0.01,
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
        **({"prefetch": False} | changes),  # the scripted model plans every call itself
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
        for name, readme in (("flaky", "# flaky\n"), ("slow", "# slow\n")):
            emu.add_repo(f"octo/{name}", make_repo(root / name, {"README.md": readme}))
        emu.cache_control = "private, max-age=0"  # every request reaches the wire (and chaos mode)
        emu.latency(0.4, r"/repos/octo/wordstats/contents/")  # tool calls stay pending long enough to see
        settings = app_settings(emu, model, root, breaker_open_seconds=1.0)
        with running_app(settings) as url:
            yield {"url": url, "emulator": emu, "model": model}


@pytest.fixture(scope="module")
def chromium(browser_env: dict[str, Any]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium: Any, browser_env: dict[str, Any]) -> Iterator[Any]:
    """A fresh browser session (its own Gradio session state) with the app loaded; the page may not
    reach anything but loopback (checked after the test)."""
    blocked: list[str] = []
    context = loopback_context(chromium, blocked, viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(browser_env["url"])
    page.wait_for_selector("#analyze")
    try:
        yield page
    finally:
        context.close()
    assert blocked == [], f"the page tried to leave 127.0.0.1: {blocked}"
