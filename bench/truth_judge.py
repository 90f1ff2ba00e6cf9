"""The truth bench's judge: a report held first against a hand-written truth file, then against the
computed :class:`~bench.realrepos_truth.Truth` (paths and counts).

A truth file (``bench/truth/OWNER+NAME.json``, schema in :class:`TruthFile`) is written by reading a
repository's files, never by running the app. :func:`judge_truth` composes the real-repository judge
(:func:`bench.realrepos_judge.judge`) and then lets the truth file decide what it speaks of: languages
(the primary one above all), the licence (an SPDX expression, with ``license-expression``: a true part
of a dual licence is true), package counts per ecosystem ("13 gems", "16 .NET projects"), test
frameworks, the project's own packages called dependencies, names declared nowhere, "no dependency
manifest", "no tests", folders called vendored that are not. :func:`missing_facts` lists the facts
the file says a good report states and this one leaves out. :func:`check_errors` finds the claims the
app's check marked ✗ that the judge finds true.
"""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

import enry
import license_expression

from agent_core.events import CheckedClaim
from bench.realrepos_judge import (
    _DEPENDENCY_WORDS,
    _LICENSE_NAMES,
    _TEST_WORDS,
    Judgement,
    Statement,
    _judge_claim,
    _lines,
    _mask,
    _plain,
    judge,
)
from bench.realrepos_truth import Truth, _read_blobs, is_vendored

_LICENSING = license_expression.get_spdx_licensing()

# ecosystem key -> (how a report names its packages, regex of the nouns counted)
ECOSYSTEMS: dict[str, tuple[str, str]] = {
    "rubygems": ("gems", r"(?:Ruby\s+)?gems?|gemspecs?|RubyGems\s+packages?"),
    "nuget": (".NET projects", r"(?:\.NET|C#|NuGet|MSBuild)\s+projects?|\.?csproj(?:\s+projects?|s)?|NuGet\s+packages?"),
    "composer": ("Composer packages", r"Composer\s+packages?|PHP\s+packages?"),
    "maven": ("Maven modules", r"Maven\s+(?:modules?|projects?)"),
    "gradle": ("Gradle subprojects", r"Gradle\s+(?:modules?|subprojects?|projects?)"),
    "cargo": ("crates", r"(?:Rust\s+|Cargo\s+)?crates?"),
    "go": ("Go modules", r"Go\s+modules?"),
    "npm": ("npm packages", r"(?:npm|JavaScript|TypeScript|pnpm|workspace)\s+packages?"),
    "python": ("Python packages", r"Python\s+(?:packages?|projects?|distributions?)"),
    "cmake": ("CMake projects", r"CMake\s+(?:projects?|targets?)"),
}  # fmt: skip
_ECOSYSTEM_WORD = {
    "rubygems": r"gem|ruby",
    "nuget": r"\.net|nuget|csproj|c#",
    "composer": r"composer|php",
    "maven": r"maven|pom",
    "gradle": r"gradle",
    "cargo": r"crate|cargo|rust",
    "go": r"\bgo\b|module",
    "npm": r"npm|package|workspace",
    "python": r"python|pypi|package",
    "cmake": r"cmake",
}
_COUNT = r"(\d{1,3}(?:,\d{3})+|\d+)"
_ECOSYSTEM_COUNTS = {
    key: re.compile(rf"(?<![\w.]){_COUNT}\s+(?:{nouns})\b", re.I) for key, (_, nouns) in ECOSYSTEMS.items()
}
_ECOSYSTEM_LABELS = {
    "rubygems": r"RubyGems|rubygems|gems", "nuget": r"NuGet|nuget|\.NET", "composer": r"Composer|composer",
    "maven": r"Maven|maven", "gradle": r"Gradle|gradle", "cargo": r"Cargo|cargo|crates", "go": r"Go modules",
    "npm": r"npm", "python": r"PyPI|Python", "cmake": r"CMake",
}  # fmt: skip
# "npm 5", "NuGet: 16", "rubygems (13)": a count after the ecosystem's name, on a line about packages
_LABELLED_COUNTS = {
    key: re.compile(rf"(?<![\w.])(?:{label})\s*[:(（]?\s*{_COUNT}(?![\d.,]\d|\w)")
    for key, label in _ECOSYSTEM_LABELS.items()
}
_PACKAGE_LINE = re.compile(r"packag|modul|project|gems?\b|crates?\b|manifest|包|模块|项目", re.I)
_PRIMARY = re.compile(
    r"primary language|main language|mainly|mostly|written (?:mainly |mostly )?in|主要语言", re.I
)
_NEGATED = re.compile(r"\b(?:no|not|without|isn't|aren't|none|never)\b|没有|未", re.I)
_OWN_WORDS = re.compile(
    r"\bown\b|workspace|member|\bmodules?\b|\bpackages?\b|\bgems?\b|\bcrates?\b|\bdirector(?:y|ies)\b|\bfolders?\b"
    r"|本项目",
    re.I,
)
_NO_MANIFEST = re.compile(r"no (?:dependency |package )?manifests?\b|未(?:发现|找到)(?:依赖)?清单", re.I)
_NO_TESTS = re.compile(
    r"\bno tests?\b|\bwithout tests\b|no test (?:folder|files|suite)|未(?:发现|找到)测试", re.I
)
_SPAN = re.compile(r"`([^`\n]+)`")
_GLOB_COUNT = re.compile(_COUNT + r"\s+`([^`\n]*\*[^`\n]*)`(?:\s+files?\b)?")
_FOLDER_KIND_COUNT = re.compile(_COUNT + r"\s+`([\w.-]+/)`")
_BREAKDOWN = re.compile(r"\(\s*" + _COUNT + r"\s+`[^`\n]+`\s*,")  # "(186 `*_test.go`, 3 `testdata/`)"
_NAMED_TESTS = re.compile(r"[\w]+(?:[.-][\w]+)+|\*\*[^*\n]+\*\*")  # Polly.Testing, okhttp-testing-support
_VENDORED = re.compile(r"\bvendored\b|third[- ]party code|第三方代码", re.I)


