"""The emulator's endpoints for one repository: which request gets which answer.

:class:`RepoView` answers the endpoints repo-analyst uses (the repository, contents and README,
commits, trees, languages) with GitHub's quirks: ``?ref=``, the contents API's capped listings,
``encoding: "none"`` for large files, the raw and object media types, symlinks followed to the file
they point to (as GitHub does), ``Link`` pagination, and 404/409 answers raised as
:class:`~testing.emulator.github_values.ApiError`. The JSON objects themselves come from
:class:`~testing.emulator.github_payloads.RepoPayloads`; rate limits, faults and HTTP belong to
:mod:`testing.emulator.github`.
"""

from __future__ import annotations

import base64
import json
import math
import posixpath
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlencode

from testing.emulator.github_payloads import RepoPayloads
from testing.emulator.github_values import (
    DOC_URLS,
    DOCS,
    RAW_TYPE,
    ApiError,
    Response,
    json_response,
    not_found,
)
from testing.emulator.gitrepo import TreeItem

_RAW_TYPES = {f"application/vnd.github.{v}raw{s}" for v in ("", "v3.") for s in ("", "+json")}
_OBJECT_TYPES = {f"application/vnd.github.{v}object{s}" for v in ("", "v3.") for s in ("", "+json")}
_README = re.compile(r"^readme(\.[A-Za-z0-9]+)?$", re.IGNORECASE)


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
        raise not_found(doc)
    return stripped


def _link_target(path: str, target: str) -> str | None:
    """Where a relative symlink at ``path`` points inside the repository, or None if it leaves it."""
    if target.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return None if joined in {".", ".."} or joined.startswith("../") else joined


