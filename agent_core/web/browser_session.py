"""What one browser session owns, and how its state becomes the page's text (no gradio here).

A :class:`BrowserSession` lives in the session's ``gr.State``: its settings (keys pasted in the settings
panel stay here, server-side, and nowhere else), its own :class:`BreakerBoard` and
:class:`ChaosMonkey`, the :class:`OpenedAnalysis` that follow-up questions continue, the trace of the
current run and the messages of earlier runs in the same conversation, and the run's lifecycle (one at
a time, Stop, settling a finished trace into its export file). Process-wide things (the HTTP pool, the
cache) belong to :class:`agent_core.top.services.Services`, never to a session. Who pays and which
model, endpoint and key the settings may reach are decided in :mod:`agent_core.top.payer`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeGuard

from agent_core import events as ev
from agent_core.agent.model_turn import LLM_BREAKER, model_breaker
from agent_core.clock import Clock
from agent_core.errors import ConfigurationError
from agent_core.event_json import dumps_event
from agent_core.report.inert import INVISIBLE
from agent_core.resilience import BreakerSnapshot
from agent_core.settings import Settings
from agent_core.tools.chaos import ChaosMonkey
from agent_core.top.payer import Payer, hides_model_host, model_label, session_settings, shows_quota
from agent_core.top.wiring import OpenedAnalysis, new_board, uses_model
from agent_core.web.batching import ActiveRun
from agent_core.web.markdown import one_line
from agent_core.web.render import TraceView, failed_phase, finished_phase
from agent_core.web.stats import format_clock
from agent_core.web.trace_items import Message
from agent_core.words import t

logger = logging.getLogger(__name__)

# A trace's names as a text editor shows them: U+202E as the JSON escape \u202e (load_events reads the
# same string back), whatever the repository named its files.
_JSON_SHOWN = {cp: json.dumps(chr(cp))[1:-1] for cp in INVISIBLE}


class BrowserSession:
    """One browser session's state. Used from one event loop; not shared between sessions."""

    def __init__(self, base: Settings, *, clock: Clock, rng: random.Random | None = None) -> None:
        self.base = base
        self.settings = base
        self.lang = "en"
        self.clock = clock
        self.breakers = new_board(base, clock)
        self.chaos = ChaosMonkey(rng=rng)
        self.opened: OpenedAnalysis | None = None
        self.opened_payer: Payer | None = None  # who pays for the opened analysis (and its follow-ups)
        self.view: TraceView | None = None
        self.history: list[Message] = []
        self.rate_limit: ev.RateLimitUpdated | None = None
        self.phase = ""  # the run part of the status line ("Running…", "Done.")
        self.replaying: str | None = None  # a recording's name: breakers come from its events, not the board
        self.timer_on = False  # what the browser's breaker timer was last told
        self.visitor: str | None = None  # whom the hosted budget counts (set by the handlers)
        self.run: ActiveRun | None = None  # the run being streamed, which Stop cancels
        self._export_dir: Path | None = None
        self._exported: tuple[TraceView, int, Path, Path] | None = None  # the view, its event count, files
        self._settled: TraceView | None = None  # a finished view whose events moved to its export (settle)
        self._exports_written = 0
        self._started_at = clock.monotonic()  # when the current trace began (a stopped step's duration)

    # -- the run being streamed -------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.run is not None

    def begin_run(self) -> ActiveRun | None:
        """A new run, or None while another one is streaming (one run at a time per session)."""
        if self.run is not None:
            return None
        self.run = ActiveRun()
        return self.run

    def end_run(self, run: ActiveRun) -> None:
        if self.run is run:
            self.run = None

    async def stop(self) -> bool:
        """Stop the streaming run: its trace turns done ("stopped"), the run is cancelled and unwound
        (requests and retries included) before this returns. Whether a run was streaming."""
        run = self.run
        if run is None:
            return False
        view = self.view
        if view is not None and not view.finished:
            view.mark_stopped(max(view.now, self.clock.monotonic() - self._started_at))
            self.phase = t("status_stopped", self.lang)
        await run.stop()
        self.end_run(run)  # the next Analyze may start at once; the stopped handler only says goodbye
        return True

    # -- the conversation -----------------------------------------------------------------------

    @property
    def can_follow_up(self) -> bool:
        """A report exists and the analysis that wrote it is still open."""
        view = self.view
        return self.opened is not None and view is not None and isinstance(view.result, ev.RunFinished)

    def start_view(self, *, keep_history: bool, request: str | None = None) -> TraceView:
        """A fresh trace for the next run; the finished one moves into the history for follow-ups."""
        if keep_history and self.view is not None:
            self.history.extend(self.view.messages(with_answer=True))  # no longer in the report panel
        elif not keep_history:
            self.history = []
        self.view = TraceView(lang=self.lang, request=request, show_rate_limit=self._own_quota)
        self._started_at = self.clock.monotonic()
        return self.view

    @property
    def _own_quota(self) -> bool:
        """Whether the GitHub quota this session spends is its own to see (not a Space owner's)."""
        return shows_quota(self.base, self.settings)

    @property
    def payer(self) -> Payer:
        """Who pays for this session's runs: the opened analysis's payer while one is open (its follow-ups
        run on its keys), else whoever the current settings make pay."""
        return self.opened_payer or Payer.of(self.base, self.settings)

    def observe(self, event: ev.Event) -> None:
        """Fold one event into the current trace and the session's status. On a Space, a diagnosis of
        the owner's model endpoint loses its host (never named to visitors: page and export alike)."""
        if isinstance(event, ev.RunFinished | ev.RunFailed) and self._owner_endpoint(event.diagnosis):
            event = dataclasses.replace(event, diagnosis=dataclasses.replace(event.diagnosis, host=None))
        if self.view is None:
            self.view = TraceView(lang=self.lang)
        self.view.apply(event)
        if isinstance(event, ev.RateLimitUpdated):
            self.rate_limit = event
        elif isinstance(event, ev.RunFinished):
            self.phase = finished_phase(event, self.lang)
        elif isinstance(event, ev.RunFailed):
            self.phase = failed_phase(event, self.lang, in_pane=not self.view.report.markdown())

    def _owner_endpoint(self, diagnosis: ev.Diagnosis | None) -> TypeGuard[ev.Diagnosis]:
        """Whether ``diagnosis`` names the host of a Space owner's model endpoint."""
        return (
            diagnosis is not None
            and diagnosis.source == "model"
            and diagnosis.host is not None
            and hides_model_host(self.base, self.payer)
        )

    def messages(self) -> list[Message]:
        return self.history + (self.view.messages() if self.view is not None else [])

    async def close_analysis(self) -> None:
        opened, self.opened, self.opened_payer = self.opened, None, None
        if opened is not None:
            await opened.aclose()

    # -- settings ---------------------------------------------------------------------------------

    def apply_settings(self, **overrides: object) -> Settings:
        """Apply the settings panel's fields (:func:`~agent_core.top.payer.session_settings`: blank key
        fields keep the operator's keys, the hosted rules on keys and endpoints). Raises
        ConfigurationError (nothing changed) for settings the model layer refuses."""
        self.settings = session_settings(self.base, overrides)
        return self.settings

    @property
    def payer_changed(self) -> bool:
        """An analysis is open on other accounts than the current settings would spend."""
        return self.opened_payer is not None and self.opened_payer != Payer.of(self.base, self.settings)

    async def change_settings(self, **overrides: object) -> bool:
        """:meth:`apply_settings`, then, when the new settings change who pays, close the opened analysis
        at once (its follow-ups would run on the old payer's keys), unless a run streams on it (that run
        was admitted and counted under its payer; the follow-up handler refuses the next one). Whether
        it closed the analysis."""
        self.apply_settings(**overrides)
        if not self.payer_changed or self.running:
            return False
        await self.close_analysis()
        self.phase = t("followup_payer_changed", self.lang)
        return True

    # -- what the page shows ------------------------------------------------------------------------

    def breaker_snapshots(self) -> list[BreakerSnapshot]:
        """The live board (a replay: the recording's breakers); without a model the model's row is
        left out (it cannot change)."""
        if self.replaying is not None and self.view is not None:
            recorded = {snap.name: snap for snap in self.view.stats.breaker_snapshots()}
            with_llm = self.view.started is not None and self.view.started.mode == "model"
            board = new_board(self.base, self.clock)
            if with_llm and not any(snap.source == LLM_BREAKER for snap in recorded.values()):
                board.get(model_breaker(None))  # the recording's model endpoint, never in trouble
            idle = {snap.name: snap for snap in board.snapshot()}
            snaps = list((idle | recorded).values())
        else:
            snaps = self.breakers.snapshot()
            with_llm = uses_model(self.settings)
        return [s for s in snaps if with_llm or s.source != LLM_BREAKER]

    def status_line(self, *, allowance: str | None = None) -> str:
        """Mode, GitHub identity and quota (on a Space: what is left of its budget, never the owner's
        own quota), and the run's phase, as one line of markdown."""
        lang, s = self.lang, self.settings
        started = self.view.started if self.view is not None else None
        if self.replaying is not None:
            # Both come from the uploaded file (its name, its run_started): text, never markup.
            model = "?" if started is None else one_line(started.model)
            model = t("cli_planner", lang) if started is not None and started.mode == "planner" else model
            mode = t("status_replay_mode", lang, name=one_line(self.replaying), model=model)
        elif not uses_model(s):
            mode = t("status_planner", lang)
        else:
            try:
                model, provider = model_label(s)
            except ConfigurationError as exc:
                mode = f"⚠️ {exc}"
            else:
                mode = t("status_model", lang, model=one_line(model), provider=one_line(provider))
        parts = [mode]
        if self.replaying is None:
            parts.append(t("status_gh_auth" if s.github_token else "status_gh_anon", lang))
        if allowance:
            parts.append(allowance)
        if self.rate_limit is not None and self._own_quota:
            reset = format_clock(self.rate_limit.reset_at)
            parts.append(t("status_gh_remaining", lang, remaining=self.rate_limit.remaining, reset=reset))
        if s.hosted and not s.github_token and self.replaying is None:
            parts.append(t("status_space_warning", lang))
        if self.phase:
            parts.append(f"**{one_line(self.phase, 300)}**")  # may quote the user's input: never markup
        return " · ".join(parts)

    # -- export ---------------------------------------------------------------------------------------

    def export_files(self) -> tuple[Path, Path] | None:
        """``report.md`` and ``trace.jsonl`` of the current run, written once per run (however often the
        downloads step asks) and replacing the previous run's: a session holds one pair at most. None
        before any run."""
        view, exported = self.view, self._exported
        if view is None:
            return None
        written = exported is not None and exported[0] is view
        if exported is not None and written and (view is self._settled or exported[1] == len(view.events)):
            return exported[2], exported[3]
        if not view.events:
            return None
        self._remove_exports()
        if self._export_dir is None:
            self._export_dir = Path(tempfile.mkdtemp(prefix="repo-analyst-"))
        self._exports_written += 1
        stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{self._exports_written}"
        report = self._export_dir / f"report-{stamp}.md"
        trace = self._export_dir / f"trace-{stamp}.jsonl"
        report.write_text(view.report.export_text(), encoding="utf-8")
        with trace.open("w", encoding="utf-8") as fh:  # bidi and control characters as JSON escapes:
            fh.writelines(dumps_event(e).translate(_JSON_SHOWN) + "\n" for e in view.events)  # same data
        self._exported = (view, len(view.events), report, trace)
        return report, trace

    def settle(self) -> None:
        """The run ended: its trace moves to its export file and out of memory (a replay's can be 20,000
        events, ~5 MiB as objects: issue 20 wants < 2 MiB per finished session). The page and the
        downloads step read the view's rendered state and the files, never the events again. Blocking
        (it writes the files): the handlers call it off the event loop, before the run lets go of the
        session."""
        view = self.view
        if view is None or not view.finished or view is self._settled or not view.events:
            return
        self.export_files()
        view.events.clear()
        self._settled = view

    def _remove_exports(self) -> None:
        if self._exported is not None:
            for path in self._exported[2:]:
                path.unlink(missing_ok=True)
            self._exported = None

    @property
    def has_report(self) -> bool:
        """The current run wrote some report text (finished, or partial when stopped): worth downloading."""
        return self.view is not None and bool(self.view.report.export_text().strip())

    def discard(self, schedule: Callable[[OpenedAnalysis], None] | None = None) -> None:
        """The browser session ended: drop files, hand the open analysis to ``schedule`` for closing."""
        self._exported = self._settled = None
        if self._export_dir is not None:
            shutil.rmtree(self._export_dir, ignore_errors=True)
            self._export_dir = None
        opened, self.opened, self.opened_payer = self.opened, None, None
        if opened is not None and schedule is not None:
            schedule(opened)

    def release(self, schedule: Callable[[OpenedAnalysis], None] | None = None) -> None:
        """The session sat idle too long (:mod:`agent_core.web.sessions`): like :meth:`discard`, and its
        trace and conversation go too; its settings stay."""
        self.discard(schedule)
        self.view = None
        self.history = []
        self.rate_limit = None
        self.replaying = None
        self.phase = ""
