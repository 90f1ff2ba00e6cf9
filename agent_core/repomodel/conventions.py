"""What a path is for: GitHub Linguist's rules (through go-enry), and a small layer of ours for what
Linguist lacks. These are the repository model's only rules.

**Linguist** (:mod:`agent_core.repomodel.linguist`): vendored, generated and documentation paths, as
GitHub's own language bar leaves them out, and a file's language. Four of its rules are not taken, each
because it calls a project's own code something else:

- ``(^|/)cache/`` and, below the root, ``(^|/)env/``: a package's own ``pkg/cache`` or ``src/env/``
  module is not a vendored cache or virtualenv;
- ``(^|/)\\.github/``: the repository's CI and configuration (workflows and composite actions are CI,
  the rest, templates, ``CODEOWNERS``, ``dependabot.yml``, build configuration), never vendored and
  never documentation;
- ``.gitignore``, ``.gitattributes``, ``.gitmodules`` and ``Jenkinsfile``: the repository's own git and
  CI configuration.

Linguist decides some generated files by their first lines (``Code generated ... DO NOT EDIT``), which a
tree does not show: :data:`GENERATED_SUFFIXES` names the files that always carry such a line (protocol
buffer and gRPC stubs, Kubernetes' ``zz_generated``, Dart's ``.g.dart``) and :data:`LOCK_NAMES` the
lock files Linguist leaves to its ``linguist-generated`` defaults. Linguist's prose languages (Markdown,
reStructuredText, AsciiDoc, Text) are documentation wherever they are.

**Ours** — layouts Linguist does not know (``is_test`` is go-enry's own addition, with nine name rules;
these replace it):

- tests, by ecosystem: test folders (``test/``, ``tests/``, ``__tests__/``, ``integration-tests/``,
  Maven/Gradle ``src/test/``, Kotlin and Gradle source sets ``src/jvmTest``, ``src/commonTest``,
  ``src/androidTest``, ``src/testFixtures``: any ``src/*Test`` or ``src/test*``), .NET test projects
  (``*.Tests``, ``*.UnitTests``, ``*.IntegrationTests``, ``*.Specs``...), Ruby's ``spec/`` (its ``.rb``
  files; a ``spec/`` of JSON schemas is not tests), and names: Go ``_test.go``, JavaScript/TypeScript
  ``*.test|spec.[cm]?[jt]sx?``, pytest ``test_*.py``/``*_test.py``/``conftest.py``, Ruby
  ``*_spec.rb``/``*_test.rb``; class names ending in ``Test``/``Tests``/``IT``/``Spec`` (JUnit, PHPUnit,
  xUnit) only outside a source folder: in ``src/`` or ``lib/`` (not under a test folder) ``Test.php`` or
  ``TestCase.php`` is a test framework's own source;
- fixtures (``fixtures/``, ``__fixtures__/``, ``testdata/``, ``test-fixtures/``) are test data, never
  vendored, whatever they hold (a fixture's ``node_modules/`` is part of the test);
- examples: ``examples/``, ``example/``, ``_examples/``, ``samples/`` at any depth, ``playground(s)/``,
  ``demo(s)/``, ``sample/`` at the top level (Linguist calls the top-level ones documentation);
- a test framework bundled in a test folder (``test/gtest/``, ``tests/googletest/``, ``catch2/``) is
  vendored (``third_party/``, ``external/``, ``extern/`` are Linguist's own);
- build configuration by file name (manifests, build systems, containers).

Adding an ecosystem's test layout: a folder name to :data:`TEST_DIRS` (or a suffix to
:data:`TEST_PROJECT_SUFFIXES`), a file name rule to :func:`test_name`, and a test in
``tests/test_conventions.py`` built from a small real tree.
"""

from __future__ import annotations

from typing import Literal

from agent_core.repomodel import linguist

Role = Literal["source", "tests", "docs", "examples", "vendored", "generated", "build", "ci"]
ROLES: tuple[Role, ...] = ("source", "tests", "docs", "examples", "vendored", "generated", "build", "ci")

#: Linguist folder rules not taken (see the module's doc): by folder name, and below the root only.
NOT_VENDORED_DIRS = frozenset({"cache", ".github"})
NOT_VENDORED_BELOW_ROOT = frozenset({"env"})
#: Linguist name rules not taken: the repository's own configuration (lower-cased names).
NOT_VENDORED_NAMES = frozenset({".gitignore", ".gitattributes", ".gitmodules", "jenkinsfile"})

