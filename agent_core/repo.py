"""The repositories a run may read: :class:`RepoRef`, and the validation of every owner, name and path.

:class:`RepoRef` names a repository in scope. :func:`validate_owner`, :func:`validate_repo_name`,
:func:`normalize_path` and :func:`repo_api_path` check every owner, repository and path a tool (that
is, the model) asks for, and build the only REST path shape we send:
``/repos/{owner}/{repo}/{fixed words}/{path}``, every segment percent-encoded, so no argument can add a
segment, a query, a fragment or a dot-segment.

Whether a repository is one the user named is checked by the toolbox, against the run's scope; this
module guarantees that a request cannot leave the repository it names. Error messages quote at most
~60 characters of the offending input, through :func:`preview` (``repr``: control characters show
escaped). :mod:`agent_core.sources.targets` shares the name patterns and these checks for what users
paste. Ground floor: imports only :mod:`agent_core.errors`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote

from agent_core.errors import InvalidArgumentError


@dataclass(frozen=True, kw_only=True)
class RepoRef:
    """A repository in scope. ``owner``/``name`` are canonical after a rename is learned."""

    owner: str
    name: str

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def key(self) -> str:
        """Case-insensitive identity (GitHub owner and repository names are case-insensitive)."""
        return self.full_name.lower()


@dataclass(frozen=True, kw_only=True)
class RunScope:
    """What a ``/tree/<ref>/<path>`` or ``/blob/<ref>/<path>`` URL pointed a run at: ``repo``
    (``owner/name``), the branch, tag or commit ``ref``, and a folder (``kind="tree"``, ``path`` "" is
    the root) or a file (``"blob"``). Carried by :class:`~agent_core.events.RunStarted`."""

    repo: str
    ref: str
    path: str = ""
    kind: Literal["tree", "blob"] = "tree"

    def label(self) -> str:
        """``owner/repo · pkg/parser @ main`` (``owner/repo @ main`` for the root)."""
        where = f" · {self.path}" if self.path else ""
        return f"{self.repo}{where} @ {self.ref}"


MAX_PATH_CHARS = 4096
_PREVIEW_CHARS = 60

# Owners: GitHub's rule (letters, digits, single inner hyphens, at most 39) plus one deliberate
# extension: an inner underscore, because Enterprise Managed Users are named ``handle_shortcode``.
# "_" is URL-safe, so the extension costs no safety.
OWNER_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|[-_](?=[A-Za-z0-9]))*")
REPO_RE = re.compile(r"[A-Za-z0-9._-]{1,100}")
CONTROL_CATEGORIES = frozenset({"Cc", "Zl", "Zp", "Cs"})  # Cs: lone surrogates cannot be UTF-8 encoded
_DRIVE_RE = re.compile(r"[A-Za-z]:")
_HOME_RE = re.compile(r"~[A-Za-z0-9._-]*")


def validate_owner(owner: str) -> str:
    """Return ``owner`` unchanged if it is a valid GitHub owner name, else raise InvalidArgumentError."""
    if not isinstance(owner, str) or not 1 <= len(owner) <= 39 or not OWNER_RE.fullmatch(owner):
        raise InvalidArgumentError(
            f"Invalid repository owner {preview(owner)}: expected 1-39 letters, digits or single "
            "hyphens (underscores allowed inside), not starting or ending with a hyphen"
        )
    return owner


def validate_repo_name(name: str) -> str:
    """Return ``name`` without a ``.git`` suffix if it is a valid repository name, else raise."""
    stripped = name
    while isinstance(stripped, str) and stripped.lower().endswith(".git"):
        stripped = stripped[:-4]
    if not isinstance(stripped, str) or stripped in {".", ".."} or not REPO_RE.fullmatch(stripped):
        raise InvalidArgumentError(
            f"Invalid repository name {preview(name)}: expected 1-100 letters, digits, '.', '-' or '_' "
            "(and not '.' or '..')"
        )
    return stripped


def normalize_path(path: str | None) -> str:
    """A repository path as a relative POSIX path; ``""`` is the root.

    ``None``, ``""``, ``"/"`` and ``"."`` mean the root. ``./`` segments, duplicate slashes, a trailing
    slash and any leading slashes are dropped: models write ``/src`` meaning ``src`` at the repository
    root, never the filesystem root. Raises InvalidArgumentError for a ``..`` segment, a backslash, a
    control character (NUL, DEL, U+0085, U+2028/9...), ``?``, ``#``, ``%`` (the caller never
    percent-encodes: :func:`repo_api_path` does), a Windows drive (``C:``), ``~`` or ``~user`` as the
    first segment, or more than 4096 characters. Segments whose Unicode compatibility form (NFKC) would
    be one of those (fullwidth ``．．``, ``／``, ``％``...) are refused too, so nothing downstream that
    normalises Unicode can turn them into a traversal. Otherwise Unicode is returned as given (NFC and
    NFD names both stay as they are: git stores bytes). Idempotent.
    """
    if path is None:
        return ""
    if not isinstance(path, str):
        raise InvalidArgumentError(f"Invalid path: expected a string, got {type(path).__name__}")
    if len(path) > MAX_PATH_CHARS:
        raise InvalidArgumentError(f"Invalid path {preview(path)}: longer than {MAX_PATH_CHARS} characters")
    segments = [segment for segment in path.split("/") if segment not in {"", "."}]
    problem = _first_segment_problem(segments[0]) if segments else None
    for segment in segments:
        problem = problem or _segment_problem(segment)
    if problem:
        raise InvalidArgumentError(f"Invalid path {preview(path)}: {problem}")
    return "/".join(segments)


def repo_api_path(owner: str, repo: str, *segments: str, path: str | None = None) -> str:
    """``/repos/{owner}/{repo}/{segments...}/{path}``, each part validated and percent-encoded.

    ``segments`` are our own fixed words (``"contents"``, ``"git"``, ``"trees"``, a sha); each must be a
    single segment (no ``/``, not ``.``/``..``). A ref containing ``/`` belongs in a query parameter
    (``?ref=``), which httpx encodes. ``path`` goes through :func:`normalize_path`; ``""`` adds nothing.
    ``repo`` loses a ``.git`` suffix. Example: ``repo_api_path("o", "r", "contents", path="a b.py")``
    is ``"/repos/o/r/contents/a%20b.py"``.
    """
    parts = [validate_owner(owner), validate_repo_name(repo)]
    parts.extend(_checked_fixed_segment(segment) for segment in segments)
    normalized = normalize_path(path)
    if normalized:
        parts.extend(normalized.split("/"))
    return "/repos/" + "/".join(quote(part, safe="") for part in parts)


def _first_segment_problem(segment: str) -> str | None:
    folded = unicodedata.normalize("NFKC", segment)
    if _DRIVE_RE.match(folded):
        return "a Windows drive is not a repository path; give a path relative to the repository root"
    if _HOME_RE.fullmatch(folded):
        return "'~' (a home directory) is not a repository path; give a path relative to the repository root"
    return None


def _segment_problem(segment: str) -> str | None:
    """Why one path segment is refused, or None; checks the segment and its NFKC form."""
    for form in (segment, unicodedata.normalize("NFKC", segment)):
        if form in {".", ".."}:
            return (
                "'..' segments are not allowed (nor look-alikes such as '．．'): stay inside the repository"
            )
        if "/" in form:
            return "a character that reads as '/' is not allowed inside a name"
        for char in form:
            problem = char_problem(char)
            if problem:
                return problem
    return None


def char_problem(char: str) -> str | None:
    """Why one character may not appear in a path segment or a ref, or None if it may."""
    if char == "\\":
        return "backslashes are not allowed; use '/' between directories"
    if char in "?#%":
        return f"{char!r} is not allowed (give the plain path: it is percent-encoded for you)"
    if unicodedata.category(char) in CONTROL_CATEGORIES:
        return f"control character {char!r} is not allowed"
    return None


def _checked_fixed_segment(segment: str) -> str:
    problem = "must be a non-empty string" if not isinstance(segment, str) or not segment else None
    problem = problem or ("must not contain '/'" if "/" in segment else None) or _segment_problem(segment)
    if problem:
        raise InvalidArgumentError(f"Invalid API path segment {preview(segment)}: {problem}")
    return segment


def preview(value: object) -> str:
    """``repr`` of ``value`` cut to ~60 characters: never echo a whole (possibly hostile) input."""
    if not isinstance(value, str):
        return f"a {type(value).__name__}"
    shown = repr(value)
    if len(shown) > _PREVIEW_CHARS:
        shown = shown[: _PREVIEW_CHARS - 2] + "…" + shown[0]
    return shown


class Renames:
    """The ONE map of the repositories renamed during a run, by the name the user typed (lower case):
    the current name (from the repository's info) and, once a 301 said it, the ``/repositories/{id}``
    path that reads it without another redirect. The GitHub client and the toolbox of a run share one,
    so a rename is learned once and every reader sees it."""

    def __init__(self) -> None:
        self._current: dict[str, RepoRef] = {}  # typed key -> the repository's current name
        self._typed: dict[str, str] = {}  # current key -> typed key
        self._id_paths: dict[str, str] = {}  # typed key -> "/repositories/{id}"

    def learn_name(self, typed: RepoRef, full_name: str) -> bool:
        """``typed`` is now called ``full_name`` ("owner/name"); False when that is no rename."""
        owner, _, name = full_name.partition("/")
        if not owner or not name or full_name.lower() == typed.key():
            return False
        self._current[typed.key()] = RepoRef(owner=owner, name=name)
        self._typed[full_name.lower()] = typed.key()
        return True

    def learn_id_path(self, typed_key: str, id_path: str) -> None:
        self._id_paths[typed_key.lower()] = id_path

    def current(self, repo: RepoRef) -> RepoRef:
        """The repository's current name when a rename was learned, else ``repo``."""
        return self._current.get(repo.key(), repo)

    def typed(self, key: str) -> str:
        """The key the user typed for a repository's current name ``key``, else ``key`` itself."""
        return self._typed.get(key.lower(), key.lower())

    def id_path(self, repo: RepoRef) -> str | None:
        return self._id_paths.get(repo.key())
