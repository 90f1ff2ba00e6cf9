"""A model's draft judged before it becomes the report: what real small models reply is read, not trusted.

:func:`~.draft_checks.review` looks at one draft (the text of a turn that called no tool) and says what is wrong with it:

* ``tool_call``: the whole reply is JSON (a tool call written as text, whatever name it gives);
* ``echo``: most of its lines are copied from the prompt or the brief (the system and user messages);
* ``repeated_block``: a block of lines written twice, or any loop the stream's guard cuts
  (:class:`~agent_core.llm.degeneration.RepetitionGuard`);
* ``from_memory``: the model read nothing itself and the draft names paths, links or dependencies the
  repository does not have;
* ``no_reads``: the model read nothing itself (the brief alone); ``few_reads``: fewer files than asked
  (a local model: two, the real 1.5B read one source file and wrote of the tests and CI);
* ``contradicted`` / ``missing_paths``: the claim check (:func:`~agent_core.report.claims.check_report`)
  marks claims ✗, or cited files are not in the tree;
* ``unconfirmed`` (a local model's draft, ``strict``): dependencies no manifest read declares, or the
  repository itself among them (the 1.5B: fmt "depends on `fmt`, `mock-allocator` and `util`"). Not ✗
  for the reader; for the model, findings in a revision its ✗ claims ask for (one of their own cost the
  1.5B 74 s, and it kept the name).

The first four make a draft unfit to be the report (:attr:`Review.unfit`); the loop
(:mod:`~agent_core.agent.model_run`) gives ONE observation for one revision (:func:`revision_request`),
and a revision still unfit is replaced by the deterministic writer's report, which quotes the draft's
grounded sentences (:func:`~.set_aside.grounded_sentences`: a verified claim, no ✗ one, not copied from the
prompt).
A draft taken loses the lines it copied from the app's requests (:func:`~.draft_checks.without_requests`),
and a local model's the sentences the check cannot stand behind (:mod:`~agent_core.agent.set_aside`).

Pure functions, linear in the draft and the conversation, run off the event loop by the caller."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from agent_core import events as ev
from agent_core.agent.accounting import Added
from agent_core.agent.brief import reads_request, suggested_for
from agent_core.agent.check_reads import read_for_check
from agent_core.agent.corrections import Flagged, flagged, spliced
from agent_core.agent.corrections import request as fix_request
from agent_core.agent.draft_checks import (
    UNFIT,
    Review,
    corrected,
    review,
    without_requests,
)
from agent_core.agent.echo import sent_lines, template_message
from agent_core.agent.endings import written_report
from agent_core.agent.flow import Result, Step, relay
from agent_core.agent.run import Run
from agent_core.agent.set_aside import grounded_sentences, trimmed
from agent_core.offload import off_loop
from agent_core.repo import RepoRef
from agent_core.report.inert import inline
from agent_core.report.phrases import shorten
from agent_core.words import Language, t

_OPENING = 2  # the system prompt and the task with its brief: what follows from the app is a request
_READS = frozenset({"no_reads", "few_reads", "from_memory"})  # a draft sent back for reads: the files


# -- what the model is told -------------------------------------------------------------------------


def revision_request(
    found: Review,
    language: Language,
    *,
    tools: Sequence[str],
    suggested: Sequence[tuple[RepoRef, str]] = (),
) -> str:
    """The ONE observation that sends a draft back: what is wrong with it, each problem in a sentence
    (a draft with no read of the model's own: the files worth reading, by path, and one call), then its
    ✗ claims with what the observations show."""
    skip = {"no_reads", "few_reads"} if "from_memory" in found.problems else set()
    if found.unfit:
        skip |= {"contradicted", "missing_paths"}
    said = [
        t(
            f"to_model_draft_{problem}",
            language,
            copied=found.copied,
            lines=found.lines,
            tools=", ".join(tools),
            own=found.own,
        )
        for problem in found.problems
        if problem not in skip
    ]
    reads = bool(suggested) and bool(_READS & set(found.problems))
    listed = bool(found.findings) and (not found.unfit or "from_memory" in found.problems)
    if listed:
        said.append(t("to_model_draft_findings", language))
        said += [_finding(c, language) for c in found.findings]
    if reads:  # the files by path and one call to copy; the reply asked for is the calls, not a report
        said.append(reads_request(suggested, language))
    else:
        said.append(t("to_model_draft_close" if listed else "to_model_draft_close_plain", language))
    return "\n".join(s for s in said if s)


def _finding(claim: ev.CheckedClaim, language: Language) -> str:
    """One ✗ claim for the model, on one line (its own words and the observed value, cut; no Markdown
    escapes: a backslash in a path would read as part of it)."""
    what = shorten(" ".join(claim.claim.split()), 120)
    if claim.kind in ("path", "link"):
        return t("to_model_draft_missing", language, claim=what)
    if claim.verdict == "unchecked":  # declared by no manifest read (observed: those read), or itself
        if claim.observed is None:
            return t("to_model_draft_itself", language, claim=what)
        read = shorten(" ".join(claim.observed.split()), 160)
        return t("to_model_draft_undeclared", language, claim=what, observed=read)
    observed = shorten(" ".join((claim.observed or "?").split()), 120)
    return t("to_model_draft_wrong", language, claim=what, observed=observed)


# -- the loop's step ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Drafts:
    """What the run's drafts have used so far: each send-back once, and the last one's ✗ claims."""

    asked_to_read: bool = False
    revised: bool = False
    findings: tuple[ev.CheckedClaim, ...] = ()

    @property
    def sent_back(self) -> bool:
        return self.asked_to_read or self.revised


@dataclass(frozen=True, kw_only=True)
class Judged:
    """What becomes of a draft: ``again`` (sent back: the loop goes on), ``accept`` (it is the report),
    ``replace`` (``report`` is the deterministic writer's, quoting the draft's grounded sentences)."""

    decision: Literal["again", "accept", "replace"]
    drafts: Drafts
    report: str | None = None


async def judge(
    run: Run,
    draft: str,
    *,
    drafts: Drafts,
    own_calls: int,
    tools: Sequence[str] = (),
    schemas: Sequence[Mapping[str, Any]] = (),
    final: bool = False,
    min_reads: int = 1,
    strict: bool = False,
    corrector: Callable[[], Step[str]] | None = None,
) -> Step[Judged]:
    """One draft judged (see the module): the decision, its ``draft_reviewed`` event when the app acted
    on it, and for a draft sent back the one observation that says why (``final``: none is, the run has
    no turn left for it). The draft is the conversation's last message; the messages before it, and the
    tool ``schemas`` as a chat template shows them to the model, are what it may have copied.
    ``min_reads``: the files the model must read itself before a draft is taken (asked once); ``strict``:
    dependencies no manifest read declares are findings too (:func:`~.draft_checks.review`): before they are said, the
    check's reads run (:func:`~agent_core.agent.check_reads.read_for_check`) and the draft is judged again
    (the 1.5B was told fmt's vendored `gtest` was declared nowhere); for a draft taken, the same reads
    first when it names a dependency no manifest read declares. A ``strict`` draft taken loses the
    sentences the check cannot stand behind (:mod:`~agent_core.agent.set_aside`), said in the trace and in
    a line at the report's end. ``corrector`` (a local model): a draft sent back for its ✗ claims alone
    gets its wrong sentences back to correct, one line each (:mod:`~agent_core.agent.corrections`):
    ``corrector()`` runs the model's turn on that request and returns its reply, spliced into the draft,
    which is then taken; the draft streamed as the report stays the report. Its ✗ claims all in fenced
    blocks (a drawn tree: the real 1.5B redrew gson's for 88 s and drew it wrong again), it is taken as
    it is, the blocks set aside."""
    sent = [*run.parts.conversation.messages[:-1], template_message(schemas)]

    async def judged() -> Review:
        return await _checked(run, draft, sent=sent, own_calls=own_calls, min_reads=min_reads, strict=strict)

    found = await judged()
    if found.undeclared:  # an unread manifest may declare them: read, then judge again (else set aside)
        async for event in read_for_check(run, draft):
            yield event
        found = await judged()
    if found.unfit and (drafts.revised or final):
        async for item in replaced(run, draft, found, sent):
            yield item
        return
    again = None if final else _sent_back(run, found, drafts, own_calls=own_calls)
    revising = corrector is not None and again is not None and again.revised and not drafts.revised
    fixing = flagged(draft, found.findings) if revising and not found.unfit else ()
    if revising and not found.unfit and not fixing:  # only a drawn tree wrong: set aside whole, not redrawn
        again = None
    rewritten: tuple[str, ...] = ()  # the lines a local model's corrections put in
    if corrector is not None and again is not None and fixing:  # sentence by sentence: the draft stays
        yield _reviewed(run, "revise", found, findings=found.findings)
        fixes = relay(_fixed(run, draft, fixing, corrector), otherwise=(draft, ()))
        async for item in fixes:
            yield item
        drafts, again = replace(again, findings=found.findings), None
        draft, rewritten = fixes.value
        found = await _checked(run, draft, own_calls=own_calls, min_reads=min_reads, strict=strict)
    if again is not None:
        async for item in _sent(run, found, again, tools=tools, own_calls=own_calls, min_reads=min_reads):
            yield item
        return
    async for item in _taken(run, draft, sent, found, drafts, strict=strict, rewritten=rewritten):
        yield item


async def _sent(
    run: Run, found: Review, again: Drafts, *, tools: Sequence[str], own_calls: int, min_reads: int
) -> Step[Judged]:
    """A draft sent back: the one observation that says why (with the files worth reading when it lacks
    reads), said in the trace."""
    again = replace(again, findings=found.findings)
    outcome: ev.DraftOutcome = "read_first" if again.asked_to_read and not again.revised else "revise"
    reads = (
        await off_loop(suggested_for, run.parts.scope, run.state.all_results) if own_calls < min_reads else ()
    )
    request = revision_request(found, run.language, tools=tools, suggested=reads)
    if outcome == "read_first":
        # The draft left out: after its reads the real 1.5B wrote it again, word for word; given a
        # note in its place, it wrote the note.
        run.parts.conversation.messages.pop()
    run.parts.conversation.add({"role": "user", "content": request})
    yield _reviewed(run, outcome, found, findings=found.findings)
    yield Result(value=Judged(decision="again", drafts=again))


async def _taken(
    run: Run,
    draft: str,
    sent: Sequence[Mapping[str, Any]],
    found: Review,
    drafts: Drafts,
    *,
    strict: bool,
    rewritten: Sequence[str] = (),
) -> Step[Judged]:
    """A draft taken as the report: without the lines it copied from the app's requests, a ``strict``
    one without what the check cannot stand behind, and what an earlier send-back corrected, said."""
    report = without_requests(draft, sent[_OPENING:-1])  # after the opening: the app's requests
    aside: tuple[ev.CheckedClaim, ...] = ()
    if strict:  # a small model's report keeps only what the check can stand behind
        check = found.check if report == draft else (await _checked(run, report)).check
        report, aside = await off_loop(
            trimmed, report, check, run.parts.scope, run.state.all_results, rewritten
        )
    left = () if strict else found.findings
    if drafts.findings:  # an earlier draft was sent back with ✗ claims: what the revision corrected
        gone = " ".join(piece.claim.casefold() for piece in aside)  # what was set aside is not corrected
        fixed = tuple(c for c in corrected(drafts.findings, found) if c.claim.casefold() not in gone)
        yield _reviewed(run, "accepted", found, findings=left, corrected=fixed, set_aside=aside)
    elif aside:
        yield _reviewed(run, "trimmed", found, set_aside=aside)
    if aside:
        report = f"{report.rstrip()}\n\n{t('draft_set_aside_note', run.language, count=len(aside))}\n"
    yield Result(value=Judged(decision="accept", drafts=drafts, report=report))


async def _fixed(
    run: Run, draft: str, fixing: Sequence[Flagged], corrector: Callable[[], Step[str]]
) -> Step[tuple[str, tuple[str, ...]]]:
    """``draft`` with the model's corrections of the sentences ``fixing`` in their places, and the lines
    put in."""
    run.parts.conversation.add({"role": "user", "content": fix_request(fixing, run.language)})
    reply = relay(corrector(), otherwise="")
    async for item in reply:
        yield item
    yield Result(value=await off_loop(spliced, draft, fixing, reply.value))


async def _checked(
    run: Run,
    draft: str,
    *,
    sent: Sequence[Mapping[str, Any]] = (),
    own_calls: int = 0,
    min_reads: int = 1,
    strict: bool = False,
) -> Review:
    """:func:`~.draft_checks.review` of ``draft``, off the event loop, against what the run has read by now."""
    return await off_loop(
        review,
        draft,
        sent=sent,
        own_calls=own_calls,
        scope=run.parts.scope,
        results=run.state.all_results,
        min_reads=min_reads,
        strict=strict,
        now=run.today(),
    )


def _sent_back(run: Run, found: Review, drafts: Drafts, *, own_calls: int) -> Drafts | None:
    """What the drafts have used once this one is sent back (for a revision, or for reads), or None: it
    is taken. A follow-up answers from what the first report's run read: asked only to be fit."""
    first = not run.follow_up
    if found.unfit:
        return replace(drafts, revised=True, asked_to_read=drafts.asked_to_read or own_calls == 0)
    if first and _READS & set(found.problems) and not drafts.asked_to_read and run.calls_left() > 0:
        return replace(drafts, asked_to_read=True)
    if first and found.findings and not drafts.revised:
        return replace(drafts, revised=True)
    return None


async def replaced(run: Run, draft: str, found: Review, sent: Sequence[Mapping[str, Any]]) -> Step[Judged]:
    """The deterministic writer's report in place of an unfit draft, quoting its grounded sentences, said
    as such in the report and in its gaps (degraded)."""
    prose = not {"tool_call", "echo"} & set(found.problems)  # a call is no prose; an echo's, the prompt's
    kept = grounded_sentences(draft, found.check, sent_lines(sent)) if prose else []
    problems = _problem_words(found, run.language)
    reason = t("draft_replaced_reason", run.language, problems=problems)
    report = await off_loop(written_report, run, reason=reason)
    if kept:
        quoted = "\n>\n".join(f"> {inline(sentence)}" for sentence in kept)
        heading = t("draft_kept_heading", run.language)
        report = f"{report.rstrip()}\n\n## {heading}\n\n{t('draft_kept_note', run.language)}\n\n{quoted}\n"
    yield Added(degraded=(reason,))
    yield _reviewed(run, "replaced", found, findings=found.findings, kept=len(kept))
    drafts = Drafts(revised=True)
    yield Result(value=Judged(decision="replace", drafts=drafts, report=report))


def _reviewed(run: Run, outcome: ev.DraftOutcome, found: Review, **what: Any) -> ev.DraftReviewed:
    """The event of a review's outcome; ``what``: the other fields of :class:`~agent_core.events.DraftReviewed`."""
    return ev.DraftReviewed(t=run.t(), turn=run.turn, outcome=outcome, problems=found.problems, **what)


def _problem_words(found: Review, language: Language) -> str:
    shown = [p for p in found.problems if p in UNFIT] or list(found.problems)
    return ", ".join(t(f"draft_problem_{p}", language) for p in shown)
