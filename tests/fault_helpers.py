"""The fault suite's parts: a seeded fault scenario, a scripted analyst, a timed run, a request ledger.

* :class:`Scenario` derives everything that goes wrong in one run from ``random.Random(seed)``: GitHub
  faults for the emulator's random mode (5xx, timeouts, a 429 burst, one tool's endpoint down) and model
  faults for the scripted model (an HTTP 500, a stream cut mid-way, malformed tool-call arguments).
* :class:`ScriptedAnalyst` is the model server's responder: a realistic analysis of ``acme/widgets``
  (metadata and tree, then README, manifest and commits, maybe a folder and the languages, then the
  report), with the scenario's faults on the chat requests they were drawn for.
* :func:`observe` runs one analysis (the real core over both servers, as :mod:`testing.analysis`
  does) on a :class:`testing.clock.SharedVirtualClock` and keeps, besides the events, when the test
  received each one and every breaker transition with the exact reading it happened at. Both servers
  stamp their requests with the same clock, whose readings order events across threads; time moves only
  when the run sleeps (a backoff, a rate-limit wait) or the analyst thinks, so no window depends on how
  busy the machine is. A timeout is announced by the emulator and raised by the client's transport at
  once (:class:`testing.github.AnnouncedTimeouts`): the client meets the same ``ReadTimeout``.
* :class:`Ledger` lines up the emulator's request log with the tool calls that could have made each
  request, for the breaker checks of :mod:`tests.test_fault_suite`.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Any

from agent_core import events as ev
from agent_core.grammar import check_grammar
from agent_core.resilience import StateChange
from agent_core.settings import Settings
from testing.analysis import analysis
from testing.clock import SharedVirtualClock
from testing.emulator.github import GitHubEmulator, RecordedRequest
from testing.emulator.model_server import ScriptedModelServer, ToolCallSpec, Turn
from testing.github import AnnouncedTimeouts

OWNER, REPO = "acme", "widgets"
W = {"owner": OWNER, "repo": REPO}
API_PREFIX = f"/repos/{OWNER}/{REPO}"
REPORT = (
    "# acme/widgets\n\n## Overview\nA small Python library that counts and ranks words.\n\n"
    "## Tech stack\nPython, packaged with pyproject.toml.\n\n## Development\nEight commits by three authors.\n"
)
THINKING = 0.2  # virtual seconds the analyst thinks before asking again for calls that failed
MALFORMED = '{"owner": "acme", "repo": "widgets", "path": "README.md"'  # the closing brace never came

# The analyst's plan, one model turn per step; the third step is only taken in some scenarios.
PLAN: tuple[tuple[tuple[str, Mapping[str, Any]], ...], ...] = (
    (("get_repo_info", W), ("get_file_tree", W)),
    (
        ("read_file", {**W, "path": "README.md"}),
        ("read_file", {**W, "path": "pyproject.toml"}),
        ("get_commits", {**W, "per_page": 10}),
    ),
    (("list_directory", {**W, "path": "src"}), ("get_languages", W)),
)

# What "this tool is down" means at the emulator: every request on the tool's own endpoint answers 503.
# read_file shares /contents with list_directory: every path but the sample repository's folders is a file.
_FOLDERS = r"(src|src/pkg|tests|docs|assets|\.github|\.github/workflows)"
DOWN_PATHS: Mapping[str, str] = {
    "get_repo_info": rf"^{API_PREFIX}$",
    "get_file_tree": r"/git/trees/",
    "read_file": rf"/contents/(?!{_FOLDERS}$).+",
    "get_commits": r"/commits$",
    "get_languages": r"/languages$",
}


# --------------------------------------------------------------------------------------------- scenario


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """Everything that goes wrong in one seeded run, and how long it may take."""

    seed: int
    rate_5xx: float
    rate_timeout: float
    burst_start: int
    burst_length: int
    down_tool: str
    model_500_at: int | None  # index of the chat request answered HTTP 500
    disconnect_at: int | None  # index of the chat request whose stream is cut after two events
    malformed_step: int | None  # plan step in which one call's arguments are malformed JSON
    explore_more: bool  # whether the analyst takes the third step of the plan
    max_wall_seconds: float  # the run's deadline (virtual): tight in some runs, so that it stops exploration

    @classmethod
    def from_seed(cls, seed: int) -> Scenario:
        rng = random.Random(seed)
        return cls(
            seed=seed,
            rate_5xx=0.3,
            rate_timeout=rng.choice((0.05, 0.1)),
            burst_start=rng.randrange(0, 10),
            burst_length=rng.randint(1, 4),
            down_tool=rng.choice(sorted(DOWN_PATHS)),
            model_500_at=rng.randrange(4) if rng.random() < 0.4 else None,
            disconnect_at=rng.randrange(4) if rng.random() < 0.4 else None,
            malformed_step=rng.randrange(3) if rng.random() < 0.4 else None,
            explore_more=rng.random() < 0.5,
            max_wall_seconds=rng.choice((0.5, 1.0, 20.0)),
        )

    def arm(self, emu: GitHubEmulator) -> None:
        """Turn on the emulator's random mode with this scenario's GitHub faults, its timeouts announced
        (answered at once and raised by the client's transport) rather than held."""
        emu.announce_timeouts = True
        emu.random_faults(
            self.seed,
            rate_5xx=self.rate_5xx,
            rate_timeout=self.rate_timeout,
            burst_429=self.burst_length,
            burst_start=self.burst_start,
            down_path=DOWN_PATHS[self.down_tool],
        )


class ScriptedAnalyst:
    """The model server's responder (see the module docstring); thread-safe. Its thinking moves ``clock``."""

    def __init__(self, scenario: Scenario, clock: SharedVirtualClock) -> None:
        self.scenario = scenario
        self.clock = clock
        self._lock = threading.Lock()
        self._requests = 0
        self.steps = self._steps()

    def _steps(self) -> list[list[ToolCallSpec]]:
        plan = PLAN if self.scenario.explore_more else PLAN[:2]
        steps = [[ToolCallSpec(name, json.dumps(args)) for name, args in step] for step in plan]
        bad = self.scenario.malformed_step
        if bad is not None and bad < len(steps):
            repaired = steps[bad][0]
            steps[bad][0] = replace(repaired, arguments=MALFORMED)
            if bad + 1 < len(steps):
                steps[bad + 1].insert(0, repaired)  # the model asks again, properly
            else:
                steps.append([repaired])
        return steps

    def __call__(self, body: Mapping[str, Any]) -> Turn:
        with self._lock:
            index, self._requests = self._requests, self._requests + 1
        if index == self.scenario.model_500_at:
            return Turn.error(500, "the model server is overloaded")
        messages = body.get("messages", ())
        step = sum(1 for message in messages if message.get("role") == "assistant")
        again = ask_again(messages) if "tools" in body else []
        planned = self.steps[step] if "tools" in body and step < len(self.steps) else []
        if again or planned:
            if again:  # thinking over what failed takes a moment: long enough for an open breaker's probe
                self.clock.advance(THINKING)
            turn = Turn(tool_calls=[*again, *planned], reasoning=f"Step {step + 1} of the analysis.")
        else:
            turn = Turn.final(REPORT, reasoning="Enough evidence; writing the report.")
        if index == self.scenario.disconnect_at:
            turn = replace(turn, disconnect_after=2)
        return turn


def ask_again(messages: Sequence[Mapping[str, Any]]) -> list[ToolCallSpec]:
    """The calls that came back with no data and were asked only once: a model tries those again."""
    asked: dict[tuple[str, str], int] = {}
    by_id: dict[str, tuple[str, str]] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            key = (call["function"]["name"], call["function"]["arguments"])
            asked[key] = asked.get(key, 0) + 1
            by_id[call["id"]] = key
    again: list[tuple[str, str]] = []
    for message in messages:
        answered = by_id.get(message.get("tool_call_id", ""))
        degraded = re.search(r'"degraded":\s*true', str(message.get("content", "")))
        if answered and degraded and asked[answered] == 1 and answered not in again:
            again.append(answered)
    return [ToolCallSpec(name, arguments) for name, arguments in again]


# ---------------------------------------------------------------------------------------- a timed run


@dataclass(frozen=True, kw_only=True)
class Transition:
    change: StateChange
    guards: str  # the tool the breaker guards, or "model" for any model endpoint

    @property
    def at(self) -> float:
        """The clock's reading at the change, taken by the breaker inside the transition."""
        return self.change.at


@dataclass(kw_only=True)
class Observed:
    """One run: its events with when the test received each, and its breaker transitions (all readings
    of one :class:`SharedVirtualClock`)."""

    events: list[ev.Event] = field(default_factory=list)
    received: list[float] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0
    final_states: dict[str, str] = field(default_factory=dict)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def breaker(self, guards: str) -> list[Transition]:
        """The transitions of the breaker guarding one tool ("read_file"), or the model's ("model")."""
        return [t for t in self.transitions if t.guards == guards]


def guarded(source: str, subject: str) -> str:
    """What a breaker guards, from the parts a transition carries (never from its name): the tool, or
    "model" for any model endpoint."""
    return "model" if source == "model" else subject


async def observe(
    settings: Settings,
    clock: SharedVirtualClock,
    emulator: GitHubEmulator,
    server: ScriptedModelServer | None = None,
    *,
    turn_timeout: float = 30.0,
) -> Observed:
    """Run one analysis of acme/widgets to its end on ``clock``, which the servers stamp with too."""
    emulator.stamp = clock.monotonic
    if server is not None:
        server.stamp = clock.monotonic
    seen = Observed()
    target = f"{OWNER}/{REPO}"
    async with analysis(
        settings, target, turn_timeout=turn_timeout, clock=clock, github_transport=AnnouncedTimeouts()
    ) as harness:
        run = harness.opened.analysis
        board = run.parts.breakers

        def on_change(change: StateChange) -> None:
            seen.transitions.append(Transition(change=change, guards=guarded(change.source, change.subject)))

        unsubscribe = board.subscribe(on_change)
        seen.started = clock.monotonic()
        try:
            async with aclosing(run.run("")) as events:
                async for event in events:
                    seen.events.append(event)
                    seen.received.append(clock.monotonic())
        finally:
            seen.ended = clock.monotonic()
            unsubscribe()
        seen.final_states = {s.name: str(s.state) for s in board.snapshot()}
    check_grammar(seen.events)  # whatever went wrong, the stream keeps its grammar
    return seen


# ------------------------------------------------------------------------------------------- ledger


def paths_of(tool: str, arguments: Mapping[str, Any]) -> Callable[[str], bool]:
    """Which decoded request paths a call of ``tool`` with ``arguments`` can make (none if malformed)."""
    if arguments.get("owner") != OWNER or arguments.get("repo") != REPO:
        return lambda path: False
    where = str(arguments.get("path") or "").strip("/")
    contents = f"{API_PREFIX}/contents" + (f"/{where}" if where else "")
    own: dict[str, Callable[[str], bool]] = {
        "get_repo_info": lambda path: path == API_PREFIX,
        "get_file_tree": lambda path: path == API_PREFIX or path.startswith(f"{API_PREFIX}/git/trees/"),
        "read_file": lambda path: path == contents,
        "list_directory": lambda path: path == contents,
        "get_commits": lambda path: path == f"{API_PREFIX}/commits",
        "get_languages": lambda path: path == f"{API_PREFIX}/languages",
    }
    return own.get(tool, lambda path: False)


@dataclass(frozen=True, kw_only=True)
class CallWindow:
    """A tool call, from the test's receipt of its start event to the receipt of its finish event.

    ``tool_call_started`` is yielded before the call's task exists and ``tool_call_finished`` is queued
    after it returned, so every request the call made started inside this window.
    """

    call_id: str
    tool: str
    opened: float
    closed: float
    makes: Callable[[str], bool]


def is_failure(record: RecordedRequest) -> bool:
    """What a breaker counts: 5xx and timeouts or dropped connections (404s and rate limits do not)."""
    return record.status is None or record.status >= 500


class Ledger:
    """The emulator's requests, each with the tool calls that could have made it."""

    def __init__(self, seen: Observed, requests: Sequence[RecordedRequest]) -> None:
        starts = {}
        self.calls: list[CallWindow] = []
        for event, at in zip(seen.events, seen.received, strict=True):
            if isinstance(event, ev.ToolCallStarted):
                starts[event.call_id] = (event, at)
            elif isinstance(event, ev.ToolCallFinished):
                start, opened = starts.pop(event.call_id)
                self.calls.append(
                    CallWindow(
                        call_id=event.call_id,
                        tool=event.tool,
                        opened=opened,
                        closed=at,
                        makes=paths_of(start.tool, start.arguments),
                    )
                )
        self.requests = sorted(requests, key=lambda r: r.started)

    def tools_for(self, record: RecordedRequest) -> set[str]:
        """The tools whose calls were running when ``record`` started and make requests on its path."""
        return {
            call.tool
            for call in self.calls
            if call.opened <= record.started <= call.closed and call.makes(record.decoded_path)
        }

    def of_tool(self, tool: str, *, only: bool, since: float, until: float) -> list[RecordedRequest]:
        """Requests started in (since, until) that a call of ``tool`` could have made (``only``: no
        other tool's call could have)."""
        found = []
        for record in self.requests:
            if not since < record.started < until:
                continue
            tools = self.tools_for(record)
            if tool in tools and (not only or tools == {tool}):
                found.append(record)
        return found


def reset_text(reset_at: float) -> str:
    """A reset time as the GitHub client words it (``agent_core.github.client``)."""
    return time.strftime("%H:%M:%S UTC", time.gmtime(reset_at))
