"""The JSON objects GitHub's REST API returns, built from a git repository.

:class:`RepoPayloads` renders one repository's objects with GitHub's 2022-11-28 shapes (field for
field as in the recorded fixtures): the repository, its license, users, contents entries (files,
directories, symlinks, submodules), commits and the languages breakdown. It only reads git, through
:class:`~testing.emulator.gitrepo.GitReader`; which endpoint answers with which object, and with which
status, is :class:`~testing.emulator.github_views.RepoView`'s business.
"""

from __future__ import annotations

import base64
import math
import posixpath
import re
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from testing.emulator.github_values import HTML_BASE, RAW_BASE, Limits, Repo
from testing.emulator.gitrepo import LogEntry, TreeItem

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
_NOREPLY = re.compile(r"^(?:\d+\+)?([A-Za-z0-9-]+)@users\.noreply\.github\.com$", re.IGNORECASE)
_GITHUB_URL = re.compile(r"^(?:https?://|git://|git@|ssh://git@)github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$")


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class RepoPayloads:
    """GitHub's JSON objects for one repository, as served at ``api`` (the emulator's base URL)."""

    def __init__(self, repo: Repo, *, api: str, limits: Limits) -> None:
        self.repo = repo
        self.git = repo.reader
        self.api = api
        self.repo_api = f"{api}/repos/{repo.full_name}"
        self.limits = limits

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

    @staticmethod
    def languages(blobs: Sequence[TreeItem]) -> dict[str, int]:
        """Bytes per language, by file extension (symlinks, docs and config don't count), largest first."""
        totals: dict[str, int] = {}
        for item in blobs:
            language = _LANGUAGES.get(posixpath.splitext(item.path)[1].lower())
            if language and item.mode != "120000":
                totals[language] = totals.get(language, 0) + (item.size or 0)
        return dict(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))