class RepoView(RepoPayloads):
    """Renders one repository's endpoints with GitHub's 2022-11-28 shapes. Raises :class:`ApiError`."""

    def dispatch(self, rest: str, query: Mapping[str, str], accept: str) -> Response:
        if rest == "":
            return json_response(200, self.repo_json())
        if rest == "/contents" or rest.startswith("/contents/"):
            return self.contents(rest.removeprefix("/contents"), query, accept)
        if rest == "/readme":
            return self.readme(query, accept)
        if rest == "/commits":
            return self.commits(query)
        if rest.startswith("/git/trees/") and len(rest) > len("/git/trees/"):
            return self.tree(rest.removeprefix("/git/trees/"), query)
        if rest.startswith("/git/matching-refs/"):
            return self.matching_refs(rest.removeprefix("/git/matching-refs/"))
        if rest == "/languages":
            return json_response(200, self.languages(self.head_blobs(self.head())))
        raise not_found(DOCS)

    def _commit_for(self, ref: str | None, doc: str) -> tuple[str, str]:
        """(commit sha, ref name used in URLs) for ``?ref=``; the default branch when absent."""
        if self.git.is_empty():
            raise ApiError(404, "This repository is empty.", doc=doc)
        name = ref or self.git.default_branch()
        commit = self.git.resolve(name)
        if commit is None:
            raise ApiError(404, f"No commit found for the ref {name}", doc=doc)
        return commit, name

    def contents(self, raw_path: str, query: Mapping[str, str], accept: str) -> Response:
        doc = DOC_URLS["contents"]
        path = _clean_path(raw_path, doc)
        commit, ref = self._commit_for(query.get("ref"), doc)
        if not path:
            return self.directory(commit, ref, None, accept)
        item = self.git.entry(commit, path)
        if item is None:
            raise not_found(doc)
        if item.type == "tree":
            return self.directory(commit, ref, item, accept)
        return self.item(commit, ref, item, accept)

    def readme(self, query: Mapping[str, str], accept: str) -> Response:
        doc = DOC_URLS["readme"]
        commit, ref = self._commit_for(query.get("ref"), doc)
        for item in self.git.list_tree(commit):
            if item.type == "blob" and _README.match(item.name):
                return self.item(commit, ref, item, accept)
        raise not_found(doc)

    def item(self, commit: str, ref: str, item: TreeItem, accept: str) -> Response:
        """A file, symlink or submodule requested directly."""
        if item.type == "commit":
            return json_response(200, self.submodule_json(commit, ref, item))
        if item.mode == "120000":
            target = self.git.blob(item.sha).decode("utf-8", "surrogateescape")
            inside = _link_target(item.path, target)
            pointee = self.git.entry(commit, inside) if inside else None
            if pointee is None or pointee.type != "blob" or pointee.mode == "120000":
                if _media(accept) == "raw":
                    return Response(
                        status=200,
                        body=target.encode(),
                        content_type=RAW_TYPE,
                        cacheable=True,
                        weak_etag=False,
                    )
                return json_response(200, {**self.entry_json(ref, item, "symlink"), "target": target})
            item = pointee  # GitHub answers with the file the link points to
        data = self.git.blob(item.sha)
        if _media(accept) == "raw":
            return Response(status=200, body=data, content_type=RAW_TYPE, cacheable=True, weak_etag=False)
        inline = len(data) <= self.limits.max_inline_size
        encoded = base64.b64encode(data).decode() if inline else ""
        content = "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))
        entry = self.entry_json(ref, item, "file")
        head = {"type": "file", "encoding": "base64" if inline else "none", "size": len(data)}
        return json_response(
            200, {**head, "name": entry["name"], "path": item.path, "content": content, **entry}
        )

    def directory(self, commit: str, ref: str, item: TreeItem | None, accept: str) -> Response:
        path = item.path if item else ""
        children = self.git.list_tree(commit, path)[: self.limits.max_dir_entries]
        entries = [self.entry_json(ref, child, self.listing_type(child)) for child in children]
        if _media(accept) != "object":
            return json_response(200, entries)
        tree_sha = item.sha if item else (self.git.resolve(commit, "tree") or "")
        root = TreeItem(mode="040000", type="tree", sha=tree_sha, size=None, path=path)
        return json_response(200, {**self.entry_json(ref, root, "dir"), "entries": entries})

    @staticmethod
    def listing_type(item: TreeItem) -> str:
        if item.type == "tree":
            return "dir"
        if item.mode == "120000":
            return "symlink"
        return "file"  # submodules too: API 2022-11-28 lists them as files

    def commits(self, query: Mapping[str, str]) -> Response:
        doc = DOC_URLS["commits"]
        if self.git.is_empty():
            raise ApiError(409, "Git Repository is empty.", doc=doc)
        per_page = _int_param(query.get("per_page"), default=30, low=1, high=100)
        page = _int_param(query.get("page"), default=1, low=1, high=10**6)
        sha = query.get("sha") or self.git.default_branch()
        commit = self.git.resolve(sha)
        if commit is None:
            raise ApiError(404, f"No commit found for SHA: {sha}", doc=doc)
        path = query.get("path") or None
        entries = self.git.log(commit, skip=(page - 1) * per_page, max_count=per_page, path=path)
        last = max(1, math.ceil(self.git.count(commit, path=path) / per_page))
        link = self.link_header(query, page=page, last=last)
        return json_response(
            200, [self.commit_json(e) for e in entries], headers=(("Link", link),) if link else ()
        )

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

    def matching_refs(self, prefix: str) -> Response:
        """``git/matching-refs/{heads|tags}/{prefix}``: the refs whose names start with it (a list, maybe
        empty); an empty repository has none."""
        prefix = prefix.strip("/")
        if not prefix.startswith(("heads/", "tags/")) and prefix not in {"heads", "tags"}:
            return json_response(200, [])
        rows = self.git.matching_refs(f"refs/{prefix}")
        body = [
            {
                "ref": name,
                "node_id": "",
                "url": f"{self.repo_api}/git/{name}",
                "object": {"sha": sha, "type": kind, "url": f"{self.repo_api}/git/{kind}s/{sha}"},
            }
            for name, sha, kind in rows
        ]
        return json_response(200, body)

    def tree(self, ref: str, query: Mapping[str, str]) -> Response:
        """A tree by sha or ref name; ``recursive`` (any value) lists subtrees too, cut like GitHub's at
        ``max_tree_entries`` entries or ``max_tree_bytes`` bytes of entries (``"truncated": true``)."""
        doc = DOC_URLS["trees"]
        if self.git.is_empty():
            raise ApiError(409, "Git Repository is empty.", doc=doc)
        tree_sha = self.git.resolve(ref, "tree")
        if tree_sha is None:
            raise not_found(doc)
        items = self.git.list_tree(tree_sha, recursive="recursive" in query)  # any value turns it on
        truncated = False
        entries: list[dict[str, Any]] = []
        spent = 0
        for item in items:
            entry: dict[str, Any] = {"path": item.path, "mode": item.mode, "type": item.type, "sha": item.sha}
            if item.type == "blob":
                entry["size"] = item.size
                entry["url"] = f"{self.repo_api}/git/blobs/{item.sha}"
            elif item.type == "tree":
                entry["url"] = f"{self.repo_api}/git/trees/{item.sha}"
            spent += len(json.dumps(entry)) + 1
            if len(entries) >= self.limits.max_tree_entries or spent > self.limits.max_tree_bytes:
                truncated = True
                break
            entries.append(entry)
        url = f"{self.repo_api}/git/trees/{tree_sha}"
        return json_response(200, {"sha": tree_sha, "url": url, "tree": entries, "truncated": truncated})
