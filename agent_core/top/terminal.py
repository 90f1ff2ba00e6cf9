"""The live trace in a terminal: one readable line per step, compact tool results, the report as Markdown.

Two modes, chosen by the CLI: on a terminal (``rich=True``) lines are styled with :mod:`rich`, the report
is rendered as formatted Markdown once it is complete (its streamed text is not echoed, only a progress
line), and failures carry their diagnosis; piped (``rich=False``) the same lines are plain text and the
report is printed raw, so ``python -m agent_core URL > report.txt`` keeps the Markdown.

Everything shown comes from events, and event text is untrusted (repository content, model output):
control characters are dropped before printing (no terminal escape sequence from a README reaches the
terminal), and nothing is parsed as rich markup (lines are :class:`rich.text.Text`, not markup strings).
"""

from __future__ import annotations

import json
import logging
import re
from typing import TextIO

from rich.console import Console
from rich.markdown import Markdown
from rich.rule import Rule
from rich.text import Text

from agent_core import events as ev
from agent_core.cost import CostPart
from agent_core.diagnosis import explain
from agent_core.report.checked import checked_heading, checked_summary
from agent_core.report.coverage import coverage_lines
from agent_core.report.export import diagram_section
from agent_core.tree_shape import TreeSummary
from agent_core.words import t

logger = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_RESULT_CHARS = 140
_SCALARS = (str, int, float, bool)


def inert(text: str) -> str:
    """``text`` without control characters (escape sequences, carriage returns, bells); newlines kept."""
    return _CONTROL.sub("", text)


def summarize(preview: str, limit: int = _RESULT_CHARS) -> str:
    """A tool result in one short line: ``key=value`` for its scalars, ``key: N items`` for its lists.

    ``preview`` is the observation as (possibly cut) JSON; what does not parse is shown squeezed."""
    try:
        data = json.loads(preview)
    except json.JSONDecodeError:
        squeezed = re.sub(r"\s+", " ", preview.split("\n… (", 1)[0]).strip(" {}")
        return _cut(squeezed, limit)
    if not isinstance(data, dict):
        return _cut(json.dumps(data, ensure_ascii=False), limit)
    parts: list[str] = []
    for key, value in data.items():
        if key in ("ok", "text", "sha") or value is None:
            continue
        if isinstance(value, _SCALARS):
            shown = str(value)
            parts.append(f"{key}={shown[:40] + '…' if len(shown) > 40 else shown}")
        elif isinstance(value, list | dict):
            parts.append(f"{key}: {len(value)} item{'s' if len(value) != 1 else ''}")
    if isinstance(data.get("text"), str):
        parts.append(f"{len(data['text']):,} characters")
    return _cut(", ".join(parts), limit)


