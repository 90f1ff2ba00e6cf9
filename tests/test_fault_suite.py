"""The fault suite: seeded runs under random GitHub and model faults, and a rate limit spent mid-run.

Every fault comes from a seam: the GitHub emulator's random mode (30% 5xx, some requests held past the
client's read timeout, a burst of 429s, one tool's endpoint answering 503 to everything) and the scripted
model (an HTTP 500 on one chat request, a stream cut after two events, malformed tool-call arguments),
all drawn from ``random.Random(seed)`` by :class:`tests.fault_helpers.Scenario`. The emulator's request
log is the ground truth the breakers are checked against.

For each of the 50 seeds:

* **Ending.** The last event is ``run_finished`` with a non-empty report — or, only when no tool call
  returned any data (every one failed before the deadline), ``run_failed`` naming why: a report built
  on nothing would be the model's memory, which is never reported; every tool call that started finished; no tool result is an "internal error"; nothing was logged at ERROR (a
  crashed tool, a failing listener, an asyncio task whose exception nobody retrieved).
* **Deadline.** Each seed has a deadline (``max_wall_seconds`` 0.5 s, 1 s or 20 s of virtual time, so
  that some runs hit it under faults). No turn that calls tools started after it, and the run took at
  most the deadline plus what the loop may still spend once it passed (the limit is checked before each
  turn): the turn under way (its model turn and tool calls, their backoffs) and the report turn.
* **Honesty.** ``degraded`` is true exactly when something failed (a tool result served stale or with no
  data, a failed model turn, the deterministic writer); each failed tool call and the model failure are
  named in ``degraded_reasons``; a tool whose breaker opened is named; a fallback report says so itself.
* **Breakers against the emulator's log.** Requests are attributed to the tool calls that were running
  when they started and can make them (one path per tool; ``read_file``/``list_directory`` by their path;
  ``get_file_tree`` also asks for the repository). Transition times are exact: the board's listener runs
  inside the transition, and the emulator stamps requests with the same monotonic clock. Checked:

  - the transitions reported as events are the breaker's own, in a valid order from CLOSED, and end in
    the breaker's final state; every request the emulator saw was made by some tool call;
  - each CLOSED->OPEN has at least ``breaker_failure_threshold`` requests behind it, started since the
    breaker last closed, that failed for that tool (5xx or timeout: no real read timeout can fire, so a
    logged answer is what the client got);
  - while OPEN, requests that only that tool could have made are no more than the stragglers of attempts
    permitted before it opened (one per path per call then running); calls started later send nothing;
  - in HALF_OPEN, one probe at a time: one attempt (counted by its request on the tool's own endpoint),
    plus one more after each probe that was ignored (a 4xx); of these at most one definitely failed (the
    probe that reopened it), none if the breaker then closed or stayed half-open; requests a call
    running since the opening could have made are left out (a straggler, or that call's own probe); a
    HALF_OPEN->OPEN has a failure behind it;
  - the forced-down tool's breaker opened whenever at least threshold requests that only it could have
    made were answered "down" (all of its requests fail, so nothing resets its count);
  - the model's breaker, against the scripted model's log, the same way.

What the data cannot support is not claimed: a request on a path two running calls share counts for
both; a probe that succeeded may have needed no request (the run's memo), so closings are not matched
to a success in the log; 404s and rate limits are ignored by breakers, so they are never counted.

Then the rate limit runs out mid-run (with the model, and with the offline planner): the run still
ends with a report, and the report says which calls got no data and when the limit resets, in the words
and UTC time the GitHub client uses.

Found by this suite: a model that failed before any tool ran ended the run with ``run_failed`` though
GitHub was up; now the offline planner gathers the data for the fallback report (regression tests below).

Time is virtual (:class:`testing.clock.SharedVirtualClock`, read by the run, the breakers and both
servers' request logs): backoffs, the analyst's thinking, breaker timers and deadlines move it at once,
and the emulator's timeouts are announced and raised by the client's transport instead of waited out. The
real-time bounds left (tool and turn timeouts, the client's read timeout) are far beyond any run's need:
a passing test never reaches them.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.report.export import full_report
from agent_core.settings import Settings
from agent_core.tools.registry import BY_NAME
from testing.analysis import make_settings
from testing.clock import SharedVirtualClock
from testing.emulator.github import GitHubEmulator, RecordedRequest
from testing.emulator.model_server import RecordedRequest as ChatRequest
from testing.emulator.model_server import ScriptedModelServer, Turn
from tests.fault_helpers import (
    PLAN,
    THINKING,
    CallWindow,
    Ledger,
    Observed,
    Scenario,
    ScriptedAnalyst,
    guarded,
    observe,
    reset_text,
)

THRESHOLD = 3
RETRY_BUDGET = 1.0  # virtual seconds of backoff one tool call may spend
# Real-time bounds, never reached by a passing run (nothing in it waits for real): timeouts come from the
# emulator's announcements, and the deadlines are virtual.
READ_TIMEOUT = 30.0
TOOL_TIMEOUT = 30.0
TURN_TIMEOUT = 30.0
PATIENCE = 60.0  # a bound on waiting for a condition: never waited out by a passing test
# The time limit is checked before each turn: the turn under way finishes (the analyst's thinking, the
# backoffs of its calls, which add up on the virtual clock: at most five calls in a step), then the report
# turn runs. Virtual seconds.
GRACE = 2 * THINKING + 6 * RETRY_BUDGET
TOOLS = frozenset(BY_NAME)


@pytest.fixture
def clock() -> SharedVirtualClock:
    return SharedVirtualClock()


def fault_settings(
    emu: GitHubEmulator,
    tmp_path: Path,
    server: ScriptedModelServer | None,
    *,
    max_wall_seconds: float = 20.0,
    read_timeout: float = READ_TIMEOUT,
) -> Settings:
    return make_settings(
        emu,
        tmp_path,
        server,
        github_read_timeout=read_timeout,
        retry_max_total=RETRY_BUDGET,
        breaker_failure_threshold=THRESHOLD,
        breaker_open_seconds=0.15,
        tool_timeout=TOOL_TIMEOUT,
        llm_turn_timeout=TURN_TIMEOUT,
        max_wall_seconds=max_wall_seconds,
    )


# ------------------------------------------------------------------------------------ seeded faults


@pytest.mark.parametrize("seed", range(50))
async def test_seeded_faults_end_in_an_honest_report(
    seed: int,
    emulator: GitHubEmulator,
    clock: SharedVirtualClock,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    scenario = Scenario.from_seed(seed)
    scenario.arm(emulator)
    with ScriptedModelServer(responder=ScriptedAnalyst(scenario, clock)) as server:
        settings = fault_settings(emulator, tmp_path, server, max_wall_seconds=scenario.max_wall_seconds)
        seen = await observe(settings, clock, emulator, server, turn_timeout=TURN_TIMEOUT)
        chat = server.chat_requests
        assert server.errors == []
    assert emulator.wait_idle(PATIENCE)  # every request is logged (a dropped one as it ends)
    assert_ends_with_a_report(seen, caplog)
    assert_within_deadline(seen, scenario.max_wall_seconds)
    assert_honest(seen)
    assert_no_retry_once_open(seen)
    assert_breakers_match_the_log(seen, Ledger(seen, emulator.requests), scenario)
    assert_model_breaker_matches_the_log(seen, chat)


def assert_ends_with_a_report(seen: Observed, caplog: pytest.LogCaptureFixture) -> None:
    assert isinstance(seen.events[0], ev.RunStarted)
    done = seen.events[-1]
    if isinstance(done, ev.RunFailed):  # honest only when nothing at all was gathered
        assert not any(f.ok for f in seen.of(ev.ToolCallFinished)), done
        assert done.message.startswith("No report could be produced: ") and len(done.message) > 30
    else:
        assert isinstance(done, ev.RunFinished), done
        assert not seen.of(ev.RunFailed)
        assert done.report.strip()
    started = sorted(e.call_id for e in seen.of(ev.ToolCallStarted))
    assert started == sorted(e.call_id for e in seen.of(ev.ToolCallFinished))
    for finished in seen.of(ev.ToolCallFinished):
        assert not (finished.error or "").startswith("internal error"), finished
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]


def assert_within_deadline(seen: Observed, deadline: float) -> None:
    done = seen.events[-1]
    if isinstance(done, ev.RunFinished):
        assert done.stats.elapsed_s <= deadline + GRACE
    assert seen.ended - seen.started <= deadline + GRACE
    # No turn that calls tools starts after the deadline. Exact: the loop checks the deadline and stamps
    # the turn in one step, which the QuickSleepClock reads as one instant (``t`` is rounded to 0.1 ms).
    turn_started = {e.turn: e.t for e in seen.of(ev.TurnStarted)}
    for call in seen.of(ev.ToolCallStarted):
        assert turn_started[call.turn] <= deadline, (call, turn_started)


def assert_honest(seen: Observed) -> None:
    done = seen.events[-1]
    if isinstance(done, ev.RunFailed):
        return  # nothing was gathered: assert_ends_with_a_report checked that it says why
    assert isinstance(done, ev.RunFinished)
    reasons = done.degraded_reasons
    failed_calls = [f for f in seen.of(ev.ToolCallFinished) if f.degraded or f.stale]
    model_failed = [n for n in seen.of(ev.Notice) if n.message.startswith("Model turn failed")]
    assert done.degraded == bool(failed_calls or model_failed or done.writer == "fallback")
    assert done.degraded == bool(reasons)
    for call in failed_calls:
        assert any(r.startswith(f"{call.tool}(") for r in reasons), (call, reasons)
    if model_failed:
        assert any(r.startswith("model failed") for r in reasons), reasons
    if done.writer == "fallback":
        assert any("deterministic writer" in r for r in reasons), reasons
        assert "written without the model" in done.report
        for call in failed_calls:
            assert call.tool in done.report
    for change in seen.of(ev.BreakerChanged):
        subject = guarded(change.source, change.subject)
        if change.new == "open" and subject in TOOLS:
            assert any(r.startswith(f"{subject}(") for r in reasons), (change, reasons)
        elif change.new == "open" and subject == "model":
            assert any(r.startswith("model failed") for r in reasons), (change, reasons)


def assert_no_retry_once_open(seen: Observed) -> None:
    """An open breaker ends its tool's retries: no "retrying" is announced while it is open."""
    open_tools: set[str] = set()
    for event in seen.events:
        if isinstance(event, ev.BreakerChanged):
            subject = guarded(event.source, event.subject)
            (open_tools.add if event.new == "open" else open_tools.discard)(subject)
        elif isinstance(event, ev.ToolRetry):
            assert event.tool not in open_tools, event


