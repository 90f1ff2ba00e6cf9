"""The claim check reaches a verdict on big, many-manifest repositories (issue 34): its own reads are not
held to the model's tool-call limit, several licence files are all read and recognised (Creative Commons
beside MIT), dependencies a Hatch hook fills in are dependencies, and a framework is "named" by a file only
under its own name (``ginkgolinter`` or a Go ``/v2`` suffix is not Ginkgo; ``@jest/core``'s ``core`` is not
Jest). Each check runs the real claim check over tool results shaped as the tools return them."""

from __future__ import annotations

from agent_core.repo import RepoRef
from agent_core.report.claims import check_report
from agent_core.report.manifests import parse_manifest
from agent_core.sources.licenses import detect_license
from agent_core.sources.models import FileContent, FileTree, RepoInfo, TreeEntry
from agent_core.tools.registry import GET_FILE_TREE, GET_REPO_INFO, READ_FILE
from agent_core.tools.results import ToolResult

REPO = RepoRef(owner="acme", name="agents")
MIT = "MIT License\n\nCopyright (c) Acme\n\nPermission is hereby granted, free of charge, to any person\n"
CC_BY = (
    'Attribution 4.0 International\n\n=====\n\nCreative Commons Corporation ("Creative Commons") is not a '
    "law firm and does not provide legal services.\n"
)


def results(files: dict[str, str], *, extra: tuple[str, ...] = ()) -> list[ToolResult]:
    paths = sorted({*files, *extra})
    dirs = sorted({p.rsplit("/", i)[0] for p in paths for i in range(1, p.count("/") + 1)})
    entries = (
        *(TreeEntry(path=d, type="dir") for d in dirs),
        *(TreeEntry(path=p, type="file", size=50) for p in paths),
    )
    made = [
        ToolResult(
            call_id="i", tool=GET_REPO_INFO, arguments={}, ok=True, observation={}, repo=REPO, value=_info()
        ),
        ToolResult(
            call_id="t",
            tool=GET_FILE_TREE,
            arguments={},
            ok=True,
            observation={},
            repo=REPO,
            value=FileTree(ref="main", path="", entries=entries),
        ),
    ]
    made += [
        ToolResult(
            call_id=f"r{i}",
            tool=READ_FILE,
            arguments={"owner": REPO.owner, "repo": REPO.name, "path": path},
            ok=True,
            observation={},
            repo=REPO,
            value=FileContent(path=path, kind="file", size=len(text), text=text),
        )
        for i, (path, text) in enumerate(sorted(files.items()))
    ]
    return made


def _info() -> RepoInfo:
    return RepoInfo(
        full_name=REPO.full_name, description="Agents.", default_branch="main", language="Python", license=None,
        stars=1, forks=0, open_issues=0, topics=(), created_at=None, pushed_at=None, archived=False,
        homepage=None, size_kb=1, html_url="https://github.com/acme/agents",
    )  # fmt: skip


def verdicts(report: str, found: list[ToolResult]) -> dict[str, str]:
    return {c.claim: c.verdict for c in check_report(report, (REPO,), found).claims}


def test_creative_commons_and_other_licences_are_recognised() -> None:
    assert detect_license(CC_BY) == "CC-BY-4.0"
    assert detect_license("Attribution-ShareAlike 4.0 International\nCreative Commons\n") == "CC-BY-SA-4.0"
    assert detect_license("Boost Software License - Version 1.0 - August 17th, 2003\n") == "BSL-1.0"


def test_a_licence_outside_every_licence_file_is_contradicted_and_each_file_s_licence_holds() -> None:
    files = {"LICENSE": CC_BY, "LICENSE-CODE": MIT, "README.md": "# agents\n"}
    said = verdicts(
        "- It is released under the GPL-3.0 license.\n- The code is under the MIT license.\n", results(files)
    )
    assert said == {"GPL-3.0": "contradicted", "MIT": "verified"}
    # one licence file not read: another licence may stand in it, so nothing is ✗
    partial = {"LICENSE": CC_BY, "README.md": "# agents\n"}
    assert verdicts(
        "- It is released under the GPL-3.0 license.\n", results(partial, extra=("LICENSE-CODE",))
    ) == {"GPL-3.0": "unchecked"}


def test_dependencies_a_hatch_hook_fills_in_are_declared() -> None:
    pyproject = (
        '[project]\nname = "slim"\ndynamic = ["version", "dependencies", "optional-dependencies"]\n\n'
        '[tool.hatch.metadata.hooks.uv-dynamic-versioning]\ndependencies = ["httpx2>=2.7", "anyio>=4.7.0"]\n\n'
        '[tool.hatch.metadata.hooks.uv-dynamic-versioning.optional-dependencies]\nopenai = ["openai>=3.0.0"]\n'
    )
    manifest = parse_manifest("slim/pyproject.toml", pyproject)
    assert [(d.name, d.spec) for d in manifest.all_dependencies()][:2] == [
        ("httpx2", ">=2.7"),
        ("anyio", ">=4.7.0"),
    ]
    files = {"slim/pyproject.toml": pyproject, "pyproject.toml": '[project]\nname = "root"\n'}
    said = verdicts("- It depends on `httpx2` 1.0.0.\n- It depends on `anyio` >=4.7.0.\n", results(files))
    assert said == {"httpx2 1.0.0": "contradicted", "anyio >=4.7.0": "verified"}


