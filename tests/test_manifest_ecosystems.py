"""Every major ecosystem's manifests, parsed from REAL files copied from public repositories
(``tests/fixtures/manifests/``, sources and cuts in its ``SOURCES.md``): what each parser yields, the
repository's own packages, the test framework, packages per ecosystem, and linear work on hostile input."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_core.agent.planner import OfflinePlanner
from agent_core.repomodel.counts import ecosystem_counts
from agent_core.repomodel.packages import (
    Globs,
    is_test_package,
    manifest_ecosystem,
    packages_of,
    workspace_member,
)
from agent_core.report.facts import build_facts, gather
from agent_core.report.frameworks import framework_of_package
from agent_core.report.frameworks import test_frameworks as frameworks_of
from agent_core.report.manifest_words import manifest_text
from agent_core.report.manifests import (
    Manifest,
    is_own,
    own_package_names,
    parse_manifest,
    read_manifests,
    root_workspaces,
)
from agent_core.report.writer import written
from agent_core.sources.manifest_files import (
    PARSE_MAX_BYTES,
    is_parsed_manifest,
    manifest_rank,
    manifests_to_read,
)
from agent_core.sources.models import FileContent
from agent_core.tools.results import ToolResult
from agent_core.words import Language, words_for
from testing.linear import least_cpu
from tests.test_planner import overview
from tests.test_repomodel import tree_of
from tests.test_report import DEMO, github_results, result, section, text_file

FIXTURES = Path(__file__).parent / "fixtures" / "manifests"


def fixture(name: str, path: str | None = None) -> Manifest:
    manifest = parse_manifest(path or name, (FIXTURES / name).read_text(encoding="utf-8"))
    assert manifest.status == "parsed", manifest.detail
    return manifest


def names(deps: object) -> list[str]:
    return [d.name for d in deps]  # type: ignore[attr-defined]


def read_all(files: dict[str, str]) -> tuple[Manifest, ...]:
    return read_manifests(
        {p: FileContent(path=p, text=t, kind="file", size=len(t)) for p, t in files.items()}
    )


# ---------------------------------------------------------------------------------------- Ruby


def test_a_gemspec_names_the_gem_and_its_dependencies_with_constraints() -> None:
    gem = fixture("activesupport.gemspec", "activesupport/activesupport.gemspec")
    assert gem.name == "activesupport"
    assert [d.text() for d in gem.runtime] == [
        "i18n~> 0.3.6",
        "tzinfo~> 0.3.16",
        "builder~> 2.1.2",
        "memcache-client>= 1.7.5",
    ]
    assert gem.description is not None and gem.description.startswith("A toolkit of support libraries")
    rails = fixture("rails.gemspec")
    assert (rails.name, rails.version) == ("rails", "3.0.0.beta")
    assert names(rails.runtime)[:2] == ["activesupport", "actionpack"]


def test_a_gemfile_keeps_its_groups_apart_and_reads_constraints() -> None:
    gemfile = fixture("Gemfile")  # rails': it says `gemspec`, so its top level is for development
    assert gemfile.runtime == ()
    runtime = {d.name: d.spec for d in gemfile.dev}
    assert runtime["minitest"] == ">= 5.15.0"
    assert runtime["json"] == ">= 2.0.0, !=2.7.0"  # two constraints
    assert runtime["bcrypt"] == "~> 3.1.11"  # `require: false` is an option, not a constraint
    assert runtime["nokogiri"] == ">= 1.8.1, != 1.11.0"  # inside `platforms ... do`: still runtime
    groups = {name: names(deps) for name, deps in gemfile.groups}
    assert groups["test"] == ["minitest-bisect", "minitest-retry", "stackprof", "debug", "benchmark-ips"]
    assert groups["doc"] == ["sdoc", "rdoc"]
    assert groups["db"] == ["pg", "mysql2"]  # a group nested in a platforms block
    assert gemfile.dependency_groups()["documentation"] == ("sdoc", "rdoc")
    assert frameworks_of([gemfile]) == ("Minitest",)
    app = parse_manifest("Gemfile", "source 'https://rubygems.org'\ngem 'rails', '~> 8.0'\n")
    assert names(app.runtime) == ["rails"] and app.dev == ()  # an application's Gemfile: runtime


# ---------------------------------------------------------------------------------------- .NET


def test_a_solution_lists_its_projects_not_its_folders() -> None:
    sln = fixture("Polly.sln")
    assert sln.workspaces == (
        "src/Polly",
        "test/Polly.Specs",
        "bench/Polly.Benchmarks",
        "src/Polly.Core",
        "test/Polly.Core.Tests",
        "src/Polly.Extensions",
        "test/Polly.Extensions.Tests",
        "test/Polly.TestUtils",
    )  # "Solution Items", "eng" and "test" are solution folders: skipped
    assert "Polly.Core.Tests" in sln.own_names


def test_a_test_project_its_references_and_central_versions() -> None:
    tests = fixture("Serilog.Tests.csproj", "test/Serilog.Tests/Serilog.Tests.csproj")
    assert tests.test_project and tests.name == "Serilog.Tests"
    assert tests.runtime == ()  # what a test project references is for testing
    assert {d.name: d.spec for d in tests.dev}["xunit"] == "2.4.2"
    assert names(dict(tests.groups)["build"]) == [
        "xunit.runner.visualstudio",
        "coverlet.msbuild",
    ]  # PrivateAssets
    assert tests.own_names == ("Serilog", "TestDummies")  # project references: the repository's own
    assert frameworks_of([tests]) == ("xUnit",)

    core = "src/Polly.Core/Polly.Core.csproj"
    manifests = read_all(
        {
            core: (FIXTURES / "Polly.Core.csproj").read_text(),
            "Directory.Packages.props": (FIXTURES / "Directory.Packages.props").read_text(),
        }
    )
    by_path = {m.path: m for m in manifests}
    assert by_path[core].name == "Polly.Core" and not by_path[core].test_project
    # no Version on the PackageReference: the central one
    assert {d.name: d.spec for d in by_path[core].runtime}["System.ValueTuple"] == "4.5.0"
    central = {d.name: d.spec for d in by_path["Directory.Packages.props"].versions}
    assert central["Polly.Core"] == "8.0.0"  # $(PollyVersion) from the file's own properties
    assert central["xunit"] == "2.5.1"
    assert frameworks_of(manifests) == ("xUnit",)  # declared centrally (Polly's csproj says ProjectType Test)


def test_a_cut_or_unbalanced_msbuild_file_is_read_item_by_item_and_a_tests_folder_is_a_test_project() -> None:
    text = (FIXTURES / "Directory.Packages.props").read_text()
    cut = parse_manifest("Directory.Packages.props", text[: text.index('<PackageVersion Include="xunit"')])
    assert cut.status == "parsed"  # not well-formed XML any more
    assert {d.name: d.spec for d in cut.versions}["Polly.Core"] == "8.0.0"  # $(PollyVersion) still resolved
    unbalanced = parse_manifest(
        "Directory.Packages.props", text.replace("</ItemGroup>", "</ItemGroup></ItemGroup>", 1)
    )
    assert {d.name: d.spec for d in unbalanced.versions}["xunit"] == "2.5.1"
    no_sdk = '<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageReference Include="Shouldly" /></ItemGroup></Project>'
    project = parse_manifest(
        "test/Polly.Core.Tests/Polly.Core.Tests.csproj", no_sdk
    )  # the SDK comes from a .targets
    assert project.test_project and names(project.dev) == ["Shouldly"] and project.runtime == ()


def test_global_json_and_hostile_xml() -> None:
    assert parse_manifest("global.json", '{"sdk": {"version": "8.0.100"}}').toolchain == ".NET SDK 8.0.100"
    bomb = '<?xml version="1.0"?><!DOCTYPE p [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><Project>&b;</Project>'
    assert parse_manifest("x/x.csproj", bomb).status == "invalid"


# ---------------------------------------------------------------------------------------- PHP


def test_composer_platform_requirements_replace_and_dev() -> None:
    composer = fixture("composer.json")
    assert composer.name == "laravel/framework"
    assert "php" not in names(composer.runtime)  # a platform requirement, not a package
    assert composer.toolchain == "PHP >=5.3.0"
    assert {d.name: d.spec for d in composer.dev}["phpunit/phpunit"] == "4.0.*"
    assert composer.own_names[0] == "illuminate/auth"
    own = own_package_names([composer])
    assert {"laravel/framework", "illuminate/support"} <= own
    assert frameworks_of([composer]) == ("PHPUnit",)


# ---------------------------------------------------------------------------------------- JVM


def test_maven_parent_modules_managed_versions_and_test_scope() -> None:
    parent = fixture("pom.xml")
    assert parent.workspaces[:2] == ("gson", "test-jpms") and parent.runtime == ()
    assert {d.name: d.spec for d in parent.versions}["junit:junit"] == "4.13.2"  # dependencyManagement
    module = fixture("gson.pom.xml", "gson/pom.xml")
    assert (module.name, module.parent) == ("gson", "com.google.code.gson:gson-parent")
    assert names(module.runtime) == ["com.google.errorprone:error_prone_annotations"]
    assert names(module.dev)[:2] == ["junit:junit", "com.google.truth:truth"]
    assert "com.google.code.gson:gson" in own_package_names([module])
    assert frameworks_of([parent, module]) == ("JUnit 4",)


def test_gradle_catalog_references_resolve_to_group_and_artifact() -> None:
    manifests = read_all(
        {
            "gradle/libs.versions.toml": (FIXTURES / "libs.versions.toml").read_text(),
            "okhttp-logging-interceptor/build.gradle.kts": (FIXTURES / "build.gradle.kts").read_text(),
        }
    )
    build = next(m for m in manifests if m.path.endswith("build.gradle.kts"))
    assert {d.name: d.spec for d in build.dev}["junit:junit"] == "4.13.2"  # libs.junit via [versions]
    assert "com.willowtreeapps.assertk:assertk" in names(build.dev)
    assert names(build.runtime) == ["com.google.code.findbugs:jsr305"]  # compileOnly(libs.findbugs.jsr305)
    assert "okhttp" in build.own_names  # projects.okhttp: the repository's own, never a dependency
    catalog = next(m for m in manifests if m.path.endswith(".toml"))
    assert {d.name: d.spec for d in catalog.versions}["org.junit.jupiter:junit-jupiter-api"] == "5.13.4"
    assert frameworks_of([build]) == ("JUnit 4",)


def test_gradle_kotlin_multiplatform_test_source_sets_are_development() -> None:
    script = (
        "kotlin {\n  sourceSets {\n    commonMain {\n      dependencies {\n"
        '        implementation("org.jetbrains.kotlinx:kotlinx-coroutines-core:1.8.0")\n      }\n    }\n'
        '    commonTest {\n      dependencies {\n        implementation(kotlin("test"))\n      }\n    }\n  }\n}\n'
        'dependencies {\n  testImplementation(platform("org.junit:junit-bom:5.10.0"))\n'
        '  implementation(project(":core"))\n}\n'
    )
    build = parse_manifest("lib/build.gradle.kts", script)
    assert names(build.runtime) == ["org.jetbrains.kotlinx:kotlinx-coroutines-core"]
    assert names(build.dev) == ["org.jetbrains.kotlin:kotlin-test", "org.junit:junit-bom"]
    assert build.own_names == ("core",)
    assert frameworks_of([build]) == ("JUnit 5", "kotlin.test")


def test_gradle_buildscript_classpath_is_the_builds_not_runtime() -> None:
    """A root build.gradle's ``buildscript { dependencies { classpath ... } }`` lists Gradle plugins: build
    dependencies, said as such ("runtime dependencies (9)" was false on square/retrofit)."""
    script = (
        "buildscript {\n  dependencies {\n    classpath libs.androidPlugin\n"
        "    classpath 'com.diffplug.spotless:spotless-plugin-gradle:6.25.0'\n  }\n}\n"
        "dependencies {\n  api libs.okhttp\n  testImplementation libs.junit\n}\n"
    )
    build = parse_manifest("build.gradle", script)
    assert names(build.runtime) == ["libs.okhttp"] and names(build.dev) == ["libs.junit"]
    assert [(group, names(list(deps))) for group, deps in build.groups] == [
        ("build", ["libs.androidPlugin", "com.diffplug.spotless:spotless-plugin-gradle"])
    ]
    text = manifest_text(build, words_for("en"))
    assert "build dependencies (2): `libs.androidPlugin`" in text and "runtime dependencies (1)" in text


# ---------------------------------------------------------------------------------- JavaScript


def test_pnpm_catalog_versions_resolve_in_the_members() -> None:
    package = (
        '{"name": "@vue/compiler-sfc", "dependencies": {"@babel/parser": "catalog:", "postcss": "^8.4.48"}}'
    )
    manifests = read_all(
        {
            "pnpm-workspace.yaml": (FIXTURES / "pnpm-workspace.yaml").read_text(),
            "packages/compiler-sfc/package.json": package,
        }
    )
    workspace, member = sorted(manifests, key=lambda m: m.path.endswith(".yaml"), reverse=True)
    assert workspace.workspaces == ("packages/*", "packages-private/*")
    assert {d.name: d.spec for d in workspace.versions}["entities"] == "^7.0.1"
    assert {d.name: d.spec for d in member.runtime} == {"@babel/parser": "^7.29.0", "postcss": "^8.4.48"}


def test_a_pnpm_workspace_names_the_members_of_the_repository_model() -> None:
    tree = tree_of(
        "package.json", "pnpm-workspace.yaml", "packages/vue/package.json", "scripts/x/package.json"
    )
    reads = {
        "package.json": '{"name": "root", "private": true}',  # no workspaces: pnpm keeps them apart
        "pnpm-workspace.yaml": (FIXTURES / "pnpm-workspace.yaml").read_text(),
    }
    results = [
        *_metadata(github_results()),
        result("get_file_tree", DEMO, tree, path=""),
        *(result("read_file", DEMO, text_file(p, t), path=p) for p, t in reads.items()),
    ]
    model = build_facts(gather(DEMO, results, words_for("en"))).model
    assert model is not None
    assert {p.path: p.member_of_workspace for p in model.packages} == {  # the private root is none
        "packages/vue": True,
        "scripts/x": False,
    }


# ---------------------------------------------------------------------------------------- Rust, Go


def test_cargo_workspace_members_and_inherited_versions() -> None:
    root = fixture("Cargo.toml")
    assert root.workspaces[:3] == ("tokio", "tokio-macros", "tokio-test")
    manifests = read_all(
        {
            "Cargo.toml": '[workspace]\nmembers = ["a"]\n[workspace.dependencies]\nserde = "1.0.190"\n',
            "a/Cargo.toml": '[package]\nname = "a"\n[dependencies]\nserde = { workspace = true }\n'
            'b = { path = "../b" }\n',
        }
    )
    member = next(m for m in manifests if m.path == "a/Cargo.toml")
    assert {d.name: d.spec for d in member.runtime}["serde"] == "1.0.190"
    assert {"a", "b"} <= own_package_names(manifests)


def test_go_work_uses_modules() -> None:
    work = fixture("go.work")
    assert (work.workspaces, work.go_version) == (("code/go/0chain.net",), "1.21")
    block = parse_manifest("go.work", "go 1.22\n\nuse (\n\t./api\n\t./cmd/tool // the CLI\n)\n")
    assert block.workspaces == ("api", "cmd/tool")


# ---------------------------------------------------------------------------------------- C and C++


def test_cmake_project_subdirectories_and_packages() -> None:
    fmt = fixture("CMakeLists.txt")
    assert fmt.name == "FMT"
    assert fmt.workspaces == ("doc", "test", "test/fuzzing")
    script = (
        "project(demo VERSION 1.4.2 LANGUAGES CXX)  # the project\n"
        "find_package(Threads REQUIRED)\nfind_package(GTest 1.12 CONFIG REQUIRED)\n"
        'include(FetchContent)\nFetchContent_Declare(\n  catch2\n  GIT_REPOSITORY "https://github.com/catchorg/Catch2.git"\n'
        "  GIT_TAG v3.5.2\n)\n"
    )
    demo = parse_manifest("CMakeLists.txt", script)
    assert (demo.name, demo.version) == ("demo", "1.4.2")
    assert [d.text() for d in demo.runtime] == ["gtest 1.12", "catch2 v3.5.2"]  # Threads is CMake's own
    assert frameworks_of([demo]) == ("GoogleTest", "Catch2")


def test_a_bundled_googletest_linked_by_a_target_names_the_framework() -> None:
    script = "add_subdirectory(gtest)\nadd_executable(test-main test-main.cc)\ntarget_link_libraries(test-main gtest fmt)\n"
    tests = parse_manifest("test/CMakeLists.txt", script)  # fmtlib/fmt's test/CMakeLists.txt, cut
    assert (names(tests.dev), tests.workspaces) == (["gtest"], ("gtest",))
    assert frameworks_of([tests]) == ("GoogleTest",)


def test_a_test_runner_named_only_in_scripts_is_the_framework() -> None:
    package = parse_manifest(
        "package.json", '{"scripts": {"test-serve": "vitest run -c vitest.config.e2e.ts"}}'
    )
    assert frameworks_of([package]) == ("Vitest",)  # vitejs/vite's root declares it through a catalog


def test_meson_vcpkg_and_conan() -> None:
    meson = fixture("meson.build")
    assert (meson.name, meson.version) == ("harfbuzz", "6.0.0")
    assert names(meson.runtime) == ["glib-2.0", "gobject-2.0", "graphite2", "chafa"]
    assert meson.workspaces == ("src", "util", "test", "perf", "docs")
    assert names(fixture("vcpkg.json").runtime) == [
        "boost-atomic",
        "boost-chrono",
        "boost-container",
        "boost-zlib",
    ]
    conan = fixture("conanfile.txt")
    assert conan.runtime[0].text() == "zlib 1.2.11"
    assert "tsl-robin-map" in names(conan.runtime) and "opencv" not in names(conan.runtime)  # commented out
    py = parse_manifest(
        "conanfile.py",
        'class App(ConanFile):\n    name = "app"\n    requires = "fmt/10.1.1", "spdlog/1.12.0"\n'
        '    def build_requirements(self):\n        self.test_requires("gtest/1.14.0")\n',
    )
    assert (names(py.runtime), names(py.dev), py.name) == (["fmt", "spdlog"], ["gtest"], "app")


# ----------------------------------------------------------------------------- the repository model


def test_every_ecosystems_manifest_is_a_package_or_kept_whole() -> None:
    for name in ("a.gemspec", "A.csproj", "A.fsproj", "A.vbproj", "composer.json", "CMakeLists.txt"):
        assert manifest_ecosystem(name) is not None, name
    for name in ("A.sln", "Gemfile", "Directory.Packages.props", "global.json", "go.work"):
        assert manifest_ecosystem(name) is None and is_parsed_manifest(name), name
    assert is_parsed_manifest("gradle/libs.versions.toml") and not is_parsed_manifest("README.md")


def test_a_dotnet_solution_counts_its_test_projects_and_cmake_counts_top_folders() -> None:
    projects = [(f"src/P{i}", f"src/P{i}/P{i}.csproj") for i in range(8)]
    projects += [(f"test/P{i}.Tests", f"test/P{i}.Tests/P{i}.Tests.csproj") for i in range(16)]
    cmake = [("", "CMakeLists.txt"), ("test", "test/CMakeLists.txt"), ("tools/x", "tools/x/CMakeLists.txt")]
    packages = packages_of([*projects, *cmake, ("", "a.gemspec")])
    counts = {c.ecosystem: (c.packages, c.tests) for c in ecosystem_counts(packages)}
    assert counts["nuget"] == (24, 16)
    assert counts["cmake"] == (1, 0)  # the nested CMakeLists.txt files are the root project's parts
    assert counts["rubygems"] == (1, 0)


def test_what_is_not_a_package_in_real_monorepo_shapes() -> None:
    """Shapes from vuejs/core, vitejs/vite, rails/rails, kotlinx.serialization, phpunit and autogen."""
    found = [
        ("", "package.json"),  # the workspaces' private root
        ("packages/vue", "packages/vue/package.json"),
        ("packages/vue/server-renderer", "packages/vue/server-renderer/package.json"),  # an entry's stub
        ("packages/create-vite/template-react", "packages/create-vite/template-react/package.json"),
        (
            "packages/create-vite/template-vue",
            "packages/create-vite/template-vue/package.json",
        ),  # scaffolding
        ("packages-private/template-explorer", "packages-private/template-explorer/package.json"),
        ("packages/vite", "packages/vite/package.json"),
        (
            "packages/vite/src/node/__tests__/packages/child",
            "packages/vite/src/node/__tests__/packages/child/package.json",
        ),
        ("railties", "railties/railties.gemspec"),
        ("railties/test/isolation/assets", "railties/test/isolation/assets/package.json"),  # test data
        ("gems/x/spec/fixtures/app", "gems/x/spec/fixtures/app/x.gemspec"),
        ("gems/x", "gems/x/x.gemspec"),
        ("buildSrc", "buildSrc/build.gradle.kts"),
        ("tools/.phpstan", "tools/.phpstan/composer.json"),
        ("python/templates/{{cookiecutter.name}}", "python/templates/{{cookiecutter.name}}/pyproject.toml"),
        (
            "test/Polly.Core.Tests",
            "test/Polly.Core.Tests/Polly.Core.Tests.csproj",
        ),  # a root test folder: kept
    ]
    packages = packages_of(found, globs=["packages/*"])
    assert {p.manifest: p.test for p in packages} == {
        "packages/vue/package.json": False,
        "packages/vite/package.json": False,
        "packages-private/template-explorer/package.json": False,  # one template-* folder: a package
        "railties/railties.gemspec": False,
        "gems/x/x.gemspec": False,
        "test/Polly.Core.Tests/Polly.Core.Tests.csproj": True,
    }


@pytest.mark.parametrize(
    ("folder", "ecosystem", "test"),
    [
        ("Src/AutoFixtureUnitTest", "nuget", True),
        ("Src/AutoFixture.xUnit2.UnitTest", "nuget", True),
        ("test/Polly.TestUtils", "nuget", False),  # a helper library in the test folder
        ("src/Illuminate/Testing", "composer", False),  # Laravel's testing component
        ("formats/json-tests", "gradle", True),
        ("tests-integration", "cargo", True),
        ("component/componenttest", "go", True),
        ("contest", "npm", False),
    ],
)
def test_a_test_package_by_its_own_name(folder: str, ecosystem: str, test: bool) -> None:
    assert is_test_package(folder, ecosystem) is test


def test_the_roots_manifests_say_which_examples_are_packages_and_which_roots_are_none() -> None:
    """An example a workspace names by its path is a package (tokio's "examples" member, okhttp's
    samples included by settings.gradle); a glob such as vite's ``playground/**`` (200 playgrounds) is
    no such choice; a Cargo ``[workspace]`` without ``[package]`` is no package."""
    found = [("helix-stdx", "helix-stdx/Cargo.toml"), ("", "Cargo.toml")]
    examples = [("examples", "examples/Cargo.toml"), ("playground/alias", "playground/alias/package.json")]
    members, virtual = root_workspaces(
        [
            parse_manifest("Cargo.toml", '[workspace]\nmembers = ["helix-*", "examples"]\n'),
            parse_manifest("pnpm-workspace.yaml", "packages:\n  - 'playground/**'\n"),
        ]
    )
    assert (members, virtual) == (("helix-*", "examples", "playground/**"), ("",))
    packages = packages_of(found, examples=examples, members=members, virtual=virtual)
    assert [p.manifest for p in packages] == ["examples/Cargo.toml", "helix-stdx/Cargo.toml"]


def test_own_packages_are_never_dependencies() -> None:
    manifests = read_all(
        {
            "package.json": '{"name": "root", "workspaces": ["packages/*"], "devDependencies": {"ui": "workspace:*"}}',
            "packages/ui/package.json": '{"name": "ui", "dependencies": {"react": "^18"}}',
        }
    )
    own = own_package_names(manifests)
    assert {"root", "ui"} <= own and "react" not in own


def test_a_framework_counts_in_its_own_ecosystem_and_where_its_tests_are() -> None:
    """rspec/rspec's Gemfile declares minitest, test-unit and mocha (a Ruby mocking gem) for integration
    checks; all its tests are specs. phpunit/phpunit tests itself."""
    gemfile = parse_manifest(
        "Gemfile", 'gem "rspec-core"\ngem "minitest", "~> 5.15"\ngem "mocha"\ngem "test-unit"\n'
    )
    assert frameworks_of([gemfile]) == ("RSpec", "Minitest", "Test::Unit")  # no JavaScript Mocha
    specs = [
        "rspec-core/spec/rspec/core_spec.rb",
        "rspec-core/spec/support/fake_libs/test/unit/assertions.rb",
    ]
    assert frameworks_of([gemfile], test_paths=specs) == ("RSpec",)
    assert frameworks_of([gemfile], test_paths=[*specs, "test/x_test.rb"]) == (
        "RSpec",
        "Minitest",
        "Test::Unit",
    )
    phpunit = parse_manifest("composer.json", '{"name": "phpunit/phpunit", "require": {"php": ">=8.3"}}')
    assert frameworks_of([phpunit]) == ("PHPUnit",)


def test_own_names_in_every_spelling_and_by_artifact() -> None:
    manifests = read_all(
        {
            "python/packages/autogen-core/pyproject.toml": '[project]\nname = "autogen-core"\n',
            "settings.gradle.kts": 'include(":kotlinx-serialization-core")\n',
        }
    )
    own = own_package_names(manifests)
    assert is_own("autogen_core", own) and is_own("Autogen-Core", own)
    assert is_own("org.jetbrains.kotlinx:kotlinx-serialization-core", own)
    assert not is_own("org.jetbrains.kotlinx:kotlinx-coroutines-core", own)
    bom = parse_manifest("package.json", '\ufeff{"name": "utf8-bom-package"}')
    assert (bom.status, bom.name) == ("parsed", "utf8-bom-package")


def test_framework_names_from_package_names() -> None:
    cases = {
        "org.junit.jupiter:junit-jupiter-params": "JUnit 5",
        "xunit.extensibility.core": "xUnit",
        "NUnit3TestAdapter": "NUnit",
        "minitest-retry": "Minitest",
        "rspec-expectations": "RSpec",
        "gtest": "GoogleTest",
        "@vitest/coverage-v8": "Vitest",
        "pestphp/pest": "Pest",
    }
    assert {n: getattr(framework_of_package(n), "name", None) for n in cases} == cases
    assert framework_of_package("Microsoft.NET.Test.Sdk") is None  # the runner host, no framework


# ---------------------------------------------------------------------------------------- planner


def test_the_planner_reads_package_manifests_of_every_ecosystem_and_a_test_project() -> None:
    paths = [f"src/P{i}/P{i}.csproj" for i in range(30)]
    paths += [f"test/P{i}.Tests/P{i}.Tests.csproj" for i in range(20)]
    paths += [f"gems/g{i}/g{i}.gemspec" for i in range(10)] + ["vendor/bundle/x/x.gemspec", "a/b/README.md"]
    picked = manifests_to_read(paths, limit=6)
    assert len(picked) == 6
    assert any(p.startswith("test/") for p in picked)  # the test framework gets observed
    assert any(p.endswith(".gemspec") for p in picked) and any(p.startswith("src/") for p in picked)
    assert not any(p.startswith("vendor/") for p in picked)
    assert sorted(["P.sln", "pyproject.toml", "a/Cargo.toml"], key=manifest_rank) == [
        "pyproject.toml",
        "P.sln",
        "a/Cargo.toml",
    ]


def test_within_its_read_budget_the_planner_reads_a_dotnet_test_project() -> None:
    projects = [f"src/Lib{i}/Lib{i}.csproj" for i in range(8)]
    projects += [f"test/Lib{i}.Tests/Lib{i}.Tests.csproj" for i in range(16)]
    roots = (
        "README.md",
        "LICENSE",
        "Polly.sln",
        "Directory.Packages.props",
        "Directory.Build.props",
        "global.json",
    )
    tree = tree_of(*roots, ".github/workflows/ci.yml", *projects)
    step = OfflinePlanner([DEMO]).next_step(overview(DEMO, tree))
    assert step is not None
    read = [c.args.get("path") for c in step.calls if c.tool == "read_file"]
    assert read[:3] == ["README.md", "Polly.sln", "Directory.Packages.props"]
    assert "test/Lib0.Tests/Lib0.Tests.csproj" in read  # the test framework gets observed
    assert len(step.calls) <= 8  # the per-repository budget


# ----------------------------------------------------------------------------------- bounded work


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_200_many_star_globs_over_a_2000_folder_deep_tree_stay_linear() -> None:
    globs = [f"**/a/**/a/**/a/zz{i}" for i in range(200)]
    folders = ["/".join(["a"] * depth) for depth in range(1, 2001)]  # a/a/a/... 2,000 deep
    started = time.process_time()
    matcher = Globs(globs)
    members = [f for f in folders if matcher.member(f)]
    assert time.process_time() - started < 1.0
    assert members == []
    assert workspace_member("x/a/y/a/a/zz7", globs)


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
@pytest.mark.parametrize(
    ("path", "unit"),
    [
        ("CMakeLists.txt", '"\\'),  # an escaped quote after another: unterminated strings
        ("CMakeLists.txt", "find_package(" * 3 + "x)"),
        ("meson.build", "dependency('a', " * 2),
        ("Gemfile", 'gem "a", ' + '"#' * 10 + "\n"),
        ("x.gemspec", "s.add_dependency %q<" + "a" * 30 + "\n"),
        ("build.gradle", "implementation " + "libs." * 20 + "\n"),
        ("conanfile.txt", "[requires]\n" + "a/" * 40 + "\n"),
        ("A.sln", 'Project("{' + "0" * 50 + "\n"),
        (
            "A.csproj",
            '<Project><PackageReference Include="a" Version="' + "1" * 30,
        ),  # cut: scanned, not parsed
        ("Directory.Packages.props", "<P>" + "<a>" + "x" * 150),
    ],
)
def test_hostile_manifests_of_every_ecosystem_parse_in_linear_time(path: str, unit: str) -> None:
    """A quarter of the cap and the whole cap of adversarial text: the CPU time grows about 4 times."""
    small, large = unit * (PARSE_MAX_BYTES // 4 // len(unit)), unit * (PARSE_MAX_BYTES // len(unit))
    ratio = max(least_cpu(lambda: parse_manifest(path, large), repeat=3), 1e-6) / max(
        least_cpu(lambda: parse_manifest(path, small), repeat=3), 1e-6
    )
    assert ratio < 10, ratio


# ------------------------------------------------------------------------------------------ report


def _metadata(results: list[ToolResult]) -> list[ToolResult]:
    """The repository's metadata, languages and commits, without its tree and files."""
    return [r for r in results if r.tool not in ("get_file_tree", "read_file", "list_directory")]


