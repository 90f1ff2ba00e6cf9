"""Issue 35, class 9: a file named with bidirectional-override or control characters is shown as it
really is, escaped (``\\u202E``), in the trace's tree preview, the coverage line, the report, the titles
and the export; never raw, so the displayed name is the real one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.ledger import Coverage
from agent_core.report.coverage import coverage_line
from agent_core.report.inert import code, plain, visible
from agent_core.tree_shape import TreeFolder, TreeSummary
from agent_core.web.markdown import MarkdownStream, fenced, one_line, safe_markdown
from agent_core.web.report_view import ReportView
from agent_core.web.tree_preview import tree_preview
from testing.linear import growth, repeated

RLO, LRI, PDI, TAG = "\u202e", "\u2066", "\u2069", "\U000e0041"
NAME = f"invoice{RLO}fdp.exe"  # shown by a renderer as "invoiceexe.pdf"
RAW = (RLO, LRI, PDI, TAG, "\u200f", "\x1b", "\ufeff")


def raw_free(text: str) -> bool:
    return not any(ch in text for ch in RAW)


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_visible_escapes_bidi_control_and_invisible_characters_and_keeps_the_rest() -> None:
    shown = visible(f"{NAME} {LRI}a{PDI} b{TAG} \x1b[31m \ufeff 中文 e\u0301 👨\u200d👩 a\tb\nc")
    assert raw_free(shown)
    for escape in ("\\u202E", "\\u2066", "\\u2069", "\\U000E0041", "\\u001B", "\\uFEFF"):
        assert escape in shown
    assert "中文 e\u0301 👨\u200d👩 a\tb\nc" in shown  # scripts, combining marks, emoji joiners, whitespace
    assert growth(visible, repeated(RLO + "a")).linear()


def test_the_trace_tree_preview_shows_bidi_folder_names_escaped() -> None:
    tree = TreeSummary(
        files=3,
        dirs=2,
        own_files=2,
        vendored_files=1,
        vendored=((f"vendor{RLO}x", 1),),
        top_level=(TreeFolder(name=NAME, files=2, own_files=2, role="source"),),
    )
    event = ev.ToolCallFinished(
        t=0, call_id="c", tool="get_file_tree", turn=1, ok=True, preview="{}", duration_s=0, tree=tree
    )
    shown = tree_preview(event)
    assert raw_free(shown) and "invoice\\u202Efdp.exe/" in shown and "vendor\\u202Ex/" in shown
    assert raw_free(fenced(f'{{"path": "{NAME}"}}'))  # any other call's preview and arguments


def test_the_coverage_line_and_the_report_writer_show_names_escaped() -> None:
    coverage = Coverage(
        repo="acme/widgets",
        files_read=1,
        bytes_read=10,
        own_files=3,
        own_bytes=30,
        folders_listed=1,
        top_folders=2,
        unvisited=(NAME,),
    )
    for lang in ("en", "zh"):
        line = coverage_line(coverage, lang)  # type: ignore[arg-type]
        assert raw_free(line) and "invoice\\u202Efdp.exe/" in line
    assert raw_free(plain(f"A README line {LRI}quoted{PDI}")) and raw_free(code(NAME))


def test_the_report_pane_titles_and_the_export_show_names_escaped() -> None:
    report = f"# acme/widgets\n\nThe entry point is `{NAME}` ({TAG}).\n"
    assert raw_free(safe_markdown(report))
    stream = MarkdownStream()
    for piece in report:
        stream.feed(piece)
    assert raw_free(stream.value())
    assert stream.value() == safe_markdown(report.strip())
    assert raw_free(one_line(f"read_file {NAME}"))
    view = ReportView("en")
    view.apply(ev.TextDelta(t=0, turn=1, text=report))
    assert raw_free(view.export_text()) and "\\u202E" in view.export_text()


def test_the_trace_export_writes_bidi_names_as_json_escapes_and_reads_them_back(tmp_path: Path) -> None:
    from agent_core.clock import SystemClock
    from agent_core.event_json import load_events
    from agent_core.settings import Settings
    from agent_core.web.browser_session import BrowserSession

    session = BrowserSession(Settings(cache_dir=tmp_path), clock=SystemClock())
    session.start_view(keep_history=False)
    path = {"path": NAME}
    for event in (
        ev.RunStarted(
            t=0, run_id="r", targets=("a/b",), question=f"why {LRI}x{PDI}?", model="m", mode="model"
        ),
        ev.TurnStarted(t=0, turn=1),
        ev.ToolCallStarted(t=0, call_id="c", tool="read_file", arguments=path, turn=1),
    ):
        session.observe(event)
    exported = session.export_files()
    assert exported is not None
    report, trace = exported
    text = trace.read_text(encoding="utf-8")
    assert raw_free(text) and "\\u202e" in text
    assert raw_free(report.read_text(encoding="utf-8"))
    loaded = load_events(trace)
    assert loaded[2].arguments == path and loaded[0].question == f"why {LRI}x{PDI}?"  # type: ignore[attr-defined]