# ----------------------------------------------------------------------------- breakers vs the log


def failed(record: RecordedRequest) -> bool:
    """The client surely saw a failure: 5xx, or no answer at all."""
    return record.status is None or record.status >= 500


def assert_valid_transitions(seen: Observed) -> None:
    reported = [(e.breaker, e.source, e.subject, e.old, e.new) for e in seen.of(ev.BreakerChanged)]
    actual = [
        (t.change.name, t.change.source, t.change.subject, str(t.change.old), str(t.change.new))
        for t in seen.transitions
    ]
    assert reported == actual
    allowed = {("closed", "open"), ("open", "half_open"), ("half_open", "open"), ("half_open", "closed")}
    for name, state in seen.final_states.items():
        chain = [(str(t.change.old), str(t.change.new)) for t in seen.transitions if t.change.name == name]
        assert set(chain) <= allowed, chain
        assert [old for old, _ in chain] == ["closed", *(new for _, new in chain)][: len(chain)], chain
        assert state == (chain[-1][1] if chain else "closed"), (name, chain, state)


def assert_breakers_match_the_log(seen: Observed, ledger: Ledger, scenario: Scenario) -> None:
    assert_valid_transitions(seen)
    for record in ledger.requests:
        assert ledger.tools_for(record), f"no tool call could have made {record}"
    for tool in TOOLS:
        assert_breaker_matches_the_log(seen, ledger, tool)
    down = scenario.down_tool
    downed = [r for r in ledger.requests if r.fault == "down" and ledger.tools_for(r) == {down}]
    if len(downed) >= THRESHOLD:
        assert any(t.change.new == "open" for t in seen.breaker(down)), (down, downed)


