"""The benchmark still runs with one command: ``python -m bench --quick`` end to end, every section.

Quick mode uses tiny latencies and counts, so this checks that each section measures something and
writes the table, not what the figures are (timings belong in the benchmark's own output, not here).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bench.__main__ import SECTIONS
from bench.realmodel import Truth, judge
from testing.browser import CHROMIUM
from testing.emulator.gitrepo import make_repo
from testing.realrepos import REAL_REPOS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quick_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``python -m bench --quick --markdown`` once for the module's tests."""
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--markdown", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done, json.loads(out.read_text(encoding="utf-8"))


def _missing_prerequisite(key: str) -> str | None:
    """Why a section cannot measure on this machine (it needs Chromium and Playwright), else None."""
    if key != "ui":
        return None
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is missing"
    return None if CHROMIUM.is_file() else f"{CHROMIUM} is missing"


@pytest.mark.slow
def test_quick_benchmark_writes_every_section(
    quick_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    done, document = quick_run
    assert [s["key"] for s in document["sections"]] == list(SECTIONS)
    assert document["config"]["quick"] is True
    assert document["machine"]["cores"] >= 1
    assert "| section | metric | value | target | met |" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("key", list(SECTIONS))
def test_quick_benchmark_section_measures(
    key: str, quick_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]]
) -> None:
    """Each section measures something; a section may skip only when what it needs is truly missing
    here (then this test is skipped with that reason, as on a fresh machine without Chromium)."""
    section = next(s for s in quick_run[1]["sections"] if s["key"] == key)
    missing = _missing_prerequisite(key)
    if missing is not None:
        assert section["skipped"] == missing
        pytest.skip(f"bench section {key!r} skipped: {missing}")
    assert not section["skipped"], section["skipped"]
    assert section["metrics"], key
    for metric in section["metrics"]:
        assert metric["value"] not in ("", None), (key, metric["name"])


def test_unknown_section_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--only", "nonsense", "--out", str(tmp_path / "x.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown section(s) nonsense" in done.stderr
    assert not (tmp_path / "x.json").exists()


def test_the_real_model_judge_holds_claims_against_the_projects_own_files(tmp_path: Path) -> None:
    """The judge counts a development dependency or "README" (for README.rst) as true, and an absent
    dependency or file as false: it judges the project, not the agent's observations."""
    real = replace(REAL_REPOS[0], dependencies=("click",))
    files = {
        "README.rst": "x",
        "LICENSE.txt": "BSD",
        "requirements/dev.txt": "pytest\nsphinx-tabs\n",
        "src/pkg/a.py": "",
    }
    repo = make_repo(tmp_path / "r", files)
    report = (
        "Dependencies: `click`. Development dependencies: `pytest`, `flake8`, `sphinx_tabs`.\n"
        "The `README` explains usage; see `LICENSE` and `src/pkg/` and `docs/index.rst`.\n"
    )
    report += "It was read with `read_file`; the repository `pallets/flask` has the topic `wsgi`.\n"
    judged = judge(report, real, Truth.of(real, repo))
    assert sorted((f.kind, f.value) for f in judged.false) == [
        ("dependency", "flake8"),
        ("path", "docs/index.rst"),
    ]
    assert judged.right == 6
