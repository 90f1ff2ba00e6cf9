"""The handlers of the page's side panels: the live breaker table, chaos mode, settings, the language.

They are quick (never queued, never public) and render through the run handlers' frames
(:class:`~agent_core.web.handlers.Handlers`), whose session and status line they share.
"""

from __future__ import annotations

import gradio as gr

from agent_core.errors import ConfigurationError
from agent_core.llm import DEFAULT_PROVIDER, PRESETS
from agent_core.web.breakers import breaker_value, needs_ticking
from agent_core.web.browser_session import BrowserSession
from agent_core.web.controls import chaos_text, form_error, run_buttons
from agent_core.web.handlers import Handlers
from agent_core.web.layout import examples, examples_update
from agent_core.web.limits import too_long
from agent_core.web.markdown import one_line
from agent_core.web.outcome import report_pane
from agent_core.web.page import UI_LANGUAGES, Frame, ui_language
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
        view = s.view
        table = breaker_value(s.breaker_snapshots(), s.lang)
        return (
            labels
            | run_buttons(p, s.lang, running=s.running)
            | {
                p.state: s,
                p.status.breakers: gr.update(value=table, label=t("breakers", s.lang)),
                p.report.markdown: report_pane(view, s.lang),
                p.report.checked: view.report.checked_markdown() if view is not None else "",
                p.status.stats: view.stats.markdown() if view is not None else "",
                p.status.line: self.runs.line(s),
                p.chaos.status: chaos_text(s),
                p.examples: examples_update(self.runs.settings, s.lang),
            }
        )
