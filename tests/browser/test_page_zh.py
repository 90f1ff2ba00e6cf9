"""The page in 中文, walked in a real browser: switched to Chinese, an analysis with no model key (the
offline planner) of a repository on the GitHub emulator, then every visible text of the trace (each
item opened), the report pane's own words, the claim check (its verified claims opened) and the breaker
table is read, and no English sentence and no raw words key is found.

**The rule.** Text inside code (``pre``, ``code``: file contents, JSON previews, commands) and links
(``a``: paths and URLs) is the repository's, not the app's, and is left out. In what is left, a *word* is
a run of Latin letters standing alone between spaces (``Reading``, ``the``, ``repository's``),
optionally followed by punctuation; a token holding a dot, a slash, a digit, an underscore or a Han character is a name, a
path, a number or Chinese (``README.md``, ``octo/wordstats``, ``0.2.0``, ``get_file_tree``); Chinese
characters and punctuation end a token and stand between words (``Python、MIT、main`` is no run). An
**English sentence** is three or more words in a row. A **raw key** is any key of the words tables that
has an underscore (``status_done``), standing as a token of its own. In the report pane only the app's
own words are read (headings, bold labels, emphasis, table headers): its list items and paragraphs quote
the repository (its README, its commit messages), which no language rule can hold.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest

from agent_core.settings import Settings
from agent_core.words.tables import TABLES
from testing.app import running_app
from testing.browser import expand_all, loopback_context
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import sample_python_project
from tests.browser.conftest import BROWSER_MARKS, open_app

pytestmark = BROWSER_MARKS

DESKTOP = {"width": 1400, "height": 1000}
_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?[,.;:!?)\]]*")
_CJK = "\u3000-\u303f\uff00-\uffef\u4e00-\u9fff"  # Han characters and CJK punctuation
_TOKEN = re.compile(f"[{_CJK}]+|[^\\s{_CJK}]+")
_KEYS = frozenset(key for key in TABLES["en"] if "_" in key)

# The visible text of ``root``'s elements, code and links left out: one string per text node, with its
# element's tag, so that the report pane can be read by element.
VISIBLE_TEXT = """([root, only]) => {
  const out = [];
  for (const base of document.querySelectorAll(root)) {
    const walker = document.createTreeWalker(base, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || el.closest('pre, code, a, script, style, svg')) continue;
      if (only && !el.closest(only)) continue;
      if (!el.checkVisibility()) continue;
      const text = node.textContent.trim();
      if (text) out.push(text);
    }
  }
  return out;
}"""


def english_sentences(text: str) -> list[str]:
    """Runs of three or more English words (see the module docstring for what a word is)."""
    found, run = [], []
    for token in _TOKEN.findall(text):
        if _WORD.fullmatch(token):
            run.append(token)
            continue
        if len(run) >= 3:
            found.append(" ".join(run))
        run = []
    if len(run) >= 3:
        found.append(" ".join(run))
    return found


def raw_keys(text: str) -> list[str]:
    return [token for token in re.split(r"[\s:：,，。;；()（）]+", text) if token in _KEYS]


def test_the_rule_finds_english_sentences_and_raw_keys_and_spares_names() -> None:
    assert english_sentences("Reading README.md; the manifests pyproject.toml") == []
    assert english_sentences("读取 README.md；the manifests and the license LICENSE") == [
        "the manifests and the license LICENSE"
    ]
    assert english_sentences("octo/wordstats · get_file_tree · 0.2.0 · Ada Lovelace（3）") == []
    assert english_sentences("declared in pyproject.toml, requirements.txt") == []  # two words only
    assert english_sentences("不在 (not in the repository's tree)") == ["in the repository's tree)"]
    assert english_sentences("not among the dependencies") == ["not among the dependencies"]
    assert raw_keys("状态：status_done") == ["status_done"] and raw_keys("get_file_tree · status") == []


@pytest.fixture(scope="module")
def zh_url(chromium: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with no model key over the GitHub emulator serving octo/wordstats."""
    root = tmp_path_factory.mktemp("page-zh")
    with GitHubEmulator() as emu, pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        emu.add_repo("octo/wordstats", sample_python_project(root / "wordstats"))
        settings = Settings(
            github_api_url=emu.base_url, cache_dir=root / "cache", api_key=None, github_token=None
        )
        with running_app(settings) as url:
            yield url


@pytest.fixture
def chinese_page(chromium: Any, zh_url: str) -> Iterator[Any]:
    blocked: list[str] = []
    context = loopback_context(chromium, blocked, viewport=DESKTOP)
    page = context.new_page()
    open_app(page, zh_url)
    try:
        yield page
    finally:
        context.close()
    assert blocked == [], f"the page tried to leave 127.0.0.1: {blocked}"


def test_in_chinese_the_finished_page_says_no_english_sentence_and_no_raw_key(chinese_page: Any) -> None:
    page = chinese_page
    page.check("#ui-lang input[value='中文']")
    page.wait_for_function("() => document.querySelector('#analyze').innerText.includes('分析')")
    page.reload()  # the walk stays Chinese across a reload: the choice is remembered, not re-made
    open_app(page, page.url)
    page.wait_for_function("() => document.querySelector('#analyze').innerText.includes('分析')")
    assert page.is_checked("#ui-lang input[value='中文']")
    page.fill("#target textarea, #target input", "octo/wordstats")
    page.click("#analyze")
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('完成')")
    page.wait_for_selector("#checked details")
    page.evaluate("() => document.querySelectorAll('#checked details').forEach(d => d.open = true)")
    expand_all(page)

    regions = {
        "trace": ("#trace", None),
        "status": ("#status", None),
        "claim check": ("#checked", None),
        "breaker table": ("#breakers", None),
        "report pane": ("#report", "h1, h2, h3, h4, strong, em, th"),
    }
    texts = {name: page.evaluate(VISIBLE_TEXT, list(where)) for name, where in regions.items()}
    # Walked, not vacuous: the planner's narration, the check's observations and the table are there.
    trace = " ".join(texts["trace"])
    assert "先概览 octo/wordstats" in trace and "读取 README.md；清单文件" in trace, trace
    checked = " ".join(texts["claim check"])
    assert "观察到" in checked and "声明于 pyproject.toml" in checked, checked
    assert "闭合" in texts["breaker table"] and texts["report pane"], texts
    found = {
        name: [hit for text in lines for hit in english_sentences(text) + raw_keys(text)]
        for name, lines in texts.items()
    }
    assert found == {name: [] for name in regions}, found
    if shot := os.environ.get("PAGE_ZH_SCREENSHOT"):  # a look at the page, outside the repository
        page.evaluate("() => { scrollTo(0, 0); document.querySelector('#trace [role=log]').scrollTop = 0; }")
        page.screenshot(path=shot)
