"""Screenshots of the page in headless Chromium, taken over the in-repo emulators (no network, no keys).

The real app is served on 127.0.0.1 over the GitHub emulator (a real git repository) and the scripted
model server; Debian's Chromium (never ``playwright install``) loads it and an analysis runs. The model's
report is held part-way (:class:`testing.clock.HeldWaits`), so the picture shows a run under way: the
trace, the breaker table (``get_commits`` keeps failing, so its breaker opens) and a partial report.

    python scripts/screenshot.py                          # docs/screenshot.png (1400×1000, mid-run)
    python scripts/screenshot.py --set /tmp/shots/after   # idle, mid-run and done, desktop and phone

``--set`` writes ``<size>-<state>.png`` (the viewport, what a user sees) and ``<size>-<state>-full.png``
(the whole page) for the sizes 1400×1000 and 390×844 and the states idle, running and done.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent_core.settings import Settings  # noqa: E402
from testing.app import running_app  # noqa: E402
from testing.browser import CHROMIUM, CHROMIUM_ARGS, loopback_context  # noqa: E402
from testing.clock import HeldWaits  # noqa: E402
from testing.emulator.github import GitHubEmulator  # noqa: E402
from testing.emulator.gitrepo import make_repo  # noqa: E402
from testing.emulator.model_server import ScriptedModelServer, Turn  # noqa: E402

logger = logging.getLogger("screenshot")

REPO = "acme/wordstats"
R = {"owner": "acme", "repo": "wordstats"}
SIZES = {"desktop": (1400, 1000), "phone": (390, 844)}
PATIENCE_MS = 120_000
# The report streams in chunks of this many characters; the first HELD_CHUNKS reach the page, then the
# model waits until the picture is taken.
CHUNK = 24
HELD_CHUNKS = 40

REPORT = """# acme/wordstats — repository analysis

