"""Chaos mode: the ChaosMonkey policy itself, and through the real wire layer of GitHubHTTP."""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter

import httpx
import pytest

from agent_core.github.chaos import ChaosMonkey, ChaosSettings
from agent_core.github.http import CallStats, GitHubHTTP, current_call


def _request(path: str = "/repos/octo/demo") -> httpx.Request:
    return httpx.Request("GET", f"http://127.0.0.1:1{path}")


async def test_disabled_monkey_lets_everything_through() -> None:
    monkey = ChaosMonkey(ChaosSettings(enabled=False, fault_rate=1.0, down_tool="read_file"))
    monkey.arm_rate_limit_burst(5)
    for _ in range(20):
        assert await monkey.before_send(_request(), "read_file") is None
    assert monkey.log == []
    assert monkey.requests_seen == 20
    assert monkey.burst_left == 5  # a burst armed while disabled waits for chaos to be switched on


async def test_fault_rate_is_reproducible_and_splits_503_and_timeouts() -> None:
    async def outcomes(seed: int) -> list[str]:
        monkey = ChaosMonkey(ChaosSettings(enabled=True, fault_rate=0.5), rng=random.Random(seed))
        seen = []
        for _ in range(400):
            try:
                response = await monkey.before_send(_request(), "get_commits")
            except httpx.ReadTimeout:
                seen.append("timeout")
            else:
                seen.append("pass" if response is None else str(response.status_code))
        return seen

    first, second = await outcomes(7), await outcomes(7)
    assert first == second
    counts = Counter(first)
    assert set(counts) == {"pass", "503", "timeout"}
    assert 150 < counts["pass"] < 250  # about half fail
    assert 60 < counts["503"] < 140
    assert 60 < counts["timeout"] < 140


async def test_fault_rate_is_clamped() -> None:
    assert ChaosSettings(fault_rate=7).fault_rate == 1.0
    assert ChaosSettings(fault_rate=-1).fault_rate == 0.0
    with pytest.raises(ValueError, match="rate_limit_burst"):
        ChaosSettings(rate_limit_burst=-1)


async def test_rate_limit_burst_answers_the_next_n_requests_then_stops() -> None:
    monkey = ChaosMonkey(ChaosSettings(enabled=True, rate_limit_burst=3))
    assert monkey.arm_rate_limit_burst() == 3
    statuses = []
    for _ in range(5):
        response = await monkey.before_send(_request(), "get_repo_info")
        statuses.append(None if response is None else response.status_code)
    assert statuses == [429, 403, 429, None, None]
    monkey.arm_rate_limit_burst(1)
    response = await monkey.before_send(_request(), "x")
    assert response is not None
    assert response.headers["retry-after"] == "1"
    assert "secondary rate limit" in response.json()["message"]
    assert [f.kind for f in monkey.log] == [
        "rate_limit_429",
        "rate_limit_403",
        "rate_limit_429",
        "rate_limit_403",
    ]


async def test_down_tool_fails_only_that_tool_until_cleared() -> None:
    monkey = ChaosMonkey(ChaosSettings(enabled=True, down_tool="read_file"))
    for _ in range(3):
        response = await monkey.before_send(_request("/repos/o/r/contents/README.md"), "read_file")
        assert response is not None
        assert response.status_code == 503
        assert "forced down" in response.json()["message"]
    assert await monkey.before_send(_request(), "get_repo_info") is None
    monkey.configure(down_tool=None)
    assert await monkey.before_send(_request(), "read_file") is None
    assert next((f.kind, f.tool, f.path) for f in monkey.log) == (
        "tool_down",
        "read_file",
        "/repos/o/r/contents/README.md",
    )


async def test_counters_are_safe_across_threads() -> None:
    monkey = ChaosMonkey(ChaosSettings(enabled=True, rate_limit_burst=0))
    monkey.arm_rate_limit_burst(1000)

    def worker() -> None:
        async def run() -> None:
            for _ in range(500):
                await monkey.before_send(_request(), "t")

        asyncio.run(run())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert monkey.requests_seen == 2000
    assert monkey.burst_left == 0
    assert len(monkey.log) == 200  # bounded log keeps the latest faults


async def test_monkey_sits_in_the_wire_layer_below_the_cache() -> None:
    """Through the real GitHubHTTP stack: chaos answers replace the network; nothing is sent upstream."""
    sent: list[str] = []

    def upstream(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        return httpx.Response(200, json={"ok": True})

    http = GitHubHTTP(api_url="http://127.0.0.1:9", transport=httpx.MockTransport(upstream))
    monkey = ChaosMonkey(ChaosSettings(enabled=True, down_tool="get_languages"))
    try:

        async def get(tool: str) -> httpx.Response:
            stats = CallStats(tool=tool)
            request = http.client.build_request("GET", http.url("/repos/o/r/languages"))
            request.extensions["repo_analyst_chaos"] = monkey
            request.headers["x-auth-scope"] = "anonymous"
            token = current_call.set(stats)
            try:
                response = await http.client.send(request)
            finally:
                current_call.reset(token)
            assert isinstance(response, httpx.Response)
            assert stats.http_requests == 1
            return response

        assert (await get("get_languages")).status_code == 503
        assert sent == []
        assert (await get("get_repo_info")).status_code == 200
        assert sent == ["/repos/o/r/languages"]
    finally:
        await http.aclose()
