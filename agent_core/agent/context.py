"""The conversation sent to the model, and keeping it inside a token budget.

Observations are cut for the model when they arrive (the UI keeps the full result). When the whole
conversation nears ``budget`` tokens, the oldest tool results are replaced by a short note — never the
system prompt, the user's task, or the assistant messages (DeepSeek needs their ``reasoning_content``
back when they carried tool calls). Counting uses the API's reported usage when we have it, and a
CJK-aware estimate for what was added since (see :mod:`agent_core.llm.tokens`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]
COMPACTED_MARK = "[compacted to save context"
COMPACTED_NOTE = "[compacted to save context: an earlier {tool} observation ({chars:,} characters) was removed; call the tool again if you need it]"


@dataclass
class Conversation:
    """The messages of one analysis, kept across follow-up questions."""

    messages: list[Message] = field(default_factory=list)
    turns: int = 0
    """Turns taken so far, across follow-ups: turn numbers never repeat within one conversation."""

    def add(self, message: Message) -> None:
        self.messages.append(message)

    def extend_system(self, text: str) -> None:
        """The system prompt with ``text`` after it (the text protocol's instructions, once the endpoint
        refused tools): a new message in its place, never an edit of the one already sent."""
        system = self.messages[0]
        self.messages[0] = {**system, "content": f"{system['content']}\n\n{text}"}

    def next_turn(self) -> int:
        self.turns += 1
        return self.turns

    def compact(
        self, *, budget: int, estimate: Callable[[Sequence[Mapping[str, Any]]], int], keep_last: int = 4
    ) -> int:
        """Shrink old tool results until the estimate fits ``budget``; return how many were compacted.

        The ``keep_last`` newest results are spared on a first pass; if that is not enough, everything
        but the newest result goes. The system prompt, the user's messages and the assistant's own
        messages are never touched. The conversation is counted once; each note that replaces a result
        then changes the count by the difference of the two messages' estimates (``estimate`` is a sum
        over messages), so compacting n results costs one count, not n.
        """
        done = 0
        total = estimate(self.messages)
        names: dict[str, str] | None = None
        for spared in (keep_last, 1):
            if total <= budget:
                break
            names = self._tool_names() if names is None else names
            passed, total = self._compact_pass(
                budget=budget, estimate=estimate, spared=spared, total=total, names=names
            )
            done += passed
        return done

    def _tool_names(self) -> dict[str, str]:
        """Each tool call's id -> its tool's name, from one walk of the conversation."""
        return {
            str(call.get("id")): str(call.get("function", {}).get("name", "tool"))
            for message in self.messages
            for call in message.get("tool_calls") or ()
        }

    def _compact_pass(
        self,
        *,
        budget: int,
        estimate: Callable[[Sequence[Mapping[str, Any]]], int],
        spared: int,
        total: int,
        names: Mapping[str, str],
    ) -> tuple[int, int]:
        tool_indexes = [i for i, m in enumerate(self.messages) if is_observation(m)]
        done = 0
        for index in tool_indexes[:-spared] if spared else tool_indexes:
            message = self.messages[index]
            content = str(message.get("content", ""))
            if COMPACTED_MARK in content:
                continue
            tool = names.get(str(message.get("tool_call_id", "")), "tool")
            note = COMPACTED_NOTE.format(tool=tool, chars=len(content))
            if message.get("role") == "user":  # text protocol: keep the "Observation" label
                note = f"Observation: {note}"
            compacted = {**message, "content": note}
            total += estimate([compacted]) - estimate([message])
            self.messages[index] = compacted
            done += 1
            if total <= budget:
                break
        return done, total


def is_observation(message: Mapping[str, Any]) -> bool:
    """A tool's result as the model read it: a tool message, or the text protocol's ``Observation:``."""
    if message.get("role") == "tool":
        return True
    return message.get("role") == "user" and str(message.get("content", "")).startswith("Observation")
