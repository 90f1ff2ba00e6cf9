"""CPU time of building the repository model over a 100,000-entry tree (best of several runs).

    python scripts/repomodel_cpu.py                         # a synthetic tree of realistic shapes
    python scripts/repomodel_cpu.py --git-dir PATH/.git     # a real repository's tree, repeated to size

Each run starts with Linguist's memos empty (:func:`agent_core.repomodel.places.forget_memos`), as a new
process does, and is then repeated with them full. The synthetic tree mixes the shapes the model must handle: a Go service with ``vendor/`` and
``_test.go`` beside the code, a TypeScript monorepo with ``node_modules/`` and ``*.spec.ts``, a Python
project with ``tests/``, docs and CI. Deterministic: the same tree every run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_core.repomodel import build_repo_model
from agent_core.repomodel.places import forget_memos
from agent_core.sources.models import TreeEntry


def synthetic(size: int) -> list[TreeEntry]:
    paths: list[str] = []
    i = 0
    while len(paths) < size:
        root = f"r{i}"
        paths += [f"{root}/vendor/github.com/org{j % 7}/lib{j % 13}/pkg{j % 5}/f{j}.go" for j in range(400)]
        paths += [f"{root}/internal/svc{j % 20}/h{j}.go" for j in range(120)]
        paths += [f"{root}/internal/svc{j % 20}/h{j}_test.go" for j in range(80)]
        paths += [f"{root}/packages/p{j % 12}/src/m{j}.ts" for j in range(150)]
        paths += [f"{root}/packages/p{j % 12}/src/m{j}.spec.ts" for j in range(60)]
        paths += [f"{root}/packages/p{j % 12}/package.json" for j in range(12)]
        paths += [f"{root}/node_modules/dep{j % 30}/lib/i{j}.js" for j in range(200)]
        paths += [f"{root}/py/tests/test_{j}.py" for j in range(40)] + [
            f"{root}/py/pkg/m{j}.py" for j in range(60)
        ]
        paths += [f"{root}/docs/page{j}.md" for j in range(30)] + [
            f"{root}/.github/workflows/ci{j}.yml" for j in range(3)
        ]
        i += 1
    files = paths[:size]
    dirs = sorted({p.rsplit("/", k)[0] for p in files for k in range(1, p.count("/") + 1)})
    entries = [TreeEntry(path=d, type="dir") for d in dirs] + [
        TreeEntry(path=p, type="file", size=100) for p in files
    ]
    return sorted(entries, key=lambda e: e.path)[:size]


def from_git(git_dir: str, size: int) -> list[TreeEntry]:
    out = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-t", "-l", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    base: list[TreeEntry] = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, _sha, length = meta.split()
        base.append(
            TreeEntry(
                path=path,
                type="dir" if kind == "tree" else "file",
                size=None if length == "-" else int(length),
            )
        )
    entries: list[TreeEntry] = []
    copy = 0
    while len(entries) < size:
        entries += [TreeEntry(path=f"c{copy}/{e.path}", type=e.type, size=e.size) for e in base]
        copy += 1
    return entries[:size]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--git-dir", help="a git directory whose HEAD tree to repeat up to --entries")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    entries = from_git(args.git_dir, args.entries) if args.git_dir else synthetic(args.entries)
    times, warm, floors = [], [], []
    for _ in range(args.runs):
        forget_memos()  # cold: Linguist's answers (go-enry) asked again, as for a new process
        start = time.process_time()
        model = build_repo_model(entries)
        times.append(time.process_time() - start)
        start = time.process_time()
        build_repo_model(entries)
        warm.append(time.process_time() - start)
        start = time.process_time()
        floor(entries)
        floors.append(time.process_time() - start)
    print(
        f"{len(entries):,} entries ({model.files:,} files, {model.own_files:,} own, {model.tests.files:,} tests): "
        f"best {min(times) * 1000:.0f} ms CPU, median {sorted(times)[len(times) // 2] * 1000:.0f} ms over {args.runs} runs "
        f"(Linguist's memos empty; {min(warm) * 1000:.0f} ms with them full); "
        f"{min(times) / min(floors):.1f}x the floor loop ({min(floors) * 1000:.0f} ms: one split and one dict entry per entry)"
    )


def floor(entries: list[TreeEntry]) -> dict[str, str]:
    """The least any one pass in Python costs on this machine now (a shared machine's load shows here)."""
    names: dict[str, str] = {}
    for entry in entries:
        if entry.type != "dir":
            names[entry.path] = entry.path.rpartition("/")[2]
    return names


if __name__ == "__main__":
    main()
