"""The house's layering, pinned: which package may import which, and how big a module may grow.

Read from the code's own import statements (``ast``), so a new import that crosses a line fails here.
The map and the reasons are in docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import ast
import graphlib
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from testing.sourcescan import nodes

ROOT = Path(__file__).resolve().parents[1]
GROUND = {"agent_core.events", "agent_core.errors", "agent_core.clock", "agent_core.settings"}
GROUND |= {"agent_core.cost", "agent_core.repo", "agent_core.grammar", "agent_core.tree_shape"}
GROUND |= {
    "agent_core.ledger",
    "agent_core.event_json",
    "agent_core.result_shape",
    "agent_core.tool_call",
    "agent_core.offload",
    "agent_core.sources.models",  # the values every source returns: imports nothing of the house
}
GROUND |= {"agent_core.words"} | {
    f"agent_core.words.{p.stem}" for p in (ROOT / "agent_core" / "words").glob("*.py") if p.stem != "__init__"
}


def python_files(*folders: str, root: Path = ROOT) -> list[Path]:
    return sorted(p for folder in folders for p in (root / folder).rglob("*.py"))


def module_name(path: Path, root: Path = ROOT) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def imports(path: Path, root: Path = ROOT) -> Iterator[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    name = module_name(path, root)
    package = name.rsplit(".", 1)[0] if path.name != "__init__.py" else name
    for node in nodes(path):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                yield f"{base}.{node.module}" if node.module else base
            elif node.module:
                yield node.module


def offenders(folders: tuple[str, ...], forbidden: tuple[str, ...], root: Path = ROOT) -> list[str]:
    return [
        f"{module_name(path, root)} imports {name}"
        for path in python_files(*folders, root=root)
        for name in imports(path, root)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    ]


def test_only_the_web_package_and_app_py_import_gradio() -> None:
    outside = [p for p in python_files("agent_core") if "web" not in p.relative_to(ROOT / "agent_core").parts]
    found = [
        f"{module_name(p)} imports {n}" for p in outside for n in imports(p) if n.split(".")[0] == "gradio"
    ]
    assert found == []


def test_github_imports_neither_sources_nor_agent() -> None:
    assert (
        offenders(("agent_core/github",), ("agent_core.sources", "agent_core.agent", "agent_core.tools"))
        == []
    )


def test_resilience_imports_only_the_ground_floor() -> None:
    found = [
        f"{module_name(p)} imports {n}"
        for p in python_files("agent_core/resilience")
        for n in imports(p)
        if n.startswith("agent_core.") and not n.startswith("agent_core.resilience") and n not in GROUND
    ]
    assert found == []


def test_the_repository_model_imports_only_the_ground_floor_and_the_source_values() -> None:
    found = [
        f"{module_name(p)} imports {n}"
        for p in python_files("agent_core/repomodel")
        for n in imports(p)
        if n.startswith("agent_core.") and not n.startswith("agent_core.repomodel") and n not in GROUND
    ]
    assert found == []


def test_the_ground_floor_imports_nothing_above_it() -> None:
    found = [
        f"{module_name(p)} imports {n}"
        for p in python_files("agent_core")
        if module_name(p) in GROUND
        for n in imports(p)
        if n.startswith("agent_core.") and n not in GROUND
    ]
    assert found == []


@pytest.mark.parametrize(
    ("folders", "forbidden"),
    [
        (("bench", "scripts", "testing", "agent_core"), ("tests",)),
        (("agent_core",), ("testing", "bench", "scripts", "app")),
        (
            ("agent_core/report", "agent_core/tools", "agent_core/sources"),
            ("agent_core.agent", "agent_core.web"),
        ),
        (("agent_core/agent",), ("agent_core.web", "agent_core.top", "agent_core.github.client")),
        (("agent_core/report",), ("agent_core.tools.executor",)),  # results are values (tools/results.py)
        (
            (
                "agent_core/agent",
                "agent_core/report",
                "agent_core/tools",
                "agent_core/sources",
                "agent_core/github",
                "agent_core/llm",
                "agent_core/resilience",
                "agent_core/repomodel",
            ),
            ("agent_core.top",),
        ),
    ],
)
def test_dependencies_point_down_and_out(folders: tuple[str, ...], forbidden: tuple[str, ...]) -> None:
    assert offenders(folders, forbidden) == []


# The floors, bottom first: a module imports only from its own floor or below (docs/ARCHITECTURE.md draws
# them). A name matches a module or a package (the longest match wins), so every module has one floor.
FLOORS: tuple[tuple[str, ...], ...] = (
    tuple(sorted(GROUND)),
    ("agent_core.diagnosis", "agent_core.resilience", "agent_core.llm"),
    ("agent_core.github",),
    ("agent_core.shared_state",),
    ("agent_core.repomodel",),
    ("agent_core.sources",),
    ("agent_core.tools",),
    ("agent_core.report",),
    ("agent_core.agent",),
    ("agent_core.top", "agent_core", "agent_core.__main__"),  # agent_core/__init__.py: the public API
    ("agent_core.web", "app"),  # app.py: what a Space runs (testing/app.py serves it)
    ("testing",),
    ("bench", "scripts"),
)
GRAPHED = ("agent_core", "bench", "testing", "scripts")


def import_graph(folders: tuple[str, ...] = GRAPHED, root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ``folders`` it imports, from every import statement (at module level, in
    functions, under ``TYPE_CHECKING``); ``from package import module`` is an import of that module."""
    paths = {module_name(p, root): p for p in python_files(*folders, root=root)}
    if "app" in folders and (root / "app.py").exists():
        paths["app"] = root / "app.py"
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in nodes(path):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{up}.{base}" if base else up
                found |= {f"{base}.{alias.name}" for alias in node.names}
        # A name that is no module (a function, a class) stands for the module that holds it; a package's
        # __init__ run on the way to its module is not counted (it would put every re-export in a circle).
        graph[name] = {_nearest(n, paths) for n in found} - {"", name}
    return graph


