"""The verdict on a dependency claim with what it says beyond the name: its version, or a test framework.

A version is held against every constraint the parsed manifests declare for the package (each read in its
ecosystem's syntax, :mod:`~agent_core.report.versions`) and every version a lock file read resolved
(:mod:`~agent_core.report.locks`): verified when it meets one, contradicted when it meets none (observed:
what was declared), unchecked when nothing readable was declared; never verified by the name alone. A
test framework is verified when a parsed manifest declares one of its packages, contradicted when every
manifest of its ecosystem in a whole tree was parsed, none declares it and no file read names it
(observed: the frameworks declared), else unchecked. Pure functions over :class:`Facts`.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable
from typing import TypeVar

from agent_core.repomodel.packages import ManifestKind, manifest_kind
from agent_core.report import verdicts
from agent_core.report.claim_names import Found
from agent_core.report.facts import Facts
from agent_core.report.frameworks import FRAMEWORKS, Framework, framework_of, framework_of_package
from agent_core.report.gradle_conventions import conventions_unread
from agent_core.report.locks import resolved_versions
from agent_core.report.path_index import index_of
from agent_core.report.scoped import whole_tree
from agent_core.report.versions import compatible, ecosystem_of
from agent_core.sources.languages import is_vendored
from agent_core.sources.manifest_files import is_requirements_file
from agent_core.tools.observe import notable_role
from agent_core.words import said

Outcome = verdicts.Outcome
_Entry = TypeVar("_Entry")
_SHOWN = 3  # declarations named beside a verdict
# A framework's ecosystem (frameworks.FRAMEWORKS) → the manifest ecosystems that can declare it.
_MANIFEST_ECOSYSTEMS = {"maven": {"maven", "gradle"}, "cmake": {"cmake", "meson", "vcpkg", "conan"}}


def dependency(found: Found, facts: Facts) -> Outcome:
    """A dependency claim: a test framework, or a package (and the version written beside it)."""
    if found.subject == "framework":
        return framework(found, facts)
    if found.version and not found.negated and (held := verdicts.toolchain(found, facts)) is not None:
        return held
    verdict, observed = verdicts.dependency(found, facts)
    if verdict == "unchecked" and not found.negated and (pinned := _lookup(_pinned(facts), found.value)):
        # not declared by a manifest read, but its version is pinned centrally for the projects that use
        # it (Directory.Packages.props, a Gradle version catalog, Maven's dependencyManagement)
        if not found.version:
            return "verified", said("observed_pinned", version=pinned[0][0], where=pinned[0][2])
        return version(found, facts)
    if verdict != "verified" or not found.version or found.negated:
        return verdict, observed
    return version(found, facts)


def _key(name: str) -> str:
    return verdicts.normal(re.sub(r"/v\d+(?=/|$)", "", name.strip().lower()))


def _declarations(facts: Facts) -> dict[str, list[tuple[str, str, str]]]:
    """Package key → (constraint as written, its ecosystem, manifest path), once per ``Facts``."""

    def build() -> dict[str, list[tuple[str, str, str]]]:
        found: dict[str, list[tuple[str, str, str]]] = {}
        for m in facts.manifests:
            if m.status == "parsed":
                for d in m.all_dependencies():
                    found.setdefault(_key(d.name), []).append((d.spec, ecosystem_of(m.path), m.path))
        return found

    return index_of(facts).derived("declarations", build)  # type: ignore[return-value]


def _pinned(facts: Facts) -> dict[str, list[tuple[str, str, str]]]:
    """Package key → (version, ecosystem, manifest path) of the versions manifests pin for others."""

    def build() -> dict[str, list[tuple[str, str, str]]]:
        found: dict[str, list[tuple[str, str, str]]] = {}
        for m in facts.manifests:
            if m.status == "parsed":
                for d in getattr(m, "versions", ()):
                    found.setdefault(_key(d.name), []).append((d.spec, ecosystem_of(m.path), m.path))
        return found

    return index_of(facts).derived("pinned", build)  # type: ignore[return-value]


def _locked(facts: Facts) -> dict[str, list[tuple[str, str]]]:
    def build() -> dict[str, list[tuple[str, str]]]:
        found: dict[str, list[tuple[str, str]]] = {}
        for name, versions in resolved_versions(facts.evidence.files).items():
            found.setdefault(_key(name), []).extend(versions)
        return found

    return index_of(facts).derived("locked", build)  # type: ignore[return-value]


def _lookup(table: dict[str, list[_Entry]], name: str) -> list[_Entry]:
    """The entries for ``name``, or for the Go module holding the package it names."""
    key = _key(name)
    for _ in range(16):
        if key in table:
            return table[key]
        if "/" not in key:
            break
        key = key.rsplit("/", 1)[0]
    return []


def _readable(spec: str) -> bool:
    """A constraint as the manifest wrote it, not one a parser's cap may have cut short (the cut end of
    ``^0.14 || ^0.15 || ^0`` would allow 0.13): one ending in "…" (:func:`spec_text`) is not read."""
    return bool(spec) and not spec.endswith("…")


def version(found: Found, facts: Facts) -> Outcome:
    every = [*_lookup(_declarations(facts), found.value), *_lookup(_pinned(facts), found.value)]
    declared = [d for d in every if _readable(d[0])]
    locked = _lookup(_locked(facts), found.value)
    pairs = [(spec, eco) for spec, eco, _ in declared] + [(v, "go") for v, _ in locked]  # a lock: exact
    observed = tuple(said("observed_spec_in", spec=spec, where=path) for spec, _, path in declared[:_SHOWN])
    observed += tuple(said("observed_locked_in", version=v, where=path) for v, path in locked[:_SHOWN])
    met = compatible(found.version, pairs)
    if met is None:
        cut = any(spec and not _readable(spec) for spec, _, _ in every)
        return "unchecked", observed or (said("observed_cut") if cut else said("observed_no_version"))
    return ("verified" if met else "contradicted"), observed or None


def package_count(found: Found, facts: Facts) -> Outcome:
    """A count of one ecosystem's packages against the repository model's, when the tree is whole."""
    model = facts.model
    if model is None or model.truncated or not facts.tree_complete or not whole_tree(facts.evidence):
        return "unchecked", None
    counted = sum(p.ecosystem == found.subject for p in model.packages)
    observed = said("observed_packages", count=counted, ecosystem=found.subject)
    claimed = int(found.value)
    if claimed == counted:
        return "verified", observed
    if counted / 2 <= claimed <= counted * 3 / 2 + 1:
        # Packages are counted in more than one fair way (an aggregator root, private workspace members,
        # samples, test projects): a count within half again of ours is not contradicted.
        return "unchecked", said("observed_packages_other_way", count=counted, ecosystem=found.subject)
    return "contradicted", observed


# -- test frameworks -------------------------------------------------------------------------------------


def framework(found: Found, facts: Facts) -> Outcome:
    claimed = framework_of(found.value)
    if claimed is None:
        return None, None
    declaring = _declaring(facts)
    where = [path for fw, paths in declaring.items() if _same(claimed, fw) for path in paths]
    if found.negated:
        return (
            ("contradicted", said("observed_declared_in", where=where[:1])) if where else ("unchecked", None)
        )
    if where:
        if found.version:
            outcome = version(dataclasses.replace(found, value=_package_of(claimed, facts)), facts)
            if outcome[0] != "verified":
                return outcome
        return "verified", said("observed_declared_in", where=sorted(set(where))[:_SHOWN])
    configured = _configured_by(claimed, facts)
    if configured is not None:
        return "verified", said("observed_configured_by", where=configured)
    names = [fw.name for fw in FRAMEWORKS if fw in declaring]
    observed = said("observed_frameworks", names=names) if names else said("observed_no_framework")
    if not claimed.packages or not _ecosystem_read(claimed, facts):
        return "unchecked", observed
    named_in = _named_in(claimed, facts)
    if named_in is not None:
        return "unchecked", said("observed_named_in", where=named_in)
    if _brought(claimed, declaring, facts):
        return "unchecked", observed  # kotlin.test resolves to JUnit 4 or 5 on the JVM by itself
    unread = _open_by(claimed, facts)
    if unread is not None:  # a CI workflow, a task file or a convention plugin nobody read may add it
        return "unchecked", (observed, said("observed_not_read", where=unread)) if unread else observed
    return "contradicted", observed


def _brought(claimed: Framework, declaring: dict[Framework, list[str]], facts: Facts) -> bool:
    """Whether a framework that brings ``claimed`` with it (:data:`_BRINGS`) is declared or named."""
    for fw in FRAMEWORKS:
        word = _BRINGS.get(fw.name, {}).get(claimed.name)
        if word is None or (fw not in declaring and _named_in(fw, facts) is None):
            continue
        if not word or any(word in (c.whole_text or c.text or "") for c in facts.evidence.files.values()):
            return True
    return False


def _open_by(claimed: Framework, facts: Facts) -> str | None:
    """What was not read that may still add ``claimed`` ("": something unseen), or None: nothing.

    A CI step may install a Python, npm, Ruby, PHP or C++ framework itself (pip install, npx, apt); a
    .NET, JVM, Rust or Go one must be declared in a manifest, or for Gradle, a convention plugin."""
    if claimed.ecosystem == "maven" and conventions_unread(facts):  # buildSrc/ may add it
        return ""
    ad_hoc = claimed.ecosystem in _AD_HOC
    if ad_hoc and facts.evidence.root and not facts.evidence.root_known:
        return ""  # a folder's run that never saw the repository's CI
    unread = [
        p
        for p, ecosystem in _unread_runners(facts)
        if ecosystem == claimed.ecosystem or (ad_hoc and not ecosystem)
    ]
    return unread[0] if unread else None


# A framework's own configuration file in the tree says it is used, whatever the manifests declare.
_CONFIG_FILES = {
    "testing": re.compile(r"[^/]{1,200}_test\.go"),  # Go's standard library runs every *_test.go
    "pytest": re.compile(r"pytest\.ini|conftest\.py"),
    "Jest": re.compile(r"jest\.config\.[cm]?[jt]s(?:on)?"),
    "Vitest": re.compile(r"vitest\.(?:config|workspace)\.[cm]?[jt]s"),
    "Mocha": re.compile(r"\.mocharc(?:\.[a-z]+)?"),
    "Playwright": re.compile(r"playwright\.config\.[cm]?[jt]s"),
    "Cypress": re.compile(r"cypress\.config\.[cm]?[jt]s|cypress\.json"),
    "RSpec": re.compile(r"\.rspec|spec_helper\.rb"),
    "PHPUnit": re.compile(r"phpunit\.xml(?:\.dist)?"),
    "Pest": re.compile(r"Pest\.php"),
    "Codeception": re.compile(r"codeception\.ya?ml"),
}
# Files that install and run test tools without a manifest declaring them: an ecosystem's own (tox for
# Python, Rake for Ruby), or any ecosystem's (make, just, task, CI workflows: "").
_RUNNERS = {
    "tox.ini": "python", "noxfile.py": "python", "rakefile": "rubygems",
    "makefile": "", "justfile": "", "taskfile.yml": "", "taskfile.yaml": "",
}  # fmt: skip


# A framework that brings others with it, undeclared, and the word that says so in a build file ("": none
# needed): the Kotlin Gradle plugin resolves kotlin.test to kotlin-test-junit (JUnit 4) on the JVM, to
# -junit5 when the test task uses the JUnit Platform, to -testng with TestNG.
_BRINGS = {"kotlin.test": {"JUnit 4": "", "JUnit": "", "JUnit 5": "useJUnitPlatform", "TestNG": "useTestNG"}}
_AD_HOC = frozenset({"python", "npm", "rubygems", "composer", "cmake"})


def _configured_by(claimed: Framework, facts: Facts) -> str | None:
    pattern = _CONFIG_FILES.get(claimed.name)
    if pattern is None:
        return None
    index = index_of(facts)

    def build() -> str | None:
        return next((paths[0] for name, paths in index.named.items() if pattern.fullmatch(name)), None)

    return index.derived(f"configured:{claimed.name}", build)  # type: ignore[return-value]


def _unread_runners(facts: Facts) -> list[tuple[str, str]]:
    """The task files and CI files of the tree that were not read, with the ecosystem they serve."""

    def build() -> list[tuple[str, str]]:
        files = facts.evidence.files
        found = []
        for p in facts.paths:
            if p in files or is_vendored(p):
                continue
            ecosystem = _RUNNERS.get(p.rsplit("/", 1)[-1].lower())
            if ecosystem is None and notable_role(p) == "ci":
                ecosystem = ""
            if ecosystem is not None:
                found.append((p, ecosystem))
        # a folder's run: the repository's CI and task files, outside the folder, that were not read
        found += [(p, "") for p in facts.evidence.ci_outside if p not in files]
        found += [
            (p, ecosystem)
            for p in facts.evidence.outside
            if p not in files and (ecosystem := _RUNNERS.get(p.rsplit("/", 1)[-1].lower())) is not None
        ]
        return found

    return index_of(facts).derived("unread_runners", build)  # type: ignore[return-value]


def _same(claimed: Framework, declared: Framework) -> bool:
    """The claimed framework is the declared one, or its family ("JUnit" for JUnit 5)."""
    return claimed is declared or claimed.name.lower() == declared.name.split()[0].lower()


def _declaring(facts: Facts) -> dict[Framework, list[str]]:
    """Each framework the parsed manifests declare → the manifests declaring it, once per ``Facts``."""

    def build() -> dict[Framework, list[str]]:
        found: dict[Framework, list[str]] = {}
        for m in facts.manifests:
            if m.status != "parsed":
                continue
            for d in m.all_dependencies(indirect=False):
                fw = framework_of_package(d.name)
                if fw is not None and m.path not in found.get(fw, []):
                    found.setdefault(fw, []).append(m.path)
        return found

    return index_of(facts).derived("frameworks", build)  # type: ignore[return-value]


def _package_of(claimed: Framework, facts: Facts) -> str:
    """The package that declares the claimed framework in the manifests read (its version is checked)."""
    declared = _declarations(facts)
    packages = sorted(claimed.packages)
    return next((p for p in packages if _key(p) in declared), packages[0] if packages else claimed.name)


def _ecosystem_read(claimed: Framework, facts: Facts) -> bool:
    """The tree is complete and every manifest of the framework's ecosystem in it was parsed; of a
    folder's run, also those up its path and those of its tests kept elsewhere (fetched whole)."""
    if not facts.tree_complete:
        return False
    kinds = _MANIFEST_ECOSYSTEMS.get(claimed.ecosystem, {claimed.ecosystem})
    parsed = {m.path for m in facts.manifests if m.status == "parsed"}
    if not all(p in parsed for p in _manifests_of(facts, kinds)):
        return False
    evidence = facts.evidence
    if not evidence.root:
        return True
    if not evidence.ancestors_listed or any(t.truncated for t in evidence.subtrees.values()):
        return False
    above = [(p, kind.ecosystem) for p in evidence.parent_manifests if (kind := _parsed_kind(p)) is not None]
    elsewhere: list[tuple[str, str]] = index_of(facts).derived(  # type: ignore[assignment]
        "manifests_elsewhere", lambda: _manifests_elsewhere(facts)
    )
    return all(p in parsed for p, ecosystem in [*above, *elsewhere] if ecosystem in kinds)


