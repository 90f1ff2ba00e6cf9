"""One analysis of a big tree does each tree-wide piece of work once (counted calls and passes, never
wall-clock): a local commit's tree is listed, parsed and modelled once for the tree, the languages and
the repository's facts; the report's diagram and the diagram event share the packages found; notable
files are found once per tree; and each faster walk answers as the one it replaced (property tests
against the old code's rules)."""

from __future__ import annotations

import asyncio
import gc
import posixpath
import re
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.repo import RepoRef
from agent_core.repomodel import build, derived, memo
from agent_core.report import diagram_tree, path_index, sections, tree_lists
from agent_core.report import facts as facts_module
from agent_core.report.facts import build_facts, gather
from agent_core.report.writer import written
from agent_core.sources import languages, local_facts
from agent_core.sources.languages import count_languages, tree_languages
from agent_core.sources.local import LocalGitSource
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools import observe
from agent_core.tools.observe import summarise_tree
from agent_core.words import words_for
from testing.emulator.gitrepo import make_repo
from testing.properties import examples
from tests.test_planning_cost import REPO, overview, synthetic_entries

# Property tests over many examples: without the coverage tracer (tests/conftest.py).
pytestmark = pytest.mark.untraced


class Calls:
    """A function that counts its calls and answers as ``real`` does."""

    def __init__(self, real: Any) -> None:
        self.real, self.count = real, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.count += 1
        return self.real(*args, **kwargs)


async def test_a_local_commit_is_listed_parsed_and_modelled_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = Calls(local_facts.file_tree)
    monkeypatch.setattr(local_facts, "file_tree", parsed)
    built = Calls(build.build_repo_model)
    monkeypatch.setattr(memo, "build_repo_model", built)
    monkeypatch.setattr(languages, "build_repo_model", built)  # the languages' own model, before
    files = {"README.md": "# svc\n", "svc/app.py": "print(1)\n", "vendor/lib/x.go": "package x\n"}
    files |= {"main.go": "package main\n", "docs/guide.py": "x = 1\n"}
    source = await LocalGitSource.open(make_repo(tmp_path / "svc", files))
    repo = RepoRef(owner="local", name="svc")
    info, langs, tree = await asyncio.gather(
        source.get_repo_info(repo), source.get_languages(repo), source.get_file_tree(repo)
    )
    summarise_tree(tree.value)
    assert (await source.get_file_tree(repo)).value is tree.value
    assert parsed.count == 1  # the languages listed and parsed the tree again
    assert built.count == 1  # and built a model of their own
    assert langs.value.bytes_by_language == {"Python": 9, "Go": 13}  # vendored and docs not counted
    assert info.value.language == "Go"


_NAMES = st.lists(st.sampled_from(["a", "b", ".", "-", "vendor", "docs", "src", "min", "x"]), min_size=1)
_EXTS = st.sampled_from(["", ".py", ".go", ".js", ".min.js", ".md", ".json", ".lock", ".pb.go", ".PY"])
_PATHS = st.builds(
    lambda folders, name, ext: "/".join([*folders, name + ext]),
    st.lists(_NAMES.map("".join), max_size=3),
    _NAMES.map("".join),
    _EXTS,
)


@settings(max_examples=examples(200), deadline=None)
@given(st.dictionaries(_PATHS, st.integers(min_value=0, max_value=1000), max_size=30))
def test_languages_from_the_tree_are_the_languages_of_its_files(sizes: dict[str, int]) -> None:
    entries = [TreeEntry(path=p, type="file", size=s) for p, s in sizes.items()]
    entries += [TreeEntry(path="sub", type="submodule"), TreeEntry(path="link.py", type="symlink", size=5)]
    tree = FileTree(ref="main", path="", entries=tuple(entries))
    assert tree_languages(tree) == count_languages(sizes.items())
    assert list(tree_languages(tree)) == list(count_languages(sizes.items()))


