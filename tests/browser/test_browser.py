"""The app in a real browser: Debian's headless Chromium driven by Playwright, against the app served on
127.0.0.1 over the GitHub emulator and the scripted model (see conftest.py)."""

from __future__ import annotations

import time
from typing import Any

from testing.browser import expand_all, loopback_context
from testing.clock import HeldWaits
from testing.emulator.model_server import ScriptedModelServer
from tests.browser.conftest import ARTIFACTS, BROWSER_MARKS, PATIENCE_S

# Gradio 6.31 leaks event loops from its server threads (ResourceWarning when collected) and its queue
# monitor uses pandas options that pandas 3 deprecates; neither is ours.
pytestmark = BROWSER_MARKS

SPINNER = "#trace .loading-spinner"
NESTED_PENDING = "#trace .thought-group .children .thought-group .loading-spinner"

# Installed before a click: records (in the page's own clock) the click, the moment the first
# collapsible trace item appears, and what the report pane said at that moment.
WATCH_FIRST_ITEM = """
() => {
  window.__t = {};
  const trace = document.querySelector('#trace');
  const report = document.querySelector('#report');
  document.querySelector('#analyze').addEventListener(
    'click', () => { window.__t.click = performance.now(); }, {capture: true, once: true});
  const seen = () => {
    if (window.__t.first === undefined && trace.querySelector('.thought-group')) {
      window.__t.first = performance.now();
      window.__t.reportAtFirst = report.innerText;
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(seen);
  observer.observe(trace, {childList: true, subtree: true, characterData: true});
}
"""


# Installed before a replay: every state the breaker table shows for ``name``, in order, however briefly
# (a replay moves the table on by itself; a busy test could look too late for a state that has passed).
WATCH_BREAKER = """
name => {
  window.__states = [];
  const table = document.querySelector('#breakers');
  const look = () => {
    const row = [...table.querySelectorAll('[role=row]')]
      .find(r => r.innerText.split(/\\s+/).includes(name));
    const cells = row ? row.innerText.split(/\\s+/) : [];
    const state = ['CLOSED', 'OPEN', 'HALF_OPEN'].find(s => cells.includes(s));
    if (state && window.__states[window.__states.length - 1] !== state) window.__states.push(state);
  };
  look();
  new MutationObserver(look).observe(table, {childList: true, subtree: true, characterData: true});
}
"""


def analyze(page: Any, target: str) -> None:
    page.fill("#target textarea, #target input", target)
    page.click("#analyze")


def wait_report(page: Any, heading: str) -> None:
    page.wait_for_function(
        "h => [...document.querySelectorAll('#report h1')].some(e => e.innerText.includes(h))", arg=heading
    )


def wait_no_spinner(page: Any) -> None:
    page.wait_for_function(f"() => !document.querySelector('{SPINNER}')")


def breaker_state(page: Any, name: str) -> str:
    return str(
        page.evaluate(
            """n => {
              const row = [...document.querySelectorAll('#breakers [role=row]')]
                .find(r => r.innerText.split(/\\s+/).includes(n));
              return row ? row.innerText : '';
            }""",
            name,
        )
    )


