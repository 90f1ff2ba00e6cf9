"""The offline planner's work is linear in the tree and done once per tree, and the CPU-heavy steps of a
run (the plan, the written report, the diagram, the claim check, the ledger) run off the event loop."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.agent import endings, parallel, planner
from agent_core.agent.planner import OfflinePlanner
from agent_core.agent.tree_paths import usable
from agent_core.errors import InvalidArgumentError
from agent_core.repo import RepoRef, normalize_path
from agent_core.repomodel import model_of
from agent_core.settings import Settings
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools.registry import overview_calls
from agent_core.tools.results import ToolResult
from testing.analysis import analysis
from testing.emulator.gitrepo import make_repo
from testing.properties import examples

REPO = RepoRef(owner="acme", name="big")


class CountedEntries(tuple[TreeEntry, ...]):
    """A tree's entries that count how many of them anyone visits."""

    visits = 0

    def __iter__(self) -> Iterator[TreeEntry]:
        for entry in super().__iter__():
            CountedEntries.visits += 1
            yield entry


def synthetic_entries(n: int) -> list[TreeEntry]:
    """``n`` entries shaped like a monorepo: packages with sources, tests, manifests and docs."""
    entries = [TreeEntry(path=p, type="file") for p in ("README.md", "package.json", "LICENSE")]
    package = 0
    while len(entries) < n:
        base = f"packages/p{package}"
        entries += [TreeEntry(path=base, type="dir"), TreeEntry(path=f"{base}/package.json", type="file")]
        entries += [TreeEntry(path=f"{base}/src/m{i}.ts", type="file") for i in range(12)]
        entries += [TreeEntry(path=f"{base}/src/m{i}.spec.ts", type="file") for i in range(4)]
        package += 1
    return entries[:n]


def overview(tree: FileTree) -> tuple[ToolResult, ...]:
    return tuple(
        ToolResult(
            call_id=str(i),
            tool=tool,
            arguments=arguments,
            ok=True,
            observation={},
            repo=REPO,
            value=tree if tool == "get_file_tree" else None,
        )
        for i, (tool, arguments) in enumerate(overview_calls(REPO))
    )


def plan(entries: list[TreeEntry], question: str) -> float:
    tree = FileTree(ref="main", path="", entries=tuple(entries))
    results = overview(tree)
    model_of(tree)  # built when the tree arrives (its tool result's summary), before any planning
    gc.collect()
    gc.disable()  # the collector's passes depend on what else the process holds: not the planner's work
    try:
        started = time.thread_time()  # this thread's CPU: a leftover thread of an earlier test never counts
        steps = OfflinePlanner([REPO], question=question)
        steps.next_step(results)
        steps.next_step(results)
        return time.thread_time() - started
    finally:
        gc.enable()


@pytest.mark.untraced
@pytest.mark.parametrize("question", ["", "How is it tested? Where is the module loader?"])
def test_planning_cpu_grows_linearly_with_the_tree(question: str) -> None:
    small, large = synthetic_entries(10_000), synthetic_entries(40_000)  # 4x the entries (big enough to time)
    plan(small, question)  # warm: regular expressions compiled, caches filled
    # The least of several runs: a busy machine only ever adds time, never takes it away.
    ratio = min(plan(large, question) for _ in range(3)) / min(plan(small, question) for _ in range(3))
    assert ratio <= 8.0, ratio  # linear: 4; quadratic: 16 (a busy machine's noise stays well under 2x)


def test_the_tree_is_derived_once_however_many_steps_read_it() -> None:
    entries = CountedEntries(synthetic_entries(5_000))
    tree = FileTree(ref="main", path="", entries=entries)
    results = overview(tree)
    steps = OfflinePlanner([REPO], question="How is it tested?")
    CountedEntries.visits = 0
    first = steps.next_step(results)
    assert first is not None
    once = CountedEntries.visits
    assert once <= 3 * len(entries)  # a pass for the plan's paths, the repository model's passes
    for _ in range(3):
        steps.next_step(results)
    assert CountedEntries.visits == once  # and no more, however many steps


@pytest.mark.untraced
@settings(max_examples=examples(400), deadline=None)
@given(
    st.lists(st.sampled_from([*"ab./~\\?#%:C \x00\x7f\x1f_-é", "..", "./", "\u2028", "．"]), max_size=10).map(
        "".join
    )
)
def test_a_usable_path_is_exactly_one_normalize_path_keeps(path: str) -> None:
    try:
        expected = normalize_path(path) == path
    except InvalidArgumentError:
        expected = False
    assert usable(path) is expected


async def test_the_heavy_steps_run_in_worker_threads_not_on_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spy around each real step records the thread it ran in (the steps themselves are the real ones)."""
    threads: dict[str, set[int]] = {}

    def spy(module: Any, name: str) -> None:
        real: Callable[..., Any] = getattr(module, name)

        def recorded(*args: Any, **kwargs: Any) -> Any:
            threads.setdefault(name, set()).add(threading.get_ident())
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, recorded)

    for name in ("written", "check_report", "tree_diagrams", "run_coverage"):
        spy(endings, name)
    spy(planner, "tree_paths")
    spy(parallel, "finished_event")  # a tree's event carries its repository model
    root = make_repo(tmp_path / "svc", {"README.md": "# svc\n", "pyproject.toml": "[project]\nname='svc'\n"})
    async with analysis(Settings(cache_dir=tmp_path / "cache"), str(root)) as run:
        await run.ask("How is it tested?")
    loop_thread = threading.get_ident()
    assert asyncio.get_running_loop() is not None
    assert set(threads) == {
        "written",
        "check_report",
        "tree_diagrams",
        "run_coverage",
        "tree_paths",
        "finished_event",
    }
    assert all(loop_thread not in seen for seen in threads.values()), threads
