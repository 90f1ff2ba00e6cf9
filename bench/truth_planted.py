"""Planted-claims reports: true statements and planted falsehoods, made from a truth file, for the
app's real claim check (fed as a scripted model's report).

:func:`planted_report` writes one Markdown report per repository. Every statement stands on its own
line and knows whether it is true and, for a planted falsehood, which words are false (``focus``): the
bench counts a falsehood caught when the check marks a claim ✗ over those words, and a true statement
wrong when the check marks anything ✗ on its line. The falsehoods, one category each:

- a dependency's version outside the constraint its manifest writes (:func:`outside_version`);
- a test framework of the same ecosystem that no manifest declares;
- invented paths, in a fenced code block and in inline code (next to real ones);
- a licence that is no part of the repository's licence expression;
- a primary language the repository has (almost) no code in;
- a package count per ecosystem far from the true one;
- a name declared nowhere, called a dependency.

A folder URL gets its own (:func:`folder_planted_report`): the folder's language, manifest, tests and
licence as true statements; a wrong version of a dependency its manifest declares, a framework the
repository declares nowhere, invented paths inside the folder, a wrong licence, a language the folder
has no code in, and names declared nowhere, as falsehoods.

The true statements: the primary language, the licence expression, package counts, test frameworks and
folders, manifests, dependencies with the constraint as written, the project's own package names said
to be its own, real paths inside a fenced block, and commands the repository's files support
(``vendor/bin/phpunit``, ``./gradlew test``...).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agent_core.report.frameworks import FRAMEWORKS, framework_of
from bench.realrepos_truth import Truth
from bench.truth_judge import ECOSYSTEMS, FolderFacts, TruthFile, license_keys, same_framework

_LANGUAGES = ("Python", "Go", "Rust", "Java", "Ruby", "PHP", "C#", "TypeScript", "C++", "Kotlin", "Haskell")
_LICENCES = ("GPL-3.0", "Apache-2.0", "MIT", "BSD-3-Clause", "MPL-2.0")
_EXTENSION = {
    "Ruby": ".rb", "C#": ".cs", "PHP": ".php", "Java": ".java", "Kotlin": ".kt", "C++": ".cpp", "C": ".c",
    "Rust": ".rs", "Go": ".go", "TypeScript": ".ts", "JavaScript": ".js", "Python": ".py",
}  # fmt: skip
_OTHER_FRAMEWORKS = ("TestNG", "Spock", "Kotest", "NUnit", "MSTest", "xUnit", "RSpec", "Minitest", "Pest",
                     "Codeception", "Catch2", "doctest", "GoogleTest", "Mocha", "Jest", "Vitest", "pytest")  # fmt: skip


@dataclass(frozen=True)
class Planted:
    category: str
    text: str  # the statement's line as written in the report
    true: bool
    focus: str = ""  # the false words inside ``text`` (a planted falsehood)


@dataclass(frozen=True)
class PlantedReport:
    text: str
    statements: tuple[Planted, ...]


def outside_version(constraint: str) -> str | None:
    """A version no reading of ``constraint`` allows: below its lowest bound, or far above an upper-only
    bound (``< 2``); None when the constraint names no version (``*``, ``workspace:*``, ``${v}``)."""
    text = constraint.strip()
    if not text or re.search(r"[$*@:/]|\bx\b|latest|git|http", text, re.I):
        return None
    found = re.findall(r"\d+(?:\.\d+){0,3}", text)
    if not found:
        return None
    versions = sorted((*(int(p) for p in v.split(".")), 0, 0) for v in found)
    prefix = "v" if text.startswith("v") else ""
    if re.fullmatch(r"<=?\s*v?[\d.]+", text):
        return f"{prefix}{versions[-1][0] + 10}.0.0"
    major, minor = versions[0][0], versions[0][1]
    if major >= 2:
        return f"{prefix}{major - 1}.0.0"
    if major == 1:
        return f"{prefix}0.9.0"
    if minor >= 2:
        return f"{prefix}0.{minor - 1}.0"
    if versions[0][:3] > (0, 0, 1):
        return f"{prefix}0.0.1"
    return None


def _wrong_framework(facts: TruthFile, truth: Truth) -> str | None:
    """A test framework of the repository's ecosystem (else any) that no manifest of it declares."""
    have = [framework_of(f) for f in facts.test_frameworks]
    ecosystems = {fw.ecosystem for fw in have if fw is not None} | {
        "maven" if key == "gradle" else key for key in facts.ecosystems
    }
    candidates = [fw for fw in FRAMEWORKS if fw.ecosystem in ecosystems] + [
        fw for name in _OTHER_FRAMEWORKS if (fw := framework_of(name)) is not None
    ]
    for fw in candidates:
        if same_framework(fw.name, facts.test_frameworks) or fw.name in ("testing", "unittest", "JUnit"):
            continue
        if any(truth.declares(p.rsplit(":", 1)[-1]) for p in fw.packages) or not fw.packages:
            continue
        return fw.name
    return None


