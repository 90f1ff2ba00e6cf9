"""Subfolder and file URLs scope the run: ``/tree/<ref>/<path>`` and ``/blob/<ref>/<path>``.

A monorepo built here, with a ``feature/x`` branch (a ref with a slash) that adds a package; the offline
run over the emulator must be about the folder the URL names, at that ref.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from agent_core import stream_analysis
from agent_core.errors import InvalidTargetError, PermissionDeniedError
from agent_core.event_json import dump_events, load_events
from agent_core.repo import RunScope
from agent_core.settings import Settings
from agent_core.sources.targets import parse_target
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis
from agent_core.web.render import TraceView
from agent_core.web.trace_items import scope_items
from agent_core.words import words_for
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import git_env, make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn
from tests.security_helpers import GITHUB_TOKEN

FILES = {
    "README.md": "# mono\n\nThe whole monorepo.\n",
    "go.mod": "module example.com/mono\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n",
    "cmd/tool/main.go": "package main\n\nfunc main() {}\n",
    "docs/guide.md": "# Guide\n",
    ".github/workflows/ci.yml": "on: push\njobs: {}\n",
    "LICENSE": "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n",
}
PARSER = {
    "pkg/parser/README.md": "# parser\n\nParses the mono language into a syntax tree.\n",
    "pkg/parser/package.json": '{"name": "mono-parser", "version": "1.2.3", "dependencies": {"left-pad": "^1.3.0"}}\n',
    "pkg/parser/src/parse.js": "export function parse(text) { return text }\n",
    "pkg/parser/src/lexer.js": "export function lex(text) { return [] }\n",
    "pkg/parser/test/parse.test.js": "import { parse } from '../src/parse.js'\n",
}


@pytest.fixture(scope="module")
def mono(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("scope") / "mono", FILES)
    env = {
        **git_env(),
        "GIT_AUTHOR_DATE": "2024-02-01T10:00:00Z",
        "GIT_COMMITTER_DATE": "2024-02-01T10:00:00Z",
    }
    subprocess.run(["git", "checkout", "-q", "-b", "feature/x"], cwd=repo, check=True, env=env)
    for path, text in PARSER.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "parser"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True, env=env)
    return repo


@pytest.fixture
def emu(mono: Path) -> Any:
    with GitHubEmulator() as emulator:
        emulator.add_repo("acme/mono", mono)
        yield emulator


async def _run(emu: GitHubEmulator, tmp_path: Path, target: str) -> list[ev.Event]:
    return [e async for e in stream_analysis(target, settings=make_settings(emu, tmp_path))]


def _report(events: list[ev.Event]) -> str:
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished), finished
    return finished.report


async def test_a_subfolder_url_on_a_ref_with_a_slash_scopes_the_offline_report(
    emu: GitHubEmulator, tmp_path: Path
) -> None:
    events = await _run(emu, tmp_path, "https://github.com/acme/mono/tree/feature/x/pkg/parser")
    started = events[0]
    assert isinstance(started, ev.RunStarted)
    assert started.scopes == (RunScope(repo="acme/mono", ref="feature/x", path="pkg/parser", kind="tree"),)
    report = _report(events)
    assert report.startswith("# acme/mono · pkg/parser @ feature/x")
    assert "mono-parser" in report or "left-pad" in report  # the folder's own manifest
    assert "blob/feature/x/pkg/parser/README.md" in report
    assert "`cmd/`" not in report and "`docs/`" not in report  # the rest of the repository is not the subject
    reads = [dict(e.arguments) for e in events if isinstance(e, ev.ToolCallStarted) and e.tool == "read_file"]
    # the folder's files, and the repository's licence at its root (a folder's licence is the repository's)
    assert reads and all(str(r["path"]).startswith("pkg/parser/") or r["path"] == "LICENSE" for r in reads)
    contents = [r for r in emu.requests if "/contents/" in r.decoded_path]
    assert contents and all(r.query.get("ref") == "feature/x" for r in contents)
    (check,) = [e for e in events if isinstance(e, ev.ClaimsChecked)]
    assert check.contradicted == 0 and check.verified > 0  # paths judged against the folder's tree
    (diagram,) = [e for e in events if isinstance(e, ev.DiagramDrawn)]
    assert {c.path for c in diagram.components} == {"src", "test"} and diagram.root == "pkg/parser"
    assert f"/tree/{diagram.commit}/pkg/parser/src)" in report  # the diagram's links lead into the folder
    whole = _report(await _run(emu, tmp_path / "whole", "acme/mono"))
    assert whole != report and "`cmd/`" in whole
    # CI and the licence live at the repository's root, outside the folder: their absence from the folder
    # is no absence from the repository (the real-repository bench judged "No CI" there false).
    assert words_for("en")("r_no_ci") not in report and words_for("en")("r_no_license") not in report


async def test_a_subfolder_report_names_the_repository_s_ci_outside_the_folder(
    emu: GitHubEmulator, tmp_path: Path
) -> None:
    """The repository's CI runs for the folder: the root and workflows listings show it, and the report
    names it from the folder (``../../``), leading to the file; the claim check does not contradict it."""
    events = await _run(emu, tmp_path, "https://github.com/acme/mono/tree/feature/x/pkg/parser")
    listed = [
        e.arguments["path"]
        for e in events
        if isinstance(e, ev.ToolCallStarted) and e.tool == "list_directory"
    ]
    assert "" in listed and ".github/workflows" in listed
    report = _report(events)
    assert "Continuous integration is configured: [`../../.github/workflows/ci.yml`]" in report
    assert "(https://github.com/acme/mono/blob/feature/x/.github/workflows/ci.yml)" in report  # no ".." in it
    (check,) = [e for e in events if isinstance(e, ev.ClaimsChecked)]
    assert check.contradicted == 0
    assert "`cmd/`" not in report and "`docs/`" not in report  # the root listing is not the subject


async def test_the_scope_is_in_the_export(emu: GitHubEmulator, tmp_path: Path) -> None:
    events = await _run(emu, tmp_path, "https://github.com/acme/mono/tree/feature/x/pkg/parser")
    path = tmp_path / "trace.jsonl"
    dump_events(events, path)
    loaded = load_events(path)[0]
    assert isinstance(loaded, ev.RunStarted) and loaded.scopes == events[0].scopes  # type: ignore[union-attr]
    assert (
        '"scopes":[{"repo":"acme/mono","ref":"feature/x","path":"pkg/parser","kind":"tree"}]'
        in (path.read_text().splitlines()[0])
    )


async def test_a_blob_url_reads_that_file_first(emu: GitHubEmulator, tmp_path: Path) -> None:
    events = await _run(emu, tmp_path, "https://github.com/acme/mono/blob/feature/x/pkg/parser/src/parse.js")
    started = events[0]
    assert isinstance(started, ev.RunStarted)
    assert started.scopes[0].kind == "blob" and started.scopes[0].path == "pkg/parser/src/parse.js"
    reads = [
        dict(e.arguments)["path"]
        for e in events
        if isinstance(e, ev.ToolCallStarted) and e.tool == "read_file"
    ]
    assert reads[0] == "pkg/parser/src/parse.js"
    assert _report(events).startswith("# acme/mono · pkg/parser/src/parse.js @ feature/x")


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("https://github.com/acme/mono/tree/nope/pkg", "'nope'"),
        ("https://github.com/acme/mono/tree/feature/x/pkg/missing", "'pkg/missing'"),
        ("https://github.com/acme/mono/tree/main/pkg/parser", "'pkg/parser'"),  # only on feature/x
    ],
)
async def test_an_unknown_ref_or_path_is_a_clear_error_naming_it(
    emu: GitHubEmulator, tmp_path: Path, url: str, named: str
) -> None:
    services = Services(make_settings(emu, tmp_path))
    try:
        with pytest.raises(InvalidTargetError) as caught:
            await open_analysis(services, url)
    finally:
        await services.aclose()
    assert named in str(caught.value) and "acme/mono" in str(caught.value)
    assert (
        caught.value.zh and named in caught.value.localized("zh") and "请检查" in caught.value.localized("zh")
    )
    assert caught.value.localized("en") == str(caught.value)


def test_the_target_keeps_the_url_whole_for_the_resolution() -> None:
    target = parse_target("https://github.com/acme/mono/tree/feature/x/pkg/parser")
    assert target.view == "tree" and target.ref_path == "feature/x/pkg/parser"
    assert parse_target("https://github.com/acme/mono/blob/v1/a.py").view == "blob"
    assert parse_target("acme/mono").ref_path is None


async def test_prefetch_reads_the_folder_and_the_nearest_manifest_up_its_path_at_the_ref(
    emu: GitHubEmulator, tmp_path: Path
) -> None:
    scoped = "https://github.com/acme/mono/tree/feature/x/pkg/parser/src"  # src/ has no manifest
    # a report from the brief alone is asked once for reads (issue 37); this model keeps it
    with ScriptedModelServer([Turn.final("# parser\n\nParses.\n")] * 2) as server:
        run = await run_once(make_settings(emu, tmp_path, server, prefetch=True), target=scoped)
        first = server.chat_requests[0].messages
        server.assert_exhausted()
    brief = first[1]["content"]
    assert "Scope: the folder pkg/parser/src/" in brief and "at 'feature/x'" in first[1]["content"]
    reads = [dict(e.arguments)["path"] for e in run.of(ev.ToolCallStarted) if e.tool == "read_file"]
    # its main modules (the largest of its own sources), then the nearest manifest up the path, not the
    # root's go.mod
    assert reads == ["pkg/parser/src/parse.js", "pkg/parser/src/lexer.js", "pkg/parser/package.json"]
    assert (
        "----- ../package.json" in brief and "mono-parser" in brief and "module example.com/mono" not in brief
    )
    listed = [dict(e.arguments)["path"] for e in run.of(ev.ToolCallStarted) if e.tool == "list_directory"]
    assert listed == ["pkg/parser", "pkg", ""]  # closest first, bounded, the root last
    contents = [r for r in emu.requests if "/contents" in r.decoded_path]
    assert contents and all(r.query.get("ref") == "feature/x" for r in contents)


def test_the_page_shows_the_scope_in_english_and_chinese() -> None:
    scope = RunScope(repo="acme/mono", ref="feature/x", path="pkg/parser", kind="tree")
    started = ev.RunStarted(
        t=0.0, run_id="r", targets=("acme/mono",), question="", model="m", mode="planner", scopes=(scope,)
    )
    for lang, word in (("en", "Scope"), ("zh", "范围")):
        view = TraceView(lang=lang)
        view.apply(started)
        (item,) = scope_items(started, lang)
        assert word in (item.title or "") and "acme/mono · pkg/parser @ feature/x" in (item.title or "")


async def test_a_local_path_inside_a_working_copy_scopes_the_run_to_that_folder(
    tmp_path: Path, emu: GitHubEmulator
) -> None:
    work = make_repo(tmp_path / "work", {**FILES, **PARSER})  # a working copy, checked out
    settings = make_settings(emu, tmp_path, allow_local_paths=True)
    events = [e async for e in stream_analysis(str(work / "pkg" / "parser"), settings=settings)]
    started = events[0]
    assert isinstance(started, ev.RunStarted)
    assert started.scopes == (RunScope(repo="local/work", ref="HEAD", path="pkg/parser", kind="tree"),)
    report = _report(events)
    assert (
        report.startswith("# local/work · pkg/parser @ HEAD")
        and "`src/`" in report
        and "`cmd/`" not in report
    )
    whole = _report([e async for e in stream_analysis(str(work), settings=settings)])
    assert "`cmd/`" in whole and not whole.startswith("# local/work ·")


async def test_on_a_space_a_private_repository_s_refs_and_folders_are_not_probed(
    mono: Path, tmp_path: Path
) -> None:
    with GitHubEmulator() as emulator:
        emulator.add_repo("corp/secret", mono, private=True, readers=[GITHUB_TOKEN])
        base = Settings(
            space_id="s/s",
            github_api_url=emulator.base_url,
            cache_dir=tmp_path / "c",
            github_token=GITHUB_TOKEN,
        )
        services = Services(base)
        try:
            for url in ("corp/secret/tree/feature/x/pkg", "corp/secret/tree/nope/pkg"):  # known and unknown
                with pytest.raises(PermissionDeniedError, match="corp/secret is a private repository"):
                    await open_analysis(services, f"https://github.com/{url}", settings=base)
        finally:
            await services.aclose()
        asked = {
            r.decoded_path.split("/")[4] if r.decoded_path.count("/") > 3 else "" for r in emulator.requests
        }
        assert asked == {""}  # only the repository's own info: no refs, no contents
