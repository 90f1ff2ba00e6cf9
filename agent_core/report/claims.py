"""The claim check: every checkable claim of a report held against what the tools observed.

:func:`check_report` finds the claims (:mod:`~agent_core.report.claim_finders`) and gives each a verdict
from the observations alone: ✓ verified, ✗ contradicted (with the observed value), ? not checkable
(nothing observed could confirm or refute it). Links into the analysed repositories become permalinks
at the analysed commit. It also picks the key facts (stars, forks, open issues, license, primary
language, default branch, last commit) the app shows from the observations, whatever the report says.

The verdicts are the app's: they are rendered outside the report's Markdown (the "Checked facts"
panel), so no model output and no repository content can forge them; :func:`annotate` marks the
contradicted claims where they stand and swaps links for their permalinks. Pure functions, no I/O.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import unquote, urlsplit

from agent_core import events as ev
from agent_core.repo import RepoRef
from agent_core.report import verdict_facts, verdict_packages, verdicts
from agent_core.report.checked import clauses, observed_text
from agent_core.report.claim_activity import activity
from agent_core.report.claim_build import build_system
from agent_core.report.claim_finders import Found, find_claims
from agent_core.report.claim_people import NamesRead, person
from agent_core.report.claim_standard import standard
from agent_core.report.facts import Facts, build_facts, gather
from agent_core.report.phrases import parse_date
from agent_core.report.scoped import link_path, whole_tree
from agent_core.report.verdicts import Observed, Outcome
from agent_core.tools.results import ToolResult
from agent_core.words import Said, said, say, t, words_for

_LINE_ANCHOR = re.compile(r"^L\d+(?:-L\d+)?$")


@dataclass(frozen=True, kw_only=True)
class _Repo:
    facts: Facts
    commit: str | None  # the analysed commit (the newest fetched), for permalinks

    @property
    def name(self) -> str:
        return self.facts.evidence.repo.full_name


def check_report(
    report: str,
    scope: Sequence[RepoRef],
    results: Sequence[ToolResult],
    *,
    skip: Sequence[str] = (),
    now: datetime | None = None,
) -> ev.ClaimsChecked:
    """The claim check and the key facts of ``report`` (``t`` is left 0: the caller stamps it). Text of
    the app's own in ``skip`` (the architecture diagram, its paths already checked) is not a claim.
    ``now``: the run's day, which a claim that the project is (not) maintained is judged against (None:
    such claims are not checkable)."""
    repos = [_repo(ref, results) for ref in scope]
    spans = [(m.start(), m.end()) for text in skip if text for m in re.finditer(re.escape(text), report)]
    found_claims = [f for f in find_claims(report) if not any(a <= f.start < b for a, b in spans)]
    about = _mentions(report, repos)
    names = NamesRead(results) if any(f.kind == "person" for f in found_claims) else None
    said_by = _Said(now=now, names=names)
    verdicts = [_verdict(found, about(found), repos, said_by) for found in found_claims]
    claims = [c for c in verdicts if c is not None]
    return ev.ClaimsChecked(
        t=0.0,
        claims=tuple(claims),
        key_facts=tuple(fact for repo in repos for fact in _key_facts(repo)),
        verified=sum(c.verdict == "verified" for c in claims),
        contradicted=sum(c.verdict == "contradicted" for c in claims),
        unchecked=sum(c.verdict == "unchecked" for c in claims),
    )


@dataclass(frozen=True, kw_only=True)
class Named:
    """What the observations of the repositories in scope say a name is: a dependency the manifests read
    declare (as :func:`~agent_core.report.verdicts.normal` has it), a top-level folder (lower case, no
    slash), and of those the folders a whole tree shows with no test file in them."""

    declared: frozenset[str]
    folders: frozenset[str]
    untested: frozenset[str]


def names_observed(scope: Sequence[RepoRef], results: Sequence[ToolResult]) -> Named:
    """:class:`Named` for ``scope`` (a cut tree says no folder is untested)."""
    declared: set[str] = set()
    folders: set[str] = set()
    untested: set[str] = set()
    for ref in scope:
        facts = _repo(ref, results).facts
        declared |= verdicts.declared_names(facts)[0]
        model = facts.model
        if model is None:
            continue
        tops = {top.name.casefold() for top in model.top_level}
        folders |= tops
        if facts.tree_complete:
            tested = {p.split("/", 1)[0].casefold() for p in model.paths_with_role("tests") if "/" in p}
            untested |= tops - tested
    return Named(declared=frozenset(declared), folders=frozenset(folders), untested=frozenset(untested))


def annotate(report: str, check: ev.ClaimsChecked | None, language: str = "en") -> str:
    """``report`` with each contradicted claim marked where it stands (in ``language``, the reader's) and
    each link at its permalink."""
    if check is None:
        return report
    edits: list[tuple[int, int, str]] = []
    fences = _fenced_lines(report)
    for claim in check.claims:
        if claim.start < 0 or claim.end > len(report):
            continue
        if claim.kind == "link" and claim.verdict == "verified" and claim.observed:
            edits.append((claim.start, claim.end, claim.observed))
        elif claim.verdict == "contradicted":
            seen = (observed_text(claim, language) or "").replace("|", "/").replace("]", ")")
            in_fence = fences and bisect.bisect_right(fences, claim.start) % 2 == 1
            end = _line_end(report, claim.end) if in_fence else _mark_at(report, claim.end)
            edits.append((end, end, f" **[✗ {t('checked_mark', language, observed=seen)}]**"))
    pieces, cursor = [], 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < cursor:
            continue  # overlaps an edit already made
        pieces += [report[cursor:start], text]
        cursor = end
    return "".join([*pieces, report[cursor:]])


# -- one claim -------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Said:
    """What the claims about the project's upkeep and people are held against: the run's day, the names
    the tools read (None: the report names nobody)."""

    now: datetime | None
    names: NamesRead | None


def _verdict(
    found: Found, repo: _Repo | None, repos: Sequence[_Repo], said_by: _Said
) -> ev.CheckedClaim | None:
    if found.kind == "link":
        return _link(found, repos)
    outcome: Outcome
    if found.kind == "person" and said_by.names is not None:  # whoever's: any repository's reads name them
        outcome = person(found, said_by.names)
    elif repo is None:
        return _claim(found, "unchecked", None, None)
    elif found.kind == "activity":
        outcome = activity(found, repo.facts, said_by.now)
    else:
        outcome = _FACT_CHECKS[found.kind](found, repo.facts)
    verdict, observed = outcome
    if verdict is None:
        return None
    return _claim(found, verdict, observed, repo.name if repo is not None else None)


_FACT_CHECKS: dict[str, Callable[[Found, Facts], Outcome]] = {
    "number": verdict_facts.number,
    "license": verdict_facts.license_claim,
    "language": verdict_facts.language,
    "date": verdict_facts.date,
    "version": verdict_facts.version,
    "dependency": verdict_packages.dependency,
    "count": verdict_packages.package_count,
    "path": verdicts.path,
    "build": build_system,
    "standard": standard,
}


def _claim(found: Found, verdict: ev.Verdict, observed: Observed, repo: str | None) -> ev.CheckedClaim:
    """The event for one verdict: the app's words (how it names a labelled claim, what it observed) as
    data for each reader's language, beside their English."""
    named = _named(found)
    said_observed = (
        observed if isinstance(observed, tuple) else (observed,) if isinstance(observed, Said) else ()
    )
    return ev.CheckedClaim(
        kind=found.kind,
        claim=(say(named, "en") if named is not None else _with_version(found))[:120],
        verdict=verdict,
        observed=observed if isinstance(observed, str) or observed is None else clauses(said_observed, "en"),
        observed_said=said_observed,
        claim_said=named,
        repo=repo,
        start=found.start,
        end=found.end,
    )


def _with_version(found: Found) -> str:
    return f"{found.value} {found.version}" if found.version else found.value


def _named(found: Found) -> Said | None:
    """How the app names a claim it labels ("last push: 2024-02-26", "npm packages: 3", "no X"), or None
    for one named by the report's own words alone."""
    value = _with_version(found)
    named: Said | None = None
    if found.kind in ("number", "date", "version"):
        key = f"claim_label_{found.subject}"
        label: str | Said = said(key) if words_for("en").has(key) else found.subject
        named = said("claim_labelled", label=label, value=value)
    elif found.kind == "count":
        named = said("claim_packages", ecosystem=found.subject, value=found.value)
    if found.negated:
        return said("claim_no", claim=named if named is not None else value)
    return named


def _link(found: Found, repos: Sequence[_Repo]) -> ev.CheckedClaim | None:
    parts = urlsplit(found.value)
    if (parts.hostname or "").lower() not in ("github.com", "www.github.com"):
        return None  # outside GitHub: nothing observed could check it
    segments = [unquote(s) for s in parts.path.split("/") if s]
    if len(segments) < 2:
        return None
    full = f"{segments[0]}/{segments[1].removesuffix('.git')}".lower()
    repo = next(
        (
            r
            for r in repos
            if r.name.lower() == full
            or (r.facts.evidence.info and (r.facts.evidence.info.full_name or "").lower() == full)
        ),
        None,
    )
    if repo is None:
        return _claim(found, "unchecked", said("observed_outside"), None)
    if len(segments) < 5 or segments[2] not in ("blob", "tree"):
        return _claim(found, "verified", None, repo.name)
    path = link_path(segments[3:], repo.facts.evidence)  # a scoped run's folder is its tree's root
    where = verdicts.locate(path, repo.facts) if repo.facts.paths else None
    if where != path:
        complete = repo.facts.tree_complete and whole_tree(repo.facts.evidence)
        verdict: ev.Verdict = "contradicted" if complete else "unchecked"
        return _claim(
            found,
            verdict,
            "not in the repository's tree" if where is None else f"the file is {where}",
            repo.name,
        )
    if repo.commit is None:
        return _claim(found, "verified", None, repo.name)
    anchor = f"#{parts.fragment}" if _LINE_ANCHOR.match(parts.fragment or "") else ""
    owner, name = repo.name.split("/", 1)
    root = repo.facts.evidence.root
    full = posixpath.normpath(f"{root}/{path}") if root else path  # "../../x" of a folder: from the root
    permalink = f"https://github.com/{owner}/{name}/{segments[2]}/{repo.commit}/{full}{anchor}"
    return _claim(found, "verified", permalink, repo.name)


# -- which repository, and the key facts ------------------------------------------------------------------


def _repo(ref: RepoRef, results: Sequence[ToolResult]) -> _Repo:
    facts = build_facts(gather(ref, results, words_for("en")))
    commits = facts.evidence.commits
    commit = commits.commits[0].sha if commits is not None and commits.commits else None
    if (
        commit is None
        and facts.evidence.tree is not None
        and re.fullmatch(r"[0-9a-f]{40}", facts.evidence.tree.ref or "")
    ):
        commit = facts.evidence.tree.ref
    return _Repo(facts=facts, commit=commit if facts.link_base is not None else None)


def _mentions(report: str, repos: Sequence[_Repo]) -> Callable[[Found], _Repo | None]:
    """The repository a claim is about: the only one, else the last one named before it. Every name's
    places are found once (one pass per repository), each claim then looks them up (no rescan per claim:
    a report of many claims about several repositories stayed linear)."""
    if len(repos) == 1:
        return lambda _found: repos[0]
    lowered = report.lower()
    places: list[tuple[int, int]] = []  # (where a name ends being written, which repository)
    for index, repo in enumerate(repos):
        name = repo.name.lower()
        at = lowered.find(name)
        while at >= 0 and name:
            places.append((at + len(name), index))
            at = lowered.find(name, at + 1)
    places.sort()
    ends = [end for end, _ in places]

    def about(found: Found) -> _Repo | None:
        last = bisect.bisect_right(ends, found.start) - 1  # a name written wholly before the claim
        return repos[places[last][1]] if last >= 0 else None

    return about


def _key_facts(repo: _Repo) -> list[ev.KeyFact]:
    ev_, info = repo.facts.evidence, repo.facts.evidence.info
    facts: list[tuple[str, object]] = []
    if info is not None:
        facts += [
            ("stars", info.stars),
            ("forks", info.forks),
            ("open_issues", info.open_issues),
            ("license", info.license),
            ("language", info.language),
            ("default_branch", info.default_branch),
        ]
    commits = ev_.commits.commits if ev_.commits is not None else ()
    if commits:
        latest = commits[0]
        moment = parse_date(latest.date)
        facts.append(("last_commit", f"{moment.strftime('%Y-%m-%d') if moment else '?'} ({latest.sha[:7]})"))
    return [
        ev.KeyFact(repo=repo.name, label=label, value=f"{value:,}" if isinstance(value, int) else str(value))
        for label, value in facts
        if value is not None
    ]


_TOKEN_REST = re.compile(r"(?:[\w#+]|\.(?=\w))*")  # the rest of "C#", "C++", "Node.js", "3.8+"
_CLOSING = re.compile(r"[*_~]{1,3}(?![\w*_~])")  # a closing "**", "_" or "~~"
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)
_LINK_REST = re.compile(r"[^\[\]\n]*\]\([^)\n]*\)")  # the claim is a link's text: past the link
_NEAR = 400  # characters around a claim its mark's place depends on


