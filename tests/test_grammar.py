"""The event grammar: the checker itself, every bundled recording, and every run the suite makes
(``testing.analysis.Run.ask`` and the fault suite's ``observe`` check each one)."""

from __future__ import annotations

import pytest

from agent_core import events as ev
from agent_core.errors import UserInputError
from agent_core.grammar import GrammarError, check_grammar, grammar_errors
from agent_core.web.replay import RECORDINGS_DIR, bundled_recordings, load_recording, parse_recording

START = ev.RunStarted(t=0.0, run_id="r", targets=("o/r",), question="", model="m", mode="model")
END = ev.RunFinished(t=1.0, report="# r", degraded=False)


def turn(n: int, *inside: ev.Event, calls: int = 0) -> list[ev.Event]:
    return [ev.TurnStarted(t=0.1, turn=n), *inside, ev.TurnFinished(t=0.2, turn=n, tool_calls=calls)]


def call(call_id: str, *, turn_no: int = 1, retries: int = 0) -> list[ev.Event]:
    started = ev.ToolCallStarted(t=0.3, call_id=call_id, tool="read_file", arguments={}, turn=turn_no)
    retried = [
        ev.ToolRetry(t=0.3, call_id=call_id, tool="read_file", attempt=i + 1, delay_s=0.1, reason="x")
        for i in range(retries)
    ]
    done = ev.ToolCallFinished(
        t=0.4, call_id=call_id, tool="read_file", turn=turn_no, ok=True, preview="{}", duration_s=0.1
    )
    return [started, *retried, done]


def test_a_well_formed_run_with_interleaved_calls_and_a_follow_up_passes() -> None:
    a, b = call("a", retries=1), call("b")
    first = [
        START,
        *turn(1, ev.ReasoningDelta(t=0.1, turn=1, text="t"), calls=2),
        a[0],
        b[0],
        a[1],
        b[1],
        a[2],
    ]
    second = [*turn(2, ev.TextDelta(t=0.5, turn=2, text="# r")), END]
    follow_up = [START, *turn(3, ev.TextDelta(t=0.1, turn=3, text="more")), END]
    check_grammar([*first, *second, *follow_up])
    check_grammar([ev.RunFailed(t=0.0, message="bad input")])


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ([START, *turn(1), END, ev.TextDelta(t=1.0, turn=1, text="late")], "outside a run"),
        ([START, *turn(1), ev.TextDelta(t=1.0, turn=1, text="after"), END], "no turn is open"),
        (
            [
                START,
                ev.TurnStarted(t=0, turn=1),
                ev.TextDelta(t=0, turn=2, text="x"),
                ev.TurnFinished(t=0, turn=1, tool_calls=0),
                END,
            ],
            "turn 1 is open",
        ),
        ([START, *turn(2), *turn(1), END], "does not follow"),
        ([START, *turn(1), *call("a")[:1], END], "unfinished tool calls"),
        ([START, *turn(1), *call("a"), *call("a"), END], "started twice"),
        ([START, *turn(1), call("a")[1], END], "is not running"),
        (
            [START, ev.TurnStarted(t=0, turn=1), *call("a"), ev.TurnFinished(t=0, turn=1, tool_calls=1), END],
            "inside open turn",
        ),
        ([START, *turn(1)], "ended inside a run"),
        ([START, START, END], "before the previous one ended"),
    ],
)
def test_each_broken_rule_is_named(events: list[ev.Event], problem: str) -> None:
    errors = grammar_errors(events)
    assert any(problem in e for e in errors), errors
    with pytest.raises(GrammarError):
        check_grammar(events)


def test_every_bundled_recording_keeps_the_grammar() -> None:
    recordings = bundled_recordings()
    assert len(recordings) >= 3
    for path in recordings.values():
        check_grammar(load_recording(path))


def test_replay_takes_a_stopped_trace_but_refuses_one_that_breaks_the_grammar() -> None:
    lines = (RECORDINGS_DIR / "planner-wordstats.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(parse_recording("\n".join(lines[:-1]))) == len(lines) - 1  # stopped before its end
    swapped = "\n".join([lines[0], *lines[2:3], lines[1], *lines[3:]])  # a delta before its turn started
    with pytest.raises(UserInputError, match="event grammar"):
        parse_recording(swapped)
