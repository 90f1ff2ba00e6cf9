"""A local model corrects its own report sentence by sentence, not by writing it again.

The real 1.5B took about 70 s to write a whole report again for one ✗ claim, and kept the claim in all
four revisions measured: the report's first word came at 95–145 s. Here the draft stays the report (it
streamed to the page as it was written); the model is given the sentences the claim check marks wrong,
numbered, each with what the observations show (:func:`request`), and replies one line per number: the
sentence rewritten, or ``DROP`` (a few seconds to write). :func:`spliced` puts its lines in place of the
sentences; what is still wrong after that is set aside (:mod:`~agent_core.agent.set_aside`), and so is
a line put in that claims what the check cannot confirm (the real 1.5B, told "30 commits in total" was a
page of 30, wrote "34 commits made in the last two years").

Pure and linear in the draft and the reply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agent_core import events as ev
from agent_core.agent.set_aside import MARKER, held_sentences, tidy
from agent_core.report.phrases import shorten
from agent_core.words import Language, t

MAX_SENTENCES = 6  # sentences given back at once: each costs the model a line to write
MAX_REASONS = 3  # ✗ claims of one sentence said
SENTENCE_CHARS = 240  # of a sentence as the model is shown it
REPLACEMENT_CHARS = 600  # of a line put in a sentence's place
_NUMBERED = re.compile(r"[ \t]*(?:[-*+][ \t]*)?[*_]{0,2}\(?(\d{1,2})[*_]{0,2}\s*[.):：]\s*(.*)")
_DROP = re.compile(r"(?i)(?:drop|delete|remove)\b\W*$|删除|删去")
_QUOTES = "\"'“”‘’«»「」*_ "


@dataclass(frozen=True, kw_only=True)
class Flagged:
    """One sentence of the draft given back: where it stands, the list marker before it (kept), its text
    as the model is shown it, and the ✗ claims in it."""

    start: int
    end: int
    marker: str
    text: str
    claims: tuple[ev.CheckedClaim, ...]


def flagged(draft: str, findings: Iterable[ev.CheckedClaim]) -> tuple[Flagged, ...]:
    """The sentences of ``draft`` holding ``findings`` (in order, each once, at most
    :data:`MAX_SENTENCES`), none inside a fenced block (a drawn tree goes whole when it is wrong) and no
    heading."""
    claims = sorted((c for c in findings if c.start >= 0), key=lambda c: c.start)
    out: list[Flagged] = []
    for start, end, held, block in held_sentences(draft, claims):
        text = draft[start:end]
        if not held or block is not None or text.lstrip().startswith(("#", "|")):
            continue
        lead = len(text) - len(text.lstrip())
        marker = MARKER.match(text, lead)
        body_at = marker.end() if marker else lead
        out.append(
            Flagged(
                start=start + body_at,
                end=start + len(text.rstrip()),
                marker=text[lead:body_at],
                text=shorten(" ".join(text[body_at:].split()), SENTENCE_CHARS),
                claims=tuple(held[:MAX_REASONS]),
            )
        )
        if len(out) == MAX_SENTENCES:
            break
    return tuple(out)


def request(sentences_back: Sequence[Flagged], language: Language) -> str:
    """The one observation that gives the sentences back: each numbered, with why it is wrong; then how
    to reply (one line per number, a worked example)."""
    lines = [t("to_model_fix_intro", language)]
    for number, item in enumerate(sentences_back, 1):
        why = "; ".join(_why(claim, language) for claim in item.claims)
        lines.append(t("to_model_fix_item", language, n=number, sentence=item.text, why=why))
    lines.append(t("to_model_fix_close", language))
    return "\n".join(lines)


def _why(claim: ev.CheckedClaim, language: Language) -> str:
    what = shorten(" ".join(claim.claim.split()), 80)
    if claim.kind in ("path", "link"):
        return t("to_model_fix_missing", language, claim=what)
    if claim.verdict == "unchecked" and claim.observed is None:  # the repository among its dependencies
        return t("to_model_fix_itself", language, claim=what)
    if claim.verdict == "unchecked" and claim.observed is not None:  # declared by no manifest read
        read = shorten(" ".join(claim.observed.split()), 160)
        return t("to_model_fix_undeclared", language, claim=what, observed=read)
    observed = shorten(" ".join((claim.observed or "?").split()), 120)
    return t("to_model_fix_wrong", language, observed=observed)


def answers(reply: str, count: int) -> dict[int, str | None]:
    """The model's lines by number (1 to ``count``): the new sentence, or None to drop it. A number it
    did not answer is absent (the sentence stays as it was, for the check to judge)."""
    found: dict[int, str | None] = {}
    for line in reply.splitlines():
        match = _NUMBERED.fullmatch(line.strip().removeprefix("Final:").strip())
        if match is None or not 1 <= int(match[1]) <= count or int(match[1]) in found:
            continue
        text = match[2].strip().strip(_QUOTES).lstrip("#> ").strip()
        if text.startswith("<") and text.endswith(">"):
            continue  # the request's example copied: no answer
        if _DROP.match(text) or not text:
            found[int(match[1])] = None
        else:
            found[int(match[1])] = " ".join(text.split())[:REPLACEMENT_CHARS]
    return found


def spliced(draft: str, sentences_back: Sequence[Flagged], reply: str) -> tuple[str, tuple[str, ...]]:
    """``draft`` with the model's lines in place of the sentences given back, and the lines put in: a
    sentence rewritten keeps its place and its list marker; one dropped goes with the space or line it
    stood on."""
    said = answers(reply, len(sentences_back))
    if not said:
        return draft, ()
    pieces: list[str] = []
    cursor = 0
    for number, item in enumerate(sentences_back, 1):
        if number not in said:
            continue
        new = said[number]
        start, end = item.start, item.end
        if new is None:
            line_at = draft.rfind("\n", 0, start) + 1
            if not draft[line_at : start - len(item.marker)].strip() and draft[end : end + 1] in ("\n", ""):
                start, end = line_at, end + 1  # the whole line
            elif draft[end : end + 1] == " ":
                end += 1
            elif draft[start - 1 : start] == " ":  # the last sentence of its line: the space before it
                start -= 1
        pieces.append(draft[cursor:start])
        pieces.append(new or "")
        cursor = end
    pieces.append(draft[cursor:])
    return tidy("".join(pieces)), tuple(line for line in said.values() if line)
