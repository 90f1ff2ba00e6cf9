"""The replicas' shared state (``REDIS_URL``) against a real ``redis-server`` on 127.0.0.1.

Two "app instances" are two :class:`Services` (each its own connections, cache folder and clock) on the
same Redis URL, over the GitHub emulator. Windows move on a :class:`FakeClock`, never the wall clock.
Skipped, with the reason, when ``/usr/bin/redis-server`` is missing (CI installs it).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.github.ratelimit import RateLimit
from agent_core.grammar import check_grammar
from agent_core.resilience.quota import HourlyQuota
from agent_core.settings import Settings
from agent_core.shared_state import (
    KEY_PREFIX,
    SharedQuota,
    SharedRateLimits,
    SharedRunBudget,
    SharedState,
    refusal,
)
from agent_core.shared_state.notices import WORDS
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis
from agent_core.web.budget import Payer, SpaceBudget
from testing.analysis import analysis, make_settings
from testing.app import free_port
from testing.clock import FakeClock
from testing.emulator.github import GitHubEmulator
from testing.redis_server import RedisServer, redis_server_path

_BINARY = redis_server_path()
pytestmark = pytest.mark.skipif(
    _BINARY is None, reason="redis-server is not installed (apt-get install redis-server)"
)

OWNER_PAID = Payer(owner_model=False, owner_github=True)


class Instances:
    """What a test builds on the Redis URL (connections, Services), closed when the test ends."""

    def __init__(self) -> None:
        self.built: list[SharedState] = []

    def shared(self, server: RedisServer, clock: FakeClock) -> SharedState:
        state = SharedState.from_url(server.url, clock=clock)
        self.built.append(state)
        return state

    def services(self, settings: Settings, clock: FakeClock) -> Services:
        services = Services(settings, clock=clock)
        if services.shared is not None:
            self.built.append(services.shared)
        return services

    def close(self) -> None:
        for state in self.built:
            state.close()


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    assert _BINARY is not None
    server = RedisServer(_BINARY)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def made() -> Iterator[Instances]:
    instances = Instances()
    try:
        yield instances
    finally:
        instances.close()


# -- the windows: HourlyQuota's contract, in one process and across replicas -------------------------------


def quota_pair(
    made: Instances, kind: str, server: RedisServer, clock: FakeClock, limit: int
) -> tuple[HourlyQuota, HourlyQuota]:
    """Two handles on one quota: the same object in memory, two replicas' connections with Redis."""
    if kind == "memory":
        quota = HourlyQuota(limit, clock=clock)
        return quota, quota
    return (
        SharedQuota(made.shared(server, clock), "q", limit, clock=clock),
        SharedQuota(made.shared(server, clock), "q", limit, clock=clock),
    )


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_a_quota_keeps_hourly_quotas_contract_across_replicas(
    made: Instances, kind: str, redis_server: RedisServer
) -> None:
    clock = FakeClock()
    a, b = quota_pair(made, kind, redis_server, clock, limit=100)
    assert a.take_up_to(60) == 60
    clock.advance(600)
    assert b.take_up_to(60) == 40  # what is left, whoever asks
    assert a.take_up_to(1) == 0 and not b.take(1)
    assert b.retry_after() == pytest.approx(3000.0)
    b.refund(30)  # newest first: the 40 of b's take becomes 10
    assert a.remaining() == 30
    a.charge(50)  # an overshoot cannot be refused
    assert b.remaining() == 0
    clock.advance(3000)  # the first take (60) leaves the window
    assert a.remaining() == 40
    assert b.take(40) and a.remaining() == 0


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_a_refund_gives_back_the_newest_takes_first(
    made: Instances, kind: str, redis_server: RedisServer
) -> None:
    clock = FakeClock()
    a, b = quota_pair(made, kind, redis_server, clock, limit=100)
    for amount in (10, 20, 30):
        assert a.take(amount)
        clock.advance(100)
    b.refund(35)  # the 30 whole, then 5 of the 20
    assert a.remaining() == 75
    clock.advance(3600 - 300)  # the 10 leaves the window
    assert b.remaining() == 85
    clock.advance(100)  # the 15 left of the 20 leaves too
    assert a.remaining() == 100
    b.refund(5)  # nothing left to give back: nothing changes
    assert a.remaining() == 100


