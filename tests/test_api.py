"""The library entry points, in process: analyze, stream_analysis, run_agent and the CLI's main()."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import openai
import pytest

from agent_core import AgentCoreError, analyze, run_agent, stream_analysis
from agent_core import events as ev
from agent_core.top.cli import main as cli_main
from testing.analysis import make_settings
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn

W = {"owner": "acme", "repo": "widgets"}


async def test_analyze_returns_the_report(emulator: GitHubEmulator, tmp_path: Path) -> None:
    report = await analyze("https://github.com/acme/widgets", settings=make_settings(emulator, tmp_path))
    assert report.startswith("# acme/widgets")


async def test_analyze_raises_a_clear_error_when_nothing_can_be_produced(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with pytest.raises(AgentCoreError, match="not found or private"):
        await analyze("acme/missing", settings=make_settings(emulator, tmp_path))


async def test_stream_analysis_reports_bad_input_as_run_failed(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    events = [
        e async for e in stream_analysis("https://gitlab.com/a/b", settings=make_settings(emulator, tmp_path))
    ]
    assert len(events) == 1 and isinstance(events[0], ev.RunFailed)
    assert "Expected a GitHub repository" in events[0].message


async def test_run_agent_keeps_the_original_calling_convention(
    emulator: GitHubEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("DIAGRAM_FROM_MODEL", "false")  # the script has no turn for the diagram's call
    # the draft judge asks once for reads of the model's own (get_repo_info reads no file); it keeps its report
    report = Turn.final("# acme/widgets\n\nA word counter.\n")
    turns = [Turn.calls(("get_repo_info", W)), report, report]
    with ScriptedModelServer(turns) as server:
        llm = openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
        async with httpx.AsyncClient(base_url=emulator.base_url) as http:
            report = await run_agent(llm, http, "Please analyse acme/widgets for me", model="scripted-model")
        await llm.close()
        server.assert_exhausted()
    assert report == "# acme/widgets\n\nA word counter."


async def test_run_agent_takes_the_model_from_the_environment_and_a_local_path_from_the_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``LLM_MODEL`` alone names the model (no ``model=``), and "分析 /path" analyses that local repository:
    the scripted model's only tool call reads the local source, and no GitHub request is made."""
    repo = make_repo(tmp_path / "some" / "local" / "widgets", {"README.md": "# widgets\n\nCounts words.\n"})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LLM_MODEL", "scripted-model")
    monkeypatch.setenv("DIAGRAM_FROM_MODEL", "false")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # nothing listens: a GitHub call would fail
    for name in ("LLM_PROVIDER", "LLM_BASE_URL", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    report = Turn.final("# widgets\n\nCounts words.\n")  # kept when the draft judge asks once more
    turns = [
        Turn.calls(("read_file", {"owner": "local", "repo": "widgets", "path": "README.md"})),
        report,
        report,
    ]
    with ScriptedModelServer(turns) as server:
        llm = openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
        async with httpx.AsyncClient() as http:
            report = await run_agent(llm, http, f"分析 {repo}")
        await llm.close()
        server.assert_exhausted()
        models = {(request.body or {}).get("model") for request in server.chat_requests}
    assert report.startswith("# widgets")
    assert models == {"scripted-model"}


def test_cli_main_in_process(
    emulator: GitHubEmulator,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("API_KEY", "HF_TOKEN", "GITHUB_TOKEN", "LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_API_URL", emulator.base_url)
    monkeypatch.setenv("CACHE_DIR", str(tmp_path / "cache"))
    assert cli_main(["acme/widgets", "--max-turns", "5", "--language", "en"]) == 0
    out = capsys.readouterr().out
    assert "▶ Analysing acme/widgets with offline planner" in out and "✔ done" in out
    assert cli_main(["acme/widgets", "--json", "--offline"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["kind"] == "run_finished" and lines[-1]["stats"]["cache_hits"] > 0
    assert cli_main(["nobody/nothing"]) == 1
    assert "✖" in capsys.readouterr().out
    monkeypatch.setenv("MAX_TURNS", "lots")
    assert cli_main(["acme/widgets"]) == 2
