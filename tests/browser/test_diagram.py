"""The architecture diagram in a real browser: a model's report gets the app's diagram, which Gradio's
Mermaid draws as an SVG in Chromium; every box is a component whose path is in the analysed tree, and a
hostile name proposed by the model shows as text, inside its box, without running anything."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from testing.analysis import diagram_attempt
from testing.app import running_app
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn
from tests.browser.conftest import BROWSER_MARKS, app_settings, require_browser
from tests.browser.test_browser import analyze, screenshot, wait_report, wait_status
from tests.test_diagram import FILES, READS, S

pytestmark = BROWSER_MARKS

HOSTILE = 'Web"]; click n1 call alert(1) %%<img src=x onerror=window.__pwned=1>'
PROPOSAL = {
    "components": [
        {"name": "Cart core", "path": "shop/core", "role": "the cart"},
        {"name": "Payments", "path": "shop/payments", "role": "charges cards"},
        {"name": HOSTILE, "path": "shop/web", "role": "HTTP front"},
        {"name": "Tests", "path": "tests", "role": "pytest"},
        {"name": "Nowhere", "path": "shop/nowhere", "role": "invented"},
    ],
    "relations": [
        {"from": "shop/web", "to": "shop/core", "label": "uses"},
        {"from": "shop/core", "to": "shop/payments", "label": "charges"},
        {"from": "tests", "to": "shop/core", "label": "tests"},
    ],
}
FIXED = {**PROPOSAL, "components": PROPOSAL["components"][:4]}
REPORT = "# acme/shop\n\n## Overview\nA small web shop.\n"
TREE = set(FILES) | {"/".join(p.split("/")[:i]) for p in FILES for i in range(1, p.count("/") + 1)}


def scripted(body: dict[str, Any]) -> Turn:
    """Explore, report; the diagram (asked after the report) gets a proposal with an invented path, then,
    on its retry, the proposal without it."""
    attempt = diagram_attempt(body)
    if attempt is not None:
        return Turn.final(json.dumps(PROPOSAL if attempt == 1 else FIXED), usage=(400, 60))
    asked = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if asked == 0:
        return Turn.calls(("get_repo_info", S), ("get_file_tree", S), ("get_commits", S))
    if asked == 1:
        return Turn.calls(*(("read_file", {**S, "path": p}) for p in READS))
    return Turn.final(REPORT, chunk_size=40, usage=(1500, 90))


@pytest.fixture(scope="module")
def browser_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """This module's app (overrides the conftest one): acme/shop, and a model that proposes diagrams."""
    require_browser()
    root = tmp_path_factory.mktemp("diagram")
    with (
        pytest.MonkeyPatch.context() as mp,
        GitHubEmulator() as emu,
        ScriptedModelServer(responder=scripted) as model,
    ):
        mp.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        emu.add_repo("acme/shop", make_repo(root / "shop", FILES), description="A shop.")
        with running_app(app_settings(emu, model, root, diagram_from_model=True)) as url:
            yield {"url": url, "emulator": emu, "model": model}


def test_the_report_draws_the_apps_diagram_as_svg_with_every_path_in_the_tree(page: Any) -> None:
    analyze(page, "acme/shop")
    wait_report(page, "acme/shop")
    wait_status(page, "Done")
    page.wait_for_selector("#report svg g.node")  # Gradio's Mermaid drew it
    labels = page.eval_on_selector_all("#report svg g.node", "els => els.map(e => e.textContent.trim())")
    assert sorted(labels[:2] + labels[3:]) == ["Cart core", "Payments", "Tests"]
    assert labels[2].startswith('Web"]; click n1 call alert(1) %%<img') and labels[2].endswith("…")  # as text
    assert page.eval_on_selector_all("#report svg a", "els => els.length") == 0  # no click, no link in it
    assert page.eval_on_selector_all("#report svg img, #report svg foreignObject img", "e => e.length") == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"

    # Below it, one link per box, each to its folder at the analysed commit: every path is in the tree.
    hrefs = page.eval_on_selector_all(
        "#report a[href*='/tree/']", "els => els.map(a => a.getAttribute('href'))"
    )
    paths = [unquote(urlsplit(h).path).split("/", 5)[5] for h in hrefs]
    assert sorted(paths) == ["shop/core", "shop/payments", "shop/web", "tests"]
    assert all(p in TREE for p in paths)
    assert all(urlsplit(h).path.split("/")[1:4] == ["acme", "shop", "tree"] for h in hrefs)
    trace = page.eval_on_selector("#trace", "el => el.textContent")
    assert "proposed by the model" in trace and "shop/nowhere" in trace  # what happened, said
    screenshot(page, "browser-diagram.png")
