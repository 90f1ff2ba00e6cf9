"""Record the bundled replay files in ``recordings/`` from real runs against the test emulators.

Nothing here is hand-written JSON: each recording is the event stream of a real analysis, run through
the real core against the GitHub emulator (real git repositories over loopback HTTP) and, for the model
runs, the scripted OpenAI-compatible model server, saved with :func:`agent_core.event_json.dump_events`.

    python scripts/record_demos.py            # rewrites recordings/*.jsonl

Recordings:
  planner-wordstats       the offline planner (no API key) over a small Python project
  model-breaker-recovery  a model run where GitHub misbehaves: a 503 retried, the read_file breaker
                          opening after three failures, the README served stale from the cache, and
                          the breaker recovering through HALF_OPEN on the next call
  comparison-planner      the offline planner comparing two repositories
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent_core import events as ev  # noqa: E402
from agent_core.event_json import dump_events  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.top.services import Services  # noqa: E402
from agent_core.top.wiring import open_analysis  # noqa: E402
from testing.emulator.github import GitHubEmulator  # noqa: E402
from testing.emulator.gitrepo import CommitSpec, make_repo, sample_python_project  # noqa: E402
from testing.emulator.model_server import ScriptedModelServer, Turn  # noqa: E402

logger = logging.getLogger("record_demos")

OUT = ROOT / "recordings"
WORDSTATS = "demo/wordstats"
TEXTKIT = "demo/textkit"
OPEN_SECONDS = 2.0

_REPORT = """# demo/wordstats — repository analysis

## Overview
A small Python library that counts words in text and reports the most frequent ones, with a `click`
command line.

## Tech stack
Python 100%; `pyproject.toml` (setuptools) with `click` and `rich` pinned in `requirements.txt`;
`pytest` for the tests.

## Architecture and structure
One package under `src/pkg/` (`core.py` holds `words`, `count`, `top_words`), tests in `tests/`, docs in
`docs/`, CI in `.github/workflows/ci.yml`.

## Development activity
8 commits by 3 authors over seven weeks in early 2024; the latest is the 0.2.0 release.

## Strengths
- Small, focused API with tests and CI on every push.

## Risks
- The README was served **from the cache** (GitHub answered 503 and the `read_file` breaker opened), so
  it may be slightly out of date.
- Activity stopped after the 0.2.0 release.

## Recommendations
- Add type hints and a changelog; publish releases from CI.
"""


def _turn_index(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


def _model_script(body: dict[str, Any]) -> Turn:
    """Answer by conversation position, so the script survives retries of a turn."""
    owner, repo = WORDSTATS.split("/")
    turn = _turn_index(body)
    pace = {"chunk_size": 6, "delay_per_chunk": 0.03, "latency": 0.5}
    if turn == 0:
        return Turn.calls(
            ("get_repo_info", {"owner": owner, "repo": repo}),
            ("get_file_tree", {"owner": owner, "repo": repo}),
            ("get_commits", {"owner": owner, "repo": repo, "per_page": 30}),
            reasoning="Start with the repository metadata, its whole file tree and the recent history.",
            usage=(1450, 96),
            **pace,
        )
    if turn == 1:
        return Turn.calls(
            ("read_file", {"owner": owner, "repo": repo, "path": "README.md"}),
            reasoning="A Python package with a README; read it to learn what the project is for.",
            usage=(3900, 52),
            **pace,
        )
    if turn == 2:
        return Turn.calls(
            ("read_file", {"owner": owner, "repo": repo, "path": "pyproject.toml"}),
            reasoning="The README came from the cache. Now the build configuration and dependencies.",
            usage=(5200, 60),
            **pace | {"latency": OPEN_SECONDS + 0.5},  # long enough for the breaker's open period to end
        )
    return Turn.final(
        _REPORT,
        reasoning="I have enough to write the report, noting the cached README.",
        usage=(6100, 420),
        chunk_size=24,
        delay_per_chunk=0.02,
        latency=0.6,
    )


async def _record(services: Services, settings: Settings, target: str, question: str, name: str) -> None:
    opened = await open_analysis(services, target, question, settings=settings)
    events: list[ev.Event] = []
    try:
        async for event in opened.analysis.run(question):
            events.append(event)
    finally:
        await opened.aclose()
    OUT.mkdir(exist_ok=True)
    dump_events(events, OUT / f"{name}.jsonl")
    kinds = sorted({e.kind for e in events})
    logger.info("%s: %d events (%s)", name, len(events), ", ".join(kinds))


async def record(tmp: Path) -> None:
    with GitHubEmulator() as emu, ScriptedModelServer(responder=_model_script) as model:
        emu.add_repo(WORDSTATS, sample_python_project(tmp / "wordstats"), description="Count words", stars=42)
        emu.add_repo(
            TEXTKIT,
            make_repo(
                tmp / "textkit",
                {
                    "README.md": "# textkit\n\nText utilities in Rust.\n",
                    "Cargo.toml": '[package]\nname = "textkit"\nversion = "0.3.1"\n\n[dependencies]\nregex = "1"\n',
                    "src/main.rs": 'fn main() {\n    println!("textkit");\n}\n',
                    "LICENSE": "MIT License\n",
                },
                commits=[
                    CommitSpec(message="Initial import", date="2024-03-01T10:00:00+00:00"),
                    CommitSpec(
                        message="Add regex", files={"src/lib.rs": "pub fn x() {}\n"}, date="2024-05-02"
                    ),
                ],
            ),
            description="Text utilities",
            stars=7,
        )
        # Every answer must be revalidated, so faults reach the client while stale copies stay in the cache.
        emu.cache_control = "private, max-age=0"
        emu.latency(0.35)  # about what api.github.com takes, so replays are watchable
        base = Settings(
            github_api_url=emu.base_url, cache_dir=tmp / "cache", breaker_open_seconds=OPEN_SECONDS
        )
        services = Services(base)
        try:
            await _record(services, base, WORDSTATS, "", "planner-wordstats")
            await _record(services, base, f"{WORDSTATS} {TEXTKIT}", "Compare them.", "comparison-planner")
            emu.fail(r"/repos/demo/wordstats/commits", [503])
            emu.fail(re.escape("/repos/demo/wordstats/contents/README.md"), [503] * 4)
            model_settings = base.with_overrides(
                api_key="demo-key",
                llm_provider="custom",
                llm_base_url=model.base_url,
                llm_model="scripted-model",
            )
            await _record(services, model_settings, WORDSTATS, "", "model-breaker-recovery")
        finally:
            await services.aclose()


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for noisy in ("httpx", "httpx2"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(record(Path(tmp)))


if __name__ == "__main__":
    main()