def wait_breaker(page: Any, name: str, state: str) -> None:
    page.wait_for_function(
        """([n, s]) => [...document.querySelectorAll('#breakers [role=row]')]
             .some(r => { const cells = r.innerText.split(/\\s+/); return cells.includes(n) && cells.includes(s); })""",
        arg=[name, state],
    )


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_trace_streams_nested_steps_before_the_report(page: Any, held_readme: HeldWaits) -> None:
    for pane in ("#trace", "#report"):  # the watcher observes both; a busy page may still be building them
        page.wait_for_selector(pane, state="attached")
    page.evaluate(WATCH_FIRST_ITEM)
    analyze(page, "https://github.com/octo/wordstats")
    # A tool call, nested in its step, pending with a spinner: the emulator holds its request until
    # released, so the page shows it while the run is under way (or the test fails waiting).
    page.wait_for_selector(NESTED_PENDING)
    screenshot(page, "browser-trace-running.png")
    held_readme.open()
    wait_report(page, "octo/wordstats")
    wait_no_spinner(page)
    wait_status(page, "Done")  # the report's last chunk and the closing frame have arrived

    timing = page.evaluate("window.__t")
    # How fast is the benchmark's business (bench/ui_latency.py); here only the order matters.
    print(f"\nclick -> first trace item in the browser: {timing['first'] - timing['click']:.0f} ms")
    assert "octo/wordstats" not in timing["reportAtFirst"]  # the trace came first

    step_title = page.inner_text("#trace .thought-group > .title")
    assert "Step 1" in step_title
    expand_all(page)  # a finished step may be collapsed, its tool calls out of the DOM
    nested = page.eval_on_selector_all(
        "#trace .thought-group .children .thought-group > .title", "els => els.map(e => e.innerText)"
    )
    assert any("🔧 read_file · README.md" in title for title in nested), nested
    assert any("🔧 get_repo_info" in title for title in nested), nested
    assert all("s)" in title for title in nested if "🔧" in title), nested  # each shows its duration

    report = page.inner_text("#report")
    assert "A small word-counting library with tests and CI." in report
    assert "CLOSED" in breaker_state(page, "read_file")
    assert "scripted-model" in page.inner_text("#status")
    screenshot(page, "browser-analysis.png")


def test_chaos_mode_opens_a_breaker_and_it_closes_after_recovery(
    page: Any, browser_env: dict[str, Any]
) -> None:
    page.get_by_text("Chaos mode (this session only)").click()
    page.check("#chaos-on input")
    page.click("#chaos-down input")
    page.get_by_role("option", name="read_file", exact=True).click()
    page.wait_for_function("() => document.querySelector('#chaos-status').innerText.includes('forced down')")

    analyze(page, "octo/flaky")
    wait_report(page, "octo/flaky")
    wait_breaker(page, "read_file", "OPEN")
    expand_all(page)  # the breaker's line is inside the step that opened it, which may be collapsed
    trace = page.inner_text("#trace")
    assert "read_file breaker: closed → open" in trace
    screenshot(page, "browser-breaker-open.png")

    page.click("#chaos-down input")
    page.get_by_role("option", name="(none)").click()
    page.wait_for_function("() => !document.querySelector('#chaos-status').innerText.includes('forced down')")
    browser_env["clock"].skip(3600)  # the app's clock passes the breaker's open period: it may probe

    analyze(page, "octo/flaky")
    wait_breaker(page, "read_file", "CLOSED")
    wait_no_spinner(page)
    expand_all(page)
    assert "read_file breaker: half_open → closed" in page.inner_text("#trace")


def wait_status(page: Any, text: str) -> None:
    page.wait_for_function("t => document.querySelector('#status').innerText.includes(t)", arg=text)


def report_text(page: Any) -> str:
    """The report's rendered Markdown only: not Gradio's status overlay, which can flash "Error" on an
    output for a moment when its event is cancelled."""
    return str(page.eval_on_selector("#report", "el => (el.querySelector('.prose') || el).innerText"))


def wait_model_idle(model: ScriptedModelServer) -> None:
    """Until no model response is under way."""
    assert model.wait_idle(PATIENCE_S), "the model's stream never ended"


def test_stop_leaves_no_spinner_and_keeps_the_partial_report(
    page: Any, browser_env: dict[str, Any], held_model: HeldWaits
) -> None:
    held_model.release(20)  # the report's first 20 events (role, reasoning, through word5); then it waits
    analyze(page, "octo/slow")
    page.wait_for_function("() => document.querySelector('#report').innerText.includes('word5')")
    assert held_model.wait_held(1)  # the model is held in the middle of the report: the run is under way
    page.click("#stop")
    wait_no_spinner(page)
    page.wait_for_function("() => document.querySelector('#trace').innerText.includes('⏹ Stopped')")
    wait_status(page, "Stopped")
    partial = report_text(page)
    assert "word5" in partial
    assert "word399" not in partial
    # Let the model send the rest at once: none of it may reach the page once Stop was pressed.
    held_model.open()
    wait_model_idle(browser_env["model"])
    assert report_text(page) == partial
    assert page.query_selector(SPINNER) is None


