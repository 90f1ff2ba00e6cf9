"""Small builders shared by the GitHub-layer tests (the real client over the emulator), and
:class:`AnnouncedTimeouts`, the transport that turns the emulator's announced timeouts into read timeouts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import httpx

from agent_core.clock import Clock
from agent_core.github.client import GitHubClient
from agent_core.github.http import GitHubHTTP
from agent_core.repo import RepoRef
from agent_core.resilience import BreakerBoard, RetryPolicy
from agent_core.settings import Settings
from agent_core.sources.github import GitHubSource
from agent_core.tools.executor import FaultInjector, Toolbox
from agent_core.top.wiring import new_board, toolbox_config
from testing.clock import FakeClock
from testing.emulator.github import TIMEOUT_ANNOUNCED, GitHubEmulator

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
    settings = Settings(retry_max_attempts=3, tool_timeout=tool_timeout)
    board = board or new_board(settings, clock)
    toolbox = Toolbox(
        sources={ref.key(): source for ref in scope},
        scope=scope,
        breakers=board,
        clock=clock,
        config=replace(toolbox_config(settings), retry=retry) if retry else toolbox_config(settings),
        rng=lambda: 0.5,
        faults=faults,
    )
    return toolbox, client, board


class AnnouncedTimeouts(httpx.AsyncBaseTransport):
    """The real transport, except that an answer carrying the emulator's :data:`TIMEOUT_ANNOUNCED`
    header raises ``httpx.ReadTimeout``, as the client's read timeout would have had the emulator held
    the request (``GitHubEmulator.announce_timeouts``): the client meets the same exception at once."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        if TIMEOUT_ANNOUNCED in response.headers:
            await response.aclose()
            raise httpx.ReadTimeout("the emulator held this request past the read timeout", request=request)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
