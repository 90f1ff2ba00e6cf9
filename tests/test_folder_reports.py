"""A folder report speaks for the folder (issue 34, item 3): offline runs over ``/tree/<ref>/<folder>``
URLs of four realistic monorepos served by the GitHub emulator (:mod:`tests.folder_shapes`).

What each report must say of the folder: its own languages and files, the files read from it (never 0:
its README, manifest or main modules), its manifest or the nearest parent's, its tests wherever the
ecosystem keeps them (``*_test.go`` beside the code, ``spec/`` inside, the root's ``tests/<pkg>/``,
``test/Foo.Tests/``), the commits that touched it (GitHub's ``commits?path=``; ``git log -- folder``
locally); and the repository's description, stars, licence and CI labelled as the repository's, known
from the root's listing rather than "could not check".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.agent.folder_plan import main_modules
from agent_core.repo import RepoRef
from agent_core.report.claims import check_report
from agent_core.report.facts import Evidence, Facts, build_facts, gather
from agent_core.report.folder_tests import ancestors, kept_for, kept_tests, project_chain, source_set_mirror
from agent_core.report.scoped import reroot
from agent_core.sources.models import DirEntry, DirListing, FileTree, TreeEntry
from agent_core.tools.observe import notable_role
from agent_core.words import words_for
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.linear import growth
from tests import folder_shapes as shapes

EN = words_for("en")
REPO = RepoRef(owner="acme", name="mono")


class Folder:
    """One offline run over a folder URL: its events, tool results, facts and the emulator's log."""

    def __init__(self, run: Any, emu: GitHubEmulator, folder: str) -> None:
        self.events: list[ev.Event] = run.events
        self.results = run.opened.analysis.results
        self.report: str = run.finished.report
        self.requests = list(emu.requests)
        self.folder = folder
        self.facts: Facts = build_facts(gather(REPO, self.results, EN))

    def calls(self, tool: str) -> list[dict[str, Any]]:
        return [
            dict(e.arguments) for e in self.events if isinstance(e, ev.ToolCallStarted) and e.tool == tool
        ]

    def reads_inside(self) -> list[str]:
        return [
            str(a["path"]) for a in self.calls("read_file") if str(a["path"]).startswith(f"{self.folder}/")
        ]

    def commits_queries(self) -> list[dict[str, str]]:
        return [dict(r.query) for r in self.requests if r.decoded_path.endswith("/commits")]


async def _folder_run(tmp_path: Path, files: dict[str, str], folder: str) -> Folder:
    repo = shapes.build(tmp_path / "repo", files, folder)
    with GitHubEmulator() as emu:
        emu.add_repo("acme/mono", repo, description="Everything Acme builds", stars=42)
        settings = make_settings(emu, tmp_path)
        run = await run_once(settings, target=f"https://github.com/acme/mono/tree/main/{folder}")
        return Folder(run, emu, folder)


def _said_of_any_folder(report: str) -> None:
    """What no folder report with a listed root may say: checks that do not apply, repository-wide
    absences it cannot know, the repository's commits as the folder's."""
    assert "Could not check" not in report and EN("recommend_unchecked") not in report
    assert EN("r_no_readme") not in report  # a folder needs no README of its own
    assert EN("r_no_tests") not in report and EN("r_no_license") not in report and EN("r_no_ci") not in report
    assert "Touch the root" not in report  # commits that did not touch the folder are not its history
    assert EN("folder_commits", "").split("{}")[0][:20] in report
    # the repository's description said as the repository's, unless the folder's own manifest has one
    assert "**Description of the repository acme/mono:** Everything Acme builds" in report or (
        "Everything Acme builds" not in report and "**Description:** " in report and "(from [`" in report
    )
    assert "Of the repository acme/mono as a whole:" in report and "- Stars: 42" in report


async def test_a_go_package_folder_reads_its_code_counts_its_tests_and_its_commits(tmp_path: Path) -> None:
    run = await _folder_run(tmp_path, shapes.GO, shapes.GO_FOLDER)
    report = run.report
    # read from the folder: a package of code alone, so its main modules (named like it, then largest)
    assert run.reads_inside()[:1] == ["internal/store/store.go"] and len(run.reads_inside()) >= 2
    # the nearest parent's manifest, said as such
    assert "go.mod" in [a["path"] for a in run.calls("read_file")]
    assert run.facts.manifest_scope == "parent" and [m.path for m in run.facts.manifests] == ["../../go.mod"]
    # its own languages (the repository's are mostly Python), its own tests beside the code
    assert "**Languages:** Go 100.0% (the whole repository: Python" in report
    assert "- Primary language of this folder: Go" in report
    assert "2 `*_test.go` files" in report
    # commits filtered by its path
    assert run.commits_queries() == [{"per_page": "30", "sha": "main", "path": "internal/store"}]
    assert "Change internal/store" in report and "Add internal/store" in report
    # licence and CI: the repository root's, listed and read
    assert "LICENSE" in [a["path"] for a in run.calls("read_file")]
    assert "`../../.github/workflows/ci.yml`" in report and "`../../.github/workflows/lint.yml`" in report
    _said_of_any_folder(report)


