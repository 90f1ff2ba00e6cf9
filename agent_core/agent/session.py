"""Building an analysis from settings: the one place where the parts are wired together.

:class:`Services` is process-wide (the shared GitHub HTTP pool and persistent cache); everything that
belongs to one browser session or one CLI run — the breakers, the chaos policy, the per-run GitHub
client, the model client, the toolbox — is built per :func:`open_analysis` call and closed with it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx2

from agent_core.agent.accounting import RunLimits
from agent_core.agent.loop import Analysis
from agent_core.clock import Clock, SystemClock
from agent_core.errors import InvalidTargetError
from agent_core.github.client import GitHubClient
from agent_core.github.http import GitHubHTTP
from agent_core.github.ratelimit import RateLimit
from agent_core.llm import ChatModel, ModelConfig, OpenAIChatModel, make_openai_client, resolve_model_config
from agent_core.repo import RepoRef
from agent_core.resilience import BreakerBoard, BreakerConfig, RetryPolicy
from agent_core.settings import Settings
from agent_core.sources.base import RepoSource
from agent_core.sources.github import GitHubSource
from agent_core.sources.local import LocalGitSource
from agent_core.sources.targets import Target, find_repo_mentions, parse_targets
from agent_core.tools.executor import FaultInjector, Toolbox, ToolboxConfig
from agent_core.tools.registry import ToolLimits

logger = logging.getLogger(__name__)

MAX_TARGETS = 5


class Services:
    """Process-wide resources, created lazily and closed once."""

    def __init__(self, settings: Settings, *, clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock = clock or SystemClock()
        self._http: GitHubHTTP | None = None
        self._llm_http: httpx2.AsyncClient | None = None

    @property
    def github_http(self) -> GitHubHTTP:
        if self._http is None:
            s = self.settings
            self._http = GitHubHTTP(
                api_url=s.github_api_url,
                cache_dir=s.cache_dir,
                cache_max_bytes=s.cache_max_mb * 1024 * 1024,
                connect_timeout=s.github_connect_timeout,
                read_timeout=s.github_read_timeout,
            )
        return self._http

    @property
    def llm_http(self) -> httpx2.AsyncClient:
        """One connection pool (and SSL context) for every model client of the process."""
        if self._llm_http is None:
            self._llm_http = httpx2.AsyncClient(
                timeout=httpx2.Timeout(self.settings.llm_turn_timeout, connect=10.0),
                limits=httpx2.Limits(max_connections=100, max_keepalive_connections=20),
            )
        return self._llm_http

    def github_host(self) -> str:
        """The web host users paste URLs from: github.com for the public API, the GHE host otherwise."""
        host = urlsplit(self.settings.github_api_url).hostname or "github.com"
        if host in ("api.github.com", "127.0.0.1", "localhost"):
            return "github.com"  # loopback: a GitHub emulator (tests, demos) stands in for github.com
        return host.removeprefix("api.")

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        if self._llm_http is not None:
            await self._llm_http.aclose()
            self._llm_http = None


@dataclass
class OpenedAnalysis:
    """An :class:`Analysis` plus what must be closed with it."""

    analysis: Analysis
    targets: list[Target]
    github: GitHubClient | None = None

    async def aclose(self) -> None:
        """Nothing to release today: the model and GitHub pools belong to :class:`Services`. Kept so
        callers close what they open, whatever a future analysis comes to own."""


def resolve_targets(services: Services, text: str, question: str = "") -> list[Target]:
    """The repositories a run may read: those typed in the target field, plus any named in the question."""
    settings = services.settings
    host = services.github_host()
    targets = parse_targets(text, allow_local=settings.allow_local_paths, host=host) if text.strip() else []
    seen = {t.full_name.lower() for t in targets}
    for mention in find_repo_mentions(question, host=host):
        if mention.full_name.lower() not in seen:
            targets.append(mention)
            seen.add(mention.full_name.lower())
    if not targets:
        raise InvalidTargetError(
            "Expected a GitHub repository like https://github.com/owner/repo or owner/repo"
            + (", or a local git repository path" if settings.allow_local_paths else "")
        )
    if len(targets) > MAX_TARGETS:
        raise InvalidTargetError(f"At most {MAX_TARGETS} repositories can be analysed together")
    return targets


def build_model(
    settings: Settings, http_client: httpx2.AsyncClient | None = None
) -> tuple[ChatModel | None, ModelConfig | None]:
    """The model for these settings, or ``(None, None)`` for the offline planner (no key)."""
    if settings.offline_planner:
        return None, None
    config = resolve_model_config(
        provider=settings.llm_provider,
        base_url=settings.llm_base_url,
        model=settings.llm_model,
        api_key=settings.api_key,
        hf_token=settings.hf_token,
    )
    client = make_openai_client(
        base_url=config.base_url,
        api_key=config.api_key or "none",
        timeout=settings.llm_turn_timeout,
        http_client=http_client,
    )
    model = OpenAIChatModel(client, model=config.model, turn_timeout=settings.llm_turn_timeout)
    return model, config


async def open_analysis(
    services: Services,
    target_text: str,
    question: str = "",
    *,
    settings: Settings | None = None,
    breakers: BreakerBoard | None = None,
    chaos: FaultInjector | None = None,
    model: ChatModel | None = None,
    model_config: ModelConfig | None = None,
) -> OpenedAnalysis:
    """Parse the targets, open their sources and return a ready :class:`Analysis`.

    ``settings`` overrides the services' settings for this session (keys pasted in the UI, max turns);
    ``model`` replaces the model built from settings (tests, ``run_agent``). Raises
    :class:`InvalidTargetError` for input that names no usable repository.
    """
    s = settings or services.settings
    clock = services.clock
    targets = resolve_targets(services, target_text, question)
    board = breakers or BreakerBoard(
        config=BreakerConfig(
            failure_threshold=s.breaker_failure_threshold, open_seconds=s.breaker_open_seconds
        ),
        clock=clock,
    )
    listener = _RateLimitRelay()
    github: GitHubClient | None = None
    sources: dict[str, RepoSource] = {}
    scope: list[RepoRef] = []
    notes: list[str] = []
    for target in targets:
        if target.kind == "local":
            assert target.local_path is not None
            local = await LocalGitSource.open(Path(target.local_path))
            ref = local.repo_ref
            sources[ref.key()] = local
        else:
            if github is None:
                github = GitHubClient(
                    services.github_http,
                    token=s.github_token,
                    clock=clock,
                    on_rate_limit=listener,
                )
            ref = target.repo_ref()
            sources[ref.key()] = GitHubSource(github)
            if target.ref or target.subpath:
                notes.append(
                    f"the user pointed at {ref.full_name}"
                    + (f" branch '{target.ref}'" if target.ref else "")
                    + (f", path '{target.subpath}'" if target.subpath else "")
                    + " — focus there, but the tools read the default branch"
                )
        scope.append(ref)
    if model is None:
        model, model_config = build_model(s, services.llm_http)
    toolbox = Toolbox(
        sources=sources,
        scope=scope,
        breakers=board,
        clock=clock,
        faults=chaos,
        config=ToolboxConfig(
            retry=RetryPolicy(max_attempts=s.retry_max_attempts, max_total=s.retry_max_total),
            rate_limit_max_wait=s.rate_limit_max_wait,
            tool_timeout=s.tool_timeout,
            limits=ToolLimits(read_file_max_chars=s.read_file_max_chars),
        ),
    )
    analysis = Analysis(
        scope=scope,
        toolbox=toolbox,
        breakers=board,
        clock=clock,
        model=model,
        model_config=model_config,
        github=github,
        limits=RunLimits(
            max_turns=s.max_turns,
            max_tool_calls=s.max_tool_calls,
            max_total_tokens=s.max_total_tokens,
            max_wall_seconds=s.max_wall_seconds,
            context_budget_tokens=s.context_budget_tokens,
            observation_max_chars=s.observation_max_chars,
        ),
        language=s.report_language,
        tool_protocol=s.tool_protocol,
        target_notes=notes,
        parallel_tool_calls=s.parallel_tool_calls,
    )
    toolbox.set_retry_listener(analysis.sink.on_retry)
    listener.target = analysis
    return OpenedAnalysis(analysis=analysis, targets=targets, github=github)


class _RateLimitRelay:
    """Forwards rate-limit updates to the analysis built after the client."""

    def __init__(self) -> None:
        self.target: Analysis | None = None

    def __call__(self, limit: RateLimit) -> None:
        if self.target is not None:
            self.target.sink.on_rate_limit(limit)
