"""Package counts per ecosystem say what they count (issue 34, the truth bench's last false statements).

Each shape is built from small trees and real manifests (``tests/fixtures/manifests``, see its
SOURCES.md): a .NET solution whose samples are projects too (autogen: "47 .NET projects" of 64 .csproj),
a Go module whose folder is named ``testdata`` (the OpenTelemetry Collector's ``pdata/testdata``), a uv
workspace root without ``[project]`` (autogen's ``python/pyproject.toml``), a build script's Composer
install (phpunit's ``build/scripts/phar-set-timestamps``), and a go.mod that replaces its sibling modules
by local folders (the Collector's ``exporter/go.mod``). The truth judge's side is tested last.
"""

from __future__ import annotations

from pathlib import Path

from agent_core.repomodel import RootContext, build_repo_model
from agent_core.repomodel.counts import ecosystem_counts
from agent_core.report.manifest_words import manifest_text
from agent_core.report.manifests import own_package_names, parse_manifest
from agent_core.report.writer import written
from agent_core.sources.models import FileTree
from agent_core.words import words_for
from bench.realrepos_truth import Truth
from bench.truth_judge import TruthFile, judge_truth
from tests.test_repomodel import tree_of
from tests.test_report import DEMO, github_results, result, section, text_file

FIXTURES = Path(__file__).parent / "fixtures" / "manifests"


def _counts(tree: FileTree, read: tuple[str, ...] = ()) -> dict[str, tuple[int, int, int, tuple[str, ...]]]:
    model = build_repo_model(tree.entries, context=RootContext(read=read))
    return {
        c.ecosystem: (c.packages, c.examples, c.fixtures, c.unread_roots)
        for c in ecosystem_counts(model.packages, model.aside)
    }


def _stack(tree: FileTree, reads: dict[str, str]) -> str:
    results = [
        *(r for r in github_results() if r.tool not in ("get_file_tree", "read_file", "list_directory")),
        result("get_file_tree", DEMO, tree, path=""),
        *(result("read_file", DEMO, text_file(p, t), path=p) for p, t in reads.items()),
    ]
    return section(written(scope=[DEMO], question="", results=results).markdown(), "Tech stack")


def test_projects_in_examples_and_test_data_are_said_apart_from_the_count() -> None:
    """Samples are projects a reader may count or not: the report counts the project's own and says how
    many it leaves out, so either reading of "how many .NET projects" is answered."""
    tree = tree_of(
        "dotnet/AutoGen.sln",
        "dotnet/src/AutoGen.Core/AutoGen.Core.csproj",
        "dotnet/src/AutoGen/AutoGen.csproj",
        "dotnet/test/AutoGen.Tests/AutoGen.Tests.csproj",
        "dotnet/samples/Hello/HelloAgent/HelloAgent.csproj",
        "dotnet/samples/GettingStarted/GettingStarted.csproj",
        "go.mod",
        "pdata/go.mod",
        "pdata/testdata/go.mod",
        "pdata/testdata/common.go",
        "web/package.json",
        "web/examples/demo/package.json",
        "web/test/fixtures/app/package.json",
    )
    assert _counts(tree) == {"nuget": (3, 2, 0, ()), "go": (2, 0, 1, ()), "npm": (1, 1, 1, ())}
    stack = _stack(tree, {})
    assert "3 .NET projects (nuget), 1 of them for tests, not counting 2 in examples;" in stack
    assert "2 Go modules (go), not counting 1 in test data;" in stack
    assert "1 npm package (npm), not counting 1 in examples and 1 in test data." in stack


def test_a_nested_cmake_file_in_examples_is_its_parents_part_not_set_aside() -> None:
    tree = tree_of("CMakeLists.txt", "example/CMakeLists.txt", "src/a.cc", "a/CMakeLists.txt")
    model = build_repo_model(tree.entries)
    assert [p.manifest for p in model.packages] == ["CMakeLists.txt"] and model.aside == ()


def test_an_unread_workspace_root_is_no_counted_fact_until_it_is_read() -> None:
    """autogen's ``python/pyproject.toml`` holds ``[tool.uv.workspace]`` and no ``[project]``: unread, the
    count says both readings; read, it is no package; a root that declares a project is one."""
    tree = tree_of(
        "python/pyproject.toml",
        "python/packages/autogen-core/pyproject.toml",
        "python/packages/autogen-ext/pyproject.toml",
        "python/packages/autogen-core/src/autogen_core/__init__.py",
    )
    root = "python/pyproject.toml"
    assert _counts(tree)["python"] == (2, 0, 0, (root,))
    stack = _stack(tree, {})
    assert "2 Python projects (python), or 3 if `python/pyproject.toml` (unread) declares a package" in stack

    workspace = (FIXTURES / "uv-workspace.pyproject.toml").read_text()
    assert "[project]" not in workspace and "[tool.uv.workspace]" in workspace
    stack = _stack(tree, {root: workspace})
    assert "**Packages by ecosystem:** 2 Python projects (python)." in stack

    project = (
        '[project]\nname = "autogen"\nversion = "1.0"\n\n[tool.uv.workspace]\nmembers = ["packages/*"]\n'
    )
    assert _counts(tree, read=(root,))["python"] == (3, 0, 0, ())
    assert "**Packages by ecosystem:** 3 Python projects (python)." in _stack(tree, {root: project})


