"""The hand-written ReAct loop: a model proposes tool calls, the toolbox runs them, until it answers.

::

    [prefetch: the basics, gathered in parallel before the first turn]        (agent.prefetch)
    repeat (turn = 1, 2, ...):                          until the model answers without tools
        turn_started -> reasoning_delta* / text_delta* -> turn_finished        (ModelDriver.turn)
        tool_call_started* -> [tool_retry | breaker_changed | rate_limit]* -> tool_call_finished*
                                  (all calls of the turn at once; one at a time when configured)
    on a limit (turns, tool calls, tokens): one report turn (tools sent, none allowed);
    if the model is unreachable, or answers from memory, or the time is up: the deterministic writer,
    from the observations gathered (the offline planner gathers the basics first when none succeeded)
    a turn stopped mid-report (the time limit, a stalled stream): its partial report, completed by the
    deterministic writer's sections it did not reach
    the model's report: [notice] diagram, per repository: the diagram's step (agent.diagram_call)
    run_finished(report, degraded, stats)

What real models do is read, not trusted (:mod:`~agent_core.agent.replies`): a tool call written as text
is run, never reported; a text-protocol reply keeps only its thought and first action; an answer with
nothing observed is sent back once with a request to use the tools. A draft report is judged before it
is the report (:mod:`~agent_core.agent.draft_review`): an echo, a block said twice, a bare JSON call or a
report from memory is sent back once, then replaced; ✗ claims and missing paths are given back once; a
report with no read of the model's own is asked once for reads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from agent_core import events as ev
from agent_core.agent.accounting import Added
from agent_core.agent.diagram_call import diagrams
from agent_core.agent.draft_review import Drafts, Judged, judge
from agent_core.agent.endings import (
    completed_partial,
    failed,
    finish,
    gathered_anything,
    model_reason,
    written_report,
)
from agent_core.agent.flow import Flow, Result, Step, events_only, relay
from agent_core.agent.model_turn import NO_TURN, ModelDriver, TurnOutcome
from agent_core.agent.pace import CHARS_PER_TOKEN, MIN_LOCAL_READS
from agent_core.agent.planner import call_key
from agent_core.agent.planner_run import planner_turns
from agent_core.agent.progress import StreamCut
from agent_core.agent.prompts import report_request, use_tools_request
from agent_core.agent.replies import native_step, react_step
from agent_core.agent.run import Feed, Run
from agent_core.llm import ModelTurn, ReactFormatError, parse_react
from agent_core.offload import off_loop
from agent_core.report.diagram import Graph
from agent_core.tool_call import ToolCallRequest
from agent_core.words import said, say, t, words_for

ROOM_KEPT = 200
"""Tokens of a local model's window kept beside its reads: its next calls, a request for the report."""
MIN_ROOM_TOKENS = 100
"""A read's floor whatever the room: a file's first lines (older results are compacted to make room)."""
MAX_REPEATS = 3
"""Turns in a row of calls already made (the 0.5B wrote the same call as text 12 turns running) before
exploration stops and the report is asked for."""


@dataclass(frozen=True, kw_only=True)
class _After:
    """What a turn left the loop with: a report, a reason to stop, or neither (go on)."""

    report: str | None = None
    stop_reason: str | None = None
    failure: TurnOutcome | None = None
    nudged: bool = False
    ignored_tools: bool = False  # answered from memory twice
    partial: bool = False  # the report was stopped before its end
    written: bool = False  # the report is the deterministic writer's, in place of an unfit draft
    own_calls: int = 0  # new tool calls the model chose itself (the prefetch's and repeats are not)
    repeats: int = 0  # turns in a row that only repeated calls already made
    time_up: bool = False  # a local model was told its time for reading is over (once)
    drafts: Drafts = field(default_factory=Drafts)  # what its drafts' judgements used (agent.draft_review)


async def model_run(run: Run, driver: ModelDriver) -> Flow:
    after = _After()
    while after.report is None and after.stop_reason is None and after.failure is None:
        if (limit := run.limit_reached()) is not None:
            after = replace(after, stop_reason=limit)
            break
        explored = relay(_explore(run, driver, after), otherwise=after)
        async for item in explored:
            yield item
        after = explored.value
    if after.report is None:
        failure = after.failure.error if after.failure else None
        if after.failure is not None:
            yield Added(failure=driver.diagnose(failure))
        elif after.ignored_tools:
            yield Added(failure=replace(driver.diagnose(None), cause="model_no_tools"))
        reason = after.stop_reason or model_reason(failure, run.language)
        async for event in _finish_without_answer(run, driver, after, reason):
            yield event
        return
    if after.written:
        async for event in finish(run, after.report, writer="fallback", cost=driver.cost(run)):
            yield event
        return
    async for event in _finish_model(run, driver, after.report, partial=after.partial):
        yield event


