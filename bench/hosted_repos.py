"""Issue 35's attack classes 1 and 2 served: repositories whose own patterns once bought super-linear work.

Class 1, a ``.gitattributes`` of backtracking patterns (``*a*a*a…*b``) beside file names of 100 ``a``; class
2, a ``package.json`` of 200 workspace globs (``**/a/**/a/**/a/zzN``) over a tree 40 folders deep. Each is
analysed by an attacker (the offline planner: the whole tree, its languages and manifests are read) again
and again while another visitor's page (``GET /config``) is probed and that visitor runs an ordinary
analysis. Then the ordinary analysis is timed alone, started together with two hostile analyses (one
each by two addresses), and beside two attackers analysing back to back (a rate the default budget of
10 runs an hour per visitor does not allow; the bench sets 1,000).

The server runs in this process (:func:`testing.app.running_app`), every client in its own process:
``time.process_time`` of this process over the attackers' runs is the server's CPU per hostile analysis.
The repositories are bare: git's own checkout matches ``.gitattributes`` with a backtracking matcher (a
work tree of the class 1 repository took git minutes to write), and the emulator needs no work tree.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from pathlib import Path

from agent_core.settings import Settings
from bench import hosted_attacks as earlier
from bench.table import Metric
from testing.app import running_app
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo, sample_python_project

ALONE_RUNS = 3  # the ordinary analysis, timed this many times alone and beside the attackers (medians)
COPIES = 40  # of each hostile repository: an attacker analyses a fresh one each time, as forks would be


def attributes_repo(root: Path, copy: int = 0) -> Path:
    """Class 1: 2,000 patterns of 13 stars each (more than the reader keeps) and 200 names of 100 ``a``;
    each ``copy`` is another commit and tree (no cache of an earlier copy's answers serves it)."""
    files = {"README.md": f"# attrs {copy}\n", "src/main.py": "print(1)\n"}
    files[".gitattributes"] = "".join(
        f"*a*a*a*a*a*a*a*a*a*a*a*a*b{i} linguist-vendored\n" for i in range(2000)
    )
    for i in range(200):
        files[f"src/{'a' * 100}{i}/{'a' * 100}.py"] = "x = 1\n"
    return make_repo(root, files, bare=True)


def globs_repo(root: Path, copy: int = 0) -> Path:
    """Class 2: 200 workspace globs ``**/a/**/a/**/a/zzN`` over 300 folders 45 deep (``copy``: as above)."""
    files = {"README.md": f"# globs {copy}\n"}
    globs = [f"**/a/**/a/**/a/zz{i}" for i in range(200)]
    files["package.json"] = json.dumps({"name": "globs", "private": True, "workspaces": globs})
    for i in range(300):
        files["/".join(["a"] * 40) + f"/b{i}/a/a/a/a/index.js"] = "module.exports = 1;\n"
    return make_repo(root, files, bare=True)


def _ordinary(url: str, downloads: Path, runs: int) -> list[float]:
    return [earlier.analysis_seconds(url, "198.51.100.3", downloads) for _ in range(runs)]


def _beside(
    url: str, attackers: list[tuple[str, str]], downloads: Path, runs: int
) -> tuple[float, list[float], int, float, str]:
    """Attackers (address, repository) analysing over and over while the probe samples ``/config`` and
    the ordinary analysis runs ``runs`` times: the probe's worst latency, the ordinary analysis' seconds,
    the attackers' analyses ended, this process's CPU seconds meanwhile and what held its event loop."""
    procs = [earlier.client("analyses", url, address, repo, downloads) for address, repo in attackers]
    for proc in procs:
        assert proc.stdout is not None
        proc.stdout.readline()
    cpu = time.process_time()
    with earlier.LoopWatch() as loop:
        probe = earlier.client("probe", url, "198.51.100.2")
        time.sleep(2.0)  # the attackers' first runs are under way, the probe is sampling
        seconds = _ordinary(url, downloads, runs)
        samples = [float(x) for x in earlier.result(probe)]  # type: ignore[attr-defined]
    done = sum(int(earlier.result(proc, timeout=300)) for proc in procs)  # type: ignore[call-overload]
    return max(samples, default=float("nan")), seconds, done, time.process_time() - cpu, loop.summary()


def _together(url: str, repos: list[str], downloads: Path) -> tuple[float, list[float]]:
    """The ordinary analysis started as two attackers (two addresses) start one analysis each of
    ``repos``: its seconds, and theirs."""
    procs = [
        earlier.client("analysis", url, f"203.0.113.{50 + n}", repo, "", downloads)
        for n, repo in enumerate(repos)
    ]
    for proc in procs:
        assert proc.stdout is not None
        proc.stdout.readline()
    seconds = earlier.analysis_seconds(url, "198.51.100.3", downloads)
    return seconds, [_last_line(proc) for proc in procs]


def _last_line(proc: subprocess.Popen[str]) -> float:
    """A client's result once its first line was read with ``readline`` (``communicate`` reads the pipe
    beneath the reader's buffer, where the rest may already be)."""
    assert proc.stdout is not None
    assert proc.stdin is not None
    proc.stdin.close()
    out = proc.stdout.read()
    proc.wait(timeout=300)
    return float(json.loads(out.strip().splitlines()[-1]))


def _alone_cpu(url: str, repo: str, downloads: Path) -> float:
    """This process's CPU seconds for one analysis of ``repo`` (its first) with nothing else running."""
    cpu = time.process_time()
    earlier.result(earlier.client("analysis", url, "203.0.113.40", repo, "", downloads))
    return time.process_time() - cpu


def _copies(kind: str, part: slice) -> str:
    return ",".join(f"evil/{kind}{copy}" for copy in range(COPIES)[part])


def served_repos(root: Path) -> tuple[list[dict[str, str]], list[Metric], list[str]]:
    rows: list[dict[str, str]] = []
    metrics: list[Metric] = []
    notes: list[str] = []
    downloads = root / "dr"
    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", sample_python_project(root / "widgets-r"))
        for copy in range(COPIES):
            emu.add_repo(f"evil/attrs{copy}", attributes_repo(root / f"attrs{copy}", copy))
            emu.add_repo(f"evil/globs{copy}", globs_repo(root / f"globs{copy}", copy))
        emu.limit_unauthenticated = 1_000_000
        env = {
            "SPACE_ID": "bench/hosted",
            "GITHUB_API_URL": emu.base_url,
            "CACHE_DIR": str(root / "cache-r"),
            "LOG_LEVEL": "ERROR",
            "RUNS_PER_HOUR": "1000",
            "MAX_CONCURRENT_RUNS": "4",
        }
        with running_app(Settings.from_env(env, dotenv_path=None)) as url:
            _ordinary(url, downloads, 1)  # warm: imports, caches, the first session
            alone = _ordinary(url, downloads, ALONE_RUNS)
            for name, kind in (
                ("1: .gitattributes of 2,000 '*a*a…*b' patterns, names of 100 'a'", "attrs"),
                ("2: 200 workspace globs '**/a/**/a/**/a/zzN', a tree 45 deep", "globs"),
            ):
                one = _alone_cpu(url, f"evil/{kind}0", downloads)
                worst, seconds, done, _cpu, late = _beside(
                    url, [("203.0.113.30", _copies(kind, slice(1, 10)))], downloads, 1
                )
                notes.append(f"class {name[0]}: {late}")
                rows.append(
                    {
                        "class": name,
                        "another visitor's /config": f"worst {worst * 1000:.0f} ms",
                        "their analysis": f"{seconds[0]:.2f} s",
                        "the attacker's run": f"{one:.2f} CPU-s each alone, {done} ended meanwhile",
                    }
                )
                metrics.append(
                    Metric(
                        name=f"class {name[0]}: another visitor's worst GET /config",
                        value=round(worst, 3),
                        unit="s",
                        target="<= 0.5 s",
                        met=worst <= 0.5,
                        note=f"one hostile analysis: {one:.2f} CPU-s of the server",
                    )
                )
            alone: list[float] = []
            together: list[float] = []
            hostile: list[float] = []
            for n in range(ALONE_RUNS):  # interleaved: the machine's load drifts alike for both
                alone += _ordinary(url, downloads, 1)
                with_them, theirs = _together(url, [f"evil/attrs{10 + n}", f"evil/globs{10 + n}"], downloads)
                together.append(with_them)
                hostile += theirs
            attackers = [
                ("203.0.113.31", _copies("attrs", slice(20, None))),
                ("203.0.113.32", _copies("globs", slice(20, None))),
            ]
            worst, beside, done, spent, late = _beside(url, attackers, downloads, ALONE_RUNS)
            notes.append(f"classes 1+2, two attackers back to back: {late}")
    alone_s = statistics.median(alone)
    ratio = statistics.median(together) / alone_s
    metrics.append(
        Metric(
            name="classes 1+2: an ordinary analysis started with two hostile ones / alone",
            value=round(ratio, 2),
            unit="x",
            target="<= 1.5",
            met=ratio <= 1.5,
            note=(
                f"medians of {ALONE_RUNS}: {statistics.median(together):.2f} s with them, {alone_s:.2f} s "
                f"alone; the hostile analyses took {min(hostile):.2f}-{max(hostile):.2f} s"
            ),
        )
    )
    sustained = statistics.median(beside) / alone_s
    metrics.append(
        Metric(
            name="classes 1+2: the same beside two attackers analysing back to back / alone",
            value=round(sustained, 2),
            unit="x",
            target="<= 1.5",
            met=sustained <= 1.5,
            note=(
                f"medians of {ALONE_RUNS}: {statistics.median(beside):.2f} s; {done} hostile analyses "
                f"ended meanwhile ({spent:.1f} CPU-s of the server; RUNS_PER_HOUR=1000 here, 10 by default)"
            ),
        )
    )
    metrics.append(
        Metric(
            name="classes 1+2: another visitor's worst GET /config beside two attackers",
            value=round(worst, 3),
            unit="s",
            target="<= 0.5 s",
            met=worst <= 0.5,
        )
    )
    notes.append(
        "classes 1+2 ordinary analysis (s): alone "
        + ", ".join(f"{s:.2f}" for s in alone)
        + "; started with two hostile ones "
        + ", ".join(f"{s:.2f}" for s in together)
        + "; beside two attackers back to back "
        + ", ".join(f"{s:.2f}" for s in beside)
    )
    return rows, metrics, notes
