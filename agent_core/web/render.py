"""Pure functions and one small state object from the event stream to what the page shows.

No gradio here: everything returns plain dicts, lists and strings, so it is tested without a browser.

:class:`TraceView` folds one run's events (``apply``) into
  * ``messages()`` — the trace in Gradio's messages format: the user's request; per turn a collapsible
    step (``metadata.id == "turn-N"``) streaming the reasoning; nested in it (``parent_id``) each tool
    call (``id == call_id``), pending → done, with badges in ``log`` and the result preview in a fenced
    block (a file tree as a short summary); breaker transitions and notices nested where they happened;
    last, a pointer to the report panel (the report is on the page once);
  * ``report`` — a :class:`~agent_core.web.report_view.ReportView`: the report pane, the checked panel,
    the export;
  * ``stats`` — a :class:`~agent_core.web.stats.StatsView`: the figures and the breakers as the
    events tell them (replay has no live board).

How a run ended, in the UI's language (:func:`finished_phase`, :func:`failed_phase`, :func:`report_pane`):
the status line and the report pane name the part that failed and what to do next, from the run's
:class:`~agent_core.events.Diagnosis` through :func:`agent_core.diagnosis.explain`. A report the
deterministic writer wrote because the model failed says so (never "some data could not be read", which
blames GitHub); one with data missing says which data and why; a failed run shows the explanation in the
report pane instead of the placeholder; a stopped run says "Stopped", without error styling, and keeps
the partial report.

Security: repository content and model output are untrusted. Every text goes through
:mod:`agent_core.web.markdown` (no raw HTML: ``<`` escaped outside code, previews fenced, titles one
escaped line). Gradio's sanitiser is the second layer; the app never renders any of this through
``gr.HTML`` or ``sanitize_html=False``.
"""

from __future__ import annotations

from typing import assert_never

from agent_core import events as ev
from agent_core.diagnosis import explain
from agent_core.report.draft_words import draft_claims, draft_line
from agent_core.report.reading import prompt_progress
from agent_core.web.breakers import breaker_label
from agent_core.web.markdown import one_line, safe_markdown
from agent_core.web.report_view import ReportView
from agent_core.web.stats import StatsView, step_usage
from agent_core.web.trace_items import (
    Call,
    Item,
    Message,
    Step,
    call_badges,
    call_preview,
    diagram_item,
    report_pointer,
    scope_items,
    short_args,
)
from agent_core.words import say, t

# ------------------------------------------------------------------------------------------ the view