def test_two_instances_admit_exactly_runs_per_hour_under_concurrent_starts(
    made: Instances, redis_server: RedisServer, tmp_path: Path
) -> None:
    clock = FakeClock()
    settings = Settings(space_id="o/s", runs_per_hour=5, redis_url=redis_server.url, cache_dir=tmp_path)
    budgets = [SpaceBudget(settings, made.services(settings, clock).quotas, clock=clock) for _ in range(2)]
    start = threading.Barrier(40)

    def try_start(index: int) -> bool:
        start.wait()
        return budgets[index % 2].runs.try_start("ip:203.0.113.7").allowed

    with ThreadPoolExecutor(max_workers=40) as pool:
        admitted = list(pool.map(try_start, range(40)))
    assert sum(admitted) == 5
    assert budgets[0].runs.remaining("ip:203.0.113.7") == 0 == budgets[1].runs.remaining("ip:203.0.113.7")
    assert budgets[1].runs.remaining("ip:198.51.100.1") == 5  # another visitor is counted apart
    clock.advance(3600)
    assert budgets[1].runs.try_start("ip:203.0.113.7").allowed  # the window slid on both


def test_two_instances_take_a_shared_quota_exactly_under_concurrent_takes(
    made: Instances, redis_server: RedisServer
) -> None:
    clock = FakeClock()
    a, b = quota_pair(made, "redis", redis_server, clock, limit=5)
    start = threading.Barrier(40)

    def take(index: int) -> bool:
        start.wait()
        return (a if index % 2 else b).take(1)

    with ThreadPoolExecutor(max_workers=40) as pool:
        assert sum(pool.map(take, range(40))) == 5
    assert a.remaining() == 0 == b.remaining()


def test_a_full_visitor_table_refuses_new_visitors_on_every_instance_but_not_known_ones(
    made: Instances,
    redis_server: RedisServer,
) -> None:
    clock = FakeClock()
    a, b = (
        SharedRunBudget(made.shared(redis_server, clock), "runs", 3, clock=clock, max_keys=2)
        for _ in range(2)
    )
    assert a.try_start("ip:1").allowed and b.try_start("ip:2").allowed
    refused = a.try_start("ip:3")
    assert (refused.allowed, refused.busy, refused.retry_after) == (False, True, 3600.0)
    assert b.try_start("ip:1").allowed  # a known visitor is never pushed out
    clock.advance(3600)
    assert b.try_start("ip:3").allowed


def test_the_space_quotas_are_shared_by_the_instances(
    made: Instances, redis_server: RedisServer, tmp_path: Path
) -> None:
    clock = FakeClock()
    settings = Settings(space_id="o/s", space_runs_per_hour=3, redis_url=redis_server.url, cache_dir=tmp_path)
    a, b = (made.services(settings, clock).quotas for _ in range(2))
    assert a is not None and b is not None
    assert a.runs.take(2) and b.runs.take(1) and not a.runs.take(1)
    assert b.runs.remaining() == 0


# -- the HTTP cache and the rate-limit view ---------------------------------------------------------------


def counted(emu: GitHubEmulator) -> int:
    return sum(1 for r in emu.requests if r.counted)


async def test_a_reanalysis_on_another_instance_costs_no_counted_request(
    emulator: GitHubEmulator, redis_server: RedisServer, tmp_path: Path
) -> None:
    first = make_settings(emulator, tmp_path / "a", redis_url=redis_server.url)
    async with analysis(first) as run:
        await run.ask("")
        assert isinstance(run.events[-1], ev.RunFinished)
    spent_by_a = counted(emulator)
    assert spent_by_a > 0
    # B: another process's Services, another cache folder (no SQLite file in common): only Redis is shared.
    second = make_settings(emulator, tmp_path / "b", redis_url=redis_server.url)
    async with analysis(second) as run:
        await run.ask("")
        assert isinstance(run.events[-1], ev.RunFinished)
    assert counted(emulator) == spent_by_a


