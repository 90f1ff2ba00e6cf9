"""Real git repositories for tests, built and read through the git CLI.

Building: :func:`make_repo`, :func:`make_empty_repo` and :func:`sample_python_project` create
repositories with ``git fast-import`` (one process for the whole history, bare or not). Author and
committer names and dates come from :class:`CommitSpec`, global and system git configuration are
ignored, and nothing is signed, so every commit sha is the same on every machine and every run.

Reading: :class:`GitReader` wraps the few plumbing commands the GitHub emulator needs (resolve a ref,
list a tree, read a blob, walk the log). Git objects are immutable, so it keeps no state besides the
repository path and is safe to share between threads.
"""

from __future__ import annotations

import os
import struct
import subprocess
import zlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

__all__ = [
    "CommitSpec",
    "GitError",
    "GitReader",
    "LogEntry",
    "TreeItem",
    "git_env",
    "make_empty_repo",
    "make_repo",
    "sample_python_project",
    "tiny_png",
]

_GIT_OPTIONS = (
    "-c",
    "init.defaultBranch=main",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.symlinks=true",
)


class GitError(RuntimeError):
    """A git command failed; carries its arguments and stderr."""


def git_env() -> dict[str, str]:
    """An environment in which git reads no user or system configuration and never prompts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        GIT_AUTHOR_NAME="Test Author",
        GIT_AUTHOR_EMAIL="author@example.com",
        GIT_AUTHOR_DATE="2024-01-01T00:00:00+00:00",
        GIT_COMMITTER_NAME="Test Author",
        GIT_COMMITTER_EMAIL="author@example.com",
        GIT_COMMITTER_DATE="2024-01-01T00:00:00+00:00",
        LC_ALL="C",
    )
    return env


def _run_git(cwd: Path, *args: str, stdin: bytes | None = None) -> bytes:
    cmd = ["git", *_GIT_OPTIONS, *args]
    proc = subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, env=git_env(), check=False)
    if proc.returncode != 0:
        stderr = proc.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {' '.join(args)} failed ({proc.returncode}): {stderr}")
    return proc.stdout


# --------------------------------------------------------------------------------------------- building


@dataclass(frozen=True, kw_only=True)
class CommitSpec:
    """One commit: the files it adds or changes (``None`` deletes a path), by whom and when.

    ``date`` is ISO 8601; without an offset it is taken as UTC. The committer is the author.
    """

    message: str
    files: Mapping[str, str | bytes | None] = field(default_factory=dict)
    author_name: str = "Test Author"
    author_email: str = "author@example.com"
    date: str = "2024-01-15T10:00:00+00:00"


def make_empty_repo(root: Path, *, bare: bool = False, branch: str = "main") -> Path:
    """``git init`` at ``root`` (created if needed) without any commit; returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    _run_git(root, "init", "-q", *(["--bare"] if bare else []), "-b", branch, ".")
    return root


def make_repo(
    root: Path,
    files: Mapping[str, str | bytes],
    *,
    commits: Sequence[CommitSpec] | None = None,
    symlinks: Mapping[str, str] | None = None,
    submodules: Mapping[str, tuple[str, str]] | None = None,
    executable: Collection[str] = (),
    bare: bool = False,
    branch: str = "main",
) -> Path:
    """Create a git repository at ``root`` (created if needed) and return ``root``.

    The first commit holds ``files``, ``symlinks`` (path -> target), ``submodules`` (path -> (url, sha):
    a ``.gitmodules`` entry plus a gitlink, the submodule's commit need not exist) and the files of
    ``commits[0]``; each later :class:`CommitSpec` applies its own changes on top. Without ``commits``
    there is one commit, "Initial commit". Paths in ``executable`` get mode 100755. A non-bare
    repository also gets its working tree checked out (real symlinks, empty submodule folders).
    """
    specs = list(commits) if commits else [CommitSpec(message="Initial commit")]
    symlinks = symlinks or {}
    submodules = submodules or {}
    first: dict[str, _Change] = {path: _blob_change(path, data, executable) for path, data in files.items()}
    first.update({path: ("120000", target.encode()) for path, target in symlinks.items()})
    first.update({path: ("160000", sha) for path, (_url, sha) in submodules.items()})
    if submodules:
        first[".gitmodules"] = ("100644", _gitmodules(submodules).encode())

    stream = bytearray()
    for index, spec in enumerate(specs):
        changes = dict(first) if index == 0 else {}
        changes.update(
            {
                path: _blob_change(path, data, executable) if data is not None else None
                for path, data in spec.files.items()
            }
        )
        stream += _fast_import_commit(branch, spec, changes)
    stream += b"done\n"

    make_empty_repo(root, bare=bare, branch=branch)
    _run_git(root, "fast-import", "--quiet", "--done", stdin=bytes(stream))
    if not bare:
        _run_git(root, "reset", "-q", "--hard")
    return root


