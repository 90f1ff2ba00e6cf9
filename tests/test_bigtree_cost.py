"""A 100,000-entry analysis does each piece of work once and only where it is needed (counted calls and
visits, never wall-clock windows): the planner asks whether the tools would accept a path only of the
paths that may become calls, a deep path costs ``notable_role`` one match, the diagram's folder set does
not build the claim check's suffix map, and a local repository counts its languages once per commit."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.agent import planner, tree_paths
from agent_core.agent.planner import OfflinePlanner
from agent_core.repo import RepoRef
from agent_core.repomodel.ci import ci_file
from agent_core.report import diagram_tree
from agent_core.report.path_index import index_of
from agent_core.sources import gitcli, local_facts
from agent_core.sources.gitcli import parse_ls_tree
from agent_core.sources.local import LocalGitSource
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools import observe
from testing.emulator.gitrepo import make_repo
from testing.properties import examples
from tests.test_claims_linear import facts_of
from tests.test_planning_cost import REPO, overview, synthetic_entries


class Calls:
    """A function that counts its calls and answers as ``real`` does."""

    def __init__(self, real: Any) -> None:
        self.real, self.count = real, 0

    def __call__(self, *args: Any) -> Any:
        self.count += 1
        return self.real(*args)


def test_the_planner_asks_usable_only_of_the_paths_it_may_call(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = synthetic_entries(5_000)
    counted = Calls(tree_paths.usable)
    monkeypatch.setattr(tree_paths, "usable", counted)
    monkeypatch.setattr(planner, "usable", counted)
    results = overview(FileTree(ref="main", path="", entries=tuple(entries)))
    step = OfflinePlanner([REPO], question="How is it tested? Where is the module loader?").next_step(results)
    assert step is not None and step.calls
    assert counted.count <= 50, counted.count  # every file of the tree was asked before: 5,000 calls


def test_a_name_the_tools_refuse_never_becomes_a_call_and_the_next_one_is_read() -> None:
    entries = [
        TreeEntry(path=p, type="file")
        for p in ("README%.md", "README.rst", "LICENSE", "test_100%.py", "tests/test_app.py", "app.py")
    ]
    results = overview(FileTree(ref="main", path="", entries=tuple(entries)))
    step = OfflinePlanner([REPO], question="How is it tested?").next_step(results)
    assert step is not None
    read = {c.arguments.get("path") for c in step.calls}
    assert "README.rst" in read and "LICENSE" in read
    assert not {"README%.md", "test_100%.py"} & read


class CountedPattern:
    """A compiled pattern whose ``match`` calls are counted."""

    def __init__(self, pattern: re.Pattern[str], calls: list[str]) -> None:
        self.pattern, self.calls = pattern, calls

    def match(self, text: str) -> re.Match[str] | None:
        self.calls.append(text)
        return self.pattern.match(text)


def test_a_deep_path_costs_notable_role_one_match(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    notable = tuple((role, CountedPattern(p, calls)) for role, p in observe._NOTABLE)
    monkeypatch.setattr(observe, "_NOTABLE", notable)
    monkeypatch.setattr(observe, "_CI", CountedPattern(observe._CI, calls))
    monkeypatch.setattr(observe, "_MANIFEST", CountedPattern(observe._MANIFEST, calls))
    monkeypatch.setattr(observe, "_REQUIREMENTS_DIR", CountedPattern(observe._REQUIREMENTS_DIR, calls))
    deep = [f"pkg{i}/src/module/m{i}.go" for i in range(1_000)]
    assert [observe.notable_role(p) for p in deep] == [None] * len(deep)
    assert len(calls) == len(deep)  # the rule for each role, asked per role, was 8 matches a path
    assert observe.notable_role(".github/workflows/ci.yml") == "ci"


def _notable_by_the_rules(path: str) -> str | None:
    """``notable_role`` as its rules read, every role asked in order of every path (the reference)."""
    low = path.lower()
    if re.match(r"^requirements/[\w.-]+\.txt$", low):
        return "manifest"
    name, depth = low.rsplit("/", 1)[-1], low.count("/")
    for role, pattern in observe._NOTABLE:
        if role == "ci":
            folder, _, base = low.rpartition("/")
            model = bool(ci_file(base)) if not folder else folder in observe._CI_DIRS
            if pattern.match(low) or model:
                return role
        elif pattern.match(name) and (depth == 0 or (role == "manifest" and depth == 1)):
            return role
    return None


_PARTS = [
    "README",
    ".md",
    "LICENSE",
    "package.json",
    "go.mod",
    "requirements",
    ".txt",
    "/",
    ".github",
    "workflows",
    "ci.yml",
    ".gitlab-ci.yml",
    ".ci",
    "ci",
    "Makefile",
    "Dockerfile",
    ".cirrus.yml",
    "x",
    ".",
    "Jenkinsfile",
    ".circleci",
    "config.yml",
]


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from(_PARTS), min_size=1, max_size=6).map("".join))
def test_notable_role_answers_as_its_rules_read(path: str) -> None:
    assert observe.notable_role(path) == _notable_by_the_rules(path)


def test_the_diagram_folder_set_builds_no_suffix_map() -> None:
    facts = facts_of(2_000)
    assert "pkg1/sub" in diagram_tree._dir_set(facts)
    built = vars(index_of(facts))
    assert "named" not in built and "lower" not in built  # what only the claim check reads
    assert "pkg0/sub/m0.go" in index_of(facts).tails("sub/m0.go")  # built when asked for


async def test_a_local_repository_counts_its_languages_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = Calls(local_facts.languages)
    monkeypatch.setattr(local_facts, "languages", counted)
    root = make_repo(
        tmp_path / "svc", {"README.md": "# svc\n", "svc/app.py": "print(1)\n", "main.go": "package main\n"}
    )
    source = await LocalGitSource.open(root)
    repo = RepoRef(owner="local", name="svc")
    info, languages = await asyncio.gather(source.get_repo_info(repo), source.get_languages(repo))
    again = await source.get_languages(repo)
    assert info.value.language == next(iter(languages.value.bytes_by_language))
    assert again.value == languages.value
    assert counted.count == 1  # get_repo_info and get_languages each counted the whole tree before


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from([b"a", b"/", b"\xc3\xa9", b"\xc3", b"\xff", b" ", b"\xe4\xb8"]), min_size=1
        ).map(b"".join),
        max_size=6,
    ),
    st.integers(min_value=1, max_value=200),
)
def test_a_tree_listing_decodes_each_path_as_alone(paths: list[bytes], piece: int) -> None:
    """Whatever pieces the listing is decoded in (one, or one per few bytes, cut at NULs)."""
    out = b"".join(b"100644 blob %040d 7\t%s\0" % (i, p) for i, p in enumerate(paths))
    for size in (gitcli.LISTING_PIECE, piece):
        with mock.patch.object(gitcli, "LISTING_PIECE", size):
            entries = parse_ls_tree(out)
        assert [e.path for e in entries] == [p.decode("utf-8", errors="replace") for p in paths]
        assert all(e.size == 7 and e.type == "file" for e in entries)


def test_a_blob_git_cannot_read_has_no_size_and_breaks_nothing() -> None:
    # A partial clone lacks its largest blobs: ``git ls-tree -l`` prints BAD where the size would be.
    out = b"100644 blob %040d     BAD\tbig.bin\x00100644 blob %040d      12\tsmall.py\0" % (1, 2)
    assert [(e.path, e.size) for e in parse_ls_tree(out)] == [("big.bin", None), ("small.py", 12)]
