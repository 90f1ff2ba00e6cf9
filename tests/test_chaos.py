"""Chaos mode: the ChaosMonkey itself, and through the real toolbox at the source seam (GitHub and local)."""

from __future__ import annotations

import random
import threading
from collections import Counter
from pathlib import Path

import pytest

from agent_core.errors import RateLimitError, TransientError
from agent_core.resilience import BreakerBoard, BreakerConfig, RetryPolicy
from agent_core.settings import Settings
from agent_core.sources.local import LocalGitSource
from agent_core.tools.chaos import ChaosMonkey, ChaosSettings
from agent_core.tools.executor import Toolbox
from agent_core.top.wiring import toolbox_config
from testing.clock import FakeClock
from testing.emulator.github import GitHubEmulator
from testing.github import make_http, make_toolbox


def outcome(monkey: ChaosMonkey, tool: str = "read_file") -> str:
    try:
        monkey.before_call(tool, "github")
    except RateLimitError as exc:
        return f"rate_limit:{exc.retry_after:g}"
    except TransientError as exc:
        return "timeout" if exc.status is None else str(exc.status)
    return "pass"


def test_disabled_monkey_lets_everything_through() -> None:
    monkey = ChaosMonkey(ChaosSettings(enabled=False, fault_rate=1.0, down_tool="read_file"))
    monkey.arm_rate_limit_burst(5)
    assert [outcome(monkey) for _ in range(20)] == ["pass"] * 20
    assert monkey.log == []
    assert monkey.calls_seen == 20
    assert monkey.burst_left == 5  # a burst armed while disabled waits for chaos to be switched on


def test_fault_rate_is_reproducible_and_splits_503_and_timeouts() -> None:
    def outcomes(seed: int) -> list[str]:
        monkey = ChaosMonkey(ChaosSettings(enabled=True, fault_rate=0.5), rng=random.Random(seed))
        return [outcome(monkey, "get_commits") for _ in range(400)]

    first, second = outcomes(7), outcomes(7)
    assert first == second
    counts = Counter(first)
    assert set(counts) == {"pass", "503", "timeout"}
    assert 150 < counts["pass"] < 250  # about half fail
    assert 60 < counts["503"] < 140
    assert 60 < counts["timeout"] < 140


def test_fault_rate_is_clamped() -> None:
    assert ChaosSettings(fault_rate=7).fault_rate == 1.0
    assert ChaosSettings(fault_rate=-1).fault_rate == 0.0
    with pytest.raises(ValueError, match="rate_limit_burst"):
        ChaosSettings(rate_limit_burst=-1)


def test_rate_limit_burst_answers_the_next_n_attempts_then_stops() -> None:
    monkey = ChaosMonkey(ChaosSettings(enabled=True, rate_limit_burst=3))
    assert monkey.arm_rate_limit_burst() == 3
    assert [outcome(monkey, "get_repo_info") for _ in range(5)] == ["rate_limit:1"] * 3 + ["pass"] * 2
    assert [f.kind for f in monkey.log] == ["rate_limit"] * 3


def test_down_tool_fails_only_that_tool_until_cleared() -> None:
    monkey = ChaosMonkey(ChaosSettings(enabled=True, down_tool="read_file"))
    assert [outcome(monkey, "read_file") for _ in range(3)] == ["503"] * 3
    assert outcome(monkey, "get_repo_info") == "pass"
    monkey.configure(down_tool=None)
    assert outcome(monkey, "read_file") == "pass"
    first = monkey.log[0]
    assert (first.kind, first.tool, first.source) == ("tool_down", "read_file", "github")


def test_counters_are_safe_across_threads() -> None:
    monkey = ChaosMonkey(ChaosSettings(enabled=True, rate_limit_burst=0))
    monkey.arm_rate_limit_burst(1000)

    def worker() -> None:
        for _ in range(500):
            outcome(monkey, "t")

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert monkey.calls_seen == 2000
    assert monkey.burst_left == 0
    assert len(monkey.log) == 200  # bounded log keeps the latest faults


async def test_a_forced_down_github_tool_is_retried_then_its_breaker_opens_and_no_request_is_sent(
    emulator: GitHubEmulator,
) -> None:
    """At the source seam: chaos replaces the source call, so the emulator sees nothing for that tool."""
    http = make_http(emulator, None)
    monkey = ChaosMonkey(ChaosSettings(enabled=True, down_tool="get_languages"))
    try:
        toolbox, _, board = make_toolbox(
            http,
            retry=RetryPolicy(max_attempts=3, max_total=20, base_delay=0.5, max_delay=8.0),
            faults=monkey,
        )
        before = len(emulator.requests)
        result = await toolbox.execute("c1", "get_languages", {"owner": "acme", "repo": "widgets"})
        assert result.degraded and result.attempts == 3 and result.http_requests == 0
        assert "forced down" in (result.error or "")
        assert board.get("github:get_languages").snapshot().state == "open"
        assert len(emulator.requests) == before  # nothing reached GitHub
        info = await toolbox.execute("c2", "get_repo_info", {"owner": "acme", "repo": "widgets"})
        assert info.ok and info.http_requests == 1
    finally:
        await http.aclose()


async def test_chaos_reaches_local_repositories_too(sample_repo: Path) -> None:
    clock = FakeClock()
    source = await LocalGitSource.open(sample_repo)
    ref = source.repo_ref
    monkey = ChaosMonkey(ChaosSettings(enabled=True, fault_rate=1.0), rng=random.Random(3))
    board = BreakerBoard(config=BreakerConfig(failure_threshold=3, open_seconds=30), clock=clock)
    toolbox = Toolbox(
        sources={ref.key(): source},
        scope=[ref],
        breakers=board,
        clock=clock,
        config=toolbox_config(Settings(retry_max_attempts=2)),
        rng=lambda: 0.5,
        faults=monkey,
    )
    result = await toolbox.execute(
        "c1", "read_file", {"owner": "local", "repo": ref.name, "path": "README.md"}
    )
    assert result.degraded and result.attempts == 2
    assert {f.source for f in monkey.log} == {"local"}
    monkey.configure(enabled=False)
    again = await toolbox.execute(
        "c2", "read_file", {"owner": "local", "repo": ref.name, "path": "README.md"}
    )
    assert again.ok and again.value.text
