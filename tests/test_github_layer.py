"""The GitHub data layer end to end: the real client, cache, sources and tools against the emulator.

Every count below is read from the emulator's request log (what really reached the server).
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import hishel
import httpx
import pytest

from agent_core.errors import NotFoundError, RateLimitError, RedirectRefusedError, TransientError
from agent_core.github.client import GitHubClient
from agent_core.github.http import GitHubHTTP
from agent_core.repo import RepoRef
from agent_core.resilience import BreakerState
from testing.clock import FakeClock, HeldWaits
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import CommitSpec, make_empty_repo, make_repo, tiny_png
from testing.github import WIDGETS, make_http, make_toolbox

ANALYST_SEQUENCE: list[tuple[str, dict[str, Any]]] = [
    ("get_repo_info", {"owner": "acme", "repo": "widgets"}),
    ("list_directory", {"owner": "acme", "repo": "widgets"}),
    ("read_file", {"owner": "acme", "repo": "widgets", "path": "README.md"}),
    ("read_file", {"owner": "acme", "repo": "widgets", "path": "pyproject.toml"}),
    ("get_commits", {"owner": "acme", "repo": "widgets", "per_page": 10}),
]
TOKEN = "ghp_TESTTOKEN0123456789abcdefSECRET"


async def run_sequence(toolbox: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    return [await toolbox.execute(f"c{i}", tool, args) for i, (tool, args) in enumerate(calls)]


async def test_cold_sequence_makes_no_more_requests_than_calls(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    http = make_http(emulator, tmp_path / "cache")
    try:
        toolbox, _, _ = make_toolbox(http)
        results = await run_sequence(toolbox, ANALYST_SEQUENCE)
        assert all(r.ok for r in results), [r.error for r in results]
        assert len(emulator.requests) <= len(ANALYST_SEQUENCE)
        assert sum(r.http_requests for r in results) == len(emulator.requests)
        readme = results[2]
        assert "Count words" in readme.observation.get("text", "") or readme.observation["kind"] == "file"
    finally:
        await http.aclose()


async def test_warm_sequence_with_token_costs_no_rate_limit(emulator: GitHubEmulator, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    http = make_http(emulator, cache)
    try:
        toolbox, _, _ = make_toolbox(http, token=TOKEN)
        await run_sequence(toolbox, ANALYST_SEQUENCE)
        cold = len(emulator.requests)
        emulator.clear_log()
        # A second run (new client, new memo) in the same process, sharing the persistent cache.
        toolbox2, _, _ = make_toolbox(http, token=TOKEN)
        results = await run_sequence(toolbox2, ANALYST_SEQUENCE)
        assert all(r.ok and r.from_cache for r in results)
        counted = [r for r in emulator.requests if r.counted]
        print(f"\ncold: {cold} requests; warm: {len(emulator.requests)} requests, {len(counted)} counted")
        assert counted == []
    finally:
        await http.aclose()


async def test_cache_survives_the_process_and_revalidates_with_etags(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    http = make_http(emulator, cache)
    toolbox, _, _ = make_toolbox(http, token=TOKEN)
    await run_sequence(toolbox, ANALYST_SEQUENCE[:1])
    await http.aclose()
    emulator.clear_log()
    # A new GitHubHTTP over the same folder is a new process as far as the cache is concerned.
    http2 = make_http(emulator, cache)
    try:
        toolbox2, _, _ = make_toolbox(http2, token=TOKEN)
        (result,) = await run_sequence(toolbox2, ANALYST_SEQUENCE[:1])
        assert result.ok and result.from_cache
        assert all(r.status in (None, 304) or not r.counted for r in emulator.requests)
    finally:
        await http2.aclose()


async def test_token_never_reaches_the_cache_file_or_observations(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    http = make_http(emulator, cache)
    try:
        toolbox, _, _ = make_toolbox(http, token=TOKEN)
        results = await run_sequence(toolbox, ANALYST_SEQUENCE)
        assert all(r.authorized for r in emulator.requests)
    finally:
        await http.aclose()
    for file in cache.iterdir():
        assert TOKEN.encode() not in file.read_bytes(), file
    assert all(TOKEN not in r.observation_text() for r in results)


async def test_parallel_identical_requests_are_sent_once(emulator: GitHubEmulator, tmp_path: Path) -> None:
    held = emulator.waits = HeldWaits()
    emulator.latency(0.1, "/contents/README.md")  # held until released: the five calls surely overlap
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http)
        calls = [("read_file", {"owner": "acme", "repo": "widgets", "path": "README.md"})] * 5
        running = asyncio.gather(*(toolbox.execute(f"p{i}", t, a) for i, (t, a) in enumerate(calls)))
        assert await asyncio.to_thread(held.wait_held, 1)
        held.open()
        results = await running
        assert all(r.ok for r in results)
        assert emulator.request_paths().count("/repos/acme/widgets/contents/README.md") == 1
    finally:
        await http.aclose()


async def test_renamed_repository_costs_one_redirect_per_run(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    emulator.rename("acme/widgets", "acme/gadgets")
    http = make_http(emulator, None)
    try:
        toolbox, client, _ = make_toolbox(http)
        results = await run_sequence(toolbox, ANALYST_SEQUENCE)
        assert all(r.ok for r in results), [r.error for r in results]
        redirects = [r for r in emulator.requests if r.status == 301]
        assert len(redirects) == 1
        assert results[0].observation["full_name"] == "acme/gadgets"
        assert results[0].observation["renamed_from"] == "acme/widgets"
        assert client.canonical(WIDGETS).full_name == "acme/gadgets"
        # The new name is in scope too once learned.
        again = await toolbox.execute("n", "get_languages", {"owner": "acme", "repo": "gadgets"})
        assert again.ok
    finally:
        await http.aclose()


async def test_calls_of_one_turn_never_wait_for_the_info_even_of_a_renamed_repository(
    emulator: GitHubEmulator,
) -> None:
    emulator.rename("acme/widgets", "acme/gadgets")
    held = emulator.waits = HeldWaits()
    emulator.latency(0.05)  # every request is held until released
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http)
        calls = [
            ("get_repo_info", {"owner": "acme", "repo": "widgets"}),
            ("get_file_tree", {"owner": "acme", "repo": "widgets"}),
            ("get_commits", {"owner": "acme", "repo": "widgets"}),
            ("read_file", {"owner": "acme", "repo": "widgets", "path": "README.md"}),
        ]
        running = asyncio.gather(*(toolbox.execute(f"p{i}", t, a) for i, (t, a) in enumerate(calls)))
        assert await asyncio.to_thread(held.wait_held, 4)  # all four at GitHub at once: none waits
        held.open()
        results = await running
        assert all(r.ok for r in results), [r.error for r in results]
        assert results[1].observation["ref"] == "main"  # asked at HEAD, named by the info
        # one redirect per call sent before the rename was known, none after
        assert sum(1 for r in emulator.requests if r.status == 301) == 4
        again = await toolbox.execute("n", "get_languages", {"owner": "acme", "repo": "widgets"})
        assert again.ok
        assert sum(1 for r in emulator.requests if r.status == 301) == 4
    finally:
        await http.aclose()


async def test_not_found_is_one_request_and_says_private(emulator: GitHubEmulator) -> None:
    http = make_http(emulator, None)
    try:
        toolbox, _, board = make_toolbox(http, scope=(RepoRef(owner="acme", name="nope"),))
        result = await toolbox.execute("x", "get_repo_info", {"owner": "acme", "repo": "nope"})
        assert not result.ok and not result.degraded
        assert "not found or private" in (result.error or "")
        assert len(emulator.requests) == 1
        assert board.get("github:get_repo_info").snapshot().failures == 0  # a 404 is not a breaker failure
    finally:
        await http.aclose()


async def test_exhausted_primary_limit_fails_fast_with_reset_time(emulator: GitHubEmulator) -> None:
    emulator.exhaust(reset_in=3600)
    http = make_http(emulator, None)
    clock = FakeClock()
    try:
        toolbox, _, board = make_toolbox(http, clock=clock)
        result = await toolbox.execute("x", "get_repo_info", {"owner": "acme", "repo": "widgets"})
        assert clock.sleeps == []  # no waiting for the reset, nor any backoff: it fails at once
        assert not result.ok and result.degraded
        assert "resets at" in result.observation["reason"] and "UTC" in result.observation["reason"]
        assert "GITHUB_TOKEN" in result.observation["hint"]
        assert len(emulator.requests) == 1
        assert board.get("github:get_repo_info").snapshot().state == BreakerState.CLOSED
        # Known exhaustion: the next call does not even spend a request.
        await toolbox.execute("y", "get_languages", {"owner": "acme", "repo": "widgets"})
        assert len(emulator.requests) == 1
    finally:
        await http.aclose()


async def test_secondary_limit_waits_retry_after_then_succeeds(emulator: GitHubEmulator) -> None:
    emulator.secondary_limit("/languages", times=1, retry_after=5)
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http)
        result = await toolbox.execute("x", "get_languages", {"owner": "acme", "repo": "widgets"})
        assert result.ok and result.attempts == 2
        assert [r.status for r in emulator.requests] == [403, 200]
    finally:
        await http.aclose()


async def test_secondary_limit_beyond_budget_fails_fast(emulator: GitHubEmulator) -> None:
    emulator.secondary_limit("/languages", times=1, retry_after=600)
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http)
        result = await toolbox.execute("x", "get_languages", {"owner": "acme", "repo": "widgets"})
        assert result.degraded and "secondary rate limit" in (result.error or "")
        assert len(emulator.requests) == 1
    finally:
        await http.aclose()


async def test_5xx_is_retried_then_succeeds(emulator: GitHubEmulator) -> None:
    emulator.fail("/commits", [502, 503])
    http = make_http(emulator, None)
    try:
        toolbox, _, board = make_toolbox(http)
        result = await toolbox.execute("x", "get_commits", {"owner": "acme", "repo": "widgets"})
        assert result.ok and result.attempts == 3
        assert [r.status for r in emulator.requests] == [502, 503, 200]
        assert board.get("github:get_commits").snapshot().failures == 0
    finally:
        await http.aclose()


class FirstReadTimesOut(httpx.AsyncBaseTransport):
    """The real transport, where the first request whose path ends with ``suffix`` gets a short read
    timeout (the emulator hangs that one, so the timeout is sure to fire) and every other a long one."""

    def __init__(self, suffix: str) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._suffix = suffix
        self._armed = True

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._armed and request.url.path.endswith(self._suffix):
            self._armed = False
            request.extensions["timeout"] = {**request.extensions["timeout"], "read": 0.2}
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


async def test_timeout_and_reset_are_transient(emulator: GitHubEmulator) -> None:
    emulator.hang("/languages", times=1)
    emulator.drop("/commits", times=1)
    http = GitHubHTTP(api_url=emulator.base_url, read_timeout=60.0, transport=FirstReadTimesOut("/languages"))
    try:
        toolbox, _, _ = make_toolbox(http)
        langs = await toolbox.execute("a", "get_languages", {"owner": "acme", "repo": "widgets"})
        commits = await toolbox.execute("b", "get_commits", {"owner": "acme", "repo": "widgets"})
        assert langs.ok and langs.attempts == 2
        assert commits.ok and commits.attempts == 2
        assert emulator.in_flight == 1  # the hung first attempt, logged only once stop() ends it
        assert [r.status for r in emulator.requests if r.path.endswith("/languages")] == [200]
    finally:
        await http.aclose()


async def test_breaker_opens_per_tool_then_stale_fallback(emulator: GitHubEmulator, tmp_path: Path) -> None:
    emulator.cache_control = "private, max-age=0"  # every cached answer must be revalidated
    http = make_http(emulator, tmp_path / "cache")
    try:
        toolbox, _, board = make_toolbox(http)
        first = await toolbox.execute("warm", "get_languages", {"owner": "acme", "repo": "widgets"})
        assert first.ok
        # A new run (no memo) while GitHub fails: retries, then the breaker opens, then stale data.
        toolbox2, _, board2 = make_toolbox(http)
        emulator.fail("/languages", [503] * 10)
        emulator.fail("/git/trees", [503] * 10)
        result = await toolbox2.execute("x", "get_languages", {"owner": "acme", "repo": "widgets"})
        assert result.ok and result.stale
        assert result.observation["stale"] is True and "age_seconds" in result.observation
        assert board2.get("github:get_languages").snapshot().state == BreakerState.OPEN
        assert board2.get("github:get_repo_info").snapshot().state == BreakerState.CLOSED
        sent = len(emulator.requests)
        refused = await toolbox2.execute("y", "get_languages", {"owner": "acme", "repo": "widgets"})
        assert refused.stale and len(emulator.requests) == sent  # open: no request reaches GitHub
        # Nothing cached for the tree: a structured degraded result.
        tree = await toolbox2.execute("z", "get_file_tree", {"owner": "acme", "repo": "widgets"})
        assert tree.degraded and tree.observation["ok"] is False and tree.observation["hint"]
        assert board.get("github:get_languages").snapshot().state == BreakerState.CLOSED  # other session
    finally:
        await http.aclose()


async def test_redirect_to_another_host_is_refused(emulator: GitHubEmulator) -> None:
    emulator.redirect_elsewhere("/languages", "https://evil.example/steal")
    http = make_http(emulator, None)
    try:
        toolbox, client, _ = make_toolbox(http)
        with pytest.raises(RedirectRefusedError):
            await client.get_repo(WIDGETS, "languages")
        assert all("evil" not in r.path for r in emulator.requests)
        del toolbox
    finally:
        await http.aclose()


async def test_out_of_scope_repository_is_refused_without_request(emulator: GitHubEmulator) -> None:
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http)
        result = await toolbox.execute(
            "x", "read_file", {"owner": "torvalds", "repo": "linux", "path": "README"}
        )
        assert not result.ok and "not one of the repositories named" in (result.error or "")
        assert emulator.requests == []
    finally:
        await http.aclose()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('{"owner": "acme", "repo": "widgets", "path": ', "not valid JSON"),
        ('{"owner": "acme"}', "needs repo"),
        ('{"owner": "acme", "repo": "widgets", "path": "../../etc/passwd"}', ".."),
        ('{"owner": "acme", "repo": "widgets", "path": "a", "color": "red"}', "does not take color"),
        ('{"owner": "acme", "repo": "widgets", "path": "README.md", "start_line": "x"}', "integer"),
        # JSON allows 1e999, which Python parses as infinity (found by the security suite's hypothesis run)
        ('{"owner": "acme", "repo": "widgets", "path": "README.md", "start_line": 1e999}', "integer"),
        ('{"owner": "acme", "repo": "widgets", "path": "README.md", "start_line": NaN}', "integer"),
    ],
)
async def test_bad_arguments_become_observations(
    emulator: GitHubEmulator, arguments: str, message: str
) -> None:
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http)
        result = await toolbox.execute("x", "read_file", arguments)
        assert not result.ok and message in (result.error or "")
        assert emulator.requests == []
    finally:
        await http.aclose()


async def test_unknown_tool_is_an_observation(emulator: GitHubEmulator) -> None:
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http)
        result = await toolbox.execute("x", "delete_repo", "{}")
        assert not result.ok and "unknown tool" in (result.error or "")
    finally:
        await http.aclose()


# --- content edge cases ----------------------------------------------------------------------------


@pytest.fixture
def edge_repo(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = {
        "README.md": "# Edge\n\nEdge cases.\n",
        "big.txt": "".join(f"line {i} " + "x" * 80 + "\n" for i in range(2000)),
        "logo.png": tiny_png(),
        "blob.bin": bytes(range(256)) * 8,
        "src/main.rs": "fn main() {}\n",
    }
    files.update({f"many/f{i:04d}.txt": f"{i}\n" for i in range(1100)})
    return make_repo(
        tmp_path / "edge",
        files,
        commits=[
            CommitSpec(message="init", author_name="A", author_email="a@x", date="2024-03-01T10:00:00+00:00")
        ],
        symlinks={"link-out": "../outside", "link-in": "README.md"},
        submodules={"vendor/lib": ("https://github.com/acme/lib.git", "a" * 40)},
    )


async def test_content_edge_cases(emulator: GitHubEmulator, edge_repo: Path, tmp_path: Path) -> None:
    emulator.add_repo("acme/edge", edge_repo)
    emulator.max_inline_size = 50_000  # big.txt (~180 kB) takes the 1-100 MB path
    edge = RepoRef(owner="acme", name="edge")
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http, scope=(edge,))

        async def call(tool: str, **args: Any) -> Any:
            return await toolbox.execute(tool, tool, {"owner": "acme", "repo": "edge", **args})

        big = await call("read_file", path="big.txt")
        assert big.ok and big.observation["truncated"] and big.observation["omitted_chars"] > 100_000
        assert big.observation["next_offset"] > 1
        accepts = [r.accept for r in emulator.requests if r.decoded_path.endswith("big.txt")]
        assert any(a and "raw" in a for a in accepts)
        page2 = await call("read_file", path="big.txt", start_line=big.observation["next_offset"])
        assert page2.ok and page2.observation["start_line"] == big.observation["next_offset"]

        png = await call("read_file", path="logo.png")
        assert png.observation["kind"] == "binary" and png.observation["size"] > 0
        blob = await call("read_file", path="blob.bin")
        assert blob.observation["kind"] == "binary"

        many = await call("list_directory", path="many")
        assert many.observation["truncated"] and many.observation["count"] == 1000
        tree = await call("get_file_tree", path="many", max_entries=50)
        assert tree.observation["files"] == 1100 and tree.observation["paths_omitted"] == 1050

        link_out = await call("read_file", path="link-out")
        assert link_out.observation["kind"] == "symlink" and link_out.observation["target"] == "../outside"
        link_in = await call("read_file", path="link-in")
        assert "Edge cases" in link_in.observation["text"]  # GitHub follows a symlink to a file
        sub = await call("read_file", path="vendor/lib")
        assert sub.observation["kind"] == "submodule"
        assert sub.observation["submodule_url"] == "https://github.com/acme/lib.git"
        root = await call("list_directory")
        types = {e["name"]: e["type"] for e in root.observation["entries"]}
        assert types["link-out"] == "symlink" and types["many"] == "dir"
    finally:
        await http.aclose()


async def test_base64_with_newlines_decodes(emulator: GitHubEmulator, tmp_path: Path) -> None:
    text = "é unicode ✓ " * 50 + "\n"
    repo = make_repo(tmp_path / "b64", {"doc.txt": text * 10})
    emulator.add_repo("acme/b64", repo)
    http = make_http(emulator, None)
    try:
        client_toolbox, client, _ = make_toolbox(http, scope=(RepoRef(owner="acme", name="b64"),))
        raw = await client.get_repo(RepoRef(owner="acme", name="b64"), "contents", path="doc.txt")
        assert "\n" in raw.json()["content"]  # GitHub wraps base64 lines
        assert base64.b64decode(raw.json()["content"].replace("\n", "")).decode() == text * 10
        result = await client_toolbox.execute(
            "x", "read_file", {"owner": "acme", "repo": "b64", "path": "doc.txt"}
        )
        assert result.observation["text"].startswith("é unicode ✓")
    finally:
        await http.aclose()


async def test_empty_repository_is_an_empty_result(emulator: GitHubEmulator, tmp_path: Path) -> None:
    emulator.add_repo("acme/empty", make_empty_repo(tmp_path / "empty"))
    scope = (RepoRef(owner="acme", name="empty"),)
    http = make_http(emulator, None)
    try:
        toolbox, _, _ = make_toolbox(http, scope=scope)
        args = {"owner": "acme", "repo": "empty"}
        commits = await toolbox.execute("a", "get_commits", args)
        tree = await toolbox.execute("b", "get_file_tree", args)
        listing = await toolbox.execute("c", "list_directory", args)
        assert commits.ok and commits.observation["empty_repository"] is True
        assert tree.ok and tree.observation["empty_repository"] is True
        assert listing.ok and listing.observation["count"] == 0
        statuses = [r.status for r in emulator.requests if "/commits" in r.path or "/git/trees" in r.path]
        assert 409 in statuses
    finally:
        await http.aclose()


async def test_client_errors_are_typed(emulator: GitHubEmulator) -> None:
    http = make_http(emulator, None)
    try:
        _, client, _ = make_toolbox(http)
        with pytest.raises(NotFoundError):
            await client.get_repo(WIDGETS, "contents", path="missing.txt")
        emulator.fail("/languages", [500])
        with pytest.raises(TransientError):
            await client.get_repo(WIDGETS, "languages")
        emulator.exhaust(reset_in=3600)
        with pytest.raises(RateLimitError) as info:
            await client.get_repo(WIDGETS, "commits")
        assert info.value.kind == "primary" and info.value.reset_at is not None
    finally:
        await http.aclose()


async def test_token_never_appears_in_logs(
    emulator: GitHubEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    emulator.fail("/commits", [503])
    http = make_http(emulator, tmp_path / "cache")
    try:
        toolbox, _, _ = make_toolbox(http, token=TOKEN)
        results = await run_sequence(
            toolbox, [*ANALYST_SEQUENCE, ("read_file", {**dict(ANALYST_SEQUENCE[0][1]), "path": "nope"})]
        )
        assert any(r.attempts > 1 for r in results)  # a retry was logged too
    finally:
        await http.aclose()
    assert caplog.records, "expected some debug logging"
    assert TOKEN not in caplog.text
    assert all(TOKEN not in str(r.error) for r in results)


async def test_two_processes_share_the_cache_safely(emulator: GitHubEmulator, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first, second = make_http(emulator, cache), make_http(emulator, cache)
    try:
        toolbox_a, _, _ = make_toolbox(first, token=TOKEN)
        toolbox_b, _, _ = make_toolbox(second, token=TOKEN)
        results = await asyncio.gather(
            run_sequence(toolbox_a, ANALYST_SEQUENCE), run_sequence(toolbox_b, ANALYST_SEQUENCE)
        )
        assert all(r.ok for batch in results for r in batch)
    finally:
        await first.aclose()
        await second.aclose()


async def test_breaker_recovers_through_half_open(emulator: GitHubEmulator) -> None:
    from agent_core.resilience import StateChange

    clock = FakeClock()
    http = make_http(emulator, None)
    changes: list[StateChange] = []
    try:
        toolbox, _, board = make_toolbox(http, clock=clock)
        board.subscribe(changes.append)
        emulator.fail("/commits", [503] * 3)
        down = await toolbox.execute("a", "get_commits", {"owner": "acme", "repo": "widgets"})
        assert down.degraded and board.get("github:get_commits").snapshot().state == BreakerState.OPEN
        clock.advance(31)  # past the open duration: the next call is the single probe
        up = await toolbox.execute("b", "get_commits", {"owner": "acme", "repo": "widgets", "per_page": 5})
        assert up.ok
        assert [(c.old, c.new) for c in changes] == [
            (BreakerState.CLOSED, BreakerState.OPEN),
            (BreakerState.OPEN, BreakerState.HALF_OPEN),
            (BreakerState.HALF_OPEN, BreakerState.CLOSED),
        ]
    finally:
        await http.aclose()


class GatedStorage(hishel.AsyncSqliteStorage):
    """The real SQLite storage, holding each ``create_entry`` until :attr:`gate` opens: the moment
    hishel holds the wire's answer, to store it, before it hands the answer on."""

    def __init__(self, path: Path) -> None:
        super().__init__(database_path=path)
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()

    async def create_entry(self, *args: Any, **kwargs: Any) -> Any:
        self.entered.set()
        await self.gate.wait()
        return await super().create_entry(*args, **kwargs)


