"""Values and GitHub constants shared by the GitHub emulator's modules.

The API version and base URLs, the media types and documentation URLs GitHub's answers carry,
:class:`RecordedRequest` (what tests observe), :class:`Response` (an answer before it is written),
:class:`Repo` (one served repository), :class:`Limits` (the tunables one request is rendered with),
and :class:`ApiError` with the JSON body helpers that the views, the fault injection and the server
all use.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from testing.emulator.gitrepo import GitReader

API_VERSION = "2022-11-28"
HTML_BASE = "https://github.com"
RAW_BASE = "https://raw.githubusercontent.com"
DOCS = "https://docs.github.com/rest"
JSON_TYPE = "application/json; charset=utf-8"
RAW_TYPE = "application/vnd.github.raw; charset=utf-8"
DOC_URLS = {
    "repo": f"{DOCS}/repos/repos#get-a-repository",
    "contents": f"{DOCS}/repos/contents#get-repository-content",
    "readme": f"{DOCS}/repos/contents#get-a-repository-readme",
    "commits": f"{DOCS}/commits/commits#list-commits",
    "trees": f"{DOCS}/git/trees#get-a-tree",
    "refs": f"{DOCS}/git/refs#list-matching-references",
    "languages": f"{DOCS}/repos/repos#list-repository-languages",
    "rate_limit": f"{DOCS}/overview/rate-limits-for-the-rest-api",
}


@dataclass(frozen=True, kw_only=True)
class RecordedRequest:
    """One request as the emulator saw it. The token is never stored, only whether there was one.

    ``path`` is the raw request path (still percent-encoded, no query); ``decoded_path`` is unquoted.
    ``status`` is None when the connection was dropped (``dropped``) without an answer.
    ``started``/``finished`` are ``time.monotonic()`` readings; ``finished`` is taken when the answer
    is ready, just before it is written (so a client holding an answer always finds its record).
    ``fault`` names the injected fault that answered instead of the API, None when the API answered:
    a queued one (``"status"``, ``"drop"``, ``"hang"``) or a random one (``"5xx"``, ``"429"``,
    ``"timeout"`` -- held past the client's timeout, then dropped -- or ``"down"``).
    """

    method: str
    path: str
    query: Mapping[str, str]
    decoded_path: str
    authorized: bool
    user_agent: str | None
    accept: str | None
    if_none_match: str | None
    status: int | None
    counted: bool
    started: float
    finished: float
    dropped: bool
    fault: str | None = None


@dataclass(frozen=True, kw_only=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str | None = JSON_TYPE
    headers: tuple[tuple[str, str], ...] = ()
    cacheable: bool = False  # gets an ETag and may become a 304
    weak_etag: bool = True


Step = Response | Literal["drop", "hang"]


@dataclass(frozen=True, kw_only=True)
class Repo:
    id: int
    owner: str
    name: str
    reader: GitReader
    description: str | None
    stars: int
    forks: int
    open_issues: int
    topics: tuple[str, ...]
    private: bool
    readers: frozenset[str] = frozenset()  # tokens that may read a private repository
    license: str | None
    homepage: str | None
    archived: bool

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass(frozen=True, kw_only=True)
class Limits:
    """The tunables a request is rendered with (a snapshot, so a test changing them mid-run is safe)."""

    max_dir_entries: int
    max_inline_size: int
    max_tree_entries: int
    logins: Mapping[str, str]
    max_tree_bytes: int = 7_000_000


class ApiError(Exception):
    def __init__(self, status: int, message: str, *, doc: str = DOCS, with_status: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.payload: dict[str, str] = {"message": message, "documentation_url": doc}
        if with_status:
            self.payload["status"] = str(status)


def json_response(
    status: int, payload: Any, *, cacheable: bool = True, headers: tuple[tuple[str, str], ...] = ()
) -> Response:
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    return Response(status=status, body=body, cacheable=cacheable and status == 200, headers=headers)


def not_found(doc: str) -> ApiError:
    return ApiError(404, "Not Found", doc=doc)