async def test_a_folder_run_keeps_the_repository_s_ci_paths_resolvable_for_the_claim_check(
    tmp_path: Path,
) -> None:
    """A folder report that links the repository's workflows and licence (outside the folder) states
    files that exist: verified, with a permalink from the root; an invented workflow is not, and a link
    to the root's README is the root's, not the folder's."""
    run = await _folder_run(tmp_path, shapes.GO, shapes.GO_FOLDER)
    blob = "https://github.com/acme/mono/blob/main"
    text = (
        f"CI runs [ci]({blob}/.github/workflows/ci.yml) and [lint]({blob}/.github/workflows/lint.yml); "
        f"the licence is [LICENSE]({blob}/LICENSE), the package [store.go]({blob}/internal/store/store.go). "
        f"Deploys use [deploy]({blob}/.github/workflows/deploy.yml)."
    )
    check = check_report(text, [REPO], run.results)
    links = {c.claim.rpartition("/main/")[2].rstrip(")"): c for c in check.claims if c.kind == "link"}
    for path in (
        ".github/workflows/ci.yml",
        ".github/workflows/lint.yml",
        "LICENSE",
        "internal/store/store.go",
    ):
        assert links[path].verdict == "verified", links[path]
        observed = links[path].observed or ""
        assert observed.endswith(f"/{path}") and ".." not in observed
    assert links[".github/workflows/deploy.yml"].verdict != "verified"
    # what the folder's run saw outside it, from the folder
    assert "../../.github/workflows/ci.yml" in run.facts.evidence.outside


async def test_a_python_package_folder_finds_its_tests_in_the_root_tests_folder(tmp_path: Path) -> None:
    run = await _folder_run(tmp_path, shapes.PY, shapes.PY_FOLDER)
    report = run.report
    assert {"packages/a/README.md", "packages/a/pyproject.toml"} <= set(run.reads_inside())
    assert "packages/a/src/pkg_a/__init__.py" in run.reads_inside()  # an entry point of its code
    # its own manifest, and the workspace root's beside it (where the test runner is configured), read
    # as the parent's
    assert run.facts.manifest_scope == "folder" and "pyproject.toml" in [
        a["path"] for a in run.calls("read_file")
    ]
    assert [m.path for m in run.facts.manifests] == ["../../pyproject.toml", "pyproject.toml"]
    # the root's tests/a/ holds its tests (3 files), fetched by its own tree, not the whole repository's
    assert [a["path"] for a in run.calls("get_file_tree") if a.get("path")] == ["tests/a"]
    assert run.facts.evidence.tests_outside == (("../../tests/a", 3),)
    assert "Tests for this folder are kept outside it: [`../../tests/a/`]" in report and "(3 files)" in report
    trees = [r.decoded_path for r in run.requests if "/git/trees/" in r.decoded_path]
    assert trees and not any(p.endswith("/git/trees/main") for p in trees)
    assert "**Languages:** Python 100.0%" in report
    _said_of_any_folder(report)


async def test_a_dotnet_project_folder_finds_its_test_project(tmp_path: Path) -> None:
    run = await _folder_run(tmp_path, shapes.DOTNET, shapes.DOTNET_FOLDER)
    report = run.report
    assert "src/Foo/Parser.cs" in run.reads_inside()  # the largest of its own sources
    own = [p for p in shapes.DOTNET if p.startswith("src/Foo/") and notable_role(p[8:]) == "manifest"]
    assert set(own) <= set(run.reads_inside())  # the project file, once it is known as a manifest
    assert run.facts.evidence.tests_outside == (("../../test/Foo.Tests", 3),)
    assert "`../../test/Foo.Tests/`" in report
    assert "- Primary language of this folder: C" in report
    _said_of_any_folder(report)


