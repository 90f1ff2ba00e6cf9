"""What a run's frames cost Gradio, and what keeps them cheap.

Measured on Gradio 6.31 (``python -m bench --only events`` times ``Blocks.postprocess_data`` on a frame;
py-spy on the app under ``python -m bench --only concurrency``):

* an output a frame *leaves out* (or sends as ``gr.skip()`` or ``gr.update(...)``) is not free: Gradio
  rebuilds that component and its config, JSON schema included, which costs more than postprocessing
  the same value again (the diff of an unchanged value is empty, so nothing more travels). So a frame
  sends every run output with its plain value, the same one when nothing changed; only ``gr.State`` is
  left out (Gradio stores state without rebuilding anything), and the timer gets its unchanged interval
  (:data:`~agent_core.web.breakers.TICK_SECONDS`) unless it must start or stop;
* a pandas ``Styler`` is rendered again on every frame (``Styler._compute``/``_translate``: 15% of the
  app's busy CPU). The breaker table travels ready-made instead
  (:func:`~agent_core.web.breakers.breaker_value`: the same cells and colours), built again only when
  the snapshots or the language change (:class:`BreakerTable`).

Frames leave postprocessed (:class:`Wire`), and a failed import Gradio repeats per frame is remembered
(:func:`spare_failed_imports`). How often frames go out is :mod:`agent_core.web.batching`'s business.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from typing import Any

import gradio as gr
from gradio.data_classes import GradioModel, GradioRootModel

from agent_core.resilience import BreakerSnapshot
from agent_core.web.breakers import breaker_value


def spare_failed_imports() -> None:
    """Gradio 6.31 runs every frame's handler step inside ``MatplotlibBackendMananger``, which imports
    ``matplotlib`` on the way in and out. Without matplotlib installed each is a failed import, and a
    failed import is not remembered: Python searches ``sys.path`` again, twice a frame (~5% of a
    replica's CPU under a burst). A ``None`` in ``sys.modules`` is Python's own "not importable" mark:
    the same ImportError, at once. Nothing changes where matplotlib is installed."""
    if "matplotlib" not in sys.modules and importlib.util.find_spec("matplotlib") is None:
        sys.modules["matplotlib"] = None  # type: ignore[assignment]


class BreakerTable:
    """The breaker table of the latest snapshots, built again only when they change. One per run."""

    def __init__(self) -> None:
        self._key: tuple[tuple[BreakerSnapshot, ...], str] | None = None
        self._table: dict[str, Any] = {}

    def value(self, snapshots: Sequence[BreakerSnapshot], lang: str) -> dict[str, Any]:
        key = (tuple(snapshots), lang)
        if key != self._key:
            self._key, self._table = key, breaker_value(snapshots, lang)
        return self._table


class Wire:
    """A run's frames as Gradio would send them, made here on the event loop: the run events are bound
    with ``postprocess=False`` (:mod:`~agent_core.web.bindings`), so Gradio no longer hands each output of
    each frame to a worker thread for its ``postprocess`` (a thread round trip per output per frame:
    ~12% of a replica's CPU under a burst). The values are the components' own ``postprocess`` output,
    the same ones; a trace message and the breaker table already sent are not postprocessed again (the
    trace is sent whole on every frame, and only its last messages change). Prop updates
    (``gr.update``) and the state pass through: Gradio handles those itself. One per page; the
    memo of messages is per run (:meth:`run`)."""

    def __init__(self, chatbot: Any, breakers: Any) -> None:
        self._chatbot = chatbot
        self._breakers = breakers

    def run(self) -> RunWire:
        return RunWire(self._chatbot, self._breakers)


class RunWire:
    """One run's :class:`Wire`: the messages and the table it has postprocessed so far."""

    MAX_MEMO = 4096

    def __init__(self, chatbot: Any, breakers: Any) -> None:
        self._chatbot = chatbot
        self._breakers = breakers
        self._messages: dict[str, list[Any]] = {}
        self._table: tuple[Any, Any] | None = None  # (the table as sent, its postprocessed value)

    def frame(self, frame: dict[Any, Any]) -> dict[Any, Any]:
        return {component: self.value(component, value) for component, value in frame.items()}

    def value(self, component: Any, value: Any) -> Any:
        if isinstance(component, gr.State) or (isinstance(value, dict) and "__type__" in value):
            return value
        if component is self._chatbot and isinstance(value, list):
            return [dumped for message in value for dumped in self._message(message)]
        if component is self._breakers and isinstance(value, dict):
            if self._table is None or self._table[0] is not value:  # BreakerTable keeps an unchanged one
                self._table = (value, _dumped(component.postprocess(value)))
            return self._table[1]
        return _dumped(component.postprocess(value))

    def _message(self, message: Any) -> list[Any]:
        key = repr(message)
        found = self._messages.get(key)
        if found is None:
            if len(self._messages) >= self.MAX_MEMO:
                self._messages.clear()
            found = [_dumped(m) for m in self._chatbot._postprocess(message) or []]
            self._messages[key] = found
        return found


def _dumped(value: Any) -> Any:
    return value.model_dump() if isinstance(value, GradioModel | GradioRootModel) else value
