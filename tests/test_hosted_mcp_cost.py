"""Issue 35, class 6: a public tool call (the MCP server's) is counted by what it cost GitHub, and a
``get_file_tree`` of a ``/tree/<commit>/<path>`` URL costs about one request (it cost ~4.5: the
repository's check, two ref lookups for a full commit id, the path's parent listing, the tree)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import gradio as gr
import pytest

from agent_core.web.mcp import RepositoryApi, client_key
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from tests.hosted_helpers import hosted_env
from tests.test_hosted_safety import PageHandlers, settings_from, visitor

ADDRESS = "198.51.100.7"


@pytest.fixture(autouse=True)
def _no_analytics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")


async def test_tree_calls_of_commit_urls_cost_about_one_request_and_every_request_is_counted(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "w", {f"d{i}/x.py": f"x = {i}\n" for i in range(12)})
    sha = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with GitHubEmulator() as emu:
        emu.add_repo("acme/widgets", repo)
        emu.limit_unauthenticated = 100_000
        settings = settings_from(hosted_env(emu, None, tmp_path, RUNS_PER_HOUR="3", MAX_TOOL_CALLS="10"))
        app = PageHandlers(settings)
        api = RepositoryApi(app.services, settings, app.budget)
        tree = {f.__name__: f for f in api.functions()}["get_file_tree"]
        key = client_key(visitor(ADDRESS))
        try:
            start, calls = len(emu.requests), 10
            for i in range(calls):  # a new folder each time: nothing the cache already holds
                result = await tree(
                    f"https://github.com/acme/widgets/tree/{sha}/d{i}", request=visitor(ADDRESS)
                )
                assert "error" not in result, result
            spent = len(emu.requests) - start
            assert spent <= 1.5 * calls, emu.requests[start:]
            assert not any("matching-refs" in r.path for r in emu.requests[start:])
            used = 30 - app.budget.tools.remaining(key)
            # every request counted in the visitor's hourly calls (a call costs at least one)
            assert spent <= used <= max(spent, calls) + 1
            with pytest.raises(gr.Error):  # a missing folder fails, and what it spent is counted too
                await tree(f"https://github.com/acme/widgets/tree/{sha}/nope", request=visitor(ADDRESS))
            assert 30 - app.budget.tools.remaining(key) >= len(emu.requests) - start
        finally:
            await app.services.aclose()
