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

How often frames go out is :mod:`agent_core.web.batching`'s business.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_core.resilience import BreakerSnapshot
from agent_core.web.breakers import breaker_value


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
