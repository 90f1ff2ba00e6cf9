"""How a run ends: ``run_finished`` with a report (the model's, the offline planner's, or the fallback
writer's), or ``run_failed`` when nothing at all could be gathered.

A report the deterministic writer produced is streamed like a model's (one report turn of text deltas),
so every consumer renders all reports the same way. Before ``run_finished`` the app checks the report's
claims against the observations (``claims_checked``). What the app says about a report — the data gaps
(``degraded_reasons``), the key facts and the claim check — travels beside the writer's text, never
inside it, so no model output can be mistaken for it (see :mod:`agent_core.report.export`). The
diagram and the claim check are computed in a worker thread (:mod:`~agent_core.offload`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from agent_core import events as ev
from agent_core.agent.check_reads import read_for_check
from agent_core.agent.diagram_call import diagram_event, diagram_texts, tree_diagrams
from agent_core.agent.flow import Flow
from agent_core.agent.run import Run
from agent_core.agent.turn_words import completed_note
from agent_core.diagnosis import Failure, diagnose_results, explain
from agent_core.errors import CircuitOpenError, LLMError
from agent_core.llm.prices import CostRange
from agent_core.offload import off_loop
from agent_core.report.claims import check_report
from agent_core.report.coverage import run_coverage
from agent_core.report.diagram import Graph
from agent_core.report.writer import Written, written
from agent_core.tools.registry import GET_FILE_TREE, GET_LANGUAGES, GET_REPO_INFO
from agent_core.words import Language, words_for

Writer = Literal["model", "planner", "fallback"]
WHOLE_REPOSITORY_TOOLS = frozenset({GET_REPO_INFO, GET_FILE_TREE, GET_LANGUAGES})
"""Calls that read the repository itself: their 404 means the repository is missing or private."""


async def finish(
    run: Run, report: str, *, writer: Writer, cost: CostRange | None, diagrams: Sequence[Graph] | None = None
) -> Flow:
    """Stream a written report (planner, fallback) as a report turn, then ``run_finished``. ``diagrams``:
    the graphs of a model's report, already announced (consumers append them); a written report has the
    tree's in it (its table renders them), announced here so that consumers know them as the app's."""
    problems = run.data_problems()
    ungrounded: tuple[str, ...] = ()
    if writer == "model":
        if not gathered_anything(run):
            ungrounded = ("the report is not grounded in any observation: no tool call succeeded",)
    else:
        turn = run.next_turn()
        yield ev.TurnStarted(t=run.t(), turn=turn, purpose="report")
        for piece in _paragraphs(report):
            yield ev.TextDelta(t=run.t(), turn=turn, text=piece)
        yield ev.TurnFinished(t=run.t(), turn=turn, tool_calls=0, finish_reason="stop")
        run.parts.conversation.add({"role": "assistant", "content": report})
    async for event in run.parts.sink.drain():
        yield event
    if diagrams is None:
        diagrams = await off_loop(tree_diagrams, run)
        for graph in diagrams:
            yield diagram_event(run, graph)
    skip = diagram_texts(diagrams, run)
    if writer == "model":  # the manifests its claims rest on, not read yet (the check reads what it needs)
        async for item in read_for_check(run, report):
            yield item
    results = run.state.all_results
    check = await off_loop(check_report, report, run.parts.scope, results, skip=skip, now=run.today())
    check = replace(check, t=run.t())
    yield check
    stats = replace(
        run.stats(cost),
        claims_verified=check.verified,
        claims_contradicted=check.contradicted,
        claims_unchecked=check.unchecked,
        coverage=await off_loop(run_coverage, run.parts.scope, results),
    )
    reasons = list(dict.fromkeys([*run.state.degraded, *ungrounded, *problems]))
    yield ev.RunFinished(
        t=run.t(),
        report=report,
        degraded=bool(reasons),
        degraded_reasons=tuple(reasons),
        writer=writer,
        stats=stats,
        diagnosis=run.state.model_failure or (data_diagnosis(run) if reasons else None),
    )


def written_report(run: Run, *, reason: str | None = None) -> str:
    """The deterministic writer's report from everything gathered (planner runs and fallbacks); with a
    ``reason``, a note saying why the model did not write it."""
    return _written(run, reason=reason).markdown()


def _written(run: Run, *, reason: str | None = None) -> Written:
    note = None
    if reason is not None:
        count = sum(r.ok for r in run.state.all_results)
        note = words_for(run.language)("fallback_note", reason=reason, count=count)
    return written(
        scope=run.parts.scope,
        question=run.question,
        results=run.state.all_results,
        language=run.language,
        degraded_reasons=run.data_problems(),
        writer_note=note,
        scopes=run.parts.scopes,
    )


def completed_partial(run: Run, report: str) -> str:
    """A model's report that was stopped before its end, closed (an open code fence) and followed by the
    deterministic writer's sections whose headings it does not have, under a line that says so."""
    report = report.rstrip()
    if report.count("```") % 2:
        report += "\n```"
    have = {_heading(line) for line in report.splitlines() if line.startswith("## ")}  # the model's
    app = _written(run)
    missing = [app.section(title, lines) for title, lines in app.sections if _heading(title) not in have]
    if not missing:
        return report + "\n"
    return "\n\n".join([report, "---", completed_note(run.language), *missing]) + "\n"


def _heading(text: str) -> str:
    return " ".join(text.split("\n", 1)[0].removeprefix("## ").split()).casefold()


def model_reason(error: BaseException | None, language: Language) -> str:
    """Why the model wrote no report, in the report's language: its failure's kind, in words."""
    words = words_for(language)
    if isinstance(error, CircuitOpenError):
        return words("model_reason_open")
    if isinstance(error, LLMError) and words.has(f"model_reason_{error.kind}"):
        return words(f"model_reason_{error.kind}")
    return words("model_reason_unknown")


def failed(run: Run) -> ev.RunFailed:
    """Nothing could be gathered: the cause that explains the failures and what to do, or else the first
    error and the first hint any result gave."""
    diagnosis = data_diagnosis(run) or run.state.model_failure
    hint: str | None
    if diagnosis is not None:
        said = explain(diagnosis, "en")
        message, hint = said.what, said.next_step
    else:
        results = run.results()
        errors = [r.error for r in results if r.error]
        message = errors[0] if errors else "nothing could be gathered about the repository"
        hint = next((str(r.observation.get("hint")) for r in results if r.observation.get("hint")), None)
    return ev.RunFailed(
        t=run.t(), message=f"No report could be produced: {message}", hint=hint, diagnosis=diagnosis
    )


def data_diagnosis(run: Run) -> ev.Diagnosis | None:
    """What explains this run's failed tool calls (no network, a rate limit, a missing repository...)."""
    return diagnose_results(
        Failure(
            cause=r.cause,
            host=r.host,
            source="local" if r.source == "local" else "github",
            reset_at=r.reset_at,
            repo=r.repo.full_name if r.repo is not None else None,
            whole_repository=r.tool in WHOLE_REPOSITORY_TOOLS,
        )
        for r in run.results()
        if not r.ok
    )


def gathered_anything(run: Run) -> bool:
    """Whether any tool call of the analysis (this run or an earlier one) returned data."""
    return any(r.ok for r in run.state.all_results)


def _paragraphs(text: str) -> list[str]:
    pieces = text.split("\n\n")
    return [p + ("\n\n" if i < len(pieces) - 1 else "") for i, p in enumerate(pieces)]