def _dotnet_report(language: Language = "en") -> str:

    projects = [f"src/Lib{i}/Lib{i}.csproj" for i in range(8)]
    projects += [f"test/Lib{i}.Tests/Lib{i}.Tests.csproj" for i in range(16)]
    tree = tree_of("Polly.sln", "Directory.Packages.props", "README.md", *projects, "src/Lib0/Lib0.cs")
    test_project = "test/Lib0.Tests/Lib0.Tests.csproj"
    reads = {
        "Polly.sln": (FIXTURES / "Polly.sln").read_text(),
        "Directory.Packages.props": (FIXTURES / "Directory.Packages.props").read_text(),
        test_project: (FIXTURES / "Serilog.Tests.csproj").read_text(),
    }
    results = [
        *_metadata(github_results()),
        result("get_file_tree", DEMO, tree, path=""),
        *(result("read_file", DEMO, text_file(p, t), path=p) for p, t in reads.items()),
    ]
    report = written(scope=[DEMO], question="", results=results, language=language).markdown()
    title = "Tech stack" if language == "en" else "技术栈"
    return section(report, title)


def test_a_dotnet_solution_report_counts_its_projects_and_names_the_framework() -> None:
    stack = _dotnet_report()
    assert "No dependency manifest" not in stack
    assert "**Packages by ecosystem:** 24 .NET projects (nuget), 16 of them for tests." in stack
    assert "**Test frameworks (declared in the manifests read):** xUnit" in stack
    assert "a test project" in stack  # the test project's own line
    # Polly.Core is one of the solution's projects: named apart, never as a pinned or used dependency
    assert "the repository's own packages it references (1): `Polly.Core`" in stack
    assert "`Polly.Core 8.0.0`" not in stack
    zh = _dotnet_report("zh")
    assert "**按生态系统统计的包：** 24 个 .NET 项目（nuget），其中 16 个用于测试。" in zh