def _nearest(name: str, modules: dict[str, Path]) -> str:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def import_cycles(graph: dict[str, set[str]], *, most: int = 50) -> list[list[str]]:
    """Circles of imports, each as ``[a, b, ..., a]``: one found (graphlib), one of its imports set aside,
    again, until none is left (or ``most`` are found)."""
    edges = {name: set(targets) for name, targets in graph.items()}
    found: list[list[str]] = []
    while len(found) < most:
        try:
            graphlib.TopologicalSorter(edges).prepare()
        except graphlib.CycleError as cycle:
            loop: list[str] = cycle.args[1]  # [a, ..., a], each importing the one before it
            found.append(loop[::-1])
            edges[loop[1]].discard(loop[0])
            continue
        return found
    return found


def floor_of(name: str) -> int | None:
    matches = [
        (len(prefix), floor)
        for floor, prefixes in enumerate(FLOORS)
        for prefix in prefixes
        if name == prefix or (name.startswith(prefix + ".") and prefix not in GROUND)
    ]
    return max(matches)[1] if matches else None


def test_no_module_imports_another_that_imports_it_back() -> None:
    assert import_cycles(import_graph()) == []


def test_every_import_points_down_or_level() -> None:
    graph = import_graph((*GRAPHED, "app"))
    assert [name for name in graph if floor_of(name) is None] == []  # a new package needs its floor
    up = [
        f"{name} imports {target}"
        for name, targets in graph.items()
        for target in sorted(targets)
        if (floor_of(target) or 0) > (floor_of(name) or 0)
    ]
    assert up == []


def test_the_cycle_finder_sees_imports_in_functions_and_type_checking(tmp_path: Path) -> None:
    folder = tmp_path / "agent_core" / "report"
    folder.mkdir(parents=True)
    (tmp_path / "agent_core" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "a.py").write_text("def f():\n    from agent_core.report.b import g\n", encoding="utf-8")
    (folder / "b.py").write_text("from . import c\n", encoding="utf-8")
    (folder / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from agent_core.report import a\n",
        encoding="utf-8",
    )
    graph = import_graph(("agent_core",), root=tmp_path)
    assert graph["agent_core.report.b"] == {"agent_core.report.c"}
    (loop,) = import_cycles(graph)
    assert sorted(loop[:-1]) == ["agent_core.report.a", "agent_core.report.b", "agent_core.report.c"]
    assert loop[0] == loop[-1] and all(after in graph[before] for before, after in itertools.pairwise(loop))
    (folder / "c.py").write_text("import json\n", encoding="utf-8")
    assert import_cycles(import_graph(("agent_core",), root=tmp_path)) == []


