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
  text until a ``</think>`` shows it was reasoning; :meth:`ThinkSplitter.feed` then answers
  :data:`CLOSED_LATE` and the caller moves what it took for the answer into the reasoning. Not once a
  Markdown heading began a line (the report has begun: thinking is prose) nor for a tag in backticks:
  a report may name the tag.

A tag split across chunks is recognised: at most ``len("</think>") - 1`` characters are held back until
the next piece (or :meth:`ThinkSplitter.finish`) decides. Each character is looked at a bounded number
of times.
"""

from __future__ import annotations

import re
from typing import Final, Literal

__all__ = ["CLOSED_LATE", "Piece", "ThinkSplitter"]

OPEN: Final = "<think>"
CLOSE: Final = "</think>"
CLOSED_LATE: Final = "closed_late"
"""What :meth:`ThinkSplitter.feed` yields when a ``</think>`` arrives that no ``<think>`` opened: the
answer so far was reasoning."""

_HEADING = re.compile(r"(?:^|\n)#")  # a Markdown heading: the report has begun
Piece = tuple[Literal["reasoning", "answer"], str] | Literal["closed_late"]


class ThinkSplitter:
    """Splits streamed answer text into reasoning and answer pieces (see the module docstring)."""

    def __init__(self) -> None:
        self._state: Literal["start", "thinking", "answer", "after", "done"] = "start"
        self._held = ""  # text not yet decided: a possible tag's start
        self._last = ""  # the last answer character given out (a backtick quotes a "</think>" after it)

    @property
    def settled(self) -> bool:
        """All the rest is the answer (the thinking ended, or the report began): nothing to split."""
        return self._state == "done"

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
                self._held = stripped  # the tag's start (or nothing yet): wait for more
                return ""
            self._state = "answer"
            return stripped  # blanks before an answer are not part of it
        if self._state == "thinking":
            return self._thinking(text, pieces)
        if self._state == "answer":
            return self._answer(text, pieces)
        if self._state == "after":  # the blank lines between the thinking and the answer are neither
            text = text.lstrip()
            if text:
                self._state = "done"
            return text
        pieces.append(("answer", text))
        return ""

    def _thinking(self, text: str, pieces: list[Piece]) -> str:
        at = text.find(CLOSE)
        if at >= 0:
            if at:
                pieces.append(("reasoning", text[:at]))
            self._state = "after"
            return text[at + len(CLOSE) :]
        end = len(text) - _tag_start(text)
        if end:
            pieces.append(("reasoning", text[:end]))
        self._held = text[end:]
        return ""

    def _answer(self, text: str, pieces: list[Piece]) -> str:
        """Answer text while a late ``</think>`` may still come."""
        at = text.find(CLOSE)
        before = text if at < 0 else text[:at]
        quoted = at >= 0 and (text[at - 1] if at else self._last) == "`"
        if quoted or _HEADING.search(self._last + before):
            self._state = "done"  # a report has begun, or quotes the tag: all the rest is the answer
            pieces.append(("answer", text))
            return ""
        if at >= 0:
            if at:
                pieces.append(("answer", text[:at]))
            pieces.append(CLOSED_LATE)
            self._state = "after"
            return text[at + len(CLOSE) :]
        end = len(text) - _tag_start(text)
        if end:
            pieces.append(("answer", text[:end]))
            self._last = text[end - 1]
        self._held = text[end:]
        return ""


def _tag_start(text: str) -> int:
    """How many characters at the end of ``text`` could begin a ``</think>`` (0 when none)."""
    for n in range(min(len(CLOSE) - 1, len(text)), 0, -1):
        if CLOSE.startswith(text[-n:]):
            return n
    return 0