def assert_breaker_matches_the_log(seen: Observed, ledger: Ledger, tool: str) -> None:
    transitions = seen.breaker(tool)
    closed_since = opened_at = seen.started
    state, since = "closed", seen.started
    for transition in [*transitions, None]:
        at = transition.at if transition is not None else seen.ended
        new = str(transition.change.new) if transition is not None else None
        context = (tool, state, "->", new, transitions)
        if state == "closed" and new == "open":
            tried = ledger.of_tool(tool, only=False, since=closed_since, until=at)
            assert sum(map(failed, tried)) >= THRESHOLD, (*context, tried)
        elif state == "open":
            assert_quiet_while_open(ledger, tool, opened=since, until=at, context=context)
        elif state == "half_open":
            assert_one_probe_at_a_time(ledger, tool, opened_at, (since, at), new, context)
            if new == "open":
                tried = ledger.of_tool(tool, only=False, since=since, until=at)
                assert any(map(failed, tried)), (*context, tried)
            elif new == "closed":
                closed_since = at
        if new == "open":
            opened_at = at
        if new is not None:
            state, since = new, at


def running_at(ledger: Ledger, tool: str, moment: float) -> list[CallWindow]:
    return [c for c in ledger.calls if c.tool == tool and c.opened < moment < c.closed]


