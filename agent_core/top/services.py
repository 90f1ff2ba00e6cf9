"""Process-wide services: what every session and run of one process shares, created lazily, closed once.

The GitHub HTTP pool over the persistent cache, the model connection pool every session's model client
shares (and a guarded one for endpoints visitors chose on a Space), the context windows endpoints
reported, and on a Space the hourly quotas every visitor draws from. With ``REDIS_URL`` the cache, the
quotas and the GitHub rate-limit view are the ones every replica shares (:mod:`agent_core.shared_state`).
Built once by the app or the CLI (or :func:`agent_core.stream_analysis`), handed to
:func:`agent_core.top.wiring.open_analysis` for each run.
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

import httpx
import httpx2

from agent_core.agent.pace import PromptSpeeds
from agent_core.clock import Clock, SystemClock
from agent_core.github.http import CACHE_TTL_SECONDS, GitHubHTTP, local_scope_secret
from agent_core.llm import (
    LOCAL_TURN_SECONDS,
    PRESET_HOSTS,
    ModelConfig,
    Resolver,
    guarded_client,
    model_configured,
    resolve_model_config,
    system_resolver,
)
from agent_core.llm.providers import announced_config
from agent_core.llm.window import Announced, ask_endpoint
from agent_core.settings import Settings
from agent_core.shared_state import SharedCacheStorage, SharedRateLimits, SharedState, shared_scope_secret
from agent_core.top.hosting import SpaceQuotas


class Services:
    """Process-wide services, created lazily and closed once: the GitHub HTTP pool with its persistent
    cache, the model connection pool every session's model client shares (and a guarded one for
    endpoints visitors chose), and on a Space the hourly quotas every visitor draws from.

    ``resolver`` is how the guarded pool turns host names into addresses (tests map names there);
    ``github_transport`` is the wire under the GitHub pool (tests wrap the real one)."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        resolver: Resolver | None = None,
        github_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self._github_transport = github_transport  # tests: the wire under the GitHub pool
        self.clock = clock or SystemClock()
        self.resolver = resolver or system_resolver
        self.shared = (
            SharedState.from_url(settings.redis_url, clock=self.clock) if settings.redis_url else None
        )
        """The replicas' shared state (``REDIS_URL``); None: everything lives in this process."""
        self.quotas = (
            SpaceQuotas.from_settings(settings, self.clock, self.shared) if settings.hosted else None
        )
        self._http: GitHubHTTP | None = None
        self._llm_http: httpx2.AsyncClient | None = None
        self._heard: dict[tuple[str, str], Announced] = {}
        self.prompt_speeds = PromptSpeeds()  # each model endpoint's, as measured: what its brief may hold
        self._visitor_llm_http: httpx2.AsyncClient | None = None

    async def endpoint(
        self, settings: Settings, http: httpx2.AsyncClient, config: ModelConfig | None = None
    ) -> ModelConfig | None:
        """``config`` (by default the settings' own; None when they reach no model: the offline planner)
        with what its endpoint says of itself, asked once per endpoint and model over ``http`` (the pool
        the model itself uses) then remembered: its window (the setting's when set), and a local server's
        treatment (:func:`agent_core.llm.providers.announced_config`; ``LLM_LOCAL`` decides when set)."""
        if config is None:
            if not model_configured(**settings.model_config()):
                return None
            config = resolve_model_config(**settings.model_config())
        key = (config.base_url, config.model)
        if key not in self._heard:
            self._heard[key] = await ask_endpoint(
                http,
                base_url=config.base_url,
                api_key=config.api_key,
                model=config.model,
                provider=config.provider,
            )
        heard = self._heard[key]
        config = announced_config(config, server=heard.server, window=heard.window, trained=heard.trained)
        if settings.llm_context_window:
            config = replace(config, context_window=settings.llm_context_window)
        if settings.llm_local is not None:
            config = replace(config, local=settings.llm_local)
        return config

    async def context_window(self, settings: Settings, config: ModelConfig, http: httpx2.AsyncClient) -> int:
        """The model's context window: the setting, else what the endpoint reports, else the provider's
        preset."""
        announced = await self.endpoint(settings, http, config)
        return announced.context_window if announced is not None else config.context_window

    @property
    def github_http(self) -> GitHubHTTP:
        if self._http is None:
            s, shared = self.settings, self.shared
            self._http = GitHubHTTP(
                api_url=s.github_api_url,
                cache_dir=s.cache_dir,
                cache_max_bytes=s.cache_max_mb * 1024 * 1024,
                connect_timeout=s.github_connect_timeout,
                read_timeout=s.github_read_timeout,
                transport=self._github_transport,
                storage=SharedCacheStorage(shared, default_ttl=CACHE_TTL_SECONDS) if shared else None,
                scope_secret=shared_scope_secret(shared, lambda: local_scope_secret(s.cache_dir))
                if shared
                else None,
                rate_limits=SharedRateLimits(shared, clock=self.clock) if shared else None,
            )
        return self._http

    def warm(self) -> None:
        """Build the model pools now, at start: an SSL context is tens of milliseconds of CPU, which the
        first analysis would otherwise spend on the event loop while other pages wait."""
        _ = self.llm_http
        if self.settings.hosted:
            _ = self.visitor_llm_http

    @property
    def llm_http(self) -> httpx2.AsyncClient:
        """One connection pool (and SSL context) for every model client of the process."""
        if self._llm_http is None:
            self._llm_http = httpx2.AsyncClient(
                # Each request carries its own timeout (the turn's); this is only the pool's default.
                timeout=httpx2.Timeout(LOCAL_TURN_SECONDS, connect=10.0),
                limits=httpx2.Limits(max_connections=100, max_keepalive_connections=20),
            )
        return self._llm_http

    @property
    def visitor_llm_http(self) -> httpx2.AsyncClient:
        """The pool for model endpoints a visitor typed in: https to public addresses only."""
        if self._visitor_llm_http is None:
            self._visitor_llm_http = guarded_client(
                timeout=httpx2.Timeout(self.settings.llm_turn_timeout, connect=10.0),
                resolver=self.resolver,
                trusted_hosts=PRESET_HOSTS,
            )
        return self._visitor_llm_http

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
        if self._visitor_llm_http is not None:
            await self._visitor_llm_http.aclose()
            self._visitor_llm_http = None
        if self.shared is not None:
            await self.shared.aclose()