# A change is (mode, blob bytes) for blobs and symlinks, (mode, sha) for gitlinks, None for a delete.
_Change = tuple[str, bytes | str] | None


def _blob_change(path: str, data: str | bytes, executable: Collection[str]) -> _Change:
    raw = data.encode() if isinstance(data, str) else data
    return ("100755" if path in executable else "100644", raw)


def _gitmodules(submodules: Mapping[str, tuple[str, str]]) -> str:
    return "".join(
        f'[submodule "{path}"]\n\tpath = {path}\n\turl = {url}\n'
        for path, (url, _sha) in sorted(submodules.items())
    )


def _fast_import_commit(branch: str, spec: CommitSpec, changes: Mapping[str, _Change]) -> bytes:
    when = _raw_date(spec.date)
    ident = f"{spec.author_name} <{spec.author_email}> {when}"
    message = spec.message.encode()
    out = bytearray(f"commit refs/heads/{branch}\nauthor {ident}\ncommitter {ident}\n".encode())
    out += b"data %d\n%s\n" % (len(message), message)
    for path, change in sorted(changes.items()):
        quoted = _quote_path(path)
        if change is None:
            out += b"D " + quoted + b"\n"
            continue
        mode, payload = change
        if isinstance(payload, str):  # a gitlink: the submodule commit, by sha
            out += f"M {mode} {payload} ".encode() + quoted + b"\n"
        else:
            out += f"M {mode} inline ".encode() + quoted + b"\n"
            out += b"data %d\n%s\n" % (len(payload), payload)
    return bytes(out) + b"\n"


def _raw_date(iso: str) -> str:
    """ISO 8601 -> git's raw date format ("<epoch> +HHMM")."""
    moment = datetime.fromisoformat(iso)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    offset = moment.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset else 0
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return f"{int(moment.timestamp())} {sign}{minutes // 60:02d}{minutes % 60:02d}"


def _quote_path(path: str) -> bytes:
    """C-style quoting, which fast-import always accepts (spaces, quotes, newlines, non-ASCII)."""
    escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'.encode()


# ---------------------------------------------------------------------------------------- sample project


def tiny_png(width: int = 8, height: int = 8) -> bytes:
    """A real, valid RGBA PNG (a small gradient), deterministic byte for byte."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 160, 255)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


# (name, email) of the sample project's three authors.
_ADA = ("Ada Lovelace", "ada@example.com")
_GRACE = ("Grace Hopper", "1234567+ghopper@users.noreply.github.com")
_LINUS = ("Linus Example", "linus@example.org")


def _commit(
    who: tuple[str, str], date: str, message: str, files: Mapping[str, str | bytes] | None = None
) -> CommitSpec:
    return CommitSpec(
        message=message, files=dict(files or {}), author_name=who[0], author_email=who[1], date=date
    )


_README_V1 = "# wordstats\n\nCount words in text files.\n"
_README = """# wordstats

