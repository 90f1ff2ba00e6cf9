"""What users paste and write: repository targets, parsed and found in free text.

:func:`parse_target` and :func:`parse_targets` turn what a person pastes (web URLs, SSH remotes,
``owner/repo``, local paths) into :class:`Target` values (repositories named inside free text are
found by :mod:`agent_core.sources.mentions`), or raise
:class:`~agent_core.errors.InvalidTargetError` with a message that shows what was expected. Error
messages quote at most ~60 characters of the offending input, through ``repr`` (control characters
show escaped).

The validation of what tools ask for (:func:`~agent_core.repo.validate_owner`,
:func:`~agent_core.repo.normalize_path`...) lives in :mod:`agent_core.repo`; this module reuses its
name patterns and checks for what people paste.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal
from urllib.parse import unquote, urlsplit

from agent_core.errors import ConfigurationError, InvalidArgumentError, InvalidTargetError
from agent_core.repo import (
    CONTROL_CATEGORIES,
    RepoRef,
    char_problem,
    normalize_path,
    preview,
    validate_owner,
    validate_repo_name,
)

__all__ = ["MAX_TARGETS", "Target", "parse_target", "parse_targets"]

MAX_TARGETS = 5

_DOMAIN_RE = re.compile(r"(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?::\d+)?")
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_SCP_RE = re.compile(r"git@([^:/\s]+)[:/](.*)", re.IGNORECASE | re.DOTALL)
_REF_BAD_RE = re.compile(r"[\s~^:?*\[\\#%]|\.\.|@\{|^[.-]|\.$|\.lock$")
_URL_SCHEMES = frozenset({"http", "https", "ssh", "git", "git+ssh", "ssh+git"})

# First URL segments that are GitHub pages, not owners (GitHub reserves them as user names).
RESERVED_OWNERS = frozenset(
    {
        "about", "account", "apps", "codespaces", "collections", "contact", "customer-stories",
        "dashboard", "enterprise", "enterprises", "events", "explore", "features", "issues", "join",
        "login", "logout", "marketplace", "new", "notifications", "organizations", "orgs", "pricing",
        "pulls", "readme", "search", "security", "sessions", "settings", "signup", "site", "sponsors",
        "stars", "team", "topics", "trending", "users",
    }
)  # fmt: skip

_PAIRS = MappingProxyType({
    '"': '"', "'": "'", "`": "`", "<": ">", "(": ")", "[": "]", "{": "}",
    "“": "”", "‘": "’", "「": "」", "『": "』", "（": "）", "《": "》",
})  # fmt: skip
_OPENER_OF = MappingProxyType({closer: opener for opener, closer in _PAIRS.items()})
_TRAILING_PUNCTUATION = ".,;:!?。，、；：！？"


@dataclass(frozen=True, kw_only=True)
class Target:
    """One repository the user named: on GitHub (``owner``/``name``) or a local directory.

    ``ref`` and ``subpath`` come from ``/tree/<ref>/<path>`` and ``/blob/<ref>/<path>`` URLs, split at
    the first slash (``subpath`` has passed :func:`normalize_path`); ``view`` ("tree" or "blob") and
    ``ref_path`` (everything after it) keep the URL whole, because a ref may hold slashes: the run
    resolves it against the repository's branches and tags (:func:`agent_core.sources.scope.resolve_scope`).
    ``raw`` is what the user typed, stripped.
    """

    kind: Literal["github", "local"]
    owner: str | None = None
    name: str | None = None
    ref: str | None = None
    subpath: str | None = None
    view: Literal["tree", "blob"] | None = None
    ref_path: str | None = None
    local_path: Path | None = None
    raw: str

    @property
    def full_name(self) -> str:
        """``owner/name`` for GitHub, the folder's name for a local directory."""
        if self.kind == "local":
            return _folder_name(self.local_path)
        return f"{self.owner}/{self.name}"

    def repo_ref(self) -> RepoRef:
        """The scope key: ``owner/name``, or owner ``local`` and the folder name."""
        if self.kind == "local":
            return RepoRef(owner="local", name=_folder_name(self.local_path))
        return RepoRef(owner=self.owner or "", name=self.name or "")


# --- parsing what users paste -----------------------------------------------------------------------