async def test_a_ruby_gem_folder_of_a_monorepo_states_its_manifest_or_its_parent_s(tmp_path: Path) -> None:
    run = await _folder_run(tmp_path, shapes.RUBY, shapes.RUBY_FOLDER)
    report = run.report
    assert run.reads_inside()  # lib/widget.rb at least
    assert "gems/widget/lib/widget.rb" in run.reads_inside()
    gemspec_known = notable_role("widget.gemspec") == "manifest"
    assert run.facts.manifest_scope == ("folder" if gemspec_known else "parent")
    if gemspec_known:  # its own gemspec describes it
        assert "**Description:** Buttons and more (from [`widget.gemspec`]" in report
    else:  # the nearest manifest up its path: the root's Gemfile
        assert "Gemfile" in [a["path"] for a in run.calls("read_file")]
        assert "../../Gemfile" in run.facts.evidence.files and run.facts.evidence.parent_manifests == (
            "../../Gemfile",
        )
    assert EN("no_manifests") not in report and EN("no_manifests_folder") not in report
    assert "`spec`" in report or "spec/" in report  # its RSpec folder, inside it
    _said_of_any_folder(report)


async def test_a_folder_without_any_manifest_up_its_path_says_none_and_reads_its_code(tmp_path: Path) -> None:
    """No manifest in the folder nor in any folder above it (all listed): "none", said as such; with
    one read up the path it is the parent's."""
    files = {p: t for p, t in shapes.GO.items() if p not in ("go.mod", "go.sum")}
    run = await _folder_run(tmp_path, files, shapes.GO_FOLDER)
    assert run.facts.manifest_scope == "none" and run.facts.evidence.ancestors_listed
    assert EN("no_manifests_folder") in run.report or EN("no_manifests") in run.report
    assert run.reads_inside()


async def test_a_subpackage_without_tests_of_its_own_names_its_project_s_tests(tmp_path: Path) -> None:
    """A folder of its parent's project (no manifest, no tests of its own) is tested by the project's
    flat tests/ folder: named with its count, never "no tests"; the repository's CI in .ci/ is found."""
    run = await _folder_run(tmp_path, shapes.FLAT, shapes.FLAT_FOLDER)
    assert run.facts.evidence.project_tests == (("../../../tests", 2),)
    assert "**Tests:** in the test folder of the project it belongs to, [`../../../tests/`]" in run.report
    assert "The tests of the project it belongs to are in [`../../../tests/`]" in run.report
    assert "(2 files)" in run.report
    assert "`../../../.ci/run`" in run.report
    assert run.facts.manifest_scope == "parent" and "pyproject.toml" in [
        a["path"] for a in run.calls("read_file")
    ]
    _said_of_any_folder(run.report)


async def test_a_test_root_s_own_report_says_it_holds_tests(tmp_path: Path) -> None:
    """A ``/tree/main/test`` URL of a C++ library (test files no naming convention marks): the folder is
    a test folder, never "no tests"."""
    run = await _folder_run(tmp_path, shapes.CPP, shapes.CPP_FOLDER)
    assert "**Tests:** this folder is a test folder (3 files)." in run.report
    assert "This folder holds tests: `test/` (3 files)." in run.report
    _said_of_any_folder(run.report)


async def test_a_package_whose_tests_are_kept_by_no_name_says_where_the_repository_keeps_them(
    tmp_path: Path,
) -> None:
    """A package of its own (a manifest) with no tests in it nor named for it, the repository keeping
    tests in a root tests/ folder: where they are is said, never "no tests"."""
    files = {p: t for p, t in shapes.PY.items() if not p.startswith("tests/b/")}
    files["tests/integration/test_b.py"] = "def test_b():\n    assert True\n"
    run = await _folder_run(tmp_path, files, "packages/b")
    assert run.facts.evidence.test_dirs_seen == ("../../tests",)
    assert "The repository keeps tests in [`../../tests/`]" in run.report
    _said_of_any_folder(run.report)


async def test_a_folder_s_answer_on_testing_names_its_tests_and_the_repository_s_ci(tmp_path: Path) -> None:
    repo = shapes.build(tmp_path / "repo", shapes.PY, shapes.PY_FOLDER)
    with GitHubEmulator() as emu:
        emu.add_repo("acme/mono", repo)
        run = await run_once(
            make_settings(emu, tmp_path),
            "How is this project tested?",
            target="https://github.com/acme/mono/tree/main/packages/a",
        )
    answer = run.finished.report.split("## Overview")[0]
    assert "**Tests:** Tests for this folder are kept outside it: [`../../tests/a/`]" in answer
    assert "- [`../../.github/workflows/tests.yml`]" in answer
    assert "No file in the tree matches" not in answer