def test_a_framework_is_named_by_its_own_name_not_by_a_part_of_a_longer_one() -> None:
    gomod = (
        "module example.com/agents\n\ngo 1.22\n\nrequire (\n\tgithub.com/stretchr/testify v1.9.0\n"
        "\tgithub.com/cespare/xxhash/v2 v2.3.0\n\tgithub.com/nunnatsa/ginkgolinter v0.16.0 // indirect\n)\n"
    )
    files = {"go.mod": gomod, "agents_test.go": 'package agents\n\nimport "testing"\n'}
    said = verdicts("- The tests are written with Ginkgo.\n", results(files))
    assert said == {"Ginkgo": "contradicted"}
    package = '{"name": "web", "devDependencies": {"vitest": "^2.0.0", "@acme/core": "1.0.0"}}'
    files = {"package.json": package, "src/core.test.ts": "import { test } from 'vitest'\n"}
    assert verdicts("- The tests are written with Jest.\n", results(files)) == {"Jest": "contradicted"}


def test_a_pom_s_own_properties_give_its_versions() -> None:
    pom = (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><artifactId>common</artifactId>'
        "<properties><guava.version>33.7.1-jre</guava.version></properties><dependencies>"
        "<dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId>"
        "<version>${guava.version}</version></dependency>"
        "<dependency><groupId>a</groupId><artifactId>b</artifactId><version>${parent.only}</version></dependency>"
        "</dependencies></project>"
    )
    manifest = parse_manifest("common/pom.xml", pom)
    assert [(d.name, d.spec) for d in manifest.all_dependencies()] == [
        ("com.google.guava:guava", "33.7.1-jre"),
        ("a:b", "${parent.only}"),  # defined by a parent POM not read: kept as written
    ]
    said = verdicts("- It depends on `com.google.guava:guava` version 32.0.0.\n", results({"pom.xml": pom}))
    assert said == {"com.google.guava:guava 32.0.0": "contradicted"}


def test_the_php_a_composer_json_requires_holds_a_php_version() -> None:
    composer = '{"name": "acme/agents", "require": {"php": ">=8.3", "psr/log": "^3.0"}}'
    said = verdicts(
        "- It depends on `php` version 7.0.0.\n- It depends on `php` version 8.3.1.\n",
        results({"composer.json": composer}),
    )
    assert said == {"php 7.0.0": "contradicted", "php 8.3.1": "verified"}


def test_kotlin_test_brings_junit_4_and_junit_5_only_on_the_junit_platform() -> None:
    build = 'dependencies {\n    testImplementation("org.jetbrains.kotlin:kotlin-test:2.1.0")\n}\n'
    files = {"build.gradle.kts": build, "settings.gradle.kts": 'rootProject.name = "agents"\n'}
    said = verdicts("- The tests use JUnit 4.\n- The tests use JUnit 5.\n", results(files))
    assert said == {"JUnit 4": "unchecked", "JUnit 5": "contradicted"}
    files["build.gradle.kts"] = build + "tasks.test {\n    useJUnitPlatform()\n}\n"
    assert verdicts("- The tests use JUnit 5.\n", results(files)) == {"JUnit 5": "unchecked"}


def test_gradle_convention_plugins_must_be_read_before_a_dependency_is_denied() -> None:
    files = {
        "build.gradle.kts": 'plugins { id("conventions") }\n',
        "settings.gradle.kts": 'rootProject.name = "a"\n',
    }
    plugin = "buildSrc/src/main/kotlin/conventions.gradle.kts"
    unread = results(files, extra=(plugin,))
    assert verdicts("- It depends on `com.google.code.gson:gson`.\n", unread) == {
        "com.google.code.gson:gson": "unchecked"
    }
    read = results({**files, plugin: 'dependencies { "testImplementation"("io.mockk:mockk:1.13") }\n'})
    said = verdicts("- It depends on `com.google.code.gson:gson`.\n- It depends on `io.mockk:mockk`.\n", read)
    assert said == {"com.google.code.gson:gson": "contradicted", "io.mockk:mockk": "unchecked"}


def test_tests_are_counted_by_the_packages_that_hold_them() -> None:
    from agent_core.repomodel import model_of

    paths = [
        "Polly.sln", "src/Polly/Polly.csproj", "src/Polly/Policy.cs",
        "test/Polly.Core.Tests/Polly.Core.Tests.csproj", "test/Polly.Core.Tests/RetryTests.cs",
        "test/Polly.Specs/Polly.Specs.csproj", "test/Polly.Specs/PolicySpecs.cs", "test/Polly.Specs/TimeoutSpecs.cs",
    ]  # fmt: skip
    dirs = sorted({p.rsplit("/", i)[0] for p in paths for i in range(1, p.count("/") + 1)})
    tree = FileTree(
        ref="main",
        path="",
        entries=(
            *(TreeEntry(path=d, type="dir") for d in dirs),
            *(TreeEntry(path=p, type="file", size=80) for p in paths),
        ),
    )
    assert model_of(tree).tests.packages == 2  # two test projects under one `test/`, not "1 package"


def test_composer_bin_plugin_tool_installs_are_no_packages() -> None:
    from agent_core.repomodel import model_of

    paths = [
        "composer.json",
        "src/Client.php",
        "vendor-bin/phpstan/composer.json",
        "vendor-bin/psalm/composer.json",
    ]
    dirs = sorted({p.rsplit("/", i)[0] for p in paths for i in range(1, p.count("/") + 1)})
    tree = FileTree(
        ref="main",
        path="",
        entries=(
            *(TreeEntry(path=d, type="dir") for d in dirs),
            *(TreeEntry(path=p, type="file", size=80) for p in paths),
        ),
    )
    assert [p.path for p in model_of(tree).packages] == [""]  # guzzle: one Composer package, not three
