"""Every model call earns its time and money: the diagram is one step after the report (a local model is
not asked; the run's deadline and Stop cut the call), every request of an analysis starts with the same bytes (system prompt, tools, brief), and
the tokens a provider's prompt cache served are read, priced at the cache-hit price and shown. Runs go
over real sockets; the scripted model server's request log and held waits say what overlapped."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from agent_core import events as ev
from agent_core.agent.diagram_call import CUT_NOTE, worth_retrying
from agent_core.event_json import dumps_event, event_from_dict
from agent_core.events import Component
from agent_core.llm import TurnAccumulator
from agent_core.llm.prices import PRICE_TABLE, cost_range, price_of
from agent_core.report.diagram import MAX_NODES, Proposal
from agent_core.top.terminal import TerminalRenderer
from agent_core.top.wiring import build_model
from agent_core.web.render import TraceView
from agent_core.words import say
from testing.analysis import analysis, diagram_attempt, make_settings
from testing.clock import SkippingClock, SkippingLoop
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import JSONDict, ScriptedModelServer, Turn
from testing.emulator.prompt_cache import UNIT_TOKENS, PromptCache, render_prompt, tokens

W = {"owner": "acme", "repo": "widgets"}
REPORT = "# acme/widgets\n\n## Overview\nCounts words ([README](https://github.com/acme/widgets/blob/main/README.md)).\n"
PROPOSAL = json.dumps(
    {
        "components": [
            {"name": "Package", "path": "src", "role": "the code"},
            {"name": "Tests", "path": "tests", "role": "pytest"},
        ],
        "relations": [{"from": "tests", "to": "src", "label": "tests"}],
    }
)


async def until(condition: Callable[[], bool]) -> None:
    """Wait for a condition the servers' threads make true (bounded for a broken test)."""
    for _ in range(3000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


# -- 1. the diagram: one step after the report ---------------------------------------------------------

EXPLORE = Turn.calls(("get_file_tree", W), ("read_file", {**W, "path": "README.md"}), usage=(500, 20))


def after_report(kinds: list[str]) -> list[str]:
    """The event kinds after the report turn's end."""
    return kinds[len(kinds) - kinds[::-1].index("turn_finished") :]


async def test_the_diagram_is_asked_after_the_report_and_says_so_in_the_trace(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    route = lambda body: Turn.final(PROPOSAL, usage=(700, 60)) if diagram_attempt(body) else None  # noqa: E731
    with ScriptedModelServer([EXPLORE, Turn.final(REPORT, usage=(900, 100))], router=route) as server:
        settings = make_settings(emulator, tmp_path, server, diagram_from_model=True)
        async with analysis(settings) as run:
            events = await run.ask("")
        server.assert_exhausted()
        report_request, diagram_request = server.chat_requests[1:]
    # One after the other: the diagram's request is the report's, the report and one message.
    assert [diagram_attempt(r.body or {}) for r in (report_request, diagram_request)] == [None, 1]
    assert diagram_request.messages[:-2] == report_request.messages
    assert after_report([e.kind for e in events])[:3] == ["notice", "diagram", "claims_checked"]
    notice = next(e for e in events if isinstance(e, ev.Notice) and "architecture diagram" in e.message)
    assert "the tree's diagram is kept" in notice.message  # the start, said; the diagram event ends it
    (diagram,) = [e for e in events if isinstance(e, ev.DiagramDrawn)]
    assert (diagram.source, diagram.attempts, diagram.prompt_tokens) == ("model", 1, 700)
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished)
    assert finished.stats.prompt_tokens == 500 + 900 + 700  # the proposal counts in the run's usage


@pytest.mark.parametrize("provider", ["custom", "llamacpp"])
async def test_a_local_model_is_not_asked_the_tree_is_drawn_right_after_the_report(
    emulator: GitHubEmulator, tmp_path: Path, provider: str
) -> None:
    """DIAGRAM_FROM_MODEL unset: a server on loopback (one slot on the user's CPU) is not asked."""
    with ScriptedModelServer([EXPLORE, Turn.final(REPORT)]) as server:  # no turn for a diagram
        settings = make_settings(emulator, tmp_path, server, diagram_from_model=None)
        async with analysis(settings, provider=provider) as run:
            events = await run.ask("")
        server.assert_exhausted()
        assert len(server.chat_requests) == 2
    assert after_report([e.kind for e in events])[:2] == ["diagram", "claims_checked"]
    (diagram,) = [e for e in events if isinstance(e, ev.DiagramDrawn)]
    assert (diagram.source, diagram.attempts) == ("tree", 0) and diagram.components
    assert diagram.note is not None and "local model" in diagram.note


def test_the_diagrams_call_speaks_every_10_s_and_the_runs_deadline_cuts_it(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The diagram's call hangs: after 10 s of the run's clock a notice says so; past the run's time limit
    the run ends at once with the tree's diagram (the loop's time is the test's clock: nobody waits)."""
    clock = SkippingClock()
    route = lambda body: Turn(hang=True) if diagram_attempt(body) else None  # noqa: E731
    seen: list[ev.Event] = []

    def waiting() -> list[ev.Notice]:
        return [e for e in seen if isinstance(e, ev.Notice) and "Still waiting" in e.message]

    async def go() -> None:
        with ScriptedModelServer([EXPLORE, Turn.final(REPORT)], router=route) as server:
            settings = make_settings(
                emulator, tmp_path, server, diagram_from_model=True, max_wall_seconds=120.0
            )
            async with analysis(settings, clock=clock, turn_timeout=1000.0) as run:

                async def consume() -> None:
                    async for event in run.opened.analysis.run(""):
                        seen.append(event)

                task = asyncio.create_task(consume())
                await until(lambda: server.in_flight == 1 and len(server.chat_requests) == 3)
                clock.skip(10.0)
                await until(lambda: len(waiting()) == 1)
                clock.skip(110.0)
                await task
            await until(lambda: server.in_flight == 0)  # the call's connection was closed
            assert not server.errors

    with asyncio.Runner(loop_factory=lambda: SkippingLoop(clock)) as runner:
        runner.run(go())
    events = seen
    (notice,) = waiting()
    assert (
        notice.message == "Still waiting for the model's architecture diagram of acme/widgets: 10 s so far."
    )
    assert "仍在等待" in say(notice.said, "zh")
    (diagram,) = [e for e in events if isinstance(e, ev.DiagramDrawn)]
    assert (diagram.source, diagram.attempts, diagram.note) == ("tree", 1, CUT_NOTE)
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished) and finished.writer == "model"
    assert finished.report == REPORT.strip() and finished.stats.elapsed_s < 121.0


async def test_stop_during_the_diagrams_call_closes_it(emulator: GitHubEmulator, tmp_path: Path) -> None:
    route = lambda body: Turn(hang=True) if diagram_attempt(body) else None  # noqa: E731
    with ScriptedModelServer([EXPLORE, Turn.final(REPORT)], router=route) as server:
        settings = make_settings(emulator, tmp_path, server, diagram_from_model=True)
        async with analysis(settings) as run:

            async def consume() -> None:
                async for _ in run.opened.analysis.run(""):
                    pass

            task = asyncio.create_task(consume())
            await until(lambda: server.in_flight == 1 and len(server.chat_requests) == 3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await until(lambda: server.in_flight == 0)  # closed by the client
        assert not server.errors


@pytest.mark.parametrize(
    ("kept", "dropped", "retry"),
    [
        (3, 0, False),  # nothing to correct
        (0, 0, False),  # no JSON, or no component: the tree's graph anyway
        (1, 0, False),  # one component, none unknown: even a retry with these is the tree's graph
        (0, 1, False),  # one component in all: fewer than two even corrected
        (1, 1, True),  # corrected, it would be drawn instead of the tree's
        (3, 2, True),  # the unknown ones would be drawn once corrected
        (MAX_NODES, 1, False),  # the cap would leave a corrected one out anyway
    ],
)
def test_a_proposal_is_retried_only_when_a_correction_changes_the_graph(
    kept: int, dropped: int, retry: bool
) -> None:
    proposal = Proposal(
        components=tuple(Component(name=f"c{i}", path=f"c{i}", role="") for i in range(kept)),
        dropped=tuple(f"ghost{i}" for i in range(dropped)),
        errors=("x",) if dropped or kept < 2 else (),
    )
    assert worth_retrying(proposal) is retry


# -- 2. one prefix for every request ---------------------------------------------------------------------


async def test_every_request_of_a_run_and_its_follow_up_starts_with_the_same_bytes(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [
        Turn.calls(("read_file", {**W, "path": "pyproject.toml"})),
        Turn.calls(("get_languages", W)),
        Turn.final(REPORT),  # asked without tools: the turn limit forced it
        Turn.calls(("read_file", {**W, "path": "LICENSE"})),  # the follow-up
        Turn.final("MIT."),
    ]
    route = lambda body: Turn.final(PROPOSAL) if diagram_attempt(body) else None  # noqa: E731
    with ScriptedModelServer(turns, router=route, prefix_cache=True) as server:
        settings = make_settings(
            emulator, tmp_path, server, diagram_from_model=True, prefetch=True, max_turns=2
        )
        async with analysis(settings) as run:
            first = await run.ask("")
            follow = await run.ask("Which license?")
        server.assert_exhausted()
        requests = [r for r in server.chat_requests if r.body is not None]
    assert any(isinstance(e, ev.Notice) and "Stopping exploration" in e.message for e in first)
    assert sum(diagram_attempt(r.body or {}) is not None for r in requests) >= 1
    assert isinstance(follow[0], ev.RunStarted) and follow[0].follow_up
    opening = requests[0].body or {}
    system, brief = opening["messages"][:2]
    assert brief["role"] == "user" and "Evidence the tools gathered" in brief["content"]
    prefix = render_prompt({"messages": [system, brief], "tools": opening["tools"]})
    assert len(requests) >= 6
    for request in requests:
        body = request.body or {}
        assert body["tools"] == opening["tools"], request  # also when no tool may be called
        assert render_prompt(body).startswith(prefix), request
    forced = [r for r in requests if (r.body or {}).get("tool_choice") == "none"]
    assert len(forced) >= 2  # the report the limit forced, and the diagram
    # The provider's cache serves that prefix to every request after the first (in 64-token units),
    # and the run reads what it served into its turns' usage.
    hits = [r.turn.cache_hit_tokens for r in requests if r.turn is not None]
    assert hits[0] == 0 and all(hit >= tokens(prefix) // UNIT_TOKENS * UNIT_TOKENS for hit in hits[1:])
    ends = [e for e in [*first, *follow] if isinstance(e, ev.TurnFinished) and e.prompt_tokens is not None]
    assert len(ends) == 5 and all(e.cached_prompt_tokens in hits for e in ends)


def test_the_scripted_cache_serves_byte_identical_prefixes_in_64_token_units() -> None:
    cache = PromptCache()
    system = {"role": "system", "content": "s" * 1000}
    first = {"messages": [system, {"role": "user", "content": "a" * 600}]}
    assert cache.hit_tokens(render_prompt(first)) == 0
    longer = {"messages": [*first["messages"], {"role": "assistant", "content": "b" * 400}]}
    shared = len(render_prompt(first)) // 4
    assert cache.hit_tokens(render_prompt(longer)) == shared // UNIT_TOKENS * UNIT_TOKENS
    changed = {"messages": [{"role": "system", "content": "S" + "s" * 999}, first["messages"][1]]}
    assert cache.hit_tokens(render_prompt(changed)) == 0  # one byte at the start: nothing hits
    tools = {**first, "tools": [{"type": "function", "function": {"name": "x"}}]}
    assert render_prompt(tools).index("<tools>") > render_prompt(tools).index('"system"')  # after it
    turn = cache.metered(longer, Turn.final("ok"))
    assert turn.usage is not None and turn.cache_hit_tokens == turn.usage[0] // UNIT_TOKENS * UNIT_TOKENS


# -- 3. cached tokens counted and priced ------------------------------------------------------------------


def test_cache_fields_of_each_provider_are_read() -> None:
    def usage_of(chunk: JSONDict) -> int:
        accumulator = TurnAccumulator()
        accumulator.feed({"choices": [], **chunk})  # type: ignore[arg-type]
        turn = accumulator.finish()
        assert turn.usage is not None
        return turn.usage.cached_prompt_tokens

    base = {"prompt_tokens": 300, "completion_tokens": 5}
    assert (
        usage_of({"usage": {**base, "prompt_cache_hit_tokens": 256, "prompt_cache_miss_tokens": 44}}) == 256
    )
    assert usage_of({"usage": {**base, "prompt_tokens_details": {"cached_tokens": 128}}}) == 128
    # llama.cpp (as its server answered here): the same count in the usage and in its timings.
    llama = {"usage": {**base, "prompt_tokens_details": {"cached_tokens": 250}}, "timings": {"cache_n": 250}}
    assert usage_of(llama) == 250
    assert usage_of({"usage": base, "timings": {"cache_n": 250, "prompt_n": 50}}) == 250  # older servers
    assert usage_of({"usage": base}) == 0


def test_cache_hit_prices_are_dated_sourced_and_below_the_input_price() -> None:
    for provider in ("deepseek", "openai"):
        prices = PRICE_TABLE[provider]
        assert prices.source.startswith("https://") and prices.cache_hits
        for model, (hit_low, hit_high) in prices.cache_hits.items():
            in_low, in_high, _, _ = prices.models[model]
            assert 0 < hit_low <= hit_high and hit_low < in_low and hit_high < in_high, model
    flash = price_of("deepseek", "deepseek-flash")
    assert flash is not None
    cost = cost_range(flash, prompt_tokens=10_000, completion_tokens=1_000, cached_tokens=8_000)
    assert cost.low_usd == pytest.approx((8_000 * 0.03 + 2_000 * 0.15 + 1_000 * 0.60) / 1e6)
    assert cost.high_usd == pytest.approx((8_000 * 0.06 + 2_000 * 0.30 + 1_000 * 1.20) / 1e6)
    assert [(p.what, p.tokens) for p in cost.parts] == [
        ("cached_input", 8_000),
        ("input", 2_000),
        ("output", 1_000),
    ]
    unknown_hits = price_of("llamacpp", "local")
    assert (
        unknown_hits is not None
        and cost_range(unknown_hits, prompt_tokens=10**6, completion_tokens=1).high_usd == 0
    )


async def test_a_run_shows_cached_and_uncached_input_and_the_cost_at_each_price(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [
        Turn.calls(("get_repo_info", W), usage=(1_000, 50)),
        Turn.final(REPORT, usage=(2_000, 300), cache_hit_tokens=1_536),
    ]
    with ScriptedModelServer(turns) as server:
        settings = make_settings(
            emulator, tmp_path, server, llm_model="deepseek-flash", max_total_tokens=100_000
        )
        async with analysis(settings, provider="deepseek") as run:
            events = await run.ask("")
        server.assert_exhausted()
    started, finished = events[0], events[-1]
    assert isinstance(started, ev.RunStarted) and isinstance(finished, ev.RunFinished)
    assert started.estimate is not None
    assert [(p.what, p.usd_per_mtok_high) for p in started.estimate.parts] == [
        ("cached_input", 0.06),
        ("input", 0.30),
        ("output", 1.20),
    ]
    stats = finished.stats
    assert (stats.prompt_tokens, stats.cached_prompt_tokens) == (3_000, 1_536)
    assert stats.cost_usd == pytest.approx((1_536 * 0.06 + 1_464 * 0.30 + 350 * 1.20) / 1e6)
    assert [(p.what, p.tokens) for p in stats.cost_parts] == [
        ("cached_input", 1_536),
        ("input", 1_464),
        ("output", 350),
    ]
    turn_ends = [e for e in events if isinstance(e, ev.TurnFinished)]
    assert [e.cached_prompt_tokens for e in turn_ends] == [0, 1_536]
    # The export carries it: a trace read back is the same run.
    assert event_from_dict(json.loads(dumps_event(finished))) == finished
    assert event_from_dict(json.loads(dumps_event(started))) == started

    for lang, cached, by_price in (
        ("en", "3,000 (1,536 cached) / 350", "cached input 1,536 × $0.03–0.06/M = "),
        ("zh", "3,000（缓存命中 1,536）/ 350", "缓存命中输入 1,536 × $0.03–0.06/百万 = "),
    ):
        view = TraceView(lang=lang)
        view.apply(started)
        assert "$0.03–0.06/" in dict(view.stats.rows())["Cost by price" if lang == "en" else "按价格的费用"]
        for event in events[1:]:
            view.apply(event)
        rows = dict(view.stats.rows())
        assert cached in rows.values()
        assert any(value.startswith(by_price) for value in rows.values()), rows
    assert any("2,000 in (1,536 cached) / 300 out tokens" in title for title in _titles(events, "en"))
    assert any("输入 2,000（缓存命中 1,536）/ 输出 300 token" in title for title in _titles(events, "zh"))

    out = io.StringIO()
    renderer = TerminalRenderer(out, rich=False)
    for event in events:
        renderer.render(event)
    printed = out.getvalue()
    assert "3000 (1536 cached)+350 tokens" in printed
    assert "cost by price: cached input 1,536 × $0.03-0.06/M" in printed
    assert "estimated cost:" in printed and "cached input $0.03-0.06/M" in printed


def _titles(events: list[ev.Event], lang: str) -> list[str]:
    view = TraceView(lang=lang)
    for event in events:
        view.apply(event)
    return [m["metadata"]["title"] for m in view.messages() if "title" in m.get("metadata", {})]


async def test_llama_cpp_is_asked_to_reuse_its_prompt_cache(emulator: GitHubEmulator, tmp_path: Path) -> None:
    with ScriptedModelServer([Turn.final("hi"), Turn.final("hi")]) as server:
        async with httpx2.AsyncClient() as http:
            for provider, expected in (("llamacpp", True), ("deepseek", None)):
                settings = make_settings(emulator, tmp_path, server, llm_provider=provider)
                model, config = build_model(settings, http)
                assert model is not None and config is not None
                async for _ in model.stream_turn([{"role": "user", "content": "x"}], tools=None):
                    pass
                assert (server.chat_requests[-1].body or {}).get("cache_prompt") is expected, provider
        server.assert_exhausted()
