"""The hosted-mode security suite: a public Space attacked as a stranger would, everything on 127.0.0.1.

Each test reproduces one attack that once worked against hosted mode (``SPACE_ID`` set) and shows it
refused, mostly against the real app (``testing.app.running_app``) driven by gradio_client or plain HTTP:

1. forged ``X-Forwarded-For`` headers bought no extra runs or tool calls, one visitor could not hold two
   runs, the Space's own hourly caps hold, and a flood of fresh keys cannot evict a known visitor;
2. a visitor's model name never travels with the owner's key;
3. a visitor's base URL never reaches an internal address (literal, ``localhost``, or a name resolved at
   connect time), the endpoint's answers are not echoed, and ``/config`` has no owner endpoint;
4. (``tests/browser/test_hosted_content.py``) no remote image loads and no lookalike link hides its host;
5. a private repository read with one identity is never served from the cache to another, even when the
   upstream sends no ``Vary``, and the owner's token never opens a private repository to a stranger;
6. hostile sizes: 90 MB files, a 300 MB upload, a 200 MB blob behind a symlink, 2 MB of reasoning;
7. local paths are refused when the server listens on a non-loopback address.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpcore2
import httpx
import httpx2
import pytest

from agent_core import events as ev
from agent_core.clock import SystemClock
from agent_core.errors import ConfigurationError, LLMError
from agent_core.event_json import event_to_dict
from agent_core.settings import Settings
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis
from agent_core.web.browser_session import BrowserSession
from agent_core.web.budget import RunBudget, visitor_key
from testing.app import api_client, running_app
from testing.clock import FakeClock
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn
from tests.hosted_helpers import Listener, Stranger, hosted_env, phase
from tests.security_helpers import API_KEY, GITHUB_TOKEN, leaks

pytestmark = [
    # Gradio 6.31 leaks event loops from its server threads and its queue monitor uses pandas options
    # that pandas 3 deprecates; neither is ours (as in tests/test_security_suite.py).
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
]

REAL_A, REAL_B, REAL_C, REAL_D = "198.51.100.7", "198.51.100.8", "198.51.100.9", "198.51.100.10"


@pytest.fixture(autouse=True)
def _no_analytics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")


def settings_from(env: dict[str, str] | Any) -> Settings:
    return Settings.from_env(dict(env), dotenv_path=None)


# -- 1. the run budget ------------------------------------------------------------------------------


def test_forged_forwarded_headers_buy_no_runs_and_the_space_caps_hold(
    sample_repo: Path, tmp_path: Path
) -> None:
    from gradio_client.exceptions import AppError  # type: ignore[import-untyped]

    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", sample_repo)
        emu.limit_unauthenticated = 100_000
        env = hosted_env(emu, None, tmp_path, RUNS_PER_HOUR="1", MAX_TOOL_CALLS="2", SPACE_RUNS_PER_HOUR="3")
        with running_app(settings_from(env)) as url:
            downloads = tmp_path / "downloads"
            # Eight runs, each with a different forged first entry: the proxy's last entry is the same.
            ran = 0
            for i in range(8):
                run = Stranger(url, downloads, real_ip=REAL_A, forged=f"203.0.113.{i}").run("acme/widgets")
                if run["report"].startswith("# "):
                    ran += 1
                else:
                    assert "used its 1 run for this hour" in phase(run["status"]), run["status"]
            print(f"runs allowed with 8 forged X-Forwarded-For headers (RUNS_PER_HOUR=1): {ran}")
            assert ran == 1
            # The public tools too: RUNS_PER_HOUR x MAX_TOOL_CALLS = 2 calls, whatever is forged.
            for i in range(2):
                tool = Stranger(url, downloads, real_ip=REAL_A, forged=f"192.0.2.{i}")
                tool.client.predict("acme/widgets", api_name="/get_languages")
            tool = Stranger(url, downloads, real_ip=REAL_A, forged="192.0.2.99")
            with pytest.raises(AppError, match="used its 2 tool calls for this hour"):
                tool.client.predict("acme/widgets", api_name="/get_languages")
            # The Space's own cap: three owner-paid runs an hour, whoever asks.
            for real in (REAL_B, REAL_C):
                assert Stranger(url, downloads, real_ip=real).run("acme/widgets")["report"].startswith("# ")
            refused = Stranger(url, downloads, real_ip=REAL_D).run("acme/widgets")
            assert "This Space has used its analyses for this hour" in phase(refused["status"])
            # The status line tells a visitor what is left of the budget, never the owner's own quota.
            assert "left this hour" in refused["status"]
            assert "requests left, resets" not in refused["status"]


def test_one_visitor_holds_one_run_at_a_time(sample_repo: Path, tmp_path: Path) -> None:
    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", sample_repo)
        emu.limit_unauthenticated = 100_000
        emu.latency(60.0, r"/git/trees/")  # the first run stays open (until the emulator stops)
        env = hosted_env(emu, None, tmp_path, RUNS_PER_HOUR="10", MAX_CONCURRENT_RUNS="4")
        with running_app(settings_from(env)) as url:
            first = Stranger(url, tmp_path / "d", real_ip=REAL_A, forged="10.9.9.9")
            second = Stranger(url, tmp_path / "d", real_ip=REAL_A, forged="10.8.8.8")
            other = Stranger(url, tmp_path / "d", real_ip=REAL_B)
            job = first.client.submit("acme/widgets", "", api_name="/run_analysis")
            started = threading.Event()
            while not started.wait(0.02):  # a condition, not a duration: the first run is at GitHub
                if emu.in_flight or job.done():
                    started.set()
            assert not job.done()
            refused = second.run("acme/widgets")
            assert "already have an analysis running" in phase(refused["status"]), refused["status"]
            # Another visitor is not held up by it.
            emu.reset_faults()
            assert other.run("acme/widgets")["report"].startswith("# ")
            job.cancel()


def test_a_flood_of_fresh_keys_cannot_evict_a_known_visitor() -> None:
    clock = FakeClock()
    budget = RunBudget(1, clock=clock, max_keys=3)
    assert budget.try_start("ip:198.51.100.7").allowed
    for i in range(50):
        budget.try_start(f"ip:203.0.113.{i}")
    assert not budget.try_start("ip:198.51.100.7").allowed  # still counted: not pushed out
    busy = budget.try_start("ip:203.0.113.200")
    assert busy.busy and not busy.allowed
    clock.advance(3601)
    assert budget.try_start("ip:198.51.100.7").allowed


def test_the_visitor_key_is_the_address_the_proxy_appended() -> None:
    headers = httpx.Headers({"x-forwarded-for": "1.1.1.1, 2.2.2.2, 198.51.100.7"})
    assert visitor_key(headers, "10.0.0.2") == "ip:198.51.100.7"
    assert visitor_key(httpx.Headers({}), "198.51.100.9") == "ip:198.51.100.9"
    # IPv6 per /64: rotating the interface part mints no new visitor.
    a = visitor_key(httpx.Headers({"x-forwarded-for": "2001:db8:1:2::1"}), None)
    b = visitor_key(httpx.Headers({"x-forwarded-for": "2001:db8:1:2:ffff::9"}), None)
    assert a == b == "ip6:2001:db8:1:2::/64"
    assert visitor_key(None, None, "abc") == "session:abc"


async def test_the_space_github_budget_stops_requests(sample_repo: Path, tmp_path: Path) -> None:
    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", sample_repo)
        emu.cache_control = "private, max-age=0"
        settings = settings_from(
            hosted_env(emu, None, tmp_path, GITHUB_TOKEN=GITHUB_TOKEN, SPACE_GITHUB_REQUESTS_PER_HOUR="3")
        )
        services = Services(settings)
        try:
            opened = await open_analysis(services, "acme/widgets", settings=settings)
            events = [e async for e in opened.analysis.run("")]
        finally:
            await services.aclose()
        assert len(emu.requests) <= 3
        errors = [e.error or "" for e in events if isinstance(e, ev.ToolCallFinished) and not e.ok]
        assert any("hourly GitHub budget (3 requests) is used up" in e for e in errors), errors


# -- 2 and 3. the model: the owner's key with the owner's model; no internal endpoint -----------------


def echo_model(body: dict[str, Any]) -> Turn:
    return Turn.final("# acme/widgets\n\nDone.\n", usage=(10, 5))


async def test_a_visitor_model_name_never_travels_with_the_owner_key(
    sample_repo: Path, tmp_path: Path
) -> None:
    with GitHubEmulator() as emu, ScriptedModelServer(responder=echo_model) as model:
        emu.add_repo("acme/widgets", sample_repo)
        base = settings_from(hosted_env(emu, model, tmp_path))
        session = BrowserSession(base, clock=SystemClock())
        session.apply_settings(
            llm_provider="custom",
            llm_model="o1-pro-most-expensive",
            llm_base_url="",
            api_key="",
            github_token="",
        )
        assert session.settings.llm_model == "scripted-model"
        services = Services(base)
        try:
            opened = await open_analysis(services, "acme/widgets", settings=session.settings)
            _ = [e async for e in opened.analysis.run("")]
        finally:
            await services.aclose()
        sent = {(r.body or {}).get("model") for r in model.chat_requests}
        assert sent == {"scripted-model"}
        assert {r.authorization for r in model.chat_requests} == {f"Bearer {API_KEY}"}


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/v1",
        "https://127.0.0.1:{port}/v1",
        "https://10.0.0.7:{port}/v1",
        "https://169.254.169.254/latest",
        "https://[::1]:{port}/v1",
        "https://[::ffff:127.0.0.1]:{port}/v1",
        "https://localhost:{port}/v1",
    ],
)
def test_a_visitor_base_url_on_an_internal_address_is_refused(url: str, tmp_path: Path) -> None:
    with Listener() as internal:
        base = Settings(space_id="someone/space", api_key=API_KEY, cache_dir=tmp_path)
        for key in ("", "sk-visitor-own-key"):
            session = BrowserSession(base, clock=SystemClock())
            with pytest.raises(ConfigurationError):
                session.apply_settings(
                    llm_provider="custom",
                    llm_base_url=url.format(port=internal.port),
                    llm_model="m",
                    api_key=key,
                )
            assert session.settings is base
    assert internal.received == 0


def rebinding(answers: dict[str, list[str]]) -> Any:
    async def resolve(host: str, port: int) -> list[str]:
        return answers[host]

    return resolve


@pytest.mark.parametrize(
    ("host", "answers"),
    [
        ("rebind.test", ["127.0.0.1"]),
        (
            "mixed.test",
            ["93.184.216.34", "10.1.2.3", "::ffff:127.0.0.1"],
        ),  # one public answer vouches for none
        ("localhost", None),  # the system's own resolver
    ],
)
async def test_a_name_that_resolves_inside_is_refused_when_connecting(
    host: str, answers: list[str] | None, tmp_path: Path, sample_repo: Path
) -> None:
    with GitHubEmulator() as emu, Listener() as internal:
        emu.add_repo("acme/widgets", sample_repo)
        resolver = None if answers is None else rebinding({host: answers})
        base = Settings(
            space_id="s/s", github_api_url=emu.base_url, cache_dir=tmp_path / "c", api_key=API_KEY
        )
        # As if the static check had passed (a name it cannot judge): the connection is what is checked.
        visitor = base.with_overrides(
            llm_provider="custom",
            llm_base_url=f"https://{host}:{internal.port}/v1",
            llm_model="m",
            api_key="sk-v",
        )
        services = Services(base, resolver=resolver)
        try:
            opened = await open_analysis(services, "acme/widgets", settings=visitor)
            events = [e async for e in opened.analysis.run("")]
        finally:
            await services.aclose()
        notices = " ".join(e.message for e in events if isinstance(e, ev.Notice))
        assert "the model endpoint is not allowed: it must be https on a public address" in notices
    print(f"bytes the internal listener received ({host}): {internal.received}")
    assert internal.received == 0
    assert internal.connections == 0


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.216.34", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),  # carrier-grade NAT
        ("0.0.0.0", False),
        ("224.0.0.251", False),
        ("240.0.0.1", False),
        ("::1", False),
        ("fe80::1", False),
        ("fd00::1", False),
        ("::ffff:127.0.0.1", False),  # IPv4-mapped
        ("64:ff9b::a01:203", False),  # NAT64 of 10.1.2.3
        ("2002:a01:203::1", False),  # 6to4 of 10.1.2.3
        ("::", False),
    ],
)
def test_only_public_addresses_pass(address: str, public: bool) -> None:
    import ipaddress

    from agent_core.llm.endpoint_guard import is_public

    assert is_public(ipaddress.ip_address(address)) is public


class RecordingBackend(httpcore2.AsyncNetworkBackend):
    """Where the guard asks to connect (and nothing else: it then fails the connection)."""

    def __init__(self) -> None:
        self.hosts: list[str] = []

    async def connect_tcp(self, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        self.hosts.append(host)
        raise httpcore2.ConnectError("recorded")


async def test_a_public_address_is_connected_to_as_checked() -> None:
    """The guard connects to the very address it checked, never to the name (which a second DNS answer
    could point elsewhere); plain http is refused before any connection."""
    from agent_core.llm import guarded_client

    recorder = RecordingBackend()
    client = guarded_client(
        timeout=httpx2.Timeout(2.0),
        resolver=rebinding({"models.visitor.test": ["93.184.216.34"]}),
        inner=recorder,
    )
    try:
        with pytest.raises(httpx2.ConnectError, match="recorded"):
            await client.get("https://models.visitor.test/v1/models")
        with pytest.raises(httpx2.ConnectError, match="https"):
            await client.get("http://models.visitor.test/v1/models")
    finally:
        await client.aclose()
    assert recorder.hosts == ["93.184.216.34"]


def refusing_model(body: dict[str, Any]) -> Turn:
    return Turn(status=403, error_message="INTERNAL-SERVICE-ANSWER admin panel v2, token=abc123")


async def test_an_untrusted_endpoint_errors_are_reported_by_class_without_its_body() -> None:
    from agent_core.llm import OpenAIChatModel, make_openai_client

    with ScriptedModelServer(responder=refusing_model) as server:
        async with httpx2.AsyncClient() as http:
            client = make_openai_client(
                base_url=server.base_url, api_key="sk-v", max_retries=0, http_client=http
            )
            for trusted in (True, False):
                model = OpenAIChatModel(client, model="m", turn_timeout=30.0, max_tokens=256, trusted=trusted)
                with pytest.raises(LLMError) as caught:
                    async for _ in model.stream_turn([{"role": "user", "content": "x"}], tools=None):
                        pass
                echoed = "INTERNAL-SERVICE-ANSWER" in str(caught.value)
                assert echoed is trusted  # the owner's endpoint may explain itself; a stranger's may not
                if not trusted:
                    assert str(caught.value).startswith("the model endpoint refused the request")
                    assert "403" not in str(caught.value)


def test_the_page_config_carries_no_owner_endpoint(sample_repo: Path, tmp_path: Path) -> None:
    with GitHubEmulator() as emu, ScriptedModelServer(responder=echo_model) as model:
        env = hosted_env(emu, model, tmp_path)
        with running_app(settings_from(env)) as url:
            config = httpx.get(url + "config", timeout=10).text
        assert model.base_url not in config
        assert f"127.0.0.1:{model.port}" not in config
        assert leaks({"config": config}) == []


# -- 5. the cache and private repositories --------------------------------------------------------------

PRIVATE_CANARY = "PRIVATE-README-CANARY-77c1"
VISITOR_A_TOKEN = "ghp_VisitorAOwnToken0123456789abcdef0000"


async def test_a_private_answer_is_never_served_to_another_identity_without_vary(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "secret", {"README.md": f"# secret\n{PRIVATE_CANARY}\n"})
    with GitHubEmulator() as emu:
        emu.add_repo("corp/secret", repo, private=True, readers=[VISITOR_A_TOKEN])
        emu.send_vary = False  # a proxy, GHE or emulator that omits Vary: Authorization
        emu.limit_unauthenticated = 100_000
        base = Settings(space_id="s/s", github_api_url=emu.base_url, cache_dir=tmp_path / "cache")
        services = Services(base)
        try:
            a = base.with_overrides(github_token=VISITOR_A_TOKEN)
            opened = await open_analysis(services, "corp/secret", settings=a)
            seen_a = json.dumps([event_to_dict(e) async for e in opened.analysis.run("")])
            assert PRIVATE_CANARY in seen_a  # visitor A may read what their own token opens
            opened = await open_analysis(services, "corp/secret", settings=base)  # visitor B: no token
            seen_b = json.dumps([event_to_dict(e) async for e in opened.analysis.run("")])
        finally:
            await services.aclose()
    assert PRIVATE_CANARY not in seen_b


async def test_the_owner_token_never_opens_a_private_repository_to_a_stranger(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "secret", {"README.md": f"# secret\n{PRIVATE_CANARY}\n"})
    with GitHubEmulator() as emu:
        emu.add_repo("corp/secret", repo, private=True, readers=[GITHUB_TOKEN])
        base = Settings(
            space_id="s/s",
            github_api_url=emu.base_url,
            cache_dir=tmp_path / "cache",
            github_token=GITHUB_TOKEN,
        )
        services = Services(base)
        try:
            opened = await open_analysis(services, "corp/secret", settings=base)
            events = [e async for e in opened.analysis.run("")]
        finally:
            await services.aclose()
        text = json.dumps([event_to_dict(e) for e in events])
        assert PRIVATE_CANARY not in text
        assert "corp/secret is a private repository" in text
        assert "paste your own GitHub token" in text
        contents = [r for r in emu.requests if "/contents/" in r.decoded_path or "/commits" in r.decoded_path]
        assert contents == []  # nothing but the repository's own info was asked for


# -- 7. local paths and the bind address -------------------------------------------------------------------


def test_local_paths_are_refused_on_a_non_loopback_bind(tmp_path: Path) -> None:
    from gradio_client.exceptions import AppError  # type: ignore[import-untyped]

    canary = "LOCAL-BIND-CANARY-31f0"
    local = make_repo(tmp_path / "on-disk", {"README.md": canary})
    settings = Settings.from_env(
        {
            "GRADIO_SERVER_NAME": "0.0.0.0",
            "ALLOW_LOCAL_PATHS": "true",
            "MCP_SERVER": "true",
            "CACHE_DIR": str(tmp_path / "c"),
        },
        dotenv_path=None,
    )
    assert not settings.allow_local_paths
    with running_app(settings) as url:
        client = api_client(url, tmp_path / "d")
        result = client.predict(str(local), "", api_name="/run_analysis")
        assert "Local paths are disabled on this server" in repr(result)
        with pytest.raises(AppError, match="Local paths are disabled"):
            client.predict(str(local), "README.md", api_name="/read_file")
        assert canary not in repr(result)


# -- 6. hostile sizes ----------------------------------------------------------------------------------

MB = 1024 * 1024
HUGE = ("README.md", "pyproject.toml", "package.json", ".github/workflows/ci.yml", "LICENSE")


def huge_text(size: int) -> bytes:
    line = b"x" * 79 + b"\n"
    return line * (size // len(line))


def peak_run(target: str, env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """One analysis in a child process (``testing.peak_run``); its peak RSS and how it ended."""
    root = Path(__file__).resolve().parents[1]
    child_env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PYTHONPATH": str(root)} | env
    done = subprocess.run(
        [sys.executable, "-m", "testing.peak_run", target],
        cwd=cwd,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.slow
def test_a_repository_of_90_mb_files_stays_under_400_mib(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "huge", dict.fromkeys(HUGE, huge_text(90 * MB)), bare=True)
    with GitHubEmulator() as emu:
        emu.add_repo("acme/huge", repo)
        emu.limit_unauthenticated = 100_000
        result = peak_run("acme/huge", dict(hosted_env(emu, None, tmp_path)), tmp_path)
    print(f"peak RSS of one offline run over five 90 MB files: {result['peak_rss_mib']} MiB")
    assert result["finished"]
    assert result["peak_rss_mib"] < 400
    cut = [n for n in result["notes"] if "only the first 2,097,152 were read (MAX_FILE_BYTES)" in n]
    assert len(cut) >= 4, result["notes"]  # README, manifests, CI, LICENSE: each read up to the cap


@pytest.mark.slow
def test_a_200_mb_blob_behind_a_symlink_is_not_read_whole(tmp_path: Path) -> None:
    target = "t" * (200 * MB)
    repo = make_repo(
        tmp_path / "linked.git", {"README.md": "# linked\n"}, symlinks={"big": target}, bare=True
    )
    result = peak_run(str(repo), {"CACHE_DIR": str(tmp_path / "cache")}, tmp_path)
    print(f"peak RSS of one local run with a 200 MB symlink target: {result['peak_rss_mib']} MiB")
    assert result["finished"]
    assert result["peak_rss_mib"] < 400
    assert "t" * (3 * MB) not in " ".join(result["notes"])


def test_a_300_mb_upload_is_refused_while_it_streams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    uploads = tmp_path / "gradio-tmp"
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(uploads))
    big = tmp_path / "big.jsonl"
    with big.open("wb") as handle:
        handle.truncate(300 * MB)  # sparse: costs the test no disk
    with (
        GitHubEmulator() as emu,
        running_app(settings_from(hosted_env(emu, None, tmp_path))) as url,
        big.open("rb") as body,
    ):
        answer = httpx.post(url + "gradio_api/upload", files={"files": ("big.jsonl", body)}, timeout=120)
    on_disk = sum(p.stat().st_size for p in uploads.rglob("*") if p.is_file()) if uploads.exists() else 0
    print(f"bytes on disk after a 300 MB upload: {on_disk:,} (HTTP {answer.status_code})")
    assert answer.status_code in (400, 413)
    assert on_disk <= 5 * MB + 65536


def reasoning_frames(total: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """Characters the page's renderer processed to show ``total`` characters of streamed reasoning,
    one frame (everything the page shows) per 1,000 characters, as a slow endpoint would send them."""
    from agent_core.web import markdown

    rendered = 0
    original = markdown._escape_inline

    def counting(line: str) -> str:
        nonlocal rendered
        rendered += len(line)
        return original(line)

    monkeypatch.setattr(markdown, "_escape_inline", counting)
    session = BrowserSession(Settings(), clock=SystemClock())
    session.start_view(keep_history=False, request="acme/widgets")
    session.observe(ev.TurnStarted(t=0.0, turn=1))
    piece = ("The model keeps thinking about [this](https://example.com/a) and `that`.\n" * 14)[:1000]
    for i in range(total // len(piece)):
        session.observe(ev.ReasoningDelta(t=float(i), turn=1, text=piece))
        session.messages()
        assert session.view is not None
        session.view.report.markdown()
    monkeypatch.undo()
    return rendered


@pytest.mark.untraced
def test_streamed_reasoning_costs_each_frame_what_it_added(monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = reasoning_frames(1 * MB, monkeypatch), reasoning_frames(2 * MB, monkeypatch)
    print(
        f"characters rendered for 1 MB of streamed reasoning: {one:,}; for 2 MB: {two:,} ({two / one:.2f}x)"
    )
    assert two / one < 2.2  # linear (the whole text re-rendered per frame would be 4x)
    assert two < 3 * 2 * MB


async def test_reasoning_kept_per_turn_is_capped(sample_repo: Path, tmp_path: Path) -> None:
    thinking = "I keep thinking. " * (2 * MB // 17)
    with (
        GitHubEmulator() as emu,
        ScriptedModelServer(
            [Turn.final("# acme/widgets\n\nDone.\n", reasoning=thinking, chunk_size=4096, usage=(10, 5))]
        ) as model,
    ):
        emu.add_repo("acme/widgets", sample_repo)
        settings = settings_from(hosted_env(emu, model, tmp_path))
        services = Services(settings)
        try:
            opened = await open_analysis(services, "acme/widgets", settings=settings)
            events = [e async for e in opened.analysis.run("")]
        finally:
            await services.aclose()
    model_turns = {e.turn for e in events if isinstance(e, ev.TurnStarted) and e.purpose == "explore"}
    kept = sum(len(e.text) for e in events if isinstance(e, ev.ReasoningDelta) and e.turn in model_turns)
    print(f"reasoning kept of 2 MB streamed: {kept:,} characters")
    assert kept == settings.reasoning_max_chars
