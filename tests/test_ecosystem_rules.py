"""Rules that keep reports true on shapes the truth bench found wrong: a Gradle project moved with
``projectDir``, vendored-looking folders inside tests and examples, Linguist's root-anchored rules in a
folder report, a nested virtual workspace root, and package counts made in another fair way."""

from __future__ import annotations

from agent_core.repomodel import RootContext, model_of
from agent_core.report.manifest_jvm import parse_gradle_settings
from agent_core.report.manifest_links import root_workspaces
from agent_core.report.manifests import parse_manifest
from agent_core.sources.models import FileTree, TreeEntry


def tree(paths: list[str], *, root: str = "") -> FileTree:
    dirs = {p.rsplit("/", i)[0] for p in paths for i in range(1, p.count("/") + 1)}
    entries = [TreeEntry(path=d, type="dir", size=None) for d in sorted(dirs)]
    entries += [TreeEntry(path=p, type="file", size=100) for p in paths]
    return FileTree(ref="main", path=root, entries=tuple(entries))


def test_a_gradle_project_moved_with_project_dir_is_its_folder() -> None:
    settings = (
        'include(":kotlinx-serialization-protobuf:proto-test-model")\n'
        'project(":kotlinx-serialization-protobuf:proto-test-model").projectDir = '
        'file("./formats/protobuf/proto-test-model")\n'
        "include(':app')\n"
    )
    assert parse_gradle_settings(settings)["workspaces"] == ("formats/protobuf/proto-test-model", "app")


def test_vendor_folders_inside_tests_and_examples_are_theirs_not_vendored() -> None:
    model = model_of(
        tree(
            [
                "src/app.rb",
                "vendor/gem/lib.rb",
                "test/fixtures_app/vendor/plugin.rb",
                "tests/_files/user-deprecation/vendor/autoload.php",
                "playground/external/dep.js",
                "playground/env/main.js",
                "web/static/jquery.min.js",
            ]
        )
    )
    assert [v.path for v in model.vendored] == ["vendor"]
    assert model.vendored_files == 2  # vendor/gem/lib.rb, and the minified file by its name


def test_a_folder_report_reads_root_anchored_linguist_rules_from_the_repository_root() -> None:
    """``^[Dd]ependencies/`` is vendored only at the repository's root, not at a folder report's."""
    base = "activesupport/lib/active_support"
    paths = [f"{base}/dependencies/autoload.rb", f"{base}/core.rb"]
    whole = tree(paths, root=base)
    rerooted = FileTree(
        ref="main",
        path="",
        entries=tuple(
            TreeEntry(path=e.path.removeprefix(base + "/"), type=e.type, size=e.size)
            for e in whole.entries
            if e.path.startswith(base + "/")
        ),
    )
    assert model_of(rerooted, RootContext(above=base)).vendored_files == 0
    assert model_of(rerooted).vendored_files == 1  # the same tree read as a repository's root


def test_a_nested_workspace_root_without_a_project_is_no_package() -> None:
    manifests = [
        parse_manifest("python/pyproject.toml", '[tool.uv.workspace]\nmembers = ["packages/*"]\n'),
        parse_manifest("package.json", '{"name": "root", "workspaces": ["web/*"]}'),
    ]
    members, virtual = root_workspaces(manifests)
    assert members == ("web/*",) and virtual == ("python",)


def test_go_tests_name_the_standard_testing_package() -> None:
    from agent_core.report.frameworks import test_frameworks

    assert test_frameworks([], test_paths=["server/etcdserver/server_test.go"]) == ("testing",)
    assert test_frameworks([], test_paths=["tests/test_app.py"]) == ()


def test_a_folder_report_on_tests_or_examples_keeps_their_vendor_folders_as_theirs() -> None:
    rerooted = tree(["error-handler/_files/user-deprecation/vendor/autoload.php", "error-handler/Test.php"])
    assert model_of(rerooted, RootContext(above="tests/end-to-end")).vendored_files == 0
    assert model_of(tree(["external/dep.js", "main.js"]), RootContext(above="playground")).vendored_files == 0
    assert (
        model_of(tree(["vendor/lib.php", "src/App.php"]), RootContext(above="packages/app")).vendored_files
        == 1
    )


def test_a_submodule_is_no_file_of_the_repository() -> None:
    entries = (
        TreeEntry(path="okhttp-hpacktests", type="dir", size=None),
        TreeEntry(path="okhttp-hpacktests/hpack-test-case", type="submodule", size=None),
        TreeEntry(path="okhttp-hpacktests/build.gradle.kts", type="file", size=10),
    )
    model = model_of(FileTree(ref="main", path="", entries=entries))
    assert model.files == 1


def test_a_folder_report_reads_the_manifest_of_its_tests_kept_elsewhere() -> None:
    """``src/Polly.Core/CircuitBreaker``'s tests are in ``test/Polly.Core.Tests``: once that tree is
    fetched, its project file is read, so the report can name the test framework it declares."""
    from agent_core.agent.folder_plan import folder_context
    from agent_core.repo import RepoRef
    from agent_core.sources.models import DirEntry, DirListing
    from agent_core.tools.registry import READ_FILE

    def listing(path: str, dirs: list[str], files: list[str] = ()) -> DirListing:  # type: ignore[assignment]
        entries = [DirEntry(name=d.rsplit("/", 1)[-1], path=d, type="dir") for d in dirs]
        entries += [DirEntry(name=f.rsplit("/", 1)[-1], path=f, type="file") for f in files]
        return DirListing(path=path, entries=tuple(entries))

    listings = {
        "": listing("", ["src", "test"]),
        "src": listing("src", ["src/Polly.Core"]),
        "src/Polly.Core": listing(
            "src/Polly.Core", ["src/Polly.Core/CircuitBreaker"], ["src/Polly.Core/Polly.Core.csproj"]
        ),
        "test": listing("test", ["test/Polly.Core.Tests", "test/Polly.Specs"]),
    }
    kept = tree(["test/Polly.Core.Tests/Polly.Core.Tests.csproj", "test/Polly.Core.Tests/RetryTests.cs"])
    kept = FileTree(ref="main", path="test/Polly.Core.Tests", entries=kept.entries)
    picks = folder_context(
        RepoRef(owner="App-vNext", name="Polly"),
        "src/Polly.Core/CircuitBreaker",
        listings.get,
        own_manifests=[],
        own_license=False,
        own_tests=False,
        fetched=lambda path: kept if path == "test/Polly.Core.Tests" else None,
    )
    reads = [p.call.args["path"] for p in picks if p.call.tool == READ_FILE and p.kind == "tests"]
    assert reads == ["test/Polly.Core.Tests/Polly.Core.Tests.csproj"]


def test_a_gitattributes_too_complex_for_re2_is_said_not_raised() -> None:
    """2,000 ``*a*a…*b`` patterns: re2 refuses to compile them as one set (its memory budget); the
    overrides are left out and the coverage says so, where the run failed with 'failed to compile Set'."""
    from agent_core.repomodel.attributes import TOO_COMPLEX, parse_gitattributes
    from agent_core.sources.languages import count_languages

    hostile = ("*a" * 30 + "*b linguist-vendored\n") * 2000
    overrides = parse_gitattributes(hostile)
    assert not overrides and TOO_COMPLEX in overrides.limits
    assert count_languages([("a.py", 4)], gitattributes=hostile) == {"Python": 4}
