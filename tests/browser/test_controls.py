"""The page's controls in a real browser: a clean Stop, Analyze while a run streams, the settings form,
the downloads after a failure, the page in Chinese (see conftest.py for the app and its emulators).

This module serves its own app: GitHub retries are fast and breakers never open, so a run whose README
keeps failing stays in flight, retrying, until Stop; and its scripted model writes in Chinese when the
system prompt asks for it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from testing.app import running_app
from testing.clock import HeldWaits, SkippingClock
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo, sample_python_project
from testing.emulator.model_server import ScriptedModelServer, Turn
from tests.browser.conftest import BROWSER_MARKS, PATIENCE_S, app_settings, require_browser, scripted
from tests.browser.test_browser import (
    NESTED_PENDING,
    SPINNER,
    analyze,
    report_text,
    wait_model_idle,
    wait_no_spinner,
    wait_report,
    wait_status,
)

pytestmark = BROWSER_MARKS

README = re.compile(r"/repos/octo/wordstats/(contents/README|readme)", re.IGNORECASE)
ZH_REPORT = "# octo/wordstats\n\n## 概述\n一个带有测试和持续集成的小型词频统计库。\n"
STOPS = 3

# Every error mark Gradio shows (the status tracker's "Error" pill, an error toast), however briefly: a
# MutationObserver records each one as it appears.
WATCH_ERRORS = """
() => {
  window.__errors = [];
  const look = () => {
    for (const el of document.querySelectorAll('.error, .toast-body.error')) {
      window.__errors.push(`${el.className}: ${el.innerText.trim().slice(0, 80)}`);
    }
  };
  look();
  new MutationObserver(look).observe(document.body, {
    childList: true, subtree: true, attributes: true, attributeFilter: ['class'],
  });
}
"""
ENABLED = "s => { const e = document.querySelector(s); return !!e && !e.disabled; }"
DISABLED = "s => { const e = document.querySelector(s); return !!e && e.disabled; }"


def in_chinese_when_asked(body: dict[str, Any]) -> Turn:
    """conftest's script, except that a report asked for in Simplified Chinese is written in Chinese."""
    turn = scripted(body)
    system = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "system")
    if turn.tool_calls or "Simplified Chinese" not in system:
        return turn
    return Turn.final(ZH_REPORT, reasoning="足够了。", chunk_size=20, delay_per_chunk=0.01)


@pytest.fixture(scope="module")
def browser_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    require_browser()
    root = tmp_path_factory.mktemp("controls-repos")
    with (
        pytest.MonkeyPatch.context() as mp,
        GitHubEmulator() as emu,
        ScriptedModelServer(responder=in_chinese_when_asked) as model,
    ):
        mp.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        emu.add_repo("octo/wordstats", sample_python_project(root / "wordstats"))
        emu.add_repo("octo/slow", make_repo(root / "slow", {"README.md": "# slow\n"}))
        emu.cache_control = "private, max-age=0"
        settings = app_settings(
            emu,
            model,
            root,
            # Retries every 0.15-0.25 s: in flight at any moment, yet rarely between the click and the
            # moment the server has Stop's request (a hop a loaded machine can stretch).
            retry_base_delay=0.15,
            retry_max_delay=0.25,
            retry_max_attempts=10_000,
            retry_max_total=PATIENCE_S,
            breaker_failure_threshold=10_000,
        )
        with running_app(settings, clock=SkippingClock()) as url:
            yield {"url": url, "emulator": emu, "model": model}


def readme_failures(emu: GitHubEmulator) -> int:
    return sum(1 for r in emu.requests if README.search(r.decoded_path) and r.status == 503)


def errors_seen(page: Any) -> list[str]:
    return list(page.evaluate("window.__errors"))


def test_stop_while_retrying_is_clean_and_no_request_follows(page: Any, browser_env: dict[str, Any]) -> None:
    emu: GitHubEmulator = browser_env["emulator"]
    page.evaluate(WATCH_ERRORS)
    lags = []
    try:
        for attempt in range(STOPS):
            emu.fail(README.pattern, [503] * 3_000)
            before = readme_failures(emu)
            analyze(page, "octo/wordstats")
            page.wait_for_function(DISABLED, arg="#analyze")
            page.wait_for_function(ENABLED, arg="#stop")
            # The README's tool call is open while it retries: its retry lines are on the page (this run's:
            # the last run's trace, stopped, is replaced when this one opens).
            page.wait_for_function(
                "() => { const t = document.querySelector('#trace').innerText;"
                " return t.includes('attempt 2 failed') && !t.includes('⏹ Stopped'); }"
            )
            assert readme_failures(emu) >= before + 2
            page.click("#stop")
            pressed = time.monotonic()
            wait_status(page, "Stopped")
            answered = time.monotonic()
            # Stop answers once the run has unwound: no request can start any more. Those in flight end.
            emu.reset_faults()
            assert emu.wait_idle(PATIENCE_S)
            last = max(r.started for r in emu.requests)
            lags.append(last - pressed)
            late = [r for r in emu.requests if r.started > answered]  # at most the one already sent
            assert len(late) <= 1, f"stop {attempt}: {len(late)} requests after the page said Stopped"
            wait_no_spinner(page)
            page.wait_for_function(ENABLED, arg="#analyze")
            assert page.inner_text("#analyze") == "Analyze"
            assert page.is_disabled("#stop")
            trace = page.inner_text("#trace")
            assert "⏹ Stopped" in trace and "Step 1" in trace  # the trace is kept
            assert errors_seen(page) == [], errors_seen(page)
    finally:
        emu.reset_faults()
    print(f"\n{STOPS} stops in the browser: last request after the click max {max(lags) * 1000:.0f} ms")


