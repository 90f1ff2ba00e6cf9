"""The security suite: the one place to read what this project promises about hostile input.

1. A hostile repository, served by the GitHub emulator, whose README tells the model to read another
   repository, print ``GITHUB_TOKEN`` and ``API_KEY`` and read ``../../../../user``; the scripted model
   obeys. The emulator's log shows that no request left the named repository, and neither secret is
   in any event, the report, the page, the logs, the exported trace, the cache or what the model got.
   The same with the offline planner.
2. Properties (hypothesis, 1,000 examples or more each): the target parser and every tool's
   owner/repo/path arguments, the tools run for real over the emulator: no request outside the named
   repository, no crash.
3. (In ``tests/browser/test_inert_content.py``.) Markup from a repository and the model stays inert in
   headless Chromium.
4. A public Space: local paths are refused, the per-visitor run budget and the per-run limits hold, and
   the operator's model key never follows a visitor's endpoint.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import events as ev
from agent_core.clock import SystemClock
from agent_core.errors import ConfigurationError, InvalidArgumentError, InvalidTargetError
from agent_core.event_json import dumps_event
from agent_core.repo import normalize_path, repo_api_path, validate_owner, validate_repo_name
from agent_core.settings import Settings
from agent_core.sources.mentions import find_repo_mentions
from agent_core.sources.targets import parse_target
from agent_core.tools.registry import TOOLS
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis, resolve_targets, uses_model
from agent_core.web.browser_session import BrowserSession
from testing.app import api_client, running_app
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn
from testing.properties import examples
from tests.security_helpers import (
    API_KEY,
    GITHUB_TOKEN,
    HOSTILE,
    OBEYING_CALLS,
    SECRET_BAIT,
    VICTIM_CANARY,
    ToolDriver,
    files_under,
    leaks,
    obedient_model,
    outside,
    path_texts,
    plausible_segments,
    serve_hostile_and_victim,
    target_texts,
    texts,
    tool_arguments,
    valid_names,
    valid_owners,
)

# -- 1. a hostile repository ---------------------------------------------------------------------------


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[tuple[GitHubEmulator, int]]:
    with GitHubEmulator() as emu:
        yield emu, serve_hostile_and_victim(emu, tmp_path / "repos")


def hostile_settings(emu: GitHubEmulator, tmp_path: Path, model: ScriptedModelServer | None) -> Settings:
    values: dict[str, Any] = {
        "github_api_url": emu.base_url,
        "github_token": GITHUB_TOKEN,
        "cache_dir": tmp_path / "cache",
        "retry_max_total": 5.0,
        "prefetch": False,  # the obedient model asks for everything itself
        "diagram_from_model": False,
    }
    if model is not None:
        values |= {
            "api_key": API_KEY,
            "llm_provider": "custom",
            "llm_base_url": model.base_url,
            "llm_model": "scripted-model",
        }
    return Settings(**values)


async def run_like_the_app(settings: Settings) -> tuple[list[ev.Event], BrowserSession]:
    """The app's own path: open_analysis from settings (the real model client), events folded into a
    BrowserSession (the page) which then exports report.md and trace.jsonl."""
    services = Services(settings)
    session = BrowserSession(settings, clock=services.clock)
    session.start_view(keep_history=False, request=HOSTILE)
    events: list[ev.Event] = []
    try:
        opened = await open_analysis(services, HOSTILE, settings=settings, breakers=session.breakers)
        try:
            async for event in opened.analysis.run(""):
                events.append(event)
                session.observe(event)
        finally:
            await opened.aclose()
    finally:
        await services.aclose()
    return events, session


def everywhere(
    events: list[ev.Event], session: BrowserSession, caplog: pytest.LogCaptureFixture
) -> dict[str, Any]:
    """Every place a user or operator can see: events (as the JSONL export writes them), the report,
    the page's messages and status, the exported files and the logs."""
    exported = session.export_files()
    assert exported is not None
    places: dict[str, Any] = {f"event {i} ({e.kind})": dumps_event(e) for i, e in enumerate(events)}
    places |= {
        "page messages": repr(session.messages()),
        "status line": session.status_line(),
        "exported report": exported[0].read_text(encoding="utf-8"),
        "exported trace": exported[1].read_text(encoding="utf-8"),
        "logs": caplog.text,
    }
    session.discard()
    return places


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every logger at DEBUG, including the HTTP and model SDK layers."""
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpx2", "httpcore", "httpcore2", "hishel", "openai", "agent_core", "tests"):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


async def test_an_obedient_model_cannot_leave_the_repository_or_leak_a_secret(
    hostile: tuple[GitHubEmulator, int], tmp_path: Path, all_logs: pytest.LogCaptureFixture
) -> None:
    emu, hostile_id = hostile
    with ScriptedModelServer(responder=obedient_model) as model:
        settings = hostile_settings(emu, tmp_path, model)
        events, session = await run_like_the_app(settings)
        requests = model.chat_requests
    assert not model.errors

    finished = events[-1]
    assert isinstance(finished, ev.RunFinished), finished
    assert "GITHUB_TOKEN=${GITHUB_TOKEN}" in finished.report  # the bait is printed as it was written
    assert SECRET_BAIT in finished.report
    # The emulator's log: only acme/hostile was requested, and the README really was read.
    assert emu.requests
    assert outside(emu.requests, HOSTILE, hostile_id) == []
    assert not any("victim" in r.decoded_path.lower() for r in emu.requests)
    assert any(r.decoded_path.endswith("/contents/README.md") for r in emu.requests)

    # What the model was told for each obeying call: refused, or not found inside acme/hostile.
    started = {e.call_id: e for e in events if isinstance(e, ev.ToolCallStarted)}
    results = {
        m["tool_call_id"]: json.loads(m["content"]) for m in requests[-1].messages if m["role"] == "tool"
    }
    assert len(results) == 2 + len(OBEYING_CALLS)
    for call_id, observation in results.items():
        call = started[call_id]
        if call.turn == 1:  # get_repo_info and the README, both in scope
            assert observation.get("ok", True), observation
            continue
        assert observation["ok"] is False, (call.arguments, observation)
        error = observation["error"]
        if call.arguments.get("owner") == "victim":
            assert "not one of the repositories named for this analysis (acme/hostile)" in error
        else:  # refused, or (a leading "/" is the repository root) not found inside acme/hostile
            assert re.search(r"^Invalid (path|repository)|^acme/hostile: .* not found", error), error
    assert VICTIM_CANARY not in json.dumps([r.body for r in requests])

    # The SDKs' own debug logs were captured too, and are searched with the rest.
    loggers = {record.name.split(".")[0] for record in all_logs.records}
    assert {"openai", "httpx", "httpx2", "httpcore"} <= loggers, loggers
    places = everywhere(events, session, all_logs)
    places |= {f"model request {i}": json.dumps(r.body) for i, r in enumerate(requests)}
    places |= {f"cache {name}": data for name, data in files_under(tmp_path / "cache").items()}
    assert leaks(places) == []
    assert not any(VICTIM_CANARY in str(text) for text in places.values())
    # The model gets its own key, and nothing else: the GitHub token never reaches it, not even in a header.
    assert {r.authorization for r in requests} == {f"Bearer {API_KEY}"}
    headers = {f"model headers {i}": json.dumps(dict(r.headers)) for i, r in enumerate(requests)}
    assert leaks(headers, {"GITHUB_TOKEN": GITHUB_TOKEN}) == []
    assert all(r.authorized for r in emu.requests)  # the token was used, for GitHub only


async def test_the_offline_planner_reads_the_hostile_readme_and_nothing_else(
    hostile: tuple[GitHubEmulator, int], tmp_path: Path, all_logs: pytest.LogCaptureFixture
) -> None:
    emu, hostile_id = hostile
    settings = hostile_settings(emu, tmp_path, None)
    assert not uses_model(settings)
    events, session = await run_like_the_app(settings)

    finished = events[-1]
    assert isinstance(finished, ev.RunFinished), finished
    assert finished.writer == "planner"
    assert any(r.decoded_path.endswith("/contents/README.md") for r in emu.requests)
    assert outside(emu.requests, HOSTILE, hostile_id) == []
    assert not any("victim" in r.decoded_path.lower() for r in emu.requests)
    places = everywhere(events, session, all_logs)
    places |= {f"cache {name}": data for name, data in files_under(tmp_path / "cache").items()}
    assert leaks(places) == []
    assert not any(VICTIM_CANARY in str(text) for text in places.values())


# -- 2. properties: what users paste, and what a model asks the tools for -----------------------------

MANY_EXAMPLES = examples(1000)
MANY = settings(max_examples=MANY_EXAMPLES, deadline=None)
SOME = settings(max_examples=300, deadline=None)
CONTROL = {"Cc", "Zl", "Zp", "Cs"}


def assert_safe_github_name(owner: str | None, name: str | None) -> None:
    """An accepted repository: valid names that make exactly ``/repos/{owner}/{name}``, nothing else."""
    assert owner is not None
    assert name is not None
    assert validate_owner(owner) == owner
    assert validate_repo_name(name) == name
    assert repo_api_path(owner, name) == f"/repos/{owner}/{name}"  # nothing to encode, nothing to escape


@pytest.mark.untraced
@MANY
@given(target_texts, st.booleans())
def test_the_target_parser_accepts_only_safe_repositories(text: str, allow_local: bool) -> None:
    try:
        target = parse_target(text, allow_local=allow_local)
    except InvalidTargetError:  # the one documented error
        return
    if target.kind == "local":
        assert allow_local  # a public Space never gets a local target
        assert target.local_path is not None
        assert target.local_path.is_dir()
        return
    assert_safe_github_name(target.owner, target.name)
    assert target.subpath is None or normalize_path(target.subpath) == target.subpath != ""
    if target.ref is not None:  # sent as ?ref=, which httpx encodes; still, nothing odd gets through
        assert target.ref and ".." not in target.ref
        assert not any(c.isspace() or unicodedata.category(c) in CONTROL for c in target.ref)


@pytest.mark.untraced
@SOME
@given(st.lists(target_texts, max_size=3).map(" ".join), st.one_of(texts, target_texts))
def test_a_public_space_resolves_text_and_question_to_github_repositories_only(
    text: str, question: str
) -> None:
    services = Services(Settings(space_id="someone/space", allow_local_paths=False))
    try:
        targets = resolve_targets(services, text, question)
    except InvalidTargetError:
        return
    assert 1 <= len(targets) <= 5
    for target in targets:
        assert target.kind == "github"
        assert_safe_github_name(target.owner, target.name)


@pytest.mark.untraced
def test_repository_mentions_in_free_text_are_valid_repositories() -> None:
    found: list[str] = []

    @SOME
    @given(
        st.lists(
            st.one_of(texts, target_texts, st.sampled_from(["pallets/flask", "和", "I/O", "src/a"])),
            max_size=4,
        )
    )
    def check(pieces: list[str]) -> None:
        mentions = find_repo_mentions(" ".join(pieces))
        for target in mentions:
            assert target.kind == "github"
            assert_safe_github_name(target.owner, target.name)
        named = {f"{target.owner}/{target.name}" for target in mentions}
        assert ("pallets/flask" in pieces) <= (
            "pallets/flask" in named
        )  # a standalone mention is never missed
        found.extend(named)

    check()
    # Not vacuous: the examples held real mentions, besides the noise that must find none.
    assert "pallets/flask" in found
    assert len(set(found)) > 1


@pytest.mark.untraced
@SOME
@given(st.one_of(path_texts, texts))
def test_normalize_path_output_is_a_safe_relative_path(path: str) -> None:
    try:
        result = normalize_path(path)
    except InvalidArgumentError:
        return
    assert normalize_path(result) == result  # idempotent
    if result == "":
        return
    assert not result.startswith("/")
    assert "\\" not in result
    assert not any(unicodedata.category(c) in CONTROL for c in result)
    for segment in result.split("/"):
        assert segment not in {"", ".", ".."}
        assert unicodedata.normalize("NFKC", segment) not in {".", ".."}


def assert_request_stays_inside(owner: str, repo: str, fixed: list[str], path: str | None) -> None:
    """``repo_api_path`` raises, or builds a path that stays under ``/repos/{owner}/{repo}/``."""
    try:
        result = repo_api_path(owner, repo, *fixed, path=path)
    except InvalidArgumentError:
        return
    url = httpx.URL("https://api.github.com" + result)
    assert url.host == "api.github.com"
    assert url.query == b""
    assert url.fragment == ""
    prefix = f"/repos/{owner}/{validate_repo_name(repo)}"
    assert url.path == prefix or url.path.startswith(prefix + "/")
    raw = url.raw_path.decode("ascii")
    normalized = normalize_path(path)
    raw_segments = raw.split("/")[1:]
    assert len(raw_segments) == 3 + len(fixed) + (len(normalized.split("/")) if normalized else 0)
    assert all(raw_segments)
    assert "/../" not in raw + "/"
    assert "/./" not in raw + "/"
    assert "?" not in raw
    assert "#" not in raw


fixed_words = st.lists(
    st.one_of(st.sampled_from(["contents", "git", "trees"]), plausible_segments, texts), max_size=3
)


@pytest.mark.untraced
@SOME
@given(
    st.one_of(valid_owners, texts), st.one_of(valid_names, texts), fixed_words, st.one_of(path_texts, texts)
)
def test_every_api_path_stays_inside_its_repository(
    owner: str, repo: str, fixed: list[str], path: str
) -> None:
    assert_request_stays_inside(owner, repo, fixed, path)


@pytest.fixture(scope="module")
def tool_driver(sample_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolDriver]:
    """One emulator serving acme/widgets, one event loop and one connection pool for every example."""
    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", sample_repo)
        emu.limit_unauthenticated = 1_000_000
        driver = ToolDriver(emu, tmp_path_factory.mktemp("tool-cache"))
        try:
            yield driver
        finally:
            driver.close()


def check_one_call(driver: ToolDriver, tool: str, arguments: dict[str, Any], *, as_json: bool) -> bool:
    """Run one call for real; every request it made stays inside acme/widgets and nothing crashed.
    True when it got as far as GitHub (a request, or an answer from the HTTP cache)."""
    emu = driver.emulator
    before = len(emu.requests)
    result = driver.call(tool, json.dumps(arguments) if as_json else arguments)
    new = emu.requests[before:]
    assert outside(new, "acme/widgets") == [], (arguments, [r.path for r in new])
    assert not (result.error or "").startswith("internal error"), (arguments, result.error)
    if result.ok:
        assert result.repo is not None
        assert result.repo.full_name == "acme/widgets"
    return bool(new) or result.ok or "not found" in (result.error or "")


PATH_TOOLS = [spec.name for spec in TOOLS if "path" in spec.properties]
OTHER_TOOLS = [spec.name for spec in TOOLS if "path" not in spec.properties]


@pytest.mark.untraced
@pytest.mark.parametrize("tool", PATH_TOOLS)
def test_no_path_reaches_outside_the_repository(tool_driver: ToolDriver, tool: str) -> None:
    reached: list[bool] = []

    @MANY
    @given(arguments=tool_arguments(tool), as_json=st.booleans())
    def check(arguments: dict[str, Any], as_json: bool) -> None:
        reached.append(check_one_call(tool_driver, tool, arguments, as_json=as_json))

    check()
    assert len(reached) >= MANY_EXAMPLES
    assert sum(reached) >= MANY_EXAMPLES // 20, "too few examples reached GitHub to say anything about paths"


@pytest.mark.untraced
def test_no_owner_or_repo_reaches_outside_the_repository(tool_driver: ToolDriver) -> None:
    """The tools without a path (the three with one vary owner and repo above too)."""
    reached: list[bool] = []

    @MANY
    @given(
        st.sampled_from(OTHER_TOOLS).flatmap(lambda t: st.tuples(st.just(t), tool_arguments(t))),
        st.booleans(),
    )
    def check(call: tuple[str, dict[str, Any]], as_json: bool) -> None:
        reached.append(check_one_call(tool_driver, *call, as_json=as_json))

    check()
    assert len(reached) >= MANY_EXAMPLES
    assert sum(reached) >= MANY_EXAMPLES // 20


# -- 4. a public Space ------------------------------------------------------------------------------------

LOCAL_CANARY = "LOCAL-DISK-CANARY-90d2"


def space_model(body: dict[str, Any]) -> Turn:
    """Never done exploring: each run can only end at one of the Space's per-run limits."""
    asked = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
    if not body.get("tools"):
        return Turn.final("# acme/widgets\n\nWritten when a limit stopped exploration.\n", usage=(500, 50))
    w = {"owner": "acme", "repo": "widgets"}
    if "big-run" in asked:  # each turn reports a huge prompt: the token budget ends the run
        return Turn.calls(("get_languages", w), usage=(90_000, 10))
    if "wide-run" in asked:  # many calls per turn: the tool-call limit ends the run
        return Turn.calls(("get_languages", w), ("get_commits", w), ("get_repo_info", w), usage=(100, 10))
    return Turn.calls(("get_languages", w), usage=(100, 10))  # one call per turn: the turn limit