async def test_without_a_shared_cache_the_other_instance_pays_again(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The control of the test above: the same two runs with REDIS_URL unset (today's behaviour)."""
    async with analysis(make_settings(emulator, tmp_path / "a")) as run:
        await run.ask("")
    spent_by_a = counted(emulator)
    async with analysis(make_settings(emulator, tmp_path / "b")) as run:
        assert run.opened.analysis is not None
        await run.ask("")
    assert counted(emulator) == 2 * spent_by_a


async def test_an_instance_started_after_another_spent_the_quota_says_so_before_its_first_request(
    emulator: GitHubEmulator, redis_server: RedisServer, tmp_path: Path
) -> None:
    emulator.exhaust()
    async with analysis(make_settings(emulator, tmp_path / "a", redis_url=redis_server.url)) as run:
        await run.ask("")
    seen_by_a = len(emulator.requests)
    assert seen_by_a > 0
    async with analysis(make_settings(emulator, tmp_path / "b", redis_url=redis_server.url)) as run:
        events = await run.ask("")
    assert len(emulator.requests) == seen_by_a  # B refused before asking GitHub anything
    limits = [e for e in events if isinstance(e, ev.RunFailed | ev.RunFinished)]
    diagnosis = limits[-1].diagnosis
    assert diagnosis is not None and diagnosis.cause == "rate_limit"


def test_the_rate_limit_view_keeps_the_most_spent_state_of_a_window(
    made: Instances, redis_server: RedisServer
) -> None:
    clock = FakeClock()
    a, b = (made.services(Settings(redis_url=redis_server.url, cache_dir=None), clock) for _ in range(2))  # type: ignore[arg-type]
    ha, hb = a.github_http, b.github_http
    reset = clock.wall() + 600

    def seen(remaining: int, reset_at: float) -> RateLimit:
        return RateLimit(
            limit=60, remaining=remaining, used=None, reset_at=reset_at, resource="core", authenticated=False
        )

    ha._rate_limits.record("anonymous", seen(10, reset))
    hb._rate_limits.record("anonymous", seen(30, reset))  # an older answer of the same window arrives late
    assert hb.rate_limit(None) == seen(10, reset)
    hb._rate_limits.record("anonymous", seen(59, reset + 3600))  # a new window replaces it
    assert ha.rate_limit(None) == seen(59, reset + 3600)
    assert ha.scope("t0ken") == hb.scope("t0ken")  # one scope secret: the partitions agree


def test_another_replicas_exhaustion_is_seen_within_a_second_and_its_first_read_at_once(
    made: Instances, redis_server: RedisServer
) -> None:
    clock = FakeClock()
    a, b = (SharedRateLimits(made.shared(redis_server, clock), clock=clock) for _ in range(2))
    reset = clock.wall() + 600

    def seen(remaining: int) -> RateLimit:
        return RateLimit(
            limit=5000, remaining=remaining, used=None, reset_at=reset, resource="core", authenticated=True
        )

    a.record("t-x", seen(4000))
    assert b.get("t-x", "core") == seen(4000)  # b's first read goes to Redis
    a.record("t-x", seen(3990))  # not written: the same window, plenty left, within the second
    a.record("t-x", seen(0))  # exhausted: written at once
    assert b.get("t-x", "core") == seen(4000)  # b reads Redis at most once a second
    clock.advance(1.0)
    assert b.get("t-x", "core") == seen(0)
    b.record("t-x", seen(0))
    assert a.get("t-x", "core") == seen(0)


# -- Redis going away and coming back -----------------------------------------------------------------


@pytest.mark.parametrize("space_id", [None, "owner/space"])
async def test_redis_killed_mid_run_the_run_ends_with_a_report_and_says_so(
    space_id: str | None, emulator: GitHubEmulator, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Locally, and on a Space (whose admitted run finishes on the replica's own GitHub count)."""
    events: list[ev.Event] = []
    settings = make_settings(emulator, tmp_path, redis_url=redis_server.url, space_id=space_id)
    async with analysis(settings) as run:
        async for event in run.opened.analysis.run(""):
            events.append(event)
            if isinstance(event, ev.ToolCallFinished) and redis_server.running:
                redis_server.stop()  # after the first tool call, with more to come
    check_grammar(events)
    assert not redis_server.running
    assert isinstance(events[-1], ev.RunFinished) and events[-1].report
    assert events[-1].diagnosis is None
    notices = [e for e in events if isinstance(e, ev.Notice) and "Redis" in e.message]
    assert [n.level for n in notices] == ["warning"]  # one, not one per request
    first_call = next(i for i, e in enumerate(events) if isinstance(e, ev.ToolCallFinished))
    assert events.index(notices[0]) > first_call


async def test_redis_unreachable_at_start_the_app_serves_and_each_run_says_so_once(
    emulator: GitHubEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with caplog.at_level(logging.INFO, logger="agent_core.shared_state"):
        for language in ("en", "zh"):
            settings = make_settings(
                emulator, tmp_path / language, redis_url=nowhere, report_language=language
            )
            async with analysis(settings) as run:
                events = await run.ask("")
            assert isinstance(events[-1], ev.RunFinished) and events[-1].report
            notices = [e.message for e in events if isinstance(e, ev.Notice) and "Redis" in e.message]
            assert notices == [WORDS[language][False]]
    assert [r.levelname for r in caplog.records if r.name == "agent_core.shared_state.health"] == [
        "WARNING"
    ] * 2


async def test_a_closed_analysis_stops_listening_to_the_replicas_health(
    made: Instances, emulator: GitHubEmulator, redis_server: RedisServer, tmp_path: Path
) -> None:
    settings = make_settings(emulator, tmp_path, redis_url=redis_server.url)
    services = made.services(settings, FakeClock())
    assert services.shared is not None
    opened = await open_analysis(services, "acme/widgets", "", settings=settings)
    assert len(services.shared.health._listeners) == 1
    await opened.aclose()
    assert services.shared.health._listeners == []
    await services.aclose()


def test_hosted_admission_refuses_with_the_reason_while_redis_is_down_then_reconnects(
    made: Instances, redis_server: RedisServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    settings = Settings(space_id="o/s", redis_url=redis_server.url, cache_dir=tmp_path)
    services = made.services(settings, clock)
    budget = SpaceBudget(settings, services.quotas, clock=clock)
    first = budget.admit("ip:203.0.113.7", OWNER_PAID)
    assert not isinstance(first, str)
    budget.release(first, tokens_used=0)
    redis_server.stop()
    with caplog.at_level(logging.INFO, logger="agent_core.shared_state"):
        assert budget.admit("ip:203.0.113.7", OWNER_PAID) == refusal("en")
        assert budget.admit("ip:203.0.113.7", OWNER_PAID, lang="zh") == refusal("zh")
        redis_server.start()
        assert budget.admit("ip:203.0.113.7", OWNER_PAID) == refusal("en")  # skipped until the pause is over
        clock.advance(5.0)
        second = budget.admit("ip:203.0.113.7", OWNER_PAID)
    assert not isinstance(second, str), second
    changes = [r.levelname for r in caplog.records if r.name == "agent_core.shared_state.health"]
    assert changes == ["WARNING", "INFO"]  # one line per change of state, none per refused call
    # The restarted server saved nothing (--save ""): it knows only the run admitted after it came back.
    assert budget.runs.remaining("ip:203.0.113.7") == settings.runs_per_hour - 1


def test_local_mode_has_no_budgets_to_fail_so_it_serves_while_redis_is_down(
    made: Instances, redis_server: RedisServer, tmp_path: Path
) -> None:
    clock = FakeClock()
    settings = Settings(redis_url=redis_server.url, cache_dir=tmp_path)
    services = made.services(settings, clock)
    redis_server.stop()
    budget = SpaceBudget(settings, services.quotas, clock=clock)
    assert not isinstance(budget.admit("ip:127.0.0.1", OWNER_PAID), str)
    open_quota = SharedQuota(made.shared(redis_server, clock), "local", 2, clock=clock, fail_closed=False)
    assert open_quota.take(2) and not open_quota.take(1)  # counted in this process meanwhile


async def test_the_cache_skips_a_dead_redis_and_probes_it_itself_so_hishel_logs_one_failure(
    made: Instances, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    services = made.services(Settings(redis_url=redis_server.url, cache_dir=None), clock)  # type: ignore[arg-type]
    assert services.shared is not None
    storage = services.github_http.storage
    assert storage is not None
    assert await storage.get_entries("k") == []
    redis_server.stop()
    with caplog.at_level(logging.INFO):
        for _ in range(3):  # the first fails (hishel logs it), the others skip Redis
            assert await storage.get_entries("k") == []
        clock.advance(5.0)
        assert await storage.get_entries("k") == []  # the probe (our PING) fails: hishel is not asked
        redis_server.start()
        clock.advance(5.0)
        assert await storage.get_entries("k") == []
    assert services.shared.health.up
    assert len([r for r in caplog.records if r.name.startswith("hishel")]) == 1
    await services.aclose()


# -- garbage under our keys ---------------------------------------------------------------------------------


def test_foreign_values_under_our_keys_are_treated_as_absent(
    made: Instances, redis_server: RedisServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    state = made.shared(redis_server, clock)
    state.sync.set(f"{KEY_PREFIX}quota:space-runs", "not a sorted set")
    state.sync.set(f"{KEY_PREFIX}quota:space-github:total", "NaN-ish")  # a string, not a number: recounted
    state.sync.zadd(f"{KEY_PREFIX}budget:runs", {"ip:198.51.100.1": clock.wall()})  # the visitor table
    state.sync.hset(f"{KEY_PREFIX}budget:runs:ip:203.0.113.7", "x", "y")
    state.sync.set(f"{KEY_PREFIX}ratelimit:anonymous:core", b"\xff{not json")
    state.sync.set(f"{KEY_PREFIX}scope-secret", "short")
    state.sync.zadd(f"{KEY_PREFIX}http:idx:whatever", {"not-a-uuid": 1e12})
    settings = Settings(space_id="o/s", redis_url=redis_server.url, cache_dir=tmp_path)
    services = made.services(settings, clock)
    budget = SpaceBudget(settings, services.quotas, clock=clock)
    with caplog.at_level(logging.WARNING, logger="agent_core.shared_state"):
        assert not isinstance(budget.admit("ip:203.0.113.7", OWNER_PAID), str)
        http = services.github_http
        assert http.rate_limit(None) is None
        assert len(state.sync.get(f"{KEY_PREFIX}scope-secret") or b"") == 32
        assert state.health.up
    assert sum("unreadable value" in r.getMessage() for r in caplog.records) >= 3
    # Only the key of the wrong type was dropped: the visitor table (the right type) kept its entry.
    assert state.sync.zscore(f"{KEY_PREFIX}budget:runs", "ip:198.51.100.1") is not None
    assert services.quotas is not None and services.quotas.github.take(1)


async def test_a_garbage_cache_entry_is_a_miss(made: Instances, redis_server: RedisServer) -> None:
    clock = FakeClock()
    services = made.services(Settings(redis_url=redis_server.url, cache_dir=None), clock)  # type: ignore[arg-type]
    storage = services.github_http.storage
    assert storage is not None
    key = "k"
    services.shared.sync.zadd(f"{KEY_PREFIX}http:idx:{key}", {"not-a-uuid": 1e12})  # type: ignore[union-attr]
    assert await storage.get_entries(key) == []
    services.shared.sync.set(f"{KEY_PREFIX}http:idx:{key}", "a string where hishel keeps a sorted set")  # type: ignore[union-attr]
    assert await storage.get_entries(key) == []
    assert services.shared.sync.exists(f"{KEY_PREFIX}http:idx:{key}") == 0  # type: ignore[union-attr]
    await services.aclose()


# -- REDIS_URL unset: today's behaviour -----------------------------------------------------------------


async def test_without_redis_url_nothing_is_shared(tmp_path: Path) -> None:
    services = Services(Settings(cache_dir=tmp_path))
    assert services.shared is None
    assert type(services.github_http.storage).__name__ == "AsyncSqliteStorage"
    assert (tmp_path / "scope-secret").is_file()
    await services.aclose()


def test_redis_url_is_checked_and_never_shown() -> None:
    settings = Settings.from_env({"REDIS_URL": "redis://:hunter2@127.0.0.1:6379/0"}, dotenv_path=None)
    assert settings.redis_url == "redis://:hunter2@127.0.0.1:6379/0"
    assert "hunter2" not in repr(settings)
    with pytest.raises(Exception, match="REDIS_URL"):
        Settings.from_env({"REDIS_URL": "http://127.0.0.1"}, dotenv_path=None)


# -- where the package sits ---------------------------------------------------------------------------------


def test_the_shared_state_sits_under_the_top_floor() -> None:
    """It plugs into the seams below (the ground floor, resilience's quota, github's HTTP values) and only
    the top floor and the page build it: nothing below the top floor imports it."""
    from tests.test_layering import GROUND, imports, module_name, offenders, python_files

    allowed = GROUND | {
        "agent_core.resilience.quota",
        "agent_core.github.http",
        "agent_core.github.ratelimit",
    }
    found = [
        f"{module_name(p)} imports {n}"
        for p in python_files("agent_core/shared_state")
        for n in imports(p)
        if n.startswith("agent_core.") and not n.startswith("agent_core.shared_state") and n not in allowed
    ]
    assert found == []
    below = ("agent_core/agent", "agent_core/report", "agent_core/tools", "agent_core/sources")
    below += ("agent_core/github", "agent_core/llm", "agent_core/resilience", "agent_core/repomodel")
    assert offenders(below, ("agent_core.shared_state",)) == []