def test_the_floor_check_reads_the_longest_name() -> None:
    assert floor_of("agent_core.sources.models") == 0 < (floor_of("agent_core.repomodel.memo") or 0)
    assert (floor_of("agent_core.sources.models") or 0) < (floor_of("agent_core.sources.github") or 0)
    assert floor_of("agent_core.events") == 0 and floor_of("agent_core.web.page") == len(FLOORS) - 3
    assert floor_of("elsewhere.module") is None


def test_no_module_over_400_lines_and_app_py_stays_small() -> None:
    sizes = {
        module_name(p): len(p.read_text(encoding="utf-8").splitlines()) for p in python_files("agent_core")
    }
    assert {name: lines for name, lines in sizes.items() if lines > 400} == {}
    assert len((ROOT / "app.py").read_text(encoding="utf-8").splitlines()) < 120


def test_the_checker_sees_forbidden_imports_absolute_and_relative(tmp_path: Path) -> None:
    folder = tmp_path / "agent_core" / "github"
    folder.mkdir(parents=True)
    (folder / "probe.py").write_text("from agent_core.sources.base import Sourced\n", encoding="utf-8")
    (folder / "relative.py").write_text("from ..agent import run\n", encoding="utf-8")
    assert offenders(("agent_core/github",), ("agent_core.sources", "agent_core.agent"), root=tmp_path) == [
        "agent_core.github.probe imports agent_core.sources.base",
        "agent_core.github.relative imports agent_core.agent",
    ]


_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Where Chinese characters may stand outside the words package, and why: they read text, they do not say it.
HAN_READERS = {
    "agent_core.report.claim_finders": "patterns that find numbers claimed in Chinese reports (千, 万, 星标 ...)",
    "agent_core.report.claim_names": "negation words of Chinese claims (没有, 缺少, 除了 ...)",
    "agent_core.report.claim_counts": "a Chinese count's measure word and dependency words (个, 依赖 ...)",
    "agent_core.report.claim_packages": "words that make a Chinese line about dependencies or tests (依赖, 测试, 版本 ...)",
    "agent_core.report.verdict_facts": "Chinese dates and number units read back from a claim (年, 月, 万)",
    "agent_core.report.claim_activity": "Chinese wordings of upkeep read back from a claim (不再维护, 积极维护)",
    "agent_core.report.claim_people": "the Chinese wording of who made a project (由 X 创建)",
    "agent_core.agent.draft_checks": "the Chinese word that lists dependencies (依赖)",
    "agent_core.report.claim_standard": "the Chinese wording of a minimum standard read back from a claim (至少 C++17)",
    "agent_core.report.claim_build": "Chinese wordings of a build system read back from a claim (使用 X 构建, 构建系统)",
    "agent_core.agent.corrections": "the Chinese words a model may answer with to drop a sentence (删除, 删去)",
    "agent_core.report.relevance": "Chinese question words mapped to the files that answer them",
    "agent_core.sources.targets": "the Chinese words that join two repositories in one request (和, 与, 对比)",
    "agent_core.web.page": "the language selector names each language in itself (中文)",
    "agent_core.llm.tokens": "the CJK ranges whose characters count as tokens of their own",
    "bench.realrepos_judge": "patterns that judge reports written in Chinese (依赖, 测试, 至少 ...)",
    "bench.truth_judge": "patterns that judge reports written in Chinese (主要语言, 包, 测试框架 ...)",
}


def han_literals(path: Path, root: Path = ROOT) -> list[str]:
    """The string constants of ``path`` holding Han characters, docstrings left out (they explain)."""
    docstrings = {
        id(node.body[0].value)
        for node in nodes(path)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        f"{module_name(path, root)}:{node.lineno} {node.value[:40]!r}"
        for node in nodes(path)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and _HAN.search(node.value)
    ]


def test_no_module_outside_the_words_package_says_chinese() -> None:
    outside = [
        p for p in python_files("agent_core", "bench", "scripts") if "words" not in p.relative_to(ROOT).parts
    ]
    found = [line for p in outside if module_name(p) not in HAN_READERS for line in han_literals(p)]
    assert found == []


def test_every_reader_of_chinese_still_reads_it() -> None:
    stale = [name for name in HAN_READERS if not han_literals(ROOT / (name.replace(".", "/") + ".py"))]
    assert stale == []


def test_the_chinese_scan_sees_literals_but_not_docstrings(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text('"""报告 module doc."""\nX = f"{1} 个文件"\nY = "ok"\n', encoding="utf-8")
    assert han_literals(probe, root=tmp_path) == ["probe:2 ' 个文件'"]
