"""Reasoning written inline in the answer text: ``<think>…</think>``, told apart from the answer as it streams.

Reasoning models served without a reasoning parser (llama.cpp with ``--reasoning-format none``, older
Ollama, a plain vLLM) write their thinking into ``content`` between ``<think>`` and ``</think>``, before
the answer. :class:`ThinkSplitter` reads the content as it arrives and says which pieces are reasoning
and which are the answer, so that thinking never reaches the report, never counts as the report's text
for the degeneration guard, and still shows in the trace as reasoning.

Two shapes, as the servers send them:

* an opening ``<think>`` at the very start of the answer (whitespace before it allowed): everything up
  to ``</think>`` is reasoning. A ``<think>`` anywhere else is text (a report may quote the tag);
* no opening tag (DeepSeek-R1's template writes ``<think>`` into the prompt): the answer streams as
  text until a ``</think>`` (not inside backticks) shows it was reasoning; :meth:`ThinkSplitter.feed`
  then answers :data:`CLOSED_LATE` and the caller moves what it took for the answer into the reasoning.

A tag split across chunks is recognised: at most ``len("</think>") - 1`` characters are held back until
the next piece (or :meth:`ThinkSplitter.finish`) decides. Each character is looked at a bounded number
of times.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = ["CLOSED_LATE", "Piece", "ThinkSplitter"]

OPEN: Final = "<think>"
CLOSE: Final = "</think>"
CLOSED_LATE: Final = "closed_late"
"""What :meth:`ThinkSplitter.feed` yields when a ``</think>`` arrives that no ``<think>`` opened: the
answer so far was reasoning."""

Piece = tuple[Literal["reasoning", "answer"], str] | Literal["closed_late"]


class ThinkSplitter:
    """Splits streamed answer text into reasoning and answer pieces (see the module docstring)."""

    def __init__(self) -> None:
        self._state: Literal["start", "thinking", "answer", "after", "done"] = "start"
        self._held = ""  # text not yet decided: a possible tag's start
        self._last = ""  # the last answer character given out (a backtick before "</think>" quotes it)

    def feed(self, text: str) -> list[Piece]:
        """The pieces the next piece of content makes (possibly none while a tag may be starting)."""
        text, self._held = self._held + text, ""
        pieces: list[Piece] = []
        while text:
            text = self._step(text, pieces)
        return pieces

    def finish(self) -> list[Piece]:
        """The content ended: what was held back is what it looked like (reasoning or answer)."""
        held, self._held = self._held, ""
        if not held:
            return []
        return [("reasoning", held)] if self._state == "thinking" else [("answer", held)]

    def _step(self, text: str, pieces: list[Piece]) -> str:
        """Consume the start of ``text``; return what is left for the next step."""
        if self._state == "start":
            stripped = text.lstrip()
            if stripped.startswith(OPEN):
                self._state = "thinking"
                return stripped[len(OPEN) :]
            if not stripped or OPEN.startswith(stripped):
                self._held = text  # whitespace, or the tag's start: wait for more
                return ""
            self._state = "answer"
            return text
        if self._state == "thinking":
            return self._until_close(text, pieces, "reasoning")
        if self._state == "answer":
            return self._until_close(text, pieces, "answer")
        if self._state == "after":  # the blank lines between the thinking and the answer are neither
            text = text.lstrip()
            if text:
                self._state = "done"
            return text
        pieces.append(("answer", text))
        return ""

    def _until_close(self, text: str, pieces: list[Piece], kind: Literal["reasoning", "answer"]) -> str:
        at = text.find(CLOSE)
        quoted = (at > 0 and text[at - 1] == "`") or (at == 0 and self._last == "`")
        if at >= 0 and not (kind == "answer" and quoted):
            if at:
                pieces.append((kind, text[:at]))
            if kind == "answer":
                pieces.append(CLOSED_LATE)
            self._state = "after"
            return text[at + len(CLOSE) :]
        end = len(text) if at >= 0 else len(text) - _tag_start(text)
        if end:
            pieces.append((kind, text[:end]))
            self._last = text[end - 1]
        self._held = text[end:]
        return ""


def _tag_start(text: str) -> int:
    """How many characters at the end of ``text`` could begin a ``</think>`` (0 when none)."""
    for n in range(min(len(CLOSE) - 1, len(text)), 0, -1):
        if CLOSE.startswith(text[-n:]):
            return n
    return 0
