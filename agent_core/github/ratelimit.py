"""GitHub rate-limit state: parsed from every response's headers, and how limit answers are told apart.

GitHub answers both its primary limit (``x-ratelimit-remaining: 0``) and its secondary limits (body
mentions "secondary rate limit") with 403 or 429. Any other 403 is a permission problem. See
``shared/notes/github-api.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

SECONDARY_MIN_WAIT = 60.0  # GitHub: without retry-after, wait at least a minute


@dataclass(frozen=True, kw_only=True)
class RateLimit:
    limit: int
    remaining: int
    used: int | None
    reset_at: float  # UTC epoch seconds
    resource: str
    authenticated: bool

    def exhausted(self, now_wall: float) -> bool:
        return self.remaining <= 0 and now_wall < self.reset_at


def parse_rate_limit(headers: Mapping[str, str], *, authenticated: bool) -> RateLimit | None:
    """The ``x-ratelimit-*`` headers, or None when absent or malformed (e.g. a proxy's error page)."""
    try:
        limit = int(headers["x-ratelimit-limit"])
        remaining = int(headers["x-ratelimit-remaining"])
        reset_at = float(headers["x-ratelimit-reset"])
    except (KeyError, ValueError):
        return None
    used_raw = headers.get("x-ratelimit-used")
    return RateLimit(
        limit=limit,
        remaining=remaining,
        used=int(used_raw) if used_raw and used_raw.isdigit() else None,
        reset_at=reset_at,
        resource=headers.get("x-ratelimit-resource", "core"),
        authenticated=authenticated,
    )


@dataclass(frozen=True, kw_only=True)
class LimitVerdict:
    """How a 403/429 answer must be treated."""

    kind: str  # "primary", "secondary" or "forbidden"
    wait: float | None  # seconds to wait before trying again (None for "forbidden")
    reset_at: float | None


def classify_limit(status: int, headers: Mapping[str, str], body: bytes, *, now_wall: float) -> LimitVerdict:
    """Tell a primary limit, a secondary limit and a plain permission refusal apart (403/429 only)."""
    retry_after = _retry_after(headers.get("retry-after"))
    if headers.get("x-ratelimit-remaining") == "0":
        try:
            reset_at = float(headers["x-ratelimit-reset"])
        except (KeyError, ValueError):
            reset_at = now_wall + (retry_after or SECONDARY_MIN_WAIT)
        wait = max(0.0, reset_at - now_wall) + 1.0  # "not before reset (+1 s)"
        return LimitVerdict(kind="primary", wait=wait, reset_at=reset_at)
    message = error_message(body).lower()
    if "secondary rate limit" in message or "abuse" in message or status == 429:
        wait = retry_after if retry_after is not None else SECONDARY_MIN_WAIT
        return LimitVerdict(kind="secondary", wait=wait, reset_at=now_wall + wait)
    return LimitVerdict(kind="forbidden", wait=None, reset_at=None)


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # HTTP-date form: GitHub sends seconds; fall back to the minimum wait


def error_message(body: bytes) -> str:
    """GitHub's ``message`` in an error body ("" when the body is not such JSON)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return ""
    return str(data.get("message", "")) if isinstance(data, dict) else ""
