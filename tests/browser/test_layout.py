"""The page's layout in a real browser: what a user sees at 1400×1000 and on a 390×844 phone while a run
streams and after it (the app over the emulators, see conftest.py).

Each test measures the page (bounding boxes, scroll sizes, text counts) rather than its markup, so a
layout that hides the results again fails here whatever components it is made of.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testing.browser import expand_all, loopback_context
from testing.clock import HeldWaits
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn
from tests.browser.conftest import BROWSER_MARKS, open_app
from tests.browser.test_browser import (
    NESTED_PENDING,
    analyze,
    wait_breaker,
    wait_no_spinner,
    wait_report,
    wait_status,
)

pytestmark = BROWSER_MARKS

DESKTOP = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}
BOX = "s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"
WORDSTATS_OVERVIEW = "A small word-counting library with tests and CI."


@pytest.fixture
def viewport(chromium: Any, browser_env: dict[str, Any], request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh session with the app loaded, at the size the test names (``indirect`` parametrisation)."""
    blocked: list[str] = []
    context = loopback_context(chromium, blocked, viewport=request.param)
    page = context.new_page()
    open_app(page, browser_env["url"])
    try:
        yield page
    finally:
        context.close()
    assert blocked == [], f"the page tried to leave 127.0.0.1: {blocked}"


def box(page: Any, selector: str) -> tuple[float, float, float, float]:
    left, top, right, bottom = page.evaluate(BOX, selector)
    return left, top, right, bottom


def assert_in_view(page: Any, selector: str) -> None:
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    left, top, right, bottom = box(page, selector)
    assert bottom - top > 50, (selector, top, bottom)  # there is something to see
    assert left >= 0 and right <= width and top >= 0 and bottom <= height, (
        selector,
        (left, top, right, bottom),
    )


@pytest.mark.parametrize("viewport", [DESKTOP], indirect=True)
def test_trace_breakers_and_report_are_all_in_view_while_a_run_streams(
    viewport: Any, held_model: HeldWaits
) -> None:
    page = viewport
    held_model.release(20)  # the report's first words; then the model waits, the run under way
    analyze(page, "octo/slow")
    page.wait_for_function("() => document.querySelector('#report').innerText.includes('word5')")
    assert held_model.wait_held(1)
    assert page.evaluate("() => window.scrollY") == 0  # nothing scrolled: this is the page as it opens
    for pane in ("#trace", "#breakers", "#report"):
        assert_in_view(page, pane)
    assert page.query_selector("#trace .loading-spinner") is not None  # and the run is still going


@pytest.mark.parametrize("viewport", [DESKTOP], indirect=True)
def test_the_report_is_on_the_page_once_and_the_trace_points_to_it(viewport: Any) -> None:
    page = viewport
    analyze(page, "octo/wordstats")
    wait_report(page, "octo/wordstats")
    wait_status(page, "Done")
    wait_no_spinner(page)
    expand_all(page)  # nothing of the trace is left out of the count
    body = page.inner_text("body")
    assert body.count(WORDSTATS_OVERVIEW) == 1
    assert WORDSTATS_OVERVIEW in page.inner_text("#report")
    last = page.eval_on_selector_all("#trace .message-row", "rows => rows.at(-1).innerText")
    assert "see the report panel" in last


@pytest.mark.parametrize("viewport", [DESKTOP], indirect=True)
def test_a_long_report_scrolls_in_its_own_bounded_box(viewport: Any) -> None:
    page = viewport
    analyze(page, "octo/long")  # a 400-word report
    page.wait_for_function("() => document.querySelector('#report').innerText.includes('word399')")
    wait_status(page, "Done")
    sizes = page.eval_on_selector(
        "#report",
        """el => ({height: el.getBoundingClientRect().height, client: el.clientHeight,
                   scroll: el.scrollHeight, overflow: getComputedStyle(el).overflowY})""",
    )
    assert sizes["height"] <= 600, sizes  # bounded, however long the report
    assert sizes["overflow"] in ("auto", "scroll"), sizes
    assert sizes["scroll"] > sizes["client"], sizes  # the rest of it is a scroll away
    scrolled = page.eval_on_selector(
        "#report", "el => { el.scrollTop = el.scrollHeight; return el.scrollTop; }"
    )
    assert scrolled > 0
    assert page.evaluate("() => document.documentElement.scrollHeight") < 2 * DESKTOP["height"]


