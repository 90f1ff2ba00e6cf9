"""Consumers read structure, never display text (STYLE.md principle 18), pinned from the code itself.

Read with ``ast`` like tests/test_layering.py: a tool's name written as a string outside the registry, a
preview parsed back, a breaker name split apart, each fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

from agent_core.tools.registry import TOOL_NAMES
from tests.test_layering import ROOT, module_name, python_files


def string_constants(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def tool_name_literals(paths: list[Path], root: Path = ROOT) -> list[str]:
    return [
        f"{module_name(path, root)}:{line} {value!r}"
        for path in paths
        for line, value in string_constants(path)
        if value in TOOL_NAMES
    ]


def test_tool_names_are_written_only_in_the_registry() -> None:
    outside = [p for p in python_files("agent_core") if module_name(p) != "agent_core.tools.registry"]
    assert tool_name_literals(outside) == []


def test_the_tool_name_check_sees_a_literal(tmp_path: Path) -> None:
    folder = tmp_path / "agent_core"
    folder.mkdir()
    (folder / "probe.py").write_text('if call.tool == "read_file":\n    """read_file in prose"""\n')
    assert tool_name_literals([folder / "probe.py"], root=tmp_path) == ["agent_core.probe:1 'read_file'"]
