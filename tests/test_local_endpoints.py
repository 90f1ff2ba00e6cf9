"""A local endpoint in one line: ``LLM_BASE_URL`` and ``LLM_MODEL`` run the model (no provider, no key),
the server's announced window bounds every request, calls go one at a time, the cost line says the
tokens cost nothing, and a run cut by its deadline keeps the tokens the server counted.

The server here is the scripted OpenAI-compatible one on 127.0.0.1, announcing a window as llama.cpp
does and counting tokens more densely than our estimate (a real tokenizer on code and JSON), so an
estimate that is only "close" is not enough: it answers llama.cpp's 400 for a prompt over its window.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agent_core import events as ev
from agent_core.llm import PRESETS, model_configured, resolve_model_config
from agent_core.llm.providers import announced_config
from agent_core.llm.window import Announced, ask_endpoint, observation_chars, reply_tokens
from agent_core.settings import Settings
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis
from agent_core.web.stats import LiveStats
from testing.analysis import Run, make_settings
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn

W = {"owner": "acme", "repo": "widgets"}
REPORT = (
    "# acme/widgets\n\nCounts words; MIT licensed, written in Python. See `pyproject.toml` and "
    "`src/pkg/core.py`.\n"
)


def llama_overflow(requested: int, window: int) -> str:
    """llama.cpp's words for a prompt over its window (type ``exceed_context_size_error``)."""
    return (
        f"request ({requested} tokens) exceeds the available context size ({window} tokens), "
        "try increasing it"
    )


class WindowedServer:
    """What a llama.cpp server with ``-c window`` does with a request: counts its prompt (messages and
    tools) and refuses one that does not fit with llama.cpp's 400; else answers the next scripted turn,
    reporting the prompt tokens it counted."""

    def __init__(self, window: int, turns: list[Turn], chars_per_token: float) -> None:
        self.window = window
        self.chars_per_token = chars_per_token
        self.turns = list(turns)
        self.overflows: list[int] = []
        self.counted: list[int] = []
        self._lock = threading.Lock()

    def route(self, body: dict[str, Any]) -> Turn | None:
        text = json.dumps(body.get("messages")) + json.dumps(body.get("tools") or [])
        tokens = math.ceil(len(text) / self.chars_per_token)
        with self._lock:
            if tokens >= self.window:
                self.overflows.append(tokens)
                return Turn.error(400, llama_overflow(tokens, self.window))
            self.counted.append(tokens)
            if not self.turns:
                return None  # the server's own "no turn left": the test fails on it
            turn = self.turns.pop(0)
        return replace(turn, usage=(tokens, 50))


def windowed(
    window: int, turns: list[Turn], chars_per_token: float = 3.0
) -> tuple[ScriptedModelServer, WindowedServer]:
    counter = WindowedServer(window, turns, chars_per_token)
    return ScriptedModelServer(n_ctx=window, router=counter.route), counter


@pytest.fixture
def big_emulator(sample_repo: Path, tmp_path: Path) -> Iterator[GitHubEmulator]:
    """``acme/widgets`` with a long README and a long module: each read fills the most an observation
    may hold (``READ_FILE_MAX_CHARS``), so a few of them overflow a 4,096-token window."""
    repo = tmp_path / "widgets"
    shutil.copytree(sample_repo, repo)
    prose = "Widgets counts the words of a text, fast, and reports them by frequency and position. "
    (repo / "README.md").write_text("# widgets\n\n" + prose * 150)
    module = "".join(f"def count_{i}(text):\n    return len(text.split()) + {i}\n\n" for i in range(400))
    (repo / "src/pkg/core.py").write_text(module)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "commit", "-qam", "long files"], check=True)
    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", repo, description="Count words, fast.", stars=42, topics=["text"])
        yield emu


def local_settings(
    emulator: GitHubEmulator, tmp_path: Path, server: ScriptedModelServer, **changes: Any
) -> Settings:
    """``LLM_BASE_URL`` and ``LLM_MODEL`` alone: no provider, no key."""
    settings = make_settings(emulator, tmp_path, **changes)
    return settings.with_overrides(llm_base_url=server.base_url, llm_model="local")


async def run_as_the_app(settings: Settings, question: str = "") -> Run:
    """One run built as the app builds it (the model from the settings, the endpoint asked first)."""
    services = Services(settings)
    try:
        opened = await open_analysis(services, "acme/widgets", settings=settings)
        try:
            run = Run(opened=opened)
            await run.ask(question)
            return run
        finally:
            await opened.aclose()
    finally:
        await services.aclose()


