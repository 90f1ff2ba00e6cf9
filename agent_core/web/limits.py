"""How long each text a visitor sends may be, checked at the door before any other work.

Every handler that takes text (the page's runs and follow-ups, the settings panel, the public API and
MCP tools) checks it here first: before the first frame renders the request, before the target is
resolved and before the budget is asked. A 1 MB question once held the whole Space for minutes (issue
20, attack 1); now it costs one ``len``. The limits are far above what a person types.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_core.words import t

MAX_CHARS: Mapping[str, int] = {
    "target": 1_000,  # several repository URLs
    "question": 2_000,
    "followup": 2_000,
    "setting": 500,  # a provider, model, base URL, key or token
    "argument": 1_000,  # a public tool's argument (a path, a ref)
    "upload_name": 200,
}


def too_long(lang: str, *fields: tuple[str, object]) -> str | None:
    """The refusal's text for the first field over its limit, else None. ``fields``: (a kind of
    :data:`MAX_CHARS`, the value) pairs; values that are not text pass (their handler checks them)."""
    for kind, value in fields:
        limit = MAX_CHARS[kind]
        if isinstance(value, str) and len(value) > limit:
            name = t(f"limit_name_{kind}", lang)
            return t("limit_too_long", lang, name=name, size=f"{len(value):,}", limit=f"{limit:,}")
    return None
