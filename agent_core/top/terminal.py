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

import logging
import re
from typing import TextIO, assert_never

from rich.console import Console
from rich.markdown import Markdown
from rich.rule import Rule
from rich.text import Text

from agent_core import events as ev
from agent_core.cost import CostPart
from agent_core.diagnosis import explain
from agent_core.report.checked import checked_heading, checked_summary, claim_text, observed_text
from agent_core.report.coverage import coverage_lines
from agent_core.report.draft_words import draft_claims, draft_line
from agent_core.report.export import diagram_section
from agent_core.report.reading import prompt_progress
from agent_core.result_shape import (
    CommitsShape,
    FileShape,
    InfoShape,
    LanguagesShape,
    ListingShape,
    ResultShape,
)
from agent_core.tree_shape import TreeSummary
from agent_core.words import say, t

logger = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_RESULT_CHARS = 140


def inert(text: str) -> str:
    """``text`` without control characters (escape sequences, carriage returns, bells); newlines kept."""
    return _CONTROL.sub("", text)


def shape_line(shape: ResultShape | None, limit: int = _RESULT_CHARS, lang: str = "en") -> str:
    """A tool result in one short line, from its typed shape (nothing when a trace has none)."""
    match shape:
        case FileShape():
            size = t("cli_bytes", lang, count=shape.size)
            said = [shape.path, shape.content if shape.content != "file" else "", size]
            if shape.start_line is not None and shape.end_line is not None:
                total = shape.total_lines or "?"
                said.append(t("cli_lines", lang, start=shape.start_line, end=shape.end_line, total=total))
            if shape.cut:
                said.append(t("cli_cut_at", lang, line=shape.next_line))
        case ListingShape():
            said = [shape.path or "/", t("cli_listing", lang, files=shape.files, dirs=shape.dirs)]
            said.append(t("cli_listing_cut", lang) if shape.cut else "")
        case InfoShape():
            stars = t("cli_stars", lang, count=shape.stars or 0)
            said = [shape.full_name, shape.language or "", shape.license or "", stars]
            said.append(t("cli_renamed", lang, name=shape.renamed_from) if shape.renamed_from else "")
            said.append(t("cli_archived", lang) if shape.archived else "")
        case CommitsShape():
            said = [
                t("cli_commits", lang, commits=shape.commits, authors=shape.authors),
                t("cli_newest", lang, day=shape.newest or "?"),
            ]
        case LanguagesShape():
            said = [f"{name} {percent}%" for name, percent in shape.languages[:4]]
        case None:
            said = []
        case _:
            assert_never(shape)
    return _cut(", ".join(part for part in said if part), limit)