async def test_a_local_folder_reports_the_commits_that_touched_it(tmp_path: Path) -> None:
    repo = shapes.build(tmp_path / "repo", shapes.GO, shapes.GO_FOLDER)
    with GitHubEmulator() as emu:
        run = await run_once(make_settings(emu, tmp_path), target=str(repo / shapes.GO_FOLDER))
    report = run.finished.report
    assert "Change internal/store" in report and "Touch the root" not in report
    assert run.opened.analysis.results  # a real run over the working copy
    reads = [
        str(e.arguments["path"])
        for e in run.events
        if isinstance(e, ev.ToolCallStarted) and e.tool == "read_file"
    ]
    assert any(p.startswith("internal/store/") for p in reads)


@pytest.mark.parametrize(
    ("folder", "candidates", "siblings", "expected"),
    [
        ("packages/a", ["tests/a", "tests/b", "tests/ab"], ["a", "b"], ["tests/a"]),
        (
            "src/Foo",
            ["test/Foo.Tests", "test/Foo.UnitTests", "test/Bar.Tests", "test/FooBar.Tests"],
            ["Foo", "Bar"],
            ["test/Foo.Tests", "test/Foo.UnitTests"],
        ),
        (
            "libs/my-pkg",
            ["tests/my_pkg", "tests/test_my_pkg", "tests/other"],
            [],
            ["tests/my_pkg", "tests/test_my_pkg"],
        ),
        # pydantic-ai: pydantic_graph's tests are tests/graph, as pydantic_evals' are tests/evals
        (
            "pydantic_graph",
            ["tests/graph", "tests/evals", "tests/models"],
            ["pydantic_graph", "pydantic_evals"],
            ["tests/graph"],
        ),
        # no sibling shares its first word: "utils" is not foo-utils' by name alone
        ("foo-utils", ["tests/utils", "tests/foo_utils"], ["foo-utils", "docs"], ["tests/foo_utils"]),
        ("lib", [], [], []),
    ],
)
def test_kept_tests_match_test_folders_by_the_folder_s_name(
    folder: str, candidates: list[str], siblings: list[str], expected: list[str]
) -> None:
    assert kept_tests(folder, candidates, siblings) == expected


def test_ancestors_are_closest_first_with_the_root_last_and_bounded() -> None:
    assert ancestors("internal/store") == ["internal", ""]
    assert ancestors("top") == [""]
    assert ancestors("a/b/c/d/e/f") == ["a/b/c/d/e", "a/b/c/d", "a/b/c", "a/b", "a", ""]
    assert len(ancestors("/".join("abcdefghijkl"))) == 8


def _tree(folder: str, files: dict[str, int]) -> FileTree:
    entries = tuple(TreeEntry(path=f"{folder}/{p}", type="file", size=n) for p, n in files.items())
    return FileTree(ref="main", path=folder, entries=entries)


@pytest.mark.parametrize(
    ("folder", "files", "expected"),
    [
        # a Go package: the file named like it, then the largest source; tests and docs after code
        (
            "internal/store",
            {"store.go": 10, "memory.go": 500, "doc.go": 5, "store_test.go": 900, "README.md": 2000},
            ["store.go", "memory.go"],
        ),
        # entry points at the shallowest depth first
        (
            "packages/a",
            {"src/pkg_a/__init__.py": 5, "src/pkg_a/big.py": 9000, "setup.py": 10},
            ["src/pkg_a/__init__.py", "src/pkg_a/big.py"],
        ),
        # a test project: its largest code, never 0 reads
        (
            "test/Foo.Tests",
            {"ParserTests.cs": 300, "LexerTests.cs": 200, "logo.png": 90000},
            ["ParserTests.cs", "LexerTests.cs"],
        ),
        # documentation only: its text
        ("docs/guide", {"intro.md": 300, "img.png": 9000}, ["intro.md"]),
    ],
)
def test_main_modules_are_read_from_every_kind_of_folder(
    folder: str, files: dict[str, int], expected: list[str]
) -> None:
    assert main_modules(_tree(folder, files), f"{folder}/") == expected


def _listing(path: str, dirs: list[str], files: tuple[str, ...] = ()) -> DirListing:
    join = (lambda n: f"{path}/{n}") if path else (lambda n: n)
    entries = tuple(
        [DirEntry(name=d, path=join(d), type="dir") for d in dirs]
        + [DirEntry(name=f, path=join(f), type="file") for f in files]
    )
    return DirListing(path=path, entries=entries)


