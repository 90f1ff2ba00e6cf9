"""A local model's report, kept to what the tools read: the sentences of its draft the claim check
cannot stand behind are set aside before anyone sees the report, and said in the trace.

A sentence is set aside when it holds

* a claim the check marks ✗ (still, after the one revision: "not actively maintained" beside August's
  commits);
* a name said to be behind the project that nothing read holds ("created in 2007 by DHH": the real
  1.5B's words about Sinatra);
* a dependency no manifest read declares, or the repository among its own dependencies
  (:func:`~agent_core.agent.draft_checks.undeclared`);
* a list item saying what a dependency is in words nothing read says near its name ("**Mustermann**: A
  templating engine": :mod:`~agent_core.agent.described`), or a folder holding tests that the tree shows
  without one.

Each is returned as a :class:`~agent_core.events.CheckedClaim` whose ``claim`` is the sentence (cut) and
whose ``observed`` says why, for the ``draft_reviewed`` event. Headings stay; a bullet keeps its marker
when only its first sentence goes; a fenced block (a drawn tree with a branch not in the repository) goes
whole. Pure and linear in the draft and its claims.

The other way round, :func:`grounded_sentences` picks the sentences the check verified, for the
deterministic report that replaces a draft unfit to be one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import replace

from agent_core import events as ev
from agent_core.agent.described import unsupported_descriptions
from agent_core.agent.draft_checks import undeclared
from agent_core.agent.echo import normal as normal_line
from agent_core.repo import RepoRef
from agent_core.report.claim_people import strings_of
from agent_core.report.claims import names_observed
from agent_core.report.verdicts import normal
from agent_core.tools.results import ToolResult

SENTENCE_CHARS = 300  # of a sentence set aside (kept for the trace) or quoted
KEPT = 8  # grounded sentences quoted from a replaced draft
MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")  # a list item's marker, kept with its line


def unsupported(
    draft: str,
    check: ev.ClaimsChecked,
    scope: Sequence[RepoRef],
    results: Sequence[ToolResult],
    rewritten: Sequence[str] = (),
) -> list[ev.CheckedClaim]:
    """The claims of ``draft`` that set their sentence aside (see the module), in order; in the lines
    ``rewritten`` (a local model's corrections), any claim the check does not confirm."""
    named = names_observed(scope, results)
    strings = (text for result in results for text in strings_of(result.observation))
    descriptions = unsupported_descriptions(draft, named, strings, key=normal)
    spans = [(at, at + len(line)) for line in rewritten if (at := draft.find(line)) >= 0]
    wrong = [
        c
        for c in check.claims
        if c.start >= 0
        and (
            c.verdict == "contradicted"
            or (c.kind == "person" and c.verdict == "unchecked")
            or (c.verdict == "unchecked" and any(a <= c.start < b for a, b in spans))
        )
    ]
    return sorted([*wrong, *undeclared(draft, check, scope), *descriptions], key=lambda c: c.start)


def trimmed(
    draft: str,
    check: ev.ClaimsChecked,
    scope: Sequence[RepoRef],
    results: Sequence[ToolResult],
    rewritten: Sequence[str] = (),
) -> tuple[str, tuple[ev.CheckedClaim, ...]]:
    """``draft`` without what the check cannot stand behind, and what was set aside (run off the event
    loop: it reads every observation)."""
    return set_aside(draft, unsupported(draft, check, scope, results, rewritten))


def set_aside(draft: str, claims: Sequence[ev.CheckedClaim]) -> tuple[str, tuple[ev.CheckedClaim, ...]]:
    """``draft`` without the sentences holding ``claims`` (sorted by where they stand), and one claim per
    piece set aside: its text as ``claim``, the first such claim's verdict and observation. A list item's
    description nothing read supports goes alone (``kind`` description: from its colon to the line's
    end), its name stays."""
    if not claims:
        return draft, ()
    pieces: list[str] = []
    aside: list[ev.CheckedClaim] = []
    cursor = 0
    for start, end, holding, block in held_sentences(draft, claims):
        if not holding or start < cursor:
            continue  # nothing to set aside, or already gone with a description or a block
        cut = _cut(draft, (start, end), holding[0], block)
        if cut is None:
            continue  # a heading stays
        keep_to, after, shown = cut
        pieces.append(draft[cursor:keep_to])
        cursor = after
        aside.append(replace(holding[0], claim=shown, start=-1, end=-1))
    pieces.append(draft[cursor:])
    return tidy("".join(pieces)), tuple(aside)


def _cut(
    draft: str, sentence: tuple[int, int], first: ev.CheckedClaim, block: tuple[int, int] | None
) -> tuple[int, int, str] | None:
    """What setting one sentence aside takes out, as (where the kept text stops, where it resumes, the
    piece as the trace shows it): the fenced ``block`` it stands in whole; a description from its colon to
    the line's end; else the sentence (a list item keeps its marker when more follows; a whole line takes
    its newline, a piece of one the space before it). None for a heading."""
    start, end = sentence
    text = draft[start:end]
    if block is not None:
        return block[0], block[1], _shown(draft[block[0] : block[1]])
    if first.kind == "description":
        return first.start, first.end, _shown(draft[start : first.end])
    if text.lstrip().startswith("#"):
        return None
    if not (start == 0 or draft[start - 1] == "\n"):  # it began with the space after the sentence before
        return start, end - 1 if text.endswith("\n") else end, _shown(text)
    marker = MARKER.match(draft, start, end)
    keep_to = marker.end() if marker and not text.endswith("\n") else start
    return keep_to, end + 1 if draft[end : end + 1] == " " else end, _shown(text)


def fences(text: str) -> list[tuple[int, int]]:
    """Where each fenced block stands, its fences' lines included (one pass; an unclosed one runs on)."""
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    at = 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            if opened is None:
                opened = (at, stripped[:3])
            elif stripped.startswith(opened[1]):
                spans.append((opened[0], at + len(line)))
                opened = None
        at += len(line)
    if opened is not None:
        spans.append((opened[0], len(text)))
    return spans


def _shown(text: str) -> str:
    """A piece set aside as the trace shows it: on one line, without its list marker, cut."""
    line = " ".join(text.split())
    if marker := MARKER.match(line):
        line = line[marker.end() :]
    return line.lstrip("#> |")[:SENTENCE_CHARS]


def grounded_sentences(draft: str, check: ev.ClaimsChecked, copied: Collection[str]) -> list[str]:
    """The draft's sentences the claim check supports, for the deterministic report that replaces it:
    each holds a verified claim and no other, and is no line ``copied`` from the conversation (as
    :func:`~agent_core.agent.echo.normal` has it); at most :data:`KEPT`, each cut."""
    claims = sorted((c for c in check.claims if c.start >= 0), key=lambda c: c.start)
    kept: list[str] = []
    for start, end, held, _ in held_sentences(draft, claims):
        text = " ".join(draft[start:end].split()).lstrip("#>-*| ")
        if {c.verdict for c in held} != {"verified"} or normal_line(text) in copied or not text:
            continue
        kept.append(text[:SENTENCE_CHARS])
        if len(kept) == KEPT:
            break
    return kept


def held_sentences(
    draft: str, claims: Sequence[ev.CheckedClaim]
) -> Iterator[tuple[int, int, list[ev.CheckedClaim], tuple[int, int] | None]]:
    """Each sentence of ``draft`` (:func:`sentences`) with the ``claims`` that start in it (sorted by where
    they stand) and the fenced block it stands in (None: none), in one pass over both."""
    blocks = fences(draft)
    at = block = 0
    for start, end in sentences(draft):
        held = []
        while at < len(claims) and claims[at].start < end:
            if claims[at].start >= start:
                held.append(claims[at])
            at += 1
        while block < len(blocks) and blocks[block][1] <= start:
            block += 1
        inside = blocks[block] if block < len(blocks) and blocks[block][0] <= start else None
        yield start, end, held, inside


def sentences(text: str) -> Iterable[tuple[int, int]]:
    """Spans of sentences, in one pass: a piece of a line ending in ". " or at the line's end (or "!",
    "?", "。"), or running to a line's end. A sentence wrapped over lines of one paragraph goes on: a line ends it only when it
    is a heading, a table row or inside a fenced block, or when the next line is blank or opens a list
    item, a heading, a quote, a table row or a fence (its newline stays with the line before)."""
    start, at = 0, 0
    fenced = False
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        stripped = line.lstrip()
        fence = stripped.startswith(("```", "~~~"))
        for i in range(at, at + len(line)):
            char = text[i]
            after = text[i + 1 : i + 2]
            if char in ".!?。！？" and after in (" ", "", "\n") and not fenced and i + 1 - start > 1:
                yield start, i + 1
                start = i + 2 if after == "\n" else i + 1  # a line's end: the next begins on the next line
        at += len(line)
        following = lines[index + 1].lstrip() if index + 1 < len(lines) else ""
        if fence:
            fenced = not fenced
        ends = (
            fence
            or fenced
            or not stripped.strip()
            or stripped.startswith(("#", "|"))
            or not following.strip()
            or MARKER.match(following) is not None
            or following.startswith(("#", ">", "|", "```", "~~~"))
        )
        if ends and line.endswith("\n"):
            if at - start > 1:
                yield start, at
            start = at
    if start < len(text) and text[start:].strip():
        yield start, len(text)


def tidy(text: str) -> str:
    """No run of more than one blank line where sentences went, no item left with its marker alone."""
    lines = [line for line in text.split("\n") if not MARKER.fullmatch(line)]
    kept: list[str] = []
    for line in lines:
        if not line.strip() and kept and not kept[-1].strip():
            continue
        kept.append(line.rstrip() if not line.strip() else line)
    return "\n".join(kept).strip() + ("\n" if text.endswith("\n") else "")
