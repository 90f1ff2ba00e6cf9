"""Real projects for the real-model benchmark: source distributions from the package registry, made
into git repositories the GitHub emulator serves, with their true facts written down from the files.

A source distribution (``pip download --no-binary :all: --no-deps NAME==VERSION``) unpacks into the
project's real code, manifests, license and README. :func:`build` makes it a git repository with a short
history (dated commits by the project's maintainers), once per cache folder. :class:`RealRepo` holds
what is true of it: the license and language as its files say, its dependencies as its manifest
declares them, files it has and files it has not, and the GitHub-only numbers the emulator serves for
it (those are true of this emulated GitHub by construction).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import CommitSpec, make_repo

CACHE = Path(os.environ.get("BENCH_CACHE", Path.home() / ".cache" / "repo-analyst-bench"))
"""Where the corpus's source distributions and built repositories are kept (the benches and tests read it)."""


@dataclass(frozen=True, kw_only=True)
class RealRepo:
    full_name: str
    requirement: str  # NAME==VERSION on the package registry
    folder: str  # the sdist's top folder
    description: str
    license: str  # SPDX id, as the license file says
    language: str
    stars: int
    forks: int
    open_issues: int
    dependencies: tuple[str, ...]  # runtime dependencies, as the manifest declares them
    files: tuple[str, ...]  # files the repository has
    not_files: tuple[str, ...] = ("package.json", "Cargo.toml", "go.mod")  # files it does not have
    created: str = "2010-04-06T12:00:00+00:00"
    last_commit: str = "2024-04-07T12:00:00+00:00"
    topics: tuple[str, ...] = field(default_factory=tuple)


REAL_REPOS: tuple[RealRepo, ...] = (
    RealRepo(
        full_name="pallets/flask",
        requirement="flask==3.0.3",
        folder="flask-3.0.3",
        description="The Python micro framework for building web applications.",
        license="BSD-3-Clause",
        language="Python",
        stars=70312,
        forks=16214,
        open_issues=6,
        dependencies=("werkzeug", "jinja2", "itsdangerous", "click", "blinker"),
        files=("pyproject.toml", "README.md", "LICENSE.txt", "src/flask/app.py", "tests/test_basic.py"),
        topics=("flask", "python", "wsgi", "web-framework"),
    ),
    RealRepo(
        full_name="psf/requests",
        requirement="requests==2.32.3",
        folder="requests-2.32.3",
        description="A simple, yet elegant, HTTP library.",
        license="Apache-2.0",
        language="Python",
        stars=52640,
        forks=9421,
        open_issues=231,
        dependencies=("charset-normalizer", "idna", "urllib3", "certifi"),
        files=(
            "pyproject.toml",
            "setup.py",
            "README.md",
            "LICENSE",
            "src/requests/api.py",
            "tests/test_requests.py",
        ),
        created="2011-02-13T12:00:00+00:00",
        last_commit="2024-05-29T12:00:00+00:00",
        topics=("http", "python", "requests"),
    ),
    RealRepo(
        full_name="pallets/click",
        requirement="click==8.1.7",
        folder="click-8.1.7",
        description="Python composable command line interface toolkit",
        license="BSD-3-Clause",
        language="Python",
        stars=15701,
        forks=1405,
        open_issues=112,
        dependencies=(),
        files=(
            "setup.py",
            "setup.cfg",
            "README.rst",
            "LICENSE.rst",
            "src/click/core.py",
            "tests/test_basic.py",
        ),
        created="2014-04-24T12:00:00+00:00",
        last_commit="2023-08-17T12:00:00+00:00",
        topics=("cli", "click", "python"),
    ),
)


def build(real: RealRepo, cache: Path) -> Path:
    """The git repository of ``real`` under ``cache`` (downloaded and made once, then reused)."""
    repo = cache / "repos" / real.full_name.replace("/", "__")
    if (repo / ".git").is_dir():
        return repo
    sdist = _download(real, cache / "sdists")
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.isfile() and m.name.startswith(real.folder + "/")]
        files = {
            m.name.removeprefix(real.folder + "/"): archive.extractfile(m).read()  # type: ignore[union-attr]
            for m in members
            if "PKG-INFO" not in m.name and ".egg-info/" not in m.name
        }
    first = real.created
    commits = [
        CommitSpec(message=f"Import {real.requirement}", date=first, author_name="Maintainer One"),
        CommitSpec(
            message="Update the changelog",
            files={"CHANGES.md": f"# Changes\n\n{real.requirement}: released.\n"},
            date=real.last_commit,
            author_name="Maintainer Two",
        ),
    ]
    return make_repo(repo, files, commits=commits)


def serve(emu: GitHubEmulator, real: RealRepo, cache: Path) -> None:
    """Serve ``real`` on the emulator with its GitHub-only numbers."""
    emu.add_repo(
        real.full_name,
        build(real, cache),
        description=real.description,
        stars=real.stars,
        forks=real.forks,
        open_issues=real.open_issues,
        topics=real.topics,
        license=real.license,
    )


def _download(real: RealRepo, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    existing = sorted(folder.glob(f"{real.folder}.tar.gz"))
    if existing:
        return existing[0]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-binary",
            ":all:",
            "--no-deps",
            "-d",
            str(folder),
            real.requirement,
        ],
        check=True,
    )
    found = sorted(folder.glob(f"{real.folder}.tar.gz")) or sorted(
        folder.glob(f"{real.folder.lower()}.tar.gz")
    )
    if not found:
        raise FileNotFoundError(f"pip downloaded no {real.folder}.tar.gz into {folder}")
    return found[0]


def download_all(cache: Path) -> None:
    """Every corpus project's source distribution into ``cache`` (CI runs this before the suite, so the
    tests that hold reports against real projects run there; a fresh machine without them skips those)."""
    for real in REAL_REPOS:
        _download(real, cache / "sdists")


if __name__ == "__main__":
    download_all(CACHE)
    print(f"corpus source distributions in {CACHE / 'sdists'}")
