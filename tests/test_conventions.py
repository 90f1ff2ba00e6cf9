"""The repository model's roles on small realistic trees of the shapes users brought: each test is a
false classification once seen on a real repository (a framework's own source named like tests, a
Ruby monorepo's gems, `.github/` as documentation, `man/` pages, a bundled GoogleTest, a playground,
test fixtures holding `node_modules/`), built from a few of its real paths."""

from __future__ import annotations

import pytest

from agent_core.repomodel import FolderCount, build_repo_model, role_by_convention
from agent_core.repomodel.model import RepoModel
from agent_core.sources.models import TreeEntry


def model_of(*paths: str) -> RepoModel:
    dirs = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
    entries = [TreeEntry(path=d, type="dir") for d in dirs] + [
        TreeEntry(path=p, type="file", size=10) for p in paths
    ]
    return build_repo_model(sorted(entries, key=lambda e: e.path))


def top_role(model: RepoModel, name: str) -> str:
    return next(t.role for t in model.top_level if t.name == name)


def test_a_test_frameworks_own_source_named_like_tests_is_source() -> None:
    """PHPUnit's src/ holds Test.php, TestCase.php, IncompleteTest.php: its classes, not its tests."""
    model = model_of(
        "src/Framework/TestCase.php",
        "src/Framework/Test.php",
        "src/Util/Test.php",
        "src/Framework/Exception/Incomplete/IncompleteTest.php",
        "src/Event/Value/Test/Test.php",
        "tests/unit/Framework/TestCaseTest.php",
        "tests/end-to-end/regression/1149.phpt",
        "composer.json",
    )
    for path in ("src/Framework/TestCase.php", "src/Util/Test.php", "src/Event/Value/Test/Test.php"):
        assert model.role_of(path) == "source", path
    assert model.role_of("src/Framework/Exception/Incomplete/IncompleteTest.php") == "source"
    assert model.role_of("tests/unit/Framework/TestCaseTest.php") == "tests"
    assert model.role_of("tests/end-to-end/regression/1149.phpt") == "tests"
    assert model.tests.files == 2
    # outside a source folder the class-name convention still says tests (a JUnit test beside a module)
    assert role_by_convention("core/AppTest.java") == "tests"
    assert role_by_convention("src/main/java/org/junit/Test.java") == "source"


def test_a_test_runners_own_source_is_source() -> None:
    """Vitest's packages/vitest/src has node/cache/ and integrations/env/: Linguist's cache/ and env/
    rules (a build cache, a virtualenv) are not taken below the root."""
    model = model_of(
        "packages/vitest/src/node/cache/files.ts",
        "packages/vitest/src/integrations/env/jsdom.ts",
        "packages/vitest/src/runtime/runners/test.ts",
        "packages/vitest/package.json",
        "test/core/test/basic.test.ts",
        "test/core/package.json",
    )
    for path in (
        "packages/vitest/src/node/cache/files.ts",
        "packages/vitest/src/integrations/env/jsdom.ts",
        "packages/vitest/src/runtime/runners/test.ts",
    ):
        assert model.role_of(path) == "source", path
    assert model.role_of("test/core/test/basic.test.ts") == "tests"
    assert top_role(model, "packages") == "source"
    assert role_by_convention("env/lib/python3.11/site.py") == "vendored"  # a root virtualenv is Linguist's


def _gem(name: str, code: int, tests: int) -> list[str]:
    return [
        f"{name}/{name}.gemspec",
        *(f"{name}/lib/{name}/part{i}.rb" for i in range(code)),
        *(f"{name}/test/part{i}_test.rb" for i in range(tests)),
        f"{name}/test/abstract_unit.rb",
    ]


