"""The real-repository benchmark (``python -m bench --only realrepos``): its judge holds a report's
statements against repositories built here (CI cannot fetch the real corpus), and the section runs
end to end on a small repository, skipping what is absent with a reason."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.ledger import Coverage
from bench.config import BenchConfig
from bench.realrepos import CUT_FOLDERS, cut_tree, has_coverage, measure
from bench.realrepos_judge import about_folder, claim_check_errors, judge, names_every_top_folder
from bench.realrepos_truth import Truth
from testing.emulator.gitrepo import CommitSpec, make_repo

ROOT = Path(__file__).resolve().parents[1]
APACHE = (
    "                                 Apache License\n                           Version 2.0, January 2004\n"
)
MIT = "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n"
UNLICENSE = "This is free and unencumbered software released into the public domain.\n"
LINK = "https://github.com/acme/shop/blob/main"


def go_service(root: Path, *, bare: bool = False) -> Path:
    """A Go service with a vendor/ folder (4 of 14 files), Go tests, Apache licence, CI and docs."""
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n\nrequire (\n\tgithub.com/stretchr/testify v1.9.0\n"
        "\tgolang.org/x/text v0.14.0 // indirect\n)\n",
        "main.go": "package main\n\nfunc main() {}\n",
        "internal/store/store.go": "package store\n",
        "internal/store/store_test.go": "package store\n",
        "api/api.go": "package api\n",
        "api/api_test.go": "package api\n",
        "vendor/github.com/stretchr/testify/assert/assertions.go": "package assert\n",
        "vendor/github.com/stretchr/testify/LICENSE": MIT,
        "vendor/golang.org/x/text/doc.go": "package text\n",
        "vendor/modules.txt": "# github.com/stretchr/testify v1.9.0\n",
        "LICENSE": APACHE,
        ".github/workflows/ci.yml": "on: push\n",
        "docs/index.md": "# Shop\n",
        "README.md": "# Shop\n",
    }
    return make_repo(root, files, bare=bare)


def test_true_statements_are_judged_true_and_no_key_fact_is_missing(tmp_path: Path) -> None:
    truth = Truth.read(go_service(tmp_path / "shop"))
    report = (
        "# acme/shop\n\n- Primary language: Go\n- License: Apache-2.0\n\n**Languages:** Go 100.0%\n\n"
        "Files: 14, of which 4 vendored (`vendor/`): 10 are the project's own.\n\n"
        "- `internal/` — 2 files\n- `vendor/` — 4 files — vendored\n"
        "- Tests: `internal/store/store_test.go` and `api/api_test.go` (2 files).\n"
        "Runtime dependencies (1): `github.com/stretchr/testify v1.9.0`; indirect requirements: 1.\n"
        f"CI: GitHub Actions, [`.github/workflows/ci.yml`]({LINK}/.github/workflows/ci.yml). Docs: `docs/`.\n"
    )
    judged = judge(report, truth, "acme/shop")
    assert [s for s in judged.statements if s.verdict is not True] == []
    kinds = {s.kind for s in judged.statements}
    assert kinds >= {
        "language",
        "share",
        "license",
        "files",
        "folder",
        "tests",
        "dependency",
        "dependencies",
        "ci",
    }
    assert judged.missing == ()


def test_seeded_false_numbers_licence_paths_and_dependencies_are_judged_false(tmp_path: Path) -> None:
    """The vendored MIT licence is not the project's; an absent path, a wrong count, an undeclared
    dependency and a stray test folder are false."""
    truth = Truth.read(go_service(tmp_path / "shop"))
    report = (
        "Files: 999\n- License: MIT\n- `internal/` — 7 files\n"
        f"See [`cmd/server/main.go`]({LINK}/cmd/server/main.go) and `src/missing.py`.\n"
        "Dependencies: `left-pad ^1.0`.\n- Primary language: Rust\n"
        "- A tests folder is present: `internal/store/store.go` (1 file).\n"
    )
    judged = judge(report, truth, "acme/shop")
    assert sorted((s.kind, s.text) for s in judged.false) == [
        ("dependency", "left-pad"),
        ("files", "Files: 999"),
        ("folder", "`internal/` — 7 files"),
        ("language", "Rust"),
        ("license", "MIT"),
        ("path", "cmd/server/main.go"),
        ("path", "src/missing.py"),
        ("tests", "- A tests folder is present: `internal/store/store.go` (1 file)."),
    ]


def test_counts_said_to_be_lower_bounds_are_true_when_no_count_is_below_them(tmp_path: Path) -> None:
    """A cut tree's report gives lower bounds: "at least" on the line, or "lower bounds" said once."""
    truth = Truth.read(go_service(tmp_path / "shop"))
    exact = judge("- 14 files in 14 folders\n- 12 files in 14 folders\n", truth, "acme/shop")
    assert [(s.kind, s.verdict) for s in exact.statements] == [
        ("dirs", True),
        ("files", True),
        ("dirs", True),
        ("files", False),
    ]
    bounded = judge(
        "Counts are lower bounds.\n- 12 files in 9 folders\n- 20 files in 9 folders\n", truth, "x/y"
    )
    assert [s.verdict for s in bounded.statements] == [True, True, True, False]
    at_least = judge("- at least 9 files\n- Tests: at least 30 files\n", truth, "x/y")
    assert [(s.kind, s.verdict) for s in at_least.statements] == [
        ("files", True),
        ("tests", False),
        ("files", None),
    ]


