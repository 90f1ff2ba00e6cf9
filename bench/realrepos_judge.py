"""The real-repository judge: a report's statements held against the repository's own files.

:func:`judge` finds the statements of a Markdown report that can be checked against a
:class:`~bench.realrepos_truth.Truth` — paths (code spans and links into the repository), file and
folder counts, languages and their shares, licences, CI systems, test claims, package and dependency
counts, dependency names — and judges each one true, false, or undecided (``None``: counted as
"unjudged", never as right). It then lists the key facts the report leaves out (language, size,
packages, tests, CI, licence, docs). :func:`claim_check_errors` finds the claims the app's own check
marked contradicted that the judge finds true.

The judge reads the report's structure (code spans, links, numbers next to nouns), not its exact
sentences, so it keeps working while the report's wording changes. Text quoted from the repository
(the README excerpt, commit subjects, block quotes) and code blocks (the Mermaid diagram) are skipped:
they are the repository's words, not the report's statements.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from agent_core.events import CheckedClaim
from bench.realrepos_truth import CI_SYSTEMS, LANGUAGES, Truth

_FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
_QUOTED_LINE = re.compile(
    r"^(\s*>.*|\s*[-*] \d{4}-\d{2}-\d{2} — .*|\*\*From the README\*\*.*|\*\*README.*)$", re.M
)
_LINK = re.compile(r"\[((?:[^\]\\]|\\.)*)\]\((https?://[^)\s]+)\)")
_CODE = re.compile(r"(?<![\\`])`([^`\n]+)`(?!`)")
_NUMBER = r"(\d{1,3}(?:[,\u202f ]\d{3})+|\d+)"
_VERSION = re.compile(r"^(?:[\^~<>=!]=?|v?\d|\*|catalog:|workspace:|npm:|latest)")
_DEPENDENCY_WORDS = re.compile(r"dependenc|requirement|requires|依赖", re.I)
_TEST_WORDS = re.compile(r"\btests?\b|\btesting\b|测试", re.I)
_NO_TESTS = re.compile(
    r"\bno tests?\b|\bwithout tests\b|no test (?:folder|files|suite)|未(?:发现|找到)测试", re.I
)
_HEDGES = re.compile(r"\b(?:no|not|without|add|consider|example|e\.g\.)\b|没有|建议", re.I)
_LICENSE_WORDS = re.compile(r"licen[cs]e|许可", re.I)
_NO_LICENSE = re.compile(r"\bno licen[cs]e|licen[cs]e\s*[:：]\s*(?:none|—)|未(?:发现|声明)许可", re.I)
_NO_CI = re.compile(r"\bno (?:CI\b|continuous integration)|\bCI\s*[:：]\s*none", re.I)
_LICENSE_NAMES = (
    (re.compile(r"\bApache(?:[- ]License)?(?:[- ,]+(?:v(?:ersion)?\s*)?2(?:\.0)?)\b", re.I), "Apache-2.0"),
    (re.compile(r"\bApache\b"), "Apache"),
    (re.compile(r"\bMIT\b"), "MIT"),
    (re.compile(r"\b(?:The )?Unlicense\b"), "Unlicense"),
    (re.compile(r"\bBSD[- ]3(?:[- ]Clause)?\b", re.I), "BSD-3-Clause"),
    (re.compile(r"\bBSD[- ]2(?:[- ]Clause)?\b", re.I), "BSD-2-Clause"),
    (re.compile(r"\bBSD\b"), "BSD"),
    (re.compile(r"\bMPL[- ]?2(?:\.0)?\b"), "MPL-2.0"),
    (re.compile(r"\bLGPL"), "LGPL"),
    (re.compile(r"(?<!L)GPL"), "GPL"),
    (re.compile(r"\bISC\b"), "ISC"),
)
_FOLDER_COUNT = re.compile(r"`([^`\n]+)`\]?(?:\([^)\s]*\))?\s*(?:—|–|-|:|\()\s*" + _NUMBER + r"\s+files?\b")
_TOTAL_FILES = re.compile(r"\b(?:[Ff]iles|文件数?)\s*[:：]\s*" + _NUMBER)
_TOTAL_DIRS = re.compile(r"\b(?:[Dd]irectories|[Ff]olders|目录数?)\s*[:：]\s*" + _NUMBER)
_FILES_IN_FOLDERS = re.compile(_NUMBER + r"\s+files?\s+in\s+" + _NUMBER + r"\s+(?:folders|directories)\b")
_LOWER_BOUND = re.compile(r"\bat least\b|\bmore than\b|\bover\s+(?=\d)|≥|至少|以上")  # "over 140 files"
_LOWER_BOUNDS = re.compile(r"lower bounds?|下限")
_SOME_FILES = re.compile(_NUMBER + r"\s+(?:`[^`\n]*`\s+)?(?:[\w-]+\s+)?files?\b")
_PACKAGES = re.compile(
    _NUMBER + r"\s+(?:(?:Go|go|npm|workspace|Cargo|Gradle|Maven|Python)\s+)?"
    r"(modules?|packages?|crates?|members?|subprojects?)\b"
    r"|\b(?:modules?|packages?|crates?|members?|subprojects?)\s*[:：(]\s*" + _NUMBER
)
_DEP_COUNT = re.compile(
    r"(?:dependencies|requirements|依赖)[^\d\n`]{0,12}?[(:：]\s*" + _NUMBER
    + r"|" + _NUMBER + r"\s+(?:[\w-]+\s+){0,2}(?:dependencies|requirements)\b"
)  # fmt: skip
_MANIFEST_DIR = re.compile(r"(^|/)(go\.mod|package\.json|Cargo\.toml|build\.gradle(\.kts)?|pom\.xml)$")


@dataclass(frozen=True)
class Statement:
    kind: str  # path, dependency, files, folder, dirs, packages, dependencies, language, share, license, ci, tests
    text: str
    start: int
    end: int
    verdict: bool | None  # None: the judge cannot decide (counted as unjudged, never as right)
    resolved: str | None = None  # for a true path: the path in the repository


@dataclass(frozen=True)
class Judgement:
    statements: tuple[Statement, ...]
    missing: tuple[str, ...]  # key facts the report leaves out

    @property
    def judged(self) -> int:
        return sum(s.verdict is not None for s in self.statements)

    @property
    def false(self) -> tuple[Statement, ...]:
        return tuple(s for s in self.statements if s.verdict is False)

    @property
    def unjudged(self) -> int:
        return sum(s.verdict is None for s in self.statements)


def _number(text: str) -> int:
    return int(re.sub(r"[,\u202f ]", "", text))


def _mask(report: str) -> str:
    """The report with quoted repository text and code blocks blanked (same length, same offsets)."""

    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    return _QUOTED_LINE.sub(blank, _FENCE.sub(blank, report))


def _lines(text: str) -> Iterator[tuple[int, str]]:
    at = 0
    for line in text.split("\n"):
        yield at, line
        at += len(line) + 1


def judge(report: str, truth: Truth, repo: str) -> Judgement:
    """Every checkable statement of ``report`` about ``repo`` (owner/name), and the key facts it misses."""
    statements: list[Statement] = []
    masked = _mask(report)
    bounded = bool(_LOWER_BOUNDS.search(masked))  # the report says its counts are lower bounds (a cut tree)
    for at, line in _lines(masked):
        if line.strip():
            statements += _line_statements(line, at, truth, repo, bounded=bounded)
    statements.sort(key=lambda s: (s.start, s.kind))
    return Judgement(statements=tuple(statements), missing=tuple(_missing(statements, truth, report)))


def _line_statements(line: str, at: int, truth: Truth, repo: str, *, bounded: bool) -> list[Statement]:
    found: list[Statement] = []
    taken: list[tuple[int, int]] = []
    for m in _LINK.finditer(line):
        taken.append(m.span())
        path = _repo_link_path(m.group(2), repo)
        if path is not None:
            found.append(_path(path, at + m.start(), at + m.end(), truth, exact=True))
    for m in _CODE.finditer(line):
        if any(a <= m.start() < b for a, b in taken):
            continue
        statement = _code_span(
            m.group(1), at + m.start(), at + m.end(), plain=_plain(line), truth=truth, repo=repo
        )
        if statement is not None:
            found.append(statement)
    plain = _plain(line)
    lower = bounded or bool(_LOWER_BOUND.search(line))
    found += _counts(line, at, truth, lower=lower)
    found += _languages(plain, at, truth)
    found += _licenses(plain, at, truth)
    found += _ci(plain, at, truth)
    test = _tests(line, plain, at, truth, found, lower=lower)
    return found + ([test] if test else [])


def _plain(line: str) -> str:
    """The line without its code spans and links (blanked: the offsets stay)."""
    return _CODE.sub(lambda m: " " * len(m.group(0)), _LINK.sub(lambda m: " " * len(m.group(0)), line))


def _repo_link_path(url: str, repo: str) -> str | None:
    m = re.match(r"https?://github\.com/([^/]+/[^/]+)/(?:blob|tree)/[^/]+/(.+?)(?:#.*)?$", url)
    if not m or m.group(1).lower() != repo.lower():
        return None
    return unquote(m.group(2))


def _path(path: str, start: int, end: int, truth: Truth, *, exact: bool = False) -> Statement:
    resolved = truth.resolve(path)
    if resolved is not None:
        return Statement("path", path, start, end, True, resolved)
    if not exact and truth.exists_deeper(path):
        return Statement("path", path, start, end, None)  # relative to some folder the report does not say
    return Statement("path", path, start, end, False)


def _code_span(token: str, start: int, end: int, *, plain: str, truth: Truth, repo: str) -> Statement | None:
    """A code span: a path, a dependency (``name 1.0``, ``name>=1.0``), or nothing to judge."""
    token = token.strip()
    if token.lower() == repo.lower() or not token:
        return None
    pinned = re.fullmatch(
        r"([A-Za-z0-9][\w.\-]*)(?:\[[\w,.\-]+\])?\s*(?:==|>=|<=|~=|!=|>|<|===)\s*\S+", token
    )
    if pinned:
        return Statement("dependency", pinned.group(1), start, end, truth.declares(pinned.group(1)))
    name, _, rest = token.partition(" ")
    if rest and re.fullmatch(r"@?[\w.\-/]+", name) and _VERSION.match(rest.strip()):
        return Statement("dependency", name, start, end, truth.declares(name))
    if rest or "*" in token:
        return None
    path_shaped = "/" in token or token.startswith(".") or re.search(r"\.[A-Za-z][A-Za-z0-9]{0,9}$", token)
    if truth.exists(token):
        return _path(token, start, end, truth)
    if path_shaped:
        if truth.declares(token):
            return Statement("dependency", token, start, end, True)
        if token.startswith(("_", ".")) or truth.exists_deeper(token):
            return None if token.startswith(("_", ".")) else Statement("path", token, start, end, None)
        domain = "/" in token and "." in token.split("/", 1)[0]
        return Statement(
            "dependency" if domain or token.startswith("@") else "path", token, start, end, False
        )
    if _DEPENDENCY_WORDS.search(plain) and re.fullmatch(r"@?[\w.-]+", token):
        return Statement("dependency", token, start, end, truth.declares(token))
    return None


def _count(
    n: int, candidates: set[int], *, lower: bool, near: float = 0.0, far: float | None = None
) -> bool | None:
    """A count against the ways of counting it: true within ``near`` (a share) of one of them; false
    beyond ``far`` of all of them (``None``: anything not near is false), else undecided. A lower bound
    ("at least", or a report that says its counts are lower bounds) is true when no count is below it."""
    if not candidates:
        return None
    if lower and n <= max(candidates):
        return True
    if any(abs(n - c) <= max(near * c, 0) for c in candidates):
        return True
    if far is None or all(abs(n - c) > max(far * c, 2) for c in candidates):
        return False
    return None


def _counts(line: str, at: int, truth: Truth, *, lower: bool) -> list[Statement]:
    found: list[Statement] = []
    used: list[tuple[int, int]] = []

    def add(kind: str, m: re.Match[str], verdict: bool | None) -> None:
        used.append(m.span())
        found.append(Statement(kind, m.group(0), at + m.start(), at + m.end(), verdict))

    totals = {len(truth.scoped_files), len(truth.files), len(truth.own_files)}
    inside = [d for d in truth.dirs if truth.scope and d.startswith(truth.scope + "/")]
    dirs = {len(truth.dirs), len(inside)} - {0}
    for m in _FILES_IN_FOLDERS.finditer(line):
        add("files", m, _count(_number(m.group(1)), totals, lower=lower))
        add("dirs", m, _count(_number(m.group(2)), dirs | {n + 1 for n in dirs}, lower=lower))
    for m in _TOTAL_FILES.finditer(line):
        add("files", m, _count(_number(m.group(1)), totals, lower=lower))
    for m in _TOTAL_DIRS.finditer(line):
        add("dirs", m, _count(_number(m.group(1)), dirs | {n + 1 for n in dirs}, lower=lower))
    for m in _FOLDER_COUNT.finditer(line):
        folders = [f for f in truth.resolutions(m.group(1)) if f in truth.dirs]
        if folders:
            own = [sum(1 for p in truth.own_files if p.startswith(f + "/")) for f in folders]
            counts = {*own, *(truth.files_under(f) for f in folders)}
            add("folder", m, _count(_number(m.group(2)), counts, lower=lower))
    known = totals | truth.test_counts | {truth.vendored_files}
    for m in _SOME_FILES.finditer(line):
        if not any(a <= m.start() < b or m.start() <= a < m.end() for a, b in used):
            add("files", m, True if _count(_number(m.group(1)), known, lower=lower) else None)
    candidates = {c + d for c in truth.package_counts.values() for d in (-1, 0, 1)}
    for m in _PACKAGES.finditer(line):
        n = _number(m.group(1) or m.group(3))
        # packages are counted in many ways (modules, workspace members, folders with tests...): lenient
        add("packages", m, _count(n, candidates, lower=lower, near=0.0, far=0.5) if n > 1 else None)
    deps = truth.dependency_counts
    for m in _DEP_COUNT.finditer(line):
        add("dependencies", m, _count(_number(m.group(1) or m.group(2)), deps, lower=lower))
    return found


def _languages(plain: str, at: int, truth: Truth) -> list[Statement]:
    """Languages named on a line about languages, with or without a share; judged against the scope
    and, for a subfolder, the whole repository too (true if true of either)."""
    if not re.search(r"language|语言", plain, re.I):
        return []
    views = [truth] + ([truth.whole] if truth.scope else [])
    shares = [view.language_shares(own=own) for view in views for own in (True, False)]
    tops = {max(s, key=lambda k: s[k]) for s in shares if s}
    found = []
    for name in LANGUAGES:
        for m in re.finditer(rf"(?<![\w+#]){re.escape(name)}(?![\w+#])(\s+(\d+(?:\.\d+)?)\s*%)?", plain):
            values = [s.get(name, 0.0) for s in shares]
            if m.group(2):
                diff = min(abs(float(m.group(2)) - v) for v in values)
                verdict = True if diff <= 10 else False if diff > 20 else None
                found.append(Statement("share", m.group(0), at + m.start(), at + m.end(), verdict))
            else:
                verdict = True if name in tops or max(values) >= 20 else False if max(values) < 2 else None
                found.append(Statement("language", name, at + m.start(), at + m.end(), verdict))
    return found


def _licenses(plain: str, at: int, truth: Truth) -> list[Statement]:
    if not _LICENSE_WORDS.search(plain):
        return []
    have = truth.licenses
    found: list[Statement] = []
    spans: list[tuple[int, int]] = []
    for pattern, spdx in _LICENSE_NAMES:
        for m in pattern.finditer(plain):
            if any(a <= m.start() < b for a, b in spans):
                continue
            spans.append(m.span())
            verdict = any(h == spdx or h.startswith(spdx) for h in have) if have else None
            found.append(Statement("license", m.group(0), at + m.start(), at + m.end(), verdict))
    for m in _NO_LICENSE.finditer(plain):
        found.append(Statement("license", m.group(0), at + m.start(), at + m.end(), not have))
    return found


def _ci(plain: str, at: int, truth: Truth) -> list[Statement]:
    """CI systems named: true when configured; an absent one is false unless the line denies or
    suggests it ("no GitHub Actions workflow", "add a GitHub Actions workflow": undecided)."""
    found = []
    have = truth.ci_systems
    hedged = bool(_HEDGES.search(plain))
    for name in CI_SYSTEMS:
        short = name.removesuffix(" CI")
        for m in re.finditer(rf"\b{re.escape(short)}\b", plain, re.I):
            verdict = True if name in have else None if hedged else False
            found.append(Statement("ci", name, at + m.start(), at + m.end(), verdict))
    for m in _NO_CI.finditer(plain):
        found.append(Statement("ci", m.group(0), at + m.start(), at + m.end(), not have))
    return found


_CI_PLACE = re.compile(r"\.(?:github|circleci|gitlab|buildkite|azure-pipelines|travis)(?:/|$)")


def _tests(
    line: str, plain: str, at: int, truth: Truth, found: list[Statement], *, lower: bool
) -> Statement | None:
    """One statement per line that speaks of tests: do the places and numbers it names hold them?"""
    if not _TEST_WORDS.search(plain):
        return None
    tests = truth.test_files
    if _NO_TESTS.search(plain):
        return Statement("tests", line.strip(), at, at + len(line), not tests)
    places = [s.resolved for s in found if s.kind == "path" and s.verdict and s.resolved]
    places = [p for p in places if p in truth.dirs or p in tests]  # a test runner's config is no test place
    places = [p for p in places if not _CI_PLACE.match(p)]  # CI "runs the tests": it holds none
    numbers = [_number(m.group(1)) for m in _SOME_FILES.finditer(line)]
    if not places and not numbers:
        return None
    if not tests:
        return Statement("tests", line.strip(), at, at + len(line), None)
    covered = {t for t in tests if any(t == p or t.startswith(p + "/") for p in places)}
    share = len(covered) / len(tests)
    if share >= 0.5 or any(_count(n, truth.test_counts, lower=lower, near=0.1) for n in numbers):
        verdict: bool | None = True
    else:
        verdict = False if share < 0.1 else None
    return Statement("tests", line.strip(), at, at + len(line), verdict)


def _missing(statements: list[Statement], truth: Truth, report: str) -> Iterator[str]:
    true = [s for s in statements if s.verdict]
    kinds = {s.kind for s in true}
    paths = [s.resolved for s in true if s.kind == "path" and s.resolved]
    if not kinds & {"language", "share"}:
        yield "language"
    scoped = truth.scoped_files
    if "files" not in kinds:
        yield "size"
    elif (
        truth.vendored_files >= 0.1 * len(scoped)
        and not _LOWER_BOUNDS.search(report)  # a cut tree can only give lower bounds: the total is enough
        and not _mentions_number(report, len(truth.own_files))
    ):
        yield "size (own files)"
    if _is_multi_package(truth):
        homes = {p.rsplit("/", 1)[0] for p in truth.own_files if _MANIFEST_DIR.search(p) and "/" in p}
        named = {p for p in paths if p in homes}
        if "packages" not in kinds and len(named) < min(3, len(homes)):
            yield "packages"
    if truth.test_files and "tests" not in kinds:
        yield "tests"
    if truth.ci_systems and "ci" not in kinds and not any(_is_ci(p) for p in paths):
        yield "CI"
    if truth.licenses and "license" not in kinds:
        yield "licence"
    docs = truth.docs_places
    readme = [p for p in paths if p.rsplit("/", 1)[-1].lower().startswith("readme")]
    named_docs = any(p == d or p.startswith(d + "/") for p in paths for d in docs)
    if (docs and not named_docs) or (not docs and not readme):
        yield "docs"


def _is_multi_package(truth: Truth) -> bool:
    counts = truth.package_counts
    return any(
        k in counts
        for k in ("go modules", "workspace members", "cargo crates", "gradle modules", "maven modules")
    )


def _is_ci(path: str) -> bool:
    return any(pattern.search(path) or pattern.search(path + "/") for pattern in CI_SYSTEMS.values())


def _mentions_number(report: str, n: int) -> bool:
    return any(abs(_number(m) - n) <= max(1, n // 100) for m in re.findall(_NUMBER, report))


# the app's claim kinds -> the judge's statement kinds about the same fact (others are not judged)
_SAME_FACT = {
    "license": frozenset({"license"}),
    "path": frozenset({"path", "dependency"}),
    "link": frozenset({"path"}),
    "dependency": frozenset({"dependency", "path"}),
    "language": frozenset({"language", "share"}),
    "number": frozenset({"files", "folder", "dirs", "packages", "dependencies"}),
}


def claim_check_errors(
    claims: Iterable[CheckedClaim], judgement: Judgement, truth: Truth, repo: str
) -> list[str]:
    """Claims the app's check marked contradicted that the judge finds true (by span, else by text)."""
    wrong = []
    for claim in claims:
        if claim.verdict != "contradicted":
            continue
        kinds = _SAME_FACT.get(claim.kind, frozenset())
        near = [
            s
            for s in judgement.statements
            if s.kind in kinds and claim.start >= 0 and s.start < claim.end and claim.start < s.end
        ]
        verdicts: set[bool | None] = {s.verdict for s in near if s.verdict is not None}
        if not near:
            verdicts = {_judge_claim(claim.kind, claim.claim, truth, repo)}
        if verdicts == {True}:
            wrong.append(f"{claim.kind}: {claim.claim}")
    return wrong


