"""The verdict on a claim about the repository's metadata: a count (stars, forks, open issues, commits),
its licence, its primary language, a date, a version of the project or of Python it needs. Each checker
returns ``(verdict, observed)`` as :mod:`~agent_core.report.verdicts` describes. Pure functions over
:class:`Facts`.
"""

from __future__ import annotations

import re
from datetime import datetime

from agent_core.report.claim_names import Found
from agent_core.report.facts import Facts
from agent_core.report.licensing import project_license
from agent_core.report.path_index import index_of
from agent_core.report.phrases import parse_date
from agent_core.report.verdicts import Outcome
from agent_core.sources.languages import is_vendored
from agent_core.sources.licenses import LICENSE_SAMPLE, detect_license, same_license
from agent_core.tools.observe import notable_role
from agent_core.words import said

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def number(found: Found, facts: Facts) -> Outcome:
    info = facts.evidence.info
    claimed, approximate = _parse_number(found.value)
    if claimed is None:
        return None, None
    if found.subject in ("commits", "commits_total"):
        commits = facts.evidence.commits
        if commits is None:
            return "unchecked", None
        fetched = len(commits.commits)
        if commits.has_more:  # "30 recent commits" may be the page; "30 commits in total" is not
            total = found.subject == "commits_total"
            return (
                ("contradicted", said("observed_more_than", count=fetched))
                if claimed < fetched or (total and claimed <= fetched)
                else ("unchecked", said("observed_more_than", count=fetched))
            )
        return _compare(claimed, fetched, approximate)
    observed = getattr(info, found.subject, None) if info is not None else None
    if observed is None:
        return "unchecked", None
    return _compare(claimed, observed, approximate)


def _compare(claimed: float, observed: int, approximate: bool) -> Outcome:
    shown = f"{observed:,}"
    close = abs(claimed - observed) <= max(0.05 * observed, 1) if approximate else claimed == observed
    return ("verified" if close else "contradicted"), shown


def _parse_number(text: str) -> tuple[float | None, bool]:
    m = re.fullmatch(r"([\d,\u202f.]+)\s*([kKmM]|千|万)?", text.strip())
    if m is None:
        return None, False
    digits = m.group(1).replace(",", "").replace("\u202f", "")
    try:
        value = float(digits)
    except ValueError:
        return None, False
    scale = {"k": 1e3, "m": 1e6, "千": 1e3, "万": 1e4}.get((m.group(2) or "").lower(), 1)
    return value * scale, scale != 1 or "." in digits


def license_claim(found: Found, facts: Facts) -> Outcome:
    """A licence claim against every licence statement read, held as one SPDX expression: "MIT" is true
    of a project under "MIT OR Apache-2.0"; a licence outside it is contradicted only when nothing read
    leaves room for another (:func:`~agent_core.report.licensing.project_license`)."""
    info = facts.evidence.info
    known = project_license(facts)
    if known.finding is None:
        if info is not None and info.license is None and facts.license_files == ():
            return ("verified" if found.negated else "contradicted"), said("observed_no_license")
        return "unchecked", None
    observed = known.finding.expression
    same = any(same_license(found.value, key) for key in known.finding.keys)
    vendored = _vendored_folder(facts) and all(p.startswith("../") for p in facts.license_files or ())
    if vendored and not same:  # vendored code carries its own licence, in its files' headers
        return _by_headers(found, facts)  # (the repository's licence, said as the repository's, holds)
    if found.negated:
        return ("contradicted" if same else "unchecked"), observed
    if same:
        return "verified", observed
    return ("contradicted" if known.complete else "unchecked"), observed


def language(found: Found, facts: Facts) -> Outcome:
    """The primary language: the repository's (GitHub's, else the bytes counted); in a folder's run the
    folder's own too ("the folder is mainly Java" in a Kotlin repository), either one true."""
    info, languages = facts.evidence.info, facts.evidence.languages
    primary = info.language if info is not None and info.language else None
    counted = languages.bytes_by_language if languages is not None else {}
    own = max(counted.items(), key=lambda kv: kv[1])[0] if counted else None
    if facts.evidence.root:  # a scoped run: its languages are the folder's, the repository's beside
        if own is not None and found.value.lower() == own.lower():
            return "verified", own
        repo = facts.evidence.repo_languages
        if primary is None and repo is not None and repo.bytes_by_language:
            primary = max(repo.bytes_by_language.items(), key=lambda kv: kv[1])[0]
        if primary is None or languages is None:  # the folder's languages unknown (a cut tree)
            return "unchecked", primary or own
        return ("verified" if found.value.lower() == primary.lower() else "contradicted"), own or primary
    primary = primary or own
    if primary is None:
        return "unchecked", None
    return ("verified" if found.value.lower() == primary.lower() else "contradicted"), primary


