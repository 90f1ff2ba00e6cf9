"""What a draft is, judged on its own text (pure, linear functions for :mod:`~agent_core.agent.draft_review`):
a tool call written as JSON (whole, or opening the reply), a tool's result the model wrote itself, a
block said twice, and for a local model the dependencies no manifest read declares.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from agent_core import events as ev
from agent_core.agent.context import COMPACTED_MARK, is_observation
from agent_core.agent.echo import copied_lines, sent_lines
from agent_core.llm.degeneration import RepetitionGuard
from agent_core.llm.scan import json_values, loads_or_none, written_call
from agent_core.repo import RepoRef
from agent_core.report.claim_finders import find_claims
from agent_core.report.claims import check_report
from agent_core.report.verdicts import normal as package_key
from agent_core.tools.observe import CUT_MARK
from agent_core.tools.results import ToolResult

_CALL_CHARS = 2000  # of a draft's start, looked at for a call written as JSON
_MIN_KEY = 16  # letters and digits a line needs to be recognised as copied from a request
# Said before the repository's own name, it is listed among dependencies ("depends on `fmt`, `util`"); a
# line that only names it beside one ("`wordstats` is a library with a `click` CLI") does not list it.
_LISTS = re.compile(r"depend|requir|依赖", re.IGNORECASE)


def is_json(draft: str) -> bool:
    """The whole reply is one JSON object or array (fenced or not): a call written as text, no report."""
    text = draft.strip()
    if text.startswith("```"):
        text = text.partition("\n")[2].rstrip().removesuffix("```")
    text = text.strip()
    if not text.startswith(("{", "[")):
        return False
    value = loads_or_none(text)
    return isinstance(value, (dict, list)) and bool(value)


def invented_result(draft: str) -> bool:
    """A tool's result the model wrote itself: the chat template's tag, or the app's own note of an
    observation cut (the real 1.5B wrote five calls, then a file tree as if the tool had answered)."""
    lowered = draft.lower()
    return "<tool_response>" in lowered or COMPACTED_MARK in draft or CUT_MARK in draft


def opens_with_call(draft: str) -> bool:
    """The reply begins with a tool call written as JSON (after a fence, at most): whatever follows it,
    the model was asking to read, not reporting."""
    text = draft.lstrip()
    if text.startswith("```"):
        text = text.partition("\n")[2].lstrip()
    if not text.startswith("{"):
        return False
    first = json_values(text[:_CALL_CHARS]).found
    return bool(first) and first[0][0] == 0 and written_call(first[0][2]) is not None


def loops(draft: str) -> bool:
    guard = RepetitionGuard()
    return guard.feed(draft) is not None or guard.finish() is not None


def undeclared(draft: str, check: ev.ClaimsChecked, scope: Sequence[RepoRef]) -> tuple[ev.CheckedClaim, ...]:
    """Dependencies the draft names that no manifest read declares (unchecked, with what was read), and
    the repository's own name in a line that lists dependencies (one pass over the draft's claims)."""
    unread = [  # "not in" the manifests read: not one declared without the version the draft gives it
        c
        for c in check.claims
        if c.kind == "dependency"
        and c.verdict == "unchecked"
        and c.claim_said is None
        and any(s.key == "observed_not_in" for s in c.observed_said)
    ]
    listing = {_line_of(draft, c.start) for c in check.claims if c.kind == "dependency" and c.start >= 0}
    names = {package_key(r.name) for r in scope}
    itself = [
        ev.CheckedClaim(kind="dependency", claim=f.value, verdict="unchecked", start=f.start, end=f.end)
        for f in find_claims(draft)
        if f.kind == "dependency"
        and f.subject == "dependency"
        and not f.negated
        and package_key(f.value) in names
        and _line_of(draft, f.start) in listing
        and (f.explicit or _LISTS.search(draft, _line_of(draft, f.start), f.start) is not None)
    ]
    return tuple(unread + itself)


def _line_of(text: str, at: int) -> int:
    """Where the line holding ``at`` starts."""
    return text.rfind("\n", 0, at) + 1


def names_nothing_there(claim: ev.CheckedClaim) -> bool:
    """A ✗ claim that names what the repository lacks: a path or link not in its tree, a dependency no
    manifest declares (not a dependency it has, said with another version)."""
    if claim.kind in ("path", "link"):
        return True
    return claim.kind == "dependency" and any(s.key == "observed_not_among" for s in claim.observed_said)


def without_requests(draft: str, messages: Iterable[Mapping[str, Any]]) -> str:
    """``draft`` without the lines it copied from the app's own requests among ``messages`` (the user
    messages after the opening, not a text protocol's observations: a revision's findings and
    instructions, a request for reads): the real 1.5B ended its revised fmt report with
    "- `detail/`: not in the repository" and the request's closing sentence. Lines compare by their
    letters and digits alone (the model re-quotes a finding's name in backticks); short lines never."""
    requests = [str(m.get("content")) for m in messages if m.get("role") == "user" and not is_observation(m)]
    asked = {key for text in requests for line in text.splitlines() if (key := _letters(line))}
    if not asked:
        return draft
    lines = draft.splitlines()
    kept = [line for line in lines if _letters(line) not in asked]
    return draft if len(kept) == len(lines) else "\n".join(kept).strip()


def _letters(line: str) -> str:
    key = "".join(c for c in line.lower() if c.isalnum())
    return key if len(key) >= _MIN_KEY else ""


# -- the judgement of a draft -----------------------------------------------------------------------

Problem = Literal[
    "tool_call",
    "echo",
    "repeated_block",
    "from_memory",
    "no_reads",
    "few_reads",
    "contradicted",
    "missing_paths",
    "unconfirmed",
]
UNFIT: frozenset[str] = frozenset({"tool_call", "echo", "repeated_block", "from_memory"})
"""Problems that keep a draft from being the report at all (the others are sent back once, then kept)."""

ECHO_SHARE = 0.6  # of a draft's lines, copied from what it was sent: an echo
_MIN_LINES = 3  # an echo needs at least this many lines to judge
MAX_FINDINGS = 12  # ✗ claims given back to the model


@dataclass(frozen=True, kw_only=True)
class Review:
    """What one draft is: its problems (most serious first), its ✗ claims, the claim check itself."""

    problems: tuple[Problem, ...] = ()
    findings: tuple[ev.CheckedClaim, ...] = ()
    check: ev.ClaimsChecked = field(default_factory=lambda: ev.ClaimsChecked(t=0.0))
    copied: int = 0  # lines copied from the conversation
    lines: int = 0  # lines judged
    own: int = 0  # tool calls of the model's own
    undeclared: bool = False  # (strict) it names dependencies no manifest read declares

    @property
    def unfit(self) -> bool:
        """The draft may not become the report as it is."""
        return any(p in UNFIT for p in self.problems)


def review(
    draft: str,
    *,
    sent: Iterable[Mapping[str, Any]],
    own_calls: int,
    scope: Sequence[RepoRef],
    results: Sequence[ToolResult],
    min_reads: int = 1,
    strict: bool = False,
    now: datetime | None = None,
) -> Review:
    """Judge ``draft`` (see the module): ``sent``, the messages the model was sent; ``own_calls``, the tool
    calls it chose itself in this run (the prefetch's are not its own); ``strict``: dependencies no
    manifest read declares are findings too (a local model's draft)."""
    problems: list[Problem] = []
    if is_json(draft) or invented_result(draft) or opens_with_call(draft):
        problems.append("tool_call")
    copied, lines = copied_lines(draft, sent_lines(sent))
    if lines >= _MIN_LINES and copied >= ECHO_SHARE * lines:
        problems.append("echo")
    if loops(draft):
        problems.append("repeated_block")
    check = check_report(draft, scope, results, now=now)
    findings = tuple(c for c in check.claims if c.verdict == "contradicted")
    invented = [c for c in findings if names_nothing_there(c)]
    if own_calls == 0 and invented:
        problems.append("from_memory")
    if own_calls == 0:
        problems.append("no_reads")
    elif own_calls < min_reads:
        problems.append("few_reads")
    if any(c.kind not in ("path", "link") for c in findings):
        problems.append("contradicted")
    if any(c.kind in ("path", "link") for c in findings):
        problems.append("missing_paths")
    unconfirmed = undeclared(draft, check, scope) if strict else ()
    if findings and unconfirmed:
        problems.append("unconfirmed")  # said in a revision the ✗ claims ask for, never one of its own
        findings = (*findings, *unconfirmed)
    return Review(
        undeclared=bool(unconfirmed),
        problems=tuple(problems),
        findings=findings[:MAX_FINDINGS],
        check=check,
        copied=copied,
        lines=lines,
        own=own_calls,
    )


def corrected(earlier: Sequence[ev.CheckedClaim], now: Review) -> tuple[ev.CheckedClaim, ...]:
    """Of an earlier draft's findings, those the revision no longer makes (or no longer gets wrong)."""
    wrong = [c for c in now.check.claims if c.verdict == "contradicted"]
    still = {(c.kind, _key(c.claim)) for c in (*wrong, *now.findings)}
    return tuple(c for c in earlier if (c.kind, _key(c.claim)) not in still)


def _key(claim: str) -> str:
    return " ".join(claim.split()).casefold()
