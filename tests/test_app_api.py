"""The app, served for real on 127.0.0.1 and driven through gradio_client and an MCP client.

GitHub is the emulator over real git repositories; the model is the scripted OpenAI-compatible server.
Nothing but loopback is ever contacted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import app as app_module
from agent_core.settings import Settings
from testing.app import api_client, running_app
from testing.clock import HeldWaits
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import sample_python_project
from testing.emulator.model_server import ScriptedModelServer, Turn

# Gradio 6.31 itself leaks event loops (and their self-pipe sockets) from its server and worker threads,
# reported as ResourceWarning when collected, and its queue monitor uses pandas options that pandas 3
# deprecates. Neither comes from this project; everything else still turns into an error.
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
]

REPO = "octo/wordstats"
SECRET_KEY = "sk-test-secret-key-0123456789"
SECRET_TOKEN = "ghp_testSecretToken0123456789"
MODEL_REPORT = "# octo/wordstats\n\nA small word-counting library with tests and CI."


def scripted(body: dict[str, Any]) -> Turn:
    """The model's answer by conversation position (stateless, so concurrent sessions share it)."""
    owner, repo = REPO.split("/")
    turns = sum(1 for m in body["messages"] if m["role"] == "assistant")
    last_user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    if "follow-up" in str(last_user):
        return Turn.final("Follow-up answer: the tests live in `tests/`.", usage=(900, 20))
    if turns == 0:
        return Turn.calls(
            ("get_repo_info", {"owner": owner, "repo": repo}),
            ("read_file", {"owner": owner, "repo": repo, "path": "README.md"}),
            reasoning="Metadata and README first.",
            usage=(1000, 50),
        )
    return Turn.final(MODEL_REPORT, reasoning="Enough to write the report.", usage=(2000, 100))


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitHubEmulator]:
    root = tmp_path_factory.mktemp("repos")
    with GitHubEmulator() as emu:
        emu.add_repo(REPO, sample_python_project(root / "wordstats"), description="Count words")
        emu.limit_unauthenticated = 100_000  # twenty sessions share one loopback IP
        yield emu


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(responder=scripted) as server:
        yield server


@pytest.fixture(autouse=True, scope="module")
def _no_analytics() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        yield


def base_settings(emu: GitHubEmulator, tmp: Path, **changes: Any) -> Settings:
    return Settings(
        github_api_url=emu.base_url,
        cache_dir=tmp / "cache",
        **({"prefetch": False, "diagram_from_model": False} | changes),
    )


def model_settings(emu: GitHubEmulator, model: ScriptedModelServer, tmp: Path, **changes: Any) -> Settings:
    return base_settings(
        emu,
        tmp,
        api_key=SECRET_KEY,
        llm_provider="custom",
        llm_base_url=model.base_url,
        llm_model="scripted-model",
        **changes,
    )


def client(url: str, tmp: Path) -> Any:
    return api_client(url, tmp / "downloads")


def outputs(result: Any) -> dict[str, Any]:
    """The run handler's visible outputs by name (gradio_client leaves the State out)."""
    chatbot, report, stats, status, *_rest = result
    return {"chatbot": chatbot, "report": report, "stats": stats, "status": status}