def tree_line(tree: TreeSummary, lang: str = "en") -> str:
    """A file tree in one line, from its typed summary: files, the project's own, tests, the cut."""
    parts = [t("cli_tree_files", lang, count=tree.files)]
    if tree.own_files != tree.files:
        parts.append(t("cli_tree_own", lang, own=tree.own_files, vendored=tree.vendored_files))
    parts.append(t("cli_tree_tests", lang, tests=tree.tests, packages=tree.test_packages))
    if tree.truncated:
        parts.append(t("cli_tree_cut", lang, count=tree.files))
    return t("sep", lang).join(parts)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TerminalRenderer:
    """Prints events as a streaming trace on ``out``."""

    def __init__(self, out: TextIO, *, rich: bool, width: int | None = None, lang: str = "en") -> None:
        self._rich, self._lang = rich, lang
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

    def _t(self, key: str, **values: object) -> str:
        return t(key, self._lang, **values)

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
                model = (
                    self._t("cli_planner") if event.mode == "planner" else event.model
                )  # the mode, in words
                self._line(self._t("cli_start", targets=", ".join(event.targets), model=model), "bold")
                for scope in event.scopes:
                    kind = self._t("cli_scope_file" if scope.kind == "blob" else "cli_scope_folder")
                    self._line(self._t("cli_scope", label=scope.label(), kind=kind), "dim")
                if event.question:
                    self._line(self._t("cli_question", question=event.question))
                if event.estimate is not None and event.estimate.local:
                    self._line(self._t("cli_cost_local"), "dim")
                elif event.estimate is not None:
                    e = event.estimate
                    prices = ", ".join(f"{p.what.replace('_', ' ')} {_per_mtok(p)}/M" for p in e.parts)
                    said = self._t(
                        "cli_estimate",
                        low=e.low_usd,
                        high=e.high_usd,
                        budget=e.budget_tokens,
                        as_of=e.prices_as_of,
                        prices=f": {prices}" if prices else "",
                    )
                    self._line(said, "dim")
            case ev.TurnStarted():
                if event.purpose == "report":
                    self._report_turn = event.turn
                    self._line("")
                    self._line(self._t("cli_report_rule"), "bold")
                    if self._rich:
                        self._line(self._t("cli_writing"), "dim")
                else:
                    self._line("")
                    self._line(self._t("cli_turn_rule", turn=event.turn), "bold")
            case ev.ReasoningDelta():
                self._stream(event.turn, say(event.said, self._lang) if event.said else event.text, "dim")
            case ev.TextDelta():
                if event.turn == self._report_turn:
                    self._report_streamed = True
                    if self._rich:
                        return  # rendered as Markdown at the end
                self._stream(event.turn, event.text)
            case ev.TurnFinished():
                self._end_stream()
            case ev.TurnProgress():
                self._line(f"⏳ {prompt_progress(event, self._lang, prefix='cli_')}", "dim")
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
                    self._t(
                        "cli_retry",
                        tool=event.tool,
                        attempt=event.attempt,
                        reason=event.reason,
                        delay=event.delay_s,
                    ),
                    "yellow",
                )
            case ev.ToolCallFinished():
                self._tool(event)
            case ev.BreakerChanged():
                self._breaker(event)
            case ev.RateLimitUpdated():
                logger.debug("rate limit %s/%s", event.remaining, event.limit)
            case ev.Notice():
                message = say(event.said, self._lang) if event.said else event.message
                self._line(f"ℹ {message}", "yellow" if event.level == "warning" else "dim")
            case ev.ClaimsChecked():
                self._claims(event)
            case ev.DiagramDrawn():
                self._diagram(event)
            case ev.DraftReviewed():
                self._line(f"🔁 {draft_line(event, self._lang)}", "yellow")
                for mark, claim, seen in draft_claims(event, self._lang):
                    self._line(f"  {mark}: {claim}" + (f" ({seen})" if seen else ""), "dim")
            case ev.RunFinished():
                self._finished(event)
            case ev.RunFailed():
                self._line(f"✖ {event.message}", "bold red")
                if event.hint:
                    self._line(self._t("cli_next", hint=event.hint))

    def _tool(self, event: ev.ToolCallFinished) -> None:
        badges = [f"{event.duration_s:.2f}s", f"{event.http_requests} req"]
        if event.attempts > 1:
            badges.append(self._t("cli_attempts", count=event.attempts))
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
            said = (
                tree_line(event.tree, self._lang)
                if event.tree is not None
                else shape_line(event.shape, lang=self._lang)
            )
            self._line(f"{head}  {said}", "green" if not event.stale else "yellow")
        else:
            self._line(f"{head}  {event.error or ''}", "red")

    def _breaker(self, event: ev.BreakerChanged) -> None:
        tool = event.subject or event.breaker
        if event.new == "open":
            self._open_tools.add(tool)
        else:
            self._open_tools.discard(tool)
        style = "red" if event.new == "open" else "green" if event.new == "closed" else "yellow"
        extra = (
            self._t("cli_next_probe", seconds=event.retry_after_s)
            if event.new == "open" and event.retry_after_s
            else ""
        )
        said = self._t(
            "cli_breaker",
            breaker=event.breaker,
            old=event.old,
            new=event.new,
            reason=event.reason,
            extra=extra,
        )
        self._line(said, style)

    def _claims(self, event: ev.ClaimsChecked) -> None:
        self._line("")
        self._line(f"{checked_heading(self._lang)} · {checked_summary(event, self._lang)}", "bold")
        for claim in event.claims:
            if claim.verdict == "contradicted":
                observed = observed_text(claim, self._lang)
                self._line(
                    f"  ✗ {claim_text(claim, self._lang)} — {self._t('checked_observed')} {observed}", "red"
                )

    def _diagram(self, event: ev.DiagramDrawn) -> None:
        self._diagrams.append(event)
        made = self._t("cli_diagram_model" if event.source == "model" else "cli_diagram_tree")
        why = f" ({event.note})" if event.note else ""
        count = len(event.components)
        self._line(self._t("cli_diagram", repo=event.repo, made=made, count=count, why=why), "dim")

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
        flag = self._t("cli_degraded") if event.degraded else ""
        cost = ""
        if s.cost_usd:
            low = s.cost_low_usd if s.cost_low_usd is not None else s.cost_usd
            cost = f", ${low:.4f}" + (f"-{s.cost_usd:.4f}" if low != s.cost_usd else "")
            cost += self._t("cli_prices_of", as_of=s.prices_as_of) if s.prices_as_of else ""
        cached = self._t("cli_cached", count=s.cached_prompt_tokens) if s.cached_prompt_tokens else ""
        done = self._t(
            "cli_done",
            flag=flag,
            turns=s.turns,
            calls=s.tool_calls,
            requests=s.github_requests,
            hits=s.cache_hits,
            tokens=f"{s.prompt_tokens}{cached}+{s.completion_tokens}",
            cost=cost,
            seconds=s.elapsed_s,
        )
        self._line(done, "dim")
        for line in coverage_lines(s.coverage, language):
            self._line(f"  {line}", "dim")
        priced = [p for p in s.cost_parts if p.tokens and p.usd_per_mtok_high]
        if priced:
            self._line(
                self._t("cli_cost_by_price")
                + "; ".join(
                    f"{p.what.replace('_', ' ')} {p.tokens:,} × {_per_mtok(p)}/M = ${p.low_usd:.6f}"
                    + (f"-{p.high_usd:.6f}" if p.low_usd != p.high_usd else "")
                    for p in priced
                ),
                "dim",
            )
        if event.diagnosis is not None:
            said = explain(event.diagnosis, self._lang)
            self._line(f"  ⚠ {said.what}", "yellow")
            self._line(self._t("cli_next", hint=said.next_step))
        for reason in event.degraded_reasons:
            self._line(f"  ⚠ {reason}", "yellow")


def _per_mtok(part: CostPart) -> str:
    low, high = part.usd_per_mtok_low, part.usd_per_mtok_high
    return f"${low:g}" if low == high else f"${low:g}-{high:g}"