def assert_quiet_while_open(
    ledger: Ledger, tool: str, *, opened: float, until: float, context: tuple[object, ...]
) -> None:
    """While OPEN the breaker grants no permit, so a request that reaches the emulator then belongs to an
    attempt permitted before the breaker opened ("a straggler"): at most one per path per call then
    running, whose next attempt is refused."""
    running = running_at(ledger, tool, opened)
    late = ledger.of_tool(tool, only=True, since=opened, until=until)
    for path in {r.decoded_path for r in late}:
        sent = [r for r in late if r.decoded_path == path]
        assert len(sent) <= sum(c.makes(path) for c in running), (*context, path, sent, running)


def assert_one_probe_at_a_time(
    ledger: Ledger,
    tool: str,
    opened: float,
    window: tuple[float, float],
    new: str | None,
    context: tuple[object, ...],
) -> None:
    """HALF_OPEN lets one probe attempt through, and another only after a probe was ignored (a 4xx); a
    probe that failed reopens the breaker. Attempts are counted by their request on the tool's own
    endpoint (get_file_tree's tree); requests a call running since the opening could have made are left
    out (a late straggler, or that call's own probe)."""
    running = running_at(ledger, tool, opened)
    probes = [
        r
        for r in ledger.of_tool(tool, only=True, since=window[0], until=window[1])
        if not any(c.opened <= r.started <= c.closed and c.makes(r.decoded_path) for c in running)
    ]
    attempts = [r for r in probes if tool != "get_file_tree" or "/git/trees/" in r.decoded_path]
    ignored = sum(r.status is not None and 400 <= r.status < 500 for r in probes)
    assert len(attempts) <= 1 + ignored, (*context, probes)
    assert sum(map(failed, probes)) <= (1 if new == "open" else 0), (*context, probes)


def model_failed(request: ChatRequest) -> bool:
    turn = request.turn
    return (
        turn is None or (turn.status or 0) >= 500 or turn.status == 429 or turn.disconnect_after is not None
    )


def assert_model_breaker_matches_the_log(seen: Observed, chat: list[ChatRequest]) -> None:
    closed_since = seen.started
    for transition in seen.breaker("model"):
        if transition.change.new == "open":
            failures = [r for r in chat if closed_since < r.received_at < transition.at and model_failed(r)]
            assert len(failures) >= (THRESHOLD if transition.change.old == "closed" else 1), transition
        elif transition.change.new == "closed":
            closed_since = transition.at


# ------------------------------------------------------------------------------ found by this suite


async def test_model_down_before_anything_was_gathered_the_planner_gathers_for_the_report(
    emulator: GitHubEmulator, clock: SharedVirtualClock, tmp_path: Path
) -> None:
    """It used to end in run_failed ("nothing could be gathered") though GitHub was fine."""
    with ScriptedModelServer([Turn.error(500)]) as server:
        settings = fault_settings(emulator, tmp_path, server)
        seen = await observe(settings, clock, emulator, server, turn_timeout=TURN_TIMEOUT)
        server.assert_exhausted()
    done = seen.events[-1]
    assert isinstance(done, ev.RunFinished) and done.writer == "fallback"
    assert any("the offline planner gathers the basics" in n.message for n in seen.of(ev.Notice))
    assert {f.tool for f in seen.of(ev.ToolCallFinished) if f.ok} >= {"get_repo_info", "read_file"}
    assert "Count words, fast." in done.report and "written without the model" in done.report
    assert done.degraded and done.degraded_reasons[0].startswith("model failed")