def test_stop_keeps_the_partial_report_without_error_styling(
    page: Any, browser_env: dict[str, Any], held_model: HeldWaits
) -> None:
    held_model.release(20)  # the report's first events; then the model waits in the middle of it
    analyze(page, "octo/slow")
    page.wait_for_function("() => document.querySelector('#report').innerText.includes('word5')")
    assert held_model.wait_held(1)
    page.evaluate(WATCH_ERRORS)
    page.evaluate(
        """() => { window.__stopped = null; const click = performance.now();
          const status = document.querySelector('#status');
          new MutationObserver(() => { if (window.__stopped === null && status.innerText.includes('Stopped'))
            window.__stopped = performance.now() - click; }).observe(status, {childList: true, subtree: true,
            characterData: true}); }"""
    )
    page.click("#stop")
    wait_status(page, "Stopped")
    wait_no_spinner(page)
    partial = report_text(page)
    assert "word5" in partial and "word399" not in partial
    held_model.open()
    wait_model_idle(browser_env["model"])
    assert report_text(page) == partial
    assert page.query_selector(SPINNER) is None
    assert errors_seen(page) == [], errors_seen(page)
    print(f"\nStop -> 'Stopped' on the page: {page.evaluate('window.__stopped'):.0f} ms")


def test_analyze_is_disabled_and_relabelled_while_a_run_streams(page: Any, held_readme: HeldWaits) -> None:
    assert page.is_disabled("#stop")  # nothing to stop yet
    analyze(page, "octo/wordstats")
    page.wait_for_selector(NESTED_PENDING)
    assert page.is_disabled("#analyze")
    assert page.inner_text("#analyze") == "Analyzing…"
    assert not page.is_disabled("#stop")
    held_readme.open()
    wait_report(page, "octo/wordstats")
    wait_status(page, "Done")
    page.wait_for_function(ENABLED, arg="#analyze")
    assert page.inner_text("#analyze") == "Analyze"
    page.wait_for_function(DISABLED, arg="#stop")


APPLY_ID = "() => window.gradio_config.components.find(c => c.props?.elem_id === 'apply-settings').id"


def apply_setting(page: Any, label: str, value: str, *, attempts: int = 5) -> None:
    """Type ``value`` into the Settings field ``label`` and click Apply, again until Apply sends it.

    Gradio 6.31 mounts a closed accordion's fields when it opens, then sets their first values once more
    a moment later. In a stress run, 110 ms after the test typed ``not a url``, the same ``<input>`` held
    the configured URL again and Apply sent that: the page lost the typing, not the app. Whether that
    happened is read from the request Apply sent (its ``data``), not guessed from a pause."""
    apply_id = page.evaluate(APPLY_ID)

    def is_apply(request: Any) -> bool:
        if not request.url.endswith("/gradio_api/run/predict"):
            return False
        return bool(json.loads(request.post_data or "{}").get("trigger_id") == apply_id)

    box = page.get_by_label(label)
    for _ in range(attempts):
        box.fill(value)
        box.press("Tab")  # the value is committed to Gradio (blur) before Apply reads it
        with page.expect_request(is_apply) as sent:
            page.click("#apply-settings")
        if value in json.loads(sent.value.post_data)["data"]:
            return
    raise AssertionError(f"Apply never sent {value!r} for {label!r} in {attempts} attempts")


def test_settings_reject_a_base_url_that_is_not_one(page: Any, browser_env: dict[str, Any]) -> None:
    page.get_by_role("button", name="Settings ▼").click()
    apply_setting(page, "Base URL", "not a url")
    page.wait_for_function(
        "() => document.querySelector('#settings-feedback').innerText.includes('Not applied')"
    )
    assert "http:// or https://" in page.inner_text("#settings-feedback")
    assert "scripted-model" in page.inner_text("#status")  # nothing changed
    apply_setting(page, "Base URL", browser_env["model"].base_url)
    page.wait_for_function(
        "() => document.querySelector('#settings-feedback').innerText.includes('Settings applied')"
    )


def test_after_a_failure_the_report_explains_it_and_cannot_be_downloaded(page: Any) -> None:
    analyze(page, "octo/missing")
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('Failed')")
    wait_no_spinner(page)
    report = report_text(page)
    assert "not found or private on GitHub" in report, report
    assert "The report appears here" not in report
    page.wait_for_function(ENABLED, arg="#analyze")
    page.get_by_text("Downloads", exact=True).click()  # collapsed under the report
    assert page.is_disabled("#dl-report button, button#dl-report")
    assert not page.is_disabled("#dl-trace button, button#dl-trace")


def test_in_chinese_the_whole_page_and_the_report_are_chinese(page: Any) -> None:
    page.get_by_role("button", name="Settings ▼").click()
    page.check("#ui-lang input[value='中文']")
    page.wait_for_function("() => document.querySelector('#analyze').innerText.includes('分析')")
    page.get_by_text("示例", exact=True).click()  # collapsed at the bottom of the page
    page.wait_for_function("() => document.querySelector('#examples').innerText.includes('仓库')")
    examples = page.inner_text("#examples")
    assert "示例" in examples and "仓库" in examples and "问题" in examples, examples
    page.get_by_text("混沌模式（仅本会话）").click()
    page.wait_for_function(
        "() => document.querySelector('#chaos-status')?.innerText.includes('混沌模式：关闭')"
    )
    assert page.input_value("#chaos-down input") == "（无）"
    analyze(page, "octo/wordstats")  # no question: the report follows the page
    wait_report(page, "octo/wordstats")
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('完成')")
    assert "概述" in report_text(page)
    page.wait_for_function("() => document.querySelector('#analyze').innerText === '分析'")
    assert page.is_disabled("#stop")
