"""LocalGitSource against real git repositories built here with the git CLI (no network).

Also covers the pure helpers it relies on: language detection and license detection.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_core.errors import ConfigurationError, InvalidArgumentError, InvalidTargetError, NotFoundError
from agent_core.repo import RepoRef
from agent_core.sources.languages import count_languages, is_vendored, language_for, tree_languages
from agent_core.sources.licenses import detect_license
from agent_core.sources.local import LocalGitSource
from agent_core.sources.models import FileTree, TreeEntry

SUBMODULE_SHA = "0123456789abcdef0123456789abcdef01234567"
MIT = """MIT License

Copyright (c) 2020 Ada Lovelace

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
"""
APP_PY = "def main() -> None:\n    print('hello')\n" * 40
UTIL_JS = "export const answer = 42;\n"


# -- building repositories ---------------------------------------------------------------------------


def git(cwd: Path, *args: str, date: str = "2020-01-01T12:00:00+02:00") -> str:
    """Run the git CLI with a fixed identity and dates, isolated from the user's configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="Ada Lovelace",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_COMMITTER_NAME="Ada Lovelace",
        GIT_COMMITTER_EMAIL="ada@example.com",
        GIT_AUTHOR_DATE=date,
        GIT_COMMITTER_DATE=date,
    )
    done = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)
    return done.stdout.decode()


def write(root: Path, path: str, content: str | bytes) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        target.write_text(content, encoding="utf-8")
    else:
        target.write_bytes(content)


