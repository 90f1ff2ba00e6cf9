"""A GitHub REST API emulator for tests: a real HTTP/1.1 server on 127.0.0.1 backed by real git repositories.

It serves the subset of the API (version 2022-11-28) that repo-analyst uses, with GitHub's shapes and
quirks: case-insensitive names, renamed repositories (301 to ``/repositories/{id}``), private
repositories answering 404, the contents API's 1,000-entry listings, ``encoding: "none"`` for large
files, the raw media type, symlinks and submodules, 409 for empty repositories, ETags and 304s,
primary rate limits per identity (a token, else the client IP) and the User-Agent requirement.

Tests can also inject faults (statuses, secondary limits, dropped or hung connections, latency,
redirects to another host) and observe every request (:attr:`GitHubEmulator.requests`, the in-flight
peak). All state lives in one :class:`GitHubEmulator`; nothing is shared between two of them.

    with GitHubEmulator() as emu:
        emu.add_repo("octo/demo", sample_python_project(tmp_path / "demo"))
        httpx.get(f"{emu.base_url}/repos/octo/demo", headers={"User-Agent": "t"})

Answers to fault injection (``fail``, ``secondary_limit``, ``redirect_elsewhere``) and to a missing
User-Agent come from "the front end": they never count against the rate limit and carry no rate-limit
headers. ``/rate_limit`` never counts either; a 304 counts only when the request had no Authorization.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import logging
import math
import posixpath
import re
import socket
import socketserver
import threading
import time
import zlib
from collections import deque
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any, Literal, Self, cast
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from tests.emulator.gitrepo import GitReader, LogEntry, TreeItem

__all__ = ["GitHubEmulator", "RecordedRequest"]

logger = logging.getLogger(__name__)

API_VERSION = "2022-11-28"
HTML_BASE = "https://github.com"
RAW_BASE = "https://raw.githubusercontent.com"
_DOCS = "https://docs.github.com/rest"
_JSON = "application/json; charset=utf-8"
_RAW = "application/vnd.github.raw; charset=utf-8"
_VARY = "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding"
_MOVED_DOCS = f"{_DOCS}/guides/best-practices-for-using-the-rest-api#follow-redirects"
_NO_USER_AGENT = (
    "Request forbidden by administrative rules. Please make sure your request has a User-Agent header "
    "(https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). "
    "Check https://developer.github.com for other possible causes.\n"
)
_SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach "
    "out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000."
)
_DOC_URLS = {
    "repo": f"{_DOCS}/repos/repos#get-a-repository",
    "contents": f"{_DOCS}/repos/contents#get-repository-content",
    "readme": f"{_DOCS}/repos/contents#get-a-repository-readme",
    "commits": f"{_DOCS}/commits/commits#list-commits",
    "trees": f"{_DOCS}/git/trees#get-a-tree",
    "languages": f"{_DOCS}/repos/repos#list-repository-languages",
    "rate_limit": f"{_DOCS}/overview/rate-limits-for-the-rest-api",
}
_LANGUAGES = {
    ".py": "Python",
    ".pyi": "Python",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".rs": "Rust",
    ".go": "Go",
    ".c": "C",
    ".h": "C",
    ".cpp": "C++",
    ".java": "Java",
    ".rb": "Ruby",
    ".sh": "Shell",
    ".html": "HTML",
    ".css": "CSS",
}
_LICENSES = {
    "MIT": ("mit", "MIT License", "MDc6TGljZW5zZW1pdA=="),
    "Apache-2.0": ("apache-2.0", "Apache License 2.0", "MDc6TGljZW5zZTI="),
    "BSD-3-Clause": ("bsd-3-clause", 'BSD 3-Clause "New" or "Revised" License', "MDc6TGljZW5zZTU="),
    "GPL-3.0": ("gpl-3.0", "GNU General Public License v3.0", "MDc6TGljZW5zZTk="),
}
_REPO_URLS = {  # key -> suffix after the repository's API url, as in the repos-get fixture
    "archive_url": "/{archive_format}{/ref}",
    "assignees_url": "/assignees{/user}",
    "blobs_url": "/git/blobs{/sha}",
    "branches_url": "/branches{/branch}",
    "collaborators_url": "/collaborators{/collaborator}",
    "comments_url": "/comments{/number}",
    "commits_url": "/commits{/sha}",
    "compare_url": "/compare/{base}...{head}",
    "contents_url": "/contents/{+path}",
    "contributors_url": "/contributors",
    "deployments_url": "/deployments",
    "downloads_url": "/downloads",
    "events_url": "/events",
    "forks_url": "/forks",
    "git_commits_url": "/git/commits{/sha}",
    "git_refs_url": "/git/refs{/sha}",
    "git_tags_url": "/git/tags{/sha}",
    "hooks_url": "/hooks",
    "issue_comment_url": "/issues/comments{/number}",
    "issue_events_url": "/issues/events{/number}",
    "issues_url": "/issues{/number}",
    "keys_url": "/keys{/key_id}",
    "labels_url": "/labels{/name}",
    "languages_url": "/languages",
    "merges_url": "/merges",
    "milestones_url": "/milestones{/number}",
    "notifications_url": "/notifications{?since,all,participating}",
    "pulls_url": "/pulls{/number}",
    "releases_url": "/releases{/id}",
    "stargazers_url": "/stargazers",
    "statuses_url": "/statuses/{sha}",
    "subscribers_url": "/subscribers",
    "subscription_url": "/subscription",
    "tags_url": "/tags",
    "teams_url": "/teams",
    "trees_url": "/git/trees{/sha}",
}
_REPO_PATH = re.compile(r"^/repos/([^/]+)/([^/]+)(/.*)?$")
_ID_PATH = re.compile(r"^/repositories/(\d+)(/.*)?$")
_NOREPLY = re.compile(r"^(?:\d+\+)?([A-Za-z0-9-]+)@users\.noreply\.github\.com$", re.IGNORECASE)
_GITHUB_URL = re.compile(r"^(?:https?://|git://|git@|ssh://git@)github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$")
_RAW_TYPES = {f"application/vnd.github.{v}raw{s}" for v in ("", "v3.") for s in ("", "+json")}
_OBJECT_TYPES = {f"application/vnd.github.{v}object{s}" for v in ("", "v3.") for s in ("", "+json")}
_README = re.compile(r"^readme(\.[A-Za-z0-9]+)?$", re.IGNORECASE)


# ------------------------------------------------------------------------------------------------ values


@dataclass(frozen=True, kw_only=True)
class RecordedRequest:
    """One request as the emulator saw it. The token is never stored, only whether there was one.

    ``path`` is the raw request path (still percent-encoded, no query); ``decoded_path`` is unquoted.
    ``status`` is None when the connection was dropped (``dropped``) without an answer.
    ``started``/``finished`` are ``time.monotonic()`` readings; ``finished`` is taken when the answer
    is ready, just before it is written (so a client holding an answer always finds its record).
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