def test_the_gems_of_a_ruby_monorepo_are_packages_even_with_more_tests_than_code() -> None:
    """Rails: actionview/ holds actionview.gemspec, lib/ and a test/ four times larger."""
    model = model_of(*_gem("actionview", 3, 12), *_gem("activesupport", 8, 6), "Gemfile", "Rakefile")
    assert top_role(model, "actionview") == "source"
    assert top_role(model, "activesupport") == "source"
    assert model.role_of("actionview/test/part0_test.rb") == "tests"
    assert model.role_of("actionview/test/abstract_unit.rb") == "tests"
    # without the gemspec the same folder is mostly tests: the manifest is what makes it a package
    bare = model_of(*(p for p in _gem("actionview", 3, 12) if not p.endswith(".gemspec")))
    assert top_role(bare, "actionview") == "tests"


def test_github_folder_is_ci_and_configuration_never_documentation() -> None:
    model = model_of(
        ".github/workflows/ci.yml",
        ".github/actions/setup/action.yml",
        ".github/ISSUE_TEMPLATE/bug_report.md",
        ".github/PULL_REQUEST_TEMPLATE.md",
        ".github/CONTRIBUTING.md",
        ".github/dependabot.yml",
        ".github/CODEOWNERS",
        "README.md",
    )
    assert model.role_of(".github/workflows/ci.yml") == "ci"
    assert model.role_of(".github/actions/setup/action.yml") == "ci"
    for path in (".github/ISSUE_TEMPLATE/bug_report.md", ".github/CONTRIBUTING.md", ".github/dependabot.yml"):
        assert model.role_of(path) == "build", path
    assert [c.name for c in model.ci] == ["GitHub Actions"]
    assert model.vendored_files == 0
    assert model.role_of("README.md") == "docs"


def test_man_pages_are_documentation_not_vendored() -> None:
    model = model_of("man/rg.1", "man/rg.1.txt.tpl", "doc/man/fmt.3", "crates/core/main.rs")
    assert model.role_of("man/rg.1") == "docs"
    assert model.role_of("man/rg.1.txt.tpl") == "docs"
    assert model.role_of("doc/man/fmt.3") == "docs"
    assert model.vendored_files == 0
    assert role_by_convention("src/man/page.c") == "source"  # Linguist's ^man/ is the root's only


def test_a_bundled_googletest_is_vendored_and_the_tests_beside_it_are_tests() -> None:
    """fmt bundles GoogleTest in test/gtest/."""
    model = model_of(
        "test/gtest/gmock/gmock.h",
        "test/gtest/gtest/gtest.h",
        "test/gtest/gmock-gtest-all.cc",
        "test/format-test.cc",
        "test/CMakeLists.txt",
        "include/fmt/format.h",
        "src/format.cc",
        "CMakeLists.txt",
    )
    assert model.role_of("test/gtest/gtest/gtest.h") == "vendored"
    assert model.vendored == (FolderCount("test/gtest", 3),)
    assert model.role_of("test/format-test.cc") == "tests"
    assert model.role_of("include/fmt/format.h") == "source"
    assert role_by_convention("googletest/include/gtest/gtest.h") == "source"  # GoogleTest's own layout


def test_a_playground_is_examples_not_the_projects_source() -> None:
    """Vite's playground/ holds a package per example app."""
    model = model_of(
        "playground/alias/index.html",
        "playground/alias/package.json",
        "playground/css/main.js",
        "packages/vite/src/node/server.ts",
        "packages/vite/package.json",
        "package.json",
    )
    assert model.role_of("playground/alias/index.html") == "examples"
    assert top_role(model, "playground") == "examples"
    assert [p.path for p in model.packages if "playground" in p.path] == []
    assert role_by_convention("src/playground/run.ts") == "source"  # at the top level only


@pytest.mark.parametrize(
    "path",
    [
        "packages/vite/src/node/__tests__/fixtures/node_modules/dep/index.js",
        "test/fixtures/vendor/autoload.php",
        "internal/parser/testdata/vendor/github.com/x/y.go",
        "__fixtures__/app/node_modules/react/index.js",
        "test-fixtures/project/dist/out.js",
        "src/Symfony/Component/Console/Tests/Fixtures/vendor/autoload.php",
    ],
)
def test_test_fixtures_are_test_data_never_vendored(path: str) -> None:
    model = model_of(path, "src/index.ts")
    assert model.role_of(path) == "tests"
    assert model.vendored_files == 0
    assert model.tests.packages == 0  # test data is no test package