def _parsed_kind(path: str) -> ManifestKind | None:
    kind = manifest_kind(path.rsplit("/", 1)[-1])
    return kind if kind is not None and kind.parsed else None


def _manifests_elsewhere(facts: Facts) -> list[tuple[str, str]]:
    """The parsed manifests of the trees a folder's run fetched beside its own, from the folder, with
    their ecosystem (vendored ones left out), once per Facts."""
    root = facts.evidence.root
    return [
        (posixpath.relpath(e.path, root), kind.ecosystem)
        for tree in facts.evidence.subtrees.values()
        for e in tree.entries
        if e.type != "dir" and (kind := _parsed_kind(e.path)) is not None and not is_vendored(e.path)
    ]


def _manifests_of(facts: Facts, kinds: set[str]) -> Iterable[str]:
    by_ecosystem: dict[str, list[str]] = index_of(facts).derived(
        "manifests_by_ecosystem", lambda: _by_ecosystem(facts)
    )  # type: ignore[assignment]
    return (p for kind in kinds for p in by_ecosystem.get(kind, ()))


def _by_ecosystem(facts: Facts) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in facts.paths:
        kind = manifest_kind(path.rsplit("/", 1)[-1])
        ecosystem = kind.ecosystem if kind is not None else ("python" if is_requirements_file(path) else None)
        root = facts.evidence.root
        if (
            ecosystem is not None
            and (kind is None or kind.parsed)
            and not is_vendored(f"{root}/{path}" if root else path)
        ):
            found.setdefault(ecosystem, []).append(path)
    return found


