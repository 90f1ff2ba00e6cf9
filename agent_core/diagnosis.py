"""Why a run failed or lost data, in words a person can act on: the cause, and what to do next.

A failure is diagnosed once, where it happens, as a short key (:data:`Cause`): the GitHub client sets
it on its errors (``dns``, ``tls``, ``network``, ``timeout``, ``github_server``, ``rate_limit``,
``not_found``, ``github_auth``), the model driver derives it from the model's error kind (``model_*``).
The events carry a :class:`~agent_core.events.Diagnosis` (the key, which service, the host, a reset time);
every consumer — the page, the CLI, the API — turns it into text with :func:`explain`, in English or
Chinese (the sentences: ``agent_core/words/diagnosis_*.py``). The breaker that opened because of a failure remembers its cause, so "temporarily disabled" is
never the explanation: the failure behind it is.
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from agent_core.events import Diagnosis
from agent_core.words import words_for

__all__ = [
    "CAUSES",
    "Explanation",
    "Failure",
    "connection_cause",
    "diagnose_results",
    "explain",
    "model_cause",
]

CAUSES = (
    "dns",
    "network",
    "tls",
    "timeout",
    "github_server",
    "rate_limit",
    "space_quota",
    "not_found",
    "github_auth",
    "github_paused",
    "model_unreachable",
    "model_timeout",
    "model_auth",
    "model_no_balance",
    "model_not_found",
    "model_rate_limited",
    "model_context",
    "model_refused",
    "model_server",
    "model_stream",
    "model_no_tools",
)
_ROOT_FIRST = (
    "dns",
    "tls",
    "network",
    "rate_limit",
    "space_quota",
    "github_auth",
    "timeout",
    "github_server",
    "not_found",
    "github_paused",
)
"""When several calls failed, the cause that explains the others comes first: no name resolution explains
every later failure, a 404 on one file explains nothing else."""
_DNS_WORDS = ("name or service not known", "temporary failure in name resolution", "nodename nor servname")


def connection_cause(error: BaseException) -> Literal["dns", "tls", "network"]:
    """What broke a connection, from the exception chain: the name did not resolve, TLS failed, or the
    network (refused, unreachable, reset)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = str(current).lower()
        if isinstance(current, socket.gaierror) or any(word in text for word in _DNS_WORDS):
            return "dns"
        if isinstance(current, ssl.SSLError) or "certificate_verify_failed" in text or "[ssl" in text:
            return "tls"
        current = current.__cause__ or current.__context__
    return "network"


def model_cause(kind: str) -> str:
    """The cause of a model failure from its error kind (``unreachable`` → ``model_unreachable``)."""
    cause = f"model_{kind}"
    return cause if cause in CAUSES else "model_server"


@dataclass(frozen=True, kw_only=True)
class Failure:
    """One failed tool call, as far as a diagnosis cares."""

    cause: str | None
    host: str | None = None
    source: Literal["github", "local"] = "github"
    reset_at: float | None = None
    repo: str | None = None
    whole_repository: bool = False  # the call read the repository itself (a 404 there means it is missing)


def diagnose_results(failures: Iterable[Failure]) -> Diagnosis | None:
    """The cause that explains a run's failed tool calls: the most fundamental one (a name that does not
    resolve explains every later failure; a missing file explains nothing else and is left out)."""
    found = [f for f in failures if f.cause and (f.cause != "not_found" or f.whole_repository)]
    for root in _ROOT_FIRST:
        for failure in found:
            if failure.cause == root:
                return Diagnosis(
                    cause=root,
                    source=failure.source,
                    host=failure.host,
                    reset_at=failure.reset_at,
                    repo=failure.repo if root == "not_found" else None,
                )
    return None


@dataclass(frozen=True, kw_only=True)
class Explanation:
    what: str  # what happened, naming the cause
    next_step: str  # what the person can do about it


def explain(diagnosis: Diagnosis, lang: str = "en", *, reset_at: float | None = None) -> Explanation:
    """The diagnosis in words, in ``lang`` ("en" or "zh"; English otherwise)."""
    words = words_for(lang)
    cause = diagnosis.cause if words.has(f"cause_{diagnosis.cause}_what") else "unknown"
    if diagnosis.source == "local" and words.has(f"cause_{cause}_local_what"):
        cause = f"{cause}_local"  # the source actually used: a local checkout is not GitHub
    at = diagnosis.reset_at if diagnosis.reset_at is not None else reset_at
    # A host the diagnosis does not name: a Space's own model endpoint is never named to its visitors.
    unnamed = f"unnamed_{diagnosis.source}"
    values = {
        "host": diagnosis.host or (words(unnamed) if words.has(unnamed) else "?"),
        "repo": diagnosis.repo or words("unnamed_repo"),
        "reset": time.strftime("%H:%M UTC", time.gmtime(at)) if at is not None else "?",
    }
    return Explanation(
        what=words(f"cause_{cause}_what", **values), next_step=words(f"cause_{cause}_next", **values)
    )