def test_ci_said_to_run_the_tests_does_not_say_where_they_are(tmp_path: Path) -> None:
    """The real 1.5B: "The CI configuration is located in the `.github/workflows` directory, which uses
    GitHub Actions to run tests" (true: it runs them; the judge had read it as the tests' place)."""
    truth = Truth.read(go_service(tmp_path / "shop"))
    line = "- The CI configuration is in the `.github/workflows` directory, which uses GitHub Actions to run tests.\n"
    assert [s.verdict for s in judge(line, truth, "acme/shop").statements if s.kind == "tests"] == []
    elsewhere = "- Tests: `docs/` holds them.\n"
    assert [s.verdict for s in judge(elsewhere, truth, "acme/shop").statements if s.kind == "tests"] == [
        False
    ]


def test_missing_key_facts_are_counted(tmp_path: Path) -> None:
    """A report that gives only the total file count of a vendored tree misses its own size, its
    language, tests, CI, licence and docs."""
    truth = Truth.read(go_service(tmp_path / "shop"))
    judged = judge("# acme/shop\n\nFiles: 14.\n", truth, "acme/shop")
    assert judged.missing == ("language", "size (own files)", "tests", "CI", "licence", "docs")
    assert judged.false == ()


def test_what_the_judge_cannot_decide_is_unjudged_and_quotations_are_not_statements(tmp_path: Path) -> None:
    truth = Truth.read(go_service(tmp_path / "shop"))
    report = (
        "The store lives in `store/store.go`.\n\n"  # relative to a folder the report does not say
        '```mermaid\nflowchart LR\n  a["`nowhere/at/all.go`"]\n```\n'
        "Latest commits:\n- 2024-01-15 — Remove `old/thing.py` — Someone\n"
        "> README: see `examples/absent.go`\n"
    )
    judged = judge(report, truth, "acme/shop")
    assert [(s.kind, s.text, s.verdict) for s in judged.statements] == [("path", "store/store.go", None)]
    assert judged.unjudged == 1 and judged.judged == 0


def test_a_dual_licence_makes_either_licence_true_and_the_claim_check_s_cross_is_counted(
    tmp_path: Path,
) -> None:
    files = {
        "COPYING": "This project is dual-licensed under the Unlicense and MIT licenses.\n",
        "LICENSE-MIT": MIT,
        "UNLICENSE": UNLICENSE,
        "Cargo.toml": '[package]\nname = "rg"\nlicense = "Unlicense OR MIT"\n\n[dependencies]\nregex = "1"\n'
        "[target.'cfg(unix)'.dependencies.jemalloc]\nversion = \"0.7\"\n",
        "src/main.rs": "fn main() {}\n",
    }
    truth = Truth.read(make_repo(tmp_path / "rg", files))
    report = (
        "- License: Unlicense\n- A license is declared: MIT.\n- Not a licence we know: Apache-2.0 licence.\n"
    )
    judged = judge(report, truth, "acme/rg")
    assert [(s.text, s.verdict) for s in judged.statements if s.kind == "license"] == [
        ("Unlicense", True),
        ("MIT", True),
        ("Apache-2.0", False),
    ]
    at = report.index("MIT")
    claims = [
        ev.CheckedClaim(
            kind="license", claim="MIT", verdict="contradicted", observed="Unlicense", start=at, end=at + 3
        ),
        ev.CheckedClaim(kind="license", claim="Apache-2.0", verdict="contradicted", start=-1, end=-1),
        ev.CheckedClaim(kind="license", claim="Unlicense", verdict="verified", start=11, end=20),
        # a version the judge does not hold, over the span of a true licence: not counted
        ev.CheckedClaim(kind="version", claim="MIT 2", verdict="contradicted", start=at, end=at + 3),
    ]
    assert claim_check_errors(claims, judged, truth, "acme/rg") == ["license: MIT"]
    # a platform's dependency is a runtime dependency too, named in a TOML table of its own
    deps = judge("Runtime dependencies (2): `regex 1`, `jemalloc 0.7`; `left-pad 1`.\n", truth, "acme/rg")
    assert [(s.kind, s.text, s.verdict) for s in deps.statements] == [
        ("dependencies", "dependencies (2", True),
        ("dependency", "regex", True),
        ("dependency", "jemalloc", True),
        ("dependency", "left-pad", False),
    ]
    # a licence file's name is a path, not a licence statement
    assert [s.kind for s in judge("- license: `LICENSE-MIT`\n", truth, "acme/rg").statements] == ["path"]


