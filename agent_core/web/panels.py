"""The handlers of the page's side panels: the live breaker table, chaos mode, settings, the language
(:class:`PanelHandlers`: quick, never queued, never public), and the replay panel's Play
(:class:`ReplayHandler`). They render through the run handlers' frames
(:class:`~agent_core.web.handlers.Handlers`), whose session and status line they share.

Apply checks the settings form before anything changes (:func:`form_error`): a known provider, a model
name, a base URL that is http(s) with a host.

A replay costs the Space CPU (every frame renders the trace so far), so it is a bounded, budgeted job: an
uploaded trace is checked before anything renders (:func:`~agent_core.web.replay.parse_recording`:
sizes, nesting, grammar), a replay is counted in the visitor's budget
(:meth:`~agent_core.web.budget.SpaceBudget.admit_replay`: one run or replay at a time, so many an hour)
and stopped after :data:`~agent_core.web.replay.REPLAY_CPU_SECONDS` of the event loop thread's CPU: its
own rendering of each frame, and what the loop does while Gradio serialises and sends it (each frame
re-sends the whole trace; work of other requests interleaved there counts too, so a busy Space ends
replays sooner).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import gradio as gr

from agent_core.errors import ConfigurationError, UserInputError
from agent_core.llm import DEFAULT_PROVIDER, PRESETS
from agent_core.web.batching import ActiveRun
from agent_core.web.breakers import breaker_value, needs_ticking
from agent_core.web.browser_session import BrowserSession
from agent_core.web.handlers import Handlers, chaos_text, run_buttons
from agent_core.web.layout import example_headers, examples
from agent_core.web.limits import too_long
from agent_core.web.markdown import one_line
from agent_core.web.mcp import client_key
from agent_core.web.page import UI_LANGUAGES, Frame, ui_language
from agent_core.web.replay import REPLAY_CPU_SECONDS, CpuMeter, load_recording, replay
from agent_core.words import t


class PanelHandlers:
    """Breaker table ticks, chaos mode, settings and language; one per app, like :class:`Handlers`."""

    def __init__(self, runs: Handlers) -> None:
        self.runs = runs
        self.page = runs.page

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
        s = self.runs.session(session)
        s.chaos.configure(enabled=bool(enabled), fault_rate=float(rate or 0), down_tool=down or None)
        return {self.page.state: s, self.page.chaos.status: chaos_text(s)}

    def arm_burst(self, session: object) -> Frame:
        s = self.runs.session(session)
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

    async def apply_settings(  # noqa: PLR0917 - Gradio passes inputs positionally
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
        """Check the form, then apply it to the session; the outcome shows next to the button.

        Keys arrive here and go into the session's settings only: never logged nor sent back. Settings
        that change who pays close the opened analysis now, and the page says so (no follow-up on it)."""
        s = self.runs.session(session)
        closed = False
        fields = (provider_name, model_name, url, key, token)
        error = too_long(s.lang, *(("setting", value) for value in fields)) or form_error(
            provider_name, model_name, url, s.lang
        )
        if error is None:
            try:
                closed = await s.change_settings(
                    llm_provider=provider_name,
                    llm_model=model_name or "",
                    llm_base_url=url,
                    api_key=key,
                    github_token=token,
                    max_turns=int(turns),
                    report_language=language,
                )
            except ConfigurationError as exc:
                error = t("settings_refused", s.lang, message=one_line(exc.localized(s.lang), 400))
        # Next to the button, not a toast: this handler is not queued, and Gradio shows no toast for it.
        feedback = f"❌ {error}" if error is not None else f"✅ {t('settings_applied', s.lang)}"
        if closed:
            feedback += f" {t('followup_payer_changed', s.lang)}"
        p = self.page
        out = {p.state: s, p.status.line: self.runs.line(s), p.settings.feedback: feedback}
        if not s.running:
            out[p.trace.followup] = out[p.trace.ask] = gr.update(interactive=s.can_follow_up)
        return out

    def use_example(self, index: int, session: object) -> Frame:
        """An example's repository and question in the input bar, labelled in the page's language."""
        p, s = self.page, self.runs.session(session)
        rows = examples(self.runs.settings, s.lang)
        target, question = rows[index] if isinstance(index, int) and 0 <= index < len(rows) else ("", "")
        hosted = not self.runs.settings.allow_local_paths
        return {
            p.inputs.target: gr.update(
                value=target,
                label=t("target_label_hosted" if hosted else "target_label", s.lang),
                placeholder=t("target_placeholder", s.lang),
            ),
            p.inputs.question: gr.update(
                value=question,
                label=t("question_label", s.lang),
                placeholder=t("question_placeholder", s.lang),
            ),
        }

    def switch_language(self, choice: str, question: str, session: object) -> Frame:
        """Every label in the chosen language; the first screen's question too, while untouched."""
        p, s = self.page, self.runs.session(session)
        s.lang = ui_language(choice)
        labels = p.labels(s.lang, hosted_target=not self.runs.settings.allow_local_paths)
        if question in {t("first_question", lang) for lang in UI_LANGUAGES.values()}:
            labels[p.inputs.question] = gr.update(
                value=t("first_question", s.lang),
                label=t("question_label", s.lang),
                placeholder=t("question_placeholder", s.lang),
            )
        table = breaker_value(s.breaker_snapshots(), s.lang)
        return (
            labels
            | run_buttons(p, s.lang, running=s.running)
            | self.runs.panes(s, trace=False)
            | {
                p.state: s,
                p.status.breakers: gr.update(value=table, label=t("breakers", s.lang)),
                p.chaos.status: chaos_text(s),
                p.examples: gr.update(
                    headers=example_headers(s.lang), samples=examples(self.runs.settings, s.lang)
                ),
            }
        )


