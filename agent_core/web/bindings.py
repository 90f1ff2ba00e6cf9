"""Which page event runs which handler: the page's bindings, in one place.

Only the two run handlers are callable by API clients (undocumented, so neither appears in the API
docs or as an MCP tool); everything else is private. A run is a chain of three steps (controls idle,
frames streaming, controls back). Stop stops the run through the session
(:meth:`~agent_core.web.browser_session.BrowserSession.stop`), not by cancelling the streaming step
(``cancels=`` would show its outputs as errors): the streaming step ends by itself, with the stopped
frame, and the chain's last step brings the controls back.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable
from typing import Any

from agent_core.settings import Settings
from agent_core.web.frames import Wire, spare_failed_imports
from agent_core.web.handlers import Handlers
from agent_core.web.layout import SCROLL_TO_TRACE
from agent_core.web.page import Page
from agent_core.web.panels import PanelHandlers, ReplayHandler

LANGUAGE_KEY = "repo-analyst-language"
KEEP_LANGUAGE = f"(choice) => {{ try {{ localStorage.setItem('{LANGUAGE_KEY}', choice); }} catch (e) {{}} }}"
RESTORE_LANGUAGE = f"() => {{ try {{ return localStorage.getItem('{LANGUAGE_KEY}') || 'English'; }} catch (e) {{ return 'English'; }} }}"
"""The interface language survives a reload: saved in the browser's localStorage when chosen, set back
after the page's load event (a change of the selector then relabels the page as a click would)."""


def wired(run: Callable[..., AsyncIterator[Any]], wire: Wire) -> Callable[..., AsyncIterator[Any]]:
    """A run handler whose frames leave postprocessed (:class:`~agent_core.web.frames.Wire`), for an
    event bound with ``postprocess=False``. Same signature and hints (``functools.wraps``: Gradio still
    hands it the request), and closing it closes the handler's frames at once."""

    @functools.wraps(run)
    async def frames(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        sent = wire.run()
        async with contextlib.aclosing(run(*args, **kwargs)) as inner:  # type: ignore[type-var]
            async for frame in inner:
                yield sent.frame(frame)

    return frames


def bind(page: Page, handlers: Handlers, settings: Settings) -> None:
    """Connect events to handlers (who may call which: the module docstring)."""
    p, h, side = page, handlers, PanelHandlers(handlers)
    spare_failed_imports()
    outputs, controls = p.run_outputs(), p.control_outputs()
    runs: dict[str, Any] = {"concurrency_limit": settings.max_concurrent_runs, "concurrency_id": "analysis"}
    wire = Wire(p.trace.chatbot, p.status.breakers)
    analysis, followup = wired(h.run_analysis, wire), wired(h.ask_followup, wire)
    made: dict[str, Any] = {"postprocess": False}  # the frames come postprocessed (wired)
    quick: dict[str, Any] = {"api_visibility": "private", "queue": False}
    run_inputs = [p.inputs.target, p.inputs.question, p.state]
    followup_inputs = [p.trace.followup, p.state]
    replay_inputs = [p.replay.choice, p.replay.upload, p.replay.speed, p.state]

    def chain(
        trigger: Any, run: Any, inputs: list[Any], after: Any, after_inputs: list[Any], **kw: Any
    ) -> None:
        """A run is three steps: controls go idle, the run streams frames, controls come back. API clients
        call the middle step alone (by its api_name); the browser chains all three. A second request
        while the run streams is never dropped by the browser (``trigger_mode``): the handler says that
        a run is in progress."""
        # The click first brings the trace into view where it is out of sight (a phone): js runs in the page.
        # The trace's spinners and the status line show that a run streams; Gradio's own progress would
        # add a "…" bubble after every finished step of the trace.
        idle = trigger(h.before_run, [p.state], controls, js=SCROLL_TO_TRACE, **quick)
        streaming = idle.then(run, inputs, outputs, trigger_mode="multiple", show_progress="hidden", **kw)
        streaming.then(after, after_inputs, controls, **quick)

    # The button is the API's (undocumented, by its api_name); Enter in the box runs the same chain privately.
    undocumented = {"api_visibility": "undocumented", **runs, **made}
    private = {"api_visibility": "private", **runs, **made}
    for button, box, run, inputs, after, after_inputs, api_name in (
        (p.inputs.analyze, p.inputs.target, analysis, run_inputs, h.after_run, [p.state], "run_analysis"),
        (
            p.trace.ask,
            p.trace.followup,
            followup,
            followup_inputs,
            h.after_followup,
            followup_inputs,
            "ask_followup",
        ),
    ):
        chain(button.click, run, inputs, after, after_inputs, api_name=api_name, **undocumented)
        chain(box.submit, run, inputs, after, after_inputs, **private)
    replay = ReplayHandler(h).run_replay
    chain(p.replay.play.click, replay, replay_inputs, h.after_run, [p.state], api_visibility="private")
    p.inputs.stop.click(h.stop_run, [p.state], outputs + controls, **quick)
    p.status.timer.tick(side.tick, [p.state], [p.status.breakers, p.status.timer], **quick)
    chaos_inputs = [p.chaos.enabled, p.chaos.fault_rate, p.chaos.down_tool, p.state]
    p.chaos.enabled.change(side.set_chaos, chaos_inputs, [p.state, p.chaos.status], **quick)
    p.chaos.down_tool.change(side.set_chaos, chaos_inputs, [p.state, p.chaos.status], **quick)
    p.chaos.fault_rate.release(side.set_chaos, chaos_inputs, [p.state, p.chaos.status], **quick)
    p.chaos.burst.click(side.arm_burst, [p.state], [p.state, p.chaos.status], **quick)
    p.settings.provider.change(
        side.on_provider, [p.settings.provider], [p.settings.model, p.settings.base_url], **quick
    )
    settings_inputs = p.settings.inputs()
    settings_outputs = [p.state, p.status.line, p.settings.feedback, p.trace.followup, p.trace.ask]
    p.settings.apply.click(side.apply_settings, [*settings_inputs, p.state], settings_outputs, **quick)
    relabelled = list(p.labels("en", hosted_target=False))  # the components whose labels change
    language_outputs = [
        p.state,
        p.report.markdown,
        p.report.checked,
        p.status.stats,
        p.status.line,
        p.chaos.status,
        p.examples,
        *relabelled,
    ]
    p.examples.click(side.use_example, [p.examples, p.state], [p.inputs.target, p.inputs.question], **quick)
    # The chosen language, kept in the browser (restored on load, see app.py's RESTORE_LANGUAGE).
    p.settings.ui_language.change(None, [p.settings.ui_language], None, js=KEEP_LANGUAGE, **quick)
    p.settings.ui_language.change(
        side.switch_language,
        [p.settings.ui_language, p.inputs.question, p.state],
        language_outputs,
        **quick,
    )
