"""A local model's report, kept to what the tools read: the sentences of its draft the claim check
cannot stand behind are set aside before anyone sees the report, and said in the trace.

A sentence is set aside when it holds

* a claim the check marks ✗ (still, after the one revision: "not actively maintained" beside August's
  commits);
* a name said to be behind the project that nothing read holds ("created in 2007 by DHH": the real
  1.5B's words about Sinatra);
* a dependency no manifest read declares, or the repository among its own dependencies
  (:func:`~agent_core.agent.draft_checks.undeclared`).

Each is returned as a :class:`~agent_core.events.CheckedClaim` whose ``claim`` is the sentence (cut) and
whose ``observed`` says why, for the ``draft_reviewed`` event. Headings stay; a bullet keeps its marker
when only its first sentence goes. Pure and linear in the draft and its claims.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from agent_core import events as ev
from agent_core.agent.draft_checks import undeclared
from agent_core.repo import RepoRef

SENTENCE_CHARS = 300  # of a sentence set aside, kept for the trace
_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")  # a list item's marker, kept with its line


def unsupported(draft: str, check: ev.ClaimsChecked, scope: Sequence[RepoRef]) -> list[ev.CheckedClaim]:
    """The claims of ``draft`` that set their sentence aside (see the module), in order."""
    wrong = [
        c
        for c in check.claims
        if c.start >= 0 and (c.verdict == "contradicted" or (c.kind == "person" and c.verdict == "unchecked"))
    ]
    return sorted([*wrong, *undeclared(draft, check, scope)], key=lambda c: c.start)


def set_aside(draft: str, claims: Sequence[ev.CheckedClaim]) -> tuple[str, tuple[ev.CheckedClaim, ...]]:
    """``draft`` without the sentences holding ``claims`` (sorted by where they stand), and one claim per
    sentence set aside: the sentence as ``claim``, the first such claim's verdict and observation."""
    if not claims:
        return draft, ()
    pieces: list[str] = []
    aside: list[ev.CheckedClaim] = []
    cursor, at = 0, 0
    for start, end in sentences(draft):
        holding = []
        while at < len(claims) and claims[at].start < end:
            if claims[at].start >= start:
                holding.append(claims[at])
            at += 1
        text = draft[start:end]
        if not holding or text.lstrip().startswith("#"):
            continue
        keep_from = start
        line_start = start == 0 or draft[start - 1] == "\n"
        if line_start and (marker := _MARKER.match(draft, start, end)) and not text.endswith("\n"):
            keep_from = marker.end()  # the item goes on after this sentence: its marker stays
            pieces.append(draft[cursor:keep_from])
        else:
            pieces.append(draft[cursor:start])
        if line_start:  # the space after it goes too; a line's own sentence takes its newline
            cursor = end + 1 if draft[end : end + 1] == " " else end
        else:  # it began with the space after the sentence before; the line's end stays
            cursor = end - 1 if text.endswith("\n") else end
        said = " ".join(text.split()).lstrip("#>-*+| ")
        aside.append(replace(holding[0], claim=said[:SENTENCE_CHARS], start=-1, end=-1))
    pieces.append(draft[cursor:])
    return _tidy("".join(pieces)), tuple(aside)


def sentences(text: str) -> Iterable[tuple[int, int]]:
    """Spans of sentences: a line (its newline included), or a piece of one ending in ". " (one pass)."""
    start = 0
    for i, char in enumerate(text):
        if char == "\n" or (char in ".!?。！？" and text[i + 1 : i + 2] in (" ", "")):
            if i + 1 - start > 1:
                yield start, i + 1
            start = i + 1
    if start < len(text):
        yield start, len(text)


def _tidy(text: str) -> str:
    """No run of more than one blank line where sentences went, no item left with its marker alone."""
    lines = [line for line in text.split("\n") if not _MARKER.fullmatch(line)]
    kept: list[str] = []
    for line in lines:
        if not line.strip() and kept and not kept[-1].strip():
            continue
        kept.append(line.rstrip() if not line.strip() else line)
    return "\n".join(kept).strip() + ("\n" if text.endswith("\n") else "")