@dataclass(frozen=True)
class FolderFacts:
    path: str
    why: str = ""
    files: int = 0
    primary_language: str = ""
    manifest: str = ""
    manifest_is_parent: bool = False
    test_dirs: tuple[str, ...] = ()
    test_frameworks: tuple[str, ...] = ()
    license: str = ""


@dataclass(frozen=True)
class TruthFile:
    """A ``bench/truth/OWNER+NAME.json`` file: what is true of one repository at one commit, by hand."""

    repo: str
    commit: str = ""
    default_branch: str = ""
    shape: str = ""
    license: str = ""
    primary_language: str = ""
    languages: tuple[str, ...] = ()
    ecosystems: dict[str, dict[str, Any]] = field(default_factory=dict)
    own_package_names: tuple[str, ...] = ()
    dependencies: tuple[dict[str, str], ...] = ()
    not_dependencies: tuple[str, ...] = ()
    test_frameworks: tuple[str, ...] = ()
    test_dirs: tuple[str, ...] = ()
    vendored: tuple[str, ...] = ()
    docs: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    fixtures: tuple[str, ...] = ()
    ci: tuple[str, ...] = ()
    files: int = 0
    folders: tuple[FolderFacts, ...] = ()
    key_facts: tuple[str, ...] = ()
    notes: str = ""
    source: str = ""  # the file it was read from

    @classmethod
    def load(cls, path: Path) -> TruthFile:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("repo"), str):
            raise ValueError(f"{path}: not a truth file (no 'repo')")
        known = {f for f in cls.__dataclass_fields__ if f not in ("folders", "source")}
        values: dict[str, Any] = {}
        for key in known:
            if key in data:
                value = data[key]
                values[key] = tuple(value) if isinstance(value, list) else value
        folders = tuple(
            FolderFacts(**_fields(folder, FolderFacts.__dataclass_fields__))
            for folder in data.get("folders", [])
            if isinstance(folder, dict) and folder.get("path")
        )
        return cls(**values, folders=folders, source=str(path))

    def package_count(self, ecosystem: str) -> int:
        return int(self.ecosystems.get(ecosystem, {}).get("packages", 0) or 0)