def test_a_folder_s_tests_are_found_by_its_project_s_name_in_a_test_root_or_beside_it() -> None:
    """``src/Polly.Core/CircuitBreaker`` (no manifest of its own) belongs to ``src/Polly.Core``, whose
    tests are ``test/Polly.Core.Tests``; ``Src/AutoFixture``'s are beside it, ``Src/AutoFixtureUnitTest``."""
    listings = {
        "": _listing("", ["src", "test"], ("Polly.sln",)),
        "src": _listing("src", ["Polly.Core", "Polly.Testing"]),
        "src/Polly.Core": _listing("src/Polly.Core", ["CircuitBreaker"], ("Polly.Core.csproj",)),
    }
    owners = project_chain("src/Polly.Core/CircuitBreaker", False, listings.get)
    assert owners == ["src/Polly.Core/CircuitBreaker", "src/Polly.Core"]
    in_roots = ["test/Polly.Core.Tests", "test/Polly.Testing.Tests"]
    assert kept_for(owners, in_roots, listings.get) == ["test/Polly.Core.Tests"]
    beside = {
        "Src": _listing(
            "Src", ["AutoFixture", "AutoFixtureUnitTest", "AutoFixtureDocumentationTest", "Idioms"]
        )
    }
    assert kept_for(["Src/AutoFixture"], [], beside.get) == ["Src/AutoFixtureUnitTest"]
    assert kept_for(["Src/Idioms"], [], beside.get) == []  # a sibling of the same name is not its tests


def test_a_source_set_s_tests_are_its_test_mirror() -> None:
    assert source_set_mirror("gson/src/main/java/com/google/gson/internal") == (
        "gson/src/test",
        "gson/src/test/java/com/google/gson/internal",
    )
    assert source_set_mirror("formats/json/commonMain/src/x") == (
        "formats/json/commonTest",
        "formats/json/commonTest/src/x",
    )
    assert source_set_mirror("src/Polly.Core") is None and source_set_mirror("packages/main-ui") is None


_BUILT: dict[str, Evidence] = {}


def _big_folder_run(n: int) -> str:
    """The evidence of a folder's run whose folder and root tests/<pkg>/ hold ``n`` files each."""
    key = str(n)
    if key not in _BUILT:
        _BUILT.clear()
        own = tuple(TreeEntry(path=f"pkg/a/m{i % 97}/f{i}.py", type="file", size=100) for i in range(n))
        kept = tuple(TreeEntry(path=f"tests/a/d{i % 89}/test_{i}.py", type="file", size=10) for i in range(n))
        _BUILT[key] = Evidence(
            repo=REPO,
            tree=FileTree(ref="main", path="pkg/a", entries=own),
            listings={
                "": _listing("", ["pkg", "tests", ".github"], ("LICENSE",)),
                "pkg": _listing("pkg", ["a", "b"]),
                ".github/workflows": _listing(".github/workflows", [], ("ci.yml",)),
                "tests": _listing("tests", ["a", "b"]),
            },
            subtrees={"tests/a": FileTree(ref="main", path="tests/a", entries=kept)},
        )
    return key


def _facts_of_big_run(key: str) -> None:
    facts = build_facts(reroot(_BUILT[key]))
    assert facts.evidence.tests_outside and facts.evidence.root_known


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_a_folder_run_s_evidence_costs_linear_work_in_its_files_and_its_tests_elsewhere() -> None:
    measured = growth(_facts_of_big_run, _big_folder_run, start=2000)
    print(f"folder evidence: {measured}")
    assert measured.linear(), measured


def test_tests_beside_a_folder_are_test_projects_and_source_sets_not_helper_crates() -> None:
    """``tokio-test`` beside ``tokio`` is a crate of test helpers (not tokio's tests); okhttp's
    ``src/jvmTest`` beside ``src/commonJvmAndroid`` is a test source set; ``dotnet/test/AutoGen.Tests``
    holds the tests of ``AutoGen.Core`` beside ``AutoGen.OpenAI``."""
    root = {"": _listing("", ["tokio", "tokio-test", "tokio-util"])}
    assert kept_for(["tokio"], [], root.get) == []
    okhttp = {"okhttp/src": _listing("okhttp/src", ["commonJvmAndroid", "commonTest", "jvmMain", "jvmTest"])}
    assert kept_for(["okhttp/src/commonJvmAndroid"], [], okhttp.get) == [
        "okhttp/src/commonTest",
        "okhttp/src/jvmTest",
    ]
    dotnet = {"dotnet/src": _listing("dotnet/src", ["AutoGen.Core", "AutoGen.OpenAI"])}
    in_root = ["dotnet/test/AutoGen.Tests", "dotnet/test/AutoGen.OpenAI.Tests", "dotnet/test/Other.Tests"]
    assert kept_for(["dotnet/src/AutoGen.Core"], in_root, dotnet.get) == ["dotnet/test/AutoGen.Tests"]
