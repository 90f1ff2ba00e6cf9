"""Who pays on a public Space: the Space's hourly quotas, and whose credentials a session uses.

On a Hugging Face Space (``SPACE_ID``) strangers spend the owner's model key and GitHub quota. The
composition root (:mod:`agent_core.top.wiring`) builds one :class:`SpaceQuotas` per process and decides with
:func:`owner_github` and :func:`model_endpoint` which session draws from it, which may read private
repositories (none that the owner's token opens) and which model endpoint needs the guarded pool. What
a session's settings may be, and who pays for its runs, is decided beside it in :mod:`agent_core.top.payer`.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.clock import Clock
from agent_core.errors import ConfigurationError
from agent_core.llm import model_configured, resolve_model_config
from agent_core.resilience import HourlyQuota
from agent_core.settings import Settings
from agent_core.shared_state import SharedQuota, SharedRunBudget, SharedState


def model_endpoint(settings: Settings) -> str | None:
    """The model base URL these settings resolve to (None if they resolve to none)."""
    try:
        config = resolve_model_config(**settings.model_config(keys=False))
    except ConfigurationError:
        return None
    return config.base_url


def owner_model(base: Settings, session: Settings) -> bool:
    """The session's model runs on the owner's key (a visitor who pasted no key of their own)."""
    owner_key = base.api_key or base.hf_token
    uses_key = bool(session.api_key or session.hf_token) and model_configured(**session.model_config())
    same = (session.api_key, session.hf_token) == (base.api_key, base.hf_token)
    return bool(owner_key) and uses_key and same


def owner_github(base: Settings, session: Settings) -> bool:
    """The session reads GitHub with the owner's credentials: the owner's token, or none (the address)."""
    return session.github_token is None or session.github_token == base.github_token


@dataclass(frozen=True, kw_only=True)
class SpaceQuotas:
    """What all visitors of a Space together may spend of the owner's accounts in a sliding hour: in this
    process, or in Redis for every replica (``shared``; they fail closed when Redis cannot be used)."""

    runs: HourlyQuota
    tokens: HourlyQuota
    github: HourlyQuota
    shared: SharedState | None = None

    @classmethod
    def from_settings(
        cls, settings: Settings, clock: Clock, shared: SharedState | None = None
    ) -> SpaceQuotas:
        def quota(name: str, limit: int, *, fail_closed: bool = True) -> HourlyQuota:
            if shared is None:
                return HourlyQuota(limit, clock=clock)
            return SharedQuota(shared, f"space-{name}", limit, clock=clock, fail_closed=fail_closed)

        return cls(
            runs=quota("runs", settings.space_runs_per_hour),
            tokens=quota("tokens", settings.space_tokens_per_hour),
            # Drawn by runs already admitted: while Redis is down they finish on this replica's own count
            # (new runs are refused at admission, by the runs quota, which fails closed).
            github=quota("github", settings.space_github_requests_per_hour, fail_closed=False),
            shared=shared,
        )

    def visitor_budget(self, name: str, limit: int, clock: Clock) -> SharedRunBudget | None:
        """A per-visitor budget every replica counts in (None: none is shared, count in this process)."""
        if self.shared is None:
            return None
        return SharedRunBudget(self.shared, name, limit, clock=clock)

    def unavailable(self) -> bool:
        """The shared store is down: nothing can be counted, so nothing owner-paid starts."""
        return self.shared is not None and not self.shared.health.up