def _fields(data: dict[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The known fields of a JSON object, lists made tuples."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in set(known)}


def license_keys(expression: str) -> set[str]:
    """The SPDX ids of a licence expression (``MIT OR Apache-2.0`` -> both); a bare name as it is."""
    if not expression.strip():
        return set()
    try:
        return set(_LICENSING.license_keys(_LICENSING.parse(expression)))
    except license_expression.ExpressionError:
        return {expression.strip()}


def _licence_matches(written: str, keys: set[str]) -> bool:
    """A licence as the judge reads it (``Apache-2.0``, ``Apache``, ``BSD``, ``GPL``) names one of ``keys``."""
    return any(k == written or k.startswith(written) or k.startswith(written + "-") for k in keys)


@dataclass(frozen=True)
class Scope:
    """What the truth file says of the run's subject: the whole repository or one of its folders."""

    primary: str
    languages: frozenset[str]
    licence: set[str]
    frameworks: tuple[str, ...]
    test_dirs: tuple[str, ...]
    folder: FolderFacts | None
    shares: dict[str, float] = field(default_factory=dict)  # GitHub's language bar, percent

    @classmethod
    def of(cls, facts: TruthFile, folder: FolderFacts | None, linguist: Mapping[str, int]) -> Scope:
        total = sum(linguist.values()) or 1
        shares = {k: 100.0 * v / total for k, v in linguist.items()}
        if folder is None:
            return cls(
                facts.primary_language,
                frozenset(facts.languages) | {facts.primary_language},
                license_keys(facts.license),
                facts.test_frameworks,
                facts.test_dirs,
                None,
                shares,
            )
        return cls(
            folder.primary_language or facts.primary_language,
            frozenset(facts.languages) | {facts.primary_language, folder.primary_language} - {""},
            license_keys(folder.license or facts.license),
            folder.test_frameworks,
            folder.test_dirs,
            folder,
            shares,
        )


def _framework_names() -> dict[str, str]:
    """Every way a report may write a test framework -> its display name (the app's table of names:
    which name means which framework is no fact about any repository)."""
    from agent_core.report.frameworks import FRAMEWORKS

    names = {}
    for fw in FRAMEWORKS:
        for alias in fw.aliases | {fw.name.lower()}:
            if len(alias) > 3 and alias not in ("testing", "test"):
                names[alias] = fw.name
    return names


_FRAMEWORK_NAMES = _framework_names()
_ENGLISH_WORDS = frozenset({"catch", "pest"})  # frameworks' names that, written in lower case, are words
_FRAMEWORK = re.compile(
    r"(?<![\w.:/-])("
    + "|".join(re.escape(n) for n in sorted(_FRAMEWORK_NAMES, key=len, reverse=True))
    + r")(?![\w-])",
    re.I,
)


def same_framework(written: str, expected: Iterable[str]) -> bool:
    """``JUnit`` is true of ``JUnit 5`` and ``JUnit 4``; ``JUnit 5`` only of itself."""
    name = _FRAMEWORK_NAMES.get(written.lower(), written)
    return any(name == e or e.startswith(name + " ") or name.startswith(e + " ") for e in expected)


_EVERY_MANIFEST = re.compile(
    r"\.(?:gemspec|csproj|fsproj|vbproj|props|targets)$|(?:^|/)(?:Gemfile|gems\.rb|packages\.config|"
    r"CMakeLists\.txt|vcpkg\.json|conanfile\.(?:txt|py)|meson\.build|global\.json|go\.work|composer\.json|"
    r"build\.gradle(?:\.kts)?|libs\.versions\.toml|pom\.xml|package\.json|Cargo\.toml|pyproject\.toml|go\.mod)$"
)
_MAX_MANIFESTS = 3000  # manifests read per repository
_MAX_MANIFEST_BYTES = 1_000_000


@dataclass(frozen=True)
class Manifests:
    """The text of every manifest of every ecosystem in the commit (the computed truth reads fewer kinds):
    a name any of them writes as a whole word is declared somewhere."""

    texts: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, git_dir: Path, truth: Truth, commit: str = "HEAD") -> Manifests:
        paths = [
            p
            for p, size in truth.files.items()
            if _EVERY_MANIFEST.search(p) and size <= _MAX_MANIFEST_BYTES and not is_vendored(p)
        ][:_MAX_MANIFESTS]
        return cls(_read_blobs(git_dir, commit, paths))

    def declares(self, name: str) -> bool:
        pattern = re.compile(rf"(?<![\w.@/-]){re.escape(name)}(?![\w-])", re.I)
        return any(pattern.search(text) for text in self.texts.values())


def judge_truth(
    report: str,
    facts: TruthFile,
    truth: Truth,
    folder: FolderFacts | None = None,
    *,
    manifests: Manifests | None = None,
    linguist: Mapping[str, int] | None = None,
) -> Judgement:
    """Every checkable statement of ``report``, judged by the truth file first, and the key facts it misses.
    ``manifests``: every manifest's text (names declared anywhere); ``linguist``: the bytes per language
    GitHub's language bar shows (shares quoted from it are true)."""
    manifests = manifests or Manifests()
    scope = Scope.of(facts, folder, linguist or {})
    report = _unescaped(report)
    base = judge(report, truth, facts.repo)
    masked = _mask(report)
    taken = {s.start for s in base.statements if s.kind == "dependency"}
    added = list(_added(masked, facts, scope, truth, taken))
    counted = [(s.start, s.end) for s in added if s.kind == "ecosystem count"]
    statements = [
        _rejudge(s, masked, facts, scope, truth=truth, manifests=manifests)
        for s in base.statements
        if not (s.kind == "packages" and any(a < s.end and s.start < b for a, b in counted))
    ]
    statements += added
    statements.sort(key=lambda s: (s.start, s.kind))
    return Judgement(
        statements=tuple(statements), missing=tuple(missing_facts(report, statements, facts, scope))
    )


def _unescaped(report: str) -> str:
    """Markdown's escapes read as the characters they show (``C\\#`` is "C#"), offsets kept."""
    return re.sub(r"\\([#*_`|<>\[\]()!+-])", lambda m: m.group(1) + " ", report)


def _line_of(masked: str, at: int) -> str:
    start = masked.rfind("\n", 0, at) + 1
    end = masked.find("\n", at)
    return masked[start : end if end >= 0 else len(masked)]


def _rejudge(
    s: Statement, masked: str, facts: TruthFile, scope: Scope, *, truth: Truth, manifests: Manifests
) -> Statement:
    raw = _line_of(masked, s.start)
    rule = _RULES.get(s.kind)
    paragraph = masked[masked.rfind("\n\n", 0, s.start) + 2 : s.start]
    whole = bool(_WHOLE.search(paragraph.split("\n", 1)[0]) or _WHOLE_LINE.search(raw))
    verdict = rule(s, _Line(raw, _plain(raw), facts, scope, truth, manifests, whole)) if rule else _KEEP
    return s if verdict is _KEEP else replace(s, verdict=verdict)


_KEEP: Any = object()  # a rule's answer: the real-repository judge's verdict stands


@dataclass(frozen=True)
class _Line:
    """A statement's line (``raw``; ``line`` without code spans and links) and what is true."""

    raw: str
    line: str
    facts: TruthFile
    scope: Scope
    truth: Truth
    manifests: Manifests
    whole: bool = (
        False  # a folder's report speaking of the whole repository ("Of the repository … as a whole")
    )


def _language(s: Statement, at: _Line) -> Any:
    line, facts, scope = at.line, at.facts, at.scope
    if any(k.startswith(s.text + " ") and k in line for k in scope.shares):
        return True  # "Go" of "Go Template 0.1%": a language of GitHub's bar
    if _PRIMARY.search(line) and not _NEGATED.search(line):
        return s.text in {scope.primary, facts.primary_language}
    return True if s.text in scope.languages or scope.shares.get(s.text, 0.0) >= 2.0 else _KEEP


_WHOLE = re.compile(r"as a whole|整体|整个仓库")  # the head of a block about the whole repository
_WHOLE_LINE = re.compile(r"\b[Tt]he repository declares|仓库声明")


def _licence(s: Statement, at: _Line) -> Any:
    keys = license_keys(at.facts.license) if at.whole and at.scope.folder is not None else at.scope.licence
    if not keys:
        return _KEEP
    spdx = next((name for pattern, name in _LICENSE_NAMES if pattern.fullmatch(s.text)), None)
    return _licence_matches(spdx, keys) if spdx is not None else False  # else "no licence"


def _dependency(s: Statement, at: _Line) -> Any:
    line, facts = at.line, at.facts
    name = s.text.lower()
    if name in {n.lower() for n in facts.not_dependencies}:
        return False
    if name in own_names(facts, at.scope):
        return not _calls_dependency(line)  # the project's own package called its dependency: false
    if name in {str(d.get("name", "")).lower() for d in facts.dependencies}:
        return True
    if s.verdict is False and at.manifests.declares(name):
        return True  # declared in a manifest the computed truth does not read (a gemspec, a .csproj...)
    return _KEEP


def own_names(facts: TruthFile, scope: Scope) -> set[str]:
    """The names a report must not call dependencies: every package of the repository; in a folder's
    report, the folder's own package only (a sibling of the workspace is a dependency of the folder)."""
    names = {n.lower() for n in facts.own_package_names}
    if scope.folder is None:
        return names
    folder = scope.folder
    stems = {folder.path.rstrip("/").rsplit("/", 1)[-1].lower()}
    if folder.manifest and not folder.manifest_is_parent:
        stems.add(PurePosixPath(folder.manifest).stem.lower())
    return names & stems


def _calls_dependency(line: str) -> bool:
    return bool(_DEPENDENCY_WORDS.search(line)) and not _OWN_WORDS.search(line)


def _packages(s: Statement, at: _Line) -> Any:
    raw, line, facts = at.raw, at.line, at.facts
    m = re.match(r"\D*" + _COUNT, s.text)
    if not facts.ecosystems or not m:
        return _KEEP
    n = int(m.group(1).replace(",", ""))
    listed = _MEMBERS.search(raw)
    if listed and int(listed.group(1)) == n:
        items = _SPAN.findall(listed.group(2))
        if len(items) == n and any("*" in i for i in items):
            return None  # "workspace members (4): `packages/*`, ...": the patterns, counted
        home = _SPAN.search(raw)
        base = home.group(1).rsplit("/", 1)[0] if home and "/" in home.group(1) else ""
        found = [at.truth.resolve(f"{base}/{i}" if base else i) or at.truth.resolve(i) for i in items]
        if len(items) == n and all(found):
            return True  # one manifest's members, each a folder of the repository
    if n in _fair_counts(facts):
        return True  # a count of the repository's packages, in its report or a folder's
    if s.verdict is not False:
        return _KEEP
    if _TEST_WORDS.search(line):
        return None  # "tests across 19 packages": the packages holding tests, no fact of the file
    # the computed truth counts no gemspec, .csproj, composer.json or CMake project: it cannot say false
    return None if set(facts.ecosystems) & _UNCOUNTED else _KEEP


_UNCOUNTED = frozenset({"rubygems", "nuget", "composer", "cmake"})
_MEMBERS = re.compile(r"members\s*\((\d+)\)\s*:\s*((?:`[^`\n]+`(?:,\s*|\s+and\s+)?)+)")


def _dirs(s: Statement, at: _Line) -> Any:
    """ "139 files in 0 folders" of a folder with no subfolder is true."""
    truth = at.truth
    m = re.search(_COUNT + r"\s+(?:folders|directories)", s.text)
    if s.verdict is False and truth.scope and m:
        inside = sum(1 for d in truth.dirs if d.startswith(truth.scope + "/"))
        return int(m.group(1).replace(",", "")) == inside or _KEEP
    return _KEEP


def _tests(s: Statement, at: _Line) -> Any:
    raw, line, scope, truth = at.raw, at.line, at.scope, at.truth
    if _NO_TESTS.search(line):
        return not scope.test_dirs
    if s.verdict is True:
        return _KEEP
    if not _TEST_WORDS.search(_NAMED_TESTS.sub(" ", line)):
        return None  # "tests" only inside a name (``Polly.Testing``, **okhttp-testing-support**)
    if _GLOB_COUNT.search(raw) or _FOLDER_KIND_COUNT.search(raw):
        verdict = _glob_counts(raw, truth)
        if verdict is not None:
            return verdict
    named = [r for r in (truth.resolve(m.group(1)) for m in _SPAN.finditer(raw)) if r]
    if any(_under_any(p, scope.test_dirs) or _under_any(t, [p]) for p in named for t in scope.test_dirs):
        return True
    return _KEEP


def _share(s: Statement, at: _Line) -> Any:
    """ "C++ 94.8%": true within 10 points of GitHub's language bar (the repository's whole)."""
    m = re.match(r"(.+?)\s+(\d+(?:\.\d+)?)\s*%", s.text)
    if m and m.group(1) in at.scope.shares and abs(at.scope.shares[m.group(1)] - float(m.group(2))) <= 10:
        return True
    return _KEEP


def _path(s: Statement, at: _Line) -> Any:
    """A name no file has, declared by a manifest the computed truth does not read: a package's name."""
    if s.verdict is False and (s.text == at.facts.default_branch or re.search(r"\bbranch", at.line, re.I)):
        return None  # "Default branch: `v1.x`": a branch, not a path
    return True if s.verdict is False and at.manifests.declares(s.text) else _KEEP


_COUNTED = re.compile(
    r"(?:^|/)(?:package\.json|go\.mod|Cargo\.toml|pyproject\.toml|setup\.(?:py|cfg)|requirements[^/`]*)[`)\]]"
)
_LOCAL = re.compile(r"^(?:file|link|workspace|portal):")


def _dependencies(s: Statement, at: _Line) -> Any:
    """A count of one manifest's dependencies: also true without the repository's own packages and local
    paths (``file:``, ``path =``, ``workspace:``); undecided for a manifest the computed truth does not
    count (a Gradle build, a gemspec, a .csproj, a pom)."""
    if s.verdict is not False:
        return _KEEP
    if not _COUNTED.search(at.raw):
        return None
    n = re.search(_COUNT, s.text)
    own = set(at.facts.own_package_names)
    for path in _MANIFEST_SPAN.findall(at.raw):
        resolved = at.truth.resolve(path) or path.lstrip("./")
        text = at.truth.texts.get(resolved) or at.manifests.texts.get(resolved, "")
        if n and int(n.group(1).replace(",", "")) in counts_without_own(resolved, text, own):
            return True
    return _KEEP


_MANIFEST_SPAN = re.compile(r"`([^`\n]*(?:package\.json|Cargo\.toml|pyproject\.toml|go\.mod))`")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.strip().lower())


