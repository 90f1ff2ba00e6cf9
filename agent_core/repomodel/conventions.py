"""What a path is for, by documented conventions: the rule tables of the repository model.

Vendored, generated and documentation paths follow GitHub Linguist, the library GitHub itself uses to
leave such files out of a repository's language statistics:

- ``lib/linguist/vendor.yml`` (github-linguist/linguist): ``node_modules/``, ``bower_components/``,
  ``vendors?/``, ``third[-_]?party/``, ``3rd[-_]?party/``, ``extern(al)?/``, ``(^|/)dist/``,
  ``Godeps/_workspace/``, ``^deps/``, ``^Carthage/``, ``^Pods/``, ``(^|/)gradle/wrapper/``,
  ``gradlew``, minified ``(\\.|-)min\\.(js|css)$``. Not taken: its ``(^|/)cache/`` and ``^tools/``
  rules, which would call a project's own ``pkg/cache`` package or ``tools/`` scripts vendored.
- ``lib/linguist/generated.rb``: protocol buffers (``*.pb.go``, ``*_pb2.py``, ``*.pb.cc``...), lock
  files (``package-lock.json``, ``yarn.lock``, ``Cargo.lock``, ``go.sum``...), source maps,
  ``__generated__/``, ``zz_generated.*.go``, ``*.designer.cs``, ``*.g.dart``.
- ``lib/linguist/documentation.yml``: ``^docs?/``, ``^Documentation/``, and ``README``, ``CONTRIBUTING``,
  ``LICENSE``/``LICENCE``, ``COPYING`` at any depth. Prose files (``.md``, ``.rst``, ``.adoc``) and
  ``CHANGELOG`` count as documentation too.

Tests follow each language's own convention: Go ``_test.go``; JavaScript/TypeScript
``*.spec|test.[cm]?[jt]sx?`` and ``__tests__/``; pytest ``test_*.py``, ``*_test.py``, ``conftest.py``;
Ruby ``*_spec.rb``/``*_test.rb``; JUnit ``*Test.java``/``*Tests.kt``; a ``tests/``/``test/`` folder of a
package (Rust integration tests, Python, Java's ``src/test/``); Go ``testdata/``. A folder named
``spec/`` is not tests by itself (a plugin's ``spec/`` of JSON schemas is not a test suite).

Matching is by path segment and name suffix (sets and ``str.endswith`` tuples), never one regular
expression per rule per path: the model is built in one pass over a 100,000-entry tree.
"""

from __future__ import annotations

from typing import Literal

Role = Literal["source", "tests", "docs", "examples", "vendored", "generated", "build", "ci"]
ROLES: tuple[Role, ...] = ("source", "tests", "docs", "examples", "vendored", "generated", "build", "ci")

#: Folders whose content is vendored, at any depth (Linguist's vendor.yml).
VENDORED_DIRS = frozenset(
    {
        "vendor",
        "vendors",
        "Vendor",
        "node_modules",
        "bower_components",
        "jspm_packages",
        "third_party",
        "third-party",
        "thirdparty",
        "3rd_party",
        "3rd-party",
        "3rdparty",
        "extern",
        "external",
        "dist",
        "Godeps",
        "ace-builds",
        "MathJax",
        "bootstrap-datepicker",
    }
)
#: Folders vendored only at the repository's root (``^deps/``, ``^Carthage/``, ``^Pods/``).
ROOT_VENDORED_DIRS = frozenset({"deps", "Carthage", "Pods", "Dependencies", "dependencies"})
#: File names vendored wherever they are (the Gradle wrapper).
VENDORED_NAMES = frozenset({"gradlew", "gradlew.bat", "cpplint.py"})
#: Minified files (lower-cased name suffixes).
MINIFIED_SUFFIXES = (".min.js", ".min.css", "-min.js", "-min.css", ".min.mjs")

#: Folders whose content is generated (generated.rb: GraphQL relay, Yarn's cache and releases).
GENERATED_DIRS = frozenset({"__generated__", ".yarn", "__snapshots__"})
#: Generated file names (lower-cased): lock files and other tool output (generated.rb).
GENERATED_NAMES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lockb",
        "bun.lock",
        "deno.lock",
        "cargo.lock",
        "gopkg.lock",
        "glide.lock",
        "go.sum",
        "go.work.sum",
        "composer.lock",
        "poetry.lock",
        "pipfile.lock",
        "uv.lock",
        "pdm.lock",
        "gemfile.lock",
        "flake.lock",
        "pubspec.lock",
        "mix.lock",
        "package.resolved",
        "packages.lock.json",
        ".pnp.js",
        ".pnp.cjs",
        ".pnp.loader.mjs",
    }
)
#: Generated file name suffixes (lower-cased): protocol buffers, gRPC stubs, source maps, designers.
GENERATED_SUFFIXES = (
    ".pb.go",
    ".pb.gw.go",
    "_pb2.py",
    "_pb2.pyi",
    "_pb2_grpc.py",
    ".pb.cc",
    ".pb.h",
    "_pb.js",
    "_pb.d.ts",
    "_grpc_pb.js",
    "_grpc_pb.d.ts",
    ".pb.swift",
    ".pb.dart",
    ".pbobjc.h",
    ".pbobjc.m",
    ".pb.rs",
    ".js.map",
    ".css.map",
    ".designer.cs",
    ".g.dart",
    ".freezed.dart",
    ".g.cs",
)
GENERATED_PREFIXES = ("zz_generated.",)