def tree_line(tree: TreeSummary) -> str:
    """A file tree in one line, from its typed summary: files, the project's own, tests, the cut."""
    parts = [f"{tree.files:,} files"]
    if tree.own_files != tree.files:
        parts.append(f"{tree.own_files:,} the project's own ({tree.vendored_files:,} vendored)")
    parts.append(f"{tree.tests:,} test files in {tree.test_packages:,} packages")
    if tree.truncated:
        parts.append(f"GitHub cut this tree: at least {tree.files:,} files")
    return ", ".join(parts)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TerminalRenderer:
    """Prints events as a streaming trace on ``out``."""

    def __init__(self, out: TextIO, *, rich: bool, width: int | None = None) -> None:
        self._rich = rich
        self._console = Console(
            file=out,
            force_terminal=rich,
            no_color=not rich,
            highlight=False,
            emoji=False,
            soft_wrap=not rich,
            width=width if width is not None else (None if rich else 10_000),
        )
        self._streaming: int | None = None  # the turn whose text or reasoning is being written
        self._report_turn: int | None = None
        self._report_streamed = False
        self._open_tools: set[str] = set()  # tools whose breaker is open: their retries are not news
        self._diagrams: list[ev.DiagramDrawn] = []  # appended to a model's report, as the page does

    # -- writing ----------------------------------------------------------------------------------

    def _line(self, text: str = "", style: str = "") -> None:
        self._end_stream()
        self._console.print(Text(inert(text), style=style if self._rich else ""))

    def _stream(self, turn: int, text: str, style: str = "") -> None:
        if self._streaming != turn:
            self._end_stream()
            self._streaming = turn
        self._console.print(Text(inert(text), style=style if self._rich else ""), end="")

    def _end_stream(self) -> None:
        if self._streaming is not None:
            self._console.print()
            self._streaming = None

    # -- events -----------------------------------------------------------------------------------

    def render(self, event: ev.Event) -> None:  # noqa: C901, PLR0912, PLR0915 - one branch per event kind
        match event:
            case ev.RunStarted():
                self._line(f"▶ Analysing {', '.join(event.targets)} with {event.model}", "bold")
                for scope in event.scopes:
                    self._line(
                        f"  scope: {scope.label()} ({'file' if scope.kind == 'blob' else 'folder'})", "dim"
                    )
                if event.question:
                    self._line(f"  question: {event.question}")
                if event.estimate is not None:
                    e = event.estimate
                    prices = ", ".join(f"{p.what.replace('_', ' ')} {_per_mtok(p)}/M" for p in e.parts)
                    self._line(
                        f"  estimated cost: ${e.low_usd:.4f}-{e.high_usd:.4f} (up to {e.budget_tokens:,} "
                        f"tokens, prices of {e.prices_as_of}{': ' + prices if prices else ''})",
                        "dim",
                    )
            case ev.TurnStarted():
                if event.purpose == "report":
                    self._report_turn = event.turn
                    self._line("")
                    self._line("── report ──", "bold")
                    if self._rich:
                        self._line("✍ writing the report…", "dim")
                else:
                    self._line("")
                    self._line(f"── turn {event.turn} ──", "bold")
            case ev.ReasoningDelta():
                self._stream(event.turn, event.text, "dim")
            case ev.TextDelta():
                if event.turn == self._report_turn:
                    self._report_streamed = True
                    if self._rich:
                        return  # rendered as Markdown at the end
                self._stream(event.turn, event.text)
            case ev.TurnFinished():
                self._end_stream()
            case ev.TurnProgress():
                self._line(f"⏳ {_reading(event)}", "dim")
            case ev.ToolCallStarted():
                args = ", ".join(
                    f"{k}={v!r}" for k, v in event.arguments.items() if k not in ("owner", "repo")
                )
                where = event.arguments.get("repo")
                self._line(f"🔧 {event.tool}({args})" + (f"  · {where}" if where else ""), "cyan")
            case ev.ToolRetry():
                if event.tool in self._open_tools:
                    return  # the breaker line already said it: no "retrying" after it opened
                self._line(
                    f"   ↻ {event.tool}: attempt {event.attempt} failed ({event.reason}); "
                    f"retrying in {event.delay_s:.2f}s",
                    "yellow",
                )
            case ev.ToolCallFinished():
                self._tool(event)
            case ev.BreakerChanged():
                self._breaker(event)
            case ev.RateLimitUpdated():
                logger.debug("rate limit %s/%s", event.remaining, event.limit)
            case ev.Notice():
                self._line(f"ℹ {event.message}", "yellow" if event.level == "warning" else "dim")
            case ev.ClaimsChecked():
                self._claims(event)
            case ev.DiagramDrawn():
                self._diagrams.append(event)
                made = "proposed by the model" if event.source == "model" else "built from the tree"
                why = f" ({event.note})" if event.note else ""
                self._line(
                    f"🗺 diagram of {event.repo}: {made}, {len(event.components)} components{why}", "dim"
                )
            case ev.RunFinished():
                self._finished(event)
            case ev.RunFailed():
                self._line(f"✖ {event.message}", "bold red")
                if event.hint:
                    self._line(f"  next: {event.hint}")

    def _tool(self, event: ev.ToolCallFinished) -> None:
        badges = [f"{event.duration_s:.2f}s", f"{event.http_requests} req"]
        if event.attempts > 1:
            badges.append(f"{event.attempts} attempts")
        if event.memo:
            badges.append("memo")
        elif event.from_cache:
            badges.append("cache")
        if event.stale:
            badges.append("STALE")
        if event.degraded:
            badges.append("DEGRADED")
        head = f"   {'✓' if event.ok else '✗'} {event.tool} [{' · '.join(badges)}]"
        if event.ok:
            said = tree_line(event.tree) if event.tree is not None else summarize(event.preview)
            self._line(f"{head}  {said}", "green" if not event.stale else "yellow")
        else:
            self._line(f"{head}  {event.error or ''}", "red")

    def _breaker(self, event: ev.BreakerChanged) -> None:
        tool = event.breaker.partition(":")[2] or event.breaker
        if event.new == "open":
            self._open_tools.add(tool)
        else:
            self._open_tools.discard(tool)
        style = "red" if event.new == "open" else "green" if event.new == "closed" else "yellow"
        extra = (
            f"; next probe in {event.retry_after_s:.0f}s"
            if event.new == "open" and event.retry_after_s
            else ""
        )
        self._line(f"⚡ breaker {event.breaker}: {event.old} → {event.new} ({event.reason}{extra})", style)

    def _claims(self, event: ev.ClaimsChecked) -> None:
        self._line("")
        self._line(f"{checked_heading('en')} · {checked_summary(event, 'en')}", "bold")
        for claim in event.claims:
            if claim.verdict == "contradicted":
                self._line(f"  ✗ {claim.claim} — {t('checked_observed', 'en')} {claim.observed}", "red")

    def _diagram(self, event: ev.DiagramDrawn) -> None:
        self._diagrams.append(event)
        made = "proposed by the model" if event.source == "model" else "built from the tree"
        why = f" ({event.note})" if event.note else ""
        self._line(f"🗺 diagram of {event.repo}: {made}, {len(event.components)} components{why}", "dim")

    def _finished(self, event: ev.RunFinished) -> None:
        s = event.stats
        self._end_stream()
        language = self._diagrams[0].language if self._diagrams else "en"
        appended = diagram_section(self._diagrams, language) if event.writer == "model" else ""
        self._diagrams = []
        if self._rich:
            self._console.print(Rule())
            self._console.print(Markdown(inert(f"{event.report}\n\n{appended}".strip()), hyperlinks=False))
            self._console.print(Rule())
        else:
            self._line(event.report if not self._report_streamed else "")
            if appended:
                self._line(appended)
        flag = " (degraded)" if event.degraded else ""
        cost = ""
        if s.cost_usd:
            low = s.cost_low_usd if s.cost_low_usd is not None else s.cost_usd
            cost = f", ${low:.4f}" + (f"-{s.cost_usd:.4f}" if low != s.cost_usd else "")
            cost += f" (prices of {s.prices_as_of})" if s.prices_as_of else ""
        cached = f" ({s.cached_prompt_tokens} cached)" if s.cached_prompt_tokens else ""
        self._line(
            f"✔ done{flag}: {s.turns} turns, {s.tool_calls} tool calls, {s.github_requests} GitHub requests, "
            f"{s.cache_hits} cache hits, {s.prompt_tokens}{cached}+{s.completion_tokens} tokens{cost}, "
            f"{s.elapsed_s:.1f}s",
            "dim",
        )
        for line in coverage_lines(s.coverage, language):
            self._line(f"  {line}", "dim")
        priced = [p for p in s.cost_parts if p.tokens and p.usd_per_mtok_high]
        if priced:
            self._line(
                "  cost by price: "
                + "; ".join(
                    f"{p.what.replace('_', ' ')} {p.tokens:,} × {_per_mtok(p)}/M = ${p.low_usd:.6f}"
                    + (f"-{p.high_usd:.6f}" if p.low_usd != p.high_usd else "")
                    for p in priced
                ),
                "dim",
            )
        if event.diagnosis is not None:
            said = explain(event.diagnosis, "en")
            self._line(f"  ⚠ {said.what}", "yellow")
            self._line(f"  next: {said.next_step}")
        for reason in event.degraded_reasons:
            self._line(f"  ⚠ {reason}", "yellow")


def _reading(event: ev.TurnProgress) -> str:
    """``reading the brief: 1,200 / 4,800 tokens (25%), about 90 s left at 40 tokens/s``."""
    if event.tokens_per_s is None:
        return f"reading the brief: {event.total:,} tokens"
    said = f"reading the brief: {event.done:,} / {event.total:,} tokens ({event.done / event.total:.0%})"
    if event.tokens_per_s and event.done < event.total:
        eta = (event.total - event.done) / event.tokens_per_s
        said += f", about {eta:.0f} s left at {event.tokens_per_s:.0f} tokens/s"
    return said


def _per_mtok(part: CostPart) -> str:
    low, high = part.usd_per_mtok_low, part.usd_per_mtok_high
    return f"${low:g}" if low == high else f"${low:g}-{high:g}"