def _named_in(claimed: Framework, facts: Facts) -> str | None:
    """A file read that names the framework (a CI step, a test's import, the README): then its absence
    from the manifests proves nothing."""
    terms = {a for a in claimed.aliases | claimed.packages if len(a) > 2}
    # a package's last part when it carries the framework's name (`junit-jupiter`, `ginkgo`), never a
    # bare `core`, `globals` (of `@jest/core`) or a Go major version (`v2` of `.../ginkgo/v2`)
    stem = claimed.name.split()[0].lower()
    tails = {p.rsplit(":", 1)[-1].rsplit("/", 1)[-1] for p in claimed.packages}
    terms |= {t for t in tails if len(t) > 2 and stem in t}
    pattern = re.compile(
        r"(?<![\w-])(?:"
        + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
        + r")(?![\w-])",
        re.IGNORECASE,
    )
    for path, content in facts.evidence.files.items():
        text = content.whole_text if content.whole_text is not None else content.text
        if text and path.lower().endswith(_PROSE):  # prose ("migrated from Jest") is no use; its code is
            text = "\n".join(m.group(0) for m in _CODE_IN_PROSE.finditer(text))
        if text and pattern.search(text):
            return path
    return None


_PROSE = (".md", ".markdown", ".rst", ".txt", ".adoc")
_CODE_IN_PROSE = re.compile(r"```[^`]{0,20000}?```|`[^`\n]{1,300}`")  # fences and code spans, bounded