#: Documentation folders at the root (documentation.yml: ``^docs?/``, ``^Documentation/``).
ROOT_DOC_DIRS = frozenset({"docs", "doc", "Documentation", "documentation", "Docs"})
#: Documentation file names at any depth, by lower-cased stem (documentation.yml, and change logs).
DOC_STEMS = frozenset({"readme", "contributing", "license", "licence", "copying", "changelog", "changes"})
DOC_SUFFIXES = (".md", ".mdx", ".rst", ".adoc", ".asciidoc")

#: Example folders at any depth.
EXAMPLE_DIRS = frozenset(
    {"examples", "example", "_examples", "samples"}
)  # not "demo": a package may be named so

#: Test folders at any depth: a package's tests (label: the folder, ``src/test/`` for Maven/Gradle).
TEST_DIRS = frozenset({"tests", "test", "__tests__", "Tests", "testdata", "integration-tests"})
_JS_EXTENSIONS = frozenset({"js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"})
_JVM_TEST_SUFFIXES = ("Test.java", "Tests.java", "IT.java", "Test.kt", "Tests.kt", "Test.scala", "Spec.scala")

#: Build configuration by lower-cased file name (manifests, build systems, toolchains, containers).
BUILD_NAMES = frozenset(
    {
        "makefile",
        "gnumakefile",
        "cmakelists.txt",
        "meson.build",
        "meson_options.txt",
        "configure.ac",
        "makefile.am",
        "build",
        "build.bazel",
        "workspace",
        "workspace.bazel",
        "module.bazel",
        ".bazelrc",
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "tox.ini",
        "noxfile.py",
        "pipfile",
        "environment.yml",
        "environment.yaml",
        "package.json",
        "tsconfig.json",
        "lerna.json",
        "nx.json",
        "turbo.json",
        "pnpm-workspace.yaml",
        ".npmrc",
        "go.mod",
        "go.work",
        "cargo.toml",
        "rust-toolchain",
        "rust-toolchain.toml",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "gradle.properties",
        "build.sbt",
        "gemfile",
        "rakefile",
        "composer.json",
        "mix.exs",
        "pubspec.yaml",
        "deno.json",
        "justfile",
        "taskfile.yml",
        "taskfile.yaml",
        "dockerfile",
        "containerfile",
        "compose.yaml",
        "compose.yml",
        ".goreleaser.yml",
        ".goreleaser.yaml",
        "directory.build.props",
        "global.json",
    }
)
BUILD_PREFIXES = ("requirements", "docker-compose", "dockerfile.", "tsconfig.")
BUILD_SUFFIXES = (".cmake", ".mk", ".gemspec", ".csproj", ".fsproj", ".sln", ".bzl")
_BUILD_CONFIG_STEMS = (
    "webpack.config.",
    "vite.config.",
    "rollup.config.",
    "babel.config.",
    "esbuild.config.",
)


def vendored_name(lower: str) -> bool:
    """A file vendored by its name alone (minified, the Gradle wrapper)."""
    return lower.endswith(MINIFIED_SUFFIXES) or lower in VENDORED_NAMES


def generated_name(lower: str) -> bool:
    """A file generated by its name alone (lock files, protocol buffers, source maps...)."""
    return (
        lower in GENERATED_NAMES or lower.endswith(GENERATED_SUFFIXES) or lower.startswith(GENERATED_PREFIXES)
    )


def doc_name(name: str, lower: str) -> bool:
    """A documentation file by its name: README, LICENSE..., or prose (``.md``, ``.rst``)."""
    return lower.split(".", 1)[0] in DOC_STEMS or lower.endswith(DOC_SUFFIXES)


def build_name(lower: str) -> bool:
    """A build configuration file by its name (manifests, build systems, containers)."""
    return (
        lower in BUILD_NAMES
        or (
            lower.startswith(BUILD_PREFIXES)
            and (lower.endswith(".txt") or lower.startswith(("docker", "tsconfig.")))
        )
        or lower.endswith(BUILD_SUFFIXES)
        or lower.startswith(_BUILD_CONFIG_STEMS)
    )


def test_name(name: str) -> str | None:
    """The test convention a file name follows (its label, e.g. ``_test.go``, ``*.spec.ts``), or None."""
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
    if ext in ("java", "kt", "scala"):
        return next((f"*{suffix}" for suffix in _JVM_TEST_SUFFIXES if name.endswith(suffix)), None)
    if ext == "php" and name.endswith("Test.php"):
        return "*Test.php"
    return None


def test_dir_label(parent_name: str, name: str) -> str | None:
    """The label of a test folder (``tests/``, ``src/test/``, ``__tests__/``), or None."""
    if name not in TEST_DIRS:
        return None
    return "src/test/" if name == "test" and parent_name == "src" else f"{name}/"