class TraceView:
    """One run's trace, built event by event, with the report pane and the stats it feeds. Not
    thread-safe; one per run, never shared."""

    def __init__(self, *, lang: str = "en", request: str | None = None, show_rate_limit: bool = True) -> None:
        self.lang = lang
        self.request = request
        self.report = ReportView(lang)
        self.stats = StatsView(lang, show_rate_limit=show_rate_limit)
        self.started: ev.RunStarted | None = None
        self.result: ev.RunFinished | ev.RunFailed | None = None
        self.stopped = False
        self.events: list[ev.Event] = []
        self._items: list[Item] = []
        self._steps: dict[int, Step] = {}
        self._calls: dict[str, Call] = {}
        self._purposes: dict[int, str] = {}
        self._current: Step | None = None
        self._now = 0.0
        self._stopped_item: Item | None = None
        # The request as rendered, with what it was rendered from: every frame shows it, and a question
        # at the length limit is milliseconds of Markdown escaping (issue 20: once, not per frame).
        self._request_shown: tuple[str | None, ev.RunStarted | None, str] | None = None

    @property
    def finished(self) -> bool:
        """A ``run_finished`` or ``run_failed`` arrived, or the run was stopped."""
        return self.result is not None or self.stopped

    @property
    def now(self) -> float:
        """``t`` of the latest event: seconds since the run started."""
        return self._now

    def apply(self, event: ev.Event) -> None:
        """Fold one event in. Events arriving after :meth:`mark_stopped` are ignored."""
        if self.stopped:
            return
        self.events.append(event)
        self._now = max(self._now, event.t)
        self.report.apply(event)
        self.stats.apply(event)
        match event:
            case ev.RunStarted():
                self.started = event
                self._items.extend(scope_items(event, self.lang))  # a /tree/ or /blob/ URL's scope
            case ev.TurnStarted():
                self._turn_started(event)
            case ev.ReasoningDelta():
                said = say(event.said, self.lang) if event.said else event.text  # the app's: in words
                self._step(event.turn, event.t).reasoning.feed(said)
            case ev.TextDelta() | ev.RateLimitUpdated() | ev.ClaimsChecked():
                pass  # the report pane's and the stats'
            case ev.TurnFinished() | ev.TurnProgress():
                self._turn_finished(event)
            case ev.ToolCallStarted() | ev.ToolRetry() | ev.ToolCallFinished():
                self._tool(event)
            case ev.BreakerChanged():
                self._breaker(event)
            case ev.Notice() | ev.DraftReviewed():
                self._notice(event)
            case ev.DiagramDrawn():
                self._nested(diagram_item(event, self.lang))
            case ev.RunFinished() | ev.RunFailed():
                self._end(event)
            case _:
                assert_never(event)

    def _tool(self, event: ev.ToolCallStarted | ev.ToolRetry | ev.ToolCallFinished) -> None:
        match event:
            case ev.ToolCallStarted():
                self._call_started(event)
            case ev.ToolRetry():
                self._retry(event)
            case ev.ToolCallFinished():
                self._call_finished(event)

    def _end(self, event: ev.RunFinished | ev.RunFailed) -> None:
        self._close_all(event.t)
        self.result = event
        if isinstance(event, ev.RunFailed) and not self.report.markdown():
            self._items.append(Item(body=t("report_pointer_failed", self.lang)))  # the pane says why, once
        elif isinstance(event, ev.RunFailed):
            message = event.message + (f" ({event.hint})" if event.hint else "")
            self._items.append(Item(body=safe_markdown(t("failed", self.lang, message=message))))

    def _turn_started(self, event: ev.TurnStarted) -> None:
        self._purposes[event.turn] = event.purpose
        if self._current is not None:
            self._close_step(self._current, event.t)
        if event.purpose in ("explore", "revise"):
            self._step(event.turn, event.t)

    def _step(self, turn: int, at: float) -> Step:
        step = self._steps.get(turn)
        if step is None:
            purpose = self._purposes.get(turn)
            title = t(f"{purpose}_step", self.lang) if purpose in ("report", "revise") else None
            step = Step(
                turn=turn,
                id=f"turn-{turn}",
                title=f"🧠 {t('step', self.lang)} {turn}" + (f" · {title}" if title else ""),
                status="pending",
                started=at,
            )
            self._steps[turn] = step
            self._items.append(step)
        self._current = step
        return step

    def _turn_finished(self, event: ev.TurnFinished | ev.TurnProgress) -> None:
        if isinstance(event, ev.TurnProgress):  # a slow model reading its prompt: beside the step's title
            self._step(event.turn, event.t).progress = prompt_progress(event, self.lang, prefix="turn_")
            return
        step = self._steps.get(event.turn)
        explored = self.report.explored(event)  # text streamed as the answer, then tools asked for
        if explored is not None:
            self._step(event.turn, event.t).notes.feed(explored)
        if step is None:
            return
        usage = step_usage(event, self.lang)
        if usage is not None and step.title is not None:
            step.title += f" · {usage}"
        step.turn_finished = True
        if event.tool_calls == 0:
            self._close_step(step, event.t)

    def _call_started(self, event: ev.ToolCallStarted) -> None:
        step = self._step(event.turn, event.t)
        step.open_calls.add(event.call_id)
        multi = self.started is not None and len(self.started.targets) > 1
        label = short_args(event.arguments, with_repo=multi)
        call = Call(
            id=event.call_id,
            parent_id=step.id,
            title=one_line(f"🔧 {event.tool}" + (f" · {label}" if label else "")),
            status="pending",
            started=event.t,
            arguments=event.arguments,
        )
        self._calls[event.call_id] = call
        self._items.append(call)

    def _retry(self, event: ev.ToolRetry) -> None:
        call = self._calls.get(event.call_id)
        if call is None:
            return
        reason = one_line(event.reason, 120)
        line = t("retry_line", self.lang, attempt=event.attempt, reason=reason, delay=event.delay_s)
        call.lines.append(line)
        call.log = [f"retry {event.attempt}: {one_line(event.reason, 40)}"]

    def _call_finished(self, event: ev.ToolCallFinished) -> None:
        call = self._calls.get(event.call_id)
        if call is None:  # a finish without a start (a cut recording): show it anyway
            title = one_line(f"🔧 {event.tool}")
            call = Call(id=event.call_id, title=title, status="pending", started=event.t)
            self._calls[event.call_id] = call
            self._items.append(call)
        call.status, call.duration = "done", event.duration_s
        call.log = call_badges(event, self.lang)
        call.preview = call_preview(event, self.lang)
        if event.error and not event.stale:
            call.lines.append(safe_markdown(f"**{t('call_error', self.lang)}** {one_line(event.error, 300)}"))
        step = self._steps.get(event.turn)
        if step is not None:
            step.open_calls.discard(event.call_id)
            if step.turn_finished and not step.open_calls:
                self._close_step(step, event.t)

    def _breaker(self, event: ev.BreakerChanged) -> None:
        name = breaker_label(event.source, event.subject, event.breaker, self.lang)
        text = t("breaker_line", self.lang, name=name, old=event.old, new=event.new, reason=event.reason)
        detail = t("breaker_detail", self.lang, failures=event.failures)
        if event.new == "open":
            detail += t("breaker_next_probe", self.lang, seconds=event.retry_after_s)
        self._nested(Item(title=one_line(text, 160), body=detail))

    def _notice(self, event: ev.Notice | ev.DraftReviewed) -> None:
        if isinstance(event, ev.DraftReviewed):
            self._draft(event)
            return
        icon = "⚠️" if event.level == "warning" else "ℹ️"
        message = say(event.said, self.lang) if event.said else event.message
        title = one_line(f"{icon} {message}", 160)
        # The body repeats the message only when the title had to cut it.
        body = safe_markdown(message) if title.endswith("…") else ""
        self._nested(Item(title=title, body=body))

    def _draft(self, event: ev.DraftReviewed) -> None:
        """The app's judgement of a draft: one line, and the claims it corrected or still holds wrong."""
        lines = [
            f"- {mark}: {claim} ({seen})" if seen else f"- {mark}: {claim}"
            for mark, claim, seen in draft_claims(event, self.lang)
        ]
        title = one_line(f"🔁 {draft_line(event, self.lang)}", 160)
        self._nested(Item(title=title, body=safe_markdown("\n".join(lines))))

    def _nested(self, item: Item) -> None:
        """Inside the step that is running, else at the top level."""
        step = self._current
        if step is not None and step.status == "pending":
            item.parent_id = step.id
        self._items.append(item)

    def _close_step(self, step: Step, at: float) -> None:
        step.close(at)
        if self._current is step:
            self._current = None

    def _close_all(self, at: float, note: str | None = None) -> None:
        for item in self._items:
            item.close(at, note=note)
        self._current = None

    def mark_stopped(self, at: float | None = None) -> None:
        """The user pressed Stop: every pending item turns done (marked stopped); the partial answer stays."""
        if self.result is not None or self.stopped:
            return
        self.stopped = True
        self.report.stop()
        self._close_all(self._now if at is None else at, note=t("stopped_log", self.lang))
        self._stopped_item = Item(title=t("stopped", self.lang), status="done")

    def messages(self, *, with_answer: bool = False) -> list[Message]:
        """The trace in Gradio's messages format (fresh dicts on every call). The answer is in the report
        panel, so the trace ends with a pointer to it; ``with_answer`` puts the answer itself there instead
        (an earlier run of a conversation, whose answer the report panel no longer shows)."""
        out: list[Message] = []
        request = self._request_text()
        if request:
            out.append({"role": "user", "content": request})
        out.extend(item.to_message() for item in self._items)
        answer = self.report.streamed()
        if answer and with_answer:
            out.append({"role": "assistant", "content": answer})
        elif answer:
            out.append(report_pointer(self.report.state(), self.lang))
        if self._stopped_item is not None:
            out.append(self._stopped_item.to_message())
        return out

    def _request_text(self) -> str:
        shown = self._request_shown
        if shown is None or shown[0] is not self.request or shown[1] is not self.started:
            shown = self._request_shown = (self.request, self.started, self._render_request())
        return shown[2]

    def _render_request(self) -> str:
        if self.request is not None:
            return safe_markdown(self.request)
        if self.started is None:
            return ""
        if self.started.follow_up:
            return safe_markdown(self.started.question)
        names = ", ".join(f"**{name}**" for name in self.started.targets)
        question = self.started.question.strip()
        return safe_markdown(f"{names}\n\n{question}" if question else names)