def test_package_and_dependency_counts_come_from_the_manifests(tmp_path: Path) -> None:
    files = {
        "package.json": json.dumps(
            {
                "workspaces": ["packages/*"],
                "devDependencies": {"typescript": "5", "vitest": "1", "eslint": "9"},
            }
        ),
        "packages/a/package.json": '{"name": "a", "dependencies": {"debug": "4"}}',
        "packages/a/src/index.ts": "export {}\n",
        "packages/a/tests/index.test.ts": "test()\n",
        "packages/b/package.json": '{"name": "b"}',
        "packages/b/src/index.ts": "export {}\n",
        "LICENSE": MIT,
    }
    truth = Truth.read(make_repo(tmp_path / "mono", files))
    report = "A workspace of 2 packages; development dependencies (3): `typescript ^5`.\nIt has 9 packages.\n"
    judged = judge(report, truth, "acme/mono")
    assert [(s.kind, s.verdict) for s in judged.statements if s.kind in ("packages", "dependencies")] == [
        ("packages", True),
        ("dependencies", True),
        ("packages", False),
    ]
    assert "packages" not in judged.missing
    assert "packages" in judge("# acme/mono\n", truth, "acme/mono").missing


def test_a_subfolder_report_is_about_its_folder_only_when_its_paths_are_there(tmp_path: Path) -> None:
    truth = Truth.read(go_service(tmp_path / "shop"), scope="internal/store")
    inside = judge(
        "`internal/store/store.go`, `store_test.go` (relative to the folder)\n", truth, "acme/shop"
    )
    outside = judge("`main.go`, `api/api.go`, `internal/store/store.go`\n", truth, "acme/shop")
    assert about_folder(inside, "internal/store", same_as_whole=False)
    assert not about_folder(inside, "internal/store", same_as_whole=True)
    assert not about_folder(outside, "internal/store", same_as_whole=False)
    # the repository's CI runs for the folder too: "no CI" about a folder of a repository with CI is false
    assert [
        s.verdict for s in judge("- No CI configuration was found.\n", truth, "acme/shop").statements
    ] == [False]


def test_a_path_climbing_out_of_the_folder_names_the_repository_s_file(tmp_path: Path) -> None:
    """A subfolder report names the repository's CI from its folder (``../../.github/…``): that file."""
    truth = Truth.read(go_service(tmp_path / "shop"), scope="internal/store")
    judged = judge(
        "- Continuous integration is configured: `../../.github/workflows/ci.yml`.\n"
        "- [`../../.github/workflows/ci.yml`](https://github.com/acme/shop/blob/main/internal/store/"
        "../../.github/workflows/ci.yml)\n"
        "- `../../.github/workflows/missing.yml`, `../../../LICENSE`\n",
        truth,
        "acme/shop",
    )
    paths = [(s.text, s.verdict, s.resolved) for s in judged.statements if s.kind == "path"]
    ci = ".github/workflows/ci.yml"
    assert paths == [(f"../../{ci}", True, ci), (f"internal/store/../../{ci}", True, ci)]  # none else true
    assert "CI" not in judged.missing
    assert "CI" in judge("- `store.go`\n", truth, "acme/shop").missing


