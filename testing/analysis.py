"""Running real analyses in tests: the real loop, the real GitHub client over the emulator, the real
openai SDK over the scripted model server. Only the two servers are fakes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import openai

from agent_core import events as ev
from agent_core.agent.diagram_call import REQUEST_MARK
from agent_core.clock import Clock
from agent_core.grammar import check_grammar
from agent_core.llm import OpenAIChatModel, resolve_model_config
from agent_core.settings import Settings
from agent_core.top.services import Services
from agent_core.top.wiring import OpenedAnalysis, open_analysis, sampling, uses_model
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import JSONDict, Router, ScriptedModelServer, Turn

API_KEY = "sk-test-SECRET-key-0123456789"


def diagram_attempt(body: JSONDict) -> int | None:
    """Which try at the diagram a request is (1, 2...), or None for any other request: the diagram's
    request is the run's conversation plus a message that starts with its mark."""
    messages = list(body.get("messages") or [])
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "user" and str(message.get("content", "")).startswith(REQUEST_MARK):
            return 1 + (len(messages) - 1 - index) // 2
    return None


def diagram_replies(*replies: Turn) -> Router:
    """A router for :class:`ScriptedModelServer` answering the diagram's n-th try with ``replies[n-1]``
    (it is asked after the report); every other request is left to the server's turns."""

    def route(body: JSONDict) -> Turn | None:
        attempt = diagram_attempt(body)
        if attempt is None:
            return None
        if attempt > len(replies):
            raise AssertionError(f"diagram try {attempt} was not scripted")
        return replies[attempt - 1]

    return route


def reads_then(report: str, repo: str) -> Router:
    """A responder for :class:`ScriptedModelServer`: a model that makes one call of its own (the
    repository's languages: no brief holds them) and then writes ``report``, and keeps it whatever it is
    told (the app's judge asks once for reads when a report rests on the brief alone, and gives ✗ claims
    back once: agent.draft_review)."""
    owner, _, name = repo.partition("/")

    def respond(body: JSONDict) -> Turn:
        if any(m.get("role") == "tool" for m in body.get("messages") or ()):
            return Turn.final(report)
        return Turn.calls(("get_languages", {"owner": owner, "repo": name}))

    return respond


def make_settings(
    emu: GitHubEmulator, tmp_path: Path, server: ScriptedModelServer | None = None, **changes: Any
) -> Settings:
    base: dict[str, Any] = {
        "github_api_url": emu.base_url,
        "cache_dir": tmp_path / "cache",
        "retry_max_total": 5.0,
        # Far beyond any busy machine's delay; a test that needs a read timeout to fire sets its own.
        "github_read_timeout": 30.0,
        # The scripted models follow the pure ReAct loop; tests of the evidence-first step turn it on.
        "prefetch": False,
        # Nor do they expect the diagram's call after the report; tests of the diagram turn it on.
        "diagram_from_model": False,
    }
    if server is not None:
        base.update(
            api_key=API_KEY, llm_provider="custom", llm_base_url=server.base_url, llm_model="scripted-model"
        )
    base.update(changes)
    return Settings(**base)


@dataclass
class Run:
    opened: OpenedAnalysis
    events: list[ev.Event] = field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    @property
    def finished(self) -> ev.RunFinished:
        last = self.events[-1]
        assert isinstance(last, ev.RunFinished), last
        return last

    def of(self, kind: type[ev.Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    async def ask(self, question: str) -> list[ev.Event]:
        """Run one question to its end; every run a test makes is checked against the event grammar."""
        new = [e async for e in self.opened.analysis.run(question)]
        check_grammar(new)
        self.events.extend(new)
        return new


@asynccontextmanager
async def analysis(
    settings: Settings,
    target: str = "acme/widgets",
    *,
    max_retries: int = 0,
    turn_timeout: float = 10.0,
    clock: Clock | None = None,
    provider: str = "custom",
    presets: bool = False,
    github_transport: httpx.AsyncBaseTransport | None = None,
) -> AsyncIterator[Run]:
    """An opened analysis over ``settings``; ``provider`` names the preset whose prices apply to the
    model (``custom``: none known), whatever loopback server ``settings.llm_base_url`` points at.
    ``presets``: the model is sent the preset's sampling and extra fields, as the app sends them (the
    benchmark of a real model); tests leave them out. ``github_transport``: the wire under the GitHub
    pool (:class:`testing.github.AnnouncedTimeouts`, for instance)."""
    services = Services(settings, clock=clock, github_transport=github_transport)
    client: openai.AsyncOpenAI | None = None
    model = config = None
    if uses_model(settings):
        assert settings.llm_base_url is not None
        client = openai.AsyncOpenAI(
            base_url=settings.llm_base_url, api_key=settings.api_key, max_retries=max_retries
        )
        config = resolve_model_config(
            provider=provider,
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=settings.api_key,
        )
        if settings.llm_local is not None:  # as the app's Services.endpoint decides it
            config = replace(config, local=settings.llm_local)
        model = OpenAIChatModel(
            client,
            model=settings.llm_model or "m",
            turn_timeout=turn_timeout,
            max_tokens=settings.llm_max_tokens,
            temperature=settings.llm_temperature,
            sampling=sampling(settings, config) if presets else None,
            extra_body=config.extra_body if presets else None,
        )
    try:
        opened = await open_analysis(
            services, target, "", settings=settings, model=model, model_config=config
        )
        try:
            yield Run(opened=opened)
        finally:
            await opened.aclose()
    finally:
        if client is not None:
            await client.close()
        await services.aclose()


async def run_once(settings: Settings, question: str = "", target: str = "acme/widgets", **kw: Any) -> Run:
    async with analysis(settings, target, **kw) as run:
        await run.ask(question)
        return run