def _invented(folder: str, stem: str, ext: str, truth: Truth) -> str:
    base = f"{folder.strip('/')}/" if folder.strip("/") else ""
    for n in range(100):
        path = f"{base}{stem}{n or ''}{ext}"
        if not truth.exists(path) and not truth.exists_deeper(path.rsplit("/", 1)[-1]):
            return path
    return f"{base}{stem}-absent{ext}"


def planted_report(facts: TruthFile, truth: Truth) -> PlantedReport:
    """The planted-claims report of ``facts``' repository (see the module docstring)."""
    manifests = [m for eco in facts.ecosystems.values() for m in eco.get("manifests", [])]
    statements = [*_true_statements(facts, truth, manifests), *_false_statements(facts, truth, manifests)]
    fence = _fence(facts, truth, manifests)
    lines = [f"# {facts.repo}", "", f"{facts.shape or 'A repository'}.", ""]
    lines += [s.text for s in statements]
    lines += ["", "The layout:", "", "```text", *(s.text for s in fence), "```", ""]
    return PlantedReport(text="\n".join(lines), statements=(*statements, *fence))


def _true_statements(facts: TruthFile, truth: Truth, manifests: list[str]) -> Iterator[Planted]:
    if facts.primary_language:
        yield Planted("language", f"- The primary language is {facts.primary_language}.", True)
    if facts.license:
        yield Planted("licence", f"- It is licensed under {facts.license}.", True)
    keys = sorted(license_keys(facts.license))
    if len(keys) > 1:  # a true part of a dual licence is true
        yield Planted("licence (part)", f"- It may be used under the {keys[0]} license.", True)
    for key, eco in facts.ecosystems.items():
        n = int(eco.get("packages", 0) or 0)
        if n >= 2 and key in ECOSYSTEMS:
            yield Planted("package count", f"- The repository defines {n} {ECOSYSTEMS[key][0]}.", True)
    for fw in facts.test_frameworks:
        yield Planted("test framework", f"- The tests use {fw}.", True)
    for folder in facts.test_dirs[:3]:
        yield Planted("test folder", f"- Tests live in `{folder.rstrip('/')}/`.", True)
    for manifest in manifests[:3]:
        yield Planted("manifest", f"- `{manifest}` is a manifest of the project.", True)
    for dep in [d for d in facts.dependencies if d.get("name")][:4]:
        constraint = str(dep.get("constraint") or "").strip()
        written = f" ({constraint})" if constraint else ""
        yield Planted("dependency", f"- It depends on `{dep['name']}`{written}.", True)
    for name in facts.own_package_names[:3]:
        yield Planted(
            "own package", f"- `{name}` is one of the project's own packages, not a dependency.", True
        )
    for command in _commands(facts, truth):
        yield Planted("command", f"- Run the tests with `{command}`.", True)


def _false(category: str, text: str, focus: str) -> Planted:
    return Planted(category, text, False, focus)


def _false_statements(facts: TruthFile, truth: Truth, manifests: list[str]) -> Iterator[Planted]:
    versions = [
        (d["name"], wrong)
        for d in facts.dependencies
        if d.get("name") and (wrong := outside_version(str(d.get("constraint") or ""))) is not None
    ]
    for n, (name, wrong) in enumerate(versions[:2]):
        text = f"- It depends on `{name}` version {wrong}." if n == 0 else f"- `{name}` {wrong} is required."
        yield _false("wrong version", text, wrong)
    wrong_fw = _wrong_framework(facts, truth)
    if wrong_fw:
        yield _false("wrong test framework", f"- The tests are written with {wrong_fw}.", wrong_fw)
    home = manifests[0].rsplit("/", 1)[0] if manifests and "/" in manifests[0] else ""
    inline = _invented(home, "hyperdrive", _EXTENSION.get(facts.primary_language, ".txt"), truth)
    yield _false("invented path (inline)", f"- The entry point is `{inline}`.", inline)
    keys = license_keys(facts.license)
    wrong_licence = next((x for x in _LICENCES if x not in keys and x not in truth.licenses), None)
    if facts.license and wrong_licence:
        text = f"- The project is released under the {wrong_licence} license."
        yield _false("wrong licence", text, wrong_licence)
    shares = truth.language_shares(own=False)
    wrong_language = next(
        (
            x
            for x in _LANGUAGES
            if x not in facts.languages and x != facts.primary_language and shares.get(x, 0.0) < 1.0
        ),
        None,
    )
    if facts.primary_language and wrong_language:
        yield _false("wrong primary language", f"- It is written mainly in {wrong_language}.", wrong_language)
    for key, eco in facts.ecosystems.items():
        n = int(eco.get("packages", 0) or 0)
        if n >= 1 and key in ECOSYSTEMS:
            wrong_n = str(n * 2 + 5)
            yield _false("wrong package count", f"- It is made of {wrong_n} {ECOSYSTEMS[key][0]}.", wrong_n)
    for name in facts.not_dependencies[:2]:
        yield _false("not a dependency", f"- It depends on `{name}`.", name)