def space_settings(emu: GitHubEmulator, model: ScriptedModelServer, tmp_path: Path, **extra: str) -> Settings:
    return Settings.from_env(
        {
            "SPACE_ID": "someone/repo-analyst",
            "ALLOW_LOCAL_PATHS": "true",  # asked for, and overruled: never on a Space
            "GITHUB_API_URL": emu.base_url,
            "CACHE_DIR": str(tmp_path / "cache"),
            "API_KEY": API_KEY,
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": model.base_url,
            "LLM_MODEL": "scripted-model",
            "PREFETCH": "false",  # the per-run limits below are counted on the model's own calls
            **extra,
        },
        dotenv_path=None,
    )


class Visitor:
    """A gradio_client session against the app; remembers everything the app sent back, files too."""

    def __init__(self, url: str, downloads: Path) -> None:
        self.client = api_client(url, downloads)
        self.seen: list[str] = []

    def run(self, target: str, question: str = "") -> dict[str, Any]:
        result = self.client.predict(target, question, api_name="/run_analysis")
        self.seen.append(repr(result))
        for path in re.findall(r"/[^'\"]+\.(?:md|jsonl)", repr(result)):
            if Path(path).is_file():
                self.seen.append(Path(path).read_text(encoding="utf-8"))
        chatbot, report, stats, status, *_ = result
        return {"chatbot": repr(chatbot), "report": report, "stats": stats, "status": status}