def explanation(diagnosis: ev.Diagnosis, lang: str) -> str:
    """``what`` and ``next step`` as one sentence pair (plain text)."""
    said = explain(diagnosis, lang)
    return f"{said.what} {said.next_step}"


def finished_phase(event: ev.RunFinished, lang: str) -> str:
    """The status line's phase for a finished run: who wrote the report, and what went missing."""
    d = event.diagnosis
    if event.writer == "fallback" or (d is not None and d.source == "model"):
        why = (
            explanation(d, lang) if d is not None and d.source == "model" else t("model_failed_unknown", lang)
        )
        return t("status_model_failed", lang, why=why)
    if not event.degraded:
        return t("status_done", lang)
    if d is not None:
        return t(f"status_missing_{d.source}", lang, why=explanation(d, lang))
    return t("status_degraded", lang)


def failed_phase(event: ev.RunFailed, lang: str, *, in_pane: bool = False) -> str:
    """The status line's phase for a failed run: the cause and the next step when they are known; only
    a pointer when the report pane says them (``in_pane``: a failure is said once, not three times)."""
    if in_pane:
        return t("status_failed_see_report", lang)
    if event.diagnosis is not None:
        return t("status_failed", lang, message=explanation(event.diagnosis, lang))
    return t("status_failed", lang, message=event.message + (f" ({event.hint})" if event.hint else ""))


def failure_markdown(event: ev.RunFailed, lang: str) -> str:
    """The report pane of a failed run: what happened and what to do (may quote a repository name)."""
    if event.diagnosis is not None:
        said = explain(event.diagnosis, lang)
        what, next_step = said.what, said.next_step
    else:
        what, next_step = event.message, event.hint or t("failed_next_unknown", lang)
    return safe_markdown(
        f"### {t('failed_heading', lang)}\n\n**{what}**\n\n{t('next_step', lang)} {next_step}"
    )


def report_pane(view: TraceView | None, lang: str) -> str:
    """What the report pane shows: the report (partial while it streams or after Stop), else why there
    is none (a failure's explanation, a run stopped before its report), else the placeholder."""
    report = view.report.markdown() if view is not None else ""
    if report:
        return report
    if view is not None and isinstance(view.result, ev.RunFailed):
        return failure_markdown(view.result, lang)
    if view is not None and view.stopped:
        return t("report_stopped_empty", lang)
    return t("report_empty", lang)