def date(found: Found, facts: Facts) -> Outcome:
    claimed = _parse_claimed_date(found.value)
    if claimed is None:
        return None, None
    ev_, info = facts.evidence, facts.evidence.info
    commits = ev_.commits.commits if ev_.commits is not None else ()
    if found.subject == "created":
        observed = info.created_at if info is not None else None
    elif found.subject == "last_commit":
        observed = commits[0].date if commits else None
    else:
        observed = (info.pushed_at if info is not None else None) or (commits[0].date if commits else None)
    moment = parse_date(observed)
    if moment is None:
        return "unchecked", None
    year, month, day = claimed
    shown = moment.strftime("%Y-%m-%d")
    if moment.year != year or (month is not None and moment.month != month):
        return "contradicted", shown
    if day is not None and abs((moment.date() - datetime(year, month or 1, day).date()).days) > 1:
        return "contradicted", shown
    return "verified", shown


def _parse_claimed_date(text: str) -> tuple[int, int | None, int | None] | None:
    t = text.strip().lower()
    if m := re.fullmatch(r"(\d{4})-(\d{2})(?:-(\d{2}))?", t):
        return int(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None
    if m := re.fullmatch(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*日)?", t):
        return int(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None
    if m := re.fullmatch(r"(\d{4})", t):
        return int(m.group(1)), None, None
    words = re.findall(r"[a-z]+|\d+", t)
    month = next((i + 1 for w in words for i, name in enumerate(_MONTHS) if w.startswith(name)), None)
    numbers = [int(w) for w in words if w.isdigit()]
    year = next((n for n in numbers if n >= 1000), None)
    day = next((n for n in numbers if n < 32), None)
    return (year, month, day) if year and month else None


def version(found: Found, facts: Facts) -> Outcome:
    texts = {
        path: c.whole_text or c.text or ""
        for path, c in facts.evidence.files.items()
        if notable_role(path) == "manifest"
    }
    if found.subject == "python":
        m = next(
            (
                m
                for t in texts.values()
                if (m := re.search(r"(?:requires-python|python_requires)\s*=\s*[\"']?[^\"'\n]*?(3\.\d+)", t))
            ),
            None,
        )
        if m is None:
            return "unchecked", None
        return ("verified" if m.group(1) == found.value else "contradicted"), f"Python {m.group(1)}+"
    version = next(
        (
            m.group(1)
            for t in texts.values()
            if (m := re.search(r"^\s*\"?version\"?\s*[=:]\s*[\"']([^\"']+)[\"']", t, re.M))
        ),
        None,
    )
    if version is None:
        return "unchecked", None
    return ("verified" if version.lstrip("v") == found.value.lstrip("v") else "contradicted"), version


def _vendored_folder(facts: Facts) -> bool:
    """A folder's run on code the repository vendors (fmt's ``test/gtest``: googletest, BSD-3)."""
    root = facts.evidence.root  # Linguist's rules read from the repository's root (`test/gtest/`)
    if not root or not facts.paths:
        return False
    return index_of(facts).derived(  # type: ignore[return-value]
        "vendored_folder", lambda: all(is_vendored(f"{root}/{p}") for p in facts.paths)
    )


def _by_headers(found: Found, facts: Facts) -> Outcome:
    """A licence claim about a folder of vendored code, against the licences its files read say in their
    headers (googletest's BSD-3 text atop ``gtest.h``); unchecked when none says one."""
    said_in = {
        key
        for path, content in facts.evidence.files.items()
        if not path.startswith("../") and (key := detect_license((content.text or "")[:LICENSE_SAMPLE]))
    }
    if not said_in or found.negated:
        return "unchecked", None
    observed = " AND ".join(sorted(said_in))
    same = any(same_license(found.value, key) for key in said_in)
    return ("verified" if same else "contradicted"), observed