def _mark_at(report: str, end: int) -> int:
    """Where a mark after a claim ending at ``end`` leaves the Markdown intact: past the rest of the token
    it ends in ("C#", "C++", "Node.js", "3.8+"), a code span or emphasis the claim stands in, and a link
    whose text it is. Looks at most :data:`_NEAR` characters either side (a line of a thousand claims)."""
    line_start = max(report.rfind("\n", max(0, end - _NEAR), end) + 1, end - _NEAR)
    if report.rfind("](", line_start, end) > report.rfind(")", line_start, end):  # inside a link's target
        closing = report.find(")", end, end + _NEAR)
        return closing + 1 if closing != -1 else end
    if report.count("`", line_start, end) % 2 == 1:  # inside a code span
        closing = report.find("`", end, end + _NEAR)
        end = closing + 1 if closing != -1 else end
    end = _TOKEN_REST.match(report, end, end + _NEAR).end()  # type: ignore[union-attr]  # it matches ""
    if emphasis := _CLOSING.match(report, end):
        end = emphasis.end()
    m = _LINK_REST.match(report, end, end + _NEAR)
    return m.end() if m else end


def _fenced_lines(report: str) -> list[int]:
    """Where fenced code blocks open and close, in order (an odd count before a claim: it is inside)."""
    return [m.start() for m in _FENCE.finditer(report)]


def _line_end(report: str, at: int) -> int:
    """The end of the line holding ``at``: a mark inside a code block stands after the line's code."""
    end = report.find("\n", at, at + _NEAR)
    return at if end == -1 else end
