"""The whole exception tree of agent_core, split by who must act.

    AgentCoreError
    ├── UserInputError            the person typing must fix something
    │   ├── InvalidTargetError    a pasted URL / owner/repo we cannot parse
    │   ├── InvalidArgumentError  a tool argument (owner, repo, path, range) that is not valid
    │   └── OutOfScopeError       a repository the user did not name for this run
    ├── ConfigurationError        the operator must fix settings (bad base URL, missing key...)
    ├── UpstreamError             GitHub or the model answered badly; usually transient or needs a token
    │   ├── GitHubError           carries the HTTP status (None for network errors)
    │   │   ├── NotFoundError     404/410: not found, or private
    │   │   ├── PermissionDeniedError  401/403 that is not a rate limit
    │   │   ├── RateLimitError    primary or secondary limit; carries the reset time and a hint
    │   │   ├── TransientError    5xx, timeouts, connection resets (retryable, breaker failures)
    │   │   └── RedirectRefusedError  a redirect to another host (never followed)
    │   ├── CircuitOpenError      a breaker refused the call; carries retry_after
    │   ├── CacheMissError        offline/stale lookup found nothing stored
    │   └── LLMError              the model endpoint failed (after the SDK's own retries)
    └── InternalError             our bug; should never reach a user as-is

Third-party exceptions (httpx, openai) are mapped once, at the client boundary, with ``raise ... from``.
Messages never contain tokens or keys: they are built from our own words and validated inputs only.
"""

from __future__ import annotations


class AgentCoreError(Exception):
    """Base of every error raised on purpose by agent_core."""

    hint: str | None = None
    zh: str | None = None  # the whole message (with its hint) in Chinese, where one was written

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if hint is not None:
            self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"

    def localized(self, lang: str) -> str:
        """The message for a person reading ``lang`` ("zh": the Chinese text when there is one)."""
        return self.zh if lang == "zh" and self.zh else str(self)


class UserInputError(AgentCoreError):
    """Something the user typed (or the model asked for) cannot be used."""


class InvalidTargetError(UserInputError):
    """A pasted repository reference that is not a GitHub URL, ``owner/repo`` or a usable local path."""


class InvalidArgumentError(UserInputError):
    """A tool argument that fails validation (owner/repo characters, a path escaping the repository...)."""


class OutOfScopeError(UserInputError):
    """A repository that the user did not name for this run."""


class ConfigurationError(AgentCoreError):
    """The settings are unusable; the operator must act."""


class UpstreamError(AgentCoreError):
    """A service we depend on failed or refused."""


class GitHubError(UpstreamError):
    """GitHub answered with an error (``status``) or could not be reached (``status is None``).

    ``requests`` is how many requests the failed exchange spent (so a failure's cost is reported too);
    ``cause`` is the diagnosis key (:data:`agent_core.diagnosis.CAUSES`: ``dns``, ``tls``, ``network``,
    ``timeout``... each class has its own default) and ``host`` the host that failed, when known.
    """

    cause: str | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        requests: int = 0,
        cause: str | None = None,
        host: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.requests = requests
        if cause is not None:
            self.cause = cause
        self.host = host


class NotFoundError(GitHubError):
    """404/410. GitHub answers 404 for private repositories too, so the message says "not found or private"."""

    cause = "not_found"


class PermissionDeniedError(GitHubError):
    """401 or a 403 that is not a rate limit: retrying cannot help."""

    cause = "github_auth"


class RateLimitError(GitHubError):
    """A primary (``remaining == 0``) or secondary rate limit whose wait exceeds the budget.

    ``reset_at`` is UTC epoch seconds when the limit lifts; ``retry_after`` is seconds from the
    moment the error was raised.
    """

    cause = "rate_limit"

    def __init__(
        self,
        message: str,
        *,
        status: int | None,
        kind: str,
        reset_at: float | None,
        retry_after: float | None,
        resource: str | None = None,
        hint: str | None = None,
        requests: int = 0,
    ) -> None:
        super().__init__(message, status=status, hint=hint, requests=requests)
        self.kind = kind
        self.reset_at = reset_at
        self.retry_after = retry_after
        self.resource = resource


class TransientError(GitHubError):
    """5xx, timeouts and dropped connections: retried with backoff, counted by breakers."""

    cause = "github_server"


class RedirectRefusedError(GitHubError):
    """A redirect that would leave the configured API host."""


class CircuitOpenError(UpstreamError):
    """The breaker for ``name`` is open (or its single half-open probe is taken)."""

    def __init__(self, name: str, *, retry_after: float, last_error: str | None = None) -> None:
        super().__init__(
            f"'{name}' is temporarily disabled after repeated failures; "
            + (f"next try in {retry_after:.0f}s" if retry_after >= 1 else "a probe call is under way or due"),
            hint="the circuit breaker is open; cached or partial data is used meanwhile",
        )
        self.name = name
        self.retry_after = retry_after
        self.last_error = last_error


class CacheMissError(UpstreamError):
    """An offline (cache-only) lookup found no stored response."""


class LLMError(UpstreamError):
    """The model endpoint failed after the SDK's own retries, or its stream was unusable.

    ``kind`` says what went wrong in one word a report or a page can explain: ``timeout`` (the turn's
    deadline), ``unreachable``, ``auth``, ``no_balance``, ``refused``, ``not_found``, ``rate_limited``,
    ``server``, ``bad_request``, ``context`` (the window was exceeded), ``tools_unsupported``,
    ``stream`` (broken off or garbled).
    """

    def __init__(
        self, message: str, *, status: int | None = None, hint: str | None = None, kind: str = "server"
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.kind = kind


class InternalError(AgentCoreError):
    """A bug in agent_core."""