async def test_a_request_cancelled_while_the_cache_holds_its_answer_gives_its_connection_back(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """Stop (a cancellation) landing while hishel stores the wire's answer left that answer unclosed and
    its pooled connection taken for good: after the pool's connections, every request of the process
    waited for one until its tool timed out, and none reached GitHub (seen as a flaky Stop test)."""
    storage = GatedStorage(tmp_path / "cache.db")
    # One pooled connection: a single leak would hold every later request (until the pool's timeout, a
    # bound for a broken client that a passing test never reaches).
    http = GitHubHTTP(
        api_url=emulator.base_url, cache_dir=tmp_path, storage=storage, max_connections=1, read_timeout=10.0
    )
    try:
        for path in ("README.md", "pyproject.toml", "LICENSE"):
            client = GitHubClient(http, clock=FakeClock())
            pending = asyncio.create_task(client.get_repo(WIDGETS, "contents", path=path))
            storing = asyncio.create_task(storage.entered.wait())
            await asyncio.wait({pending, storing}, return_when=asyncio.FIRST_COMPLETED)
            assert storing.done(), f"{path} ended before its answer was stored: {pending.exception()!r}"
            storage.entered.clear()
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending
        storage.gate.set()
        emulator.clear_log()
        answer = await GitHubClient(http, clock=FakeClock()).get_repo(WIDGETS)
        assert answer.status == 200
        assert [r.decoded_path for r in emulator.requests] == ["/repos/acme/widgets"]
    finally:
        await http.aclose()