#: Generated files Linguist recognises by their content, by the names that always carry it.
GENERATED_SUFFIXES = (
    *(".pb.go", ".pb.gw.go", "_pb2.py", "_pb2.pyi", "_pb2_grpc.py", ".pb.cc", ".pb.h", ".pb.rs"),
    *("_pb.js", "_pb.d.ts", "_grpc_pb.js", ".pb.swift", ".pb.dart", ".pbobjc.h", ".pbobjc.m"),
    *(".g.dart", ".freezed.dart", ".g.cs", ".js.map", ".css.map"),
)
GENERATED_PREFIXES = ("zz_generated.",)
#: Lock files (lower-cased) Linguist's enry build does not list as generated.
LOCK_NAMES = frozenset(
    {"yarn.lock", "bun.lock", "bun.lockb", "go.sum", "go.work.sum", "gemfile.lock", "mix.lock"}
    | {"pubspec.lock", "package.resolved", "packages.lock.json"}
)
#: Folders whose content is generated that Linguist does not name (Jest snapshots, Yarn's cache).
GENERATED_DIRS = frozenset({"__snapshots__", ".yarn"})

#: Test folders at any depth (label: the folder; ``src/test/`` for Maven/Gradle).
TEST_DIRS = frozenset({"tests", "test", "__tests__", "Tests", "integration-tests"})
#: .NET test projects, by the end of the folder's name (``Polly.Core.Tests``).
TEST_PROJECT_SUFFIXES = (
    *(".Tests", ".Test", ".UnitTests", ".IntegrationTests", ".FunctionalTests", ".AcceptanceTests"),
    *(".Specs", ".Spec", ".TestUtilities"),
)
#: .NET test projects named without a prefix (AutoMapper's ``src/UnitTests``); not ``Test``/``Spec``,
#: which name a test framework's own source (PHPUnit's ``src/Event/Value/Test/``).
TEST_PROJECT_NAMES = frozenset(
    {"UnitTests", "IntegrationTests", "FunctionalTests", "AcceptanceTests", "Specs", "TestUtilities"}
)
#: Test data: fixtures are part of the tests, never vendored.
FIXTURE_DIRS = frozenset({"fixtures", "Fixtures", "__fixtures__", "testdata", "test-fixtures"})
#: Ruby's spec folder: its Ruby files are the suite (``spec_helper.rb``, ``support/``).
SPEC_DIR = "spec"
#: Source folders: class names such as ``Test.php`` inside are the project's code.
SOURCE_DIRS = frozenset({"src", "lib"})
#: Test frameworks bundled inside a test folder (vendored).
BUNDLED_TEST_FRAMEWORKS = frozenset(
    {"gtest", "googletest", "gmock", "googlemock", "catch2", "Catch2", "doctest"}
)

#: Example folders at any depth, and at the top level only.
EXAMPLE_DIRS = frozenset({"examples", "example", "_examples", "samples"})
TOP_EXAMPLE_DIRS = frozenset({"playground", "playgrounds", "demo", "demos", "sample"})

_JS_EXTENSIONS = frozenset({"js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"})
CLASS_TEST_SUFFIXES = (
    *("Test.java", "Tests.java", "IT.java", "Test.kt", "Tests.kt", "Test.scala", "Spec.scala"),
    *("Test.php", "Test.cs", "Tests.cs", "Test.fs", "Tests.fs"),
)

