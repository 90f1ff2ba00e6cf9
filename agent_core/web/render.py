"""Pure functions and one small state object from the event stream to what the page shows.

No gradio here: everything returns plain dicts, lists and strings, so it is tested without a browser.

:class:`TraceView` folds one run's events (``apply``) into
  * ``messages()`` — the trace in Gradio's messages format: the user's request; per turn a collapsible
    step (``metadata.id == "turn-N"``) streaming the reasoning; nested in it (``parent_id``) each tool
    call (``id == call_id``), pending → done, with badges in ``log`` and the result preview in a fenced
    block (a file tree as a short summary); breaker transitions and notices nested where they happened;
    last, a pointer to the report panel (the report is on the page once);
  * ``report_markdown()`` (safe to display) / ``report_text()`` (raw, for export);
  * ``stats_rows()`` / ``stats_markdown()``;
  * ``breaker_snapshots()`` — breaker states as the events tell them (replay has no live board).

Security: repository content and model output are untrusted. Every text goes through
:mod:`agent_core.web.markdown` (no raw HTML: ``<`` escaped outside code, previews fenced, titles one
escaped line). Gradio's sanitiser is the second layer; the app never renders any of this through
``gr.HTML`` or ``sanitize_html=False``.
"""

from __future__ import annotations

from typing import Literal, assert_never

from agent_core import events as ev
from agent_core.report.claims import annotate
from agent_core.report.export import full_report
from agent_core.resilience import BreakerSnapshot
from agent_core.web.breakers import breaker_label
from agent_core.web.checked import checked_markdown
from agent_core.web.diagrams import RunDiagrams
from agent_core.web.i18n import t
from agent_core.web.markdown import MarkdownStream, one_line, safe_markdown
from agent_core.web.stats import LiveStats, prompt_progress, step_usage
from agent_core.web.trace_items import (
    BreakerRow,
    Call,
    Item,
    Message,
    ReportState,
    Step,
    call_badges,
    call_preview,
    diagram_item,
    report_pointer,
    scope_items,
    short_args,
)

# ------------------------------------------------------------------------------------------ the view