@dataclass(frozen=True, kw_only=True)
class _Response:
    status: int
    body: bytes = b""
    content_type: str | None = _JSON
    headers: tuple[tuple[str, str], ...] = ()
    cacheable: bool = False  # gets an ETag and may become a 304
    weak_etag: bool = True


_Step = _Response | Literal["drop", "hang"]


@dataclass(frozen=True, kw_only=True)
class _Repo:
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
    license: str | None
    homepage: str | None
    archived: bool

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass(frozen=True, kw_only=True)
class _Limits:
    """The tunables a request is rendered with (a snapshot, so a test changing them mid-run is safe)."""

    max_dir_entries: int
    max_inline_size: int
    max_tree_entries: int
    logins: Mapping[str, str]


@dataclass(kw_only=True)
class _Window:
    """Primary rate-limit state of one identity (mutable; guarded by the emulator's lock)."""

    used: int = 0
    reset: int | None = None  # None: the emulator's reset_at
    exhausted: bool = False


@dataclass(kw_only=True)
class _Fault:
    pattern: re.Pattern[str]
    steps: deque[_Step]


@dataclass(frozen=True, kw_only=True)
class _Incoming:
    method: str
    raw_path: str
    raw_query: str
    query: Mapping[str, str]
    decoded_path: str
    token: str | None
    client_ip: str
    user_agent: str | None
    accept: str
    if_none_match: str | None


