"""Cost in sight: the dated price table, the estimate before a run, tokens and time per step, the final
cost in the stats and the export. Runs go over real sockets: the scripted model server reports usage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.event_json import dump_events, event_from_dict
from agent_core.grammar import check_grammar
from agent_core.llm.prices import PRICE_TABLE, cost_range, price_of
from agent_core.web.render import TraceView
from agent_core.web.replay import load_recording
from testing.analysis import analysis, make_settings
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn

W = {"owner": "acme", "repo": "widgets"}


def _turns() -> list[Turn]:
    return [
        Turn.calls(("get_repo_info", W), reasoning="Metadata first.", usage=(1_000, 50)),
        Turn.final("# acme/widgets\n\nCounts words.", usage=(2_000, 300)),
    ]


async def _run(emulator: GitHubEmulator, tmp_path: Path, *, provider: str, model: str) -> list[ev.Event]:
    with ScriptedModelServer(_turns()) as server:
        settings = make_settings(emulator, tmp_path, server, llm_model=model, max_total_tokens=100_000)
        async with analysis(settings, provider=provider) as run:
            events = await run.ask("")
        server.assert_exhausted()
    return events


# -- the table -----------------------------------------------------------------------------------------


def test_every_price_is_dated_sourced_and_low_to_high() -> None:
    assert {"deepseek", "openai"} <= set(PRICE_TABLE)
    for provider, prices in PRICE_TABLE.items():
        assert prices.source.startswith("https://"), provider
        assert len(prices.as_of) == len("2026-12-02") and prices.as_of[4] == "-", provider
        for model, (in_low, in_high, out_low, out_high) in prices.models.items():
            assert 0 < in_low <= in_high and 0 < out_low <= out_high, model


def test_prices_are_known_for_listed_models_only() -> None:
    flash = price_of("deepseek", "deepseek-flash")
    assert flash is not None and (flash.input_low, flash.input_high) == (0.15, 0.30)  # off-peak, peak
    assert price_of("openai", "gpt-4.1-mini") is not None
    assert price_of("deepseek", "deepseek-chat") is None  # retired: no price rather than an old one
    assert price_of("custom", "anything") is None
    assert price_of("huggingface", "openai/gpt-oss-120b:fastest") is None
    local = price_of("ollama", "qwen3:8b")
    assert local is not None and cost_range(local, prompt_tokens=10**6, completion_tokens=10**6).high_usd == 0


# -- a run over sockets --------------------------------------------------------------------------------


async def test_a_priced_run_has_an_estimate_step_usage_and_its_cost(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    events = await _run(emulator, tmp_path, provider="deepseek", model="deepseek-flash")
    check_grammar(events)
    started, finished = events[0], events[-1]
    assert isinstance(started, ev.RunStarted) and isinstance(finished, ev.RunFinished)

    estimate = started.estimate
    assert estimate is not None
    assert estimate.budget_tokens == 100_000
    assert estimate.prices_as_of == PRICE_TABLE["deepseek"].as_of
    assert 0 < estimate.low_usd < estimate.high_usd
    assert estimate.high_usd <= 100_000 * 1.20 / 1e6  # never above the whole budget at the output price
    actual = finished.stats
    assert estimate.low_usd <= actual.cost_low_usd  # type: ignore[operator]
    assert actual.cost_usd is not None and actual.cost_usd <= estimate.high_usd

    assert (actual.prompt_tokens, actual.completion_tokens) == (3_000, 350)  # as the server reported
    assert actual.cost_low_usd == pytest.approx((3_000 * 0.15 + 350 * 0.60) / 1e6)
    assert actual.cost_usd == pytest.approx((3_000 * 0.30 + 350 * 1.20) / 1e6)
    assert actual.prices_as_of == PRICE_TABLE["deepseek"].as_of

    view = TraceView()
    for event in events:
        view.apply(event)
    titles = [m["metadata"]["title"] for m in view.messages() if "title" in m.get("metadata", {})]
    assert titles[0].startswith("🧠 Step 1 · 1,000 in / 50 out tokens · model ")
    rows = dict(view.stats.rows())
    assert rows["Tokens in / out"] == "3,000 / 350"
    assert rows["Cost"] == f"$0.0007 – $0.0013 (prices of {actual.prices_as_of})"


async def test_the_estimate_shows_while_the_run_streams(emulator: GitHubEmulator, tmp_path: Path) -> None:
    events = await _run(emulator, tmp_path, provider="openai", model="gpt-4o-mini")
    for lang, words in (("en", "estimate $"), ("zh", "预估 $")):
        view = TraceView(lang=lang)
        view.apply(events[0])
        cost = view.stats.rows()[6][1]
        assert cost.startswith(words) and "100,000" in cost, cost
    final = events[-1]
    assert isinstance(final, ev.RunFinished)
    assert final.stats.cost_low_usd == final.stats.cost_usd  # one price: one number
    view = TraceView()
    for event in events:
        view.apply(event)
    assert dict(view.stats.rows())["Cost"] == f"$0.0007 (prices of {PRICE_TABLE['openai'].as_of})"


async def test_an_unpriced_model_says_unknown(emulator: GitHubEmulator, tmp_path: Path) -> None:
    # A hosted router whose price depends on the provider it picks (a loopback "custom" one is local: free).
    events = await _run(emulator, tmp_path, provider="huggingface", model="scripted-model")
    started, finished = events[0], events[-1]
    assert isinstance(started, ev.RunStarted) and started.estimate is None
    assert isinstance(finished, ev.RunFinished) and finished.stats.cost_usd is None
    for lang in ("en", "zh"):
        view = TraceView(lang=lang)
        for event in events:
            view.apply(event)
        assert view.stats.rows()[6][1] in (
            "unknown (no price known for this model)",
            "未知（没有该模型的价格）",
        )


async def test_the_export_and_replay_keep_estimate_and_cost(emulator: GitHubEmulator, tmp_path: Path) -> None:
    events = await _run(emulator, tmp_path, provider="deepseek", model="deepseek-v4-pro")
    path = tmp_path / "trace.jsonl"
    dump_events(events, path)
    first, *_ = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    assert first["estimate"]["prices_as_of"] == PRICE_TABLE["deepseek"].as_of
    assert load_recording(path) == events  # replay's loader, grammar checked


def test_old_and_newer_recordings_still_load() -> None:
    old = {"kind": "run_started", "t": 0, "run_id": "r", "targets": ["a/b"], "question": "", "model": "m"}
    started = event_from_dict({**old, "mode": "model"})
    assert isinstance(started, ev.RunStarted) and started.estimate is None
    newer = {"kind": "run_finished", "t": 1, "report": "r", "degraded": False, "stats": {"turns": 1, "x": 2}}
    finished = event_from_dict(newer)
    assert isinstance(finished, ev.RunFinished) and finished.stats.turns == 1