def test_replay_plays_a_bundled_recording(page: Any) -> None:
    page.get_by_text("Replay a recorded run").click()
    page.click("#replay-choice input")
    page.get_by_role("option", name="model-breaker-recovery").click()
    page.fill("#replay-speed input[type=number]", "8")
    page.press("#replay-speed input[type=number]", "Enter")
    page.wait_for_selector("#breakers [role=row]")
    page.evaluate(WATCH_BREAKER, "read_file")
    page.click("#replay")
    page.wait_for_function(
        "() => document.querySelector('#trace').innerText.includes('read_file breaker: closed → open')"
    )
    wait_report(page, "demo/wordstats")
    wait_breaker(page, "read_file", "CLOSED")
    wait_no_spinner(page)
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('Replay finished')")
    # The table followed the recording, not this session's board: open, then closed again.
    states = page.evaluate("window.__states")
    assert "OPEN" in states and states[-1] == "CLOSED", states
    assert states.index("OPEN") < len(states) - 1, states
    assert "replay of model-breaker-recovery (recorded with scripted-model)" in page.inner_text("#status")
    expand_all(page)
    nested = page.eval_on_selector_all(
        "#trace .thought-group .children .thought-group > .title", "els => els.map(e => e.innerText)"
    )
    assert any("STALE" in title for title in nested), nested


def test_the_interface_language_switches_labels(page: Any) -> None:
    page.get_by_role("button", name="Settings ▼").click()
    page.check("#ui-lang input[value='中文']")
    page.wait_for_function("() => document.querySelector('#analyze').innerText.includes('分析')")
    assert "停止" in page.inner_text("#stop")
    assert "熔断器" in page.inner_text("#breakers")
    assert page.inner_text("#status").startswith("模型")


def test_closing_the_tab_ends_the_run(chromium: Any, browser_env: dict[str, Any]) -> None:
    model = browser_env["model"]
    context = loopback_context(chromium)
    page = context.new_page()
    page.goto(browser_env["url"])
    page.wait_for_selector("#analyze")
    analyze(page, "octo/endless")
    page.wait_for_function("() => document.querySelector('#report').innerText.includes('word5')")
    assert model.in_flight == 1  # the report is still streaming from the model (for minutes)
    context.close()
    closed = time.monotonic()
    wait_model_idle(model)  # so the server noticed, closed the run, and the model stream was cut
    print(f"\ntab closed -> model stream cut after {time.monotonic() - closed:.2f}s")


def test_controls_idle_during_a_run_then_downloads_and_follow_up(page: Any, held_readme: HeldWaits) -> None:
    """Follow-up and downloads are separate steps around the streaming run (app.wire's ``chain``)."""
    enabled = "s => { const e = document.querySelector(s); return e && !e.disabled; }"
    page.get_by_text("Downloads", exact=True).click()  # collapsed under the report
    analyze(page, "octo/wordstats")
    page.wait_for_selector(NESTED_PENDING)  # the run is under way until the README is released
    assert page.is_disabled("#ask")
    assert page.is_disabled("#dl-report button, button#dl-report")
    held_readme.open()
    wait_report(page, "octo/wordstats")
    wait_status(page, "Done")
    page.wait_for_function(enabled, arg="#ask")
    page.wait_for_function(enabled, arg="#dl-report button, button#dl-report")
    page.wait_for_function(enabled, arg="#dl-trace button, button#dl-trace")

    page.fill("#followup textarea, #followup input", "Where are the tests?")
    page.click("#ask")
    page.wait_for_function(
        "() => document.querySelector('#trace').innerText.includes('Where are the tests?')"
    )
    wait_status(page, "Done")
    page.wait_for_function(
        "() => document.querySelector('#followup textarea, #followup input').value === ''"
    )  # the run took the text, so the box is emptied
    page.wait_for_function(enabled, arg="#ask")
