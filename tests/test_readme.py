"""The README a newcomer reads: short, and every Python block in it runs as written.

Each ```python block is run as a person would run it: a script as it stands (``asyncio.run`` and all), a
notebook block (``await`` at the top level) the way IPython runs one. They run against servers on
127.0.0.1 that the test starts, through the environment the blocks read: the GitHub emulator
(``GITHUB_API_URL``) and the scripted model (``LLM_BASE_URL``, ``LLM_MODEL``); ``.`` is a small local git
repository made for the test.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import io
import re
from pathlib import Path

import pytest

from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
FLASK = {"owner": "pallets", "repo": "flask"}


def blocks() -> list[str]:
    return _BLOCK.findall(README.read_text(encoding="utf-8"))


def test_the_readme_is_read_in_two_minutes() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) <= 15_000
    head = text.split("\n## ", 1)[0]
    assert "pip install -r requirements.txt && python app.py" in head
    assert "pip install -r requirements-dev.txt && python -m pytest -n 2 --dist loadgroup" in head
    for provider in ("DeepSeek", "OpenAI", "Hugging Face", "Ollama", "llama.cpp", "vLLM"):
        assert provider in text
    for linked in re.findall(r"\]\((docs/[^)#]+)\)", text):
        assert (ROOT / linked).is_file(), linked
    assert len(blocks()) >= 3


def _run(block: str) -> str:
    """``block`` run as written: as a script, or with top-level ``await`` as a notebook runs it."""
    code = compile(block, "README.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    out = io.StringIO()
    namespace: dict[str, object] = {"__name__": "__main__"}
    with contextlib.redirect_stdout(out):
        result = eval(code, namespace)  # the README's own code, run as its reader would
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    return out.getvalue()


def test_every_python_block_of_the_readme_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = make_repo(
        tmp_path / "widgets",
        {
            "README.md": "# widgets\n\nCounts words.\n",
            "widgets.py": "print(1)\n",
            "tests/test_w.py": "x = 1\n",
        },
    )
    flask = make_repo(
        tmp_path / "flask", {"README.md": "# Flask\n\nA web framework.\n", "flask/app.py": "x = 1\n"}
    )
    monkeypatch.chdir(here)
    monkeypatch.setenv("CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DIAGRAM_FROM_MODEL", "false")
    for name in ("API_KEY", "HF_TOKEN", "GITHUB_TOKEN", "LLM_PROVIDER", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    # the draft judge asks once for reads of the model's own (get_repo_info reads no file); it keeps its report
    report = Turn.final("# pallets/flask\n\nA web framework.\n")
    turns = [Turn.calls(("get_repo_info", FLASK)), report, report]
    with GitHubEmulator() as github, ScriptedModelServer(turns) as model:
        github.add_repo("pallets/flask", flask, description="The Python micro framework.")
        monkeypatch.setenv("GITHUB_API_URL", github.base_url)
        printed = []
        for number, block in enumerate(blocks()):
            if number == 2:  # the own-client block: LLM_BASE_URL + LLM_MODEL alone run the model
                monkeypatch.setenv("LLM_BASE_URL", model.base_url)
                monkeypatch.setenv("LLM_MODEL", "scripted-model")
            printed.append(_run(block))
        model.assert_exhausted()
        asked = [r.decoded_path for r in github.requests]
    script, notebook, own_client = printed[:3]
    assert script.startswith("# ") and "widgets" in script  # the offline report of the checkout
    assert "run_started" in notebook and "run_finished" in notebook
    assert own_client.strip() == "# pallets/flask\n\nA web framework."
    assert any(path.startswith("/repos/pallets/flask") for path in asked)