@settings(max_examples=examples(500), deadline=None)
@given(
    st.lists(st.sampled_from(["a", ".", "py", "go", "PY", "/", "x.", ".js", "b"]), max_size=7).map("".join)
)
def test_a_code_name_is_what_splitext_says(path: str) -> None:
    name = path.rpartition("/")[2]
    assert diagram_tree._is_code_name(name) is diagram_tree._is_code(path)


def test_the_report_and_the_diagram_event_share_the_tree_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = FileTree(ref="main", path="", entries=tuple(synthetic_entries(6_000)))
    ancestors = Calls(diagram_tree._ancestors)
    monkeypatch.setattr(diagram_tree, "_ancestors", ancestors)
    graphs = [
        diagram_tree.tree_graph(build_facts(gather(REPO, overview(tree), words_for(lang))), words_for(lang))
        for lang in ("en", "zh", "en")
    ]
    assert [c.path for c in graphs[0].components] == [c.path for c in graphs[1].components]
    assert graphs[0] == graphs[2]
    folders = len({e.path.rpartition("/")[0] for e in tree.entries})
    # once per folder holding code (twice: its source and its own code), once per tree: it was twice
    # per code file, per drawing
    assert ancestors.count <= 2 * folders, (ancestors.count, folders)


def test_notable_files_are_found_once_per_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = FileTree(ref="main", path="", entries=tuple(synthetic_entries(3_000)))
    asked = Calls(observe.notable_role)
    for module in (observe, facts_module, tree_lists):
        monkeypatch.setattr(module, "notable_role", asked)
    monkeypatch.setattr(sections, "notable_role", asked, raising=False)
    summary = summarise_tree(tree)
    report = written(scope=[REPO], question="", results=overview(tree)).markdown()
    assert "package.json" in summary["notable_files"] and "package.json" in report
    assert asked.count <= tree.files + 20, (asked.count, tree.files)  # it was 3 times per file


def _summary_by_the_old_walk(tree: FileTree, max_entries: int = 200) -> tuple[list[str], dict[str, str]]:
    files = [e for e in tree.entries if e.type != "dir"]
    ordered = sorted(files, key=lambda e: (e.path.count("/"), e.path.lower()))
    base = f"{tree.path}/" if tree.path else ""
    notable = {e.path: r for e in ordered if (r := observe.notable_role(e.path[len(base) :]))}
    return [e.path for e in ordered[:max_entries]], notable


_TREE_PATHS = st.lists(
    st.lists(st.sampled_from(["README.md", "a", "B", ".github", "workflows", "ci.yml", "go.mod", "x.py"]))
    .filter(bool)
    .map("/".join),
    unique=True,
    max_size=40,
)


@settings(max_examples=examples(200), deadline=None)
@given(_TREE_PATHS, st.integers(min_value=1, max_value=8))
def test_the_tree_summary_lists_as_the_full_sort_did(paths: list[str], shown: int) -> None:
    tree = FileTree(ref="main", path="", entries=tuple(TreeEntry(path=p, type="file") for p in paths))
    summary = summarise_tree(tree, max_entries=shown)
    old_paths, old_notable = _summary_by_the_old_walk(tree, shown)
    assert summary["paths"] == old_paths
    assert list(summary["notable_files"].items()) == list(old_notable.items())


def _suffix_map(known: set[str]) -> dict[str, list[str]]:
    """The old ``PathIndex.tails``: every ``a/b`` suffix after a ``/`` to the known paths with it."""
    tails: dict[str, list[str]] = {}
    for p in known:
        for at in (m.start() for m in re.finditer("/", p)):
            tails.setdefault(p[at + 1 :], []).append(p)
    return tails