#: Build configuration by lower-cased file name (manifests, build systems, toolchains, containers).
BUILD_NAMES = frozenset(
    {
        *("makefile", "gnumakefile", "cmakelists.txt", "meson.build", "meson_options.txt", "configure.ac"),
        *("makefile.am", "build", "build.bazel", "workspace", "workspace.bazel", "module.bazel", ".bazelrc"),
        *("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "noxfile.py", "pipfile", "environment.yml"),
        *("environment.yaml", "package.json", "tsconfig.json", "lerna.json", "nx.json", "turbo.json"),
        *("pnpm-workspace.yaml", ".npmrc", "go.mod", "go.work", "cargo.toml", "rust-toolchain"),
        *("rust-toolchain.toml", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle"),
        *("settings.gradle.kts", "gradle.properties", "build.sbt", "gemfile", "rakefile", "composer.json"),
        *("mix.exs", "pubspec.yaml", "deno.json", "justfile", "taskfile.yml", "taskfile.yaml", "dockerfile"),
        *("containerfile", "compose.yaml", "compose.yml", ".goreleaser.yml", ".goreleaser.yaml"),
        *("directory.build.props", "directory.build.targets", "directory.packages.props", "global.json"),
        *("nuget.config", "vcpkg.json", "conanfile.txt", "conanfile.py", "libs.versions.toml"),
    }
)
BUILD_PREFIXES = ("requirements", "docker-compose", "dockerfile.", "tsconfig.")
BUILD_SUFFIXES = (".cmake", ".mk", ".gemspec", ".csproj", ".fsproj", ".vbproj", ".sln", ".bzl", ".props")
BUILD_CONFIG_STEMS = (
    "webpack.config.",
    "vite.config.",
    "rollup.config.",
    "babel.config.",
    "esbuild.config.",
)


def vendored_name(name: str, at_root: bool = False) -> bool:
    """A file vendored by its name alone (Linguist: minified files, the Gradle wrapper, jQuery...)."""
    lower = name.lower()
    return linguist.name_says(name, at_root, lower).vendored and lower not in NOT_VENDORED_NAMES


def generated_name(name: str, at_root: bool = False) -> bool:
    """A file generated by its name alone (Linguist's lock files and designers, and the names standing
    for its content rules: protocol buffers, source maps...)."""
    lower = name.lower()
    return linguist.name_says(name, at_root, lower).generated or generated_by_name(lower)


def generated_by_name(lower: str) -> bool:
    """Generated by ours: the names standing for Linguist's content rules, and lock files."""
    return lower in LOCK_NAMES or lower.endswith(GENERATED_SUFFIXES) or lower.startswith(GENERATED_PREFIXES)


def build_name(lower: str) -> bool:
    """A build configuration file by its name (manifests, build systems, containers)."""
    return (
        lower in BUILD_NAMES
        or (
            lower.startswith(BUILD_PREFIXES)
            and (lower.endswith(".txt") or lower.startswith(("docker", "tsconfig.")))
        )
        or lower.endswith(BUILD_SUFFIXES)
        or lower.startswith(BUILD_CONFIG_STEMS)
    )


def test_name(name: str) -> str | None:
    """The test convention a file name follows (its label, e.g. ``*_test.go``, ``*.spec.ts``), or None.
    Class-name conventions (``*Test.java``) are :func:`class_test_name`'s."""
    if name.endswith("_test.go"):
        return "*_test.go"
    dot = name.rfind(".")
    if dot <= 0:
        return None
    ext = name[dot + 1 :]
    if ext == "py":
        if name.startswith("test_"):
            return "test_*.py"
        if name.endswith("_test.py"):
            return "*_test.py"
        return "conftest.py" if name == "conftest.py" else None
    if ext in _JS_EXTENSIONS:
        inner = name[:dot]
        kind = inner[inner.rfind(".") + 1 :] if "." in inner else ""
        return f"*.{kind}.{ext}" if kind in ("spec", "test") else None
    if ext == "rb":
        return (
            "*_spec.rb" if name.endswith("_spec.rb") else ("*_test.rb" if name.endswith("_test.rb") else None)
        )
    return None


def class_test_name(name: str) -> str | None:
    """The class-name test convention of a file (``*Test.java``, ``*Test.php``, ``*Tests.cs``), or None:
    tests only outside a source folder."""
    return next((f"*{suffix}" for suffix in CLASS_TEST_SUFFIXES if name.endswith(suffix)), None)


def test_dir_label(parent_name: str, name: str) -> str | None:
    """The label of a test folder (``tests/``, ``src/test/``, ``src/jvmTest/``, ``Foo.Tests/``), or None."""
    if name in TEST_DIRS:
        return "src/test/" if name == "test" and parent_name == "src" else f"{name}/"
    if parent_name == "src" and (name.endswith("Test") or name.startswith("test")) and name != "testing":
        return f"src/{name}/"
    if name.endswith(TEST_PROJECT_SUFFIXES):
        return f"*{name[name.rfind('.') :]}/"
    if name in TEST_PROJECT_NAMES:
        return f"{name}/"
    return None


def fixture_dir(name: str) -> bool:
    return name in FIXTURE_DIRS


def example_dir(name: str, at_top: bool) -> bool:
    lower = name.lower()
    return lower in EXAMPLE_DIRS or (at_top and lower in TOP_EXAMPLE_DIRS)


def linguist_folder(parent: str, name: str) -> linguist.Says:
    """Linguist's answer for the folder ``name`` in ``parent``, less the rules not taken."""
    says = linguist.new_in_folder(parent, name)
    if says.vendored and (name in NOT_VENDORED_DIRS or (parent and name in NOT_VENDORED_BELOW_ROOT)):
        return says._replace(vendored=False)
    return says
