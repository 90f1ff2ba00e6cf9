"""Small builders shared by the GitHub-layer tests (the real client over the emulator)."""

from __future__ import annotations

from pathlib import Path

from agent_core.clock import Clock
from agent_core.github.client import GitHubClient
from agent_core.github.http import GitHubHTTP
from agent_core.repo import RepoRef
from agent_core.resilience import BreakerBoard, BreakerConfig, RetryPolicy
from agent_core.sources.github import GitHubSource
from agent_core.tools.executor import FaultInjector, Toolbox, ToolboxConfig
from testing.clock import FakeClock
from testing.emulator.github import GitHubEmulator

WIDGETS = RepoRef(owner="acme", name="widgets")


def make_http(emu: GitHubEmulator, cache_dir: Path | None, *, read_timeout: float = 5.0) -> GitHubHTTP:
    return GitHubHTTP(
        api_url=emu.base_url, cache_dir=cache_dir, read_timeout=read_timeout, connect_timeout=2.0
    )


def make_toolbox(
    http: GitHubHTTP,
    *,
    token: str | None = None,
    scope: tuple[RepoRef, ...] = (WIDGETS,),
    clock: Clock | None = None,
    board: BreakerBoard | None = None,
    retry: RetryPolicy | None = None,
    tool_timeout: float = 10.0,
    faults: FaultInjector | None = None,
) -> tuple[Toolbox, GitHubClient, BreakerBoard]:
    clock = clock or FakeClock()
    client = GitHubClient(http, token=token, clock=clock)
    source = GitHubSource(client)
    board = board or BreakerBoard(config=BreakerConfig(failure_threshold=3, open_seconds=30), clock=clock)
    toolbox = Toolbox(
        sources={ref.key(): source for ref in scope},
        scope=scope,
        breakers=board,
        clock=clock,
        config=ToolboxConfig(
            retry=retry or RetryPolicy(max_attempts=3, max_total=20), tool_timeout=tool_timeout
        ),
        rng=lambda: 0.5,
        faults=faults,
    )
    return toolbox, client, board