def test_a_question_about_dependencies_finds_the_manifests_of_every_ecosystem() -> None:
    tree = tree_of("README.md", "Polly.sln", "src/Lib/Lib.csproj", "gems/x/x.gemspec", "src/Lib/Lib.cs")
    results = [*_metadata(github_results()), result("get_file_tree", DEMO, tree, path="")]
    report = written(scope=[DEMO], question="What are its dependencies?", results=results).markdown()
    assert "No dependency manifest" not in report
    bare = written(
        scope=[DEMO],
        question="What are its dependencies?",
        results=[
            *_metadata(github_results()),
            result("get_file_tree", DEMO, tree_of("README.md", "a.c"), path=""),
        ],
    ).markdown()
    assert "No dependency manifest was found." in bare  # the tech stack says it; the answer, no file matches


def test_a_tree_without_any_manifest_says_so_and_one_with_a_gemspec_does_not() -> None:

    def stack(*paths: str) -> str:
        results = [*_metadata(github_results()), result("get_file_tree", DEMO, tree_of(*paths), path="")]
        return section(written(scope=[DEMO], question="", results=results).markdown(), "Tech stack")

    assert "No dependency manifest was found." in stack("README.md", "src/main.c")
    assert "No dependency manifest" not in stack("README.md", "gems/x/lib/x.rb", "gems/x/x.gemspec")


def test_a_monorepos_sibling_packages_are_its_own_before_any_read() -> None:
    """A gem is named by its gemspec and a .NET project by its csproj: siblings whose manifests were not
    read are still the repository's own, never listed among a manifest's dependencies."""
    from agent_core.report.manifests import own_names_in_tree

    tree = [
        "sinatra.gemspec",
        "rack-protection/rack-protection.gemspec",
        "src/Polly.Core/Polly.Core.csproj",
        "Gemfile",
    ]
    assert own_names_in_tree(tree) == {"sinatra", "rack-protection", "polly.core"}