def test_dotnet_test_projects_and_their_layout() -> None:
    """Polly and AutoMapper: test projects named *.Tests, *.UnitTests, *.Specs, under test/ or src/."""
    model = model_of(
        "src/Polly.Core/Polly.Core.csproj",
        "src/Polly.Core/ResiliencePipeline.cs",
        "src/Polly.Core/Testing/FakeTimeProvider.cs",
        "src/AutoMapper.UnitTests/MappingTests.cs",
        "src/AutoMapper.UnitTests/AutoMapper.UnitTests.csproj",
        "src/UnitTests/Bug/NullableTests.cs",
        "src/IntegrationTests/Inheritance/BaseTests.cs",
        "test/Polly.Core.Tests/ResiliencePipelineTests.cs",
        "test/Polly.Specs/RetrySpecs.cs",
        "Polly.sln",
    )
    assert model.role_of("src/Polly.Core/ResiliencePipeline.cs") == "source"
    assert model.role_of("src/Polly.Core/Testing/FakeTimeProvider.cs") == "source"
    assert model.role_of("src/AutoMapper.UnitTests/MappingTests.cs") == "tests"
    assert model.role_of("src/AutoMapper.UnitTests/AutoMapper.UnitTests.csproj") == "tests"
    assert model.role_of("test/Polly.Specs/RetrySpecs.cs") == "tests"
    assert model.role_of("src/UnitTests/Bug/NullableTests.cs") == "tests"  # AutoMapper: no prefix
    assert model.role_of("src/IntegrationTests/Inheritance/BaseTests.cs") == "tests"
    assert model.role_of("Polly.sln") == "build"


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("okhttp/src/jvmTest/kotlin/okhttp3/CallTest.kt", "tests"),
        ("okhttp/src/commonTest/kotlin/okhttp3/UrlTest.kt", "tests"),
        ("okhttp/src/androidTest/kotlin/okhttp3/AndroidTest.kt", "tests"),
        ("okhttp/src/testFixtures/kotlin/okhttp3/Fixtures.kt", "tests"),
        ("okhttp/src/jvmMain/kotlin/okhttp3/Call.kt", "source"),
        ("okhttp/src/commonMain/kotlin/okhttp3/Url.kt", "source"),
        ("core/src/test/java/com/acme/AppTest.java", "tests"),
        ("packages/ui/src/__tests__/button.tsx", "tests"),
        ("spec/models/user_spec.rb", "tests"),
        ("spec/spec_helper.rb", "tests"),
        ("spec/support/helpers.rb", "tests"),
        ("plugins/x/spec/schema.json", "source"),
        ("pkg/server/handler_test.go", "tests"),
        ("src/pkg/tests/test_api.py", "tests"),
        ("src/pkg/conftest.py", "tests"),
    ],
)
def test_each_ecosystems_test_layout(path: str, role: str) -> None:
    assert role_by_convention(path) == role


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("node_modules/left-pad/index.js", "vendored"),
        ("third_party/zlib/zlib.h", "vendored"),
        ("src/external/lib.c", "vendored"),
        ("web/static/jquery-3.7.1.min.js", "vendored"),
        ("gradle/wrapper/gradle-wrapper.properties", "vendored"),
        ("docs/_build/html/index.html", "vendored"),
        ("Pods/Alamofire/Source/AF.swift", "generated"),  # generated.rb: CocoaPods
        ("api/api.pb.go", "generated"),
        ("package-lock.json", "generated"),
        ("src/Form1.Designer.cs", "generated"),
        ("docs/guide/intro.md", "docs"),
        ("Documentation/admin-guide/README", "docs"),
        ("CHANGELOG.md", "docs"),
        ("src/notes.txt", "docs"),  # Linguist's prose
        ("requirements.txt", "build"),
        ("examples/basic/main.go", "examples"),
        ("samples/Foo/x.cs", "examples"),
        (".gitignore", "source"),  # the repository's own configuration, not vendored
    ],
)
def test_linguists_rules_as_github_applies_them(path: str, role: str) -> None:
    assert role_by_convention(path) == role
