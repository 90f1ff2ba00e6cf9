"""Cut trees: the emulator cuts a recursive tree like GitHub, and the run recovers its top level.

A repository built here with six top-level folders of 40 files each; the emulator cuts its recursive
tree at 100 entries (GitHub: 100,000 or about 7 MB). The report must name every top-level folder, say
the cut and the lower bounds; the trace must say it too; the extra requests are counted and bounded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_core import events as ev
from agent_core import stream_analysis
from agent_core.agent.brief import write_brief
from agent_core.github.client import GitHubClient
from agent_core.github.http import GitHubHTTP
from agent_core.repo import RepoRef
from agent_core.report.diagram_tree import tree_graph
from agent_core.report.facts import build_facts, gather
from agent_core.sources import cut_trees
from agent_core.sources.github import GitHubSource
from agent_core.sources.models import FileTree, TopFolder, TreeEntry
from agent_core.sources.scope import resolve_scope
from agent_core.tools.executor import ToolResult
from agent_core.words import words_for
from testing.analysis import make_settings
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo

TOPS = ("alpha", "beta", "delta", "gamma", "omega", "zeta")
REPO = RepoRef(owner="acme", name="mono")


@pytest.fixture(scope="module")
def mono(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = {"README.md": "# mono\n\nA monorepo.\n", "go.mod": "module example.com/mono\n\ngo 1.22\n"}
    for top in TOPS:
        for i in range(40):
            files[f"{top}/sub/f{i}.go"] = f"package {top}\n"
        files[f"{top}/doc.go"] = f"package {top}\n"
    return make_repo(tmp_path_factory.mktemp("cut") / "mono", files)


@pytest.fixture
def emu(mono: Path) -> Any:
    with GitHubEmulator() as emulator:
        emulator.add_repo("acme/mono", mono)
        emulator.max_tree_entries = 100
        yield emulator


def _tree_get(emulator: GitHubEmulator, **query: str) -> dict[str, Any]:
    response = httpx.get(f"{emulator.base_url}/repos/acme/mono/git/trees/main", params=query)
    return response.json()


def test_the_emulator_cuts_a_recursive_tree_by_entries_and_by_bytes(emu: GitHubEmulator) -> None:
    whole = _tree_get(emu)
    assert not whole["truncated"] and {e["path"] for e in whole["tree"]} >= {*TOPS, "README.md"}
    assert all({"sha", "type", "mode"} <= e.keys() for e in whole["tree"])
    assert all("size" in e for e in whole["tree"] if e["type"] == "blob")
    cut = _tree_get(emu, recursive="1")
    assert cut["truncated"] is True and len(cut["tree"]) == 100
    emu.max_tree_entries = 100_000
    emu.max_tree_bytes = 5_000
    by_bytes = _tree_get(emu, recursive="1")
    assert by_bytes["truncated"] is True and 0 < len(by_bytes["tree"]) < 100
    emu.max_tree_bytes = 7_000_000
    assert _tree_get(emu, recursive="1")["truncated"] is False
    sub = next(e for e in whole["tree"] if e["path"] == "zeta")
    listing = httpx.get(f"{emu.base_url}/repos/acme/mono/git/trees/{sub['sha']}").json()
    assert sorted(e["path"] for e in listing["tree"]) == ["doc.go", "sub"]


async def _tree(emu: GitHubEmulator, tmp_path: Path) -> Any:
    http = GitHubHTTP(api_url=emu.base_url)
    try:
        source = GitHubSource(GitHubClient(http))
        return await source.get_file_tree(REPO)
    finally:
        await http.aclose()


async def test_a_cut_tree_names_every_top_level_folder_with_lower_bounds(
    emu: GitHubEmulator, tmp_path: Path
) -> None:
    sourced = await _tree(emu, tmp_path)
    tree = sourced.value
    assert tree.truncated and [f.path for f in tree.top_level] == list(TOPS)
    complete = {f.path for f in tree.top_level if f.complete}
    assert complete == {"alpha", "beta"}  # git order: 41 + 41 entries (+ sub/) before the cut at 100
    bounds = {f.path: f.files_at_least for f in tree.top_level}
    assert bounds["alpha"] == 41 and bounds["zeta"] == 2  # zeta: doc.go and sub/ (never empty in git)
    assert set(tree.partial_folders) == set(TOPS) - complete
    # 1 recursive + 1 root listing + one per partly known folder; all counted as requests
    assert tree.recovered_requests == 1 + len(TOPS) - 2
    trees = [r for r in emu.requests if "/git/trees/" in r.path]
    assert len(trees) == 1 + tree.recovered_requests
    assert sourced.cost.requests >= len(trees)


async def test_the_recovery_is_bounded(
    emu: GitHubEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cut_trees, "MAX_RECOVERY_LISTINGS", 2)
    tree = (await _tree(emu, tmp_path)).value
    assert tree.recovered_requests == 3  # the root's listing and 2 folders
    assert [f.path for f in tree.top_level] == list(TOPS)  # every folder still named
    unlisted = [f.path for f in tree.top_level if not f.listed]
    assert unlisted == ["omega", "zeta"] and all(not f.complete for f in tree.top_level if not f.listed)


async def test_the_offline_report_the_trace_and_the_brief_say_the_cut(
    emu: GitHubEmulator, tmp_path: Path
) -> None:
    events = [e async for e in stream_analysis("acme/mono", settings=make_settings(emu, tmp_path))]
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished)
    report = finished.report
    for top in TOPS:
        assert f"`{top}/`" in report
    assert "GitHub cut this tree at 100,000 entries" in report and "the 6 top-level folders" in report
    assert "- `zeta/` — at least 2 files" in report and "- `alpha/` — 41 files" in report
    notices = [e.message for e in events if isinstance(e, ev.Notice)]
    assert any("GitHub cut the tree of acme/mono" in n and "5 more requests" in n for n in notices)
    (diagram,) = [e for e in events if isinstance(e, ev.DiagramDrawn)]
    assert {c.path for c in diagram.components} >= set(TOPS)  # the diagram names every folder too
    tree_call = next(e for e in events if isinstance(e, ev.ToolCallFinished) and e.tool == "get_file_tree")
    assert tree_call.ok and '"cut"' in tree_call.preview[:400]  # the cut opens the preview


async def test_the_brief_says_lower_bounds_not_just_truncated(emu: GitHubEmulator, tmp_path: Path) -> None:
    sourced = await _tree(emu, tmp_path)
    result = ToolResult(
        call_id="c1",
        tool="get_file_tree",
        arguments={"owner": "acme", "repo": "mono"},
        repo=REPO,
        ok=True,
        value=sourced.value,
        observation={},
    )
    brief = write_brief([REPO], [result], max_chars=20_000)
    assert "GitHub cut this tree" in brief and "all 6 top-level folders are named" in brief
    assert "zeta/ (at least 2 files)" in brief and "alpha/ (41 files)" in brief
    assert "only partly known: delta/, gamma/, omega/, zeta/" in brief


async def test_a_scoped_folder_s_cut_tree_is_recovered_under_its_path(emu: GitHubEmulator) -> None:
    emu.max_tree_entries = 20  # alpha/ alone holds 42 entries
    http = GitHubHTTP(api_url=emu.base_url)
    try:
        client = GitHubClient(http)
        scope = await resolve_scope(client, REPO, "main/alpha")
        tree = (await GitHubSource(client, scope=scope).get_file_tree(REPO)).value
    finally:
        await http.aclose()
    assert tree.path == "alpha" and tree.truncated
    assert all(e.path.startswith("alpha/") for e in tree.entries)
    (sub,) = tree.top_level
    # its listing is cut at 20 too (GitHub cuts any trees answer at its limit): 20 is still a true bound
    assert sub.path == "alpha/sub" and not sub.complete and sub.files_at_least == 20
    assert "alpha/doc.go" in {e.path for e in tree.entries}  # the root listing's file, recovered


async def test_the_chinese_report_says_the_cut(emu: GitHubEmulator, tmp_path: Path) -> None:
    settings = make_settings(emu, tmp_path, report_language="zh")
    events = [e async for e in stream_analysis("acme/mono", settings=settings)]
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished)
    assert (
        "GitHub 在 100,000 个条目或约 7 MB 处截断了这棵树" in finished.report
        and "全部 6 个顶层文件夹" in finished.report
    )
    assert "至少 2" in finished.report
    assert any("GitHub 截断了 acme/mono 的文件树" in e.message for e in events if isinstance(e, ev.Notice))


def test_the_diagram_draws_a_partly_listed_folder_as_such() -> None:
    entries = (
        TreeEntry(path="app", type="dir"),
        TreeEntry(path="app/main.py", type="file", size=10),
        TreeEntry(path="huge", type="dir"),
        TreeEntry(path="huge/deep", type="dir"),  # all the cut left of it: a folder, no file
    )
    tree = FileTree(
        ref="main",
        path="",
        entries=entries,
        truncated=True,
        top_level=(
            TopFolder(path="app", files_at_least=1, complete=True),
            TopFolder(path="huge", files_at_least=1, complete=False),
        ),
        recovered_requests=2,
    )
    result = ToolResult(
        call_id="c1", tool="get_file_tree", arguments={"owner": "acme", "repo": "mono"}, repo=REPO, ok=True,
        value=tree, observation={},
    )  # fmt: skip
    for words, said in (
        (words_for("en"), "partly listed (tree cut)"),
        (words_for("zh"), "未完整列出（文件树被截断）"),
    ):
        graph = tree_graph(build_facts(gather(REPO, [result], words)), words)
        roles = {c.path: c.role for c in graph.components}
        assert roles.get("huge") == said