async def _finish_model(run: Run, driver: ModelDriver, report: str, *, partial: bool = False) -> Flow:
    """The model's report to its end, after the architecture diagrams' step (not for a follow-up's
    answer: the first report has them). They travel beside the report, as ``diagram`` events, and each
    consumer appends them (:func:`agent_core.report.export.diagram_section`). A partial report (its time
    is up) gets the tree's diagrams and the deterministic writer's sections it lacks."""
    graphs: list[Graph] | None = []
    if partial:
        report, graphs = completed_partial(run, report), None
    elif not run.follow_up:
        drawn = relay(diagrams(run, driver), otherwise=graphs)
        async for item in drawn:
            yield item
        graphs = drawn.value
    async for event in finish(run, report, writer="model", cost=driver.cost(run), diagrams=graphs):
        yield event


async def _explore(run: Run, driver: ModelDriver, after: _After) -> Step[_After]:
    """One model turn and what it asked for: its tool calls run, or its answer judged
    (:func:`~agent_core.agent.draft_review.judge`: sent back once, taken, or replaced)."""
    nudged = after.nudged
    turn = relay(
        driver.turn(run, tools=not driver.text_mode, cut=_local_cut(run, driver, after)),
        otherwise=NO_TURN,
    )
    async for item in turn:
        yield item
    outcome = turn.value
    if outcome.error is not None or outcome.turn is None or outcome.turn.partial:
        yield Result(value=replace(_stopped(run, driver, outcome, nudged=nudged), own_calls=after.own_calls))
        return
    if outcome.turn.finish_reason == "cut_time":  # a call begun past its time: set aside, report asked
        yield _time_up(run)
        yield Result(value=replace(after, time_up=True))
        return
    reply = (react_step if driver.text_mode else native_step)(run, outcome.turn)
    cut = _CUT_NOTICES.get(outcome.turn.finish_reason or "")
    cut_said = said(cut, calls=len(reply.calls)) if cut else None
    notices = [(say(cut_said, "en"), (cut_said,))] if cut_said else []
    for message, words in [*notices, *([(reply.notice, ())] if reply.notice else [])]:
        yield ev.Notice(t=run.t(), level="info", message=message, said=words)
    if reply.calls:
        async for step in _run_calls(run, driver, after, reply.calls, dropped=reply.dropped):
            yield step
    else:
        async for step in _answered(
            run, driver, after, reply.report, cut=outcome.turn.finish_reason == "length"
        ):
            yield step


async def _answered(
    run: Run, driver: ModelDriver, after: _After, report: str | None, *, cut: bool
) -> Step[_After]:
    """A turn that called no tool: its draft judged, or (nothing observed yet) the model asked once to
    look; a reply with nothing readable goes on (the model was told why)."""
    if report is None:
        yield Result(value=after)
    elif gathered_anything(run):
        async for judged in _judged(run, driver, after, report, cut=cut):
            yield judged
    elif after.nudged:  # a second answer from memory: not a report anyone can trust
        reason = words_for(run.language)("model_reason_no_tools")
        yield Result(value=replace(after, stop_reason=reason, ignored_tools=True))
    else:
        yield _ask_to_use_tools(run)
        yield Result(value=replace(after, nudged=True))


async def _run_calls(
    run: Run, driver: ModelDriver, after: _After, calls: Sequence[ToolCallRequest], *, dropped: int
) -> Step[_After]:
    """The tool calls the model asked for, run; a local model's observations cut to its time
    (:func:`_observation_chars`); turns of repeats counted (:data:`MAX_REPEATS` stop exploring). A local
    model that only asks again for what it read once its reads are done is told to write the report (the
    real 1.5B read two files, asked for each again, then replied empty: three turns before its report)."""
    made = {call_key(r.tool, r.arguments) for r in run.state.all_results}
    fresh = sum(call_key(c.tool, c.args) not in made for c in calls)
    due = max(0, _min_reads(run, driver) - after.own_calls - fresh) if driver.local else 0
    chars = _observation_chars(run, driver, calls=len(calls), due_after=due)
    feed: Feed = "text" if driver.text_mode else "native"
    async for event in events_only(run.tool_turn(calls, feed=feed, dropped=dropped, observation_chars=chars)):
        yield event
    if driver.local and not fresh and not due:  # its reads are done and it asks for them again
        run.parts.conversation.add({"role": "user", "content": t("to_model_report_now", run.language)})
    repeats = 0 if fresh else after.repeats + 1
    stop = words_for(run.language)("model_reason_repeats") if repeats >= MAX_REPEATS else None
    yield Result(value=replace(after, own_calls=after.own_calls + fresh, repeats=repeats, stop_reason=stop))