def parse_target(text: str, *, allow_local: bool = False, host: str = "github.com") -> Target:
    """One repository from what a person pasted.

    Accepted: ``https://HOST/o/r`` (also ``http://``, ``www.``, no scheme, ``.git``, trailing slash,
    sub-pages such as ``/issues``, ``?tab=readme``, ``#readme`` which are ignored), ``/tree/<ref>/<path>``
    and ``/blob/<ref>/<path>`` (kept whole as ``view`` and ``ref_path``, resolved when the run opens,
    since a ref containing ``/`` cannot be told apart from the path here), ``git@HOST:o/r.git``,
    ``ssh://git@HOST/o/r.git`` and plain ``o/r``; surrounding whitespace, quotes, brackets and trailing
    punctuation are ignored (so a repository name ending in "." loses that dot).

    With ``allow_local``, a path (absolute, ``./x``, ``~/x``, ``.``) or any existing directory is a local
    target, and it must be an existing directory. An explicit URL always means GitHub; a bare ``o/r``
    means a local directory only if ``allow_local`` and that directory exists.
    Raises InvalidTargetError for anything else (ConfigurationError for an unusable ``host``).
    """
    host = normalize_host(host)
    raw = text.strip() if isinstance(text, str) else ""
    cleaned = _strip_decorations(raw)
    if not cleaned:
        raise _expected(host, "an empty input")
    if any(unicodedata.category(char) in CONTROL_CATEGORIES for char in cleaned):
        raise _expected(host, preview(raw), "it contains control characters")
    if _looks_like_local_path(cleaned):
        if not allow_local:
            raise InvalidTargetError(
                f"Local paths are disabled on this server; paste a GitHub repository like "
                f"https://{host}/owner/repo or owner/repo (got {preview(raw)})"
            )
        return _local_target(cleaned, raw)
    url_path = _url_path_on_host(cleaned, raw, host)
    if url_path is not None:
        return _target_from_url_path(url_path, raw, host)
    if allow_local and _is_existing_directory(cleaned):
        return _local_target(cleaned, raw)
    return _target_from_owner_repo(cleaned, raw, host)


def parse_targets(text: str, *, allow_local: bool = False, host: str = "github.com") -> list[Target]:
    """Several targets (for a comparison), in order, deduplicated case-insensitively, at most 5.

    Separators: whitespace, commas, newlines, the words ``and``/``vs``/``vs.``/``versus`` and the
    Chinese ``和``, ``与``, ``对比`` (also without spaces around them). A local path therefore cannot
    contain spaces here; use :func:`parse_target` for one such path. Any unusable item raises.
    """
    targets: list[Target] = []
    seen: set[str] = set()
    for token in _split_targets(text if isinstance(text, str) else ""):
        target = parse_target(token, allow_local=allow_local, host=host)
        key = dedupe_key(target)
        if key not in seen:
            seen.add(key)
            targets.append(target)
    if not targets:
        raise _expected(normalize_host(host), "an empty input")
    if len(targets) > MAX_TARGETS:
        raise InvalidTargetError(
            f"At most {MAX_TARGETS} repositories can be compared at once; got {len(targets)}"
        )
    return targets


def _split_targets(text: str) -> list[str]:
    tokens: list[str] = []
    for token in re.split(r"[\s,，、;；]+", text):
        if token.lower() in {"", "and", "vs", "vs.", "versus"}:
            continue
        pieces = [token] if _looks_like_local_path(token) else re.split(r"对比|和|与", token)
        tokens.extend(piece for piece in pieces if piece)
    return tokens


def dedupe_key(target: Target) -> str:
    if target.kind == "local":
        return f"local:{target.local_path}"
    return target.repo_ref().key()


def _strip_decorations(text: str) -> str:
    """Peel whitespace, matching or lone quotes/brackets and trailing punctuation until stable."""
    previous = None
    while text != previous:
        previous = text
        text = text.strip()
        if len(text) >= 2 and _PAIRS.get(text[0]) == text[-1]:
            text = text[1:-1]
        elif text and text[0] in _PAIRS and _PAIRS[text[0]] not in text[1:]:
            text = text[1:]
        elif text and text[-1] in _OPENER_OF and _OPENER_OF[text[-1]] not in text[:-1]:
            text = text[:-1]
        else:
            text = _strip_trailing_punctuation(text)
    return text


def _strip_trailing_punctuation(text: str) -> str:
    while text and text[-1] in _TRAILING_PUNCTUATION:
        if text[-1] == "." and set(text.rsplit("/", 1)[-1]) == {"."}:
            break  # ".", "..", "~/.": a path, not the end of a sentence
        text = text[:-1]
    return text


def _looks_like_local_path(text: str) -> bool:
    return (
        text in {".", ".."}
        or text.startswith(("/", "./", "../", "~", ".\\", "..\\"))
        or "\\" in text
        or re.match(r"[A-Za-z]:[\\/]", text) is not None
    )


def _is_existing_directory(text: str) -> bool:
    try:
        return Path(text).is_dir()
    except (OSError, ValueError):
        return False


def _local_target(text: str, raw: str) -> Target:
    try:
        path = Path(text).expanduser().resolve()
        is_directory = path.is_dir()
    except (OSError, ValueError, RuntimeError) as exc:  # bad ~user, NUL byte, symlink loop, too long
        raise InvalidTargetError(f"Local path {preview(raw)} cannot be used: {type(exc).__name__}") from exc
    if not is_directory:
        raise InvalidTargetError(f"Local path {preview(raw)} does not exist or is not a directory")
    return Target(kind="local", local_path=path, raw=raw)


