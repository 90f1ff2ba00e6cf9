"""The page's event handlers. They only render events: every decision lives in ``agent_core``.

A run's handler opens an analysis through the composition root (:func:`agent_core.wiring.open_analysis`)
with the browser session's settings, breakers and chaos monkey, then turns its events into frames
(:meth:`Handlers.stream`); the trace, report, stats and breaker rows come from
:mod:`~agent_core.web.render`. What a browser session owns is a
:class:`~agent_core.web.browser_session.BrowserSession` kept in ``gr.State``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from pathlib import Path

import gradio as gr

from agent_core import events as ev
from agent_core.errors import AgentCoreError, ConfigurationError, UserInputError
from agent_core.llm import DEFAULT_PROVIDER, PRESETS
from agent_core.services import Services
from agent_core.settings import Settings
from agent_core.web.batching import batched
from agent_core.web.breakers import TICK_SECONDS, breaker_value, needs_ticking
from agent_core.web.browser_session import BrowserSession
from agent_core.web.budget import Admission, Payer, SpaceBudget
from agent_core.web.frames import BreakerTable
from agent_core.web.i18n import t, ui_language
from agent_core.web.markdown import one_line
from agent_core.web.mcp import client_key
from agent_core.web.page import Frame, Page
from agent_core.web.replay import load_recording, replay
from agent_core.wiring import open_analysis, owner_github, owner_model, resolve_targets

logger = logging.getLogger("repo_analyst.app")


class Handlers:
    """The page's event handlers. They only render events: every decision lives in agent_core."""

    def __init__(
        self,
        page: Page,
        *,
        settings: Settings,
        services: Services,
        budget: SpaceBudget,
        recordings: Mapping[str, Path],
    ) -> None:
        self.page = page
        self.settings = settings
        self.services = services
        self.budget = budget
        self.recordings = recordings

    def session(self, value: object) -> BrowserSession:
        """The browser session's state, created on first use (API clients never trigger ``load``)."""
        return (
            value
            if isinstance(value, BrowserSession)
            else BrowserSession(self.settings, clock=self.services.clock)
        )

    def payer(self, s: BrowserSession) -> Payer:
        """Whose accounts this session's runs spend."""
        return Payer(
            owner_model=owner_model(self.settings, s.settings),
            owner_github=owner_github(self.settings, s.settings),
        )

    def line(self, s: BrowserSession) -> str:
        """The status line, with what is left of the hosted budget (hosted mode only)."""
        return s.status_line(allowance=self.budget.status(s.visitor, self.payer(s), s.lang))

    # -- frames -------------------------------------------------------------------------------------

    def frame(self, s: BrowserSession, *, table: BreakerTable | None = None) -> Frame:
        """Every run output but the state, with plain values (see :mod:`agent_core.web.frames`)."""
        p, view = self.page, s.view
        out: Frame = {
            p.trace.chatbot: s.messages(),
            p.report.markdown: (view.report_markdown() if view is not None else "")
            or t("report_empty", s.lang),
            p.report.checked: view.checked_markdown() if view is not None else "",
            p.status.stats: view.stats_markdown() if view is not None else "",
            p.status.line: self.line(s),
        }
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

    def opening_frame(self, s: BrowserSession) -> Frame:
        return self.frame(s) | {self.page.state: s}

    def idle_controls(self) -> Frame:
        """Before a run streams: nothing to follow up or download until it ends."""
        idle = gr.update(interactive=False)
        p = self.page
        return {
            p.trace.followup: idle,
            p.trace.ask: idle,
            p.report.download_report: idle,
            p.report.download_trace: idle,
        }

    def controls(self, s: BrowserSession) -> Frame:
        """After a run (or Stop): downloads of what it produced, follow-up if the conversation allows."""
        p = self.page
        out: Frame = {p.chaos.status: chaos_text(s)}
        files = s.export_files()
        if files is not None:
            out[p.report.download_report] = gr.update(value=str(files[0]), interactive=True)
            out[p.report.download_trace] = gr.update(value=str(files[1]), interactive=True)
        out[p.trace.followup] = out[p.trace.ask] = gr.update(interactive=s.can_follow_up)
        return out

    def closing_frame(self, s: BrowserSession) -> Frame:
        return self.frame(s) | self.controls(s)

    async def stream(self, s: BrowserSession, events: AsyncIterator[ev.Event]) -> AsyncGenerator[Frame, None]:
        """Frames for a run's events. Callers wrap it in ``aclosing`` as it wraps ``batched``: on Stop
        (CancelledError) or a closed tab (GeneratorExit at a yield) the chain closes at once, ``batched``
        cancels the run, and the run's own ``finally`` cancels its tool calls."""
        table = BreakerTable()
        try:
            async with contextlib.aclosing(batched(events)) as batches:
                async for batch in batches:
                    for event in batch:
                        s.observe(event)
                    yield self.frame(s, table=table)
        except Exception:  # the UI edge: a bug must end the run visibly, not leave spinners spinning
            logger.exception("a run failed unexpectedly")
            at = s.view.now if s.view is not None else 0.0
            s.observe(
                ev.RunFailed(t=at, message="internal error: the run stopped", hint="see the server log")
            )
        yield self.frame(s, table=table)

    def refuse(self, s: BrowserSession, message: str) -> Frame:
        gr.Warning(one_line(message, 300))  # may quote the user's input: never markup
        s.phase = message
        return {
            self.page.state: s,
            self.page.status.line: self.line(s),
            self.page.trace.chatbot: s.messages(),
        }

    def admit(self, s: BrowserSession, request: gr.Request | None) -> Admission | str:
        """Count a run for this visitor (hosted mode); the refusal's text when it may not start."""
        s.visitor = client_key(request)
        return self.budget.admit(s.visitor, self.payer(s), lang=s.lang)

    async def admitted(
        self, s: BrowserSession, admission: Admission, events: AsyncIterator[ev.Event]
    ) -> AsyncGenerator[Frame, None]:
        """The run's frames; however it ends (done, Stop, a closed tab) the budget gets its tokens back."""
        try:
            async with contextlib.aclosing(self.stream(s, events)) as frames:
                async for out in frames:
                    yield out
        finally:
            self.budget.release(admission, tokens_used=s.view.tokens_used() if s.view is not None else 0)

    # -- runs -----------------------------------------------------------------------------------------

    async def run_analysis(
        self, target_text: str, question_text: str, session: object, request: gr.Request
    ) -> AsyncIterator[Frame]:
        s = self.session(session)
        await s.close_analysis()
        s.replaying = None
        s.start_view(keep_history=False, request="\n\n".join(p for p in (target_text, question_text) if p))
        s.phase = t("status_running", s.lang)
        yield self.opening_frame(s)
        try:
            resolve_targets(self.services, target_text, question_text)  # counted only for usable input
        except AgentCoreError as exc:
            s.view = None
            yield self.refuse(s, str(exc))
            return
        admission = self.admit(s, request)
        if isinstance(admission, str):
            s.view = None
            yield self.refuse(s, admission)
            return
        try:
            s.opened = await open_analysis(
                self.services,
                target_text,
                question_text,
                settings=s.settings,
                breakers=s.breakers,
                chaos=s.chaos,
            )
        except AgentCoreError as exc:
            self.budget.release(admission, tokens_used=0)
            s.view = None
            yield self.refuse(s, str(exc))
            return
        except BaseException:
            self.budget.release(admission, tokens_used=0)
            raise
        events = s.opened.analysis.run(question_text, max_total_tokens=admission.tokens)
        async with contextlib.aclosing(self.admitted(s, admission, events)) as frames:
            async for out in frames:
                yield out

    async def ask_followup(self, text: str, session: object, request: gr.Request) -> AsyncIterator[Frame]:
        s = self.session(session)
        if not s.can_follow_up or not text.strip():
            yield self.refuse(s, t("status_no_followup", s.lang))
            return
        admission = self.admit(s, request)
        if isinstance(admission, str):
            yield self.refuse(s, admission)
            return
        assert s.opened is not None  # can_follow_up says so
        s.start_view(keep_history=True, request=text)
        s.phase = t("status_running", s.lang)
        yield self.opening_frame(s)
        events = s.opened.analysis.run(text, max_total_tokens=admission.tokens)
        async with contextlib.aclosing(self.admitted(s, admission, events)) as frames:
            async for out in frames:
                yield out

    async def run_replay(
        self, choice: str | None, upload: str | None, speed: float, session: object
    ) -> AsyncIterator[Frame]:
        s = self.session(session)
        path = Path(upload) if upload else self.recordings.get(choice or "")
        if path is None:
            yield self.refuse(s, t("replay_choice", s.lang) + "?")
            return
        try:
            events = load_recording(path)
        except UserInputError as exc:
            yield self.refuse(s, str(exc))
            return
        await s.close_analysis()  # a replay replaces the conversation
        s.replaying = path.stem
        s.rate_limit = None
        s.start_view(keep_history=False)
        s.phase = t("status_replaying", s.lang)
        yield self.opening_frame(s)
        async with contextlib.aclosing(self.stream(s, replay(events, speed=float(speed or 1.0)))) as frames:
            async for out in frames:
                yield out
        s.phase = t("status_replayed", s.lang)
        yield {self.page.status.line: self.line(s)}

    def stop_run(self, session: object) -> Frame:
        """Stop's own handler: the cancelled generator can no longer yield, so this re-renders."""
        if not isinstance(session, BrowserSession):
            return {}
        if session.view is not None and not session.view.finished:
            session.view.mark_stopped()
            session.phase = t("status_stopped", session.lang)
        return self.closing_frame(session)

    def before_run(self) -> Frame:
        return self.idle_controls()

    def after_run(self, session: object) -> Frame:
        return self.controls(session) if isinstance(session, BrowserSession) else {}

    def after_followup(self, text: str, session: object) -> Frame:
        """Controls after a follow-up; the box is emptied only if the run took its text."""
        if not isinstance(session, BrowserSession):
            return {}
        out = self.controls(session)
        taken = session.view is not None and session.view.request == text
        follow = session.can_follow_up
        out[self.page.trace.followup] = (
            gr.update(value="", interactive=follow) if taken else gr.update(interactive=follow)
        )
        return out

    # -- live table, chaos, settings, language -----------------------------------------------------------

    def tick(self, session: object) -> Frame:
        p = self.page
        if not isinstance(session, BrowserSession):
            return {p.status.timer: gr.update(active=False)}
        snaps = session.breaker_snapshots()
        session.timer_on = needs_ticking(snaps)
        return {
            p.status.breakers: breaker_value(snaps, session.lang),
            p.status.timer: gr.update(active=session.timer_on),
        }

    def set_chaos(self, enabled: bool, rate: float, down: str | None, session: object) -> Frame:
        s = self.session(session)
        s.chaos.configure(enabled=bool(enabled), fault_rate=float(rate or 0), down_tool=down or None)
        return {self.page.state: s, self.page.chaos.status: chaos_text(s)}

    def arm_burst(self, session: object) -> Frame:
        s = self.session(session)
        s.chaos.arm_rate_limit_burst()
        return {self.page.state: s, self.page.chaos.status: chaos_text(s)}

    def on_provider(self, name: str) -> Frame:
        chosen = PRESETS.get(name, PRESETS[DEFAULT_PROVIDER])
        return {
            self.page.settings.model: gr.update(
                choices=list(chosen.models), value=chosen.default_model or None
            ),
            self.page.settings.base_url: gr.update(value="", placeholder=chosen.base_url),
        }

    def apply_settings(  # noqa: PLR0917 - Gradio passes inputs positionally
        self,
        provider_name: str,
        model_name: str | None,
        url: str,
        key: str,
        token: str,
        turns: float,
        language: str,
        session: object,
    ) -> Frame:
        """Keys arrive here and go into the session's settings only: never logged nor sent back."""
        s = self.session(session)
        try:
            s.apply_settings(
                llm_provider=provider_name,
                llm_model=model_name or "",
                llm_base_url=url,
                api_key=key,
                github_token=token,
                max_turns=int(turns),
                report_language=language,
            )
        except ConfigurationError as exc:
            gr.Warning(str(exc))
        else:
            gr.Info(t("settings_applied", s.lang))
        return {self.page.state: s, self.page.status.line: self.line(s)}

    def switch_language(self, choice: str, session: object) -> Frame:
        p, s = self.page, self.session(session)
        s.lang = ui_language(choice)
        view = s.view
        table = breaker_value(s.breaker_snapshots(), s.lang)
        return self.page.labels(s.lang, hosted_target=not self.settings.allow_local_paths) | {
            p.state: s,
            p.status.breakers: gr.update(value=table, label=t("breakers", s.lang)),
            p.report.markdown: (view.report_markdown() if view is not None else "")
            or t("report_empty", s.lang),
            p.report.checked: view.checked_markdown() if view is not None else "",
            p.status.stats: view.stats_markdown() if view is not None else "",
            p.status.line: self.line(s),
        }

    def on_load(self, session: object, request: gr.Request) -> Frame:
        s = self.session(session)
        s.visitor = client_key(request)
        return {self.page.state: s, self.page.status.line: self.line(s)}


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