async def _judged(run: Run, driver: ModelDriver, after: _After, draft: str, *, cut: bool) -> Step[_After]:
    """A draft judged: sent back (the loop goes on), taken as the report, or replaced by the app's."""
    judging = relay(
        judge(
            run,
            draft,
            drafts=after.drafts,
            own_calls=after.own_calls,
            tools=driver.tool_names,
            schemas=driver.prefix_tools() or (),
            min_reads=_min_reads(run, driver),
            strict=driver.local,  # a small model's report keeps only what the check can stand behind
            corrector=(lambda: _corrections(run, driver)) if driver.local else None,
        ),
        otherwise=Judged(decision="accept", drafts=after.drafts, report=draft),
    )
    async for item in judging:
        yield item
    judged = judging.value
    if judged.decision == "again":
        yield Result(value=replace(after, drafts=judged.drafts))
        return
    if cut and judged.decision == "accept":
        yield Added(degraded=(f"the model's report was cut at its {driver.max_tokens:,}-token limit",))
    written = judged.decision == "replace"
    yield Result(value=replace(after, report=judged.report, written=written, drafts=judged.drafts))


async def _corrections(run: Run, driver: ModelDriver) -> Step[str]:
    """A local model's turn correcting sentences of its report (:mod:`~agent_core.agent.corrections`):
    its reply, kept in the conversation ("" when the turn failed: the sentences stay, for the check). A
    reply that opens a heading (a report written again) or a call is stopped there."""
    stop = StreamCut(report=True, calls=0)
    asked = relay(driver.turn(run, tools=False, purpose="revise", cut=stop), otherwise=NO_TURN)
    async for item in asked:
        yield item
    turn = asked.value.turn
    reply = turn.content.strip() if turn is not None and asked.value.error is None else ""
    if reply:
        run.parts.conversation.add({"role": "assistant", "content": reply})
    yield Result(value=reply)


def _min_reads(run: Run, driver: ModelDriver) -> int:
    """Files the model must read itself before its draft is taken: :data:`MIN_LOCAL_READS` for a local
    model after the brief (the prefetch's calls are ``basics-``: agent.prefetch), else one."""
    briefed = any(r.call_id.startswith("basics-") for r in run.state.all_results)
    return MIN_LOCAL_READS if driver.local and briefed else 1


_CUT_NOTICES = {"cut_report": "notice_draft_before_reads", "cut_calls": "notice_calls_cut"}


def _local_cut(run: Run, driver: ModelDriver, after: _After) -> StreamCut | None:
    """Where a local model's answer is stopped as it streams (None: any other model's never is):

    * a report begun when it would be sent back for reads (the draft review's rule,
      :func:`~agent_core.agent.draft_review.judge`) stops at its first heading, not written whole first
      (the real 1.5B, after one read, wrote 380 tokens, 78 s on two cores, to have them set aside); not
      before its first call: a draft with no read at all is judged whole (an echo, a report from memory),
      to be told what it is;
    * calls written as text stop once the reads still due are asked for (one, when none is due): its
      time allows that many now, and it may ask for more after their results;
    * once its reads are done and one more would bring its report past the minute
      (:meth:`~agent_core.agent.pace.Pace.reads_over`, asked as the call opens), a call is stopped
      there, and the model is told once that its time for reading is over (the real 1.5B, its two
      reads done at 50 s, asked for two more and replied empty once: its report began at 68 s)."""
    if not driver.local:
        return None
    due = max(0, _min_reads(run, driver) - after.own_calls)
    first = not run.follow_up and not after.drafts.asked_to_read
    report = first and after.own_calls > 0 and due > 0 and run.calls_left() > 0
    if due or after.time_up or not first:
        return StreamCut(report=report, calls=max(1, due))
    return StreamCut(report=report, calls=1, over=lambda: driver.pace.reads_over(run.t()))


def _time_up(run: Run) -> ev.Notice:
    """A local model's call begun past its time for reading: not run, nor kept in the conversation; the
    model is asked for the report, and said so in the trace."""
    run.parts.conversation.add({"role": "user", "content": t("to_model_time_up", run.language)})
    up = said("notice_reads_time_up")
    return ev.Notice(t=run.t(), level="info", message=say(up, "en"), said=(up,))


