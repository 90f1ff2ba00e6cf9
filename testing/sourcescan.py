"""The house's own Python source, parsed and walked once per test process.

The layering, structure and run-state tests each read every module of ``agent_core/``; parsing and walking
it again for each of them was most of their time. A file is parsed again when it changes (its size and
modification time), so a test that writes a file to check a check sees what it wrote.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def _read(path: Path, size: int, mtime_ns: int) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    del size, mtime_ns  # the cache's key: the file as it is now
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tree, tuple(ast.walk(tree))


def _stamped(path: Path) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    stat = path.stat()
    return _read(path.resolve(), stat.st_size, stat.st_mtime_ns)


def parsed(path: Path) -> ast.Module:
    """``path``'s syntax tree (shared: read it, never change it)."""
    return _stamped(path)[0]


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of ``path``'s syntax tree, in :func:`ast.walk`'s order."""
    return _stamped(path)[1]