class _ApiError(Exception):
    def __init__(self, status: int, message: str, *, doc: str = _DOCS, with_status: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.payload: dict[str, str] = {"message": message, "documentation_url": doc}
        if with_status:
            self.payload["status"] = str(status)


def _json(
    status: int, payload: Any, *, cacheable: bool = True, headers: tuple[tuple[str, str], ...] = ()
) -> _Response:
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    return _Response(status=status, body=body, cacheable=cacheable and status == 200, headers=headers)


def _not_found(doc: str) -> _ApiError:
    return _ApiError(404, "Not Found", doc=doc)


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _int_param(value: str | None, *, default: int, low: int, high: int) -> int:
    try:
        number = int(value) if value is not None else default
    except ValueError:
        number = default
    return max(low, min(high, number))


def _media(accept: str) -> Literal["json", "raw", "object"]:
    types = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    if types & _RAW_TYPES:
        return "raw"
    return "object" if types & _OBJECT_TYPES else "json"


def _clean_path(path: str, doc: str) -> str:
    """A repository path without surrounding slashes; '.', '..' and empty segments are not found."""
    stripped = path.strip("/")
    if stripped and any(part in {"", ".", ".."} for part in stripped.split("/")):
        raise _not_found(doc)
    return stripped


def _link_target(path: str, target: str) -> str | None:
    """Where a relative symlink at ``path`` points inside the repository, or None if it leaves it."""
    if target.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return None if joined in {".", ".."} or joined.startswith("../") else joined


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    opaque = etag.removeprefix("W/")
    return any(tag.strip() == "*" or tag.strip().removeprefix("W/") == opaque for tag in header.split(","))


# ---------------------------------------------------------------------------------------------- rendering


class _RepoView:
    """Renders one repository's endpoints with GitHub's 2022-11-28 shapes. Raises :class:`_ApiError`."""

    def __init__(self, repo: _Repo, *, api: str, limits: _Limits) -> None:
        self.repo = repo
        self.git = repo.reader
        self.api = api
        self.repo_api = f"{api}/repos/{repo.full_name}"
        self.limits = limits

    def dispatch(self, rest: str, query: Mapping[str, str], accept: str) -> _Response:
        if rest == "":
            return _json(200, self.repo_json())
        if rest == "/contents" or rest.startswith("/contents/"):
            return self.contents(rest.removeprefix("/contents"), query, accept)
        if rest == "/readme":
            return self.readme(query, accept)
        if rest == "/commits":
            return self.commits(query)
        if rest.startswith("/git/trees/") and len(rest) > len("/git/trees/"):
            return self.tree(rest.removeprefix("/git/trees/"), query)
        if rest == "/languages":
            return _json(200, self.languages(self.head_blobs(self.head())))
        raise _not_found(_DOCS)

    # -- repository

    def head(self) -> str | None:
        """The default branch's commit, or None for an empty repository."""
        return None if self.git.is_empty() else self.git.resolve(self.git.default_branch())

    def head_blobs(self, head: str | None) -> list[TreeItem]:
        """Every blob (files and symlinks) of ``head``'s tree."""
        items = self.git.list_tree(head, recursive=True) if head else []
        return [item for item in items if item.type == "blob"]

    def repo_json(self) -> dict[str, Any]:
        repo, api_url = self.repo, self.repo_api
        head = self.head()
        latest = self.git.log(head, max_count=1)[0] if head else None
        created = (self.git.first_commit_time(head) if head else None) or 1704067200  # empty: 2024-01-01
        pushed = latest.committer_time if latest else created
        blobs = self.head_blobs(head)
        languages = self.languages(blobs)
        data: dict[str, Any] = {
            "id": repo.id,
            "node_id": base64.b64encode(f"010:Repository{repo.id}".encode()).decode(),
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
            "owner": self.user(repo.owner),
            "html_url": f"{HTML_BASE}/{repo.full_name}",
            "description": repo.description,
            "fork": False,
            "url": api_url,
        }
        data.update({key: api_url + suffix for key, suffix in _REPO_URLS.items()})
        data.update(
            {
                "git_url": f"git://github.com/{repo.full_name}.git",
                "ssh_url": f"git@github.com:{repo.full_name}.git",
                "clone_url": f"{HTML_BASE}/{repo.full_name}.git",
                "svn_url": f"{HTML_BASE}/{repo.full_name}",
                "mirror_url": None,
                "homepage": repo.homepage,
                "size": math.ceil(sum(i.size or 0 for i in blobs) / 1024),
                "stargazers_count": repo.stars,
                "watchers_count": repo.stars,
                "language": max(languages, key=lambda lang: languages[lang]) if languages else None,
                "has_issues": True,
                "has_projects": True,
                "has_downloads": True,
                "has_wiki": True,
                "has_pages": False,
                "has_discussions": False,
                "forks_count": repo.forks,
                "archived": repo.archived,
                "disabled": False,
                "open_issues_count": repo.open_issues,
                "license": self.license_json(),
                "allow_forking": True,
                "is_template": False,
                "web_commit_signoff_required": False,
                "topics": list(repo.topics),
                "visibility": "private" if repo.private else "public",
                "forks": repo.forks,
                "open_issues": repo.open_issues,
                "watchers": repo.stars,
                "default_branch": self.git.default_branch(),
                "permissions": {
                    "admin": False,
                    "maintain": False,
                    "push": False,
                    "triage": False,
                    "pull": True,
                },
                "allow_squash_merge": True,
                "allow_merge_commit": True,
                "allow_rebase_merge": True,
                "allow_auto_merge": False,
                "delete_branch_on_merge": False,
                "temp_clone_token": "",
                "network_count": repo.forks,
                "subscribers_count": repo.stars,
                "created_at": _iso(created),
                "updated_at": _iso(pushed),
                "pushed_at": _iso(pushed),
            }
        )
        return data

    def license_json(self) -> dict[str, Any] | None:
        spdx = self.repo.license
        if spdx is None:
            return None
        key, name, node_id = _LICENSES.get(spdx, ("other", "Other", "MDc6TGljZW5zZTA="))
        return {
            "key": key,
            "name": name,
            "spdx_id": spdx,
            "url": f"{self.api}/licenses/{key}",
            "node_id": node_id,
        }

    def user(self, login: str, *, kind: str = "User") -> dict[str, Any]:
        uid = zlib.crc32(login.lower().encode()) % 90_000_000 + 1
        url = f"{self.api}/users/{login}"
        return {
            "login": login,
            "id": uid,
            "node_id": base64.b64encode(f"04:User{uid}".encode()).decode(),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
            "gravatar_id": "",
            "url": url,
            "html_url": f"{HTML_BASE}/{login}",
            "followers_url": f"{url}/followers",
            "following_url": f"{url}/following{{/other_user}}",
            "gists_url": f"{url}/gists{{/gist_id}}",
            "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{url}/subscriptions",
            "organizations_url": f"{url}/orgs",
            "repos_url": f"{url}/repos",
            "events_url": f"{url}/events{{/privacy}}",
            "received_events_url": f"{url}/received_events",
            "type": kind,
            "site_admin": False,
        }

    # -- contents and readme

    def _commit_for(self, ref: str | None, doc: str) -> tuple[str, str]:
        """(commit sha, ref name used in URLs) for ``?ref=``; the default branch when absent."""
        if self.git.is_empty():
            raise _ApiError(404, "This repository is empty.", doc=doc)
        name = ref or self.git.default_branch()
        commit = self.git.resolve(name)
        if commit is None:
            raise _ApiError(404, f"No commit found for the ref {name}", doc=doc)
        return commit, name

    def contents(self, raw_path: str, query: Mapping[str, str], accept: str) -> _Response:
        doc = _DOC_URLS["contents"]
        path = _clean_path(raw_path, doc)
        commit, ref = self._commit_for(query.get("ref"), doc)
        if not path:
            return self.directory(commit, ref, None, accept)
        item = self.git.entry(commit, path)
        if item is None:
            raise _not_found(doc)
        if item.type == "tree":
            return self.directory(commit, ref, item, accept)
        return self.item(commit, ref, item, accept)

    def readme(self, query: Mapping[str, str], accept: str) -> _Response:
        doc = _DOC_URLS["readme"]
        commit, ref = self._commit_for(query.get("ref"), doc)
        for item in self.git.list_tree(commit):
            if item.type == "blob" and _README.match(item.name):
                return self.item(commit, ref, item, accept)
        raise _not_found(doc)

    def item(self, commit: str, ref: str, item: TreeItem, accept: str) -> _Response:
        """A file, symlink or submodule requested directly."""
        if item.type == "commit":
            return _json(200, self.submodule_json(commit, ref, item))
        if item.mode == "120000":
            target = self.git.blob(item.sha).decode("utf-8", "surrogateescape")
            inside = _link_target(item.path, target)
            pointee = self.git.entry(commit, inside) if inside else None
            if pointee is None or pointee.type != "blob" or pointee.mode == "120000":
                if _media(accept) == "raw":
                    return _Response(
                        status=200, body=target.encode(), content_type=_RAW, cacheable=True, weak_etag=False
                    )
                return _json(200, {**self.entry_json(ref, item, "symlink"), "target": target})
            item = pointee  # GitHub answers with the file the link points to
        data = self.git.blob(item.sha)
        if _media(accept) == "raw":
            return _Response(status=200, body=data, content_type=_RAW, cacheable=True, weak_etag=False)
        inline = len(data) <= self.limits.max_inline_size
        encoded = base64.b64encode(data).decode() if inline else ""
        content = "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))
        entry = self.entry_json(ref, item, "file")
        head = {"type": "file", "encoding": "base64" if inline else "none", "size": len(data)}
        return _json(200, {**head, "name": entry["name"], "path": item.path, "content": content, **entry})

    def directory(self, commit: str, ref: str, item: TreeItem | None, accept: str) -> _Response:
        path = item.path if item else ""
        children = self.git.list_tree(commit, path)[: self.limits.max_dir_entries]
        entries = [self.entry_json(ref, child, self.listing_type(child)) for child in children]
        if _media(accept) != "object":
            return _json(200, entries)
        tree_sha = item.sha if item else (self.git.resolve(commit, "tree") or "")
        root = TreeItem(mode="040000", type="tree", sha=tree_sha, size=None, path=path)
        return _json(200, {**self.entry_json(ref, root, "dir"), "entries": entries})

    @staticmethod
    def listing_type(item: TreeItem) -> str:
        if item.type == "tree":
            return "dir"
        if item.mode == "120000":
            return "symlink"
        return "file"  # submodules too: API 2022-11-28 lists them as files

    def entry_json(self, ref: str, item: TreeItem, kind: str) -> dict[str, Any]:
        quoted = quote(item.path)
        url = f"{self.repo_api}/contents/{quoted}?ref={quote(ref, safe='')}"
        html_kind = "tree" if kind == "dir" else "blob"
        git_url: str | None = f"{self.repo_api}/git/{'trees' if kind == 'dir' else 'blobs'}/{item.sha}"
        html_url: str | None = f"{HTML_BASE}/{self.repo.full_name}/{html_kind}/{quote(ref)}/{quoted}"
        download: str | None = f"{RAW_BASE}/{self.repo.full_name}/{quote(ref)}/{quoted}"
        if kind == "dir" or item.type == "commit":
            download = None
        if item.type == "commit":
            git_url, html_url = None, None
        return {
            "name": item.name,
            "path": item.path,
            "sha": item.sha,
            "size": item.size or 0,
            "url": url,
            "html_url": html_url,
            "git_url": git_url,
            "download_url": download,
            "type": kind,
            "_links": {"self": url, "git": git_url, "html": html_url},
        }

    def submodule_json(self, commit: str, ref: str, item: TreeItem) -> dict[str, Any]:
        url = self.git.submodule_urls(commit).get(item.path)
        entry = self.entry_json(ref, item, "submodule")
        match = _GITHUB_URL.match(url or "")
        if match:
            owner, name = match.groups()
            entry["git_url"] = f"{self.api}/repos/{owner}/{name}/git/trees/{item.sha}"
            entry["html_url"] = f"{HTML_BASE}/{owner}/{name}/tree/{item.sha}"
            entry["_links"] = {"self": entry["url"], "git": entry["git_url"], "html": entry["html_url"]}
        return {"type": "submodule", "submodule_git_url": url, **entry}

    # -- commits, trees, languages

    def commits(self, query: Mapping[str, str]) -> _Response:
        doc = _DOC_URLS["commits"]
        if self.git.is_empty():
            raise _ApiError(409, "Git Repository is empty.", doc=doc)
        per_page = _int_param(query.get("per_page"), default=30, low=1, high=100)
        page = _int_param(query.get("page"), default=1, low=1, high=10**6)
        sha = query.get("sha") or self.git.default_branch()
        commit = self.git.resolve(sha)
        if commit is None:
            raise _ApiError(404, f"No commit found for SHA: {sha}", doc=doc)
        path = query.get("path") or None
        entries = self.git.log(commit, skip=(page - 1) * per_page, max_count=per_page, path=path)
        last = max(1, math.ceil(self.git.count(commit, path=path) / per_page))
        link = self.link_header(query, page=page, last=last)
        return _json(200, [self.commit_json(e) for e in entries], headers=(("Link", link),) if link else ())

    def link_header(self, query: Mapping[str, str], *, page: int, last: int) -> str | None:
        base = f"{self.api}/repositories/{self.repo.id}/commits"
        rels: list[tuple[str, int]] = []
        if page > 1:
            rels.append(("prev", min(page - 1, last)))
        if page < last:
            rels += [("next", page + 1), ("last", last)]
        if page > 1:
            rels.append(("first", 1))
        links = [f'<{base}?{urlencode({**query, "page": str(number)})}>; rel="{rel}"' for rel, number in rels]
        return ", ".join(links) or None

    def commit_json(self, entry: LogEntry) -> dict[str, Any]:
        url = f"{self.repo_api}/commits/{entry.sha}"
        author = self.login_for(entry.author_email)
        committer = self.login_for(entry.committer_email)
        return {
            "sha": entry.sha,
            "node_id": base64.b64encode(f"06:Commit{self.repo.id}:{entry.sha}".encode()).decode(),
            "commit": {
                "author": {
                    "name": entry.author_name,
                    "email": entry.author_email,
                    "date": _iso(entry.author_time),
                },
                "committer": {
                    "name": entry.committer_name,
                    "email": entry.committer_email,
                    "date": _iso(entry.committer_time),
                },
                "message": entry.message,
                "tree": {"sha": entry.tree, "url": f"{self.repo_api}/git/trees/{entry.tree}"},
                "url": f"{self.repo_api}/git/commits/{entry.sha}",
                "comment_count": 0,
                "verification": {
                    "verified": False,
                    "reason": "unsigned",
                    "signature": None,
                    "payload": None,
                    "verified_at": None,
                },
            },
            "url": url,
            "html_url": f"{HTML_BASE}/{self.repo.full_name}/commit/{entry.sha}",
            "comments_url": f"{url}/comments",
            "author": self.user(author) if author else None,
            "committer": self.user(committer) if committer else None,
            "parents": [
                {
                    "sha": parent,
                    "url": f"{self.repo_api}/commits/{parent}",
                    "html_url": f"{HTML_BASE}/{self.repo.full_name}/commit/{parent}",
                }
                for parent in entry.parents
            ],
        }

    def login_for(self, email: str) -> str | None:
        """GitHub links a commit to a user by email; here: ``emu.logins`` or a noreply address."""
        if email.lower() in self.limits.logins:
            return self.limits.logins[email.lower()]
        match = _NOREPLY.match(email)
        return match.group(1) if match else None

    def tree(self, ref: str, query: Mapping[str, str]) -> _Response:
        doc = _DOC_URLS["trees"]
        if self.git.is_empty():
            raise _ApiError(409, "Git Repository is empty.", doc=doc)
        tree_sha = self.git.resolve(ref, "tree")
        if tree_sha is None:
            raise _not_found(doc)
        items = self.git.list_tree(tree_sha, recursive="recursive" in query)  # any value turns it on
        truncated = len(items) > self.limits.max_tree_entries
        entries = []
        for item in items[: self.limits.max_tree_entries]:
            entry: dict[str, Any] = {"path": item.path, "mode": item.mode, "type": item.type, "sha": item.sha}
            if item.type == "blob":
                entry["size"] = item.size
                entry["url"] = f"{self.repo_api}/git/blobs/{item.sha}"
            elif item.type == "tree":
                entry["url"] = f"{self.repo_api}/git/trees/{item.sha}"
            entries.append(entry)
        url = f"{self.repo_api}/git/trees/{tree_sha}"
        return _json(200, {"sha": tree_sha, "url": url, "tree": entries, "truncated": truncated})

    @staticmethod
    def languages(blobs: Sequence[TreeItem]) -> dict[str, int]:
        """Bytes per language, by file extension (symlinks, docs and config don't count), largest first."""
        totals: dict[str, int] = {}
        for item in blobs:
            language = _LANGUAGES.get(posixpath.splitext(item.path)[1].lower())
            if language and item.mode != "120000":
                totals[language] = totals.get(language, 0) + (item.size or 0)
        return dict(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))