class ReplayHandler:
    """The Play button's handler; one per app, like :class:`~agent_core.web.handlers.Handlers`."""

    def __init__(self, runs: Handlers) -> None:
        self.runs = runs
        self.page = runs.page

    async def run_replay(
        self, choice: str | None, upload: str | None, speed: float, session: object, request: gr.Request
    ) -> AsyncIterator[Frame]:
        """Gradio streams what an async generator function yields: the frames of :meth:`_replay`, one
        run of the session at a time (:meth:`~agent_core.web.handlers.Handlers.exclusive`)."""
        steps = self.runs.exclusive(
            session, lambda s, run: self._replay(s, run, choice, upload, speed, request)
        )
        async with contextlib.aclosing(steps) as frames:
            async for out in frames:
                yield out

    async def _replay(  # noqa: PLR0917 - the handler's inputs, passed on
        self,
        s: BrowserSession,
        run: ActiveRun,
        choice: str | None,
        upload: str | None,
        speed: float,
        request: gr.Request | None,
    ) -> AsyncGenerator[Frame, None]:
        """A recording replayed as a bounded job (the module docstring)."""
        path = Path(upload) if upload else self.runs.recordings.get(choice or "")
        refused = too_long(s.lang, ("upload_name", path.name if path is not None else ""))
        if refused is not None:
            yield self.runs.refuse(s, refused)
            return
        if path is None:
            yield self.runs.refuse(s, t("replay_choice", s.lang) + "?")
            return
        try:  # parsing and checking up to 2 MB is seconds of CPU: off the event loop, which serves everyone
            events = await asyncio.to_thread(load_recording, path)
        except UserInputError as exc:
            yield self.runs.refuse(s, str(exc))
            return
        s.visitor = client_key(request)
        admission = self.runs.budget.admit_replay(s.visitor, lang=s.lang)
        if isinstance(admission, str):
            yield self.runs.refuse(s, admission)
            return
        try:
            await s.close_analysis()  # a replay replaces the conversation
            s.replaying = path.stem
            s.rate_limit = None
            s.start_view(keep_history=False)
            s.phase = t("status_replaying", s.lang)
            yield self.runs.opening_frame(s)
            played = replay(events, speed=float(speed or 1.0))
            stopped = t("replay_cpu_stopped", s.lang, seconds=f"{REPLAY_CPU_SECONDS:g}")
            meter = CpuMeter(REPLAY_CPU_SECONDS, message=stopped)
            async with contextlib.aclosing(self.runs.stream(s, run, played, meter)) as frames:
                async for out in frames:
                    with meter:  # Gradio serialising and sending the frame: ~5x our rendering of it
                        yield out
        finally:
            self.runs.budget.release(admission, tokens_used=0)
        if meter.exceeded:
            s.phase = meter.message
            yield {self.page.status.line: self.runs.line(s)}
        elif not run.stopped:
            s.phase = t("status_replayed", s.lang)
            yield {self.page.status.line: self.runs.line(s)}


def form_error(provider: str, model: str | None, base_url: str, lang: str) -> str | None:
    """Why the settings form cannot be applied (one line of markdown, in ``lang``), or None.

    A blank base URL means the provider's own; anything else must be an http(s) URL with a host."""
    if (provider or "").strip().lower() not in PRESETS:
        return t("settings_bad_provider", lang, name=one_line(provider or "", 60))
    if not (model or "").strip():
        return t("settings_no_model", lang)
    url = (base_url or "").strip()
    if url:
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError:
            parts, host = None, None
        spaced = any(c.isspace() for c in url)
        if parts is None or parts.scheme not in ("http", "https") or not host or spaced:
            return t("settings_bad_url", lang, url=one_line(url, 80))
    return None
