"""The page's run handlers. They only render events: every decision lives in ``agent_core``.

A run's handler opens an analysis through the composition root (:func:`agent_core.top.wiring.open_analysis`)
with the browser session's settings, breakers and chaos monkey, then turns its events into frames
(:meth:`Handlers.stream`); the trace, report, stats and breaker rows come from
:mod:`~agent_core.web.render`. What a browser session owns is a
:class:`~agent_core.web.browser_session.BrowserSession` kept in ``gr.State``. A session streams one
run at a time (a second request is told to press Stop first); Stop cancels it through the session
(:class:`~agent_core.web.batching.ActiveRun`). The side panels' handlers (replay included) are in
:mod:`~agent_core.web.panels`.

What is clickable when: while a run streams, Analyze is disabled and says "Analyzing…", Stop is
enabled, follow-up and the downloads are disabled (:func:`idle_controls`). After it (finished, failed or
stopped), Analyze and Stop swap back and each download is enabled only when there is something in it:
the ``.md`` when a report (or a stopped run's partial report) was written, the trace when any event
arrived (:func:`run_controls`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from dataclasses import KW_ONLY, InitVar, dataclass
from pathlib import Path

import gradio as gr

from agent_core import events as ev
from agent_core.errors import AgentCoreError
from agent_core.settings import Settings
from agent_core.top.payer import Payer
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis, resolve_targets
from agent_core.web.batching import ActiveRun, batched
from agent_core.web.breakers import TICK_SECONDS, needs_ticking
from agent_core.web.browser_session import BrowserSession
from agent_core.web.budget import Admission, SpaceBudget
from agent_core.web.frames import BreakerTable
from agent_core.web.limits import too_long
from agent_core.web.markdown import one_line
from agent_core.web.mcp import client_key
from agent_core.web.page import Frame, Page
from agent_core.web.render import report_pane
from agent_core.web.replay import CpuMeter
from agent_core.web.sessions import SessionTable
from agent_core.words import t

logger = logging.getLogger("repo_analyst.app")


def run_buttons(page: Page, lang: str, *, running: bool) -> Frame:
    """Analyze and Stop: one of them is enabled, never both."""
    return {
        page.inputs.analyze: gr.update(
            value=t("analyzing" if running else "analyze", lang), interactive=not running
        ),
        page.inputs.stop: gr.update(value=t("stop", lang), interactive=running),
    }


def idle_controls(page: Page, lang: str) -> Frame:
    """Before a run streams: nothing to follow up or download until it ends; Stop is the only button."""
    idle = gr.update(interactive=False)
    return run_buttons(page, lang, running=True) | {
        page.trace.followup: idle,
        page.trace.ask: idle,
        page.report.download_report: idle,
        page.report.download_trace: idle,
    }


def run_controls(page: Page, s: BrowserSession) -> Frame:
    """After a run (or Stop): downloads of what it produced, follow-up if the conversation allows. While
    another run of the session streams (a refused second request ended), everything stays idle."""
    if s.running:
        return idle_controls(page, s.lang) | {page.chaos.status: chaos_text(s)}
    out: Frame = run_buttons(page, s.lang, running=False) | {page.chaos.status: chaos_text(s)}
    files = s.export_files()
    if files is None:
        out[page.report.download_report] = out[page.report.download_trace] = gr.update(
            value=None, interactive=False
        )
    else:
        report, trace = files
        out[page.report.download_report] = (
            gr.update(value=str(report), interactive=True)
            if s.has_report
            else gr.update(value=None, interactive=False)
        )
        out[page.report.download_trace] = gr.update(value=str(trace), interactive=True)
    out[page.trace.followup] = out[page.trace.ask] = gr.update(interactive=s.can_follow_up)
    return out


def chaos_text(s: BrowserSession) -> str:
    """One line about the session's chaos mode, in the session's language."""
    c, lang = s.chaos.settings, s.lang
    if not c.enabled:
        armed = s.chaos.burst_left
        return t("chaos_off", lang) + (t("chaos_armed", lang, count=armed) if armed else "")
    parts = [t("chaos_on", lang, rate=f"{c.fault_rate:.0%}")]
    if c.down_tool:
        parts.append(t("chaos_down_now", lang, tool=c.down_tool))
    if s.chaos.burst_left:
        parts.append(t("chaos_burst_next", lang, count=s.chaos.burst_left))
    parts.append(t("chaos_injected", lang, count=len(s.chaos.log)))
    return " · ".join(parts)


@dataclass(eq=False)
class Handlers:
    """The page's event handlers. They only render events: every decision lives in agent_core."""

    page: Page
    _: KW_ONLY
    settings: Settings
    services: Services
    budget: SpaceBudget
    recordings: Mapping[str, Path]
    sessions: InitVar[SessionTable | None] = None  # the app's table of sessions; one of its own if None

    def __post_init__(self, sessions: SessionTable | None) -> None:
        self.session_table = sessions or SessionTable(self.services.clock)

    def session(self, value: object) -> BrowserSession:
        """The browser session's state, created on first use (API clients never trigger ``load``); each
        use keeps it from expiring (:mod:`~agent_core.web.sessions`)."""
        s = (
            value
            if isinstance(value, BrowserSession)
            else BrowserSession(self.settings, clock=self.services.clock)
        )
        self.session_table.touch(s)
        return s

    def line(self, s: BrowserSession) -> str:
        """The status line, with what is left of the hosted budget (hosted mode only)."""
        return s.status_line(allowance=self.budget.status(s.visitor, s.payer, s.lang))

    # -- frames -------------------------------------------------------------------------------------

    def frame(self, s: BrowserSession, *, table: BreakerTable | None = None) -> Frame:
        """Every run output but the state, with plain values (see :mod:`agent_core.web.frames`)."""
        p = self.page
        out = self.panes(s)
        snaps = s.breaker_snapshots()
        out[p.status.breakers] = (table or BreakerTable()).value(snaps, s.lang)
        # A prop update (or a left-out output) costs Gradio a component construction: the timer gets
        # its unchanged interval unless it must start or stop.
        if needs_ticking(snaps) != s.timer_on:
            s.timer_on = not s.timer_on
            out[p.status.timer] = gr.update(active=s.timer_on)
        else:
            out[p.status.timer] = TICK_SECONDS
        return out

    def panes(self, s: BrowserSession, *, trace: bool = True) -> Frame:
        """The trace (unless not ``trace``), the report, the checked panel, the stats and the status line:
        what Stop updates (a language switch: all but the trace)."""
        p, view = self.page, s.view
        return ({p.trace.chatbot: s.messages()} if trace else {}) | {
            p.report.markdown: report_pane(view, s.lang),
            p.report.checked: view.report.checked_markdown() if view is not None else "",
            p.status.stats: view.stats.markdown() if view is not None else "",
            p.status.line: self.line(s),
        }

    def opening_frame(self, s: BrowserSession) -> Frame:
        return self.frame(s) | {self.page.state: s}

    async def stream(
        self,
        s: BrowserSession,
        run: ActiveRun,
        events: AsyncIterator[ev.Event],
        meter: CpuMeter | None = None,
        admission: Admission | None = None,
    ) -> AsyncGenerator[Frame, None]:
        """Frames for a run's events. Stop cancels the run's pump (``run``, an
        :class:`~agent_core.web.batching.ActiveRun`): the batches end and the last frame shows the stopped
        trace. Callers wrap it in ``aclosing`` as it wraps
        ``batched``: on a closed tab (GeneratorExit at a yield) or a cancelled event the chain closes at
        once, ``batched`` cancels the run, and the run's own ``finally`` cancels its tool calls. However it
        ends (done, Stop, a closed tab), ``admission`` gets its tokens back."""
        table, view = BreakerTable(), s.view
        try:
            async with contextlib.aclosing(batched(events, on_pump=run.attach)) as batches:
                async for batch in batches:
                    with meter or contextlib.nullcontext():
                        for event in batch:
                            s.observe(event)
                        frame = self.frame(s, table=table)
                    if meter is not None and meter.exceeded:  # an ending the page reads; a finished trace
                        s.observe(meter.ending(s.view.now if s.view is not None else 0.0))
                        if s.view is not None:
                            s.view.mark_stopped()
                        break  # closing the batches cancels the events' pump
                    yield frame
        except Exception:  # the UI edge: a bug must end the run visibly, not leave spinners spinning
            logger.exception("a run failed unexpectedly")
            at = s.view.now if s.view is not None else 0.0
            s.observe(
                ev.RunFailed(t=at, message="internal error: the run stopped", hint="see the server log")
            )
        finally:
            if admission is not None:
                self.budget.release(
                    admission, tokens_used=view.stats.tokens_used() if view is not None else 0
                )
        await asyncio.to_thread(s.settle)  # the finished trace to its export file, out of memory
        self.session_table.touch(s)  # what the session holds now
        yield self.frame(s, table=table)

    def busy(self, s: BrowserSession) -> Frame:
        """A second run requested while one streams (an API client, a double click): say so, and leave
        the running one alone (its next frame restores the status line)."""
        message = t("run_busy", s.lang)
        gr.Warning(message)
        return {self.page.state: s, self.page.status.line: f"{self.line(s)} · **{message}**"}

    def refuse(self, s: BrowserSession, message: str) -> Frame:
        gr.Warning(one_line(message, 300))  # may quote the user's input: never markup
        s.phase = message
        return {
            self.page.state: s,
            self.page.status.line: self.line(s),
            self.page.trace.chatbot: s.messages(),
        }

    def admit(self, s: BrowserSession, request: gr.Request | None, payer: Payer) -> Admission | str:
        """Count a run for this visitor (hosted mode), paid by ``payer``; the refusal's text when it may
        not start."""
        s.visitor = client_key(request)
        return self.budget.admit(s.visitor, payer, lang=s.lang)

    # -- runs -----------------------------------------------------------------------------------------

    async def exclusive(
        self, session: object, steps: Callable[[BrowserSession, ActiveRun], AsyncGenerator[Frame, None]]
    ) -> AsyncGenerator[Frame, None]:
        """A run's frames (``steps``), one run of a session at a time: a second request is told so."""
        s = self.session(session)
        run = s.begin_run()
        if run is None:
            yield self.busy(s)
            return
        try:
            async with contextlib.aclosing(steps(s, run)) as frames:
                async for out in frames:
                    yield out
        finally:
            s.end_run(run)

    def run_analysis(
        self, target_text: str, question_text: str, session: object, request: gr.Request
    ) -> AsyncGenerator[Frame, None]:
        return self.exclusive(
            session, lambda s, run: self._analysis(s, run, target_text, question_text, request)
        )

    async def _analysis(
        self, s: BrowserSession, run: ActiveRun, target_text: str, question_text: str, request: gr.Request
    ) -> AsyncGenerator[Frame, None]:
        refused = too_long(s.lang, ("target", target_text), ("question", question_text))
        if refused is not None:  # before anything renders, resolves or counts the text
            yield self.refuse(s, refused)
            return
        await s.close_analysis()
        s.replaying = None
        s.start_view(keep_history=False, request="\n\n".join(p for p in (target_text, question_text) if p))
        s.phase = t("status_running", s.lang)
        yield self.opening_frame(s)
        try:  # counted only for usable input; opened as parsed here
            targets = resolve_targets(self.services, target_text, question_text)
        except AgentCoreError as exc:
            s.view = None
            yield self.refuse(s, str(exc))
            return
        payer = Payer.of(self.settings, s.settings)  # decides who pays, now and for its follow-ups
        admission = self.admit(s, request, payer)
        if isinstance(admission, str):
            s.view = None
            yield self.refuse(s, admission)
            return
        try:
            s.opened = await open_analysis(
                self.services,
                targets,
                question_text,
                settings=s.settings,
                breakers=s.breakers,
                chaos=s.chaos,
                fallback_language=s.lang,
            )
        except AgentCoreError as exc:
            self.budget.release(admission, tokens_used=0)
            s.view = None
            yield self.refuse(
                s, exc.localized(s.lang)
            )  # e.g. an unknown ref or path, named in the page's language
            return
        except BaseException:
            self.budget.release(admission, tokens_used=0)
            raise
        s.opened_payer = payer
        if run.stopped:  # Stop came while the analysis opened: nothing ran
            self.budget.release(admission, tokens_used=0)
            yield self.frame(s)
            return
        events = s.opened.analysis.run(question_text, max_total_tokens=admission.tokens)
        async with contextlib.aclosing(self.stream(s, run, events, admission=admission)) as frames:
            async for out in frames:
                yield out

    def ask_followup(self, text: str, session: object, request: gr.Request) -> AsyncGenerator[Frame, None]:
        return self.exclusive(session, lambda s, run: self._followup(s, run, text, request))

    async def _followup(
        self, s: BrowserSession, run: ActiveRun, text: str, request: gr.Request
    ) -> AsyncGenerator[Frame, None]:
        refused = too_long(s.lang, ("followup", text))
        if refused is not None:
            yield self.refuse(s, refused)
            return
        if not s.can_follow_up or not text.strip():
            yield self.refuse(s, t("status_no_followup", s.lang))
            return
        # A follow-up runs on the opened analysis: its key and token pay, whatever the settings say now.
        # Settings that change who pays close it at once (the settings panel); one that changed while
        # a run streamed on it is closed here (the next analysis opens under the new payer).
        payer = s.opened_payer
        if payer is None or s.payer_changed:
            await s.close_analysis()
            yield self.refuse(s, t("followup_payer_changed", s.lang))
            return
        admission = self.admit(s, request, payer)
        if isinstance(admission, str):
            yield self.refuse(s, admission)
            return
        assert s.opened is not None  # can_follow_up says so
        s.start_view(keep_history=True, request=text)
        s.phase = t("status_running", s.lang)
        yield self.opening_frame(s)
        events = s.opened.analysis.run(text, max_total_tokens=admission.tokens)
        async with contextlib.aclosing(self.stream(s, run, events, admission=admission)) as frames:
            async for out in frames:
                yield out

    async def stop_run(self, session: object) -> Frame:
        """Stop's own handler: the trace turns done ("stopped") and the run is cancelled through the
        session, requests and retries included, before the page settles on the stopped frame (which the
        run's own handler repeats as it ends: no cancelled event, no error styling)."""
        if not isinstance(session, BrowserSession):
            return {}
        if not await session.stop():
            return self.frame(session) | run_controls(
                self.page, session
            )  # no run streams: nothing else will render the page
        # Light, so that it arrives at once (Gradio rebuilds every output it gets): the trace, the report,
        # the status and the buttons. The breaker table comes with the stopped handler's last frame, the
        # downloads with the step after it.
        return self.panes(session) | run_buttons(self.page, session.lang, running=False)

    def before_run(self, session: object) -> Frame:
        return idle_controls(self.page, session.lang if isinstance(session, BrowserSession) else "en")

    def after_run(self, session: object) -> Frame:
        return run_controls(self.page, session) if isinstance(session, BrowserSession) else {}

    def after_followup(self, text: str, session: object) -> Frame:
        """Controls after a follow-up; the box is emptied only if the run took its text."""
        if not isinstance(session, BrowserSession):
            return {}
        out = run_controls(self.page, session)
        if session.running:
            return out
        taken = session.view is not None and session.view.request == text
        follow = session.can_follow_up
        out[self.page.trace.followup] = (
            gr.update(value="", interactive=follow) if taken else gr.update(interactive=follow)
        )
        return out

    def on_load(self, session: object, request: gr.Request) -> Frame:
        s = self.session(session)
        s.visitor = client_key(request)
        return {self.page.state: s, self.page.status.line: self.line(s)}