def counts_without_own(path: str, text: str, own: set[str]) -> set[int]:
    """Every count of a manifest's dependency groups (each, and all), the repository's own packages and
    local paths left out."""
    groups: list[list[str]] = []
    name = path.rsplit("/", 1)[-1]
    if name == "package.json":
        groups = _json_groups(text)
    elif name in ("Cargo.toml", "pyproject.toml"):
        groups = _toml_groups(text)
    elif name == "go.mod":
        lines = re.findall(r"^\s*(?:require\s+)?([\w.-]+\.[\w.-]+/\S*)\s+v\S+(.*)$", text, re.M)
        groups = [
            [m for m, rest in lines if "// indirect" not in rest],
            [m for m, rest in lines if "// indirect" in rest],
        ]
    mine = {_norm(x) for x in own}
    unique = [list(dict.fromkeys(g)) for g in groups]  # a name under several platforms' tables, once
    counts: set[int] = set()
    for sizes in ([len(g) for g in unique], [sum(1 for d in g if _norm(d) not in mine) for g in unique]):
        counts |= set(sizes) | {sum(sizes)}
    return counts


def _json_groups(text: str) -> list[list[str]]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    return [
        [k for k, v in data[key].items() if not (isinstance(v, str) and _LOCAL.match(v))]
        for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
        if isinstance(data.get(key), dict)
    ]