@dataclass(frozen=True, kw_only=True)
class Repos:
    work: Path
    bare: Path
    empty: Path
    detached: Path
    not_git: Path


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> Repos:
    base = tmp_path_factory.mktemp("repos")
    work = base / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    write(work, "README.md", "# Demo\n\nA demo repository.\n")
    write(work, "LICENSE", MIT)
    write(work, "src/app.py", APP_PY)
    write(work, "src/util.js", UTIL_JS)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "initial import")
    git(work, "tag", "v1")

    second = "2021-06-01T08:30:00-04:00"
    write(work, "big.txt", "".join(f"line {i:04d}\n" for i in range(1, 1001)))
    write(work, "image.bin", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    write(work, "docs/héllo wörld.md", "unicode and spaces\n")
    write(work, "日本語/ファイル.txt", "こんにちは\n")
    write(work, "with space.py", "x = 1\n")
    write(work, "node_modules/dep/index.js", "module.exports = 1;\n" * 500)
    (work / "link-to-readme").symlink_to("README.md")
    (work / "docs/up").symlink_to("../src/app.py")
    (work / "escape").symlink_to("../outside")
    git(work, "add", "-A", date=second)
    git(work, "commit", "-q", "-m", "add files of every kind", date=second)

    third = "2022-03-04T05:06:07Z"
    write(
        work, ".gitmodules", '[submodule "lib"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n'
    )
    git(work, "update-index", "--add", "--cacheinfo", f"160000,{SUBMODULE_SHA},vendor/lib")
    git(work, "add", ".gitmodules")  # not -A: vendor/lib does not exist on disk
    git(work, "commit", "-q", "-m", "add a submodule", date=third)

    bare = base / "demo.git"
    git(base, "clone", "-q", "--bare", str(work), str(bare))
    (bare / "description").write_text("A bare demo repository\n", encoding="utf-8")

    empty = base / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")

    detached = base / "detached"
    git(base, "clone", "-q", str(work), str(detached))
    git(detached, "checkout", "-q", "--detach", "HEAD~1")

    not_git = base / "plain"
    not_git.mkdir()
    return Repos(work=work, bare=bare, empty=empty, detached=detached, not_git=not_git)


async def open_source(path: Path, *, ref: str = "HEAD") -> tuple[LocalGitSource, RepoRef]:
    source = await LocalGitSource.open(path, ref=ref)
    return source, source.repo_ref


# -- open / repository info --------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["not_git", "missing"])
async def test_open_refuses_a_directory_that_is_not_a_repository(repos: Repos, which: str) -> None:
    path = repos.not_git if which == "not_git" else repos.not_git / "missing"
    with pytest.raises(InvalidTargetError, match="is not a git repository"):
        await LocalGitSource.open(path)


async def test_open_refuses_an_unknown_ref(repos: Repos) -> None:
    with pytest.raises(InvalidTargetError, match="ref 'no-such-branch' not found"):
        await LocalGitSource.open(repos.work, ref="no-such-branch")


async def test_open_from_a_subdirectory_uses_the_top_level(repos: Repos) -> None:
    source, ref = await open_source(repos.work / "src")
    assert ref == RepoRef(owner="local", name="work")
    listing = (await source.list_directory(ref)).value
    assert "README.md" in {e.name for e in listing.entries}


async def test_repo_info_of_a_working_copy(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    info = (await source.get_repo_info(ref)).value
    assert info.full_name == "local/work"
    assert info.default_branch == "main"
    assert info.license == "MIT"
    assert info.language == "Python"
    assert info.created_at == "2020-01-01T10:00:00Z"
    assert info.pushed_at == info.updated_at == "2022-03-04T05:06:07Z"
    assert isinstance(info.size_kb, int)
    assert info.size_kb > 0
    # Unknown locally: never invented.
    assert info.description is None
    assert info.html_url is None
    unknown = (info.stars, info.forks, info.open_issues, info.watchers, info.topics, info.homepage)
    assert unknown == (None, None, None, None, None, None)
    assert (info.archived, info.fork) == (None, None)


async def test_repo_info_of_a_bare_clone(repos: Repos) -> None:
    source, ref = await open_source(repos.bare)
    info = (await source.get_repo_info(ref)).value
    assert info.full_name == "local/demo"
    assert info.description == "A bare demo repository"
    assert (info.default_branch, info.license, info.language) == ("main", "MIT", "Python")
    assert info.stars is None


async def test_detached_head_has_no_default_branch_and_reads_that_commit(repos: Repos) -> None:
    source, ref = await open_source(repos.detached)
    assert ((await source.get_repo_info(ref)).value).default_branch is None
    with pytest.raises(NotFoundError):
        await source.read_file(
            ref, ".gitmodules", max_chars=6000
        )  # added by the commit after the detached one


async def test_empty_repository(repos: Repos) -> None:
    source, ref = await open_source(repos.empty)
    info = (await source.get_repo_info(ref)).value
    assert (info.full_name, info.default_branch) == ("local/empty", "main")
    assert (info.created_at, info.pushed_at, info.language, info.license) == (None, None, None, None)

    listing = (await source.list_directory(ref)).value
    assert (listing.entries, listing.note) == ((), "empty repository")
    commits = (await source.get_commits(ref)).value
    assert (commits.commits, commits.empty_repository) == ((), True)
    tree = (await source.get_file_tree(ref)).value
    assert (tree.entries, tree.empty_repository) == ((), True)
    assert ((await source.get_languages(ref)).value).bytes_by_language == {}
    with pytest.raises(
        NotFoundError, match=re.escape("'README.md' not found in local repository local/empty")
    ):
        await source.read_file(ref, "README.md", max_chars=6000)
    with pytest.raises(NotFoundError):
        await source.list_directory(ref, "src")


# -- listing -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["work", "bare"])
async def test_root_listing_has_every_kind_of_entry(repos: Repos, which: str) -> None:
    source, ref = await open_source(getattr(repos, which))
    listing = (await source.list_directory(ref)).value
    by_name = {e.name: e for e in listing.entries}
    assert by_name["README.md"].type == "file"
    assert by_name["README.md"].size == len("# Demo\n\nA demo repository.\n")
    assert by_name["src"].type == "dir"
    assert by_name["src"].size is None
    assert (by_name["link-to-readme"].type, by_name["link-to-readme"].target) == ("symlink", "README.md")
    assert (by_name["escape"].type, by_name["escape"].target) == ("symlink", "../outside")
    assert by_name["with space.py"].type == "file"
    assert by_name["日本語"].type == "dir"
    assert by_name["vendor"].type == "dir"
    assert listing.path == ""
    assert listing.to_observation()["path"] == "/"


async def test_listing_a_subdirectory_with_a_submodule(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    listing = (await source.list_directory(ref, "vendor")).value
    assert listing.path == "vendor"
    (lib,) = listing.entries
    assert (lib.name, lib.path, lib.type) == ("lib", "vendor/lib", "submodule")
    assert lib.submodule_url == "https://example.com/lib.git"


async def test_listing_unicode_directories(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    listing = (await source.list_directory(ref, "日本語")).value
    assert [(e.name, e.path) for e in listing.entries] == [("ファイル.txt", "日本語/ファイル.txt")]
    docs = (await source.list_directory(ref, "docs/")).value
    assert {e.name for e in docs.entries} == {"héllo wörld.md", "up"}


async def test_listing_errors(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    with pytest.raises(InvalidArgumentError, match=re.escape("'README.md' is a file; use read_file")):
        await source.list_directory(ref, "README.md")
    with pytest.raises(InvalidArgumentError, match="is a submodule"):
        await source.list_directory(ref, "vendor/lib")
    with pytest.raises(InvalidArgumentError, match="is a symbolic link"):
        await source.list_directory(ref, "link-to-readme")
    with pytest.raises(
        NotFoundError, match=re.escape("'nope' not found in local repository local/work")
    ) as info:
        await source.list_directory(ref, "nope")
    assert info.value.status is None


# -- reading files -----------------------------------------------------------------------------------


async def test_reading_a_large_file_page_by_page(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    first = (await source.read_file(ref, "big.txt", max_chars=6000)).value
    assert (first.kind, first.start_line, first.end_line, first.total_lines) == ("file", 1, 600, 1000)
    assert first.text == "".join(f"line {i:04d}\n" for i in range(1, 601))
    assert (first.truncated, first.omitted_chars, first.next_offset) == (True, 4000, 601)
    assert first.size == 10_000
    assert first.sha is not None
    assert len(first.sha) == 40
    assert first.ref is None

    rest = (await source.read_file(ref, "big.txt", start_line=first.next_offset or 0, max_chars=6000)).value
    assert (rest.start_line, rest.end_line, rest.next_offset, rest.omitted_chars) == (601, 1000, None, 0)

    window = (await source.read_file(ref, "big.txt", start_line=500, max_lines=3, max_chars=6000)).value
    assert window.text == "line 0500\nline 0501\nline 0502\n"
    beyond = (await source.read_file(ref, "big.txt", start_line=1001, max_chars=6000)).value
    assert beyond.note == "the file has only 1,000 lines; start_line=1001 is past the end"


async def test_reading_unicode_and_space_names_from_a_bare_repository(repos: Repos) -> None:
    source, ref = await open_source(repos.bare)
    assert (
        (await source.read_file(ref, "docs/héllo wörld.md", max_chars=6000)).value
    ).text == "unicode and spaces\n"
    assert ((await source.read_file(ref, "日本語/ファイル.txt", max_chars=6000)).value).text == "こんにちは\n"
    assert ((await source.read_file(ref, "with space.py", max_chars=6000)).value).text == "x = 1\n"


async def test_reading_binary_symlink_and_submodule(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    binary = (await source.read_file(ref, "image.bin", max_chars=6000)).value
    assert (binary.kind, binary.text, binary.size) == ("binary", None, 16 + 256)

    link = (await source.read_file(ref, "link-to-readme", max_chars=6000)).value
    assert (link.kind, link.target, link.text) == ("symlink", "README.md", None)
    assert (
        link.note == "symbolic link to 'README.md'; call read_file with path='README.md' to read the target"
    )
    up = (await source.read_file(ref, "docs/up", max_chars=6000)).value
    assert up.note is not None
    assert "path='src/app.py'" in up.note
    outside = (await source.read_file(ref, "escape", max_chars=6000)).value
    assert outside.note == "symbolic link to '../outside', outside the repository; not followed"

    sub = (await source.read_file(ref, "vendor/lib", max_chars=6000)).value
    assert (sub.kind, sub.submodule_url, sub.sha) == (
        "submodule",
        "https://example.com/lib.git",
        SUBMODULE_SHA,
    )


async def test_reading_errors(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    with pytest.raises(InvalidArgumentError, match=re.escape("'src' is a directory; use list_directory")):
        await source.read_file(ref, "src", max_chars=6000)
    with pytest.raises(
        NotFoundError, match=re.escape("'src/nope.py' not found in local repository local/work")
    ):
        await source.read_file(ref, "src/nope.py", max_chars=6000)
    with pytest.raises(NotFoundError):
        await source.read_file(ref, "src/app.py/x", max_chars=6000)  # below a file
    with pytest.raises(NotFoundError):
        await source.read_file(ref, "src/app*", max_chars=6000)  # no pattern matching: paths are literal
    with pytest.raises(InvalidArgumentError, match="start_line"):
        await source.read_file(ref, "README.md", start_line=0, max_chars=6000)


@pytest.mark.parametrize("path", ["-x", "--output=/tmp/x", "a/../README.md", "./README.md", "a\nb", "a//b"])
async def test_suspicious_paths_are_rejected_before_git_runs(repos: Repos, path: str) -> None:
    source = LocalGitSource(repos.work, git=str(repos.not_git / "no-git-here"))
    with pytest.raises(InvalidArgumentError):
        await source.read_file(RepoRef(owner="local", name="work"), path, max_chars=6000)


async def test_a_smaller_file_limit_reads_the_beginning_and_says_what_was_cut(repos: Repos) -> None:
    source = await LocalGitSource.open(repos.work, max_file_bytes=5000)
    page = (await source.read_file(source.repo_ref, "big.txt", max_chars=6000)).value
    assert (page.kind, page.size, page.truncated) == ("file", 10_000, True)
    assert page.text is not None and len(page.text.encode()) <= 5000
    assert page.note is not None and "only the first 5,000 were read" in page.note


async def test_uncommitted_changes_are_not_seen(repos: Repos, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repos.work), str(clone))
    write(clone, "README.md", "edited but not committed\n")
    write(clone, "untracked.txt", "new\n")
    source, ref = await open_source(clone)
    assert (
        (await source.read_file(ref, "README.md", max_chars=6000)).value
    ).text == "# Demo\n\nA demo repository.\n"
    with pytest.raises(NotFoundError):
        await source.read_file(ref, "untracked.txt", max_chars=6000)


async def test_an_older_ref_is_read_when_asked(repos: Repos) -> None:
    source, ref = await open_source(repos.work, ref="v1")
    page = (await source.read_file(ref, "README.md", max_chars=6000)).value
    assert page.ref == "v1"
    with pytest.raises(NotFoundError):
        await source.read_file(ref, "big.txt", max_chars=6000)
    assert len(((await source.get_commits(ref)).value).commits) == 1


async def test_inherited_git_environment_does_not_redirect_git(
    repos: Repos, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_DIR", str(repos.empty / ".git"))
    source, ref = await open_source(repos.work)
    assert ((await source.read_file(ref, "src/util.js", max_chars=6000)).value).text == UTIL_JS


# -- commits, tree, languages ------------------------------------------------------------------------


async def test_commits_newest_first_with_has_more(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    page = (await source.get_commits(ref, per_page=2)).value
    assert page.has_more is True
    assert [c.message for c in page.commits] == ["add a submodule", "add files of every kind"]
    assert [c.date for c in page.commits] == ["2022-03-04T05:06:07Z", "2021-06-01T12:30:00Z"]
    assert {c.author for c in page.commits} == {"Ada Lovelace"}
    assert all(len(c.sha) == 40 for c in page.commits)
    everything = (await source.get_commits(ref, per_page=3)).value
    assert (len(everything.commits), everything.has_more) == (3, False)
    assert everything.commits[-1].message == "initial import"
    with pytest.raises(InvalidArgumentError):
        await source.get_commits(ref, per_page=0)


async def test_file_tree_whole_and_under_a_path(repos: Repos) -> None:
    source, ref = await open_source(repos.bare)
    tree = (await source.get_file_tree(ref)).value
    types = {e.path: e.type for e in tree.entries}
    assert types["src"] == "dir"
    assert types["src/app.py"] == "file"
    assert types["link-to-readme"] == "symlink"
    assert types["vendor/lib"] == "submodule"
    assert types["日本語/ファイル.txt"] == "file"
    assert tree.ref is not None
    assert len(tree.ref) == 40
    assert (tree.files, tree.dirs) == (
        sum(t != "dir" for t in types.values()),
        sum(t == "dir" for t in types.values()),
    )

    src = (await source.get_file_tree(ref, "src")).value
    assert [(e.path, e.size) for e in src.entries] == [
        ("src/app.py", len(APP_PY)),
        ("src/util.js", len(UTIL_JS)),
    ]
    with pytest.raises(InvalidArgumentError, match="is a file"):
        await source.get_file_tree(ref, "README.md")
    with pytest.raises(NotFoundError):
        await source.get_file_tree(ref, "nope")


async def test_languages_count_code_only(repos: Repos) -> None:
    source, ref = await open_source(repos.work)
    languages = ((await source.get_languages(ref)).value).bytes_by_language
    # node_modules is vendored; Markdown, text and binaries are not code.
    assert languages == {"Python": len(APP_PY) + len("x = 1\n"), "JavaScript": len(UTIL_JS)}


# -- processes ---------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    """Running (not a zombie) according to /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def slow_git(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A `git` that starts a child and waits for it; writes "<own pid> <child pid>" once both run."""
    pidfile = tmp_path / "pids"
    script = tmp_path / "slow-git"
    script.write_text(
        f'#!/bin/sh\nsleep 600 &\necho "$$ $!" > "{pidfile}.tmp" && mv "{pidfile}.tmp" "{pidfile}"\nwait\n'
    )
    script.chmod(0o755)
    yield script, pidfile
    if pidfile.exists():  # never leave a sleeper behind, even when the test failed
        for pid in map(int, pidfile.read_text().split()):
            if _alive(pid):
                os.kill(pid, 9)


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
async def test_cancelling_a_call_kills_git_and_its_children(
    repos: Repos, slow_git: tuple[Path, Path]
) -> None:
    script, pidfile = slow_git
    source = LocalGitSource(repos.work, git=str(script))
    task = asyncio.create_task(source.get_commits(RepoRef(owner="local", name="work")))
    # A bound for a broken test, far beyond any busy machine's delay and far below the fake git's 600 s:
    # the conditions below are checked as they change, so a passing test never waits it out.
    deadline = time.monotonic() + 60
    while not pidfile.exists():
        assert time.monotonic() < deadline, "the fake git never started"
        await asyncio.sleep(0.01)
    pids = [int(p) for p in pidfile.read_text().split()]
    assert all(_alive(pid) for pid in pids)

    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=deadline - time.monotonic())
    assert done == {task}, "cancellation waited for git to finish instead of killing it"
    assert task.cancelled()
    while any(_alive(pid) for pid in pids):  # SIGKILL is delivered asynchronously to the orphan
        assert time.monotonic() < deadline, f"still running: {[p for p in pids if _alive(p)]}"
        await asyncio.sleep(0.01)


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
async def test_cancelling_a_call_while_git_starts_still_kills_its_children(
    repos: Repos, slow_git: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """asyncio starts the process before ``create_subprocess_exec`` returns it (it still connects the
    pipes). A cancellation in that gap killed git alone, and its children ran on (seen once in three
    stressed runs of the test above). Here the gap is held open until the call is cancelled."""
    script, pidfile = slow_git
    started = asyncio.create_subprocess_exec
    connected = asyncio.Event()

    async def slow_to_connect(*args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        proc = await started(*args, **kwargs)
        await connected.wait()
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", slow_to_connect)
    source = LocalGitSource(repos.work, git=str(script))
    task = asyncio.create_task(source.get_commits(RepoRef(owner="local", name="work")))
    deadline = time.monotonic() + 60  # a bound for a broken test, as above
    while not pidfile.exists():
        assert time.monotonic() < deadline, "the fake git never started"
        await asyncio.sleep(0.01)
    pids = [int(p) for p in pidfile.read_text().split()]
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=deadline - time.monotonic())
    assert done == {task} and task.cancelled()
    connected.set()  # the pipes connect after the caller has gone
    while any(_alive(pid) for pid in pids):
        assert time.monotonic() < deadline, f"still running: {[p for p in pids if _alive(p)]}"
        await asyncio.sleep(0.01)


async def test_missing_git_executable_is_a_configuration_error(repos: Repos) -> None:
    source = LocalGitSource(repos.work, git=str(repos.not_git / "no-git-here"))
    with pytest.raises(ConfigurationError, match="cannot run the git executable"):
        await source.get_languages(RepoRef(owner="local", name="work"))


# -- pure helpers: languages and licenses ------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b/main.py", "Python"),
        ("App.TSX", "TypeScript"),
        ("lib.rs", "Rust"),
        ("x.h", "C"),
        ("x.hpp", "C++"),
        ("Program.cs", "C#"),
        ("deploy/Dockerfile", "Dockerfile"),
        ("Dockerfile.dev", None),  # Linguist knows Dockerfile and *.dockerfile, not this name
        ("Makefile", "Makefile"),
        ("ui/App.vue", "Vue"),
        ("run.sh", "Shell"),
        ("README.md", None),
        ("notes.txt", None),
        ("package.json", None),
        ("config.yaml", None),
        ("pyproject.toml", None),
        ("Cargo.lock", None),
        ("logo.png", None),
        (".bashrc", "Shell"),  # Linguist's filenames: GitHub counts it as Shell
        ("LICENSE", None),
    ],
)
def test_language_for(path: str, language: str | None) -> None:
    assert language_for(path) == language


def test_headers_count_as_the_c_family_language_of_the_sources_they_serve() -> None:
    """Linguist reads a ``.h`` file's content; a tree has none, so a header goes with the other files'
    C-family language (fmt's include/fmt/*.h are C++), C when nothing else says, and a folder of headers
    alone goes with its repository's."""
    cpp = count_languages([("include/fmt/core.h", 5000), ("src/format.cc", 2000), ("test/a-test.cc", 100)])
    c = count_languages([("src/a.h", 5000), ("src/a.c", 2000)])
    objc = count_languages([("Sources/A.h", 3000), ("Sources/A.m", 4000), ("tools/x.c", 100)])
    assert (cpp, c, objc) == ({"C++": 7100}, {"C": 7000}, {"Objective-C": 7000, "C": 100})
    assert count_languages([("x.h", 10)]) == {"C": 10}
    tree = FileTree(
        ref="main", path="include", entries=(TreeEntry(path="include/fmt/core.h", type="file", size=9),)
    )
    assert tree_languages(tree, around={"C++": 100, "C": 5}) == {"C++": 9}


def test_count_languages_skips_vendored_paths_and_sorts_by_bytes() -> None:
    files = [
        ("src/a.py", 100),
        ("src/b.py", 50),
        ("web/app.js", 300),
        ("web/app.min.js", 9000),
        ("node_modules/x/index.js", 9000),
        ("pkg/vendor/dep.go", 9000),
        ("dist/out.c", 9000),
        ("docs/guide.md", 9000),
        ("docs/conf.py", 9000),  # documentation: Linguist leaves it out of the statistics
        ("api/v1/api.pb.go", 9000),  # generated
        ("build/gen.py", 20),  # Linguist has no rule for build/: the project's own
    ]
    assert count_languages(files) == {"JavaScript": 300, "Python": 170}
    assert list(count_languages(files)) == ["JavaScript", "Python"]
    assert is_vendored("a/third_party/b.c")
    assert is_vendored("go.sum")
    assert not is_vendored("vendor.py")
    assert not is_vendored("build/gen.py")


@pytest.mark.parametrize(
    ("text", "spdx"),
    [
        (MIT, "MIT"),
        (
            "        Apache License\n     Version 2.0, January 2004\n",
            "Apache-2.0",
        ),
        (
            "Redistribution and use in source and binary forms, with or without\nmodification...\n"
            "3. Neither the name of the copyright holder nor the names of its contributors",
            "BSD-3-Clause",
        ),
        ("Redistribution and use in source and binary forms, with or without modification", "BSD-2-Clause"),
        (
            "    GNU GENERAL PUBLIC LICENSE\n       Version 3, 29 June 2007\n",
            "GPL-3.0",
        ),
        (
            "GNU LESSER GENERAL PUBLIC LICENSE\nVersion 2.1, February 1999\n... GNU General Public License",
            "LGPL-2.1",
        ),
        ("Mozilla Public License Version 2.0\n==================================\n", "MPL-2.0"),
        (
            'Mozilla Public License Version 2.0\n1.12. "Secondary License" means either the GNU General'
            " Public License, Version 2.0, the GNU Lesser General Public License, Version 2.1, the GNU"
            " Affero General Public License, Version 3.0, or any later versions of those licenses.",
            "MPL-2.0",
        ),
        ("All rights reserved. Do not copy.", None),
    ],
)
def test_detect_license(text: str, spdx: str | None) -> None:
    assert detect_license(text) == spdx


async def test_languages_follow_the_root_gitattributes(tmp_path: Path) -> None:
    """The root ``.gitattributes``'s Linguist overrides count as on GitHub: a vendored folder leaves the
    count, a file made documentation leaves it, and an extension given another language moves."""
    root = tmp_path / "attrs"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "app.py", APP_PY)
    write(root, "third/lib.py", "y = 2\n" * 50)
    write(root, "docs/gen.py", "z = 3\n" * 20)
    write(root, "tool.inc", "<?php echo 1; ?>\n")
    write(
        root,
        ".gitattributes",
        "third/** linguist-vendored\ndocs/** linguist-documentation\n*.inc linguist-language=PHP\n",
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "attrs")
    source, ref = await open_source(root)
    languages = ((await source.get_languages(ref)).value).bytes_by_language
    assert languages == {"Python": len(APP_PY), "PHP": len("<?php echo 1; ?>\n")}
