"""The first screen in a real browser, as a newcomer meets it: the app with no model key and GitHub
unreachable (its API URL is a closed loopback port). At 1400×1000, without scrolling or expanding
anything, the page says what it does, offers the language switch, and holds an example that one click
on Analyze turns into a report (the app's own checkout, read locally)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.settings import Settings
from testing.app import free_port, running_app
from testing.browser import loopback_context
from tests.browser.conftest import BROWSER_MARKS, open_app

pytestmark = BROWSER_MARKS

DESKTOP = {"width": 1400, "height": 1000}
IN_VIEW = """s => { const r = document.querySelector(s).getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }"""
FIELD = "s => document.querySelector(s + ' textarea, ' + s + ' input').value"


@pytest.fixture(scope="module")
def offline_url(chromium: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with no key and GitHub unreachable: nothing listens on its API port."""
    root = tmp_path_factory.mktemp("first-screen")
    settings = Settings(
        github_api_url=f"http://127.0.0.1:{free_port()}",
        cache_dir=root / "cache",
        api_key=None,
        github_token=None,
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        with running_app(settings) as url:
            yield url


@pytest.fixture
def desktop(chromium: Any, offline_url: str) -> Iterator[Any]:
    blocked: list[str] = []
    context = loopback_context(chromium, blocked, viewport=DESKTOP)
    page = context.new_page()
    open_app(page, offline_url)
    try:
        yield page
    finally:
        context.close()
    assert blocked == [], f"the page tried to leave 127.0.0.1: {blocked}"


def test_the_first_screen_invites_a_try_and_one_click_gives_a_report(desktop: Any) -> None:
    page = desktop
    for selector in ("#heading", "#ui-lang", "#target", "#question", "#analyze"):
        assert page.evaluate(IN_VIEW, selector), f"{selector} is not in view at 1400×1000"
    assert "No key needed" in page.inner_text("#heading")
    assert page.evaluate("() => scrollY") == 0
    target = page.evaluate(FIELD, "#target")
    assert target and Path(target).is_absolute() and (Path(target) / ".git").exists(), target  # this checkout
    assert page.evaluate(FIELD, "#question").strip()
    page.click("#analyze")  # the one click
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('Done')")
    report = page.inner_text("#report")
    assert page.locator("#report h1").count() == 1, report
    assert "## Overview" not in report and "Overview" in report, report
    assert "pyproject.toml" in report, report  # read from the checkout, not made up


def test_the_finished_page_puts_the_report_and_the_claim_summary_first(desktop: Any) -> None:
    page = desktop
    page.click("#analyze")
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('Done')")
    page.wait_for_selector("#checked details")
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height <= 2000, f"the finished page is {height} px tall at 1400×1000"
    summary = page.locator("#checked strong", has_text="Claims held against the observations")
    assert page.evaluate("() => scrollY") == 0 and summary.bounding_box()["y"] + 20 <= 1000
    # The verified claims wait behind one line; what is shown open is each claim once.
    assert page.evaluate("() => document.querySelector('#checked details').open") is False
    shown = page.eval_on_selector_all("#checked span.md > ul li", "l => l.map(e => e.innerText)")
    assert len(shown) == len(set(shown)) and len(shown) <= 13, shown
    assert not any(line.startswith("✓") for line in shown), shown
    # Nothing in the finished trace is still busy, and its label sits above its first item.
    assert page.eval_on_selector_all("#trace [aria-busy=true]", "l => l.length") == 0
    # Scrolled to its top (the log may still be settling from the run's last scroll: wait for the
    # geometry, not for time), the label's bottom is above the first item's top.
    page.wait_for_function(
        """() => {
          const log = document.querySelector('#trace [role=log]');
          log.scrollTop = 0;
          const label = document.querySelector('#trace label[data-testid=block-label]').getBoundingClientRect();
          const first = document.querySelector('#trace .message-row').getBoundingClientRect();
          return log.scrollTop === 0 && label.bottom <= first.top;
        }"""
    )


LABELS = """() => [...document.querySelectorAll('#target, #question')].map(e =>
  e.querySelector('[data-testid=block-info], label span')?.innerText + '|' +
  (e.querySelector('textarea, input').placeholder || ''))"""


def test_in_chinese_an_example_keeps_the_language_and_a_reload_keeps_the_choice(desktop: Any) -> None:
    page = desktop
    page.check("#ui-lang input[value='中文']")
    page.wait_for_function("() => document.querySelector('#analyze').innerText.includes('分析')")
    assert page.evaluate(FIELD, "#question") == "这个项目是怎么测试的？"  # the first question follows
    chinese = page.evaluate(LABELS)
    page.get_by_text("示例", exact=True).click()
    page.locator("#examples-table tbody tr").nth(2).click()  # ambv/black and its question
    page.wait_for_function(f"() => ({FIELD})('#target').includes('ambv/black')")
    assert page.evaluate(LABELS) == chinese and "仓库" in chinese[0], chinese
    assert page.evaluate(FIELD, "#question") == "这个仓库是否改过名或迁移过？"
    page.reload()
    open_app(page, page.url)
    page.wait_for_function("() => document.querySelector('#analyze').innerText.includes('分析')")
    assert page.is_checked("#ui-lang input[value='中文']")
    assert page.evaluate(LABELS) == chinese
    assert "仓库分析助手" in page.inner_text("#heading")


def test_with_no_network_a_failure_is_said_once(desktop: Any) -> None:
    page = desktop
    page.fill("#target textarea, #target input", "pallets/flask")
    page.click("#analyze")
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('Failed')")
    page.wait_for_selector("#report h3")
    body = page.inner_text("body")
    assert body.count("GitHub could not be reached") == 1, body  # in the report pane, with the next step
    assert "could not be reached" in page.inner_text("#report") and "Next step" in page.inner_text("#report")
    assert "report panel" in page.inner_text("#status")