## Overview
`wordstats` counts and ranks the words of a text: a small, typed Python library with a `click` command
line (`wordstats top README.md`) and no service components ([README](https://github.com/acme/wordstats/blob/main/README.md)).

## Tech stack
Python 3.11+, packaged with `pyproject.toml` (hatchling); `click` for the CLI, `pytest` and `ruff` for
development. No runtime dependency besides `click`.

## Architecture and structure
- `src/wordstats/core.py` — tokenising and counting (`words`, `count`, `top_words`), pure functions.
- `src/wordstats/cli.py` — the `click` entry point; reads files or stdin, prints a table.
- `src/wordstats/formats/` — output formats (plain, JSON, CSV), one module each.
- `tests/` mirrors `src/` one test module per source module; `docs/` holds the user guide.

## Development activity
The commit history could not be read (GitHub answered 503 repeatedly; the breaker opened), so activity
is not assessed here.

## Quality signals
CI runs `ruff` and `pytest` on three Python versions (`.github/workflows/ci.yml`); the package ships
type hints (`py.typed`).

## Risks and open questions
- Unicode word boundaries are ASCII-only in `core.words`.
- No release automation; versions are bumped by hand.
"""


def project_files() -> dict[str, str]:
    """A small but not tiny Python project: enough paths that a tree listing is worth summarising."""
    files = {
        "README.md": "# wordstats\n\nCount and rank the words of a text.\n\n    wordstats top README.md\n",
        "pyproject.toml": '[project]\nname = "wordstats"\nversion = "0.4.0"\ndependencies = ["click"]\n',
        "LICENSE": "MIT License\n",
        ".github/workflows/ci.yml": "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
        "src/wordstats/__init__.py": '__version__ = "0.4.0"\n',
        "src/wordstats/py.typed": "",
        "src/wordstats/core.py": "def words(text: str) -> list[str]:\n    return text.split()\n",
        "src/wordstats/cli.py": "import click\n",
    }
    for name in ("plain", "json", "csv", "markdown", "html"):
        files[f"src/wordstats/formats/{name}.py"] = f"# the {name} format\n"
        files[f"tests/formats/test_{name}.py"] = f"def test_{name}() -> None:\n    pass\n"
    for name in ("core", "cli", "tokenise", "ranking", "stdin", "unicode"):
        files[f"tests/test_{name}.py"] = f"def test_{name}() -> None:\n    pass\n"
    for name in ("index", "install", "usage", "formats", "changelog", "contributing"):
        files[f"docs/{name}.md"] = f"# {name}\n"
    return files


def plan(body: dict[str, Any]) -> Turn:
    """The model's turn by its position in the conversation: structure, then files, then the report."""
    turns = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if turns == 0:
        return Turn.calls(
            ("get_repo_info", R),
            ("get_file_tree", R),
            reasoning="Start with the metadata and the whole file tree in one request each.",
            usage=(1800, 60),
        )
    if turns == 1:
        return Turn.calls(
            ("read_file", R | {"path": "README.md"}),
            ("read_file", R | {"path": "pyproject.toml"}),
            ("get_commits", R),
            reasoning="A src/ layout with tests mirroring it. Read the README, the manifest and the history.",
            usage=(3900, 90),
        )
    return Turn.final(
        REPORT,
        reasoning="Enough gathered: writing the report.",
        chunk_size=CHUNK,
        delay_per_chunk=0.02,
        usage=(5200, 640),
    )


@contextmanager
def served(workdir: Path) -> Iterator[tuple[str, GitHubEmulator, ScriptedModelServer]]:
    """The emulator, the scripted model and the app on loopback ports; yields the app's URL and both."""
    with ExitStack() as stack:
        emu = stack.enter_context(GitHubEmulator())
        model = stack.enter_context(ScriptedModelServer(responder=plan))
        emu.add_repo(
            REPO, make_repo(workdir / "repo", project_files()), description="Count words, fast.", stars=128
        )
        emu.cache_control = "private, max-age=0"  # every run reaches the wire, and the failing commits
        settings = Settings(
            github_api_url=emu.base_url,
            cache_dir=workdir / "cache",
            api_key="screenshot-key",
            llm_provider="custom",
            llm_base_url=model.base_url,
            llm_model="scripted-model",
            prefetch=False,  # the scripted model plans every call itself
            retry_base_delay=0.05,
            retry_max_delay=0.2,
        )
        url = stack.enter_context(running_app(settings))
        yield url, emu, model


def run_states(browser: Any, url: str, emu: GitHubEmulator, model: ScriptedModelServer, size: str) -> Any:
    """A fresh session at ``size``: yields ``(state, page)`` for idle, running (held) and done."""
    width, height = SIZES[size]
    context = loopback_context(browser, viewport={"width": width, "height": height})
    held = model.waits = HeldWaits()
    try:
        page = context.new_page()
        page.set_default_timeout(PATIENCE_MS)
        page.goto(url)
        page.wait_for_selector("#analyze")
        yield "idle", page
        emu.fail(r"/commits", [503] * 16)  # get_commits keeps failing: its breaker opens
        held.release(HELD_CHUNKS)
        page.fill("#target textarea, #target input", f"https://github.com/{REPO}")
        page.fill("#question textarea, #question input", "Is it well structured and maintained?")
        page.click("#analyze")
        page.wait_for_function(
            "() => document.querySelector('#report').innerText.includes('Architecture and structure')"
        )
        held.wait_held(1)
        open_step(page, "Step 2")
        yield "running", page
        held.open()
        page.wait_for_function("() => document.querySelector('#status').innerText.includes('Done')")
        page.wait_for_function("() => !document.querySelector('#trace .loading-spinner')")
        page.wait_for_function("() => !document.querySelector('#analyze').disabled")  # the controls are back
        yield "done", page
    finally:
        held.open()
        emu.reset_faults()
        context.close()


def open_step(page: Any, title: str) -> None:
    """Open a finished step of the trace (Gradio folds them) and scroll the trace, not the page, to it:
    the picture shows its tool calls, their badges and the breaker opening."""
    step = page.locator("#trace .thought-group > .title", has_text=title).first
    step.click()
    page.wait_for_function(
        "t => [...document.querySelectorAll('#trace .thought-group > .title.expanded')]"
        ".some(e => e.innerText.includes(t))",
        arg=title,
    )
    step.evaluate("el => el.scrollIntoView({block: 'nearest'})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "screenshot.png", help="the README picture"
    )
    parser.add_argument("--set", type=Path, dest="folder", help="write every size and state into this folder")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # no calls home
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as tmp,
        served(Path(tmp)) as (url, emu, model),
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for size in SIZES if args.folder else ("desktop",):
                for state, page in run_states(browser, url, emu, model, size):
                    if args.folder is None:
                        if state == "running":
                            args.out.parent.mkdir(parents=True, exist_ok=True)
                            page.screenshot(path=str(args.out))
                            print(args.out)
                        continue
                    args.folder.mkdir(parents=True, exist_ok=True)
                    for suffix, full in (("", False), ("-full", True)):
                        path = args.folder / f"{size}-{state}{suffix}.png"
                        page.screenshot(path=str(path), full_page=full)
                        print(path)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
