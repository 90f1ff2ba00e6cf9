"""A tool call asked for and not yet run: the ONE type the model's turns, the offline planner, the
evidence gathered before a model's first turn and the tool rounds pass around.

The model's calls carry ``arguments`` as the JSON text it streamed (parsing and checking it is the tool
layer's job, because models do send invalid JSON); the planner's carry a mapping. ``call_id`` is the
model's id or the run's own (``plan-1-2``); a planned call gets it when its turn runs. The events keep
their own serialized names (``ToolCallStarted.call_id``/``tool``), so recorded traces still replay.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class ToolCallRequest:
    tool: str
    arguments: str | Mapping[str, Any]
    call_id: str = ""

    @property
    def args(self) -> Mapping[str, Any]:
        """The arguments as a mapping: a planned call's own; a model's JSON text parsed ({} when it is no
        JSON object: the tool layer tells the model why)."""
        if isinstance(self.arguments, Mapping):
            return self.arguments
        try:
            data = json.loads(self.arguments or "{}")
        except (ValueError, RecursionError):  # a model's 1,200 levels: the tool layer says why
            return {}
        return data if isinstance(data, dict) else {}