def test_a_build_tools_composer_install_is_no_package_and_a_monorepos_packages_are() -> None:
    """phpunit's build script keeps its own ``composer.json`` (no name: seld/phar-utils), ``composer.lock``
    and ``vendor/``: an application's install; Laravel's ``src/Illuminate/*/composer.json`` resolve with
    the root's lock, and each is a package."""
    tool = (FIXTURES / "phar-set-timestamps.composer.json").read_text()
    assert '"name"' not in tool and "seld/phar-utils" in tool
    tree = tree_of(
        "composer.json",
        "composer.lock",
        "src/Framework/TestCase.php",
        "build/scripts/phar-set-timestamps/composer.json",
        "build/scripts/phar-set-timestamps/composer.lock",
        "build/scripts/phar-set-timestamps/run.php",
        "build/scripts/phar-set-timestamps/vendor/autoload.php",
        "src/Illuminate/Support/composer.json",
        "src/Illuminate/Support/Str.php",
    )
    model = build_repo_model(tree.entries)
    assert [p.manifest for p in model.packages] == ["composer.json", "src/Illuminate/Support/composer.json"]


def test_modules_replaced_by_local_folders_are_the_repositorys_own_never_dependencies() -> None:
    """The Collector's ``exporter/go.mod`` requires 12 modules directly, 9 of them its siblings replaced by
    ``../component``...: 3 dependencies, the 9 said apart as the repository's own."""
    text = (FIXTURES / "otel-exporter.go.mod").read_text()
    manifest = parse_manifest("exporter/go.mod", text)
    own = own_package_names([manifest])
    assert "go.opentelemetry.io/collector/component" in own
    assert "go.opentelemetry.io/collector/exporter/exporterhelper" in own  # => ./exporterhelper
    assert "go.uber.org/zap" not in own and "github.com/stretchr/testify" not in own
    line = manifest_text(manifest, words_for("en"), own)
    assert line.count("runtime dependencies (3):") == 1, line
    assert "`go.uber.org/zap v1.28.0`" in line and "`go.opentelemetry.io/collector/pdata v1.65.0`" not in line
    assert "the repository's own packages it references (9)" in line
    # in a block too; a replacement by another module is a dependency still
    block = "module a\n\nrequire (\n\tb/c v1.0.0\n\tf/g v1.0.0\n)\n\nreplace (\n\tb/c v1.0.0 => ./c\n\tf/g => h/i v1.2.0\n)\n"
    assert own_package_names([parse_manifest("go.mod", block)]) == {"a", "b/c"}


def _truth(**ecosystems: dict[str, object]) -> TruthFile:
    return TruthFile(
        repo="acme/mono",
        ecosystems=dict(ecosystems),
        examples=("dotnet/samples",),
        fixtures=("pdata/testdata",),
    )


def _verdicts(report: str, facts: TruthFile) -> list[tuple[str, bool | None]]:
    truth = Truth(files={"README.md": 10}, dirs=set(), texts={})
    return [
        (s.text, s.verdict)
        for s in judge_truth(report, facts, truth).statements
        if s.kind == "ecosystem count"
    ]


def test_the_judge_holds_a_counts_stated_scope_against_the_truth_file() -> None:
    samples = [f"dotnet/samples/S{i}/S{i}.csproj" for i in range(17)]
    own = [f"dotnet/src/P{i}/P{i}.csproj" for i in range(47)]
    modules = ["go.mod", "pdata/go.mod", "pdata/testdata/go.mod"]
    facts = _truth(
        nuget={"packages": 64, "manifests": own + samples},
        go={"packages": 3, "manifests": modules},
        python={"packages": 10, "manifests": []},
    )
    report = (
        "**Packages by ecosystem:** 47 .NET projects (nuget), not counting 17 in examples; "
        "2 Go modules (go), not counting 1 in test data; "
        "9 Python projects (python), or 10 if `python/pyproject.toml` (unread) declares a package.\n"
        "- 47 .NET projects, not counting 16 in examples.\n"  # the parts do not add up
        "- 2 Go modules, not counting 1 in examples.\n"  # the truth file has no go.mod in examples
        "- 8 Python projects, or 9 if `x/pyproject.toml` (unread) declares a package.\n"
        "- 47 .NET projects.\n"  # no scope said
    )
    assert _verdicts(report, facts) == [
        ("47 .NET projects", True),
        ("2 Go modules", True),
        ("9 Python projects", True),
        ("47 .NET projects", False),
        ("2 Go modules", False),
        ("8 Python projects", False),
        ("47 .NET projects", False),
    ]
