"""The composition root: the one place where parts are built from :class:`Settings` and connected.

:class:`Services` is process-wide (the shared GitHub HTTP pool and persistent cache, the model
connection pool). Everything that belongs to one browser session or one CLI run is built per
:func:`open_analysis` call, in dependency order, each part handed what it reports into when it is
built::

    EventSink (the run's side events)          ◀── first: everything below reports into it
      ├─ BreakerBoard ─ subscribed by the sink
      ├─ GitHubClient(on_rate_limit=sink.on_rate_limit)
      ├─ sources: GitHubSource(client) | LocalGitSource
      ├─ Toolbox(sources, breakers, on_retry=sink.on_retry, faults=chaos)
      ├─ ModelDriver(model) or None (the offline planner)
      └─ Analysis(toolbox, breakers, sink, driver)

Every number a part needs comes from Settings here (:func:`retry_policy`, :func:`breaker_config`,
:func:`run_limits`, :func:`toolbox_config`): no part restates a default of its own.

Who pays is decided here too. On a Space (``SPACE_ID``) a session that uses the owner's GitHub token
(or none: the Space's own address) spends the process-wide :class:`SpaceQuotas` and never reads a
private repository; a model endpoint other than the owner's is reached only through the guarded pool
(https, public addresses only, checked when connecting) and its errors are reported by class.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx2

from agent_core.agent.accounting import RunLimits
from agent_core.agent.analysis import Analysis
from agent_core.agent.model_turn import ModelDriver, model_breaker
from agent_core.agent.prompts import tool_list
from agent_core.agent.sink import EventSink
from agent_core.clock import Clock
from agent_core.errors import InvalidTargetError
from agent_core.github.client import GitHubClient
from agent_core.llm import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_WALL_SECONDS,
    ChatModel,
    ModelConfig,
    OpenAIChatModel,
    Sampling,
    make_openai_client,
    model_configured,
    resolve_model_config,
)
from agent_core.llm.window import observation_chars, reply_tokens
from agent_core.repo import Renames, RepoRef, RunScope
from agent_core.resilience import BreakerBoard, BreakerConfig, RetryPolicy
from agent_core.settings import Settings
from agent_core.shared_state import watch_health
from agent_core.sources.base import RepoSource
from agent_core.sources.github import GitHubSource
from agent_core.sources.local import LocalGitSource
from agent_core.sources.mentions import find_repo_mentions
from agent_core.sources.scope import FolderScoped, Scope, folder_within, resolve_scope
from agent_core.sources.targets import MAX_TARGETS, Target, parse_targets
from agent_core.tools.executor import FaultInjector, Toolbox, ToolboxConfig
from agent_core.tools.failures import breaker_key
from agent_core.tools.registry import TOOL_NAMES, ToolLimits
from agent_core.top.hosting import SpaceQuotas, model_endpoint, owner_github, owner_model
from agent_core.top.payer import visitor_endpoint
from agent_core.top.services import Services

__all__ = [
    "OpenedAnalysis",
    "Services",
    "SpaceQuotas",
    "breaker_config",
    "build_model",
    "model_endpoint",
    "new_board",
    "open_analysis",
    "owner_github",
    "owner_model",
    "resolve_targets",
    "retry_policy",
    "run_limits",
    "session_model",
    "toolbox_config",
    "uses_model",
]

logger = logging.getLogger(__name__)


# -- from Settings to the parts' configuration --------------------------------------------------------


def uses_model(settings: Settings) -> bool:
    """A model drives the tools (a key is set, or the provider needs none); else the offline planner."""
    return model_configured(**settings.model_config())


def retry_policy(settings: Settings) -> RetryPolicy:
    return RetryPolicy(
        max_attempts=settings.retry_max_attempts,
        base_delay=settings.retry_base_delay,
        max_delay=settings.retry_max_delay,
        max_total=settings.retry_max_total,
    )


def breaker_config(settings: Settings) -> BreakerConfig:
    return BreakerConfig(
        failure_threshold=settings.breaker_failure_threshold, open_seconds=settings.breaker_open_seconds
    )


def new_board(settings: Settings, clock: Clock) -> BreakerBoard:
    """A board with a row for every GitHub tool and the model endpoint, so the table is complete from the
    start (a local repository's rows appear with its first call)."""
    board = BreakerBoard(config=breaker_config(settings), clock=clock)
    for tool in TOOL_NAMES:
        board.get(breaker_key("github", tool))
    if uses_model(settings):
        board.get(model_breaker(model_endpoint(settings)))
    return board


def run_limits(settings: Settings, config: ModelConfig | None = None, *, window: int = 0) -> RunLimits:
    """The guardrails; the time limit is the setting's, else the model provider's (local models are slow)."""
    wall = settings.max_wall_seconds or (config.wall_seconds if config is not None else DEFAULT_WALL_SECONDS)
    return RunLimits(
        max_turns=settings.max_turns,
        max_tool_calls=settings.max_tool_calls,
        max_total_tokens=settings.max_total_tokens,
        max_wall_seconds=wall,
        observation_max_chars=observation_chars(window, settings.observation_max_chars),
    )


def turn_timeout(settings: Settings, config: ModelConfig) -> float:
    """One model turn's longest wait for progress: the setting's, else the provider's (10 min for a
    local model). A turn whose tokens flow is never stopped by it."""
    return settings.llm_turn_timeout or config.turn_timeout


def sampling(settings: Settings, config: ModelConfig) -> Sampling:
    """The provider's loop-discouraging sampling, each value overridden by its setting when set."""
    preset = config.sampling
    return Sampling(
        frequency_penalty=_first(settings.llm_frequency_penalty, preset.frequency_penalty),
        presence_penalty=_first(settings.llm_presence_penalty, preset.presence_penalty),
        repeat_penalty=_first(settings.llm_repeat_penalty, preset.repeat_penalty),
    )


def _first(setting: float | None, preset: float | None) -> float | None:
    return preset if setting is None else setting


def toolbox_config(settings: Settings) -> ToolboxConfig:
    return ToolboxConfig(
        retry=retry_policy(settings),
        rate_limit_max_wait=settings.rate_limit_max_wait,
        tool_timeout=settings.tool_timeout,
        limits=ToolLimits(
            read_file_max_chars=settings.read_file_max_chars, tree_max_entries=settings.tree_max_entries
        ),
    )


@dataclass
class OpenedAnalysis:
    """An :class:`Analysis` and what it holds onto; :meth:`aclose` lets go of it."""

    analysis: Analysis
    unwatch: Callable[[], None] = lambda: None
    """Stops telling the run's trace about the shared state's health (``REDIS_URL``)."""

    async def aclose(self) -> None:
        """Detach the analysis from the session's breaker board (which outlives it)."""
        self.unwatch()
        self.analysis.close()


# -- targets and model ------------------------------------------------------------------------------


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
    return counted(targets, settings)


def counted(targets: Sequence[Target], settings: Settings) -> list[Target]:
    """``targets`` when there is at least one and no more than :data:`MAX_TARGETS`."""
    if not targets:
        raise InvalidTargetError(
            "Expected a GitHub repository like https://github.com/owner/repo or owner/repo"
            + (", or a local git repository path" if settings.allow_local_paths else "")
        )
    if len(targets) > MAX_TARGETS:
        raise InvalidTargetError(f"At most {MAX_TARGETS} repositories can be analysed together")
    return list(targets)


def build_model(
    settings: Settings,
    http: httpx2.AsyncClient | None = None,
    *,
    trusted: bool = True,
    config: ModelConfig | None = None,
) -> tuple[ChatModel | None, ModelConfig | None]:
    """The model for these settings, or ``(None, None)`` for the offline planner (no key). ``trusted=False``
    (a visitor's endpoint): failures said by class only. ``config``: as announced (:meth:`Services.endpoint`)."""
    if not uses_model(settings):
        return None, None
    config = config or resolve_model_config(**settings.model_config())
    deadline = turn_timeout(settings, config)
    client = make_openai_client(
        base_url=config.base_url, api_key=config.api_key or "none", timeout=deadline, http_client=http
    )
    model = OpenAIChatModel(
        client,
        model=config.model,
        turn_timeout=deadline,
        max_tokens=reply_tokens(config.context_window, settings.llm_max_tokens),
        temperature=settings.llm_temperature,
        trusted=trusted,
        max_reasoning_chars=settings.reasoning_max_chars,
        sampling=sampling(settings, config),
        extra_body=config.extra_body or None,
    )
    return model, config


def model_pool(services: Services, settings: Settings) -> tuple[httpx2.AsyncClient, bool]:
    """The connection pool a session's model uses, and whether its endpoint is trusted: the owner's
    endpoint over the shared pool, any other endpoint on a Space over the guarded one (untrusted)."""
    visitor = visitor_endpoint(services.settings, settings)
    return (services.visitor_llm_http, False) if visitor else (services.llm_http, True)


async def session_model(
    services: Services, settings: Settings
) -> tuple[ChatModel | None, ModelConfig | None]:
    """The model for a session, over the pool :func:`model_pool` picks, as its endpoint announced itself."""
    http, trusted = model_pool(services, settings)
    return build_model(settings, http, trusted=trusted, config=await services.endpoint(settings, http))


# -- one analysis -----------------------------------------------------------------------------------


async def _driver(
    services: Services, s: Settings, model: ChatModel, model_config: ModelConfig | None
) -> ModelDriver:
    """The model's driver: its window (discovered or set), the tool list for it, the speeds measured."""
    pool, _ = model_pool(services, s)
    window = await services.context_window(s, model_config, pool) if model_config is not None else None
    window = window or s.llm_context_window or DEFAULT_CONTEXT_WINDOW
    on_cpu = model_config is not None and model_config.local
    return ModelDriver(
        model,
        config=model_config,
        tool_schemas=tool_list(window, local=on_cpu, briefed=s.prefetch),
        tool_protocol=s.tool_protocol,
        window=window,
        max_tokens=reply_tokens(window, s.llm_max_tokens),
        budget=s.context_budget_tokens,
        speeds=services.prompt_speeds,
    )


async def open_analysis(
    services: Services,
    targets: str | Sequence[Target],
    question: str = "",
    *,
    settings: Settings | None = None,
    breakers: BreakerBoard | None = None,
    chaos: FaultInjector | None = None,
    model: ChatModel | None = None,
    model_config: ModelConfig | None = None,
    fallback_language: str = "en",
) -> OpenedAnalysis:
    """Open the targets' sources and return a ready :class:`Analysis`.

    ``targets`` are parsed already (:func:`resolve_targets`: the page checks them before it counts a
    run, and opens them as they are), or text to resolve with the question's mentions (the API, MCP).

    ``settings`` overrides the services' settings for this session (keys pasted in the UI, max turns);
    ``breakers`` is the session's board (a fresh one otherwise); ``model`` replaces the model built
    from settings (tests, ``run_agent``); ``fallback_language`` is the report's language when neither
    the report-language setting nor the question decides it (the page passes its own). Raises :class:`InvalidTargetError` for input that names no
    usable repository.
    """
    s = settings or services.settings
    clock = services.clock
    targets = (
        resolve_targets(services, targets, question)
        if isinstance(targets, str)
        else counted(targets, services.settings)
    )
    board = breakers or new_board(s, clock)
    sink = EventSink(clock, board)
    github: GitHubClient | None = None
    renames = Renames()  # the client learns a rename, the toolbox lets the new name in: one map
    sources: dict[str, RepoSource] = {}
    scope: list[RepoRef] = []
    notes: list[str] = []
    scopes: list[Scope] = []
    local_scopes: list[RunScope] = []
    owners = owner_github(services.settings, s)
    hosted = services.settings.hosted
    for target in targets:
        if target.kind == "local":
            assert target.local_path is not None
            local = await LocalGitSource.open(Path(target.local_path), max_file_bytes=s.max_file_bytes)
            ref = local.repo_ref
            folder = folder_within(local.root, Path(target.local_path))  # a path inside the working copy
            sources[ref.key()] = FolderScoped(local, folder) if folder else local
            if folder:
                local_scopes.append(RunScope(repo=ref.full_name, ref="HEAD", path=folder, kind="tree"))
        else:
            if github is None:
                github = GitHubClient(
                    services.github_http,
                    token=s.github_token,
                    clock=clock,
                    on_rate_limit=sink.on_rate_limit,
                    quota=services.quotas.github if services.quotas is not None and owners else None,
                    renames=renames,
                )
            ref = target.repo_ref()
            # On a Space the owner's token must not open the owner's private repositories to strangers
            # (nor tell their branches and folders apart): the check comes before the scope's resolution.
            public_only = hosted and owners
            pointed = None
            if target.ref_path:
                await GitHubSource(github, public_only=public_only).check_public(ref)
                pointed = await resolve_scope(github, ref, target.ref_path)
            sources[ref.key()] = GitHubSource(
                github, max_file_bytes=s.max_file_bytes, public_only=public_only, scope=pointed
            )
            if pointed is not None:
                scopes.append(pointed)
                notes.append(_pointed_at(pointed))
        scope.append(ref)
    if model is None:
        model, model_config = await session_model(services, s)
    toolbox = Toolbox(
        sources=sources,
        scope=scope,
        breakers=board,
        clock=clock,
        config=toolbox_config(s),
        on_retry=sink.on_retry,
        faults=chaos,
        renames=renames,
    )
    driver = await _driver(services, s, model, model_config) if model is not None else None
    analysis = Analysis(
        scope=scope,
        toolbox=toolbox,
        breakers=board,
        clock=clock,
        sink=sink,
        limits=run_limits(s, model_config, window=driver.window if driver is not None else 0),
        driver=driver,
        language=s.report_language,
        fallback_language=fallback_language,
        target_notes=notes,
        parallel_tool_calls=s.parallel_tool_calls,
        prefetch=s.prefetch,
        diagram_from_model=s.diagram_from_model,
        scopes=[*local_scopes, *(pointed.event() for pointed in scopes)],
    )
    if services.shared is None:
        return OpenedAnalysis(analysis=analysis)
    lang = s.report_language if s.report_language != "auto" else fallback_language
    unwatch = watch_health(services.shared.health, sink.put, sink.t, lang)
    return OpenedAnalysis(analysis=analysis, unwatch=unwatch)


def _pointed_at(scope: Scope) -> str:
    """The note for the model: what the user's URL pointed at, and that the tools read it."""
    what = "the file" if scope.kind == "blob" else "the folder"
    where = f"{what} '{scope.path}'" if scope.path else "the root"
    return (
        f"the user pointed at {where} of {scope.repo.full_name} at '{scope.ref}': every tool reads that ref, "
        f"and get_file_tree without a path gives that folder's tree (paths from the repository root); "
        f"answer about {where}"
    )
