"""The one configuration object, built at the edge (app, CLI) from environment variables and ``.env``.

The core never reads the environment: it receives a :class:`Settings`. Every variable is documented
with its default in ``.env.example``; the names below are a contract with users, tests and later code.
Secrets (``GITHUB_TOKEN``, ``API_KEY``, ``HF_TOKEN``) are excluded from ``repr`` so that logging a
Settings object can never leak them.

Two decisions are made here, once, and everything else reads them: where the server binds
(:attr:`Settings.bind_address`, from ``GRADIO_SERVER_NAME``/``HOST``, else loopback, or every interface
on a Space) and whether local paths are allowed (:attr:`Settings.allow_local_paths`: only when asked
for, never on a Space, and only on a loopback bind unless ``DANGEROUSLY_EXPOSE_LOCAL_PATHS`` is set,
since anyone who reaches the port could then read any git repository on the server's disk).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, TypedDict
from urllib.parse import urlsplit

from dotenv import dotenv_values

from agent_core.errors import ConfigurationError
from agent_core.words import t

ReportLanguage = Literal["auto", "en", "zh"]
ToolProtocol = Literal["auto", "native", "text"]


def default_cache_dir(environ: Mapping[str, str]) -> Path:
    """Per-user cache folder: ``$XDG_CACHE_HOME/repo-analyst`` or ``~/.cache/repo-analyst``."""
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "repo-analyst"


class ModelSettings(TypedDict):
    """The model these settings choose, in the keywords :func:`agent_core.llm.resolve_model_config`
    takes (which resolves it against the provider presets: the ground floor knows no presets)."""

    provider: str | None
    base_url: str | None
    model: str | None
    api_key: str | None
    hf_token: str | None


@dataclass(frozen=True, kw_only=True)
class Settings:
    """One process's configuration; each field's variable and default are listed in ``.env.example``."""

    # GitHub
    github_token: str | None = field(default=None, repr=False)
    github_api_url: str = "https://api.github.com"
    github_connect_timeout: float = 5.0
    github_read_timeout: float = 15.0
    # Model
    api_key: str | None = field(default=None, repr=False)
    hf_token: str | None = field(default=None, repr=False)
    llm_provider: str | None = None
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_turn_timeout: float | None = None  # longest wait for progress; None: the provider's (2/10 min)
    llm_max_tokens: int = 4096
    llm_temperature: float = 0.2
    # Loop-discouraging sampling; None: the provider's (local servers: 0.3 and 1.1; hosted: not sent)
    llm_frequency_penalty: float | None = None
    llm_presence_penalty: float | None = None
    llm_repeat_penalty: float | None = None  # llama.cpp's and Ollama's (1.0: off)
    llm_context_window: int | None = None  # None: what the endpoint reports, else the provider's
    # A local model's treatment (one request at a time, time budgets, its report kept to what the check
    # can stand behind); None: inferred from the address and /v1/models (a big model on a private host: false)
    llm_local: bool | None = None
    tool_protocol: ToolProtocol = "auto"
    prefetch: bool = True
    # The model proposes the report's architecture diagram (checked); unset: yes, but not a local model
    diagram_from_model: bool | None = None
    report_language: ReportLanguage = "auto"
    # Cache
    cache_dir: Path = field(default_factory=lambda: Path.home() / ".cache" / "repo-analyst")
    cache_max_mb: int = 200
    # Shared state (several replicas): unset, everything lives in this process (the cache in SQLite)
    redis_url: str | None = field(default=None, repr=False)  # may hold a password
    # Resilience
    retry_max_attempts: int = 4
    retry_base_delay: float = 0.5
    retry_max_delay: float = 8.0
    retry_max_total: float = 20.0
    rate_limit_max_wait: float = 30.0
    breaker_failure_threshold: int = 3
    breaker_open_seconds: float = 30.0
    # Guardrails
    max_turns: int = 12
    max_tool_calls: int = 40
    max_total_tokens: int = 300_000
    max_wall_seconds: float | None = None  # None: the provider's (5 min hosted, 30 min local)
    context_budget_tokens: int | None = None  # None: the context window minus the reply and tool schemas
    tool_timeout: float = 30.0
    read_file_max_chars: int = 6000
    tree_max_entries: int = 200
    observation_max_chars: int = 8000
    parallel_tool_calls: bool = True
    # Resource caps (hostile repositories and endpoints)
    max_file_bytes: int = 2 * 1024 * 1024
    reasoning_max_chars: int = 32_000
    max_upload_mb: int = 5
    # Hosting
    space_id: str | None = None
    gradio_server_name: str | None = None
    allow_local_paths: bool = True
    dangerously_expose_local_paths: bool = False
    mcp_server: bool = False
    runs_per_hour: int = 10
    max_concurrent_runs: int = 4
    space_runs_per_hour: int = 30
    space_tokens_per_hour: int = 2_000_000
    space_github_requests_per_hour: int = 1_500
    log_level: str = "INFO"

    def __post_init__(self) -> None:
        # However built: local paths would expose the server's disk to whoever reaches the port.
        allowed = (
            self.allow_local_paths
            and not self.space_id
            and (is_loopback(self.bind_address) or self.dangerously_expose_local_paths)
        )
        object.__setattr__(self, "allow_local_paths", allowed)

    @property
    def hosted(self) -> bool:
        """Running on a Hugging Face Space (``SPACE_ID`` set): strangers use the owner's keys."""
        return self.space_id is not None

    @property
    def bind_address(self) -> str:
        """Where the server listens: ``GRADIO_SERVER_NAME`` (or ``HOST``), else every interface on a
        Space (the platform's proxy must reach it) and loopback anywhere else."""
        return self.gradio_server_name or ("0.0.0.0" if self.hosted else "127.0.0.1")  # noqa: S104

    def model_config(self, *, keys: bool = True) -> ModelSettings:
        """The model configuration as these settings choose it, assembled here and nowhere else:
        ``resolve_model_config(**settings.model_config())``. ``keys=False``: which endpoint, not who pays
        (the keys left out)."""
        return ModelSettings(
            provider=self.llm_provider,
            base_url=self.llm_base_url,
            model=self.llm_model,
            api_key=self.api_key if keys else None,
            hf_token=self.hf_token if keys else None,
        )

    def with_overrides(self, **changes: Any) -> Settings:
        """A copy with some fields changed (per-session keys, max turns, language...)."""
        return replace(self, **changes)

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, dotenv_path: Path | None = Path(".env")
    ) -> Settings:
        """Build from ``environ`` (default ``os.environ``) over the values of ``dotenv_path``.

        Real environment variables win over ``.env`` (python-dotenv's convention); the process
        environment is not modified.
        """
        env: dict[str, str] = {}
        if dotenv_path is not None and dotenv_path.is_file():
            env.update({k: v for k, v in dotenv_values(dotenv_path).items() if v is not None})
        env.update(os.environ if environ is None else environ)
        return cls._from_mapping(env)

    @classmethod
    def _from_mapping(cls, env: Mapping[str, str]) -> Settings:
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f.name.upper())
            if raw is None or raw.strip() == "":
                continue
            values[f.name] = _convert(f.name, raw.strip(), f.type)
        if "gradio_server_name" not in values and env.get("HOST", "").strip():
            values["gradio_server_name"] = env["HOST"].strip()
        values.setdefault("cache_dir", default_cache_dir(env))
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        if not self.github_api_url.startswith(("https://", "http://")):
            raise ConfigurationError(f"GITHUB_API_URL must be an http(s) URL, got {self.github_api_url!r}")
        if self.report_language not in ("auto", "en", "zh"):
            raise ConfigurationError("REPORT_LANGUAGE must be auto, en or zh")
        if self.redis_url is not None and not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigurationError("REDIS_URL must be a redis://, rediss:// or unix:// URL")
        if self.tool_protocol not in ("auto", "native", "text"):
            raise ConfigurationError("TOOL_PROTOCOL must be auto, native or text")
        if self.llm_base_url:
            check_base_url(self.llm_base_url)
        for name in (
            "max_turns",
            "max_tool_calls",
            "retry_max_attempts",
            "breaker_failure_threshold",
            "max_file_bytes",
            "reasoning_max_chars",
            "max_upload_mb",
            "space_runs_per_hour",
            "space_tokens_per_hour",
            "space_github_requests_per_hour",
        ):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name.upper()} must be at least 1")