def _fence(facts: TruthFile, truth: Truth, manifests: list[str]) -> list[Planted]:
    """A fenced block of paths: real ones (true) and invented ones (planted)."""
    ext = _EXTENSION.get(facts.primary_language, ".txt")
    home = manifests[0].rsplit("/", 1)[0] if manifests and "/" in manifests[0] else ""
    invented = [
        _invented(home, "flux_capacitor", ext, truth),
        _invented((facts.test_dirs or ("",))[0], "quantum_entangler_test", ext, truth),
    ]
    real = [*manifests[:2], *(f"{d.rstrip('/')}/" for d in facts.test_dirs[:1])]
    return [Planted("fenced path", p, True) for p in real] + [
        _false("invented path (fenced)", p, p) for p in invented
    ]


def _commands(facts: TruthFile, truth: Truth) -> list[str]:
    """Test commands the repository's own files support."""
    found = []
    if "composer" in facts.ecosystems and any(same_framework("PHPUnit", [f]) for f in facts.test_frameworks):
        found.append("vendor/bin/phpunit")
    if "gradlew" in truth.files:
        found.append("./gradlew test")
    if "nuget" in facts.ecosystems:
        found.append("dotnet test")
    if "cargo" in facts.ecosystems:
        found.append("cargo test --workspace")
    return found


def folder_planted_report(
    facts: TruthFile, folder: FolderFacts, truth: Truth, named: Callable[[str], bool] = lambda _: False
) -> PlantedReport:
    """The planted-claims report of one folder URL of ``facts``' repository (see the module docstring).
    ``named``: whether a file of the folder names a word (a name its tests require, though no manifest
    declares it, is no planted falsehood)."""
    base = folder.path.strip("/")
    ext = _EXTENSION.get(folder.primary_language or facts.primary_language, ".txt")
    tests = [d.rstrip("/") for d in folder.test_dirs]
    true: list[Planted] = []
    if folder.primary_language:
        true.append(
            Planted("language", f"- The folder is written mainly in {folder.primary_language}.", True)
        )
    if folder.license:
        true.append(Planted("licence", f"- It is licensed under {folder.license}.", True))
    if folder.manifest:
        true.append(Planted("manifest", f"- `{folder.manifest}` is its manifest.", True))
    true += [Planted("test folder", f"- Its tests live in `{d}/`.", True) for d in tests[:2]]
    true += [Planted("test framework", f"- The tests use {fw}.", True) for fw in folder.test_frameworks]
    false: list[Planted] = []
    own = [d for d in facts.dependencies if folder.manifest and d.get("manifest") == folder.manifest]
    for d in own:
        wrong = outside_version(str(d.get("constraint") or ""))
        if d.get("name") and wrong is not None:
            false.append(_false("wrong version", f"- It depends on `{d['name']}` version {wrong}.", wrong))
            break
    wrong_fw = _wrong_framework(facts, truth)
    if wrong_fw and folder.test_frameworks:
        false.append(_false("wrong test framework", f"- The tests are written with {wrong_fw}.", wrong_fw))
    inline = _invented(base, "hyperdrive", ext, truth)
    false.append(_false("invented path (inline)", f"- The entry point is `{inline}`.", inline))
    keys = license_keys(folder.license or facts.license)
    wrong_licence = next((x for x in _LICENCES if x not in keys and x not in truth.licenses), None)
    if folder.license and wrong_licence:
        text = f"- The project is released under the {wrong_licence} license."
        false.append(_false("wrong licence", text, wrong_licence))
    scoped = Truth(files=truth.files, dirs=truth.dirs, texts=truth.texts, scope=base)
    shares = scoped.language_shares(own=False)
    overall = truth.language_shares(own=False)
    wrong_language = next(
        (
            x
            for x in _LANGUAGES
            if shares.get(x, 0.0) < 1.0 and overall.get(x, 0.0) < 1.0 and x not in facts.languages
        ),
        None,
    )
    if folder.primary_language and wrong_language:
        text = f"- The folder is written mainly in {wrong_language}."
        false.append(_false("wrong primary language", text, wrong_language))
    absent = [n for n in facts.not_dependencies if not named(n)]
    false += [_false("not a dependency", f"- It depends on `{n}`.", n) for n in absent[:2]]
    real = [*([folder.manifest] if folder.manifest else []), *(f"{d}/" for d in tests[:1])]
    fence = [Planted("fenced path", p, True) for p in real] + [
        _false("invented path (fenced)", p, p)
        for p in (
            _invented(base, "flux_capacitor", ext, truth),
            _invented(tests[0] if tests else base, "quantum_entangler_test", ext, truth),
        )
    ]
    statements = [*true, *false]
    lines = [f"# {facts.repo}: {base}", "", f"{folder.why or 'A folder'}.", ""]
    lines += [s.text for s in statements]
    lines += ["", "The layout:", "", "```text", *(s.text for s in fence), "```", ""]
    return PlantedReport(text="\n".join(lines), statements=(*statements, *fence))
