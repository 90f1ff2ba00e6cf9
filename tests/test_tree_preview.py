"""The trace's short form of a file tree: counts, the top level, a few paths, how many more."""

from __future__ import annotations

from agent_core import events as ev
from agent_core.agent.parallel import preview
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools.observe import summarise_tree
from agent_core.web.trace_items import call_preview
from agent_core.web.tree_preview import parse_cut_json, tree_preview


def big_tree_preview(modules: int = 300) -> str:
    entries = [TreeEntry(path=d, type="dir") for d in ("src", "src/pkg", "tests", "docs")]
    entries += [TreeEntry(path=f"src/pkg/m{i:03d}.py", type="file") for i in range(modules)]
    entries += [TreeEntry(path=f"tests/test_{i:02d}.py", type="file") for i in range(40)]
    entries += [TreeEntry(path="README.md", type="file")]
    return preview(summarise_tree(FileTree(ref="main", path="", entries=tuple(entries))))


def test_a_cut_preview_still_gives_the_counts_the_top_level_and_the_first_paths() -> None:
    text = big_tree_preview()
    assert "more characters)" in text  # the event's preview was cut: not JSON any more
    short = tree_preview(text)
    assert short is not None
    lines = short.splitlines()
    assert lines[0] == "```text" and lines[-1] == "```"
    assert lines[1] == "files: 341 · folders: 4"
    assert lines[2] == "src/ 300 · tests/ 40 · docs/ 0"
    assert lines[3] == "top-level files: 1"
    assert lines[4:9] == [
        "  README.md",
        "  tests/test_00.py",
        "  tests/test_01.py",
        "  tests/test_02.py",
        "  tests/test_03.py",
    ]
    assert lines[9] == "… and 336 more"
    assert len(lines) == 11


def test_the_summary_speaks_chinese_too() -> None:
    short = tree_preview(big_tree_preview(), "zh")
    assert short is not None
    assert "文件：341 · 文件夹：4" in short
    assert "……另有 336 个" in short


def test_cut_json_is_mended_at_its_last_complete_element() -> None:
    assert parse_cut_json('{"a": [1, 2, "x,y"], "b": {"c": [3, 4') == {"a": [1, 2, "x,y"], "b": {"c": [3]}}
    assert parse_cut_json('{"a": "no comma at all') is None
    assert parse_cut_json("[1, 2]") is None  # not an object


def test_other_results_keep_their_fenced_preview() -> None:
    finished = ev.ToolCallFinished(
        t=1, call_id="c", tool="get_file_tree", turn=1, ok=False, preview='{"error": "boom"}', duration_s=0.1
    )
    assert call_preview(finished) == '```json\n{"error": "boom"}\n```'
    read = ev.ToolCallFinished(
        t=1, call_id="c", tool="read_file", turn=1, ok=True, preview='{"files": 3}', duration_s=0.1
    )
    assert call_preview(read) == '```json\n{"files": 3}\n```'
    tree = ev.ToolCallFinished(
        t=1, call_id="c", tool="get_file_tree", turn=1, ok=True, preview=big_tree_preview(3), duration_s=0.1
    )
    assert call_preview(tree).startswith("```text\nfiles: 44 · folders: 4\n")