# ------------------------------------------------------------------------------------------------ server


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default 5 stalls bursts of parallel connections
    allow_reuse_address = True

    def __init__(self, emulator: GitHubEmulator) -> None:
        self.emulator = emulator
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (getfqdn); a loopback test server needs none of it.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.emulator._track(request, add=True)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        self.emulator._track(request, add=False)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.debug("connection from %s ended with an error", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms delayed-ACK stall
    server_version = "GitHub.com"
    sys_version = ""

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)  # keep the connection usable for the next request
        cast(_Server, self.server).emulator._serve(self)

    # Other methods get GitHub's answers too (404, or 307 for a renamed repository).
    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch  # noqa: N815

    def write(self, response: _Response, headers: Sequence[tuple[str, str]]) -> None:
        self.send_response(response.status)
        for name, value in headers:
            self.send_header(name, value)
        if response.status != 304:
            self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        if response.status != 304 and self.command != "HEAD":
            self.wfile.write(response.body)
        self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s " + format, self.address_string(), *args)


# ---------------------------------------------------------------------------------------------- emulator


class GitHubEmulator:
    """A loopback GitHub REST API over real git repositories. See the module docstring.

    Tunables are plain attributes, read at each request: ``max_dir_entries`` (1,000),
    ``max_inline_size`` (1,000,000 bytes), ``max_tree_entries`` (100,000), ``limit_unauthenticated``
    (60), ``limit_authenticated`` (5,000), ``reset_at`` (epoch of the rate-limit reset, default now +
    1 hour), ``cache_control`` (GitHub's "private, max-age=60, s-maxage=60"; set "private, max-age=0"
    to make HTTP caches revalidate every time) and ``logins`` (commit email -> GitHub login).
    Every public method is thread-safe.
    """

    def __init__(self, *, prefix: str = "") -> None:
        """``prefix`` mounts the API under a path, e.g. "/api/v3" like GitHub Enterprise Server."""
        self.prefix = prefix.rstrip("/")
        self.max_dir_entries = 1000
        self.max_inline_size = 1_000_000
        self.max_tree_entries = 100_000
        self.limit_unauthenticated = 60
        self.limit_authenticated = 5000
        self.reset_at = int(time.time()) + 3600
        self.cache_control = "private, max-age=60, s-maxage=60"
        self.logins: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._origin = ""  # base URL of the last start; kept after stop for requests still finishing
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()
        self._repos: dict[int, _Repo] = {}
        self._moved: dict[str, int] = {}
        self._next_id = 100_001
        self._windows: dict[str, _Window] = {}
        self._exhaust_all_until: int | None = None
        self._faults: list[_Fault] = []
        self._latencies: list[tuple[re.Pattern[str], float]] = []
        self._log: list[RecordedRequest] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._request_ids = 0

    # -- lifecycle

    def start(self) -> Self:
        """Bind an ephemeral port on 127.0.0.1 and serve in a daemon thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        self._origin = f"http://127.0.0.1:{self._server.server_port}{self.prefix}"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="github-emulator",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, release hung requests and close every open connection. Idempotent."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        self._stopping.set()
        server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        server.server_close()
        thread.join()
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (plus the prefix); only while started."""
        if self._server is None:
            raise RuntimeError("the emulator is not started")
        return self._origin

    # -- repositories

    def add_repo(
        self,
        full_name: str,
        path: Path,
        *,
        id: int | None = None,
        description: str | None = None,
        stars: int = 0,
        forks: int = 0,
        open_issues: int = 0,
        topics: Sequence[str] = (),
        private: bool = False,
        license: str | None = "MIT",
        homepage: str | None = None,
        archived: bool = False,
    ) -> int:
        """Serve the git repository at ``path`` as ``owner/name``; returns its numeric id."""
        owner, name = full_name.split("/")
        with self._lock:
            repo_id = id if id is not None else self._next_id
            self._next_id = max(self._next_id, repo_id) + 1
            self._repos[repo_id] = _Repo(
                id=repo_id,
                owner=owner,
                name=name,
                reader=GitReader(path),
                description=description,
                stars=stars,
                forks=forks,
                open_issues=open_issues,
                topics=tuple(topics),
                private=private,
                license=license,
                homepage=homepage,
                archived=archived,
            )
        return repo_id

    def rename(self, old: str, new: str) -> None:
        """Rename (or transfer) a repository; its old name then answers 301 to ``/repositories/{id}``."""
        with self._lock:
            repo = self._find(old)
            if repo is None:
                raise KeyError(old)
            owner, name = new.split("/")
            self._repos[repo.id] = replace(repo, owner=owner, name=name)
            self._moved[old.lower()] = repo.id

    def _find(self, full_name: str) -> _Repo | None:
        key = full_name.lower()
        return next((r for r in self._repos.values() if r.full_name.lower() == key), None)

    # -- rate limits

    def exhaust(self, identity: str | None = None, reset_in: int = 3600) -> None:
        """Set remaining to 0 until ``now + reset_in`` for one identity (a token or an IP) or everyone."""
        reset = int(time.time()) + reset_in
        with self._lock:
            if identity is None:
                self._exhaust_all_until = reset
                windows = list(self._windows.values())
            else:
                windows = [self._window(self._key_for(identity))]
            for window in windows:
                window.exhausted, window.reset = True, reset

    def replenish(self, identity: str | None = None) -> None:
        """Forget usage and exhaustion (for one identity or everyone), as if the window had reset."""
        with self._lock:
            if identity is None:
                self._windows.clear()
                self._exhaust_all_until = None
            else:
                self._windows.pop(self._key_for(identity), None)

    def remaining(self, identity: str) -> int:
        """Requests left for a token or an IP (e.g. "127.0.0.1")."""
        with self._lock:
            key = self._key_for(identity)
            return self._remaining(key, self._window(key))

    @staticmethod
    def _key_for(identity: str) -> str:
        try:
            ipaddress.ip_address(identity)
        except ValueError:
            return "token:" + hashlib.sha256(identity.encode()).hexdigest()[:16]
        return "ip:" + identity

    def _window(self, key: str) -> _Window:
        """The identity's window, rolled over when its reset time has passed (caller holds the lock)."""
        window = self._windows.get(key)
        now = int(time.time())
        if window is None:
            window = self._windows[key] = _Window()
            if self._exhaust_all_until is not None and now < self._exhaust_all_until:
                window.exhausted, window.reset = True, self._exhaust_all_until
        if now >= (window.reset or self.reset_at):
            window.used, window.exhausted, window.reset = 0, False, now + 3600
        return window

    def _limit(self, key: str) -> int:
        return self.limit_authenticated if key.startswith("token:") else self.limit_unauthenticated

    def _remaining(self, key: str, window: _Window) -> int:
        return 0 if window.exhausted else max(0, self._limit(key) - window.used)

    def _rate_headers(self, key: str) -> list[tuple[str, str]]:
        with self._lock:
            window = self._window(key)
            remaining = self._remaining(key, window)
            reset = window.reset or self.reset_at
            return [
                ("x-ratelimit-limit", str(self._limit(key))),
                ("x-ratelimit-remaining", str(remaining)),
                ("x-ratelimit-reset", str(reset)),
                ("x-ratelimit-used", str(self._limit(key) - remaining)),
                ("x-ratelimit-resource", "core"),
            ]

    # -- faults

    def fail(
        self,
        path_regex: str,
        statuses: Sequence[int] = (503,),
        *,
        retry_after: int | None = None,
        body: str | bytes | Mapping[str, Any] | None = None,
    ) -> None:
        """The next matching requests get ``statuses``, one each, in order; then normal service.

        ``body``: a mapping is sent as JSON, text or bytes as HTML; default ``{"message": <reason>}``.
        """
        steps: deque[_Step] = deque(self._canned(s, retry_after=retry_after, body=body) for s in statuses)
        self._add_fault(path_regex, steps)

    def secondary_limit(
        self, path_regex: str, times: int = 1, retry_after: int | None = 60, *, status: int = 403
    ) -> None:
        """The next ``times`` matching requests hit a secondary rate limit (``retry-after`` if given)."""
        payload = {
            "message": _SECONDARY,
            "documentation_url": f"{_DOCS}/overview/rate-limits-for-the-rest-api",
        }
        self._add_fault(
            path_regex, deque([self._canned(status, retry_after=retry_after, body=payload)] * times)
        )

    def drop(self, path_regex: str, times: int = 1) -> None:
        """Close the connection without any answer (the client sees a disconnect)."""
        self._add_fault(path_regex, deque(["drop"] * times))

    def hang(self, path_regex: str, times: int = 1) -> None:
        """Never answer (until :meth:`stop`, which then closes the connection): trips read timeouts."""
        self._add_fault(path_regex, deque(["hang"] * times))

    def redirect_elsewhere(self, path_regex: str, location: str, *, times: int = 1) -> None:
        """Answer 302 with ``Location: location`` (another host: the client must refuse to follow)."""
        headers = (("Location", location),)
        self._add_fault(
            path_regex, deque([_Response(status=302, content_type=None, headers=headers)] * times)
        )

    def latency(self, seconds: float, path_regex: str = ".*") -> None:
        """Delay every matching request by ``seconds`` before answering (delays stack; requests overlap)."""
        with self._lock:
            self._latencies.append((re.compile(path_regex), seconds))

    def reset_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._latencies.clear()

    @staticmethod
    def _canned(
        status: int, *, retry_after: int | None, body: str | bytes | Mapping[str, Any] | None
    ) -> _Response:
        headers = (("Retry-After", str(retry_after)),) if retry_after is not None else ()
        if body is None:
            body = {"message": HTTPStatus(status).phrase}
        if isinstance(body, Mapping):
            return replace(_json(status, dict(body), cacheable=False), headers=headers)
        raw = body.encode() if isinstance(body, str) else body
        return _Response(status=status, body=raw, content_type="text/html; charset=utf-8", headers=headers)

    def _add_fault(self, path_regex: str, steps: deque[_Step]) -> None:
        with self._lock:
            self._faults.append(_Fault(pattern=re.compile(path_regex), steps=steps))

    def _take_fault(self, path: str) -> _Step | None:
        with self._lock:
            for fault in self._faults:
                if fault.steps and fault.pattern.search(path):
                    return fault.steps.popleft()
        return None

    # -- observability

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every finished request, oldest first."""
        with self._lock:
            return list(self._log)

    def request_paths(self) -> list[str]:
        return [r.decoded_path for r in self.requests]

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The peak number of requests being handled at once since start (or :meth:`clear_log`)."""
        with self._lock:
            return self._max_in_flight

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()
            self._max_in_flight = self._in_flight

    def _track(self, connection: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    # -- request pipeline

    def _serve(self, handler: _Handler) -> None:
        started = time.monotonic()
        incoming = self._parse(handler)
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._request_ids += 1
            request_id = f"{self._request_ids:04X}:0000:0000000:0000000:00000000"
        response: _Response | None = None
        headers: list[tuple[str, str]] = []
        counted = False
        try:
            response, headers, counted = self._answer(incoming)
        finally:
            # Recorded before the answer is written, so a client that has its answer also sees the record.
            self._finish(incoming, started=started, response=response, counted=counted)
        if response is None:
            handler.close_connection = True  # answer nothing: the client sees a disconnect
        else:
            handler.write(response, [*headers, ("x-github-request-id", request_id)])

    def _finish(self, req: _Incoming, *, started: float, response: _Response | None, counted: bool) -> None:
        record = RecordedRequest(
            method=req.method,
            path=req.raw_path,
            query=req.query,
            decoded_path=req.decoded_path,
            authorized=req.token is not None,
            user_agent=req.user_agent,
            accept=req.accept or None,
            if_none_match=req.if_none_match,
            status=response.status if response else None,
            counted=counted,
            started=started,
            finished=time.monotonic(),
            dropped=response is None,
        )
        with self._lock:
            self._in_flight -= 1
            self._log.append(record)

    @staticmethod
    def _parse(handler: _Handler) -> _Incoming:
        parts = urlsplit(handler.path)
        authorization = handler.headers.get("Authorization") or ""
        scheme, _, credential = authorization.strip().partition(" ")
        token = credential.strip() if scheme.lower() in {"bearer", "token"} and credential.strip() else None
        return _Incoming(
            method=handler.command,
            raw_path=parts.path,
            raw_query=parts.query,
            query=MappingProxyType(dict(parse_qsl(parts.query, keep_blank_values=True))),
            decoded_path=unquote(parts.path),
            token=token,
            client_ip=str(handler.client_address[0]),
            user_agent=handler.headers.get("User-Agent") or None,
            accept=handler.headers.get("Accept") or "",
            if_none_match=handler.headers.get("If-None-Match"),
        )

    def _answer(self, req: _Incoming) -> tuple[_Response | None, list[tuple[str, str]], bool]:
        """(response or None to drop, headers, whether it counted against the rate limit)."""
        delay = sum(seconds for pattern, seconds in self._latency_rules() if pattern.search(req.decoded_path))
        if delay and self._stopping.wait(delay):
            return None, [], False
        step = self._take_fault(req.decoded_path)
        if step == "hang":
            self._stopping.wait()
            return None, [], False
        if step == "drop":
            return None, [], False
        if step is not None:
            return step, self._plain_headers(step), False
        if not req.user_agent:
            refused = _Response(
                status=403, body=_NO_USER_AGENT.encode(), content_type="text/plain; charset=utf-8"
            )
            return refused, self._plain_headers(refused), False
        return self._api(req)

    def _latency_rules(self) -> list[tuple[re.Pattern[str], float]]:
        with self._lock:
            return list(self._latencies)

    def _api(self, req: _Incoming) -> tuple[_Response, list[tuple[str, str]], bool]:
        key = (
            "token:" + hashlib.sha256(req.token.encode()).hexdigest()[:16]
            if req.token
            else "ip:" + req.client_ip
        )
        path = req.raw_path.removeprefix(self.prefix) if req.raw_path.startswith(self.prefix + "/") else None
        if path == "/rate_limit":
            response = _json(200, self._rate_limit_json(key), cacheable=False)
            return response, self._api_headers(response, key, None), False
        with self._lock:  # reserve one request up front, so parallel requests cannot overspend
            window = self._window(key)
            allowed = self._remaining(key, window) > 0
            if allowed:
                window.used += 1
        if not allowed:
            response = _json(403, self._exceeded_json(key, req.client_ip), cacheable=False)
            return response, self._api_headers(response, key, None), False
        response = self._route(req, path)
        counted = True
        etag = self._etag(response) if response.cacheable else None
        if etag and _etag_matches(req.if_none_match, etag):
            response = replace(response, status=304, body=b"", content_type=None)
            if req.token is not None:  # GitHub: an authorized 304 is free
                counted = False
                with self._lock:
                    window.used -= 1
        return response, self._api_headers(response, key, etag), counted

    def _route(self, req: _Incoming, path: str | None) -> _Response:
        repo: _Repo | None = None
        rest = ""
        try:
            if path is not None and (match := _REPO_PATH.match(path)):
                full_name = f"{unquote(match.group(1))}/{unquote(match.group(2))}"
                raw_rest = match.group(3) or ""
                with self._lock:
                    repo = self._find(full_name)
                    moved = self._moved.get(full_name.lower()) if repo is None else None
                if moved is not None:
                    return self._moved_response(req, moved, raw_rest)
                rest = unquote(raw_rest)
            elif path is not None and (match := _ID_PATH.match(path)):
                with self._lock:
                    repo = self._repos.get(int(match.group(1)))
                rest = unquote(match.group(2) or "")
            if repo is None or repo.private:
                raise _not_found(_DOC_URLS["repo"] if path and _REPO_PATH.match(path) else _DOCS)
            view = _RepoView(repo, api=self._origin, limits=self._limits())
            return view.dispatch(rest, req.query, req.accept)
        except _ApiError as error:
            return _json(error.status, error.payload, cacheable=False)

    def _moved_response(self, req: _Incoming, repo_id: int, raw_rest: str) -> _Response:
        location = f"{self._origin}/repositories/{repo_id}{raw_rest}" + (
            f"?{req.raw_query}" if req.raw_query else ""
        )
        status = 301 if req.method in {"GET", "HEAD"} else 307  # GitHub: 307 keeps non-GET methods
        payload = {"message": "Moved Permanently", "url": location, "documentation_url": _MOVED_DOCS}
        return _json(status, payload, cacheable=False, headers=(("Location", location),))

    def _limits(self) -> _Limits:
        return _Limits(
            max_dir_entries=self.max_dir_entries,
            max_inline_size=self.max_inline_size,
            max_tree_entries=self.max_tree_entries,
            logins={email.lower(): login for email, login in self.logins.items()},
        )

    # -- response pieces

    @staticmethod
    def _etag(response: _Response) -> str:
        digest = hashlib.sha256(response.body).hexdigest()
        return f'W/"{digest}"' if response.weak_etag else f'"{digest}"'

    @staticmethod
    def _plain_headers(response: _Response) -> list[tuple[str, str]]:
        headers = list(response.headers)
        if response.content_type:
            headers.insert(0, ("Content-Type", response.content_type))
        return headers

    def _api_headers(self, response: _Response, key: str, etag: str | None) -> list[tuple[str, str]]:
        headers = self._plain_headers(response)
        if etag:  # a 304 carries the ETag of the body it stands for
            headers += [("ETag", etag), ("Cache-Control", self.cache_control)]
        media = "github.v3; param=raw" if response.content_type == _RAW else "github.v3; format=json"
        headers += [
            ("Vary", _VARY),
            ("X-GitHub-Api-Version-Selected", API_VERSION),
            ("X-GitHub-Media-Type", media),
            *self._rate_headers(key),
        ]
        return headers

    def _rate_limit_json(self, key: str) -> dict[str, Any]:
        with self._lock:
            window = self._window(key)
            remaining = self._remaining(key, window)
            core = {
                "limit": self._limit(key),
                "used": self._limit(key) - remaining,
                "remaining": remaining,
                "reset": window.reset or self.reset_at,
            }

        def static(limit: int) -> dict[str, int]:
            return {"limit": limit, "used": 0, "remaining": limit, "reset": self.reset_at}

        resources = {
            "core": core,
            "search": static(30 if key.startswith("token:") else 10),
            "graphql": static(5000 if key.startswith("token:") else 0),
            "integration_manifest": static(5000),
            "source_import": static(100),
            "actions_runner_registration": static(10000),
            "scim": static(15000),
            "dependency_snapshots": static(100),
            "code_search": static(10),
            "code_scanning_autofix": static(10),
        }
        return {"resources": resources, "rate": dict(core)}

    @staticmethod
    def _exceeded_json(key: str, client_ip: str) -> dict[str, str]:
        if key.startswith("token:"):
            who = f"user ID {int(key.removeprefix('token:')[:6], 16)}."
        else:
            who = (
                f"{client_ip}. (But here's the good news: Authenticated requests get a higher rate limit. "
                "Check out the documentation for more details.)"
            )
        return {
            "message": f"API rate limit exceeded for {who}",
            "documentation_url": _DOC_URLS["rate_limit"] + "#about-the-primary-rate-limit",
        }