@pytest.fixture(scope="module")
def model_app(
    emulator: GitHubEmulator, model: ScriptedModelServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("model-app")
    settings = model_settings(
        emulator, model, tmp, github_token=SECRET_TOKEN, mcp_server=True, max_concurrent_runs=20
    )
    with running_app(settings) as url:
        yield url


# -- tests --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def planner_app(emulator: GitHubEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_app(base_settings(emulator, tmp_path_factory.mktemp("planner-app"))) as url:
        yield url


def test_a_served_app_wakes_each_stream_every_two_seconds(planner_app: str) -> None:
    """A hang-up is noticed at a stream's next frame: a quiet run's slot is given back within 2 s, not
    Gradio's 10-15 s (the behaviour itself: test_hosted_safety's hang-up tests)."""
    import gradio.utils

    from agent_core.web.app import HEARTBEAT_INTERVAL_S

    assert gradio.utils.get_heartbeat_rate() == float(HEARTBEAT_INTERVAL_S) == 2.0


def test_offline_planner_analysis_finishes_with_a_report(planner_app: str, tmp_path: Path) -> None:
    result = outputs(client(planner_app, tmp_path).predict(REPO, "", api_name="/run_analysis"))
    assert result["report"].startswith(f"# {REPO}")
    assert "offline planner (no API key)" in result["status"]
    assert "**Done" in result["status"]
    titles = [(m.get("metadata") or {}).get("title") for m in result["chatbot"]]
    assert "🧠 Step 1" in titles
    assert any(str(title).startswith("🔧 read_file · README.md") for title in titles)
    assert "- **Tool calls:**" in result["stats"]


def test_bad_input_is_refused_with_a_clear_message(planner_app: str, tmp_path: Path) -> None:
    result = client(planner_app, tmp_path).predict("not a repository!!", "", api_name="/run_analysis")
    assert "Expected a GitHub repository" in outputs(result)["status"]


def test_model_run_then_follow_up_continues_the_conversation(
    model_app: str, model: ScriptedModelServer, tmp_path: Path
) -> None:
    session = client(model_app, tmp_path)
    first = outputs(session.predict(REPO, "", api_name="/run_analysis"))
    assert first["report"] == MODEL_REPORT.replace("<", "&lt;")
    assert "scripted-model via Custom OpenAI-compatible endpoint" in first["status"]
    assert "GitHub: authenticated" in first["status"]
    before = len(model.chat_requests)
    second = outputs(session.predict("A follow-up: where are the tests?", api_name="/ask_followup"))
    assert second["report"].startswith("Follow-up answer")
    request = model.chat_requests[before]
    roles = [m["role"] for m in request.messages]
    assert roles.count("tool") == 2  # the first run's observations came along
    # the trace keeps the first run above the follow-up
    contents = [str(m.get("content")) for m in second["chatbot"]]
    assert any("A follow-up" in c for c in contents)
    assert any("octo/wordstats" in c for c in contents[:1])


def test_twenty_simultaneous_sessions_all_finish_with_reports(
    model_app: str, model: ScriptedModelServer, emulator: GitHubEmulator, tmp_path: Path
) -> None:
    sessions = [client(model_app, tmp_path / f"s{i}") for i in range(20)]
    reports: list[str | BaseException] = [""] * 20
    start = threading.Barrier(20)

    def run(i: int) -> None:
        try:
            start.wait()
            reports[i] = outputs(sessions[i].predict(REPO, "", api_name="/run_analysis"))["report"]
        except BaseException as exc:  # reported below, with the others
            reports[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(20)]
    # Every model turn is held until two sessions wait for the model at once (proof that they ran side
    # by side), then all are let through.
    held, before = HeldWaits(), (model.waits, model.default_latency)
    model.waits, model.default_latency = held, 1.0
    began = time.monotonic()
    try:
        for thread in threads:
            thread.start()
        side_by_side = held.wait_held(2)
    finally:
        held.open()
        for thread in threads:
            thread.join(timeout=120)
        model.waits, model.default_latency = before
    wall = time.monotonic() - began
    print(f"\n20 simultaneous sessions finished in {wall:.2f}s (model max in flight: {model.max_in_flight})")
    assert all(report == MODEL_REPORT for report in reports), reports
    assert side_by_side, "no two sessions ever waited for the model at the same time"
    assert not model.errors


def test_public_api_analyze_and_tools(model_app: str, tmp_path: Path) -> None:
    session = client(model_app, tmp_path)
    endpoints = set(session.view_api(print_info=False, return_format="dict")["named_endpoints"])
    assert endpoints == {
        "/get_repo_info",
        "/get_file_tree",
        "/list_directory",
        "/read_file",
        "/get_commits",
        "/get_languages",
        "/analyze",
    }
    assert session.predict(REPO, "", api_name="/analyze") == MODEL_REPORT
    languages = session.predict(REPO, api_name="/get_languages")
    assert languages["languages"][0]["language"] == "Python"


async def test_mcp_lists_the_repository_tools_and_analyze_only(model_app: str) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        streamable_http_client(model_app + "gradio_api/mcp/") as (read, write, _),
        ClientSession(read, write) as mcp_session,
    ):
        await mcp_session.initialize()
        tools = {tool.name: tool for tool in (await mcp_session.list_tools()).tools}
        assert set(tools) == {
            "get_repo_info",
            "get_file_tree",
            "list_directory",
            "read_file",
            "get_commits",
            "get_languages",
            "analyze",
        }
        assert "Markdown report" in (tools["analyze"].description or "")
        assert "repository" in tools["read_file"].inputSchema["properties"]
        result = await mcp_session.call_tool("read_file", {"repository": REPO, "path": "README.md"})
        assert not result.isError
        assert "wordstats" in str(result.content)


def test_launch_options_bind_loopback_unless_asked() -> None:
    def bind(env: dict[str, str]) -> str:
        settings = Settings.from_env(env, dotenv_path=None)
        return str(app_module.launch_options(settings)["server_name"])

    assert bind({}) == "127.0.0.1"
    assert bind({"GRADIO_SERVER_NAME": "0.0.0.0"}) == "0.0.0.0"
    assert bind({"HOST": "10.0.0.5"}) == "10.0.0.5"
    assert bind({"SPACE_ID": "me/app"}) == "0.0.0.0"
    local = Settings()
    options = app_module.launch_options(local)
    assert options["max_file_size"] == 5 * 1024 * 1024
    assert options["share"] is False
    assert options["run_history"] is False
    assert options["mcp_server"] is False
