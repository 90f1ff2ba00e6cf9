"""Test frameworks: which a repository uses, named from what its manifests declare.

ONE table (:data:`FRAMEWORKS`): a framework's display name, the ecosystem it belongs to, and the package
names that declare it in a manifest (a ``PackageReference`` in a ``.csproj``, a ``require-dev`` of a
``composer.json``, a ``testImplementation`` of a Gradle build, a gemspec's development dependency, a
``find_package``/``FetchContent_Declare`` of CMake...). :func:`test_frameworks` reads parsed manifests;
:func:`framework_of` says which framework a name written in a report means (for the claim check). Pure
functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from agent_core.repomodel.packages import manifest_kind
from agent_core.report.manifest_values import Dependency
from agent_core.sources.manifest_files import is_requirements_file

if TYPE_CHECKING:
    from agent_core.report.manifests import Manifest


@dataclass(frozen=True, kw_only=True)
class Framework:
    """A test framework: how reports name it, its ecosystem, the lower-cased package names that declare
    it, and other names people write for it (lower-cased)."""

    name: str
    ecosystem: str
    packages: frozenset[str]
    aliases: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()  # package-name prefixes that declare it too (``org.junit.jupiter:``)
    # where its tests live (a folder name or a file-name suffix); when the tree's test files are known and
    # none is there, a declared package does not make it the repository's framework
    layouts: tuple[str, ...] = ()


def _fw(
    name: str,
    ecosystem: str,
    packages: Iterable[str],
    aliases: Iterable[str] = (),
    *,
    prefixes: Iterable[str] = (),
    layouts: Iterable[str] = (),
) -> Framework:
    return Framework(
        name=name,
        ecosystem=ecosystem,
        packages=frozenset(p.lower() for p in packages),
        aliases=frozenset(a.lower() for a in aliases) | {name.lower()},
        prefixes=tuple(p.lower() for p in prefixes),
        layouts=tuple(layouts),
    )


#: Every framework the app can name, most specific first.
FRAMEWORKS: tuple[Framework, ...] = (
    _fw("pytest", "python", ("pytest",), prefixes=("pytest-",)),
    _fw("unittest", "python", ()),
    _fw("Jest", "npm", ("jest", "@jest/core", "ts-jest", "@jest/globals"), prefixes=("@jest/", "jest-")),
    _fw("Vitest", "npm", ("vitest",), prefixes=("@vitest/",)),
    _fw("Mocha", "npm", ("mocha",)),
    _fw("Jasmine", "npm", ("jasmine", "jasmine-core")),
    _fw("AVA", "npm", ("ava",)),
    _fw("Playwright", "npm", ("@playwright/test",)),
    _fw("Cypress", "npm", ("cypress",)),
    _fw("tap", "npm", ("tap",), ("node-tap",)),
    _fw("uvu", "npm", ("uvu",)),
    _fw("xUnit", "nuget", ("xunit", "xunit.core", "xunit.v3", "xunit.runner.visualstudio"), ("xunit.net",),
        prefixes=("xunit.",)),
    _fw("NUnit", "nuget", ("nunit", "nunit3testadapter"), prefixes=("nunit.",)),
    _fw("MSTest", "nuget", ("mstest.testframework", "mstest.testadapter", "mstest"), ("ms test",), prefixes=("mstest.",)),
    _fw("RSpec", "rubygems", ("rspec", "rspec-core", "rspec-rails"), prefixes=("rspec-",), layouts=("spec", "_spec.rb")),
    _fw("Minitest", "rubygems", ("minitest",), ("mini test",), prefixes=("minitest-",), layouts=("test", "_test.rb")),
    _fw("Test::Unit", "rubygems", ("test-unit",), ("testunit",), layouts=("test", "_test.rb")),
    _fw("PHPUnit", "composer", ("phpunit/phpunit",)),
    _fw("Pest", "composer", ("pestphp/pest",), prefixes=("pestphp/pest-plugin",)),
    _fw("Codeception", "composer", ("codeception/codeception",)),
    _fw("JUnit 5", "maven", ("org.junit.jupiter:junit-jupiter", "org.junit.jupiter:junit-jupiter-api",
                              "org.junit:junit-bom", "junit-jupiter", "junit-jupiter-api"),
        ("junit5", "junit jupiter", "jupiter"), prefixes=("org.junit.jupiter:",)),
    _fw("JUnit 4", "maven", ("junit:junit",), ("junit4",)),
    _fw("JUnit", "maven", ("junit",)),
    _fw("TestNG", "maven", ("org.testng:testng", "testng"), prefixes=("org.testng:",)),
    _fw("kotlin.test", "maven", ("org.jetbrains.kotlin:kotlin-test", "kotlin-test", "kotlin-test-junit",
                                 "kotlin-test-junit5"), ("kotlin-test",), prefixes=("org.jetbrains.kotlin:kotlin-test",)),
    _fw("Kotest", "maven", ("io.kotest:kotest-runner-junit5", "kotest-runner-junit5"), ("kotlintest",), prefixes=("io.kotest:",)),
    _fw("Spock", "maven", ("org.spockframework:spock-core", "spock-core"), prefixes=("org.spockframework:",)),
    _fw("ScalaTest", "maven", ("org.scalatest:scalatest", "scalatest")),
    _fw("GoogleTest", "cmake", ("googletest", "gtest", "gmock", "gtest_main", "gmock_main", "gtest::gtest",
                               "gtest::gtest_main", "gtest::gmock"), ("gtest", "google test")),
    _fw("Catch2", "cmake", ("catch2", "catch2::catch2", "catch2::catch2withmain"), ("catch",)),
    _fw("doctest", "cmake", ("doctest", "doctest::doctest")),
    _fw("Boost.Test", "cmake", ("boost-test",), ("boost test",)),
    _fw("testing", "go", (), ("go test",)),
    _fw("testify", "go", ("github.com/stretchr/testify",)),
    _fw("Ginkgo", "go", ("github.com/onsi/ginkgo", "github.com/onsi/ginkgo/v2")),
)  # fmt: skip

_BY_PACKAGE: Mapping[str, Framework] = MappingProxyType(
    {package: fw for fw in reversed(FRAMEWORKS) for package in fw.packages}
)
_BY_NAME: Mapping[str, Framework] = MappingProxyType(
    {alias: fw for fw in reversed(FRAMEWORKS) for alias in fw.aliases}
)


_PREFIXES: tuple[tuple[str, Framework], ...] = tuple(
    (prefix, fw) for fw in FRAMEWORKS for prefix in fw.prefixes
)


def framework_of_package(name: str) -> Framework | None:
    """The framework a dependency's name declares (``xunit``, ``phpunit/phpunit``, ``junit:junit``,
    ``org.junit.jupiter:junit-jupiter-params``, ``minitest-retry``...)."""
    low = name.strip().lower()
    found = _BY_PACKAGE.get(low)
    if found is None:
        found = next((fw for prefix, fw in _PREFIXES if low.startswith(prefix)), None)
    return found


def framework_of(written: str) -> Framework | None:
    """The framework a name written in prose means (``RSpec``, ``JUnit 5``, ``xunit.net``), or None."""
    return _BY_NAME.get(" ".join(written.split()).lower())


# A manifest's ecosystem (repomodel.packages.MANIFEST_KINDS) -> the ecosystem its frameworks are listed under
_FRAMEWORK_ECOSYSTEM = {"gradle": "maven", "meson": "cmake", "vcpkg": "cmake", "conan": "cmake"}


_GO_TESTING = next(fw for fw in FRAMEWORKS if fw.name == "testing" and fw.ecosystem == "go")


def test_frameworks(
    manifests: Iterable[Manifest],
    *,
    test_paths: Iterable[str] | None = None,  # noqa: PT028 (no test)
) -> tuple[str, ...]:
    """The frameworks the parsed manifests declare (every dependency list, development ones included, and
    the versions a central list pins: ``Directory.Packages.props``, a Gradle catalog), by display name,
    in :data:`FRAMEWORKS` order, each once. A name counts only in its own ecosystem's manifests (Ruby's
    ``mocha`` mocking gem is not JavaScript's Mocha); a repository that IS a framework
    (``phpunit/phpunit``) names it. ``test_paths`` (the tree's test files, when known): a framework with
    a layout (RSpec's ``spec/``, Minitest's ``test/``) counts only when some test file follows it (rspec's
    Gemfile declares minitest for its integration checks; its tests are all specs). The generic "JUnit"
    is left out when JUnit 4 or 5 is named."""
    found: set[Framework] = set()
    for manifest in manifests:
        ecosystem = _ecosystem(manifest.path)
        named = [*manifest.all_dependencies(indirect=False), *manifest.versions]
        if manifest.name:
            named.append(Dependency(name=manifest.name))
        named += [Dependency(name=word) for word in _runners(manifest.commands)]
        for dependency in named:
            framework = framework_of_package(dependency.name)
            if framework is not None and (ecosystem is None or framework.ecosystem == ecosystem):
                found.add(framework)
    paths = list(test_paths) if test_paths is not None else None
    if paths is not None and any(path.endswith("_test.go") for path in paths):
        found.add(_GO_TESTING)  # a Go test file is the standard library's `testing`, run by `go test`
    if paths is not None and any(fw.layouts for fw in found):
        found = _laid_out(found, paths)
    names = tuple(fw.name for fw in FRAMEWORKS if fw in found)
    return tuple(n for n in names if n != "JUnit" or not {"JUnit 4", "JUnit 5"} & set(names))


def _laid_out(found: set[Framework], test_paths: Iterable[str]) -> set[Framework]:
    """The frameworks whose layout some test file follows (those without a layout kept); one pass. A
    path's outermost layout folder decides (``spec/support/fake_libs/test/`` is RSpec's)."""
    wanted = {layout for fw in found for layout in fw.layouts}
    suffixes = tuple(w for w in wanted if "." in w)
    folders = {w for w in wanted if "." not in w}
    seen: set[str] = set()
    for path in test_paths:
        if suffixes and path.endswith(suffixes):
            seen.update(s for s in suffixes if path.endswith(s))
        outer = next((segment for segment in path.split("/")[:-1] if segment in folders), None)
        if outer is not None:
            seen.add(outer)
        if seen == wanted:
            break
    return {fw for fw in found if not fw.layouts or seen.intersection(fw.layouts)}


# Commands a package.json script runs that are test runners by the same name as their package
_RUNNERS = frozenset({"vitest", "jest", "mocha", "ava", "tap", "uvu", "cypress", "jasmine"})


def _runners(commands: Iterable[str]) -> set[str]:
    """The test runners scripts run (``vitest run -c x``, ``cross-env CI=1 jest``): words, not paths."""
    return {word for command in commands for word in command.replace("&&", " ").split() if word in _RUNNERS}


def _ecosystem(path: str) -> str | None:
    """The ecosystem whose frameworks a manifest can declare; None when unknown (any)."""
    kind = manifest_kind(path.rsplit("/", 1)[-1])
    if kind is None:
        return "python" if is_requirements_file(path) else None
    return _FRAMEWORK_ECOSYSTEM.get(kind.ecosystem, kind.ecosystem)
