"""What a draft may have copied: the lines of the prompt and the brief the model was sent, and the tools
as its chat template showed them (:mod:`~agent_core.agent.draft_review` calls a draft that is mostly
those lines an echo). Linear in the conversation (one hash set of normalised lines, capped)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_MIN_LETTERS = 12  # a line worth comparing: this many letters or digits
MAX_SENT_CHARS = 400_000  # of the conversation, read for lines a draft may copy


TEMPLATE_LINES = (
    "You may call one or more functions to assist with the user query.",
    "You are provided with function signatures within <tools></tools> XML tags:",
    "For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:",
)
"""What a Hermes-style chat template (Qwen2.5's, llama.cpp's default for it) writes around the tools."""


def template_message(schemas: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The tools as the model read them in its prompt (the template's lines and one JSON line per tool):
    the 0.5B's last reply on pallets/click was that section and the brief, copied (18 of 19 lines)."""
    return {"role": "system", "content": "\n".join([*TEMPLATE_LINES, *(json.dumps(s) for s in schemas)])}


def sent_lines(sent: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The lines of the prompt and the brief (the system and user messages: not the model's own, not the
    tool results a report may quote) that a copy could be recognised by (normalised; the first
    :data:`MAX_SENT_CHARS` characters)."""
    lines: set[str] = set()
    room = MAX_SENT_CHARS
    for message in sent:
        content = message.get("content")
        if message.get("role") not in ("system", "user") or not isinstance(content, str) or room <= 0:
            continue  # its own earlier draft's lines, a file it quotes from a tool result: no echo
        text = content[:room]
        room -= len(text)
        lines.update(key for line in text.splitlines() if (key := normal(line)))
    return frozenset(lines)


def copied_lines(draft: str, sent: frozenset[str]) -> tuple[int, int]:
    """(lines of the draft found in ``sent``, lines of the draft worth comparing)."""
    keys = [key for line in draft.splitlines() if (key := normal(line))]
    return sum(key in sent for key in keys), len(keys)


def normal(line: str) -> str:
    """A line as compared: words only, lower case, list and quote markers gone; "" when too short."""
    words = " ".join(line.split()).lower().lstrip("#>-*+| ")
    return words if sum(c.isalnum() for c in words) >= _MIN_LETTERS else ""
