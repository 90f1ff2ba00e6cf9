"""The repository model: roles by convention, .gitattributes overrides, packages and workspaces, CI
systems, tests by convention; and the report, the brief and the diagram saying its counts."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from agent_core.agent import prefetch
from agent_core.agent.brief import write_brief
from agent_core.agent.planner import OfflinePlanner
from agent_core.repo import RepoRef
from agent_core.repomodel import (
    FolderCount,
    RootContext,
    build_repo_model,
    model_of,
    role_by_convention,
    workspace_globs,
    workspace_member,
)
from agent_core.repomodel.memo import memoised_trees
from agent_core.report.diagram_tree import tree_graph
from agent_core.report.facts import build_facts, gather
from agent_core.report.writer import written
from agent_core.sources.local import LocalGitSource
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools.observe import summarise_tree
from agent_core.words import words_for
from testing.emulator.gitrepo import make_repo
from tests.test_planner import overview
from tests.test_report import result, section, text_file

SVC = RepoRef(owner="acme", name="svc")


def tree_of(*paths: str, truncated: bool = False) -> FileTree:
    dirs = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
    entries = [TreeEntry(path=d, type="dir") for d in dirs]
    entries += [TreeEntry(path=p, type="file", size=10) for p in paths]
    return FileTree(
        ref="0123abc", path="", entries=tuple(sorted(entries, key=lambda e: e.path)), truncated=truncated
    )


def go_service() -> FileTree:
    """A Go service: 30 vendored files under vendor/, 14 of its own (6 `_test.go` in 3 packages), go.sum."""
    vendored = [f"vendor/github.com/lib{i % 3}/pkg/f{i:02d}.go" for i in range(30)]
    own = [f"internal/{p}/{n}.go" for p in ("api", "store", "auth") for n in ("a", "b")]
    tests = [f"internal/{p}/{n}_test.go" for p in ("api", "store", "auth") for n in ("a", "b")]
    return tree_of(
        *vendored,
        *own,
        *tests,
        "cmd/svc/main.go",
        "go.mod",
        "go.sum",
        "README.md",
        "plugins/x/spec/schema.json",  # a stray spec/ folder: not the tests
        ".github/workflows/ci.yml",
    )


def test_a_go_service_vendored_code_is_counted_apart_from_the_projects_own() -> None:
    model = build_repo_model(go_service().entries)
    assert (model.files, model.own_files) == (48, 17)
    assert model.vendored == (FolderCount("vendor", 30),)
    assert model.generated_files == 1  # go.sum
    assert model.role_of("go.sum") == "generated"
    assert not model.is_own("vendor/github.com/lib0/pkg/f00.go")
    assert model.tests.files == 6
    assert model.tests.by_convention == (("*_test.go", 6),)
    assert model.tests.packages == 3
    assert model.role_of("plugins/x/spec/schema.json") == "source"
    assert [(p.path, p.ecosystem) for p in model.packages] == [("", "go")]  # vendored go.mod files left out
    assert [(c.name, c.paths) for c in model.ci] == [("GitHub Actions", (".github/workflows/ci.yml",))]
    vendor = next(t for t in model.top_level if t.name == "vendor")
    assert (vendor.files, vendor.own_files, vendor.role) == (30, 0, "vendored")
    internal = next(t for t in model.top_level if t.name == "internal")
    assert internal.role == "source"  # tests beside the code count as the code they test


def go_results() -> list:
    return [result("get_file_tree", SVC, go_service(), path="")]


def test_the_report_says_the_models_counts_in_english_and_chinese() -> None:
    report = written(scope=[SVC], question="", results=go_results()).markdown()
    structure = section(report, "Architecture and structure")
    assert (
        "- 48 files in 19 folders, of which 30 vendored (`vendor/`) and 1 generated: 17 are the project's own."
        in structure
    )
    assert "- **Tests:** 6 `*_test.go` files across 3 packages." in structure
    assert "- `vendor/` — 30 files (0 own) — vendored (not the project's own)" not in structure
    assert "- `vendor/` — 30 files — vendored (not the project's own)" in structure
    assert "- `plugins/` — 1 file — source code" in structure
    assert "Tests are present: 6 `*_test.go` files across 3 packages." in section(report, "Strengths")
    assert "A tests folder is present" not in report  # no stray spec/ taken as the tests
    assert "| Files |" not in report  # one repository: no table

    chinese = written(scope=[SVC], question="", results=go_results(), language="zh").markdown()
    assert (
        "共 48 个文件、19 个目录，其中 30 个为第三方代码（`vendor/`）、1 个为生成文件：项目自身的文件为 17 个。"
        in chinese
    )
    assert "**测试：** 3 个包中共有 6 个 `*_test.go` 文件。" in chinese
    assert "- `vendor/` — 30 个文件 — 第三方代码（非项目自身）" in chinese


def test_the_brief_gives_the_model_the_same_counts() -> None:
    brief = write_brief([SVC], go_results(), max_chars=4000)
    assert (
        "Files: 48 files in 19 directories, of which 30 vendored (vendor/) and 1 generated: 17 are the project's own."
        in brief
    )
    assert "vendor/ (30 files, vendored)" in brief
    assert "Tests: 6 files across 3 packages (6 *_test.go)." in brief
    assert "CI: GitHub Actions (.github/workflows/ci.yml)." in brief


def test_the_diagram_draws_no_tests_box_from_a_stray_spec_folder() -> None:
    facts = build_facts(gather(SVC, go_results(), words_for("en")))
    assert facts.tests_dir is None
    graph = tree_graph(facts, words_for("en"))
    paths = {c.path for c in graph.components}
    assert "plugins/x/spec" not in paths
    assert "vendor" not in paths  # vendored code is not one of the project's packages
    assert not [r for r in graph.relations if r.label == "tests"]


def test_a_top_level_tests_folder_is_the_diagrams_tests_and_ci_runs_it() -> None:
    tree = tree_of("src/app/core.py", "tests/test_core.py", "tests/conftest.py", ".gitlab-ci.yml")
    facts = build_facts(gather(SVC, [result("get_file_tree", SVC, tree, path="")], words_for("en")))
    assert facts.tests_dir == "tests"
    graph = tree_graph(facts, words_for("en"))
    assert any(r.source == "tests" and r.label == "tests" for r in graph.relations)
    assert any(r.source == ".gitlab-ci.yml" and r.target == "tests" for r in graph.relations)


def ts_monorepo() -> FileTree:
    return tree_of(
        "package.json",
        "packages/core/package.json",
        "packages/core/src/index.ts",
        "packages/core/src/index.spec.ts",
        "packages/core/src/parse.test.ts",
        "packages/ui/package.json",
        "packages/ui/src/button.tsx",
        "packages/ui/src/__tests__/button.tsx",
        "tools/release/package.json",
        "node_modules/left-pad/package.json",
        "node_modules/left-pad/index.js",
        "pnpm-lock.yaml",
        "dist/bundle.min.js",
    )


def test_a_typescript_monorepo_with_npm_workspaces() -> None:
    globs = workspace_globs(json.dumps({"name": "root", "workspaces": ["packages/*"]}))
    model = build_repo_model(ts_monorepo().entries, context=RootContext(workspace_globs=globs))
    assert [(p.path, p.member_of_workspace) for p in model.packages] == [  # the workspaces' root is none
        ("packages/core", True),
        ("packages/ui", True),
        ("tools/release", False),
    ]
    assert model.tests.by_convention == (("*.spec.ts", 1), ("*.test.ts", 1), ("__tests__/", 1))
    assert model.tests.packages == 2
    assert model.role_of("pnpm-lock.yaml") == "generated"
    assert model.role_of("dist/bundle.min.js") == "vendored"
    assert {v.path for v in model.vendored} == {"node_modules", "dist"}


def test_the_report_reads_the_workspaces_from_the_root_package_json() -> None:
    package = json.dumps({"name": "root", "workspaces": {"packages": ["packages/*"]}})
    results = [
        result("get_file_tree", SVC, ts_monorepo(), path=""),
        result("read_file", SVC, text_file("package.json", package), path="package.json"),
    ]
    structure = section(
        written(scope=[SVC], question="", results=results).markdown(), "Architecture and structure"
    )
    assert "- **Packages and modules:** 3 (npm 3, 2 of them members of the npm workspaces)." in structure
    assert (
        "- **Tests:** 3 files across 2 packages (1 `*.spec.ts`, 1 `*.test.ts`, 1 `__tests__/`)." in structure
    )


@pytest.mark.parametrize(
    ("globs", "folder", "member"),
    [
        (["packages/*"], "packages/a", True),
        (["packages/*"], "packages/a/b", False),
        (["packages/**"], "packages/a/b", True),
        (["./apps/*", "!apps/legacy"], "apps/legacy", False),
        (["./apps/*", "!apps/legacy"], "apps/web", True),
        (["**/**/x"], "a/b/x", True),  # repeated ** is one
        (["**/a/**/b/**/c/**/x"], "a/b/c/x", True),  # many ** match, in linear work
        (["**/a/**/b/**/c/**/x"], "a/c/b/x", False),
    ],
)
def test_workspace_globs(globs: list[str], folder: str, member: bool) -> None:
    assert workspace_member(folder, globs) is member


def test_gitattributes_overrides_vendored_generated_documentation_and_their_negations() -> None:
    tree = tree_of(
        "ext/lib/a.c",
        "api/gen/types.go",
        "api/gen/handwritten.go",
        "vendor/ours/keep.go",
        "docs/conf.py",
        "notes/design.py",
        "src/main.c",
    )
    attributes = (
        "# overrides\n"
        "ext/** linguist-vendored\n"
        "api/gen/*.go linguist-generated=true\n"
        "api/gen/handwritten.go -linguist-generated\n"
        "vendor/ours/** linguist-vendored=false\n"
        "docs/** -linguist-documentation\n"
        "notes/** linguist-documentation\n"
        "*.c text eol=lf\n"
    )
    model = build_repo_model(tree.entries, context=RootContext(gitattributes=attributes))
    assert model.role_of("ext/lib/a.c") == "vendored"
    assert model.role_of("api/gen/types.go") == "generated"
    assert model.role_of("api/gen/handwritten.go") == "source"
    assert model.role_of("vendor/ours/keep.go") == "source"
    assert model.role_of("docs/conf.py") == "source"
    assert model.role_of("notes/design.py") == "docs"
    assert model.role_of("src/main.c") == "source"
    assert model.vendored == (FolderCount("ext", 1),)
    without = build_repo_model(tree.entries)
    assert (without.role_of("ext/lib/a.c"), without.role_of("vendor/ours/keep.go")) == ("source", "vendored")


def test_the_report_applies_the_gitattributes_it_read() -> None:
    tree = tree_of(".gitattributes", "ext/lib/a.c", "ext/lib/b.c", "src/main.c")
    results = [
        result("get_file_tree", SVC, tree, path=""),
        result(
            "read_file", SVC, text_file(".gitattributes", "ext/** linguist-vendored\n"), path=".gitattributes"
        ),
    ]
    structure = section(
        written(scope=[SVC], question="", results=results).markdown(), "Architecture and structure"
    )
    assert "of which 2 vendored (`ext/`): 2 are the project's own." in structure


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("crates/grep/tests/regression.rs", "tests"),  # Rust integration tests
        ("tests/integration.rs", "tests"),
        ("core/src/test/java/com/acme/AppTest.java", "tests"),  # Maven/Gradle
        ("core/src/test/resources/data.json", "tests"),
        ("core/src/main/java/com/acme/App.java", "source"),
        ("lib/widget_spec.rb", "tests"),
        ("spec/models/user_spec.rb", "tests"),
        ("plugins/x/spec/schema.json", "source"),
        ("pkg/cache/cache.go", "source"),  # Linguist's cache/ rule is not taken
        ("src/api_pb2.py", "generated"),
        ("web/app.min.js", "vendored"),
        ("gradle/wrapper/gradle-wrapper.jar", "vendored"),
        ("third_party/zlib/zlib.h", "vendored"),
        ("README.md", "docs"),
        ("docs/conf.py", "docs"),
        ("examples/basic/main.go", "examples"),
        ("Makefile", "build"),
        ("Jenkinsfile", "ci"),
        ("src/demo/app.py", "source"),
    ],
)
def test_roles_by_convention(path: str, role: str) -> None:
    assert role_by_convention(path) == role
    assert build_repo_model([TreeEntry(path=path, type="file")]).role_of(path) == role


def test_java_and_rust_test_conventions_are_counted_by_package() -> None:
    tree = tree_of(
        "core/src/main/java/App.java",
        "core/src/test/java/AppTest.java",
        "core/src/test/java/Helpers.java",
        "crates/grep/src/lib.rs",
        "crates/grep/tests/regression.rs",
    )
    tests = build_repo_model(tree.entries).tests
    assert tests.by_convention == (("*Test.java", 1), ("src/test/", 1), ("tests/", 1))
    assert tests.dirs == ("core/src/test", "crates/grep/tests")
    assert tests.packages == 2  # core/src and crates/grep


def test_ci_systems_beyond_github_actions() -> None:
    tree = tree_of(
        ".github/workflows/test.yml",
        ".gitlab-ci.yml",
        ".cirrus.yml",
        ".circleci/config.yml",
        "azure-pipelines.yml",
        "Jenkinsfile",
        ".travis.yml",
        ".buildkite/pipeline.yml",
        ".prow.yaml",
        ".tekton/pr.yaml",
        ".drone.yml",
        "appveyor.yml",
        "src/ci/helper.py",  # not CI: a package named ci
    )
    model = build_repo_model(tree.entries)
    assert [c.name for c in model.ci] == [
        "AppVeyor",
        "Azure Pipelines",
        "Buildkite",
        "CircleCI",
        "Cirrus CI",
        "Drone",
        "GitHub Actions",
        "GitLab CI",
        "Jenkins",
        "Prow",
        "Tekton",
        "Travis CI",
    ]
    assert model.role_of("src/ci/helper.py") == "source"
    report = written(
        scope=[SVC], question="", results=[result("get_file_tree", SVC, tree, path="")]
    ).markdown()
    assert "**CI:** AppVeyor (1 file), Azure Pipelines (1 file), Buildkite (1 file)" in report
    notable = report.split("**Notable files:**", 1)[1].split("\n", 1)[0]
    assert all(f"`{p}`" in notable for p in (".cirrus.yml", ".prow.yaml", ".tekton/pr.yaml", ".drone.yml"))


def test_a_subfolder_root_counts_only_that_folder() -> None:
    tree = tree_of("pkg/parser/a.go", "pkg/parser/a_test.go", "pkg/parser/internal/b.go", "cmd/main.go")
    model = build_repo_model(tree.entries, root="pkg/parser")
    assert (model.root, model.files, model.tests.files) == ("pkg/parser", 3, 1)
    assert [t.name for t in model.top_level] == ["internal"]
    assert model.top_files == ("pkg/parser/a.go", "pkg/parser/a_test.go")


def test_a_cut_tree_is_said_as_a_lower_bound() -> None:
    tree = tree_of("src/a.py", "vendor/x.py", truncated=True)
    results = [result("get_file_tree", SVC, tree, path="")]
    structure = section(
        written(scope=[SVC], question="", results=results).markdown(), "Architecture and structure"
    )
    assert (
        "- at least 2 files in 2 folders, of which 1 vendored (`vendor/`): 1 is the project's own."
        in structure
    )


def test_the_model_is_built_once_per_tree_object_and_forgotten_with_it() -> None:
    tree = go_service()
    before = memoised_trees()
    first = model_of(tree)
    assert model_of(tree) is first
    assert model_of(go_service()) is not first  # another tree object: another model
    build_facts(gather(SVC, [result("get_file_tree", SVC, tree, path="")], words_for("en")))
    assert model_of(tree) is first  # the report asked for the same one
    assert model_of(tree, RootContext(gitattributes="vendor/** -linguist-vendored\n")) is not first
    del tree, first
    gc.collect()
    assert memoised_trees() <= before


async def test_a_real_git_repository_through_the_local_source(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/svc\n",
        "main.go": "package main\n",
        "api/api.go": "package api\n",
        "api/api_test.go": "package api\n",
        "store/store_test.go": "package store\n",
        "vendor/github.com/pkg/errors/errors.go": "package errors\n",
        "vendor/modules.txt": "# github.com/pkg/errors\n",
        ".gitattributes": "gen/** linguist-generated\n",
        "gen/types.go": "package gen\n",
        ".cirrus.yml": "task:\n",
    }
    source = await LocalGitSource.open(make_repo(tmp_path / "svc", files))
    tree = (await source.get_file_tree(source.repo_ref)).value
    model = model_of(tree, RootContext(gitattributes=files[".gitattributes"]))
    assert (model.files, model.own_files) == (10, 7)
    assert model.vendored == (FolderCount("vendor", 2),)
    assert model.role_of("gen/types.go") == "generated"
    assert (model.tests.files, model.tests.packages) == (2, 2)
    assert [c.name for c in model.ci] == ["Cirrus CI"]
    assert [p.path for p in model.packages] == [""]


def test_the_models_observation_of_a_tree_has_the_models_counts_and_the_cut_first() -> None:
    tree = FileTree(ref="main", path="", entries=go_service().entries, truncated=True)
    observation = summarise_tree(tree)
    assert next(iter(observation)) == "truncated"  # before anything a cut could drop
    assert (observation["files"], observation["own_files"], observation["generated_files"]) == (48, 17, 1)
    assert observation["vendored"] == [{"path": "vendor", "files": 30}]
    assert observation["tests"] == {"files": 6, "packages": 3, "by_convention": {"*_test.go": 6}}
    assert observation["ci"] == ["GitHub Actions"]
    vendor = next(e for e in observation["top_level"] if e["name"] == "vendor")
    assert vendor == {"name": "vendor", "type": "dir", "files": 30, "own_files": 0, "role": "vendored"}


def test_the_offline_planner_and_the_prefetch_read_a_root_gitattributes() -> None:
    tree = tree_of("README.md", ".gitattributes", "ext/a.c", "go.mod")
    planner = OfflinePlanner([SVC])
    step = planner.next_step(overview(SVC, tree))
    assert step is not None
    reads = [c.arguments.get("path") for c in step.calls if c.tool == "read_file"]
    assert ".gitattributes" in reads
    assert "the Linguist overrides .gitattributes" in step.thought
    assert prefetch._has_attributes(tree)
    assert not prefetch._has_attributes(tree_of("README.md", "docs/.gitattributes"))
    assert prefetch._attributes(SVC).arguments == {"owner": "acme", "repo": "svc", "path": ".gitattributes"}
