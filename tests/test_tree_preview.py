"""The trace's short form of a file tree: rendered from the event's typed summary, never from preview text."""

from __future__ import annotations

import io

from agent_core import events as ev
from agent_core.agent.parallel import finished_event, preview
from agent_core.event_json import event_from_dict, event_to_dict
from agent_core.repomodel import build_repo_model, tree_summary
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools.observe import summarise_tree
from agent_core.tools.results import ToolResult
from agent_core.top.terminal import TerminalRenderer
from agent_core.web.trace_items import call_preview
from agent_core.web.tree_preview import tree_preview


def go_service(*, truncated: bool = False) -> FileTree:
    """A Go service with vendor/: 40 vendored files, 12 of its own (4 `_test.go` in 2 packages)."""
    entries = [
        TreeEntry(path=d, type="dir") for d in ("cmd", "internal", "internal/a", "internal/b", "vendor")
    ]
    entries += [TreeEntry(path=f"vendor/github.com/x/lib/f{i:02d}.go", type="file") for i in range(40)]
    entries += [TreeEntry(path=f"internal/{p}/{n}.go", type="file") for p in "ab" for n in ("x", "y")]
    entries += [TreeEntry(path=f"internal/{p}/{n}_test.go", type="file") for p in "ab" for n in ("x", "y")]
    entries += [TreeEntry(path=p, type="file") for p in ("cmd/main.go", "go.mod", "go.sum", "README.md")]
    return FileTree(ref="main", path="", entries=tuple(entries), truncated=truncated)


def finished(tree: FileTree) -> ev.ToolCallFinished:
    result = ToolResult(
        call_id="c1",
        tool="get_file_tree",
        arguments={"owner": "o", "repo": "r"},
        ok=True,
        observation=summarise_tree(tree),
        value=tree,
    )
    return finished_event(1.0, 1, result)


def test_the_tool_call_event_carries_the_models_counts_and_the_preview_renders_them() -> None:
    event = finished(go_service())
    assert event.tree == tree_summary(build_repo_model(go_service().entries))
    assert event.tree is not None
    assert (event.tree.files, event.tree.own_files, event.tree.vendored) == (52, 11, (("vendor", 40),))
    lines = tree_preview(event).splitlines()
    assert lines == [
        "```text",
        "files: 52 · folders: 5",
        "the project's own: 11 · vendored: 40 (vendor/) · generated: 1",
        "tests: 4 files in 2 packages (4 *_test.go)",
        "vendor/ 40 vendored · internal/ 8 · cmd/ 1",
        "top-level files: 3",
        "```",
    ]


def test_the_cut_is_said_and_the_summary_speaks_chinese_too() -> None:
    event = finished(go_service(truncated=True))
    assert "GitHub cut this tree: at least 52 files (every count is a lower bound)" in tree_preview(event)
    chinese = tree_preview(event, "zh")
    assert "项目自身：11 · 第三方代码：40（vendor/）· 生成文件：1" in chinese
    assert "vendor/ 40 第三方" in chinese
    assert "GitHub 截断了此目录树：至少 52 个文件" in chinese


def test_the_summary_survives_the_trace_export_and_old_traces_get_a_plain_line() -> None:
    event = finished(go_service(truncated=True))
    again = event_from_dict(event_to_dict(event))
    assert again == event
    old = event_from_dict({k: v for k, v in event_to_dict(event).items() if k != "tree"})
    assert isinstance(old, ev.ToolCallFinished)
    assert old.tree is None
    assert call_preview(old) == f"```text\nfile tree ({len(old.preview.encode()):,} bytes of result)\n```"


def test_a_cut_preview_text_is_never_parsed() -> None:
    """The preview is cut at 4,000 characters; what the trace says does not depend on it at all."""
    event = finished(go_service())
    garbled = ev.ToolCallFinished(**{**event.__dict__, "preview": '{"files": 999999, "top_level": ['})
    assert tree_preview(garbled) == tree_preview(event)
    assert "999" not in tree_preview(garbled)


def test_the_terminal_tree_line_reads_the_summary() -> None:
    out = io.StringIO()
    renderer = TerminalRenderer(out, rich=False, width=200)
    renderer.render(finished(go_service(truncated=True)))
    line = out.getvalue()
    assert "52 files, 11 the project's own (40 vendored), 4 test files in 2 packages" in line
    assert "GitHub cut this tree: at least 52 files" in line


def test_other_results_keep_their_fenced_preview() -> None:
    failed = ev.ToolCallFinished(
        t=1, call_id="c", tool="get_file_tree", turn=1, ok=False, preview='{"error": "boom"}', duration_s=0.1
    )
    assert call_preview(failed) == '```json\n{"error": "boom"}\n```'
    read = ev.ToolCallFinished(
        t=1, call_id="c", tool="read_file", turn=1, ok=True, preview='{"files": 3}', duration_s=0.1
    )
    assert call_preview(read) == '```json\n{"files": 3}\n```'
    assert read.tree is None
    assert preview({"a": 1}) == '{\n "a": 1\n}'
