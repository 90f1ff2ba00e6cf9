"""``python -m agent_core TARGET [QUESTION]``: the live trace in a terminal, or JSON Lines with ``--json``.

Exit codes: 0 when a report was produced (degraded included), 1 when no report could be produced,
2 for bad usage or configuration. This module is one of the two marked edges where a broad ``except``
turns an unexpected error into a message instead of a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from agent_core import events as ev
from agent_core.api import stream_analysis
from agent_core.errors import AgentCoreError
from agent_core.events import dumps_event
from agent_core.report.export import diagram_section
from agent_core.settings import Settings

logger = logging.getLogger(__name__)

_DIM, _BOLD, _RED, _GREEN, _YELLOW, _CYAN, _RESET = (
    "\033[2m",
    "\033[1m",
    "\033[31m",
    "\033[32m",
    "\033[33m",
    "\033[36m",
    "\033[0m",
)


class TerminalRenderer:
    """Prints events as a readable, streaming trace."""

    def __init__(self, out: TextIO, *, color: bool) -> None:
        self._out = out
        self._color = color
        self._in_text: int | None = None
        self._in_reasoning: int | None = None
        self._diagrams: list[ev.DiagramDrawn] = []  # appended to a model's report, as the app does

    def _c(self, code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if self._color else text

    def _line(self, text: str = "") -> None:
        if self._in_text is not None or self._in_reasoning is not None:
            self._out.write("\n")
            self._in_text = self._in_reasoning = None
        self._out.write(text + "\n")
        self._out.flush()

    def render(self, event: ev.Event) -> None:  # noqa: C901, PLR0912, PLR0915 - one branch per event kind
        match event:
            case ev.RunStarted():
                self._line(self._c(_BOLD, f"▶ Analysing {', '.join(event.targets)} with {event.model}"))
                if event.question:
                    self._line(f"  question: {event.question}")
            case ev.TurnStarted():
                title = "report" if event.purpose == "report" else f"turn {event.turn}"
                self._line(self._c(_BOLD, f"\n── {title} ──"))
            case ev.ReasoningDelta():
                if self._in_reasoning != event.turn:
                    self._line(self._c(_DIM, "🧠 "))
                    self._in_reasoning = event.turn
                self._out.write(self._c(_DIM, event.text))
                self._out.flush()
            case ev.TextDelta():
                if self._in_text != event.turn:
                    if self._in_reasoning is not None:
                        self._out.write("\n")
                        self._in_reasoning = None
                    self._in_text = event.turn
                self._out.write(event.text)
                self._out.flush()
            case ev.TurnFinished():
                if self._in_text is not None or self._in_reasoning is not None:
                    self._line()
            case ev.ToolCallStarted():
                args = ", ".join(f"{k}={v!r}" for k, v in event.arguments.items())
                self._line(self._c(_CYAN, f"🔧 {event.tool}({args})  [{event.call_id}]"))
            case ev.ToolRetry():
                self._line(
                    self._c(
                        _YELLOW,
                        f"   ↻ {event.tool}: attempt {event.attempt} failed ({event.reason}); retrying in {event.delay_s:.2f}s",
                    )
                )
            case ev.ToolCallFinished():
                self._line(self._tool_line(event))
            case ev.BreakerChanged():
                colour = _RED if event.new == "open" else _GREEN if event.new == "closed" else _YELLOW
                self._line(
                    self._c(colour, f"⚡ breaker {event.breaker}: {event.old} → {event.new} ({event.reason})")
                )
            case ev.RateLimitUpdated():
                logger.debug("rate limit %s/%s", event.remaining, event.limit)
            case ev.Notice():
                self._line(self._c(_YELLOW if event.level == "warning" else _DIM, f"ℹ {event.message}"))
            case ev.DiagramDrawn():
                self._diagrams.append(event)
                made = "proposed by the model" if event.source == "model" else "built from the tree"
                why = f" ({event.note})" if event.note else ""
                self._line(
                    self._c(
                        _DIM, f"🗺 diagram of {event.repo}: {made}, {len(event.components)} components{why}"
                    )
                )
            case ev.ClaimsChecked():
                self._line()
                self._line(
                    self._c(
                        _BOLD,
                        f"✔ checked by the app: {event.verified} verified, {event.contradicted} contradicted, "
                        f"{event.unchecked} not checkable",
                    )
                )
                for claim in event.claims:
                    if claim.verdict == "contradicted":
                        self._line(self._c(_RED, f"  ✗ {claim.claim} — observed: {claim.observed}"))
            case ev.RunFinished():
                s = event.stats
                self._line()
                self._line(self._c(_BOLD, "═" * 60))
                self._line(event.report if self._in_text is None else "")
                if event.writer == "model" and self._diagrams:
                    self._line(diagram_section(self._diagrams, self._diagrams[0].language))
                self._diagrams = []
                flag = self._c(_YELLOW, " (degraded)") if event.degraded else ""
                cost = f", ~${s.cost_usd:.4f}" if s.cost_usd else ""
                self._line(
                    self._c(
                        _DIM,
                        (
                            f"✔ done{flag}: {s.turns} turns, {s.tool_calls} tool calls, {s.github_requests} GitHub requests, "
                            f"{s.cache_hits} cache hits, {s.prompt_tokens}+{s.completion_tokens} tokens{cost}, {s.elapsed_s:.1f}s"
                        ),
                    )
                )
                for reason in event.degraded_reasons:
                    self._line(self._c(_YELLOW, f"  ⚠ {reason}"))
            case ev.RunFailed():
                self._line(self._c(_RED, f"✖ {event.message}"))
                if event.hint:
                    self._line(f"  hint: {event.hint}")

    def _tool_line(self, event: ev.ToolCallFinished) -> str:
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
        mark = self._c(_GREEN, "✓") if event.ok else self._c(_RED, "✗")
        preview = event.preview.replace("\n", " ")
        preview = preview[:160] + ("…" if len(preview) > 160 else "")
        detail = f"   {self._c(_DIM, preview)}" if event.ok else f"   {self._c(_RED, event.error or '')}"
        return f"   {mark} {event.tool} [{' · '.join(badges)}]\n{detail}"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m agent_core",
        description="Analyse a GitHub repository (or a local git repository) with a live agent trace.",
    )
    parser.add_argument(
        "target", help="GitHub URL, owner/repo (several for a comparison: quote them), or a local path"
    )
    parser.add_argument("question", nargs="?", default="", help="optional question")
    parser.add_argument("--json", action="store_true", help="print the events as JSON Lines instead")
    parser.add_argument("--save", type=Path, help="also save the events to this .jsonl file")
    parser.add_argument("--max-turns", type=int, help="override MAX_TURNS")
    parser.add_argument("--language", choices=["auto", "en", "zh"], help="report language")
    parser.add_argument("--offline", action="store_true", help="ignore API_KEY and use the offline planner")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    return parser.parse_args(argv)


async def _run(args: argparse.Namespace, settings: Settings, out: TextIO) -> int:
    renderer = TerminalRenderer(out, color=out.isatty() and not args.json)
    recorded: list[ev.Event] = []
    status = 1
    async for event in stream_analysis(args.target, args.question, settings=settings):
        recorded.append(event)
        if args.json:
            out.write(dumps_event(event) + "\n")
            out.flush()
        else:
            renderer.render(event)
        if isinstance(event, ev.RunFinished):
            status = 0
    if args.save:
        ev.dump_events(recorded, args.save)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, stream=sys.stderr)
    try:
        settings = Settings.from_env()
        overrides: dict[str, object] = {}
        if args.max_turns:
            overrides["max_turns"] = args.max_turns
        if args.language:
            overrides["report_language"] = args.language
        if args.offline:
            overrides.update(api_key=None, hf_token=None, llm_provider=None)
        settings = settings.with_overrides(**overrides)
    except AgentCoreError as exc:
        sys.stderr.write(f"configuration error: {exc}\n")
        return 2
    try:
        return asyncio.run(_run(args, settings, sys.stdout))
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except Exception as exc:  # the marked CLI edge: a message, never a traceback
        logger.debug("unexpected error", exc_info=True)
        sys.stderr.write(f"error: {type(exc).__name__}: {exc}\n")
        return 1