def _judge_claim(kind: str, text: str, truth: Truth, repo: str) -> bool | None:
    if kind == "license":
        found = _licenses("license " + text, 0, truth)
        return found[0].verdict if found else None
    if kind in ("path", "dependency"):
        statement = _code_span(
            text, 0, 0, plain="dependency" if kind == "dependency" else "", truth=truth, repo=repo
        )
        return statement.verdict if statement else None
    return None


def names_every_top_folder(judgement: Judgement, truth: Truth) -> tuple[bool, list[str]]:
    """Does the report name each top-level folder (as a path, or a path inside it)? And which not?"""
    named = {s.resolved.split("/", 1)[0] for s in judgement.statements if s.verdict and s.resolved}
    missing = [d for d in truth.top_folders if d not in named]
    return not missing, missing


def about_folder(judgement: Judgement, scope: str, *, same_as_whole: bool) -> bool:
    """A subfolder report is about its folder: not the whole repository's report, names the folder,
    and at least half of the true paths it names are inside it."""
    if same_as_whole:
        return False
    paths = [s.resolved for s in judgement.statements if s.kind == "path" and s.verdict and s.resolved]
    inside = [p for p in paths if p == scope or p.startswith(scope + "/")]
    return bool(inside) and len(inside) >= 0.5 * len(paths)