def is_loopback(host: str) -> bool:
    """Whether a bind address (or host name) is loopback only: ``localhost``, 127.0.0.0/8 or ``::1``."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # another host name, "", "0.0.0.0"...: not loopback


def base_url_problem(url: str) -> tuple[str, dict[str, str]] | None:
    """What is wrong with a model base URL's form, as a words key (``url_*`` in ``words/page_*``) and its
    values, or None. Read strictly, before anything is counted or sent: a URL that parses but that an
    HTTP client would refuse or read otherwise (``0177.0.0.1`` is 127.0.0.1 to ``inet_aton``, an
    ``InvalidURL`` to httpx) is refused here, whatever the host it names."""
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        return "url_syntax", {}
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        key = "url_port" if "port" in str(exc).lower() else "url_syntax"
        return key, {"port": _netloc_port(url)}
    if parts.scheme not in ("http", "https") or not host:
        return "url_syntax", {}
    if parts.username is not None or parts.password is not None:
        return "url_credentials", {}
    if port == 0:
        return "url_port", {"port": "0"}
    shown = host[:80]
    if ":" in host or parts.netloc.rpartition("@")[2].startswith("["):
        if "%" in host:
            return "url_ipv6", {"host": shown}
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return "url_ipv6", {"host": shown}
        return None
    labels = host.removesuffix(".").split(".")
    last = labels[-1]
    if last.isdigit() or last.startswith("0x") or all(label.isdigit() for label in labels):
        canonical = len(labels) == 4 and all(
            label.isdigit() and label == str(int(label)) and int(label) <= 255 for label in labels
        )
        return None if canonical else ("url_numeric_host", {"host": shown})
    if not host.isascii() or len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return "url_host", {"host": shown}
    return None


def check_base_url(url: str) -> None:
    """Raise ConfigurationError (English, with its Chinese beside it) when :func:`base_url_problem`
    finds one."""
    problem = base_url_problem(url.strip())
    if problem is not None:
        key, values = problem
        error = ConfigurationError(t(key, "en", **values))
        error.zh = t(key, "zh", **values)
        raise error


_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")


def _netloc_port(url: str) -> str:
    """What follows the last ``:`` of a URL's authority, for the message (the port as typed)."""
    authority = url.partition("://")[2].split("/", 1)[0]
    return authority.rpartition("]")[2].rpartition(":")[2][:20]


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _convert(name: str, raw: str, annotation: object) -> Any:
    kind = str(annotation).removesuffix(" | None")
    try:
        if kind == "bool":
            low = raw.lower()
            if low not in _TRUE | _FALSE:
                raise ValueError(raw)
            return low in _TRUE
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind == "Path":
            return Path(raw).expanduser()
    except ValueError as exc:
        raise ConfigurationError(f"{name.upper()} has an invalid value {raw!r} (expected {kind})") from exc
    if name == "github_api_url":
        return raw.rstrip("/")
    return raw
