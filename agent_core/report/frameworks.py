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


def _fw(
    name: str,
    ecosystem: str,
    packages: Iterable[str],
    aliases: Iterable[str] = (),
    prefixes: Iterable[str] = (),
) -> Framework:
    return Framework(
        name=name,
        ecosystem=ecosystem,
        packages=frozenset(p.lower() for p in packages),
        aliases=frozenset(a.lower() for a in aliases) | {name.lower()},
        prefixes=tuple(p.lower() for p in prefixes),
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
        ("xunit.",)),
    _fw("NUnit", "nuget", ("nunit", "nunit3testadapter"), prefixes=("nunit.",)),
    _fw("MSTest", "nuget", ("mstest.testframework", "mstest.testadapter", "mstest"), ("ms test",), ("mstest.",)),
    _fw("RSpec", "rubygems", ("rspec", "rspec-core", "rspec-rails"), prefixes=("rspec-",)),
    _fw("Minitest", "rubygems", ("minitest",), ("mini test",), ("minitest-",)),
    _fw("Test::Unit", "rubygems", ("test-unit",), ("testunit",)),
    _fw("PHPUnit", "composer", ("phpunit/phpunit",)),
    _fw("Pest", "composer", ("pestphp/pest",), prefixes=("pestphp/pest-plugin",)),
    _fw("Codeception", "composer", ("codeception/codeception",)),
    _fw("JUnit 5", "maven", ("org.junit.jupiter:junit-jupiter", "org.junit.jupiter:junit-jupiter-api",
                              "org.junit:junit-bom", "junit-jupiter", "junit-jupiter-api"),
        ("junit5", "junit jupiter", "jupiter"), ("org.junit.jupiter:",)),
    _fw("JUnit 4", "maven", ("junit:junit",), ("junit4",)),
    _fw("JUnit", "maven", ("junit",)),
    _fw("TestNG", "maven", ("org.testng:testng", "testng"), prefixes=("org.testng:",)),
    _fw("kotlin.test", "maven", ("org.jetbrains.kotlin:kotlin-test", "kotlin-test", "kotlin-test-junit",
                                 "kotlin-test-junit5"), ("kotlin-test",), ("org.jetbrains.kotlin:kotlin-test",)),
    _fw("Kotest", "maven", ("io.kotest:kotest-runner-junit5", "kotest-runner-junit5"), ("kotlintest",), ("io.kotest:",)),
    _fw("Spock", "maven", ("org.spockframework:spock-core", "spock-core"), prefixes=("org.spockframework:",)),
    _fw("ScalaTest", "maven", ("org.scalatest:scalatest", "scalatest")),
    _fw("GoogleTest", "cmake", ("googletest", "gtest", "gmock", "gtest_main"), ("gtest", "google test")),
    _fw("Catch2", "cmake", ("catch2", "catch2::catch2", "catch2::catch2withmain"), ("catch",)),
    _fw("doctest", "cmake", ("doctest",)),
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


def test_frameworks(manifests: Iterable[Manifest]) -> tuple[str, ...]:
    """The frameworks the parsed manifests declare (every dependency list, development ones included, and
    the versions a central list pins: ``Directory.Packages.props``, a Gradle catalog), by display name,
    in :data:`FRAMEWORKS` order, each once. The generic "JUnit" is left out when JUnit 4 or 5 is named."""
    found: set[Framework] = set()
    for manifest in manifests:
        for dependency in (*manifest.all_dependencies(indirect=False), *manifest.versions):
            framework = framework_of_package(dependency.name)
            if framework is not None:
                found.add(framework)
    names = tuple(fw.name for fw in FRAMEWORKS if fw in found)
    return tuple(n for n in names if n != "JUnit" or not {"JUnit 4", "JUnit 5"} & set(names))