# -- the window ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("chars_per_token", [3.0, 2.2, 2.0], ids=["10%", "36%", "50%"])
async def test_a_4096_token_server_gets_at_most_one_context_error_and_the_model_writes_the_report(
    big_emulator: GitHubEmulator, tmp_path: Path, chars_per_token: float
) -> None:
    """The server counts 10% to 50% more tokens than our estimate (its tokenizer, not ours): what it
    announced sizes the reply and each observation, and its one 400, if any, is believed."""
    reads = ["README.md", "pyproject.toml", "src/pkg/core.py", "tests/test_core.py"]
    turns = [Turn.calls(("read_file", {**W, "path": path})) for path in reads] + [Turn.final(REPORT)]
    server, counter = windowed(4096, turns, chars_per_token)
    with server:
        run = await run_as_the_app(local_settings(big_emulator, tmp_path, server, prefetch=True))
        bodies = [r.body for r in server.chat_requests]
    assert len(counter.overflows) <= 1, counter.overflows
    assert run.finished.writer == "model"
    assert not counter.turns  # every scripted turn was asked for: the model read what it chose
    assert {b["max_tokens"] for b in bodies} == {1024}  # a quarter of the window, not LLM_MAX_TOKENS
    assert max(counter.counted) < 4096


# -- one line: the provider from the base URL ----------------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "configured"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://localhost:11434/v1", True),
        (None, False),  # the default provider: it needs a key
        ("", False),
    ],
)
def test_a_base_url_alone_reaches_a_keyless_endpoint(base_url: str | None, configured: bool) -> None:
    assert model_configured(provider=None, api_key=None, hf_token=None, base_url=base_url) is configured
    assert model_configured(provider="deepseek", api_key=None, hf_token=None, base_url=base_url) is False


@pytest.mark.parametrize(
    ("base_url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://10.0.0.7:8000/v1", True),
        ("http://192.168.1.20:1234/v1", True),
        ("http://gpu-box.local:8000/v1", True),
        ("http://localhost:11434/v1", True),  # Ollama by its port
        ("https://llm.example.com/v1", False),
        ("http://8.8.8.8:8000/v1", False),
        ("https://api.deepseek.com", False),
    ],
)
def test_an_endpoint_on_this_machine_or_network_is_local_and_free(base_url: str, local: bool) -> None:
    config = resolve_model_config(provider=None, base_url=base_url, model="m", api_key=None)
    assert config.local is local
    assert (config.price is not None and config.price.local) is local


def test_what_the_endpoint_announces_names_the_server_and_its_window() -> None:
    public = resolve_model_config(
        provider=None, base_url="https://llm.example.com/v1", model="m", api_key=None
    )
    assert (public.provider, public.local) == ("custom", False)
    heard = announced_config(public, server="llamacpp", window=4096, trained=32768)
    assert (heard.provider, heard.local, heard.context_window) == ("llamacpp", True, 4096)
    assert heard.price is not None and heard.price.local
    assert heard.extra_body == dict(PRESETS["llamacpp"].extra_body)  # its prompt cache and progress
    # A server never serves more than the model was trained for; a named provider keeps its own preset.
    assert announced_config(public, server=None, window=None, trained=2048).context_window == 2048
    deepseek = resolve_model_config(provider="deepseek", base_url=None, model=None, api_key="k")
    assert announced_config(deepseek, server=None, window=None, trained=None) == deepseek


def _serving(routes: dict[str, object]) -> httpx2.AsyncClient:
    def answer(request: httpx2.Request) -> httpx2.Response:
        body = routes.get(request.url.path)
        return httpx2.Response(404) if body is None else httpx2.Response(200, json=body)

    return httpx2.AsyncClient(transport=httpx2.MockTransport(answer))


LLAMA_NEW = {"data": [{"id": "local", "owned_by": "llamacpp", "meta": {"n_ctx": 4096, "n_ctx_train": 32768}}]}
LLAMA_OLD = {"data": [{"id": "local", "owned_by": "llamacpp", "meta": {"n_ctx_train": 32768}}]}
PROPS = {"default_generation_settings": {"n_ctx": 4096}}
VLLM = {"data": [{"id": "qwen", "owned_by": "vllm", "max_model_len": 16384}]}
LMSTUDIO = {"data": [{"id": "qwen2.5-7b-instruct", "object": "model", "owned_by": "organization_owner"}]}
HOSTED = {"data": [{"id": "gpt-5-mini", "owned_by": "openai"}]}


