"""Who pays on a public Space: the Space's hourly quotas, and whose credentials a session uses.

On a Hugging Face Space (``SPACE_ID``) strangers spend the owner's model key and GitHub quota. The
composition root (:mod:`agent_core.top.wiring`) builds one :class:`SpaceQuotas` per process and decides with
:func:`owner_github` and :func:`model_endpoint` which session draws from it, which may read private
repositories (none that the owner's token opens) and which model endpoint needs the guarded pool.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.clock import Clock
from agent_core.errors import ConfigurationError
from agent_core.llm import model_configured, resolve_model_config
from agent_core.resilience import HourlyQuota
from agent_core.settings import Settings


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
    uses_key = bool(session.api_key or session.hf_token) and model_configured(
        provider=session.llm_provider, api_key=session.api_key, hf_token=session.hf_token
    )
    same = (session.api_key, session.hf_token) == (base.api_key, base.hf_token)
    return bool(owner_key) and uses_key and same


def owner_github(base: Settings, session: Settings) -> bool:
    """The session reads GitHub with the owner's credentials: the owner's token, or none (the address)."""
    return session.github_token is None or session.github_token == base.github_token


@dataclass(frozen=True, kw_only=True)
class SpaceQuotas:
    """What all visitors of a Space together may spend of the owner's accounts in a sliding hour."""

    runs: HourlyQuota
    tokens: HourlyQuota
    github: HourlyQuota

    @classmethod
    def from_settings(cls, settings: Settings, clock: Clock) -> SpaceQuotas:
        return cls(
            runs=HourlyQuota(settings.space_runs_per_hour, clock=clock),
            tokens=HourlyQuota(settings.space_tokens_per_hour, clock=clock),
            github=HourlyQuota(settings.space_github_requests_per_hour, clock=clock),
        )
