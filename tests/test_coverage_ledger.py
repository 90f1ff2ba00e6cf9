"""The coverage ledger: every run says how much it read of the project's own files, as structure on
``RunStats.coverage``, and each consumer (the export, the page's stats, the CLI, a replayed trace) shows
it from that structure -- over a real git repository with a vendored folder, through the local source."""

from __future__ import annotations

import io
from pathlib import Path

from agent_core import events as ev
from agent_core.event_json import event_from_dict, event_to_dict
from agent_core.ledger import Coverage
from agent_core.report.coverage import coverage_line, human_bytes
from agent_core.report.export import full_report
from agent_core.settings import Settings
from agent_core.top.terminal import TerminalRenderer
from agent_core.web.render import TraceView
from testing.analysis import analysis
from testing.emulator.gitrepo import make_repo

FILES: dict[str, str | bytes] = {
    "README.md": "# svc\n\nA small service.\n",
    "go.mod": "module example.com/svc\n\ngo 1.22\n",
    "main.go": "package main\n\nfunc main() {}\n",
    "cmd/svc/main.go": "package main\n\nfunc main() {}\n",
    "internal/store/store.go": "package store\n",
    "internal/store/store_test.go": "package store\n",
    "docs/guide.md": "# Guide\n",
    **{f"vendor/github.com/x/y/f{i}.go": "package y\n" * 50 for i in range(30)},
}


async def test_an_offline_run_carries_its_ledger_against_the_projects_own_files(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "svc", FILES)
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        await run.ask("")
    (ledger,) = run.finished.stats.coverage
    read = {r.arguments["path"] for r in run.opened.analysis.results if r.tool == "read_file" and r.ok}
    assert ledger.files_read == len(read) > 0
    own = [p for p in FILES if not p.startswith("vendor/")]
    assert ledger.own_files == len(own)  # the 30 vendored files are not the project's
    assert ledger.own_bytes == sum(len(str(FILES[p]).encode()) for p in own)
    assert ledger.bytes_read == sum(len(str(FILES[p]).encode()) for p in read)
    assert ledger.top_folders == 4
    assert "vendor" in ledger.unvisited and "cmd" in ledger.unvisited
    assert not ledger.truncated


LEDGER = Coverage(
    repo="acme/svc",
    files_read=8,
    bytes_read=61_000,
    own_files=4134,
    own_bytes=12_300_000,
    folders_listed=3,
    top_folders=5,
    unvisited=("cmd", "internal"),
)


def test_the_line_says_read_of_own_listed_and_never_looked_at_in_both_languages() -> None:
    assert coverage_line(LEDGER) == (
        "Read 8 of 4,134 of the project's own files (61 KB of 12.3 MB); listed 3 folders; "
        "nothing read in: `cmd/`, `internal/`."
    )
    zh = coverage_line(LEDGER, "zh")
    assert "4,134" in zh and "未读取其中任何内容" in zh and "`cmd/`" in zh
    cut = Coverage(**{**LEDGER.__dict__, "truncated": True, "unvisited": tuple(f"d{i}" for i in range(12))})
    assert "at least 4,134" in coverage_line(cut) and "and 4 more" in coverage_line(cut)
    for listed, said in ((0, "listed no folder;"), (1, "listed 1 folder;")):
        assert said in coverage_line(Coverage(**{**LEDGER.__dict__, "folders_listed": listed}))
    unknown = Coverage(
        repo="a/b", files_read=2, bytes_read=10, own_files=None, own_bytes=None, folders_listed=0
    )
    assert "the tree was not read" in coverage_line(unknown)
    assert [human_bytes(n) for n in (999, 61_000, 12_345_678)] == ["999 B", "61 KB", "12.3 MB"]


def test_a_hostile_folder_name_stays_inert_in_the_line() -> None:
    hostile = Coverage(**{**LEDGER.__dict__, "unvisited": ("x`<img src=y onerror=z>",)})
    line = coverage_line(hostile)
    assert "<img" not in line and "nothing read in:" in line  # escaped, as all repository text


def finished(coverage: tuple[Coverage, ...]) -> ev.RunFinished:
    return ev.RunFinished(
        t=1.0,
        report="# acme/svc\n\nA report.",
        writer="model",
        degraded=False,
        stats=ev.RunStats(turns=1, coverage=coverage),
    )


def test_each_consumer_shows_the_ledger_from_the_structure() -> None:
    event = finished((LEDGER,))
    # the export's appendix (a model's report too: the app appends it outside the model's Markdown)
    exported = full_report(event.report, None, (), "en", coverage=event.stats.coverage)
    assert coverage_line(LEDGER) in exported.split("---", 1)[1]
    assert coverage_line(LEDGER, "zh") in full_report(event.report, None, (), "zh", coverage=(LEDGER,))
    # the page's stats, beside the other figures
    for lang in ("en", "zh"):
        view = TraceView(lang=lang)
        view.apply(
            ev.RunStarted(t=0.0, run_id="r", targets=("acme/svc",), question="", model="m", mode="model")
        )
        view.apply(event)
        assert coverage_line(LEDGER, lang) in view.stats.markdown()  # type: ignore[arg-type]
    # the CLI
    out = io.StringIO()
    TerminalRenderer(out, rich=False).render(event)
    assert coverage_line(LEDGER) in out.getvalue()
    # a saved trace keeps it as structure
    assert event_from_dict(event_to_dict(event)) == event
    assert (
        event_from_dict(
            {"kind": "run_finished", "t": 1.0, "report": "r", "degraded": False, "stats": {}}
        ).stats.coverage
        == ()
    )
