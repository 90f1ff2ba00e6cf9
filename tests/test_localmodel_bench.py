"""bench/localmodel.py reads time from a run's events: the first token of the first model turn (not the
prefetch's), the first word of the report's turn, the diagram step's span, the longest silence."""

from __future__ import annotations

from agent_core import events as ev
from bench.localmodel import Timing


def test_the_times_of_a_run_are_read_from_its_events() -> None:
    events: list[ev.Event] = [
        ev.RunStarted(t=0.0, run_id="r", targets=("o/r",), question="", model="local", mode="model"),
        ev.TurnStarted(t=0.0, turn=1, purpose="prefetch"),
        ev.ReasoningDelta(t=0.1, turn=1, text="Gathering the basics"),
        ev.TurnFinished(t=0.2, turn=1, tool_calls=3),
        ev.TurnStarted(t=1.0, turn=2),
        ev.TurnProgress(t=11.0, turn=2, done=500, total=2000),
        ev.TextDelta(t=40.0, turn=2, text='{"name": "read_file"'),
        ev.TurnFinished(t=41.0, turn=2, tool_calls=0, first_token_s=39.0),
        ev.ToolCallStarted(t=41.0, call_id="c", tool="read_file", arguments={}, turn=2),
        ev.ToolCallFinished(
            t=41.5, call_id="c", tool="read_file", turn=2, ok=True, preview="", duration_s=0.5
        ),
        ev.TurnStarted(t=41.5, turn=3),
        ev.TextDelta(t=95.5, turn=3, text="# o/r"),
        ev.TurnFinished(t=120.0, turn=3, tool_calls=0, first_token_s=54.0),
        ev.Notice(t=120.5, level="info", message="Asking the model for the architecture diagram of o/r"),
        ev.DiagramDrawn(t=126.0, repo="o/r", source="model"),
        ev.RunFinished(t=127.0, report="# o/r", degraded=False),
    ]
    timing = Timing.of(events)
    assert timing.first_token == 40.0  # turn 2 started at 1.0, its first token 39 s later
    assert timing.report_word == 95.5  # the last turn that answered in text is the report's
    assert timing.diagram_s == 6.0  # from the report turn's end to the diagram
    assert timing.silence == 54.0  # 41.5 -> 95.5: the report turn read its prompt in silence
    assert timing.wall == 127.0
    assert timing.draft_word == 95.5  # no revision: the draft is the report


def test_a_revised_reports_first_draft_is_timed_apart() -> None:
    events: list[ev.Event] = [
        ev.RunStarted(t=0.0, run_id="r", targets=("o/r",), question="", model="local", mode="model"),
        ev.TurnStarted(t=1.0, turn=2),
        ev.TextDelta(t=50.0, turn=2, text="# o/r"),
        ev.TurnFinished(t=80.0, turn=2, tool_calls=0, first_token_s=49.0),
        ev.DraftReviewed(t=80.0, turn=2, outcome="revise"),
        ev.TurnStarted(t=80.0, turn=3),
        ev.TextDelta(t=82.0, turn=3, text="# o/r"),
        ev.TurnFinished(t=120.0, turn=3, tool_calls=0, first_token_s=2.0),
        ev.DraftReviewed(t=120.0, turn=3, outcome="accepted"),
        ev.RunFinished(t=121.0, report="# o/r", degraded=False, writer="model"),
    ]
    timing = Timing.of(events)
    assert (timing.draft_word, timing.report_word) == (50.0, 82.0)