def test_the_cut_tree_repeats_real_trees_under_top_level_folders(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    go_service(mirror / "docker+cli" / "repo", bare=True)
    make_repo(
        mirror / "typescript-eslint+typescript-eslint" / "repo", {"LICENSE": MIT, "a.ts": ""}, bare=True
    )
    served, reason = cut_tree(mirror, tmp_path / "cut", quick=False)
    assert served is not None, reason
    truth = Truth.read(served.git_dir)
    assert len(truth.top_folders) == CUT_FOLDERS
    assert len(truth.files) == 8 * 2 + 7 * 14 + 2
    named = judge("- `ts-01/` — 2 files\n- `cli-02/` — 14 files\n", truth, "bench/cut-tree")
    complete, missing = names_every_top_folder(named, truth)
    assert not complete and len(missing) == CUT_FOLDERS - 2 and "ts-03" in missing


def test_the_coverage_line_is_read_from_the_run_stats_structure() -> None:
    finished = ev.RunFinished(t=1.0, report="# r\n\nCoverage: 8 of 10 own files read", degraded=False)
    assert not has_coverage([finished])  # the words alone are not a ledger
    ledger = Coverage(repo="o/r", files_read=8, bytes_read=100, own_files=10, own_bytes=900, folders_listed=2)
    with_ledger = ev.RunFinished(t=1.0, report="# r", degraded=False, stats=ev.RunStats(coverage=(ledger,)))
    assert has_coverage(
        [
            ev.RunStarted(t=0.0, run_id="x", targets=("o/r",), question="", model="m", mode="planner"),
            with_ledger,
        ]
    )
    assert not has_coverage([])


def test_the_section_runs_on_a_small_repository_and_skips_what_is_absent(tmp_path: Path) -> None:
    """A Cargo workspace served as BurntSushi/ripgrep: the whole repository and its subfolder URL are
    analysed offline and judged; the other repositories, the sdists and the cut tree are skipped."""
    files = {
        "Cargo.toml": '[package]\nname = "rg"\nlicense = "Unlicense OR MIT"\n\n[workspace]\nmembers = ["crates/*"]\n',
        "LICENSE-MIT": MIT,
        "UNLICENSE": UNLICENSE,
        "README.md": "# rg\n",
        "crates/core/main.rs": "fn main() {}\n",
        "crates/ignore/Cargo.toml": '[package]\nname = "ignore"\n',
        "crates/ignore/src/lib.rs": "pub fn walk() {}\n",
        "crates/ignore/tests/walk.rs": "#[test] fn t() {}\n",
        "crates/cli/Cargo.toml": '[package]\nname = "cli"\n',
        "crates/cli/src/lib.rs": "\n",
        ".github/workflows/ci.yml": "on: push\n",
    }
    mirror = tmp_path / "mirror"
    make_repo(
        mirror / "BurntSushi+ripgrep" / "repo", files, bare=True, commits=[CommitSpec(message="Import")]
    )
    config = replace(BenchConfig().quickened(), mirror=str(mirror))
    section = measure(config, tmp_path / "work")
    assert [(row["repository"], row["target"]) for row in section.table] == [
        ("BurntSushi/ripgrep", "whole"),
        ("BurntSushi/ripgrep", "crates/ignore"),
    ]
    whole = section.table[0]
    assert int(whole["judged"]) > 10 and int(whole["GitHub requests"]) > 0
    skipped = [n for n in section.notes if "skipped" in n]
    assert any(n.startswith("docker/cli: skipped, no git repository at") for n in skipped)
    assert any(n.startswith("psf/requests: skipped in --quick") for n in skipped)
    assert any(n.startswith("bench/cut-tree: skipped") for n in skipped)
    assert len(skipped) == 7 + 2 + 1


@pytest.mark.slow
def test_the_command_line_prints_the_reasons_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "rr.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--only", "realrepos", "--quick", "--markdown",
         "--mirror", str(tmp_path / "none"), "--repos", "sindresorhus/ky", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sindresorhus/ky: skipped, no git repository at" in done.stdout
    assert "docker/cli" not in done.stdout  # --repos chose one repository of the corpus
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["config"]["mirror"] == str(tmp_path / "none")
    assert document["sections"][0]["key"] == "realrepos"
    assert document["sections"][0]["skipped"].startswith("no repository of the corpus is on this machine")