async def test_model_and_github_down_the_run_fails_with_the_reason(
    emulator: GitHubEmulator, clock: SharedVirtualClock, tmp_path: Path
) -> None:
    emulator.fail(".*", [503] * 200)
    with ScriptedModelServer([Turn.error(500)]) as server:
        settings = fault_settings(emulator, tmp_path, server)
        seen = await observe(settings, clock, emulator, server, turn_timeout=TURN_TIMEOUT)
    failed_run = seen.events[-1]
    assert isinstance(failed_run, ev.RunFailed)
    assert failed_run.message.startswith("No report could be produced: ")
    assert {f.ok for f in seen.of(ev.ToolCallFinished)} == {False}


# ----------------------------------------------------------------------------- rate limit runs out


def rate_limited(emu: GitHubEmulator, quota: int, reset_in: int = 40 * 60) -> int:
    """Anonymous requests run out after ``quota``; the window resets ``reset_in`` seconds from now."""
    emu.limit_unauthenticated = quota
    emu.reset_at = int(time.time()) + reset_in
    return emu.reset_at


def assert_missing_parts_explained(
    done: ev.RunFinished, missing: list[ev.ToolCallFinished], reset: int
) -> None:
    when = f"it resets at {reset_text(reset)} (in 40 min)"
    assert done.degraded and missing
    for call in missing:
        matching = [r for r in done.degraded_reasons if r.startswith(f"{call.tool}(")]
        assert matching and all(when in r for r in matching), (call, done.degraded_reasons)
    assert done.stats.rate_limit_remaining == 0
    assert done.stats.rate_limit_reset == reset


async def test_rate_limit_spent_mid_run_the_report_says_what_is_missing_and_when_it_resets(
    emulator: GitHubEmulator, clock: SharedVirtualClock, tmp_path: Path
) -> None:
    reset = rate_limited(emulator, quota=2)  # the first turn's two requests: info and tree
    turns = [*(Turn.calls(*step) for step in PLAN), Turn.final("# acme/widgets\n\nPartial analysis.\n")]
    with ScriptedModelServer(turns) as server:
        settings = fault_settings(emulator, tmp_path, server)  # no timeouts: the quota is exact
        seen = await observe(settings, clock, emulator, server, turn_timeout=TURN_TIMEOUT)
        server.assert_exhausted()
        last_request = server.chat_requests[-1]
    done = seen.events[-1]
    assert isinstance(done, ev.RunFinished) and done.writer == "model"
    missing = [f for f in seen.of(ev.ToolCallFinished) if f.degraded]
    assert {f.tool for f in missing} == {"read_file", "get_commits", "list_directory", "get_languages"}
    assert_missing_parts_explained(done, missing, reset)
    # The model was told too: every observation of a missing call carries the reason and the reset time.
    observations = [m["content"] for m in last_request.messages if m.get("role") == "tool"]
    assert sum(f"resets at {reset_text(reset)}" in text for text in observations) == len(missing)
    assert [r.status for r in emulator.requests] == [200, 200]  # once spent, nothing more was sent
    # The model's own report leaves the gaps out; the app states them beside it, reset time included.
    assert any(f"resets at {reset_text(reset)}" in r for r in done.degraded_reasons)
    assert f"resets at {reset_text(reset)}" in full_report(done.report, None, done.degraded_reasons)
    appendix = full_report(done.report, None, done.degraded_reasons).rpartition("---")[2]
    for call in missing:
        assert call.tool.replace("_", "\\_") in appendix  # named in the app's appendix, Markdown-escaped


async def test_rate_limit_spent_mid_run_offline_planner_report_says_so(
    emulator: GitHubEmulator, clock: SharedVirtualClock, tmp_path: Path
) -> None:
    reset = rate_limited(emulator, quota=4)  # the planner's first turn: info, tree, languages, commits
    seen = await observe(fault_settings(emulator, tmp_path, None), clock, emulator)
    done = seen.events[-1]
    assert isinstance(done, ev.RunFinished) and done.writer == "planner"
    missing = [f for f in seen.of(ev.ToolCallFinished) if f.degraded]
    assert {f.tool for f in missing} >= {"read_file"}
    assert_missing_parts_explained(done, missing, reset)
    assert f"resets at {reset_text(reset)}" in done.report
    for call in missing:
        assert call.tool in done.report
    assert [r.status for r in emulator.requests] == [200] * 4
