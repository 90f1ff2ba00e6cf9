"""The replicas bench section: skipped with the reason when a Debian package is missing, and its verdicts.

The section itself starts five app processes (``python -m bench --only replicas``); these tests hold what
can be held without them: the skip, and how measured bursts become the table's figures and targets.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import replicas
from bench.config import BenchConfig
from bench.replicas import HOSTED_RUNS_PER_HOUR, Burst, measure, section


def test_skipped_with_the_reason_when_redis_or_nginx_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing installed
    result = measure(BenchConfig().quickened(), tmp_path / "work")
    assert result.skipped == "redis-server is not installed"
    assert result.metrics == []
    assert not (tmp_path / "work").exists()  # nothing was started or written


def _burst(latencies: list[float], wall: float, cpu: float) -> Burst:
    return Burst(
        sessions=len(latencies),
        latencies=latencies,
        failures=[],
        wall=wall,
        cpu=cpu,
        bench_cpu=1.0,
        waited=0.5,
        spread={"1": len(latencies)},
    )


def test_targets_read_from_the_measured_bursts() -> None:
    config = BenchConfig(sessions=4, runs=1)
    result = section(
        config,
        alone={"1": 2.0, "2": 2.0},
        bursts={
            "1": [_burst([2.0, 4.0, 6.0, 8.0], wall=8.0, cpu=2.0)],
            "2": [_burst([2.0, 2.5, 3.0, 3.0], 4.0, 2.0)],
        },
        budget=(HOSTED_RUNS_PER_HOUR, ["acme/budget-04: refused", "acme/budget-05: refused"]),
        warm=(10, 0),
        loads=["1.0 1.0 1.0"],
    )
    metrics = {m.name: m for m in result.metrics}
    speedup = metrics["analyses per minute, 2 replicas / 1"]
    assert speedup.value == 2.0  # 4 in 4 s against 4 in 8 s
    assert speedup.met is True
    ratio = metrics["2 replicas: p95 / single"]
    assert ratio.value == 1.5 and ratio.met is True  # p95 of [2, 2.5, 3, 3] is 3.0
    assert metrics["1 replica: p95 / single"].met is None  # no target for one replica
    assert metrics["2 replicas: app CPU per analysis"].value == 0.5
    assert metrics[f"a visitor's runs across 2 replicas (RUNS_PER_HOUR={HOSTED_RUNS_PER_HOUR})"].met is True
    assert metrics["warm re-analysis: counted requests on replica 2 after 1"].met is True

    worse = section(
        config,
        alone={"1": 2.0, "2": 2.0},
        bursts={"1": [_burst([4.0] * 4, 4.0, 2.0)], "2": [_burst([4.0] * 4, 4.0, 2.0)]},
        budget=(2 * HOSTED_RUNS_PER_HOUR, []),
        warm=(10, 10),
        loads=["1.0 1.0 1.0"],
    )
    verdicts = {m.name: m.met for m in worse.metrics if m.met is not None}
    assert verdicts and not any(verdicts.values()), verdicts


def test_the_least_ratio_is_the_bursts_cpu_over_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """No scheduling can finish 95% of the sessions before 95% of the burst's CPU seconds have run on
    the machine's cores: 2 bursts of 3 s (replicas) + 1 s (this process) on 2 cores, single 0.5 s."""
    monkeypatch.setattr(replicas.os, "cpu_count", lambda: 2)
    bursts = [_burst([1.0] * 4, wall=3.0, cpu=3.0), _burst([1.0] * 4, wall=2.5, cpu=3.0)]
    assert replicas.least_ratio(bursts, 0.5) == pytest.approx(0.95 * 4.0 / 2 / 0.5)
    monkeypatch.setattr(replicas.os, "cpu_count", lambda: 8)
    assert replicas.least_ratio(bursts, 0.5) == pytest.approx(0.95 * 4.0 / 8 / 0.5)


def test_a_process_has_a_run_queue_wait_and_the_notes_give_it() -> None:
    assert replicas.run_queue_wait(os.getpid()) >= 0.0
    config = BenchConfig(sessions=4, runs=1)
    result = section(
        config,
        alone={"1": 2.0, "2": 2.0},
        bursts={"1": [_burst([2.0], wall=2.0, cpu=1.0)], "2": [_burst([2.0], wall=2.0, cpu=1.0)]},
        budget=(3, []),
        warm=(10, 0),
        loads=["0.1 0.1 0.1"],
    )
    assert any("0.5 waiting | 1.0 running" in note for note in result.notes)
