"""Replay: original timing on a fake clock, speed, capped pauses, parsing, the bundled recordings."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.errors import UserInputError
from agent_core.event_json import dump_events
from agent_core.web.render import TraceView
from agent_core.web.replay import bundled_recordings, load_recording, parse_recording, replay
from testing.clock import FakeClock


def _run(*times: float) -> list[ev.Event]:
    return [ev.Notice(t=t, level="info", message=f"at {t}") for t in times]


async def _collect(
    events: list[ev.Event], clock: FakeClock, **options: float
) -> list[tuple[float, ev.Event]]:
    start = clock.monotonic()
    return [(round(clock.monotonic() - start, 6), e) async for e in replay(events, clock=clock, **options)]


async def test_events_keep_their_relative_timing() -> None:
    clock = FakeClock()
    events = _run(0.0, 0.5, 0.5, 1.75)
    seen = await _collect(events, clock)
    assert [e for _, e in seen] == events
    assert [at for at, _ in seen] == [0.0, 0.5, 0.5, 1.75]
    assert clock.sleeps == [0.5, 1.25]  # no sleep for a zero gap


async def test_speed_divides_the_gaps() -> None:
    clock = FakeClock()
    seen = await _collect(_run(0.0, 1.0, 3.0), clock, speed=4.0)
    assert [at for at, _ in seen] == [0.0, 0.25, 0.75]


async def test_long_pauses_are_capped() -> None:
    clock = FakeClock()
    seen = await _collect(_run(0.0, 30.0, 30.5), clock, max_gap=2.0)
    assert [at for at, _ in seen] == [0.0, 2.0, 2.5]


async def test_out_of_order_times_never_wait_backwards() -> None:
    clock = FakeClock()
    seen = await _collect(_run(1.0, 0.2, 1.5), clock)
    assert [at for at, _ in seen] == [0.0, 0.0, 0.5]


async def test_a_burst_of_events_with_one_time_is_paced() -> None:
    """A forged trace of 2,000 events at one ``t`` was yielded without a wait: the replay held the event
    loop for the whole burst. Now it takes 2,000 / MAX_EVENTS_PER_SECOND seconds, waiting once a tick."""
    from agent_core.web.replay import MAX_EVENTS_PER_SECOND, TICK

    clock = FakeClock()
    seen = await _collect(_run(*[0.0] * 2_000), clock, speed=8.0)
    assert len(seen) == 2_000
    assert seen[-1][0] >= 2_000 / MAX_EVENTS_PER_SECOND - TICK
    assert len(clock.sleeps) <= 2_000 / MAX_EVENTS_PER_SECOND / TICK + 1


async def test_steps_a_millisecond_apart_wait_once_a_tick() -> None:
    """Each wait lets the page make a frame, and each frame re-sends the whole trace: a forged trace
    whose steps are a millisecond apart made one frame per step. Now one wait (one frame) per tick,
    each event still no earlier than recorded and at most a tick late."""
    from agent_core.web.replay import TICK

    clock = FakeClock()
    times = [i * 0.002 for i in range(500)]  # one second of steps
    seen = await _collect(_run(*times), clock)
    assert len(clock.sleeps) <= 1 / TICK + 1
    assert all(
        recorded - 1e-9 <= at <= recorded + TICK for (at, _), recorded in zip(seen, times, strict=True)
    )


async def test_speed_must_be_positive() -> None:
    with pytest.raises(ValueError, match="speed"):
        async for _ in replay(_run(0.0), speed=0):
            pass


def test_parse_recording_round_trips_dump_events(tmp_path: Path) -> None:
    events: list[ev.Event] = [
        ev.RunStarted(t=0, run_id="r", targets=("o/r",), question="q", model="m", mode="model"),
        ev.ToolCallStarted(t=0.1, call_id="c1", tool="read_file", arguments={"path": "README.md"}, turn=1),
        ev.ToolCallFinished(
            t=0.2, call_id="c1", tool="read_file", turn=1, ok=True, preview="{}", duration_s=0.1
        ),
        ev.RunFinished(t=1.0, report="# R", degraded=False, stats=ev.RunStats(turns=1)),
    ]
    path = tmp_path / "run.jsonl"
    dump_events(events, path)
    assert load_recording(path) == events


def test_bad_files_give_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="line 2 is not a repo-analyst event"):
        parse_recording('{"kind":"notice","t":0,"level":"info","message":"x"}\n{"kind":"nope"}\n')
    with pytest.raises(UserInputError, match="no events"):
        parse_recording("\n\n")
    binary = tmp_path / "x.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(UserInputError, match="UTF-8"):
        load_recording(binary)


def test_bundled_recordings_are_complete_runs() -> None:
    recordings = bundled_recordings()
    assert 2 <= len(recordings) <= 4, recordings
    kinds_seen: set[str] = set()
    for name, path in recordings.items():
        events = load_recording(path)
        assert isinstance(events[0], ev.RunStarted), name
        assert isinstance(events[-1], ev.RunFinished), name
        view = TraceView()
        for event in events:
            view.apply(event)
        assert view.finished, name
        assert view.report.text(), name
        assert not any(m.get("metadata", {}).get("status") == "pending" for m in view.messages()), name
        kinds_seen |= {e.kind for e in events}
    # Together they show the machinery: retries, a breaker opening and closing again, rate limits.
    assert {"tool_retry", "breaker_changed", "rate_limit", "reasoning_delta"} <= kinds_seen


def test_empty_folder_has_no_recordings(tmp_path: Path) -> None:
    assert bundled_recordings(tmp_path / "missing") == {}