def _toml_groups(text: str) -> list[list[str]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    lists: list[Any] = [
        project.get("dependencies"),
        *dict(project.get("optional-dependencies") or {}).values(),
    ]
    lists += list(dict(data.get("dependency-groups") or {}).values())
    hooks = dict(dict(dict(data.get("tool") or {}).get("hatch") or {}).get("metadata") or {}).get("hooks")
    for hook in dict(hooks or {}).values():  # dynamic metadata a Hatch hook fills in
        if isinstance(hook, dict):
            lists += [hook.get("dependencies"), *dict(hook.get("optional-dependencies") or {}).values()]
    groups = [
        [re.split(r"[\s\[<>=!~;(]", str(d), maxsplit=1)[0] for d in g if isinstance(d, str)]
        for g in lists
        if isinstance(g, list)
    ]
    for key in ("dependencies", "dev-dependencies", "build-dependencies"):
        tables = [data.get(key)] + [
            t.get(key) for t in dict(data.get("target") or {}).values() if isinstance(t, dict)
        ]
        names = [k for table in tables if isinstance(table, dict) for k in table]
        groups.append(names)
    return [g for g in groups if g]


_RULES = {
    "share": _share,
    "path": _path,
    "dependencies": _dependencies,
    "language": _language,
    "license": _licence,
    "dependency": _dependency,
    "packages": _packages,
    "tests": _tests,
    "dirs": _dirs,
}


def _glob_counts(line: str, truth: Truth) -> bool | None:
    """ "16 `*_spec.rb` files": each count of files named by a pattern holds in the scope (its own files)."""
    verdicts = []
    for m in _GLOB_COUNT.finditer(line):
        glob = m.group(2).strip()
        if len(glob) > 40 or "/" in glob:
            continue
        n = sum(1 for p in truth.own_files if fnmatch.fnmatchcase(p.rsplit("/", 1)[-1], glob))
        said = int(m.group(1).replace(",", ""))
        verdicts.append(said == n or (_BREAKDOWN.search(line) is not None and 0 < said <= n))
    for m in _FOLDER_KIND_COUNT.finditer(line):  # "28 `test/`": files under folders of that name
        name = m.group(2).strip("/")
        n = sum(1 for p in truth.own_files if f"/{name}/" in f"/{p}")
        said = int(m.group(1).replace(",", ""))
        verdicts.append(0 < said <= n)
    return all(verdicts) if verdicts else None


def _under_any(path: str, folders: Iterable[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _added(masked: str, facts: TruthFile, scope: Scope, truth: Truth, taken: set[int]) -> Iterator[Statement]:
    """Statements the real-repository judge does not read: counts per ecosystem, test frameworks,
    "no dependency manifest", folders called vendored."""
    for at, line in _lines(masked):
        if not line.strip():
            continue
        plain = _plain(line)
        if scope.folder is None:
            yield from _ecosystem_counts(plain, at, facts)
        if _TEST_WORDS.search(plain) or re.search(r"framework|框架", plain, re.I):
            negated = bool(_NEGATED.search(plain))
            for m in _FRAMEWORK.finditer(plain):
                if m.group(1) in _ENGLISH_WORDS:
                    continue  # "testing to catch bugs early": the verb, not Catch2
                everywhere = (*scope.frameworks, *facts.test_frameworks)
                verdict = True if same_framework(m.group(1), everywhere) else None if negated else False
                yield Statement("framework", m.group(1), at + m.start(1), at + m.end(1), verdict)
        own = own_names(facts, scope)
        if own and _calls_dependency(plain):
            for m in _SPAN.finditer(line):
                if m.group(1).strip().lower() in own and (at + m.start()) not in taken:
                    yield Statement("dependency", m.group(1).strip(), at + m.start(), at + m.end(), False)
        for m in _NO_MANIFEST.finditer(plain):
            yield Statement("manifest", m.group(0), at + m.start(), at + m.end(), not facts.ecosystems)
        if _VENDORED.search(plain) and not _NEGATED.search(plain):
            yield from _vendored(line, at, facts, truth)


def _ecosystem_counts(plain: str, at: int, facts: TruthFile) -> Iterator[Statement]:
    for key, pattern in _ECOSYSTEM_COUNTS.items():
        for m in pattern.finditer(plain):
            yield _ecosystem_count(key, m, at, facts, plain)
    if _PACKAGE_LINE.search(plain):
        for key, pattern in _LABELLED_COUNTS.items():
            for m in pattern.finditer(plain):
                if not any(p.search(plain, m.start(), m.end()) for p in _ECOSYSTEM_COUNTS.values()):
                    yield _ecosystem_count(key, m, at, facts, plain)


def _vendored(line: str, at: int, facts: TruthFile, truth: Truth) -> Iterator[Statement]:
    """Folders a line calls vendored (or says hold vendored files): true when the truth file's vendored
    folders meet them, or when Linguist calls a file inside them vendored, except files of the truth
    file's fixtures and tests, and dependencies installed inside its examples (``node_modules``):
    test data and examples, never third-party code of the project."""
    for m in _SPAN.finditer(line):
        resolved = truth.resolve(m.group(1))
        if resolved is None or resolved not in truth.dirs:
            continue
        if _under_any(resolved, facts.vendored) or any(_under_any(v, [resolved]) for v in facts.vendored):
            verdict = True
        else:
            prefix = resolved + "/"
            verdict = any(
                enry.is_vendor(p) and not _test_data(p, facts) for p in truth.files if p.startswith(prefix)
            )
        yield Statement("vendored", m.group(1), at + m.start(), at + m.end(), verdict)


def _test_data(path: str, facts: TruthFile) -> bool:
    if _under_any(path, (*facts.fixtures, *facts.test_dirs)):
        return True
    return _under_any(path, facts.examples) and "/node_modules/" in f"/{path}"


def _fair_counts(facts: TruthFile) -> set[int]:
    """Each fair count of the repository's packages: per ecosystem (all, without or only test projects)
    and over all ecosystems."""
    counts: set[int] = set()
    for eco in facts.ecosystems.values():
        total = int(eco.get("packages", 0) or 0)
        tests = int(eco.get("test_packages", 0) or 0)
        counts |= {total, total - tests, tests}
        counts |= {int(n) for n in eco.get("packages_accepted", []) if isinstance(n, int)}
    counts.add(sum(int(e.get("packages", 0) or 0) for e in facts.ecosystems.values()))
    return counts - {0}


def _ecosystem_count(key: str, m: re.Match[str], at: int, facts: TruthFile, plain: str = "") -> Statement:
    n = int(m.group(1).replace(",", ""))
    eco = facts.ecosystems.get(key, {})
    total = int(eco.get("packages", 0) or 0)
    tests = int(eco.get("test_packages", 0) or 0)
    accepted = {int(n) for n in eco.get("packages_accepted", []) if isinstance(n, int)}
    fair = ({total, total - tests, tests} | accepted) - {0} if total else set()
    verdict: bool | None = n in fair if fair or not facts.ecosystems else False
    if verdict is False and fair and _says_its_scope(n, plain[m.end() :].split(";", 1)[0], eco, facts, fair):
        verdict = True
    if key == "npm" and not eco and re.search(r"workspace|package", m.group(0), re.I) and facts.ecosystems:
        verdict = None  # "3 workspace packages" of another ecosystem: the words do not say which
    return Statement("ecosystem count", m.group(0), at + m.start(), at + m.end(), verdict)


_OR_IF = re.compile(r"^[^,]*?,\s*or (?:up to )?" + _COUNT + r" if\b")
_LEFT_OUT = re.compile(r"\bnot counting\b(.*)")
_IN_EXAMPLES = re.compile(_COUNT + r" in examples\b")
_IN_TEST_DATA = re.compile(_COUNT + r" in test data\b")


def _says_its_scope(n: int, tail: str, eco: Mapping[str, Any], facts: TruthFile, fair: set[int]) -> bool:
    """A count that says what it leaves open or out, right after it (up to the next ";"): "9 Python
    projects, or 10 if `python/pyproject.toml` (unread) declares a package besides its workspace" is true
    when either is; "47 .NET projects, not counting 17 in examples" (or "1 in test data") when the parts
    add up to the truth file's count and each part is the number of the ecosystem's manifests the file
    lists under its ``examples`` (``fixtures``)."""
    alternative = _OR_IF.match(tail)
    if alternative and int(alternative.group(1).replace(",", "")) in fair:
        return True
    left_out = _LEFT_OUT.search(tail)
    if not left_out:
        return False
    manifests = [str(p) for p in eco.get("manifests", [])]
    parts = 0
    for pattern, folders in ((_IN_EXAMPLES, facts.examples), (_IN_TEST_DATA, facts.fixtures)):
        said = pattern.search(left_out.group(1))
        if said:
            k = int(said.group(1).replace(",", ""))
            if k != sum(1 for p in manifests if _under_any(p, folders)):
                return False
            parts += k
    return bool(parts) and n + parts in fair


def missing_facts(report: str, statements: list[Statement], facts: TruthFile, scope: Scope) -> Iterator[str]:
    """The facts the truth file says a good report states (language, licence, packages per ecosystem,
    test frameworks and folders, the file's key facts) that this report leaves out."""
    masked = _mask(report)
    true = [s for s in statements if s.verdict]
    if scope.primary and not re.search(rf"(?<![\w+#]){re.escape(scope.primary)}(?![\w+#])", masked):
        yield f"language: {scope.primary}"
    if scope.licence and not any(s.kind == "license" for s in true):
        yield f"licence: {' OR '.join(sorted(scope.licence))}"
    if scope.folder is None:
        yield from _missing_counts(masked, true, facts)
    for fw in scope.frameworks:
        if not any(s.kind == "framework" and same_framework(s.text, [fw]) for s in true):
            yield f"test framework: {fw}"
    paths = [s.resolved for s in true if s.kind == "path" and s.resolved]
    dirs = scope.test_dirs
    if dirs and not any(_under_any(p, dirs) or _under_any(t, [p]) for p in paths for t in dirs):
        yield "test folders"
    if scope.folder is None:
        yield from (f"key fact: {fact}" for fact in facts.key_facts if not states(masked, fact))


def _missing_counts(masked: str, true: list[Statement], facts: TruthFile) -> Iterator[str]:
    for key, eco in facts.ecosystems.items():
        n = int(eco.get("packages", 0) or 0)
        nouns = ECOSYSTEMS.get(key, (key, re.escape(key)))
        said = any(s.kind == "ecosystem count" and re.search(nouns[1], s.text, re.I) for s in true)
        if n >= 2 and not said and not _number_near(masked, n, _ECOSYSTEM_WORD.get(key, key)):
            yield f"packages: {n} {nouns[0]}"


_STOP = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "from", "in", "is", "it", "its", "of", "on", "or", "the", "to",
     "with", "uses", "use", "using", "depends", "depend"}
)  # fmt: skip
_TOKEN = re.compile(r"[\w+#][\w.+#/-]*[\w+#]|[\w+#]")
_COUNT_PHRASE = re.compile(r"^(\d[\d,]*)\s+([\w. -]+)$")


def states(text: str, fact: str) -> bool:
    """The report states a key fact: the phrase itself; for a count (``13 gems``), the number on a
    line with the noun; else every word of it that carries meaning (names, numbers, versions)."""
    flat = " ".join(text.split()).lower()
    phrase = " ".join(fact.split()).lower()
    if phrase in flat or phrase.replace(",", "") in flat.replace(",", ""):
        return True
    count = _COUNT_PHRASE.match(phrase)
    if count:
        noun = count.group(2).strip().rstrip("s")
        return _number_near(text, int(count.group(1).replace(",", "")), re.escape(noun))
    words = {w for w in _TOKEN.findall(phrase) if w not in _STOP}
    present = {w.lower() for w in _TOKEN.findall(text)}
    return bool(words) and words <= present


def _number_near(text: str, n: int, words: str) -> bool:
    """``n`` is written beside a word of its ecosystem: ``13 gems``, ``13 Ruby gems``, ``rubygems 13``,
    ``npm (5)``."""
    number = rf"(?<![\d.,])(?:{n:,}|{n})(?!\d|[.,]\d)"
    after = re.compile(rf"{number}\s+(?:[\w.+#-]+\s+)?(?:{words})", re.I)
    before = re.compile(rf"(?:{words})\w*\s*[:(（]?\s*{number}", re.I)
    return any(after.search(line) or before.search(line) for line in text.splitlines())


# the app's claim kinds -> the judge's statement kinds about the same fact (others are not judged)
_SAME_FACT = {
    "license": frozenset({"license"}),
    "path": frozenset({"path", "dependency"}),
    "link": frozenset({"path"}),
    "dependency": frozenset({"dependency", "path"}),
    "package": frozenset({"dependency", "path"}),
    "language": frozenset({"language", "share"}),
    "number": frozenset({"files", "folder", "dirs", "packages", "dependencies", "ecosystem count"}),
    "framework": frozenset({"framework"}),
    "test_framework": frozenset({"framework"}),
}


def check_errors(claims: Iterable[CheckedClaim], judgement: Judgement, truth: Truth, repo: str) -> list[str]:
    """Claims the app's check marked ✗ that the judge finds true (by span, else by the claim's text)."""
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
