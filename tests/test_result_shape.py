"""Every tool result's typed shape on ``ToolCallFinished``: built from the source's value, carried through
the trace export, and what the terminal's one-line results read (never the preview text)."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.agent.parallel import finished_event
from agent_core.event_json import event_from_dict, event_to_dict
from agent_core.result_shape import (
    CommitsShape,
    FileShape,
    InfoShape,
    LanguagesShape,
    ListingShape,
    result_shape_from_dict,
)
from agent_core.sources.models import (
    Commit,
    CommitList,
    DirEntry,
    DirListing,
    FileContent,
    Languages,
    RepoInfo,
)
from agent_core.tools.registry import GET_COMMITS, GET_LANGUAGES, GET_REPO_INFO, LIST_DIRECTORY, READ_FILE
from agent_core.tools.results import ToolResult
from agent_core.top.terminal import TerminalRenderer

PAGE = FileContent(
    path="src/app.py",
    kind="file",
    size=9_000,
    text="x\n" * 120,
    start_line=1,
    end_line=120,
    total_lines=400,
    truncated=True,
    next_offset=121,
)
LISTING = DirListing(
    path="src",
    entries=(
        DirEntry(name="a.py", path="src/a.py", type="file", size=10),
        DirEntry(name="b.py", path="src/b.py", type="file", size=20),
        DirEntry(name="pkg", path="src/pkg", type="dir"),
        DirEntry(name="link", path="src/link", type="symlink", target="a.py"),
    ),
)
INFO = RepoInfo(
    full_name="acme/widgets",
    description="Widgets",
    default_branch="main",
    html_url=None,
    language="Python",
    license="MIT",
    stars=1234,
    renamed_from="acme/old-widgets",
)
COMMITS = CommitList(
    commits=(
        Commit(sha="b", message="second", author="ana", date="2026-11-30T10:00:00Z"),
        Commit(sha="a", message="first", author="ana", date="2026-11-01T10:00:00Z"),
        Commit(sha="0", message="zeroth", author="bo", date="2026-10-01T10:00:00Z"),
    ),
    has_more=True,
)
LANGUAGES = Languages(bytes_by_language={"Go": 300, "Python": 600, "Shell": 100})

CASES: list[tuple[str, Any, Any, str]] = [
    (
        READ_FILE,
        PAGE,
        FileShape(
            path="src/app.py",
            content="file",
            size=9_000,
            start_line=1,
            end_line=120,
            total_lines=400,
            cut=True,
            next_line=121,
        ),
        "src/app.py, 9,000 bytes, lines 1-120 of 400, cut: continue at line 121",
    ),
    (
        LIST_DIRECTORY,
        LISTING,
        ListingShape(path="src", files=2, dirs=1, other=1),
        "src, 2 files, 1 folder",
    ),
    (
        GET_REPO_INFO,
        INFO,
        InfoShape(
            full_name="acme/widgets",
            default_branch="main",
            language="Python",
            license="MIT",
            stars=1234,
            renamed_from="acme/old-widgets",
        ),
        "acme/widgets, Python, MIT, 1,234 stars, renamed from acme/old-widgets",
    ),
    (
        GET_COMMITS,
        COMMITS,
        CommitsShape(commits=3, authors=2, newest="2026-11-30T10:00:00Z", more=True),
        "3 commits by 2 authors, newest 2026-11-30T10:00:00Z",
    ),
    (
        GET_LANGUAGES,
        LANGUAGES,
        LanguagesShape(languages=(("Python", 60.0), ("Go", 30.0), ("Shell", 10.0))),
        "Python 60.0%, Go 30.0%, Shell 10.0%",
    ),
]


def finished(tool: str, value: Any, *, ok: bool = True) -> ev.ToolCallFinished:
    result = ToolResult(
        call_id="c1",
        tool=tool,
        arguments={"owner": "acme", "repo": "widgets"},
        ok=ok,
        observation=value.to_observation() if ok else {"ok": False, "error": "boom"},
        value=value if ok else None,
        error=None if ok else "boom",
    )
    return finished_event(1.0, 1, result)


def terminal_line(event: ev.ToolCallFinished) -> str:
    out = io.StringIO()
    TerminalRenderer(out, rich=False, width=300).render(event)
    return out.getvalue().strip()


@pytest.mark.parametrize(("tool", "value", "shape", "line"), CASES, ids=[c[0] for c in CASES])
def test_each_result_carries_its_shape_through_the_export_and_the_terminal_reads_it(
    tool: str, value: Any, shape: Any, line: str
) -> None:
    event = finished(tool, value)
    assert event.shape == shape
    assert event.tree is None
    assert event_from_dict(event_to_dict(event)) == event
    assert terminal_line(event).endswith(f"  {line}")
    garbled = replace(event, preview='{"size": 999999, "path": "elsewhere"')  # the preview is never read
    assert terminal_line(garbled) == terminal_line(event)


def test_a_failure_an_old_trace_and_an_unknown_shape_carry_none() -> None:
    failed = finished(READ_FILE, PAGE, ok=False)
    assert failed.shape is None
    assert terminal_line(failed).endswith("boom")
    event = finished(READ_FILE, PAGE)
    old = event_from_dict({k: v for k, v in event_to_dict(event).items() if k != "shape"})
    assert isinstance(old, ev.ToolCallFinished)
    assert old.shape is None
    assert terminal_line(old).endswith("]")  # the badges, and no words parsed out of the preview
    assert result_shape_from_dict({"shape": "from-a-newer-version", "path": "x"}) is None
