"""Replaying a recorded run with its original timing: a demo that cannot fail.

A recording is the JSON Lines trace the core writes (:func:`agent_core.event_json.dump_events`); every event
carries ``t``, seconds since its run started. :func:`replay` yields the same events, waiting between
them as long as the original run did (divided by ``speed``), except that a long pause (a model
thinking for 20 s) is cut to ``max_gap`` seconds so a demo never stalls.

Bundled recordings live in ``recordings/`` at the top of the checkout (made by
``scripts/record_demos.py`` from real runs against the test emulators); :func:`bundled_recordings`
lists them.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from agent_core.clock import Clock, SystemClock
from agent_core.errors import UserInputError
from agent_core.event_json import event_from_dict
from agent_core.events import Event, Notice, ToolCallStarted
from agent_core.grammar import grammar_errors

DEFAULT_MAX_GAP = 2.0
MAX_EVENTS_PER_SECOND = 1_000  # a real run streams a few hundred a second at most, even at speed 8
TICK = 0.2  # seconds: the replay waits at most once a tick, so each frame gathers a tick's events
RECORDINGS_DIR = Path(__file__).resolve().parents[2] / "recordings"
MAX_UPLOAD_BYTES = 2 * 1024 * 1024  # a long real run's trace is a few hundred KB


async def replay(
    events: Sequence[Event],
    *,
    speed: float = 1.0,
    clock: Clock | None = None,
    max_gap: float = DEFAULT_MAX_GAP,
) -> AsyncIterator[Event]:
    """Yield ``events`` in order, spaced like the original run (``t`` deltas / ``speed``, each gap
    capped at ``max_gap`` seconds of replay time), to within :data:`TICK`. Out-of-order ``t`` values
    never wait backwards.

    A replay's cost is its frames (each one re-sends the whole trace through Gradio) and the events in
    them, so both are bounded whatever the ``t`` values say: the replay waits at most once a
    :data:`TICK` (between two waits nothing else runs, so the page makes at most one frame a tick, not
    one per step of a forged trace whose steps are a millisecond apart), and at most
    :data:`MAX_EVENTS_PER_SECOND` events a second (a forged trace whose 20,000 events share one ``t`` was yielded without a wait,
    holding the event loop for the whole burst and piling it into one frame)."""
    if speed <= 0:
        raise ValueError(f"speed must be > 0, got {speed}")
    clock = clock or SystemClock()
    start = clock.monotonic()
    per_tick = max(1, int(MAX_EVENTS_PER_SECOND * TICK))
    previous: float | None = None
    due = 0.0  # when the next event is due, in seconds since the start
    woke = 0.0  # when the replay last waited
    for number, event in enumerate(events):
        if previous is not None:
            due += min(max(0.0, event.t - previous) / speed, max_gap)
        due = max(due, number // per_tick * TICK)  # the rate cap, in whole ticks
        if due > clock.monotonic() - start:
            woke = max(due, woke + TICK)
            await clock.sleep(woke - (clock.monotonic() - start))
        previous = event.t if previous is None else max(previous, event.t)
        yield event


MAX_EVENTS = 20_000  # a long model run streams a few thousand deltas
MAX_TOOL_CALLS = 500  # every one is a trace item that every frame shows again
MAX_FIELD_CHARS = 256 * 1024  # one text field (a report, a preview)
MAX_NESTING = 12  # dicts and lists inside one event (tool arguments)


REPLAY_CPU_SECONDS = 15.0  # of the server's CPU per replay (a replay is a demo: seconds, not minutes)


class CpuMeter:
    """CPU seconds of this thread spent inside ``with meter:`` blocks, against a limit.

    The replay handler renders each frame inside one (synchronous code: no other task runs meanwhile, so
    the thread's CPU time between entry and exit is the frame's own), and holds one across each yield
    of a frame to Gradio (its serialisation of the frame, and whatever else the loop runs meanwhile). Over the limit, the stream folds
    :meth:`ending` into the trace and marks it stopped: a finished trace, settled like any other."""

    def __init__(self, limit: float, *, message: str = "") -> None:
        self.limit = limit
        self.message = message  # what the page says when the meter stops a run (a notice, see :meth:`ending`)
        self.used = 0.0
        self._entered = 0.0

    @property
    def exceeded(self) -> bool:
        return self.used > self.limit

    def __enter__(self) -> CpuMeter:
        self._entered = time.thread_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.used += time.thread_time() - self._entered

    def ending(self, at: float) -> Notice:
        """The event that tells the page why the run ended here (the stream then marks it stopped)."""
        return Notice(t=at, level="warning", message=self.message)


def parse_recording(text: str) -> list[Event]:
    """Events from JSON Lines text; a clear :class:`UserInputError` for a file that is not a trace.

    An uploaded trace is untrusted: its shape is checked before any event is built or rendered — at
    most :data:`MAX_EVENTS` events and :data:`MAX_TOOL_CALLS` tool calls, every text field at most
    :data:`MAX_FIELD_CHARS` characters, nesting at most :data:`MAX_NESTING` deep — then the events
    against the grammar (:mod:`agent_core.grammar`). Each check is linear in the file."""
    events: list[Event] = []
    calls = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(events) >= MAX_EVENTS:
            raise UserInputError(f"the trace holds more than {MAX_EVENTS:,} events")
        try:
            value = json.loads(line)
            _check_shape(value, number)
            events.append(event_from_dict(value))
        except (ValueError, TypeError, AttributeError, RecursionError) as exc:
            if isinstance(exc, UserInputError):
                raise
            raise UserInputError(
                f"line {number} is not a repo-analyst event ({type(exc).__name__})",
                hint="upload a trace .jsonl exported by this app or written by dump_events",
            ) from exc
        if isinstance(events[-1], ToolCallStarted):
            calls += 1
            if calls > MAX_TOOL_CALLS:
                raise UserInputError(f"the trace holds more than {MAX_TOOL_CALLS:,} tool calls")
    if not events:
        raise UserInputError("the file holds no events")
    errors = grammar_errors(events, complete=False)  # a trace exported after Stop has no end
    if errors:
        raise UserInputError(
            f"the trace breaks the event grammar: {errors[0]}",
            hint="upload a complete trace .jsonl exported by this app or written by dump_events",
        )
    return events


def _check_shape(value: object, number: int) -> None:
    """Refuse an event whose text fields or nesting are over the limits (see :func:`parse_recording`)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if len(item) > MAX_FIELD_CHARS:
                raise UserInputError(
                    f"line {number} has a text of {len(item):,} characters (at most {MAX_FIELD_CHARS:,})"
                )
            continue
        children = item.items() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > MAX_NESTING:
            raise UserInputError(f"line {number} is nested more than {MAX_NESTING} deep")
        for child in children:
            if isinstance(child, tuple):  # a dict's (key, value)
                stack.extend((part, depth + 1) for part in child)
            else:
                stack.append((child, depth + 1))


def load_recording(path: Path) -> list[Event]:
    """A recording from disk (bundled or uploaded); refuses files over ``MAX_UPLOAD_BYTES``."""
    if path.stat().st_size > MAX_UPLOAD_BYTES:
        raise UserInputError(f"the trace is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UserInputError("the trace is not UTF-8 text") from exc
    return parse_recording(text)


def bundled_recordings(folder: Path = RECORDINGS_DIR) -> dict[str, Path]:
    """Recording name (file stem) -> path, sorted by name; empty when the folder is missing."""
    if not folder.is_dir():
        return {}
    return {path.stem: path for path in sorted(folder.glob("*.jsonl"))}