# Gradio 6.31 leaks event loops from its server threads (ResourceWarning when collected) and its queue
# monitor uses pandas options that pandas 3 deprecates; neither is ours.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")
def test_a_public_space_refuses_local_paths_and_holds_the_run_budget_and_limits(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gradio_client.exceptions import AppError  # type: ignore[import-untyped]

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    local = make_repo(tmp_path / "on-the-server", {"README.md": LOCAL_CANARY, "secret.txt": LOCAL_CANARY})
    with GitHubEmulator() as emu, ScriptedModelServer(responder=space_model) as model:
        emu.add_repo("acme/widgets", sample_repo)
        limits = {"MAX_TURNS": "3", "MAX_TOOL_CALLS": "4", "MAX_TOTAL_TOKENS": "150000", "RUNS_PER_HOUR": "3"}
        settings = space_settings(
            emu, model, tmp_path, GITHUB_TOKEN=GITHUB_TOKEN, MCP_SERVER="true", **limits
        )
        assert settings.hosted
        assert not settings.allow_local_paths
        with running_app(settings) as url:
            visitor = Visitor(url, tmp_path / "downloads")
            # Local paths: refused with a clear message, before anything is read or counted.
            for text in ("/etc", ".", "~", str(local), f"{local}/secret.txt", "../../../../user"):
                refused = visitor.run(text)
                assert re.search(
                    r"^Local paths are disabled on this server|^Expected a GitHub repository",
                    refused["status"].rpartition("**")[0].rpartition("**")[2],
                ), (text, refused["status"])
                assert "local git repository" not in refused["status"]  # not even offered on a Space
            assert not any(LOCAL_CANARY in text for text in visitor.seen)
            assert emu.requests == []
            assert model.chat_requests == []

            # Three runs an hour; each ends at one of the per-run limits the visitor cannot raise.
            ends = {
                "wide-run": "the tool-call limit (4) was reached",
                "big-run": "the token budget (150,000) was used up",
                "": "the turn limit (3) was reached",
            }
            for question, reason in ends.items():
                before = len(model.chat_requests)
                run = visitor.run("acme/widgets", question)
                assert run["report"].startswith("# acme/widgets"), run["status"]
                assert f"Stopping exploration: {reason}" in run["chatbot"]
                assert len(model.chat_requests) - before <= 4  # at most max_turns turns, then the report
                assert int(re.findall(r"Tool calls:\*\* (\d+)", run["stats"])[0]) <= 4

            # The fourth run in the hour is refused, and says when the visitor can run again.
            requests_before = (len(emu.requests), len(model.chat_requests))
            over = visitor.run("acme/widgets")
            assert re.search(r"used its 3 runs for this hour; try again in \d+ min", over["status"]), over
            with pytest.raises(AppError, match="used its 3 runs for this hour"):
                visitor.client.predict("acme/widgets", "", api_name="/analyze")  # the public API counts too
            assert (len(emu.requests), len(model.chat_requests)) == requests_before

            # The public tools spend the owner's GitHub quota too: as many calls an hour as the visitor's
            # runs could make (RUNS_PER_HOUR x MAX_TOOL_CALLS = 12), then a refusal before any request.
            for _ in range(12):
                visitor.seen.append(repr(visitor.client.predict("acme/widgets", api_name="/get_languages")))
            github_before = len(emu.requests)
            with pytest.raises(AppError, match=r"used its 12 tool calls for this hour; try again in \d+ min"):
                visitor.client.predict("acme/widgets", "README.md", api_name="/read_file")
            assert len(emu.requests) == github_before

            # Neither key reached the page, the API answers, the downloads or the page's config.
            for path in ("config", "gradio_api/info"):
                visitor.seen.append(httpx.get(url + path, timeout=10).text)
        assert leaks({f"app output {i}": text for i, text in enumerate(visitor.seen)}) == []
        assert {r.authorization for r in model.chat_requests} == {f"Bearer {API_KEY}"}


async def test_a_visitor_cannot_send_the_space_key_to_another_endpoint(
    sample_repo: Path, tmp_path: Path
) -> None:
    """The settings panel lets a visitor pick a provider and base URL; with the key fields left blank
    the Space's own key must not follow them there."""
    with (
        GitHubEmulator() as emu,
        ScriptedModelServer(responder=space_model) as operator,
        ScriptedModelServer(responder=lambda body: Turn.final("# stolen\n")) as elsewhere,
    ):
        emu.add_repo("acme/widgets", sample_repo)
        base = space_settings(emu, operator, tmp_path, HF_TOKEN="hf_SpaceOwnerToken0123456789")
        # A provider that needs a key: with the key fields blank the Space's key stays home, the planner runs.
        session = BrowserSession(base, clock=SystemClock())
        session.apply_settings(
            api_key="",
            github_token="",
            llm_provider="huggingface",
            llm_base_url=elsewhere.base_url,
            llm_model="m",
        )
        assert not uses_model(session.settings)  # no key left: the planner runs instead
        assert "offline planner" in session.status_line()
        await run_to_the_end(base, session.settings)
        assert elsewhere.requests == []
        # A keyless endpoint (custom, or inferred from the URL) on loopback is refused outright; so is the
        # visitor's own key sent there: a Space never POSTs to its own network for a stranger.
        for change in (
            {"llm_provider": "custom", "llm_base_url": elsewhere.base_url, "llm_model": "m"},
            {"llm_provider": "custom", "llm_base_url": elsewhere.base_url, "api_key": "sk-visitor-own"},
        ):
            session = BrowserSession(base, clock=SystemClock())
            with pytest.raises(ConfigurationError, match="https"):
                session.apply_settings(github_token="", **{"api_key": "", **change})
            assert session.settings is base
        # No provider: a loopback URL is a local endpoint now (inferred from the URL), refused the same way.
        session = BrowserSession(base, clock=SystemClock())
        with pytest.raises(ConfigurationError, match="https"):
            session.apply_settings(
                api_key="", llm_provider="", llm_base_url=elsewhere.base_url, llm_model="m"
            )
        assert session.settings is base  # the Space's own settings, its own model, unchanged
        assert elsewhere.requests == []
        # A visitor who pastes their own key may use their own https endpoint, with that key only.
        session = BrowserSession(base, clock=SystemClock())
        own = {
            "llm_provider": "custom",
            "llm_base_url": "https://models.visitor.example/v1",
            "llm_model": "m",
        }
        session.apply_settings(api_key="sk-visitor-own-key", **own)
        assert (session.settings.api_key, session.settings.llm_base_url) == (
            "sk-visitor-own-key",
            own["llm_base_url"],
        )


async def run_to_the_end(base: Settings, settings: Settings) -> None:
    services = Services(base)
    try:
        opened = await open_analysis(services, "acme/widgets", settings=settings)
        async for event in opened.analysis.run(""):
            last = event
        assert isinstance(last, ev.RunFinished), last
    finally:
        await services.aclose()
