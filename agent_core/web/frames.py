"""What a run's frames cost Gradio, and the two things that keep them cheap.

Measured on Gradio 6.31 (``python -m bench --only concurrency``, and per output with
``Blocks.postprocess_data``): an output a frame *leaves out* (or sends as ``gr.skip()`` or
``gr.update(...)``) is not free. Gradio rebuilds that component and its config, JSON schema included:
about 1.3 ms for the breaker table, more than postprocessing the same table again (the diff of an
unchanged value is empty, so nothing more travels to the browser). So a frame sends every run output
with its plain value, the same one when nothing changed:

* the breaker table comes from :class:`BreakerTable`, which builds the styled table only when the
  snapshots (or the language) change;
* the timer gets its interval (:data:`~agent_core.web.breakers.TICK_SECONDS`), unchanged, unless it must
  start or stop;
* only ``gr.State`` is left out: Gradio stores state outputs without rebuilding anything.

How often frames go out is :mod:`agent_core.web.batching`'s business.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_core.resilience import BreakerSnapshot
from agent_core.web.layout import styled_breakers


class BreakerTable:
    """The styled breaker table of the latest snapshots, rebuilt only when they change. One per run."""

    def __init__(self) -> None:
        self._key: tuple[tuple[BreakerSnapshot, ...], str] | None = None
        self._table: Any = None

    def styled(self, snapshots: Sequence[BreakerSnapshot], lang: str) -> Any:
        key = (tuple(snapshots), lang)
        if key != self._key:
            self._key, self._table = key, styled_breakers(snapshots, lang)
        return self._table
