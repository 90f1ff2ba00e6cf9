"""Who pays on a public Space, and which model, endpoint and key a session may use: pure decisions.

On a Hugging Face Space (``SPACE_ID``) every session starts on the owner's settings (``base``), so the
owner's model key and GitHub quota pay until a visitor pastes their own. From ``base`` and a session's
settings this module decides, holding no state and doing no I/O:

* :func:`session_settings`: what the settings panel's fields make of a session's settings (blank key
  fields keep the owner's keys; the owner's key travels with the owner's provider, base URL and model
  only; a visitor's own endpoint must be https on a public host; max turns capped by the owner's);
* :class:`Payer` (:meth:`Payer.of`): whose accounts a session's runs spend, which the hosted budget
  counts; a follow-up is paid by the payer its analysis opened with, and settings that change the payer
  close that analysis (:class:`~agent_core.web.browser_session.BrowserSession`);
* :func:`visitor_endpoint`: whether the model endpoint is a visitor's (the guarded pool, untrusted);
* :func:`shows_quota` and :func:`hides_model_host`: what of the owner's accounts a visitor may see.

:class:`~agent_core.web.browser_session.BrowserSession` keeps the results; the Space's shared quotas
are in :mod:`agent_core.top.hosting`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agent_core.errors import ConfigurationError
from agent_core.llm import PRESET_HOSTS, check_visitor_url, model_configured, resolve_model_config
from agent_core.llm.providers import PRESETS
from agent_core.settings import Settings, check_base_url
from agent_core.top.hosting import model_endpoint, owner_github, owner_model


@dataclass(frozen=True, kw_only=True)
class Payer:
    """Whose accounts a run spends: the owner's model key, the owner's GitHub quota (token or address)."""

    owner_model: bool
    owner_github: bool

    @classmethod
    def of(cls, base: Settings, session: Settings) -> Payer:
        """Who pays for runs on ``session``'s settings in a process configured with ``base``."""
        return cls(owner_model=owner_model(base, session), owner_github=owner_github(base, session))


def model_label(settings: Settings) -> tuple[str, str]:
    """``("deepseek-flash", "DeepSeek")``: the model and its provider, as the status line says them ("…
    via …"); raises ConfigurationError for unusable model settings."""
    config = resolve_model_config(**settings.model_config())
    preset = PRESETS.get(config.provider)
    return config.model, preset.label if preset else config.provider


def _keyed(settings: Settings) -> bool:
    return model_configured(**settings.model_config())


def _provider(settings: Settings) -> str | None:
    """The preset these settings' provider resolves to (None when they name no usable one)."""
    try:
        return model_label(settings)[1]
    except ConfigurationError:
        name = (settings.llm_provider or "").lower()
        return PRESETS[name].label if name in PRESETS else None


def session_settings(base: Settings, overrides: Mapping[str, object]) -> Settings:
    """The settings panel's fields (``overrides``, None: unchanged) applied to ``base``; validated.

    In hosted mode ``max_turns`` cannot exceed the operator's, and the operator's model keys stay with
    the operator's model: a visitor who points the model elsewhere without pasting a key gets no key
    (the offline planner, or a keyless provider), and one who keeps the operator's endpoint gets the
    operator's provider, base URL and model whatever they typed (the key pays for them). A visitor's own
    endpoint must be https on a public host (checked again when connecting). Raises ConfigurationError
    for settings the model layer refuses.
    """
    changes = {k: v for k, v in overrides.items() if v is not None}
    for secret in ("api_key", "github_token"):
        value = changes.get(secret)
        if not (isinstance(value, str) and value.strip()):
            changes.pop(secret, None)
        else:
            changes[secret] = value.strip()
    for name in ("llm_provider", "llm_model", "llm_base_url"):
        if name in overrides:
            value = overrides[name]
            changes[name] = value.strip() if isinstance(value, str) and value.strip() else None
    if "max_turns" in changes:
        turns = int(str(changes["max_turns"]))
        changes["max_turns"] = min(turns, base.max_turns) if base.hosted else max(1, turns)
    if base.hosted and changes.get("llm_base_url") is None:
        # The page never shows the owner's base URL: blank, with the owner's provider, means "theirs".
        chosen = base.with_overrides(llm_provider=changes.get("llm_provider"), llm_base_url=None)
        if _provider(chosen) == _provider(base):
            changes["llm_base_url"] = base.llm_base_url
    if isinstance(url := changes.get("llm_base_url"), str):
        check_base_url(url)  # its form first, before anything reads it (a clear error; nothing counted)
    candidate = base.with_overrides(**changes)
    if base.hosted:
        candidate = _hosted(base, candidate, own_key="api_key" in changes)
    candidate.validate()
    if _keyed(candidate):
        model_label(candidate)  # raises ConfigurationError for an unusable combination
    return candidate


def _hosted(base: Settings, candidate: Settings, *, own_key: bool) -> Settings:
    endpoint = model_endpoint(candidate)
    elsewhere = endpoint != model_endpoint(base)
    if not own_key and elsewhere:
        # Else the Space would send its owner's key to whatever server a stranger typed in.
        candidate = candidate.with_overrides(api_key=None, hf_token=None)
    elif not own_key:
        # The owner's key pays: the owner's model, whatever name the visitor typed.
        return candidate.with_overrides(
            llm_provider=base.llm_provider, llm_base_url=base.llm_base_url, llm_model=base.llm_model
        )
    if elsewhere and endpoint is not None and _keyed(candidate):
        check_visitor_url(endpoint, trusted_hosts=PRESET_HOSTS)
    return candidate


def visitor_endpoint(base: Settings, session: Settings) -> bool:
    """The session's model endpoint is a visitor's (on a Space, any other than the owner's): reached over
    the guarded pool, its answers and errors untrusted."""
    return base.hosted and model_endpoint(session) != model_endpoint(base)


def shows_quota(base: Settings, session: Settings) -> bool:
    """Whether the GitHub quota this session spends is its own to see (not a Space owner's)."""
    return not (base.hosted and owner_github(base, session))


def hides_model_host(base: Settings, payer: Payer) -> bool:
    """Whether a diagnosis of the model endpoint must lose its host: on a Space, the owner's endpoint
    (``payer.owner_model``) is never named to visitors, on the page or in an export."""
    return base.hosted and payer.owner_model
