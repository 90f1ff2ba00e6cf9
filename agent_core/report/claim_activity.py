"""Claims that a project is, or is not, maintained ("not actively maintained", "no longer developed",
"actively maintained", "不再维护"), held against the commits the run fetched and the day it ran.

The real 1.5B wrote fmt was "not actively maintained for some time" above its own list of August's
commits. Such a claim is judged only when the commits leave no doubt, so a true one is never marked ✗:

- :data:`RECENT` commits or more in the :data:`RECENT_DAYS` before the run: the project is maintained;
- its newest commit older than :data:`STALE_DAYS`, or the repository archived: it is not;
- anything between: not checkable.

"A relatively new project" is held against the day the repository was created (false from three years
on). A hedged sentence ("may become unmaintained", "if it is abandoned") claims nothing and is not found.
Patterns are fixed and bounded (linear in the line).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from agent_core.report.claim_names import Found
from agent_core.report.facts import Facts
from agent_core.report.phrases import parse_date
from agent_core.report.verdicts import Outcome
from agent_core.words import said

RECENT = 3  # commits in the recent window that make "not maintained" false
RECENT_DAYS = 183  # about six months before the run
STALE_DAYS = 730  # no commit in two years: "actively maintained" is false
OLD_DAYS = 1095  # created three years before the run or more: not "a relatively new project"

_QUALIFIER = r"(?:actively|currently|regularly|well|frequently|really|being|very|much|properly|still)\s+"
_INACTIVE = re.compile(
    rf"\b(?:not|no longer|isn't|is not|hasn't been|has not been|wasn't|was not)\s+(?:{_QUALIFIER}){{0,2}}"
    r"(?:maintained|developed|updated)\b"
    r"|\b(?:unmaintained|abandoned)\b"
    r"|\b(?:no|lacks?|lack of|little)\s+(?:recent\s+)?(?:maintenance|development activity|activity|updates)\b"
    r"|\b(?:inactive|dormant|stale|dead)\s+(?:project|repository|library|codebase)\b"
    r"|\b(?:project|repository|repo|library|codebase)\s+(?:is|appears|seems|looks)\s+(?:to\s+be\s+)?"
    r"(?:inactive|dormant|stale|dead)\b"
    r"|不再维护|停止维护|无人维护|缺乏维护|未(?:被)?积极维护|不再活跃",
    re.IGNORECASE,
)
_ACTIVE = re.compile(
    r"\b(?:actively|regularly|continuously)[\s-]+(?:maintained|developed|updated)\b"
    r"|\b(?:under\s+)?active\s+(?:development|maintenance)\b"
    r"|积极维护|活跃维护|持续维护|持续开发",
    re.IGNORECASE,
)
# A hedge or a condition before the claim in its clause: the sentence claims nothing about now.
_HEDGE = re.compile(
    r"\b(?:may|might|could|would|should|if|whether|unless|risk|risks|ensure|check|verify|become|becomes)\b"
    r"|可能|如果|是否|风险",
    re.IGNORECASE,
)
_NEW = re.compile(
    r"\b(?:project|repository|repo|library|codebase)\s+(?:is|seems|appears)\s+(?:to\s+be\s+)?"
    r"(?:(?:relatively|fairly|quite|very|still)\s+)?(?:new|young)\b"
    r"|\b(?:relatively|fairly|quite)\s+(?:new|young)\s+(?:project|repository|library|codebase)\b"
    r"|较新的项目",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|never|no sign|n't)\s*$", re.IGNORECASE)
_CLAUSE = re.compile(r"[.;:!?。；：！？]")
_BEFORE = 80  # characters of the clause before a claim, looked at for a hedge


def activity_claims(line: str, base: int) -> Iterator[Found]:
    """The maintenance claims of one line: subject ``inactive``, ``active`` or ``new`` (a young project)."""
    for subject, pattern in (("inactive", _INACTIVE), ("active", _ACTIVE), ("new", _NEW)):
        for m in pattern.finditer(line):
            clause = _clause_before(line, m.start())
            if _HEDGE.search(clause):
                continue
            neglect = subject == "inactive" and m.group(0).lower() in ("unmaintained", "abandoned")
            if neglect and _NEGATION.search(clause):  # "not abandoned": no claim of neglect
                continue
            yield Found(
                kind="activity", subject=subject, value=m.group(0), start=base + m.start(), end=base + m.end()
            )


def _clause_before(line: str, at: int) -> str:
    start = max(0, at - _BEFORE)
    piece = line[start:at]
    ends = [m.end() for m in _CLAUSE.finditer(piece)]
    return piece[ends[-1] :] if ends else piece


def activity(found: Found, facts: Facts, now: datetime | None) -> Outcome:
    """``found`` held against the fetched commits and the run's day (``now``; None: not checkable)."""
    if found.subject == "new":
        return _age(facts, now)
    info = facts.evidence.info
    archived = bool(info is not None and info.archived)
    commits = facts.evidence.commits.commits if facts.evidence.commits is not None else ()
    dates = [d for d in (parse_date(c.date) for c in commits) if d is not None]
    if not dates and info is not None and (pushed := parse_date(info.pushed_at)) is not None:
        dates = [pushed]
    if now is None or (not dates and not archived):
        return "unchecked", None
    now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    dates = [d if d.tzinfo is not None else d.replace(tzinfo=UTC) for d in dates]
    newest = max(dates, default=None)
    recent = sum(now - timedelta(days=RECENT_DAYS) <= d <= now + timedelta(days=1) for d in dates)
    shown = newest.strftime("%Y-%m-%d") if newest is not None else "?"
    if archived:
        observed = said("observed_archived")
        return ("verified" if found.subject == "inactive" else "contradicted"), observed
    if recent >= RECENT:
        observed = said("observed_recent_commits", count=recent, date=shown)
        return ("contradicted" if found.subject == "inactive" else "verified"), observed
    if newest is not None and newest < now - timedelta(days=STALE_DAYS):
        observed = said("observed_latest_commit", date=shown)
        return ("verified" if found.subject == "inactive" else "contradicted"), observed
    return "unchecked", said("observed_latest_commit", date=shown)


def _age(facts: Facts, now: datetime | None) -> Outcome:
    """ "A relatively new project": false when it was created :data:`OLD_DAYS` or more before the run,
    true within a year; between, not checkable."""
    info = facts.evidence.info
    created = parse_date(info.created_at) if info is not None else None
    if now is None or created is None:
        return "unchecked", None
    now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    created = created if created.tzinfo is not None else created.replace(tzinfo=UTC)
    observed = said("observed_created", date=created.strftime("%Y-%m-%d"))
    if created < now - timedelta(days=OLD_DAYS):
        return "contradicted", observed
    return ("verified" if created >= now - timedelta(days=365) else "unchecked"), observed