@pytest.mark.parametrize(
    ("routes", "expected"),
    [
        ({"/v1/models": LLAMA_NEW}, Announced(window=4096, trained=32768, server="llamacpp")),
        (
            {"/v1/models": LLAMA_OLD, "/props": PROPS},
            Announced(window=4096, trained=32768, server="llamacpp"),
        ),
        ({"/v1/models": LLAMA_OLD}, Announced(window=None, trained=32768, server="llamacpp")),
        ({"/v1/models": VLLM}, Announced(window=16384, server="vllm")),
        ({"/v1/models": LMSTUDIO}, Announced(server="lmstudio")),
        ({"/v1/models": HOSTED}, Announced()),
        ({"/v1/models": ["not", "an", "object"]}, Announced()),
        ({}, Announced()),
    ],
    ids=["llamacpp", "llamacpp-props", "llamacpp-silent", "vllm", "lmstudio", "hosted", "garbage", "404"],
)
async def test_the_endpoint_says_which_server_it_is_and_its_window(
    routes: dict[str, object], expected: Announced
) -> None:
    async with _serving(routes) as http:
        heard = await ask_endpoint(
            http, base_url="http://h:8080/v1", api_key=None, model="m", provider="custom"
        )
    assert heard == expected


@pytest.mark.parametrize(
    "body",
    [
        b'{"data": [{"owned_by": "llamacpp", "pad": "' + b"x" * (5 * 1024 * 1024) + b'"}]}',
        b"[" * 200_000 + b"]" * 200_000,
    ],
    ids=["5-MiB", "nested"],
)
async def test_an_endpoints_answer_is_never_read_whole_nor_parsed_past_its_depth(body: bytes) -> None:
    """The endpoint may be a visitor's: an answer past 4 MiB, or nested past the interpreter's limit,
    is no description (it was read whole and a deep one raised RecursionError out of the run)."""

    def answer(_request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body)

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer)) as http:
        heard = await ask_endpoint(
            http, base_url="http://h:8080/v1", api_key=None, model="m", provider="custom"
        )
    assert heard == Announced()


def test_a_small_window_bounds_the_reply_and_each_observation_a_large_one_does_not() -> None:
    assert reply_tokens(4096, 4096) == 1024
    assert reply_tokens(1_000_000, 4096) == 4096
    assert reply_tokens(4096, 300) == 300
    assert observation_chars(4096, 8000) == 3413
    assert observation_chars(32_768, 8000) == 8000
    assert observation_chars(0, 8000) == 8000  # the window unknown: the setting


# -- local treatment ------------------------------------------------------------------------------------


async def test_a_local_endpoint_gets_one_request_at_a_time_and_costs_nothing(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [Turn.calls(("get_repo_info", W), ("get_file_tree", W)), Turn.final(REPORT)]
    with ScriptedModelServer(
        turns, n_ctx=8192, responder=lambda body: Turn.final("graph TD\n  a --> b")
    ) as server:
        run = await run_as_the_app(local_settings(emulator, tmp_path, server, diagram_from_model=True))
        max_in_flight = server.max_in_flight
    assert run.finished.writer == "model"
    assert max_in_flight == 1  # the diagram, if asked of the model, never beside a turn
    (started,) = run.of(ev.RunStarted)
    assert started.estimate is not None and started.estimate.local
    stats = run.finished.stats
    assert stats.local
    live = LiveStats(estimate=started.estimate)
    assert live.cost("en", mode="model") == "local: no charge"
    assert live.cost_parts("en") == ""
    assert LiveStats(final=stats).cost("zh", mode="model") == "本地：不收费"


@pytest.mark.parametrize(("setting", "local"), [("", True), ("false", False), ("true", True)])
async def test_llm_local_decides_a_models_treatment_when_set(
    setting: str, local: bool, tmp_path: Path
) -> None:
    """A server on loopback is local unless ``LLM_LOCAL=false`` says it holds a large model (then it gets
    the hosted treatment: no time budget for its reads, its report's ✗ claims marked, not set aside)."""
    with ScriptedModelServer([]) as server:
        env = {
            "LLM_BASE_URL": server.base_url,
            "LLM_MODEL": "m",
            "LLM_LOCAL": setting,
            "CACHE_DIR": str(tmp_path),
        }
        settings = Settings.from_env(env, dotenv_path=None)
        services = Services(settings)
        try:
            config = await services.endpoint(settings, services.llm_http)
        finally:
            await services.aclose()
    assert config is not None and config.local is local
