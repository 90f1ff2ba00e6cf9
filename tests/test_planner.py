"""The offline planner, driven turn by turn with hand-built results (no sources, no network)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.agent.planner import OfflinePlanner, PlanStep, call_key
from agent_core.repo import RepoRef
from agent_core.sources.models import (
    Commit,
    CommitList,
    DirEntry,
    DirListing,
    EntryType,
    FileContent,
    FileTree,
    Languages,
    RepoInfo,
    TreeEntry,
)
from agent_core.tools.results import ToolResult

FLASK = RepoRef(owner="pallets", name="flask")
ROCKET = RepoRef(owner="rwf2", name="Rocket")

Answer = Callable[[str, Mapping[str, Any]], ToolResult]


def ok(tool: str, repo: RepoRef, value: Any, **arguments: Any) -> ToolResult:
    """A successful result, with the arguments as the toolbox records them (owner/repo added)."""
    return ToolResult(
        call_id=f"{tool}-{len(arguments)}",
        tool=tool,
        arguments={**arguments, "owner": repo.owner, "repo": repo.name},
        ok=True,
        observation={},
        value=value,
        repo=repo,
    )


def failed(tool: str, repo: RepoRef, *, degraded: bool, **arguments: Any) -> ToolResult:
    error = "circuit open for get_file_tree" if degraded else "not found"
    return ToolResult(
        call_id=f"{tool}-failed",
        tool=tool,
        arguments={**arguments, "owner": repo.owner, "repo": repo.name},
        ok=False,
        observation={"ok": False, "degraded": degraded},
        repo=repo,
        degraded=degraded,
        error=error,
    )


def tree(*paths: str, empty: bool = False) -> FileTree:
    """A tree from file paths; parent directories are added as "dir" entries."""
    dirs = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
    entries = [TreeEntry(path=d, type="dir") for d in dirs] + [
        TreeEntry(path=p, type="file", size=10) for p in paths
    ]
    return FileTree(
        ref="abc123", path="", entries=tuple(sorted(entries, key=lambda e: e.path)), empty_repository=empty
    )


def overview(repo: RepoRef, file_tree: FileTree | None) -> list[ToolResult]:
    """The four results of step 1; ``file_tree`` None means the tree call degraded."""
    info = RepoInfo(full_name=repo.full_name, description="demo", default_branch="main", html_url=None)
    commits = CommitList(
        commits=(Commit(sha="a" * 40, message="init", author="Ada", date="2024-01-01T00:00:00Z"),)
    )
    return [
        ok("get_repo_info", repo, info),
        ok("get_file_tree", repo, file_tree, path="")
        if file_tree is not None
        else failed("get_file_tree", repo, degraded=True, path=""),
        ok("get_languages", repo, Languages(bytes_by_language={"Python": 100})),
        ok("get_commits", repo, commits, per_page=30),
    ]


def calls_of(step: PlanStep | None) -> list[tuple[str, dict[str, Any]]]:
    assert step is not None
    return [(c.tool, c.arguments) for c in step.calls]


def read(repo: RepoRef, path: str) -> tuple[str, dict[str, Any]]:
    return ("read_file", {"owner": repo.owner, "repo": repo.name, "path": path})


def listing(repo: RepoRef, path: str) -> tuple[str, dict[str, Any]]:
    return ("list_directory", {"owner": repo.owner, "repo": repo.name, "path": path})


def run(step: PlanStep, answer: Answer) -> list[ToolResult]:
    return [answer(c.tool, c.arguments) for c in step.calls]


def answer_reads(repo: RepoRef) -> Answer:
    def answer(tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        path = arguments.get("path", "")
        if tool == "read_file":
            return ok(tool, repo, FileContent(path=path, kind="file", size=3, text="abc"), path=path)
        return ok(tool, repo, DirListing(path=path, entries=()), path=path)

    return answer


FLASK_TREE = tree(
    "README.md",
    "README.rst",
    "LICENSE.txt",
    "pyproject.toml",
    "requirements-dev.txt",
    "requirements.txt",
    "docs/index.md",
    "src/flask/app.py",
    "tests/test_app.py",
    "examples/tutorial/pyproject.toml",
    ".github/workflows/tests.yaml",
    ".github/workflows/lock.yaml",
    ".github/workflows/publish.yaml",
    "Makefile",
)


# ------------------------------------------------------------------------------------------- step 1


def test_step_one_asks_for_the_overview_of_every_repository_at_once() -> None:
    step = OfflinePlanner([FLASK, ROCKET]).next_step([])

    expected = []
    for repo in (FLASK, ROCKET):
        base = {"owner": repo.owner, "repo": repo.name}
        expected += [
            ("get_repo_info", base),
            ("get_file_tree", base),
            ("get_commits", {**base, "per_page": 30}),
            ("get_languages", base),
        ]
    assert calls_of(step) == expected
    assert step is not None
    assert "pallets/flask, rwf2/Rocket" in step.thought


# ------------------------------------------------------------------------------------------- step 2


def test_step_two_reads_readme_manifests_ci_license_and_lists_the_tests_folder() -> None:
    planner = OfflinePlanner([FLASK])
    results = overview(FLASK, FLASK_TREE)

    step = planner.next_step(results)

    # Most important first: README (Markdown preferred), up to 3 root manifests in parsing order, the
    # first workflow (one that tests or builds), the license, the tests folder; then the second
    # workflow; the nested manifest is cut by the bound of 8.
    assert calls_of(step) == [
        read(FLASK, "README.md"),
        read(FLASK, "pyproject.toml"),
        read(FLASK, "requirements.txt"),
        read(FLASK, "requirements-dev.txt"),
        read(FLASK, ".github/workflows/tests.yaml"),
        read(FLASK, "LICENSE.txt"),
        listing(FLASK, "tests"),
        read(FLASK, ".github/workflows/lock.yaml"),
    ]
    assert step is not None
    assert step.thought == (
        "Reading README.md; the manifests pyproject.toml, requirements.txt, requirements-dev.txt; "
        "the CI configuration .github/workflows/tests.yaml, .github/workflows/lock.yaml; "
        "the license LICENSE.txt and listing tests/."
    )


def test_step_two_is_bounded_per_repository_and_covers_every_repository() -> None:
    planner = OfflinePlanner([FLASK, ROCKET], max_files_per_repo=3)
    rocket_tree = tree("Cargo.toml", "README.md", "core/lib/Cargo.toml", "LICENSE-MIT", "LICENSE-APACHE")
    results = overview(FLASK, FLASK_TREE) + overview(ROCKET, rocket_tree)

    step = planner.next_step(results)

    assert calls_of(step) == [
        read(FLASK, "README.md"),
        read(FLASK, "pyproject.toml"),
        read(FLASK, "requirements.txt"),
        read(ROCKET, "README.md"),
        read(ROCKET, "Cargo.toml"),
        read(ROCKET, "LICENSE-MIT"),
    ]
    assert step is not None
    assert "in pallets/flask." in step.thought
    assert "in rwf2/Rocket." in step.thought


def test_the_plan_does_not_depend_on_the_order_of_the_tree() -> None:
    shuffled = list(FLASK_TREE.entries)
    random.Random(7).shuffle(shuffled)
    other = FileTree(ref="abc123", path="", entries=tuple(shuffled))

    first = OfflinePlanner([FLASK]).next_step(overview(FLASK, FLASK_TREE))
    second = OfflinePlanner([FLASK]).next_step(overview(FLASK, other))

    assert first == second


def test_paths_the_tools_would_refuse_are_not_proposed() -> None:
    step = OfflinePlanner([FLASK]).next_step(overview(FLASK, tree("README.md", "requirements%2e.txt")))

    assert calls_of(step) == [read(FLASK, "README.md")]


# -------------------------------------------------------------------------------- fallback and end


def test_a_failed_tree_falls_back_to_listing_the_root_then_picks_from_it() -> None:
    planner = OfflinePlanner([FLASK])
    results = overview(FLASK, None)

    step2 = planner.next_step(results)
    assert calls_of(step2) == [listing(FLASK, "")]
    assert step2 is not None
    assert "could not be fetched" in step2.thought

    def entry(name: str, kind: EntryType) -> DirEntry:
        return DirEntry(name=name, path=name, type=kind)

    root = DirListing(
        path="",
        entries=(
            entry(".github", "dir"),
            entry("LICENSE", "file"),
            entry("README.md", "file"),
            entry("pyproject.toml", "file"),
            entry("src", "dir"),
            entry("tests", "dir"),
        ),
    )
    results.append(ok("list_directory", FLASK, root, path=""))

    step3 = planner.next_step(results)
    assert calls_of(step3) == [
        read(FLASK, "README.md"),
        read(FLASK, "pyproject.toml"),
        read(FLASK, "LICENSE"),
        listing(FLASK, "tests"),
        listing(FLASK, ".github/workflows"),
    ]
    assert step3 is not None
    results += run(step3, answer_reads(FLASK))
    assert planner.next_step(results) is None


def test_when_the_root_listing_fails_too_the_planner_is_done() -> None:
    planner = OfflinePlanner([FLASK])
    results = [*overview(FLASK, None), failed("list_directory", FLASK, degraded=True, path="")]

    assert planner.next_step(results) is None


def test_a_missing_repository_gets_no_fallback() -> None:
    planner = OfflinePlanner([FLASK])
    results = [
        failed("get_repo_info", FLASK, degraded=False),
        failed("get_file_tree", FLASK, degraded=False, path=""),
        failed("get_languages", FLASK, degraded=False),
        failed("get_commits", FLASK, degraded=False, per_page=30),
    ]

    assert planner.next_step(results) is None


def test_an_empty_repository_needs_no_second_step() -> None:
    assert OfflinePlanner([FLASK]).next_step(overview(FLASK, tree(empty=True))) is None


def test_no_call_is_ever_repeated_even_after_failures_and_the_planner_finishes() -> None:
    planner = OfflinePlanner([FLASK])
    results = overview(FLASK, FLASK_TREE)
    step = planner.next_step(results)
    assert step is not None
    # Every read fails (as a 404 would): nothing is retried.
    results += [failed(c.tool, FLASK, degraded=False, path=c.arguments["path"]) for c in step.calls]

    assert planner.next_step(results) is None


def test_calls_already_made_by_someone_else_are_skipped() -> None:
    planner = OfflinePlanner([FLASK])
    # The same repository written differently, and the root path spelt as the toolbox records it.
    made = ToolResult(
        call_id="x",
        tool="get_file_tree",
        arguments={"owner": "Pallets", "repo": "FLASK", "path": ""},
        ok=False,
        observation={},
    )

    step = planner.next_step([made])

    assert [tool for tool, _ in calls_of(step)] == ["get_repo_info", "get_commits", "get_languages"]


def test_call_key_ignores_the_root_path_and_case_of_the_repository() -> None:
    assert call_key("list_directory", {"owner": "A", "repo": "B"}) == call_key(
        "list_directory", {"owner": "a", "repo": "b", "path": ""}
    )
    assert call_key("read_file", {"owner": "a", "repo": "b", "path": "x"}) != call_key(
        "read_file", {"owner": "a", "repo": "b", "path": "y"}
    )


def test_the_constructor_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="at least one"):
        OfflinePlanner([])
    with pytest.raises(ValueError, match="max_files_per_repo"):
        OfflinePlanner([FLASK], max_files_per_repo=0)


# ----------------------------------------------------------------------------------------- property

_NAMES = st.sampled_from(
    [
        "README.md",
        "LICENSE",
        "pyproject.toml",
        "package.json",
        "go.mod",
        "requirements.txt",
        "a/package.json",
        "b/Cargo.toml",
        ".github/workflows/ci.yml",
        ".github/workflows/docs.yml",
        ".github/workflows/release.yml",
        "tests/test_a.py",
        "spec/a_spec.rb",
        "src/main.py",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    paths=st.lists(_NAMES, unique=True, max_size=14),
    failures=st.lists(st.booleans(), min_size=30, max_size=30),
    tree_fails=st.booleans(),
    bound=st.integers(min_value=1, max_value=10),
    question=st.sampled_from(["", "How is it tested?", "Where is the main code?", "命令行怎么用？"]),
)
def test_any_plan_ends_within_bounds_without_repeating(
    paths: Sequence[str], failures: Sequence[bool], tree_fails: bool, bound: int, question: str
) -> None:
    planner = OfflinePlanner(
        [FLASK, ROCKET], question=question, max_files_per_repo=bound, max_question_reads=3
    )
    file_tree = tree(*paths)
    outcomes = iter(failures)
    results: list[ToolResult] = []
    seen: set[object] = set()
    for _turn in range(10):
        step = planner.next_step(results)
        if step is None:
            break
        for call in step.calls:
            key = call_key(call.tool, call.arguments)
            assert key not in seen
            seen.add(key)
            repo = FLASK if call.arguments["repo"] == FLASK.name else ROCKET
            args = {k: v for k, v in call.arguments.items() if k not in ("owner", "repo")}
            if call.tool == "get_file_tree":
                value: Any = None if tree_fails else file_tree
            elif call.tool == "list_directory" and not args.get("path"):
                value = DirListing(
                    path="",
                    entries=tuple(
                        DirEntry(name=e.path, path=e.path, type=e.type)
                        for e in file_tree.entries
                        if "/" not in e.path
                    ),
                )
            else:
                value = None if next(outcomes, False) else object()
            results.append(
                ok(call.tool, repo, value, **args)
                if value is not None
                else failed(call.tool, repo, degraded=True, **args)
            )
    else:
        pytest.fail("the planner did not finish within 10 turns")
    per_repo = 4 + 1 + bound + 3  # the overview, the root listing, the bounded picks, the question's reads
    assert len(seen) <= 2 * per_repo
