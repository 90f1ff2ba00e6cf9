"""Pure functions and one small state object from the event stream to what the page shows.

No gradio here: everything returns plain dicts, lists and strings, so it is tested without a browser.

:class:`TraceView` folds one run's events (``apply``) into
  * ``messages()`` — the trace in Gradio's messages format: the user's request; per turn a collapsible
    step (``metadata.id == "turn-N"``) streaming the reasoning; nested in it (``parent_id``) each tool
    call (``id == call_id``), pending → done, with badges in ``log`` and the result preview in a fenced
    block; breaker transitions and notices nested where they happened; the answer last, without
    metadata;
  * ``report_markdown()`` (safe to display) / ``report_text()`` (raw, for export);
  * ``stats_rows()`` / ``stats_markdown()``;
  * ``breaker_snapshots()`` — breaker states as the events tell them (replay has no live board).

Security: repository content and model output are untrusted. Every text goes through
:mod:`agent_core.web.markdown` (no raw HTML: ``<`` escaped outside code, previews fenced, titles one
escaped line). Gradio's sanitiser is the second layer; the app never renders any of this through
``gr.HTML`` or ``sanitize_html=False``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, assert_never

from agent_core import events as ev
from agent_core.resilience import BreakerSnapshot, BreakerState
from agent_core.web.i18n import t
from agent_core.web.markdown import fenced, format_age, one_line, safe_markdown

Message = dict[str, Any]
Status = Literal["pending", "done"]


def short_args(arguments: Mapping[str, Any], *, with_repo: bool = False) -> str:
    """``README.md`` for ``read_file(owner, repo, path="README.md")``; the repository when nothing else."""
    rest = ", ".join(
        str(v) for k, v in arguments.items() if k not in ("owner", "repo") and v not in (None, "")
    )
    repo = "/".join(str(arguments[k]) for k in ("owner", "repo") if arguments.get(k))
    if not rest:
        return repo
    return f"{repo} · {rest}" if with_repo and repo else rest


# ---------------------------------------------------------------------------------------------- items


@dataclass(kw_only=True)
class _Item:
    """One trace message under construction."""

    id: str | None = None
    parent_id: str | None = None
    title: str | None = None
    status: Status | None = None
    started: float = 0.0
    duration: float | None = None
    log: list[str] = field(default_factory=list)
    body: str = ""  # already safe markdown

    def content(self) -> str:
        return self.body

    def close(self, at: float, *, note: str | None = None) -> None:
        if self.status == "pending":
            self.status = "done"
            self.duration = max(0.0, at - self.started)
            if note:
                self.log.append(note)

    def to_message(self) -> Message:
        metadata: dict[str, Any] = {}
        if self.title is not None:
            metadata["title"] = self.title
        if self.id is not None:
            metadata["id"] = self.id
        if self.parent_id is not None:
            metadata["parent_id"] = self.parent_id
        if self.status is not None:
            metadata["status"] = self.status
        if self.duration is not None:
            metadata["duration"] = round(self.duration, 2)
        if self.log:
            metadata["log"] = " · ".join(self.log)
        message: Message = {"role": "assistant", "content": self.content()}
        if metadata:
            message["metadata"] = metadata
        return message


@dataclass(kw_only=True)
class _Step(_Item):
    turn: int
    reasoning: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # the model's text in a turn that called tools
    turn_finished: bool = False
    open_calls: set[str] = field(default_factory=set)

    def content(self) -> str:
        parts = ["".join(self.reasoning).strip(), "".join(self.notes).strip()]
        return "\n\n".join(safe_markdown(p) for p in parts if p)


@dataclass(kw_only=True)
class _Call(_Item):
    arguments: Mapping[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    preview: str | None = None  # already fenced: fencing scans the whole text, once is enough

    def content(self) -> str:
        parts = list(self.lines)
        if self.preview is not None:
            parts.append(self.preview)
        elif self.arguments:
            parts.append(fenced(json.dumps(dict(self.arguments), ensure_ascii=False)))
        return "\n\n".join(parts)


@dataclass(kw_only=True)
class _BreakerRow:
    state: str
    failures: int
    last_error: str | None
    retry_after_s: float
    at: float


# ------------------------------------------------------------------------------------------ the view


class TraceView:
    """One run's trace, built event by event. Not thread-safe; one per run, never shared."""

    def __init__(self, *, lang: str = "en", request: str | None = None) -> None:
        self.lang = lang
        self.request = request
        self.started: ev.RunStarted | None = None
        self.result: ev.RunFinished | ev.RunFailed | None = None
        self.stopped = False
        self.events: list[ev.Event] = []
        self._items: list[_Item] = []
        self._steps: dict[int, _Step] = {}
        self._calls: dict[str, _Call] = {}
        self._purposes: dict[int, str] = {}
        self._answer: list[str] = []
        self._answer_turn: int | None = None
        self._current: _Step | None = None
        self._now = 0.0
        self._breakers: dict[str, _BreakerRow] = {}
        self._stats = _LiveStats()
        self._stopped_item: _Item | None = None

    # -- folding events -------------------------------------------------------------------------

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
                self.started = event
            case ev.TurnStarted():
                self._turn_started(event)
            case ev.ReasoningDelta() | ev.TextDelta():
                self._delta(event)
            case ev.TurnFinished():
                self._turn_finished(event)
            case ev.ToolCallStarted() | ev.ToolRetry() | ev.ToolCallFinished():
                self._tool(event)
            case ev.BreakerChanged():
                self._breaker(event)
            case ev.RateLimitUpdated():
                self._stats.rate_limit = (event.remaining, event.limit, event.reset_at)
            case ev.Notice():
                self._notice(event)
            case ev.RunFinished() | ev.RunFailed():
                self._end(event)
            case _:
                assert_never(event)

    def _delta(self, event: ev.ReasoningDelta | ev.TextDelta) -> None:
        if isinstance(event, ev.ReasoningDelta):
            self._step(event.turn, event.t).reasoning.append(event.text)
            return
        # Until a turn ends we cannot know whether its text is the answer, so it streams as the answer
        # and moves into the step if the turn then asks for tools.
        if self._answer_turn != event.turn:
            self._answer_turn = event.turn
            self._answer = []
        self._answer.append(event.text)

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
            self._answer, self._answer_turn = [event.report], -1
            self._stats.final = event.stats
            return
        message = event.message + (f" ({event.hint})" if event.hint else "")
        self._add(_Item(body=safe_markdown(t("failed", self.lang, message=message))))

    def _turn_started(self, event: ev.TurnStarted) -> None:
        self._purposes[event.turn] = event.purpose
        if self._current is not None:
            self._close_step(self._current, event.t)
        self._stats.turns += 1
        if event.purpose == "explore":
            self._step(event.turn, event.t)

    def _step(self, turn: int, at: float) -> _Step:
        step = self._steps.get(turn)
        if step is None:
            title = t("report_step", self.lang) if self._purposes.get(turn) == "report" else None
            step = _Step(
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

    def _turn_finished(self, event: ev.TurnFinished) -> None:
        step = self._steps.get(event.turn)
        self._stats.tokens_in += event.prompt_tokens or 0
        self._stats.tokens_out += event.completion_tokens or 0
        if event.tool_calls > 0 and self._answer_turn == event.turn:
            self._step(event.turn, event.t).notes.extend(self._answer)
            self._answer, self._answer_turn = [], None
        if step is None:
            return
        step.turn_finished = True
        if event.tool_calls == 0:
            self._close_step(step, event.t)

    def _call_started(self, event: ev.ToolCallStarted) -> None:
        step = self._step(event.turn, event.t)
        step.open_calls.add(event.call_id)
        multi = self.started is not None and len(self.started.targets) > 1
        label = short_args(event.arguments, with_repo=multi)
        call = _Call(
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
            call = _Call(id=event.call_id, title=title, status="pending", started=event.t)
            self._calls[event.call_id] = call
            self._add(call)
        call.status, call.duration = "done", event.duration_s
        call.log = call_badges(event)
        call.preview = fenced(event.preview)
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
        self._breakers[event.breaker] = _BreakerRow(
            state=event.new,
            failures=event.failures,
            last_error=event.reason if failed else (old.last_error if old else None),
            retry_after_s=event.retry_after_s,
            at=event.t,
        )
        text = f"⚡ {event.breaker} breaker: {event.old} → {event.new} ({event.reason})"
        detail = f"consecutive failures: {event.failures}"
        if event.new == "open":
            detail += f" · next probe in {event.retry_after_s:.0f} s"
        self._nested(_Item(title=one_line(text, 160), body=detail))

    def _notice(self, event: ev.Notice) -> None:
        icon = "⚠️" if event.level == "warning" else "ℹ️"
        title = one_line(f"{icon} {event.message}", 160)
        # The body repeats the message only when the title had to cut it.
        body = safe_markdown(event.message) if title.endswith("…") else ""
        self._nested(_Item(title=title, body=body))

    def _nested(self, item: _Item) -> None:
        """Inside the step that is running, else at the top level."""
        step = self._current
        if step is not None and step.status == "pending":
            item.parent_id = step.id
        self._add(item)

    def _close_step(self, step: _Step, at: float) -> None:
        step.close(at)
        if self._current is step:
            self._current = None

    def _close_all(self, at: float, note: str | None = None) -> None:
        for item in self._items:
            item.close(at, note=note)
        self._current = None

    def _add(self, item: _Item) -> None:
        self._items.append(item)

    def mark_stopped(self, at: float | None = None) -> None:
        """The user pressed Stop: every pending item turns done (marked stopped); the partial answer stays."""
        if self.result is not None or self.stopped:
            return
        self.stopped = True
        self._close_all(self._now if at is None else at, note=t("stopped_log", self.lang))
        self._stopped_item = _Item(title=t("stopped", self.lang), status="done")

    # -- outputs ----------------------------------------------------------------------------------

    def messages(self) -> list[Message]:
        """The trace in Gradio's messages format (fresh dicts on every call)."""
        out: list[Message] = []
        request = self._request_text()
        if request:
            out.append({"role": "user", "content": request})
        out.extend(item.to_message() for item in self._items)
        answer = "".join(self._answer).strip()
        if answer:
            out.append({"role": "assistant", "content": safe_markdown(answer)})
        if self._stopped_item is not None:
            out.append(self._stopped_item.to_message())
        return out

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
        """The report, safe to hand to ``gr.Markdown``."""
        return safe_markdown(self.report_text())

    def stats_rows(self) -> list[tuple[str, str]]:
        return self._stats.rows(self.lang, self._now, mode=self.started.mode if self.started else None)

    def stats_markdown(self) -> str:
        """The stats as a Markdown list (``- **Turns:** 3``)."""
        return "\n".join(f"- **{label}:** {value}" for label, value in self.stats_rows())

    def breaker_snapshots(self, at: float | None = None) -> list[BreakerSnapshot]:
        """Breakers as the events tell them, ``retry_after`` counted down to ``at`` (default: latest t)."""
        now = self._now if at is None else at
        return [
            BreakerSnapshot(
                name=name,
                state=BreakerState(row.state),
                failures=row.failures,
                last_error=row.last_error,
                retry_after=max(0.0, row.retry_after_s - (now - row.at)) if row.state == "open" else 0.0,
            )
            for name, row in self._breakers.items()
        ]


def call_badges(event: ev.ToolCallFinished) -> list[str]:
    """``["2 attempts", "cache", "STALE 12 min", "DEGRADED"]`` — what a finished call's title shows."""
    badges: list[str] = []
    if event.attempts > 1:
        badges.append(f"{event.attempts} attempts")
    if event.memo:
        badges.append("memo")
    elif event.from_cache:
        badges.append("cache")
    if event.stale:
        badges.append(f"STALE {format_age(event.stale_age_s)}")
    if event.degraded:
        badges.append("DEGRADED")
    elif not event.ok:
        badges.append("error")
    return badges


# ---------------------------------------------------------------------------------------------- stats


@dataclass(kw_only=True)
class _LiveStats:
    turns: int = 0
    tool_calls: int = 0
    github_requests: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    rate_limit: tuple[int, int, float] | None = None  # remaining, limit, reset epoch
    final: ev.RunStats | None = None

    def rows(self, lang: str, elapsed: float, *, mode: str | None) -> list[tuple[str, str]]:
        f = self.final
        unknown = t("stat_unknown", lang)
        remaining, reset = (
            (f.rate_limit_remaining, f.rate_limit_reset)
            if f and f.rate_limit_remaining is not None
            else (self.rate_limit[0], self.rate_limit[2])
            if self.rate_limit
            else (None, None)
        )
        rate = unknown if remaining is None else str(remaining)
        if remaining is not None and reset:
            rate += f" (reset {format_clock(reset)})"
        if f is not None and f.cost_usd:
            cost = f"${f.cost_usd:.4f}"
        elif mode == "planner" or (f is not None and f.cost_usd == 0):
            cost = "$0"
        else:
            cost = unknown
        tokens_in, tokens_out = (
            (f.prompt_tokens, f.completion_tokens) if f else (self.tokens_in, self.tokens_out)
        )
        return [
            (t("stat_turns", lang), str(f.turns if f else self.turns)),
            (t("stat_tool_calls", lang), str(f.tool_calls if f else self.tool_calls)),
            (t("stat_github_requests", lang), str(f.github_requests if f else self.github_requests)),
            (t("stat_cache_hits", lang), str(f.cache_hits if f else self.cache_hits)),
            (t("stat_rate_limit", lang), rate),
            (t("stat_tokens", lang), f"{tokens_in:,} / {tokens_out:,}"),
            (t("stat_cost", lang), cost),
            (t("stat_elapsed", lang), f"{(f.elapsed_s if f else elapsed):.1f} s"),
        ]


def format_clock(epoch: float | None) -> str:
    """``14:05 UTC`` for a UTC epoch."""
    if epoch is None:
        return "?"
    return time.strftime("%H:%M UTC", time.gmtime(epoch))