def _url_path_on_host(text: str, raw: str, host: str) -> str | None:
    """The path part if ``text`` is a URL (or SSH remote) on ``host``; None if it is not a URL at all.

    Raises for a URL on another host, with credentials, or with an unsupported scheme.
    """
    scp = _SCP_RE.fullmatch(text)
    if scp:
        _require_host(scp.group(1).lower(), None, raw, host)
        return re.split(r"[?#]", scp.group(2), maxsplit=1)[0]
    if not _SCHEME_RE.match(text):
        if re.match(rf"(?:www\.)?{re.escape(host)}(?:$|[/?#])", text, re.IGNORECASE):
            text = "https://" + text
        elif text.count("/") >= 2 and _DOMAIN_RE.fullmatch(text.split("/", 1)[0]):  # host/owner/repo
            other = preview(text.split("/", 1)[0])
            raise _expected(host, preview(raw), f"only {host} repositories are supported, not {other}")
        else:
            return None
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise _expected(host, preview(raw), "it is not a valid URL") from exc
    if parts.scheme not in _URL_SCHEMES:
        raise _expected(host, preview(raw), f"the scheme {preview(parts.scheme)} is not supported")
    if parts.password is not None or (parts.username is not None and parts.scheme in {"http", "https"}):
        # Never echo this input: it probably holds a token.
        raise _expected(host, "a URL with credentials in it", "remove the user name and token from the URL")
    _require_host(parts.hostname or "", port, raw, host)
    return parts.path


def _require_host(hostname: str, port: int | None, raw: str, host: str) -> None:
    got = hostname.removeprefix("www.")
    if port is not None and ":" in host:
        got = f"{got}:{port}"
    if got != host.removeprefix("www."):
        raise _expected(host, preview(raw), f"only {host} repositories are supported, not {preview(got)}")


def _target_from_url_path(url_path: str, raw: str, host: str) -> Target:
    segments = [segment for segment in url_path.split("/") if segment]
    if not segments:
        raise _expected(host, preview(raw), f"that is {host} itself; add /owner/repo")
    _reject_reserved(segments[0], raw, host)
    if len(segments) == 1:
        raise _expected(
            host,
            preview(raw),
            "that is a user or organisation page; add the repository name after it",
        )
    owner, name = _checked_owner_and_name(segments[0], segments[1], raw, host)
    if len(segments) < 4 or segments[2] not in {"tree", "blob"}:
        return Target(kind="github", owner=owner, name=name, raw=raw)
    ref = unquote(segments[3])
    if len(ref) > 255 or _REF_BAD_RE.search(ref) or any(char_problem(char) for char in ref):
        raise _expected(host, preview(raw), f"{preview(ref)} is not a usable branch, tag or commit")
    try:
        subpath = normalize_path(unquote("/".join(segments[4:])))
    except InvalidArgumentError as exc:
        raise _expected(host, preview(raw), f"its file path is not usable: {exc.message}") from exc
    view: Literal["tree", "blob"] = "blob" if segments[2] == "blob" else "tree"
    ref_path = "/".join(filter(None, (ref, subpath)))
    return Target(
        kind="github",
        owner=owner,
        name=name,
        ref=ref,
        subpath=subpath or None,
        view=view,
        ref_path=ref_path,
        raw=raw,
    )


def _target_from_owner_repo(text: str, raw: str, host: str) -> Target:
    parts = text.removesuffix("/").split("/")
    if len(parts) == 1:
        raise _expected(host, preview(raw), "give both the owner and the repository name")
    if len(parts) != 2:
        raise _expected(host, preview(raw), "owner/repo has exactly one '/'; paste the full URL otherwise")
    _reject_reserved(parts[0], raw, host)
    owner, name = _checked_owner_and_name(parts[0], parts[1], raw, host)
    return Target(kind="github", owner=owner, name=name, raw=raw)


def _reject_reserved(first: str, raw: str, host: str) -> None:
    if first.lower() in RESERVED_OWNERS:
        raise _expected(host, preview(raw), f"'{first.lower()}' is a {host} page, not a repository owner")


def _checked_owner_and_name(owner: str, name: str, raw: str, host: str) -> tuple[str, str]:
    try:
        return validate_owner(owner), validate_repo_name(name)
    except InvalidArgumentError as exc:
        raise _expected(host, preview(raw), exc.message) from exc


# --- small helpers --------------------------------------------------------------------------------------


def normalize_host(host: str) -> str:
    normalized = host.strip().lower() if isinstance(host, str) else ""
    if not normalized or re.search(r"[\s/@?#\\]", normalized):
        raise ConfigurationError(f"Invalid GitHub host {preview(host)}: expected a host name like github.com")
    return normalized


def _expected(host: str, got: str, why: str | None = None) -> InvalidTargetError:
    return InvalidTargetError(
        f"Expected a GitHub repository like https://{host}/owner/repo or owner/repo; got {got}", hint=why
    )


def _folder_name(path: Path | None) -> str:
    if path is None:
        return ""
    return path.name or str(path)