A tiny library that counts words in text and reports the most frequent ones.
It has no dependencies at runtime besides `click` for the command line.

## Usage

```python
from pkg.core import top_words

print(top_words("the cat and the hat", n=1))  # [('the', 2)]
```
"""

_PYPROJECT = """[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "wordstats"
version = "{version}"
description = "Count words in text."
requires-python = ">=3.10"
license = "MIT"
dependencies = [
    "click>=8.1",
    "rich>=13",
]

[project.optional-dependencies]
dev = ["pytest>=8"]
"""

_LICENSE = """MIT License

Copyright (c) 2024 Ada Lovelace

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
"""

_CORE_V1 = '''"""Word counting."""

import re

WORD = re.compile(r"[a-z']+")


def words(text: str) -> list[str]:
    """Lower-cased words of ``text``."""
    return WORD.findall(text.lower())
'''

_CORE = '''"""Word counting: split text into words and rank them by frequency."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

WORD = re.compile(r"[a-z']+")
STOP_WORDS = frozenset({"a", "an", "and", "of", "or", "the", "to"})


def words(text: str) -> list[str]:
    """Lower-cased words of ``text``, in order."""
    return WORD.findall(text.lower())


def count(text: str, *, skip_stop_words: bool = False) -> Counter[str]:
    """How often each word occurs in ``text``."""
    found = words(text)
    if skip_stop_words:
        found = [w for w in found if w not in STOP_WORDS]
    return Counter(found)


def top_words(text: str, n: int = 10) -> list[tuple[str, int]]:
    """The ``n`` most frequent words, most frequent first; ties keep first-seen order."""
    if n < 1:
        raise ValueError("n must be positive")
    return count(text).most_common(n)


def merge(counters: Iterable[Counter[str]]) -> Counter[str]:
    """Add several counts together."""
    total: Counter[str] = Counter()
    for counter in counters:
        total.update(counter)
    return total


def count_files(paths: Iterable[Path]) -> Counter[str]:
    """Word counts over several UTF-8 text files."""
    return merge(count(p.read_text(encoding="utf-8")) for p in paths)


def summary(text: str) -> dict[str, int]:
    """Totals for a report: words, distinct words, lines."""
    found = words(text)
    return {"words": len(found), "distinct": len(set(found)), "lines": text.count("\\n") + 1}
'''

_TESTS_V1 = """from pkg.core import words


def test_words_are_lower_case() -> None:
    assert words("Hello World") == ["hello", "world"]
"""

_TESTS = """from pkg.core import count, top_words, words


def test_words_are_lower_case() -> None:
    assert words("Hello World") == ["hello", "world"]


def test_count_skips_stop_words() -> None:
    assert count("the cat and the hat", skip_stop_words=True) == {"cat": 1, "hat": 1}


def test_top_words() -> None:
    assert top_words("b a b", n=1) == [("b", 2)]
"""

_CI = """name: CI
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: pip install -e .[dev]
      - run: pytest -q
"""

_REQUIREMENTS = "click==8.1.7\nrich==13.7.1\n"

_DOCS = "# wordstats documentation\n\nSee the README for usage. `top_words` is the main entry point.\n"


def sample_python_project(root: Path, *, bare: bool = False) -> Path:
    """A small but realistic Python project at ``root`` with 8 commits by 3 authors over 7 weeks.

    Final tree: README.md, pyproject.toml, requirements.txt, LICENSE (MIT), .gitignore,
    src/pkg/__init__.py, src/pkg/core.py (~55 lines), tests/test_core.py, .github/workflows/ci.yml,
    docs/index.md, assets/logo.png (a real PNG) and the symlink ``latest -> docs/index.md``.
    Grace Hopper commits with a GitHub noreply address (so GitHub would know her login, ``ghopper``).
    """
    commits = [
        _commit(_ADA, "2024-01-08T09:30:00+01:00", "Initial project skeleton"),
        _commit(
            _GRACE,
            "2024-01-10T14:05:00-05:00",
            "Add word splitting\n\nA first helper; counting comes next.",
            {"src/pkg/core.py": _CORE_V1, "tests/test_core.py": _TESTS_V1},
        ),
        _commit(_ADA, "2024-01-17T11:00:00+01:00", "Add CI workflow", {".github/workflows/ci.yml": _CI}),
        _commit(
            _LINUS,
            "2024-01-24T16:45:00+00:00",
            "Pin runtime requirements",
            {"requirements.txt": _REQUIREMENTS},
        ),
        _commit(_GRACE, "2024-02-02T10:15:00-05:00", "Add logo", {"assets/logo.png": tiny_png()}),
        _commit(
            _ADA,
            "2024-02-09T09:00:00+01:00",
            "Count and rank words",
            {"src/pkg/core.py": _CORE, "tests/test_core.py": _TESTS},
        ),
        _commit(_LINUS, "2024-02-16T18:20:00+00:00", "Document usage", {"README.md": _README}),
        _commit(
            _GRACE,
            "2024-02-26T12:00:00-05:00",
            "Release 0.2.0",
            {
                "pyproject.toml": _PYPROJECT.format(version="0.2.0"),
                "src/pkg/__init__.py": '__version__ = "0.2.0"\n',
            },
        ),
    ]
    files = {
        "README.md": _README_V1,
        "pyproject.toml": _PYPROJECT.format(version="0.1.0"),
        "LICENSE": _LICENSE,
        ".gitignore": "__pycache__/\n*.egg-info/\n.venv/\n",
        "src/pkg/__init__.py": '__version__ = "0.1.0"\n',
        "docs/index.md": _DOCS,
    }
    return make_repo(root, files, commits=commits, symlinks={"latest": "docs/index.md"}, bare=bare)


# ----------------------------------------------------------------------------------------------- reading

ObjectType = Literal["blob", "tree", "commit"]


@dataclass(frozen=True, kw_only=True)
class TreeItem:
    """One entry of a git tree. ``size`` is set for blobs only; ``path`` is from the repository root."""

    mode: str
    type: ObjectType
    sha: str
    size: int | None
    path: str

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True, kw_only=True)
class LogEntry:
    """One commit as ``git log`` reports it; times are UTC epoch seconds."""

    sha: str
    parents: tuple[str, ...]
    tree: str
    author_name: str
    author_email: str
    author_time: int
    committer_name: str
    committer_email: str
    committer_time: int
    message: str


_LOG_FORMAT = "%H%x1f%P%x1f%T%x1f%an%x1f%ae%x1f%at%x1f%cn%x1f%ce%x1f%ct%x1f%B"


class GitReader:
    """Read-only plumbing over one repository (bare or not). Methods raise :class:`GitError` only for
    unexpected failures; a missing ref or path is ``None`` or an empty result."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _git(self, *args: str) -> bytes:
        return _run_git(self.path, "--literal-pathspecs", *args)

    def default_branch(self) -> str:
        return self._git("symbolic-ref", "--short", "HEAD").decode().strip()

    def matching_refs(self, prefix: str) -> list[tuple[str, str, str]]:
        """``(refname, sha, type)`` of every ref whose full name starts with ``prefix`` (as GitHub's
        ``git/matching-refs``: ``refs/heads/feature`` matches ``refs/heads/feature/x`` and
        ``refs/heads/features``), sorted by name."""
        out = self._git("for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)", "refs/")
        rows = [line.split("\0") for line in out.decode("utf-8", "surrogateescape").splitlines() if line]
        return sorted((name, sha, kind) for name, sha, kind in rows if name.startswith(prefix))

    def is_empty(self) -> bool:
        """True when the repository has no branch at all (GitHub: "Git Repository is empty.")."""
        return not self._git("for-each-ref", "--count=1", "refs/heads").strip()

    def resolve(self, ref: str, kind: Literal["commit", "tree"] = "commit") -> str | None:
        """The sha that ``ref`` (branch, tag, sha) peels to, or None."""
        try:
            out = self._git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{{kind}}}")
        except GitError:
            return None
        return out.decode().strip() or None

    def list_tree(self, treeish: str, path: str = "", *, recursive: bool = False) -> list[TreeItem]:
        """Entries of the tree at ``treeish:path`` (with sizes); recursive lists subtrees too.
        Returns [] when ``path`` is not a folder."""
        args = ["ls-tree", "-z", "-l", *(["-r", "-t"] if recursive else []), f"{treeish}:{path}"]
        try:
            out = self._git(*args)
        except GitError:
            return []
        prefix = f"{path}/" if path else ""
        items = []
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, name = record.split(b"\t", 1)
            mode, kind, sha, size = meta.decode().split()
            items.append(
                TreeItem(
                    mode=mode,
                    type=_object_type(kind),
                    sha=sha,
                    size=int(size) if size.isdigit() else None,  # "-", or "BAD": absent from a snapshot
                    path=prefix + name.decode("utf-8", "surrogateescape"),
                )
            )
        return items

    def entry(self, commit: str, path: str) -> TreeItem | None:
        """The tree entry at ``path`` in ``commit``, or None."""
        parent, _, name = path.rpartition("/")
        return next((item for item in self.list_tree(commit, parent) if item.name == name), None)

    def blob(self, sha: str) -> bytes:
        return self._git("cat-file", "blob", sha)

    def log(
        self, commit: str, *, skip: int = 0, max_count: int | None = None, path: str | None = None
    ) -> list[LogEntry]:
        """Commits reachable from ``commit``, newest first (git's default order)."""
        args = ["log", "-z", f"--format={_LOG_FORMAT}", f"--skip={skip}"]
        if max_count is not None:
            args.append(f"--max-count={max_count}")
        args += [commit, "--", *([path] if path else [])]
        entries = []
        for record in self._git(*args).split(b"\0"):
            if not record:
                continue
            fields = record.decode("utf-8", "replace").split("\x1f")
            entries.append(
                LogEntry(
                    sha=fields[0],
                    parents=tuple(fields[1].split()),
                    tree=fields[2],
                    author_name=fields[3],
                    author_email=fields[4],
                    author_time=int(fields[5]),
                    committer_name=fields[6],
                    committer_email=fields[7],
                    committer_time=int(fields[8]),
                    message=fields[9].rstrip("\n"),
                )
            )
        return entries

    def count(self, commit: str, *, path: str | None = None) -> int:
        return int(self._git("rev-list", "--count", commit, "--", *([path] if path else [])).decode())

    def first_commit_time(self, commit: str) -> int | None:
        out = self._git("rev-list", "--max-parents=0", "--format=%ct", commit).decode()
        times = [int(line) for line in out.splitlines() if line and not line.startswith("commit ")]
        return min(times) if times else None

    def submodule_urls(self, commit: str) -> dict[str, str]:
        """Submodule path -> url from ``.gitmodules`` at ``commit`` ({} when there is none)."""
        try:
            out = self._git(
                "config", "--blob", f"{commit}:.gitmodules", "--get-regexp", r"^submodule\..*\.(path|url)$"
            )
        except GitError:
            return {}
        paths: dict[str, str] = {}
        urls: dict[str, str] = {}
        for line in out.decode("utf-8", "replace").splitlines():
            key, _, value = line.partition(" ")
            name, _, attribute = key.removeprefix("submodule.").rpartition(".")
            (paths if attribute == "path" else urls)[name] = value
        return {path: urls[name] for name, path in paths.items() if name in urls}


def _object_type(kind: str) -> ObjectType:
    if kind == "blob":
        return "blob"
    if kind == "tree":
        return "tree"
    if kind == "commit":
        return "commit"
    raise GitError(f"unexpected object type {kind!r}")