def _observation_chars(run: Run, driver: ModelDriver, *, calls: int, due_after: int) -> int | None:
    """What each observation of a local model's turn may hold, in characters: its share of the time left
    before the report's first word is due (:meth:`~agent_core.agent.pace.Pace.read_tokens`), and of the
    room its window has left (a 4,096-token server: two whole reads would push the first out of the
    conversation before the report is written); None for any other endpoint (the run's setting decides)."""
    if not driver.local:
        return None
    room = driver.budget() - driver.estimate(run.parts.conversation.messages) - ROOM_KEPT
    by_room = max(MIN_ROOM_TOKENS, room // max(1, calls + due_after))
    tokens = driver.pace.read_tokens(elapsed=run.t(), calls=calls, due_after=due_after)
    return int(min(by_room, tokens if tokens is not None else by_room) * CHARS_PER_TOKEN)


def _stopped(run: Run, driver: ModelDriver, outcome: TurnOutcome, *, nudged: bool) -> _After:
    """A turn that failed, or was stopped mid-report (its partial report is the answer)."""
    if outcome.error is None and outcome.turn is not None:
        return _After(report=_answer(run, driver, outcome.turn), nudged=nudged, partial=True)
    return _After(failure=outcome, nudged=nudged)


def _answer(run: Run, driver: ModelDriver, turn: ModelTurn) -> str:
    """A turn's text taken as the answer (a text-protocol reply: its ``Final:``), kept in the conversation."""
    content = turn.content
    if driver.text_mode:
        with contextlib.suppress(ReactFormatError):
            content = parse_react(content).final or content
    run.parts.conversation.add({"role": "assistant", "content": turn.content})
    return content.strip()


async def _forced_report(run: Run, driver: ModelDriver, after: _After, turn: ModelTurn) -> Flow:
    """The report asked for after a limit: judged with no turn left to revise it (an unfit one is
    replaced by the app's report); a partial one (its time is up) is kept as it is."""
    content = _answer(run, driver, turn)
    if not turn.partial:
        schemas = driver.prefix_tools() or ()
        if turn.finish_reason == "length":
            yield Added(degraded=(f"the model's report was cut at its {driver.max_tokens:,}-token limit",))
        judging = relay(
            judge(
                run,
                content,
                drafts=after.drafts,
                own_calls=after.own_calls,
                schemas=schemas,
                final=True,
                strict=driver.local,
            ),
            otherwise=Judged(decision="accept", drafts=after.drafts, report=content),
        )
        async for item in judging:
            yield item
        judged = judging.value
        if judged.decision == "replace" and judged.report is not None:
            async for event in finish(run, judged.report, writer="fallback", cost=driver.cost(run)):
                yield event
            return
        content = judged.report if judged.report is not None else content  # what a taken draft lost
    async for event in _finish_model(run, driver, content, partial=turn.partial):
        yield event


def _ask_to_use_tools(run: Run) -> ev.Notice:
    """The model answered with nothing observed: its answer is dropped, and it is asked once to look."""
    run.parts.conversation.add({"role": "user", "content": use_tools_request(run.language)})
    look = said("notice_use_tools")
    return ev.Notice(t=run.t(), level="warning", message=say(look, "en"), said=(look,))


async def _finish_without_answer(run: Run, driver: ModelDriver, after: _After, reason: str) -> Flow:
    """A limit stopped exploration, or the model failed: ask once without tools (unless the time is up;
    a reply unfit to be the report is replaced, never sent back), else write it ourselves."""
    stop_reason = after.stop_reason
    in_time = run.time_limit_reached() is None
    if stop_reason is not None and in_time and gathered_anything(run) and driver.available(run):
        yield ev.Notice(
            t=run.t(),
            level="warning",
            message=f"Stopping exploration: {stop_reason}. Asking the model for the report.",
        )
        run.parts.conversation.add({"role": "user", "content": report_request(run.language, stop_reason)})
        asked = relay(driver.turn(run, tools=False), otherwise=NO_TURN)
        async for item in asked:
            yield item
        outcome = asked.value
        if outcome.turn is not None and outcome.turn.content.strip():
            async for event in _forced_report(run, driver, after, outcome.turn):
                yield event
            return
        if outcome.error is not None:
            reason = model_reason(outcome.error, run.language)
            yield Added(failure=driver.diagnose(outcome.error))
    if not gathered_anything(run):
        # Nothing usable was gathered (the model failed first, or every call it made failed): GitHub may
        # be fine, so gather the basics without the model, whatever limit the model's run reached.
        yield ev.Notice(
            t=run.t(), level="warning", message=f"{reason}: the offline planner gathers the basics instead."
        )
        async for event in planner_turns(run, within_limits=False):
            yield event
    if not gathered_anything(run):
        yield failed(run)
        return
    report = await off_loop(written_report, run, reason=reason)
    yield Added(degraded=(f"report written by the deterministic writer: {reason}",))
    async for event in finish(run, report, writer="fallback", cost=driver.cost(run)):
        yield event
