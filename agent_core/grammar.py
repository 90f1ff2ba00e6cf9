"""The grammar of an event stream, checked: what :mod:`agent_core.events` promises every consumer.

::

    stream   := run+                         (a follow-up is another run in the same stream)
    run      := run_failed                   (bad input: nothing was started)
              | run_started body* end
    body     := turn | tool_call | side
    turn     := turn_started(n) (reasoning_delta(n) | text_delta(n) | side)* turn_finished(n)
    tool_call:= tool_call_started(id) ... tool_retry(id)* ... tool_call_finished(id)
                (outside any open turn; the calls of one turn may interleave)
    side     := breaker_changed | rate_limit | notice | diagram  (anywhere inside a run; a diagram
                outside any open turn)
    end      := run_finished | run_failed    (no turn open, no tool call unfinished)

Turn numbers only grow within a stream; a call id starts once and finishes once. :func:`grammar_errors`
lists every violation (empty when the stream is well formed); :func:`check_grammar` raises
:class:`GrammarError` with them. The tests check every run they make, and replay checks every
recording it loads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from agent_core import events as ev


class GrammarError(ValueError):
    """An event stream that breaks the grammar; ``errors`` says where and how."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__(
            "; ".join(errors[:5]) + (f" (and {len(errors) - 5} more)" if len(errors) > 5 else "")
        )
        self.errors = errors


@dataclass
class _State:
    in_run: bool = False
    open_turn: int | None = None
    last_turn: int = 0
    open_calls: set[str] = field(default_factory=set)
    seen_calls: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)

    def error(self, index: int, event: ev.Event, problem: str) -> None:
        self.errors.append(f"event {index} ({event.kind}): {problem}")


def grammar_errors(events: Iterable[ev.Event], *, complete: bool = True) -> list[str]:
    """Every way ``events`` breaks the grammar of the module docstring; [] when it does not.

    ``complete=False`` accepts a stream that stops inside a run (a trace exported after Stop, or cut):
    every prefix of a well-formed stream passes."""
    state = _State()
    index = -1
    for index, event in enumerate(events):
        _step(state, index, event)
    if state.in_run and complete:
        state.errors.append(
            f"the stream ended inside a run (after event {index}): no run_finished or run_failed"
        )
    return state.errors


def check_grammar(events: Iterable[ev.Event]) -> None:
    """Raise :class:`GrammarError` unless ``events`` is well formed."""
    errors = grammar_errors(events)
    if errors:
        raise GrammarError(errors)


def _step(state: _State, index: int, event: ev.Event) -> None:
    if isinstance(event, ev.RunStarted):
        if state.in_run:
            state.error(index, event, "a run started before the previous one ended")
        state.in_run = True
        return
    if not state.in_run:
        if not isinstance(event, ev.RunFailed):
            state.error(index, event, "outside a run (expected run_started first)")
        return
    if isinstance(event, ev.TurnStarted | ev.ReasoningDelta | ev.TextDelta | ev.TurnFinished):
        _turn(state, index, event)
    elif isinstance(event, ev.ToolCallStarted | ev.ToolRetry | ev.ToolCallFinished):
        _call(state, index, event)
    elif isinstance(event, ev.DiagramDrawn) and state.open_turn is not None:
        state.error(index, event, f"a diagram inside open turn {state.open_turn}")
    elif isinstance(event, ev.RunFinished | ev.RunFailed):
        if state.open_turn is not None:
            state.error(index, event, f"the run ended while turn {state.open_turn} was open")
        if state.open_calls:
            state.error(index, event, f"the run ended with unfinished tool calls {sorted(state.open_calls)}")
        state.in_run, state.open_turn, state.open_calls = False, None, set()


def _turn(
    state: _State, index: int, event: ev.TurnStarted | ev.ReasoningDelta | ev.TextDelta | ev.TurnFinished
) -> None:
    if isinstance(event, ev.TurnStarted):
        if state.open_turn is not None:
            state.error(index, event, f"turn {event.turn} started while turn {state.open_turn} was open")
        if event.turn <= state.last_turn:
            state.error(index, event, f"turn {event.turn} does not follow turn {state.last_turn}")
        if state.open_calls:
            state.error(index, event, f"turn {event.turn} started with tool calls unfinished")
        state.open_turn, state.last_turn = event.turn, max(state.last_turn, event.turn)
        return
    if state.open_turn != event.turn:
        where = f"turn {state.open_turn} is open" if state.open_turn is not None else "no turn is open"
        state.error(index, event, f"for turn {event.turn}, but {where}")
    if isinstance(event, ev.TurnFinished):
        state.open_turn = None


def _call(state: _State, index: int, event: ev.ToolCallStarted | ev.ToolRetry | ev.ToolCallFinished) -> None:
    call = event.call_id
    if isinstance(event, ev.ToolCallStarted):
        if state.open_turn is not None:
            state.error(index, event, f"tool call {call!r} started inside open turn {state.open_turn}")
        if call in state.seen_calls:
            state.error(index, event, f"tool call {call!r} started twice")
        state.seen_calls.add(call)
        state.open_calls.add(call)
        return
    if call not in state.open_calls:
        state.error(index, event, f"tool call {call!r} is not running")
    if isinstance(event, ev.ToolCallFinished):
        state.open_calls.discard(call)
