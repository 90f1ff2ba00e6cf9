"""Security suite, browser part: markup from a repository and from the model stays inert.

A repository whose README, file names and commit messages hold ``<script>``, ``onerror=``,
``javascript:`` links, ``<iframe>``, ``<svg onload>`` and friends is analysed by a scripted model that
reasons and reports in the same markup; the real app runs in Debian's headless Chromium. Nothing may
run (``window.__pwned`` stays undefined, no dialog), no element of the report or the trace may carry an
``on*`` handler or a ``javascript:`` URL, and the markup must still be there to read, as text.

The rest of the security suite is ``tests/test_security_suite.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from testing.app import running_app
from testing.browser import expand_all, loopback_context
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer
from tests.browser.conftest import BROWSER_MARKS, app_settings, require_browser
from tests.browser.test_browser import (
    analyze,
    screenshot,
    wait_no_spinner,
    wait_report,
    wait_status,
)
from tests.security_helpers import MARKUP, MARKUP_FILE_NAMES, markup_model, markup_repo

pytestmark = BROWSER_MARKS

CONTENT = "#report, #trace"
SCRIPT_LINKS = "els => els.map(a => a.getAttribute('href') || '').filter(h => /^\\s*javascript:/i.test(h))"

# Everything in the report and the trace that could run script: handlers, script-bearing URLs, elements.
DANGEROUS = """
sel => {
  const found = [];
  const urls = ['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc'];
  for (const root of document.querySelectorAll(sel)) {
    for (const el of root.querySelectorAll('*')) {
      const tag = el.tagName.toLowerCase();
      if (['script', 'iframe', 'object', 'embed', 'frame', 'base', 'meta', 'form'].includes(tag)) {
        found.push(`<${tag}>`);
      }
      for (const attr of el.attributes) {
        const name = attr.name.toLowerCase();
        const value = attr.value.replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase();
        if (name.startsWith('on')) found.push(`${tag}[${name}]`);
        if (urls.includes(name) && /^(javascript|vbscript|data:text\\/html)/.test(value)) {
          found.push(`${tag}[${name}=${attr.value}]`);
        }
        if (name === 'srcdoc') found.push(`${tag}[srcdoc]`);
      }
    }
  }
  return found;
}
"""


@pytest.fixture(scope="module")
def browser_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """This module's app (overrides the conftest one): one repository full of markup, and a model that
    answers in markup."""
    require_browser()
    root = tmp_path_factory.mktemp("inert")
    with (
        pytest.MonkeyPatch.context() as mp,
        GitHubEmulator() as emu,
        ScriptedModelServer(responder=markup_model) as model,
    ):
        mp.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        emu.add_repo("octo/markup", markup_repo(root / "markup"), description=MARKUP[1])
        settings = app_settings(emu, model, root)
        with running_app(settings) as url:
            yield {"url": url, "emulator": emu, "model": model}


@pytest.fixture
def seen() -> dict[str, list[str]]:
    """What the page did: dialogs it opened, popups, and requests that tried to leave loopback."""
    return {"dialogs": [], "popups": [], "blocked": []}


@pytest.fixture
def page(chromium: Any, browser_env: dict[str, Any], seen: dict[str, list[str]]) -> Iterator[Any]:
    """A fresh page (overrides the conftest one) that records into ``seen`` and never leaves loopback."""
    context = loopback_context(chromium, seen["blocked"], viewport={"width": 1400, "height": 1600})
    context.on("page", lambda popup: seen["popups"].append(popup.url))
    page = context.new_page()
    page.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    page.goto(browser_env["url"])
    page.wait_for_selector("#analyze")
    try:
        yield page
    finally:
        context.close()


def pwned(page: Any) -> Any:
    return page.evaluate("typeof window.__pwned === 'undefined' ? null : window.__pwned")


def test_markup_from_the_repository_and_the_model_stays_inert_readable_and_unclickable(
    page: Any, seen: dict[str, list[str]], browser_env: dict[str, Any]
) -> None:
    analyze(page, "octo/markup")
    wait_report(page, "octo/markup")
    wait_no_spinner(page)
    wait_status(page, "Done")
    expand_all(page)  # every tool call's observation (README, tree, commits) is in the DOM now

    assert pwned(page) is None
    assert seen["dialogs"] == []
    assert page.eval_on_selector_all("a", SCRIPT_LINKS) == []  # anywhere on the page
    assert page.evaluate(DANGEROUS, CONTENT) == []
    assert seen["blocked"] == []  # nothing in it fetched anything from anywhere

    # Nothing silently lost: the markup is there to read, as text.
    report = page.inner_text("#report")
    for payload in (MARKUP[0], MARKUP[1], MARKUP[4], MARKUP[6]):
        assert payload in report, payload
    # Markdown links to javascript:/data: URLs keep their text; Gradio's sanitiser drops the URL.
    for text in ("click", "spaced", "data"):
        assert page.locator("#report a", has_text=text).count() == 1, text
    # Reference links never form (a definition could point anywhere): the text stays, as text.
    assert page.locator("#report a", has_text="ref link").count() == 0
    assert "[ref link][evil]" in report
    trace = page.inner_text("#trace")
    assert "Thinking in markup: <script>window.__pwned=1</script>" in trace  # the model's reasoning
    assert MARKUP_FILE_NAMES[0] in trace  # a file name, in the tree and in the read_file title
    assert "Add <script>window.__pwned=1</script>" in trace  # a commit message
    screenshot(page, "browser-inert-content.png")

    # Clicking every link of the report and the trace runs nothing and leaves the app in place.
    links = page.locator("#report a:visible, #trace a:visible")
    count = links.count()
    assert count >= 4  # the report's own links at least: click, spaced, data, https://x/
    for index in range(count):
        links.nth(index).click(no_wait_after=True, timeout=5_000)
        assert pwned(page) is None, links.nth(index).get_attribute("href")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert pwned(page) is None
    assert seen["dialogs"] == []
    assert not any(url.lower().startswith(("javascript:", "data:")) for url in seen["popups"])
    assert page.url.startswith(browser_env["url"])
    # The one plain link (it opens a new tab), and the diagram's links to the repository's folders.
    permalinks = {u for u in seen["blocked"] if u.startswith("https://github.com/octo/markup/tree/")}
    assert set(seen["blocked"]) - permalinks <= {"https://x/?a=1"}
