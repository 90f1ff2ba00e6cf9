"""The deterministic writer never contradicts itself, over every repository of the corpus (issue 19).

The corpus is what the app is measured on: the real projects of the real-model benchmark
(:data:`testing.realrepos.REAL_REPOS`, source distributions made git repositories, served by the GitHub
emulator with their GitHub-only numbers) and the emulator's sample project (``acme/widgets``). Each is
written by the deterministic writer the two ways it happens: the offline planner's run (no model), and
the fallback after a model fails once the brief was gathered (the issue's case: the report an MIT/Apache
project got had "MIT" marked false). The app's claim check of its own report finds nothing false.

A project's source distribution comes from the benchmark's cache (``python -m bench --only realmodel``
downloads it; tests never reach the network): absent, its cases are skipped and say why.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_core import events as ev
from bench.realmodel import CACHE
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn
from testing.realrepos import REAL_REPOS, RealRepo, serve

SAMPLE = "acme/widgets"
CORPUS = [*(real.full_name for real in REAL_REPOS), SAMPLE]


def corpus_cache(real: RealRepo, tmp_path: Path) -> Path:
    """A cache folder holding ``real``'s source distribution (copied: the benchmark's cache is left as
    it is), from which :func:`testing.realrepos.serve` builds the repository offline."""
    sdist = CACHE / "sdists" / f"{real.folder}.tar.gz"
    if not sdist.is_file():
        pytest.skip(
            f"{real.requirement} is not in {CACHE / 'sdists'} (python -m bench --only realmodel gets it)"
        )
    (tmp_path / "corpus" / "sdists").mkdir(parents=True)
    shutil.copy(sdist, tmp_path / "corpus" / "sdists")
    return tmp_path / "corpus"


def failing_model(body: object) -> Turn:
    """A model endpoint that refuses every request (not retried: a 400 is the request's fault)."""
    return Turn.error(400, "the model refuses")


@pytest.mark.parametrize("writer", ["planner", "model_failed"])
@pytest.mark.parametrize("name", CORPUS)
async def test_the_deterministic_writers_report_of_every_corpus_repository_has_no_contradicted_claim(
    emulator: GitHubEmulator, tmp_path: Path, name: str, writer: str
) -> None:
    real = next((r for r in REAL_REPOS if r.full_name == name), None)
    if real is not None:
        serve(emulator, real, corpus_cache(real, tmp_path))
    if writer == "planner":
        run = await run_once(make_settings(emulator, tmp_path), target=name)
    else:
        with ScriptedModelServer(responder=failing_model) as server:
            settings = make_settings(emulator, tmp_path, server, prefetch=True)
            run = await run_once(settings, "What is this project?", target=name)

    finished = run.finished
    assert finished.writer == ("fallback" if writer == "model_failed" else "planner")
    check = run.of(ev.ClaimsChecked)[-1]
    assert [(c.claim, c.observed) for c in check.claims if c.verdict == "contradicted"] == []
    assert check.contradicted == 0
    assert check.verified >= 3  # it did say checkable things, and they held
    if real is not None:
        assert real.license in finished.report  # the licence the files say, not a guess