@pytest.mark.parametrize("viewport", [DESKTOP], indirect=True)
def test_the_breaker_tables_last_column_is_not_cut_off(viewport: Any, browser_env: dict[str, Any]) -> None:
    page = viewport
    emulator = browser_env["emulator"]
    emulator.fail(r"/repos/octo/flaky/(readme|contents)", [503] * 12)  # read_file's breaker opens
    try:
        analyze(page, "octo/flaky")
        wait_breaker(page, "read_file", "OPEN")
        wait_status(page, "Done")
    finally:
        emulator.reset_faults()
    row = (
        "[...document.querySelectorAll('#breakers [role=row]')]"
        ".find(r => r.innerText.split(/\\s+/).includes('OPEN'))"
    )
    cells = page.evaluate(
        f"() => [...{row}.querySelectorAll('[role=gridcell]')].map(c => c.getBoundingClientRect().right)"
    )
    header = page.evaluate(
        "() => [...document.querySelectorAll('#breakers thead th')].at(-1).getBoundingClientRect().right"
    )
    _, _, table_right, _ = box(page, "#breakers")
    assert "GitHub server error" in page.inner_text("#breakers")  # a long last error, the case that cut
    assert "s" in page.evaluate(
        f"() => [...{row}.querySelectorAll('[role=gridcell]')].at(-1).innerText"
    )  # "3600 s"
    for right in (header, cells[-1]):
        assert right <= table_right + 1 and right <= DESKTOP["width"], (right, table_right)


@pytest.mark.parametrize("viewport", [PHONE], indirect=True)
def test_on_a_phone_a_run_brings_the_trace_into_view(viewport: Any, held_readme: HeldWaits) -> None:
    page = viewport
    analyze(page, "octo/wordstats")
    page.wait_for_selector(NESTED_PENDING)  # the run is under way until the README is released
    _, top, _, bottom = box(page, "#trace")
    height = PHONE["height"]
    assert -1 <= top < height / 2 and bottom > top + 100, (top, bottom)  # the trace's start is on screen
    held_readme.open()
    wait_status(page, "Done")


def tree_repo(root: Path) -> Path:
    """60 files in three folders: more paths than a glance at the trace wants."""
    files = {"README.md": "# big\n"}
    files |= {f"src/big/module_{i:02d}.py": f"X = {i}\n" for i in range(40)}
    files |= {f"tests/test_{i:02d}.py": "def test() -> None: ...\n" for i in range(15)}
    files |= {f"docs/page_{i}.md": "# page\n" for i in range(4)}
    return make_repo(root, files)


@pytest.mark.parametrize("viewport", [DESKTOP], indirect=True)
def test_the_file_tree_shows_in_the_trace_as_a_short_summary(
    viewport: Any, browser_env: dict[str, Any], tmp_path: Path
) -> None:
    page = viewport
    browser_env["emulator"].add_repo("octo/big", tree_repo(tmp_path / "big"))
    model: ScriptedModelServer = browser_env["model"]
    model.push(
        Turn.calls(("get_file_tree", {"owner": "octo", "repo": "big"}), reasoning="The tree first."),
        Turn.final("# octo/big\n\n## Overview\nSixty files.\n", reasoning="Enough."),
    )
    analyze(page, "octo/big")
    wait_report(page, "octo/big")
    wait_status(page, "Done")
    wait_no_spinner(page)
    expand_all(page)
    call = page.locator("#trace .thought-group", has_text="🔧 get_file_tree").last
    text = call.inner_text()
    assert "files: 60" in text and "src/ 40" in text and "tests/ 15" in text, text
    assert "tests: 15 files" in text and "docs/ 4 docs" in text, text  # the repository model's roles
    assert "module_39.py" not in text and "test_14.py" not in text, text  # counts, never a path dump
    assert len(text.splitlines()) < 20, text
    assert model.remaining_turns == 0


@pytest.mark.parametrize("viewport", [DESKTOP], indirect=True)
def test_in_chinese_the_sections_and_the_pointer_to_the_report_are_chinese(viewport: Any) -> None:
    page = viewport
    page.get_by_role("button", name="Settings ▼").click()
    page.check("#ui-lang input[value='中文']")
    page.wait_for_function("() => document.querySelector('#analyze').innerText.includes('分析')")
    for label in ("示例", "下载"):  # the collapsed examples and downloads
        assert page.get_by_text(label, exact=True).count() == 1, label
    analyze(page, "octo/wordstats")
    wait_report(page, "octo/wordstats")
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('完成')")
    last = page.eval_on_selector_all("#trace .message-row", "rows => rows.at(-1).innerText")
    assert "报告已完成——请看报告面板" in last
    assert page.inner_text("body").count(WORDSTATS_OVERVIEW) == 1
