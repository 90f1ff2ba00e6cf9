"""Replaying a recorded run with its original timing: a demo that cannot fail.

A recording is the JSON Lines trace the core writes (:func:`agent_core.events.dump_events`); every event
carries ``t``, seconds since its run started. :func:`replay` yields the same events, waiting between
them as long as the original run did (divided by ``speed``), except that a long pause (a model
thinking for 20 s) is cut to ``max_gap`` seconds so a demo never stalls.

Bundled recordings live in ``recordings/`` at the top of the checkout (made by
``scripts/record_demos.py`` from real runs against the test emulators); :func:`bundled_recordings`
lists them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from agent_core.clock import Clock, SystemClock
from agent_core.errors import UserInputError
from agent_core.events import Event, event_from_dict
from agent_core.grammar import grammar_errors

DEFAULT_MAX_GAP = 2.0
RECORDINGS_DIR = Path(__file__).resolve().parents[2] / "recordings"
MAX_UPLOAD_BYTES = 20 * 1024 * 1024


async def replay(
    events: Sequence[Event],
    *,
    speed: float = 1.0,
    clock: Clock | None = None,
    max_gap: float = DEFAULT_MAX_GAP,
) -> AsyncIterator[Event]:
    """Yield ``events`` in order, spaced like the original run (``t`` deltas / ``speed``, each gap
    capped at ``max_gap`` seconds of replay time). Out-of-order ``t`` values never wait backwards."""
    if speed <= 0:
        raise ValueError(f"speed must be > 0, got {speed}")
    clock = clock or SystemClock()
    previous: float | None = None
    for event in events:
        if previous is not None:
            gap = min(max(0.0, event.t - previous) / speed, max_gap)
            if gap > 0:
                await clock.sleep(gap)
        previous = event.t if previous is None else max(previous, event.t)
        yield event


def parse_recording(text: str) -> list[Event]:
    """Events from JSON Lines text; a clear :class:`UserInputError` for a file that is not a trace."""
    events: list[Event] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            events.append(event_from_dict(json.loads(line)))
        except (ValueError, TypeError, AttributeError) as exc:
            raise UserInputError(
                f"line {number} is not a repo-analyst event ({type(exc).__name__})",
                hint="upload a trace .jsonl exported by this app or written by dump_events",
            ) from exc
    if not events:
        raise UserInputError("the file holds no events")
    errors = grammar_errors(events, complete=False)  # a trace exported after Stop has no end
    if errors:
        raise UserInputError(
            f"the trace breaks the event grammar: {errors[0]}",
            hint="upload a complete trace .jsonl exported by this app or written by dump_events",
        )
    return events


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