class TraceView:
    """One run's trace, built event by event. Not thread-safe; one per run, never shared."""

    def __init__(self, *, lang: str = "en", request: str | None = None, show_rate_limit: bool = True) -> None:
        self.lang = lang
        self.request = request
        self.show_rate_limit = show_rate_limit  # off on a Space that reads GitHub with its owner's quota
        self.started: ev.RunStarted | None = None
        self.result: ev.RunFinished | ev.RunFailed | None = None
        self.stopped = False
        self.claims: ev.ClaimsChecked | None = None  # the app's check of the report, before run_finished
        self._annotated: str | None = None
        self._diagrams = RunDiagrams()
        self.events: list[ev.Event] = []
        self._items: list[Item] = []
        self._steps: dict[int, Step] = {}
        self._calls: dict[str, Call] = {}
        self._purposes: dict[int, str] = {}
        self._answer: list[str] = []
        self._answer_md = MarkdownStream()  # the answer as it streams, rendered once per added line
        self._answer_turn: int | None = None
        self._current: Step | None = None
        self._now = 0.0
        self._breakers: dict[str, BreakerRow] = {}
        self._stats = LiveStats()
        self._stopped_item: Item | None = None

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
        match event:
            case ev.RunStarted():
                self.started, self._stats.estimate = event, event.estimate
                self._items.extend(scope_items(event, self.lang))  # a /tree/ or /blob/ URL's scope
            case ev.TurnStarted():
                self._turn_started(event)
            case ev.ReasoningDelta() | ev.TextDelta():
                self._delta(event)
            case ev.TurnFinished() | ev.TurnProgress():
                self._turn_finished(event)
            case ev.ToolCallStarted() | ev.ToolRetry() | ev.ToolCallFinished():
                self._tool(event)
            case ev.BreakerChanged():
                self._breaker(event)
            case ev.RateLimitUpdated():
                self._stats.rate_limit = (event.remaining, event.limit, event.reset_at)
            case ev.Notice():
                self._notice(event)
            case ev.ClaimsChecked() | ev.DiagramDrawn():
                self._app_said(event)
            case ev.RunFinished() | ev.RunFailed():
                self._end(event)
            case _:
                assert_never(event)

    def _delta(self, event: ev.ReasoningDelta | ev.TextDelta) -> None:
        if isinstance(event, ev.ReasoningDelta):
            self._step(event.turn, event.t).reasoning.feed(event.text)
            return
        # Until a turn ends we cannot know whether its text is the answer, so it streams as the answer
        # and moves into the step if the turn then asks for tools.
        if self._answer_turn != event.turn:
            self._set_answer([], event.turn)
        self._answer.append(event.text)
        self._answer_md.feed(event.text)

    def _set_answer(self, parts: list[str], turn: int | None) -> None:
        self._answer, self._answer_turn = parts, turn
        self._answer_md = MarkdownStream("".join(parts))

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
        if isinstance(event, ev.RunFinished):
            self._set_answer([event.report], -1)
            self._stats.final = event.stats
            return
        message = event.message + (f" ({event.hint})" if event.hint else "")
        self._add(Item(body=safe_markdown(t("failed", self.lang, message=message))))

    def _turn_started(self, event: ev.TurnStarted) -> None:
        self._purposes[event.turn] = event.purpose
        if self._current is not None:
            self._close_step(self._current, event.t)
        self._stats.turns += 1
        if event.purpose == "explore":
            self._step(event.turn, event.t)

    def _step(self, turn: int, at: float) -> Step:
        step = self._steps.get(turn)
        if step is None:
            title = t("report_step", self.lang) if self._purposes.get(turn) == "report" else None
            step = Step(
                turn=turn,
                id=f"turn-{turn}",
                title=f"🧠 {t('step', self.lang)} {turn}" + (f" · {title}" if title else ""),
                status="pending",
                started=at,
            )
            self._steps[turn] = step
            self._add(step)
        self._current = step
        return step

    def _turn_finished(self, event: ev.TurnFinished | ev.TurnProgress) -> None:
        if isinstance(event, ev.TurnProgress):  # a slow model reading its prompt: beside the step's title
            self._step(event.turn, event.t).progress = prompt_progress(event, self.lang)
            return
        step = self._steps.get(event.turn)
        self._stats.tokens_in += event.prompt_tokens or 0
        self._stats.tokens_out += event.completion_tokens or 0
        self._stats.tokens_cached += event.cached_prompt_tokens or 0
        if event.tool_calls > 0 and self._answer_turn == event.turn:
            self._step(event.turn, event.t).notes.feed("".join(self._answer))
            self._set_answer([], None)
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
        self._add(call)

    def _retry(self, event: ev.ToolRetry) -> None:
        call = self._calls.get(event.call_id)
        if call is None:
            return
        reason = one_line(event.reason, 120)
        line = t("retry_line", self.lang, attempt=event.attempt, reason=reason, delay=event.delay_s)
        call.lines.append(line)
        call.log = [f"retry {event.attempt}: {one_line(event.reason, 40)}"]

    def _call_finished(self, event: ev.ToolCallFinished) -> None:
        self._stats.tool_calls += 1
        self._stats.github_requests += event.http_requests
        self._stats.cache_hits += int(event.from_cache or event.memo)
        call = self._calls.get(event.call_id)
        if call is None:  # a finish without a start (a cut recording): show it anyway
            title = one_line(f"🔧 {event.tool}")
            call = Call(id=event.call_id, title=title, status="pending", started=event.t)
            self._calls[event.call_id] = call
            self._add(call)
        call.status, call.duration = "done", event.duration_s
        call.log = call_badges(event)
        call.preview = call_preview(event, self.lang)
        if event.error and not event.stale:
            call.lines.append(safe_markdown(f"**error:** {one_line(event.error, 300)}"))
        step = self._steps.get(event.turn)
        if step is not None:
            step.open_calls.discard(event.call_id)
            if step.turn_finished and not step.open_calls:
                self._close_step(step, event.t)

    def _breaker(self, event: ev.BreakerChanged) -> None:
        old = self._breakers.get(event.breaker)
        failed = event.new != "closed"
        last_error = event.reason if failed else (old.last_error if old else None)
        self._breakers[event.breaker] = BreakerRow(event=event, last_error=last_error)
        name = breaker_label(event.source, event.subject, event.breaker, self.lang)
        text = t("breaker_line", self.lang, name=name, old=event.old, new=event.new, reason=event.reason)
        detail = t("breaker_detail", self.lang, failures=event.failures)
        if event.new == "open":
            detail += t("breaker_next_probe", self.lang, seconds=event.retry_after_s)
        self._nested(Item(title=one_line(text, 160), body=detail))

    def _notice(self, event: ev.Notice) -> None:
        icon = "⚠️" if event.level == "warning" else "ℹ️"
        title = one_line(f"{icon} {event.message}", 160)
        # The body repeats the message only when the title had to cut it.
        body = safe_markdown(event.message) if title.endswith("…") else ""
        self._nested(Item(title=title, body=body))

    def _app_said(self, event: ev.ClaimsChecked | ev.DiagramDrawn) -> None:
        """The app's own parts of a report: its claim check; its diagrams (the app compiles their graphs)."""
        if isinstance(event, ev.ClaimsChecked):
            self.claims = event
            return
        self._diagrams.add(event)
        self._annotated = None
        self._stats.tokens_in += event.prompt_tokens
        self._stats.tokens_out += event.completion_tokens
        self._nested(diagram_item(event, self.lang))

    def _nested(self, item: Item) -> None:
        """Inside the step that is running, else at the top level."""
        step = self._current
        if step is not None and step.status == "pending":
            item.parent_id = step.id
        self._add(item)

    def _close_step(self, step: Step, at: float) -> None:
        step.close(at)
        if self._current is step:
            self._current = None

    def _close_all(self, at: float, note: str | None = None) -> None:
        for item in self._items:
            item.close(at, note=note)
        self._current = None

    def _add(self, item: Item) -> None:
        self._items.append(item)

    def mark_stopped(self, at: float | None = None) -> None:
        """The user pressed Stop: every pending item turns done (marked stopped); the partial answer stays."""
        if self.result is not None or self.stopped:
            return
        self.stopped = True
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
        answer = self._answer_md.value()
        if answer and with_answer:
            out.append({"role": "assistant", "content": answer})
        elif answer:
            out.append(report_pointer(self._report_state(), self.lang))
        if self._stopped_item is not None:
            out.append(self._stopped_item.to_message())
        return out

    def _report_state(self) -> ReportState:
        if isinstance(self.result, ev.RunFinished):
            return "done"
        return "partial" if self.finished else "live"

    def _request_text(self) -> str:
        if self.request is not None:
            return safe_markdown(self.request)
        if self.started is None:
            return ""
        if self.started.follow_up:
            return safe_markdown(self.started.question)
        names = ", ".join(f"**{name}**" for name in self.started.targets)
        question = self.started.question.strip()
        return safe_markdown(f"{names}\n\n{question}" if question else names)

    def report_text(self) -> str:
        """The report as written (raw markdown, for the ``.md`` export); partial while streaming."""
        return "".join(self._answer).strip()

    def report_markdown(self) -> str:
        """The report, safe to hand to ``gr.Markdown``: rendered as it streams (once per added line), and
        once the run ended, with its contradicted claims marked, its links at their permalinks (the app's
        claim check) and a model's report followed by the app's diagrams, rendered once."""
        if isinstance(self.result, ev.RunFinished) and self.claims is not None:
            if self._annotated is None:
                report = self._diagrams.with_section(annotate(self.result.report, self.claims), self.result)
                self._annotated = safe_markdown(report.strip(), diagrams=self._diagrams.mermaid)
            return self._annotated
        return self._answer_md.value()

    def checked_markdown(self) -> str:
        """The app's panel beside the report: key facts, data gaps, the claim check."""
        reasons = self.result.degraded_reasons if isinstance(self.result, ev.RunFinished) else ()
        return checked_markdown(self.claims, reasons, self.lang, finished=self.finished)

    def export_text(self) -> str:
        """The ``.md`` export: the report (a model's with its diagrams) and the app's appendix."""
        if not isinstance(self.result, ev.RunFinished):
            return self.report_text()
        r, shown = self.result, self._diagrams.appended(self.result)
        lang: Literal["en", "zh"] = "zh" if self.lang == "zh" else "en"
        return full_report(r.report, self.claims, r.degraded_reasons, lang, diagrams=shown, coverage=r.stats.coverage)  # fmt: skip

    def stats_rows(self) -> list[tuple[str, str]]:
        rows = self._stats.rows(self.lang, self._now, mode=self.started.mode if self.started else None)
        if self.show_rate_limit:
            return rows
        return [row for row in rows if row[0] != t("stat_rate_limit", self.lang)]

    def tokens_used(self) -> int:
        """Model tokens this run used so far (prompt and completion, as the endpoint reported them)."""
        final = self._stats.final
        if final is not None:
            return final.prompt_tokens + final.completion_tokens
        return self._stats.tokens_in + self._stats.tokens_out

    def stats_markdown(self) -> str:
        """The stats as a Markdown list (``- **Turns:** 3``)."""
        return "\n".join(f"- **{label}:** {value}" for label, value in self.stats_rows())

    def breaker_snapshots(self, at: float | None = None) -> list[BreakerSnapshot]:
        """Breakers as the events tell them, ``retry_after`` counted down to ``at`` (default: latest t)."""
        now = self._now if at is None else at
        return [row.snapshot(now) for row in self._breakers.values()]
