"""``python -m agent_core TARGET [QUESTION]``: the live trace in a terminal, or JSON Lines with ``--json``.

On a terminal the trace is styled and the report rendered as Markdown (:mod:`agent_core.top.terminal`); piped,
the same trace is plain text and the report raw. At default verbosity the core's own log lines are not
shown (the trace already says what they say: breakers, retries); ``-v`` shows them all.

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
from agent_core.agent.prompts import detect_language
from agent_core.errors import AgentCoreError
from agent_core.event_json import dump_events, dumps_event
from agent_core.settings import Settings
from agent_core.top.api import stream_analysis
from agent_core.top.terminal import TerminalRenderer

logger = logging.getLogger(__name__)


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
    parser.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="style the trace and render the report as Markdown (auto: when stdout is a terminal)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    return parser.parse_args(argv)


async def _run(args: argparse.Namespace, settings: Settings, out: TextIO) -> int:
    styled = args.color == "always" or (args.color == "auto" and out.isatty())
    lang = detect_language(args.question, settings.report_language)  # the trace speaks the report's language
    renderer = TerminalRenderer(out, rich=styled and not args.json, lang=lang)
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
        dump_events(recorded, args.save)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, stream=sys.stderr)
    if not args.verbose:  # the trace shows breakers and retries: their log lines would say it twice
        logging.getLogger("agent_core").setLevel(logging.ERROR)
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