@settings(max_examples=examples(300), deadline=None)
@given(_TREE_PATHS, st.lists(st.sampled_from(["a", "B", "x.py", "/", "workflows", "ci.yml", ""]), max_size=4))
def test_shorter_paths_are_found_as_the_suffix_map_found_them(paths: list[str], parts: list[str]) -> None:
    tree = FileTree(ref="main", path="", entries=tuple(TreeEntry(path=p, type="file") for p in paths))
    facts = build_facts(gather(REPO, overview(tree), words_for("en")))
    index = path_index.index_of(facts)
    old = _suffix_map(index.known)
    for tail in {"".join(parts), *old}:
        assert index.tails(tail) == old.get(tail, [])


def test_a_derived_value_is_built_once_per_tree_and_forgotten_with_it() -> None:
    tree = FileTree(ref="main", path="", entries=(TreeEntry(path="a.py", type="file"),))
    made = Calls(lambda: None)
    assert derived(tree, "nothing", made) is None
    assert derived(tree, "nothing", made) is None
    assert made.count == 1  # None is a value too
    other = FileTree(ref="main", path="", entries=tree.entries)
    derived(other, "nothing", made)
    assert made.count == 2  # another tree object, another value
    gc.collect()  # trees that earlier tests in this worker left in cycles go first, not in the count below
    before = memo.memoised_trees()
    del tree, other
    gc.collect()
    assert memo.memoised_trees() == before - 2


def test_a_tree_the_collector_frees_inside_the_memo_lock_is_forgotten_without_a_deadlock() -> None:
    """A tree that dies in a reference cycle is forgotten by the collector, which runs inside whatever
    allocation triggers it: also one within the memo's locked section (the future ``_memoised`` makes),
    in the same thread. The full suite hung there once, its worker waiting on its own lock."""

    def forgotten_under_the_lock() -> None:
        tree = FileTree(ref="main", path="", entries=(TreeEntry(path="a.py", type="file"),))
        derived(tree, "nothing", lambda: None)
        cycle: list[object] = [tree]
        cycle.append(cycle)  # only the collector frees it now
        before = memo.memoised_trees()
        del tree, cycle
        with memo._LOCK:  # as inside _memoised when its allocation sets the collector off
            gc.collect()
        done.append(memo.memoised_trees() == before - 1)

    done: list[bool] = []
    worker = threading.Thread(target=forgotten_under_the_lock, daemon=True)
    worker.start()
    worker.join(timeout=60)  # returns at once unless the thread deadlocked
    assert done == [True]


def test_dirname_is_the_folder_part_of_a_tree_path() -> None:
    # The walks split a path at its last "/" instead of posixpath.dirname: the same for every path a
    # git tree can hold (no empty component, no leading or trailing "/").
    for path in ("a", "a/b", "a/b/c.py", ".github/workflows/ci.yml"):
        assert path.rpartition("/")[0] == posixpath.dirname(path)


def test_a_value_asked_for_while_it_is_built_is_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The trace's summary and the languages count ask for the same tree's model at once, in two
    # workers; the second waits for the first one's model instead of building its own.
    tree = FileTree(ref="main", path="", entries=(TreeEntry(path="a.py", type="file"),))
    started, arrived, release = threading.Event(), threading.Event(), threading.Event()

    class Awaited(Future[object]):
        def result(self, timeout: float | None = None) -> object:
            arrived.set()  # the second thread waits for the first one's value
            return super().result(timeout)

    monkeypatch.setattr(memo, "Future", Awaited)
    builds: list[str] = []

    def first() -> str:
        builds.append("first")
        started.set()
        release.wait()
        return "model"

    def second() -> str:
        builds.append("second")
        arrived.set()  # (the old memo built it again)
        return "model again"

    got: list[str] = []
    one = threading.Thread(target=lambda: got.append(derived(tree, "model", first)))
    two = threading.Thread(target=lambda: got.append(derived(tree, "model", second)))
    one.start()
    started.wait()
    two.start()
    arrived.wait()
    release.set()
    one.join()
    two.join()
    assert builds == ["first"] and got == ["model", "model"]
