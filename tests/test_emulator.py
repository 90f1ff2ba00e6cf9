"""The GitHub emulator itself, exercised with plain httpx over real loopback sockets.

Shapes are compared with the real payloads in /work/shared/fixtures/github (key names and JSON types),
contents are compared with the bytes git stored, and every fault is checked to happen in order and then
stop. No test waits on the wall clock: latencies and random stalls are held (:class:`testing.clock.HeldWaits`)
until the test, having seen them held, releases them; the one client deadline left (0.2 s) races a hang
that only stop() ends.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
import pytest

from testing.clock import HeldWaits, SharedVirtualClock
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import (
    CommitSpec,
    GitReader,
    git_env,
    make_empty_repo,
    make_repo,
    sample_python_project,
    tiny_png,
)
from testing.github import AnnouncedTimeouts

FIXTURES = Path("/work/shared/fixtures/github")
# Clients below pass verify=False: plain http on loopback, and it skips loading CA certificates (~50 ms each).
UA = {"User-Agent": "repo-analyst-tests"}
SUBMODULE_SHA = "6ca3721222109997540bd6d9ccd396902e0ad2f9"
# How long a test waits for a condition before it fails: far beyond any busy-machine delay, and never
# waited out by a passing test.
PATIENCE = 60.0


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def json_type(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def assert_same_shape(
    ours: dict[str, Any], theirs: dict[str, Any], *, ignore: frozenset[str] = frozenset()
) -> None:
    """Every key of the fixture is present with the same JSON type (null matches anything)."""
    missing = set(theirs) - set(ours) - ignore
    assert not missing, f"missing keys: {sorted(missing)}"
    for key in set(theirs) - ignore:
        if ours[key] is not None and theirs[key] is not None:
            assert json_type(ours[key]) == json_type(theirs[key]), key


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("repos")
    many = {f"data/file{i:02d}.txt": f"{i}\n" for i in range(30)}
    return {
        "sample": sample_python_project(root / "sample"),
        "links": make_repo(
            root / "links",
            {"src/a.py": "x = 1\n", "dir/inner.txt": "inner\n", **many},
            symlinks={
                "to-file": "src/a.py",
                "to-dir": "dir",
                "outside": "../../etc/passwd",
                "abs": "/etc/passwd",
            },
            submodules={"vendor/lib": ("https://github.com/octo/lib.git", SUBMODULE_SHA)},
            executable={"src/a.py"},
        ),
        "empty": make_empty_repo(root / "empty"),
    }


@pytest.fixture
def emu(repos: dict[str, Path]) -> Iterator[GitHubEmulator]:
    with GitHubEmulator() as emulator:
        emulator.add_repo(
            "octo/Sample", repos["sample"], id=4242, description="Counts words", stars=7, topics=["nlp"]
        )
        emulator.add_repo("octo/links", repos["links"])
        emulator.add_repo("octo/empty", repos["empty"])
        yield emulator


@pytest.fixture
def client(emu: GitHubEmulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emu.base_url, headers=UA, timeout=5, verify=False) as http_client:
        yield http_client


# ------------------------------------------------------------------------------------------ git helpers


def test_sample_project_is_deterministic_and_realistic(tmp_path: Path, repos: dict[str, Path]) -> None:
    again = sample_python_project(tmp_path / "again", bare=True)
    reader = GitReader(repos["sample"])
    head = reader.resolve("main")
    assert head is not None
    assert GitReader(again).resolve("main") == head
    log = reader.log(head)
    assert len(log) == 8
    assert len({e.author_email for e in log}) == 3
    assert (log[0].author_time - log[-1].author_time) > 6 * 7 * 86400
    assert (repos["sample"] / "latest").readlink() == Path("docs/index.md")
    assert (repos["sample"] / "assets/logo.png").read_bytes() == tiny_png()
    assert tiny_png().startswith(b"\x89PNG\r\n\x1a\n")
    paths = {i.path for i in reader.list_tree(head, recursive=True)}
    assert {
        "README.md",
        "pyproject.toml",
        "requirements.txt",
        "LICENSE",
        "src/pkg/core.py",
        "tests/test_core.py",
    } <= paths
    assert {".github/workflows/ci.yml", "docs/index.md", "assets/logo.png", "latest"} <= paths


def test_make_repo_commits_deletes_and_gitlinks(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"a.txt": "a"},
        commits=[
            CommitSpec(message="one", files={"b.txt": "b"}, date="2024-05-01T10:00:00+02:00"),
            CommitSpec(message="two", files={"a.txt": None}, author_name="Bo", author_email="bo@example.com"),
        ],
        submodules={"ext": ("https://example.com/ext.git", SUBMODULE_SHA)},
    )
    reader = GitReader(repo)
    head = reader.resolve("HEAD")
    assert head is not None
    assert [e.message for e in reader.log(head)] == ["two", "one"]
    assert reader.log(head)[1].author_time == 1714550400
    assert {i.path: i.type for i in reader.list_tree(head)} == {
        ".gitmodules": "blob",
        "b.txt": "blob",
        "ext": "commit",
    }
    assert reader.submodule_urls(head) == {"ext": "https://example.com/ext.git"}
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, env=git_env(), check=True
    )
    assert status.stdout == b""


# ------------------------------------------------------------------------------------------ shapes


def test_repository_matches_fixture_shape(client: httpx.Client, emu: GitHubEmulator) -> None:
    response = client.get("/repos/OCTO/sample")  # names are case-insensitive
    assert response.status_code == 200
    body = response.json()
    assert_same_shape(
        body,
        fixture("repos-get.200.json"),
        ignore=frozenset({"organization", "parent", "source", "template_repository"}),
    )
    assert body["full_name"] == "octo/Sample"
    assert body["owner"]["login"] == "octo"
    assert (body["id"], body["default_branch"], body["stargazers_count"], body["topics"]) == (
        4242,
        "main",
        7,
        ["nlp"],
    )
    assert (body["license"]["spdx_id"], body["language"], body["private"], body["fork"]) == (
        "MIT",
        "Python",
        False,
        False,
    )
    assert (body["created_at"], body["pushed_at"]) == ("2024-01-08T08:30:00Z", "2024-02-26T17:00:00Z")
    assert client.get("/repositories/4242").json() == body


def test_every_api_response_has_github_headers(client: httpx.Client, emu: GitHubEmulator) -> None:
    for path in ("/repos/octo/sample", "/repos/octo/sample/contents/nope", "/rate_limit"):
        headers = client.get(path).headers
        assert headers["content-type"] == "application/json; charset=utf-8"
        assert headers["x-github-api-version-selected"] == "2022-11-28"
        assert headers["vary"] == "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding"
        assert headers["x-ratelimit-resource"] == "core"
        assert {
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-used",
            "x-ratelimit-reset",
            "date",
        } <= set(headers)
    ok = client.get("/repos/octo/sample").headers
    assert ok["etag"].startswith('W/"')
    assert ok["cache-control"] == "private, max-age=60, s-maxage=60"
    emu.cache_control = "private, max-age=0"
    assert client.get("/repos/octo/sample").headers["cache-control"] == "private, max-age=0"


def test_directory_listing_matches_fixture(client: httpx.Client, repos: dict[str, Path]) -> None:
    entries = client.get("/repos/octo/sample/contents").json()
    expected_keys = set(fixture("repos-get-content.directory.200.json")[0])
    assert all(set(e) == expected_keys for e in entries)
    types = {e["name"]: e["type"] for e in entries}
    assert (types["src"], types["README.md"], types["latest"]) == ("dir", "file", "symlink")
    readme = next(e for e in entries if e["name"] == "README.md")
    assert readme["size"] == (repos["sample"] / "README.md").stat().st_size
    assert client.get("/repos/octo/sample/contents/src/").json()[0]["path"] == "src/pkg"
    listing_object = client.get(
        "/repos/octo/sample/contents/src", headers={"Accept": "application/vnd.github.object"}
    )
    assert_same_shape(listing_object.json(), fixture("repos-get-content.directory-object.200.json"))


def test_file_is_base64_in_60_character_lines(client: httpx.Client, repos: dict[str, Path]) -> None:
    body = client.get("/repos/octo/sample/contents/src/pkg/core.py").json()
    assert set(body) == set(fixture("repos-get-content.file.200.json"))
    assert body["encoding"] == "base64"
    lines = body["content"].split("\n")
    assert lines[-1] == ""
    assert all(len(line) == 60 for line in lines[:-2])
    assert 0 < len(lines[-2]) <= 60
    source = (repos["sample"] / "src/pkg/core.py").read_bytes()
    assert base64.b64decode(body["content"]) == source
    assert body["size"] == len(source)


def test_raw_media_type_returns_bytes(client: httpx.Client) -> None:
    for accept in ("application/vnd.github.raw+json", "application/vnd.github.raw"):
        response = client.get("/repos/octo/sample/contents/assets/logo.png", headers={"Accept": accept})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/vnd.github.raw")
        assert response.content == tiny_png()


def test_large_file_has_no_inline_content(
    client: httpx.Client, emu: GitHubEmulator, repos: dict[str, Path]
) -> None:
    emu.max_inline_size = 100
    body = client.get("/repos/octo/sample/contents/README.md").json()
    assert (body["encoding"], body["content"]) == ("none", "")
    assert body["size"] == (repos["sample"] / "README.md").stat().st_size
    raw = client.get(
        "/repos/octo/sample/contents/README.md", headers={"Accept": "application/vnd.github.raw+json"}
    )
    assert raw.content == (repos["sample"] / "README.md").read_bytes()


def test_directory_listing_is_capped(client: httpx.Client, emu: GitHubEmulator) -> None:
    assert len(client.get("/repos/octo/links/contents/data").json()) == 30
    emu.max_dir_entries = 10
    assert len(client.get("/repos/octo/links/contents/data").json()) == 10


def test_symlinks(client: httpx.Client) -> None:
    to_file = client.get("/repos/octo/links/contents/to-file").json()
    assert (to_file["type"], to_file["path"], base64.b64decode(to_file["content"])) == (
        "file",
        "src/a.py",
        b"x = 1\n",
    )
    symlink_keys = set(fixture("repos-get-content.symlink.200.json"))
    for name, target in (("to-dir", "dir"), ("outside", "../../etc/passwd"), ("abs", "/etc/passwd")):
        body = client.get(f"/repos/octo/links/contents/{name}").json()
        assert set(body) == symlink_keys
        assert (body["type"], body["target"], body["size"]) == ("symlink", target, len(target))


def test_submodules(client: httpx.Client) -> None:
    listed = client.get("/repos/octo/links/contents/vendor").json()
    assert [(e["name"], e["type"], e["sha"]) for e in listed] == [("lib", "file", SUBMODULE_SHA)]
    body = client.get("/repos/octo/links/contents/vendor/lib").json()
    assert set(body) == set(fixture("repos-get-content.submodule.200.json"))
    assert (body["type"], body["submodule_git_url"]) == ("submodule", "https://github.com/octo/lib.git")
    assert body["html_url"] == f"https://github.com/octo/lib/tree/{SUBMODULE_SHA}"


def test_not_found_and_bad_ref(client: httpx.Client) -> None:
    missing = client.get("/repos/octo/sample/contents/nope.txt")
    assert missing.status_code == 404
    assert missing.json() == {
        "message": "Not Found",
        "documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content",
        "status": "404",
    }
    assert "etag" not in missing.headers
    assert client.get("/repos/octo/sample/contents/README.md", params={"ref": "nope"}).status_code == 404
    assert client.get("/repos/octo/ghost").status_code == 404
    assert client.get("/users/octo").status_code == 404
    first_commit = {"ref": "HEAD~7"}
    assert client.get("/repos/octo/sample/contents/src/pkg/core.py", params=first_commit).status_code == 404


def test_readme(client: httpx.Client, repos: dict[str, Path]) -> None:
    body = client.get("/repos/octo/sample/readme").json()
    assert set(body) == set(fixture("repos-get-readme.200.json"))
    assert base64.b64decode(body["content"]) == (repos["sample"] / "README.md").read_bytes()
    old = client.get("/repos/octo/sample/readme", params={"ref": "HEAD~7"}).json()
    assert base64.b64decode(old["content"]).startswith(b"# wordstats\n\nCount words")
    assert client.get("/repos/octo/links/readme").status_code == 404


def test_empty_repository(client: httpx.Client) -> None:
    contents = client.get("/repos/octo/empty/contents")
    assert (contents.status_code, contents.json()["message"]) == (404, "This repository is empty.")
    for path in ("/repos/octo/empty/commits", "/repos/octo/empty/git/trees/main"):
        response = client.get(path)
        assert (response.status_code, response.json()["message"]) == (409, "Git Repository is empty.")
    assert client.get("/repos/octo/empty/languages").json() == {}
    assert client.get("/repos/octo/empty").json()["size"] == 0


def test_commits_shape_and_pagination(client: httpx.Client, emu: GitHubEmulator) -> None:
    first = client.get("/repos/octo/sample/commits", params={"per_page": 3})
    commits = first.json()
    assert len(commits) == 3
    assert_same_shape(commits[0], fixture("repos-list-commits.200.json")[0])
    assert_same_shape(commits[0]["commit"], fixture("repos-list-commits.200.json")[0]["commit"])
    assert commits[0]["commit"]["message"] == "Release 0.2.0"
    assert commits[0]["commit"]["author"] == {
        "name": "Grace Hopper",
        "email": "1234567+ghopper@users.noreply.github.com",
        "date": "2024-02-26T17:00:00Z",
    }
    assert commits[0]["author"]["login"] == "ghopper"
    assert commits[1]["author"] is None  # an address GitHub does not know
    assert first.links["next"]["url"] == f"{emu.base_url}/repositories/4242/commits?per_page=3&page=2"
    last = client.get(first.links["last"]["url"])
    assert [c["commit"]["message"] for c in last.json()] == [
        "Add word splitting\n\nA first helper; counting comes next.",
        "Initial project skeleton",
    ]
    assert "next" not in last.links
    assert len(client.get("/repos/octo/sample/commits", params={"per_page": 500}).json()) == 8
    assert len(client.get("/repos/octo/sample/commits").json()) == 8
    assert "link" not in client.get("/repos/octo/sample/commits").headers
    by_path = client.get("/repos/octo/sample/commits", params={"path": "README.md"}).json()
    assert [c["commit"]["message"] for c in by_path] == ["Document usage", "Initial project skeleton"]


def test_tree_recursion_and_truncation(client: httpx.Client, emu: GitHubEmulator) -> None:
    flat = client.get("/repos/octo/links/git/trees/main").json()
    assert set(flat) == set(fixture("git-get-tree.200.json"))
    assert all("/" not in e["path"] for e in flat["tree"])
    modes = {e["path"]: (e["mode"], e["type"]) for e in flat["tree"]}
    assert modes["dir"] == ("040000", "tree")
    assert modes["to-file"] == ("120000", "blob")
    blob = next(e for e in flat["tree"] if e["type"] == "blob")
    assert set(blob) == set(fixture("git-get-tree.200.json")["tree"][0])
    deep = client.get(
        "/repos/octo/links/git/trees/main", params={"recursive": "0"}
    ).json()  # any value recurses
    paths = {e["path"]: (e["mode"], e["type"]) for e in deep["tree"]}
    assert paths["src/a.py"] == ("100755", "blob")
    assert paths["vendor/lib"] == ("160000", "commit")
    assert deep["truncated"] is False
    emu.max_tree_entries = 5
    cut = client.get(f"/repos/octo/links/git/trees/{deep['sha']}", params={"recursive": "1"}).json()
    assert (len(cut["tree"]), cut["truncated"]) == (5, True)
    assert client.get("/repos/octo/links/git/trees/nope").status_code == 404


def test_languages(client: httpx.Client, repos: dict[str, Path]) -> None:
    python = sum(p.stat().st_size for p in repos["sample"].rglob("*.py"))
    assert client.get("/repos/octo/sample/languages").json() == {"Python": python}


# ---------------------------------------------------------------------------------- redirects, privacy


def test_renamed_repository_answers_301(client: httpx.Client, emu: GitHubEmulator) -> None:
    emu.rename("octo/Sample", "newco/words")
    moved = client.get("/repos/octo/sample/contents/src%20x", params={"ref": "main"})
    location = f"{emu.base_url}/repositories/4242/contents/src%20x?ref=main"
    assert moved.status_code == 301
    assert moved.headers["location"] == location
    assert moved.json() == {
        "message": "Moved Permanently",
        "url": location,
        "documentation_url": "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects",
    }
    followed = client.get("/repos/octo/sample", follow_redirects=True)
    assert followed.json()["full_name"] == "newco/words"
    assert client.get("/repos/newco/words/readme").status_code == 200
    assert client.post("/repos/octo/sample").status_code == 307


def test_private_repository_is_not_found(
    client: httpx.Client, emu: GitHubEmulator, repos: dict[str, Path]
) -> None:
    repo_id = emu.add_repo("octo/secret", repos["sample"], private=True)
    for path in ("/repos/octo/secret", "/repos/octo/secret/readme", f"/repositories/{repo_id}"):
        response = client.get(path, headers={"Authorization": "Bearer t0ken"})
        assert (response.status_code, response.json()["message"]) == (404, "Not Found")


def test_api_prefix_like_enterprise_server(repos: dict[str, Path]) -> None:
    with GitHubEmulator(prefix="/api/v3") as emu:
        emu.add_repo("octo/sample", repos["sample"])
        assert emu.base_url.endswith("/api/v3")
        with httpx.Client(headers=UA, verify=False) as http_client:
            assert http_client.get(f"{emu.base_url}/repos/octo/sample").json()["url"].startswith(emu.base_url)
            unprefixed = emu.base_url.removesuffix("/api/v3") + "/repos/octo/sample"
            assert http_client.get(unprefixed).status_code == 404


# ---------------------------------------------------------------------------------- rate limits, caching


def test_rate_limit_endpoint_does_not_count(client: httpx.Client, emu: GitHubEmulator) -> None:
    client.get("/repos/octo/sample")
    first = client.get("/rate_limit").json()
    second = client.get("/rate_limit").json()
    assert set(first) == set(fixture("rate-limit-get.200.json"))
    assert set(first["resources"]) == set(fixture("rate-limit-get.200.json")["resources"])
    assert first == second
    assert first["resources"]["core"] == {"limit": 60, "used": 1, "remaining": 59, "reset": emu.reset_at}
    assert [r.counted for r in emu.requests] == [True, False, False]


def test_conditional_request_is_free_only_with_a_token(client: httpx.Client, emu: GitHubEmulator) -> None:
    auth = {"Authorization": "Bearer secret-token"}
    first = client.get("/repos/octo/sample/commits", headers=auth)
    etag = first.headers["etag"]
    cached = client.get("/repos/octo/sample/commits", headers={**auth, "If-None-Match": etag})
    assert (cached.status_code, cached.content, cached.headers["etag"]) == (304, b"", etag)
    assert cached.headers["x-ratelimit-remaining"] == "4999"
    unauthenticated = client.get("/repos/octo/sample/commits", headers={"If-None-Match": etag})
    assert unauthenticated.status_code == 304
    assert unauthenticated.headers["x-ratelimit-remaining"] == "59"
    changed = client.get("/repos/octo/sample/readme", headers={**auth, "If-None-Match": etag})
    assert changed.status_code == 200
    assert [(r.status, r.counted, r.authorized) for r in emu.requests] == [
        (200, True, True),
        (304, False, True),
        (304, True, False),
        (200, True, True),
    ]
    assert all(r.if_none_match == etag for r in emu.requests[1:])
    assert emu.remaining("secret-token") == 4998
    assert "secret-token" not in repr(emu.requests)


def test_limit_runs_out_then_403(client: httpx.Client, emu: GitHubEmulator) -> None:
    emu.limit_unauthenticated = 2
    assert [client.get("/repos/octo/sample/languages").status_code for _ in range(3)] == [200, 200, 403]
    refused = client.get("/repos/octo/sample")
    assert refused.status_code == 403
    assert refused.headers["x-ratelimit-remaining"] == "0"
    assert refused.json()["message"].startswith("API rate limit exceeded for 127.0.0.1.")
    assert client.get("/repos/octo/sample", headers={"Authorization": "token other"}).status_code == 200
    assert [r.counted for r in emu.requests] == [True, True, False, False, True]


def test_exhaust_and_replenish(client: httpx.Client, emu: GitHubEmulator) -> None:
    emu.exhaust(reset_in=120)
    refused = client.get("/repos/octo/sample", headers={"Authorization": "Bearer abc"})
    assert refused.status_code == 403
    assert refused.json()["message"].startswith("API rate limit exceeded for user ID")
    assert int(refused.headers["x-ratelimit-reset"]) - time.time() == pytest.approx(120, abs=5)
    assert client.get("/rate_limit").status_code == 200
    emu.replenish()
    emu.exhaust("127.0.0.1")
    assert client.get("/repos/octo/sample").status_code == 403
    assert client.get("/repos/octo/sample", headers={"Authorization": "Bearer abc"}).status_code == 200


# ------------------------------------------------------------------------------------------ faults


def test_failures_come_in_order_then_service_resumes(client: httpx.Client, emu: GitHubEmulator) -> None:
    emu.fail(r"/languages$", [503, 502], retry_after=3)
    emu.fail(r"/languages$", [500], body="<html>Unicorn!</html>")
    assert client.get("/repos/octo/sample").status_code == 200  # other paths are untouched
    answers = [client.get("/repos/octo/sample/languages") for _ in range(4)]
    assert [a.status_code for a in answers] == [503, 502, 500, 200]
    assert answers[0].headers["retry-after"] == "3"
    assert answers[0].json() == {"message": "Service Unavailable"}
    assert answers[2].text == "<html>Unicorn!</html>"
    assert [r.counted for r in emu.requests] == [True, False, False, False, True]


def test_secondary_limit(client: httpx.Client, emu: GitHubEmulator) -> None:
    emu.secondary_limit("/commits", times=2, retry_after=30)
    answers = [client.get("/repos/octo/sample/commits") for _ in range(3)]
    assert [a.status_code for a in answers] == [403, 403, 200]
    assert "secondary rate limit" in answers[0].json()["message"]
    assert answers[0].headers["retry-after"] == "30"


def test_dropped_connection(client: httpx.Client, emu: GitHubEmulator) -> None:
    emu.drop("/readme")
    with pytest.raises(httpx.RemoteProtocolError):
        client.get("/repos/octo/sample/readme")
    assert client.get("/repos/octo/sample/readme").status_code == 200
    assert [(r.dropped, r.status) for r in emu.requests] == [(True, None), (False, 200)]


def test_hang_times_out_and_does_not_block_stop(repos: dict[str, Path]) -> None:
    emu = GitHubEmulator().start()
    emu.add_repo("octo/sample", repos["sample"])
    emu.hang("/languages")
    # Nothing but stop() ends a hang, so the client's deadline is sure to come first.
    with httpx.Client(base_url=emu.base_url, headers=UA, timeout=0.2, verify=False) as http_client:
        with pytest.raises(httpx.ReadTimeout):
            http_client.get("/repos/octo/sample/languages")
        assert emu.in_flight == 1
        stopper = threading.Thread(target=emu.stop)
        stopper.start()
        stopper.join(PATIENCE)  # a stop() that waited for the hang would never return
    assert not stopper.is_alive()
    assert emu.in_flight == 0


async def test_random_faults_are_seeded_and_every_one_is_logged(repos: dict[str, Path]) -> None:
    paths = ["/repos/octo/sample", "/repos/octo/sample/commits", "/repos/octo/sample/languages"] * 6

    async def get(http_client: httpx.AsyncClient, path: str, held: HeldWaits) -> int | None:
        """The status, or None once the emulator holds the request: the client gives up, as it would at
        its read timeout (a held request is never answered before the test releases it)."""
        holding = held.held
        request = asyncio.ensure_future(http_client.get(path))
        while not request.done() and held.held == holding:
            await asyncio.sleep(0.001)
        if request.done():
            return request.result().status_code
        request.cancel()
        with suppress(asyncio.CancelledError):
            await request
        return None

    async def run(seed: int) -> list[tuple[str, int | None, str | None]]:
        held = HeldWaits()
        with GitHubEmulator(waits=held) as emu:
            emu.add_repo("octo/sample", repos["sample"])
            emu.random_faults(
                seed,
                rate_5xx=0.3,
                rate_timeout=0.1,
                stall_seconds=0.4,
                burst_429=2,
                down_path="/languages$",
            )
            async with httpx.AsyncClient(
                base_url=emu.base_url, headers=UA, timeout=PATIENCE, verify=False
            ) as http_client:
                answered = [await get(http_client, path, held) for path in paths]
            assert held.requested == [0.4] * answered.count(None)  # each "timeout" stalled its 0.4 s
            held.open()
            assert await asyncio.to_thread(emu.wait_idle, PATIENCE)  # a held request is logged when it ends
            log = emu.requests
        # One record per request, with what the client saw (the log is in order of completion).
        assert sorted(map(repr, ((r.decoded_path, r.status) for r in log))) == sorted(
            map(repr, zip(paths, answered, strict=True))
        )
        assert not any(r.counted for r in log if r.fault)
        for record in log:
            assert record.fault in (None, "5xx", "429", "timeout", "down")
            assert (record.status is None) == (record.fault == "timeout") == record.dropped
            assert record.fault != "5xx" or record.status in (500, 502, 503, 504)
            assert record.fault is not None or record.status == 200
        kind = {(r.decoded_path, r.status): r.fault for r in log}
        return [(path, status, kind[path, status]) for path, status in zip(paths, answered, strict=True)]

    first = await run(7)
    assert first == await run(7)  # the same seed injects the same faults
    assert first != await run(8)
    assert [fault for _, _, fault in first[:2]] == ["429", "429"]  # the burst, in arrival order
    assert {(status, fault) for path, status, fault in first if path.endswith("/languages")} == {
        (503, "down")
    }
    assert {"5xx", "timeout"} <= {fault for _, _, fault in first}
    with pytest.raises(ValueError, match="add up to at most 1"):
        GitHubEmulator().random_faults(1, rate_5xx=0.8, rate_timeout=0.3)


async def test_announced_timeouts_reach_the_client_as_read_timeouts_at_once(emu: GitHubEmulator) -> None:
    """``announce_timeouts``: a random timeout is answered at once with the header that
    :class:`AnnouncedTimeouts` raises as ``httpx.ReadTimeout``; logged as what the client saw (no answer),
    stamped by the test's clock."""
    clock = SharedVirtualClock()
    emu.stamp = clock.monotonic
    emu.announce_timeouts = True
    emu.random_faults(3, rate_timeout=1.0, stall_seconds=3600.0, down_path="/languages$")
    before = clock.monotonic()
    async with httpx.AsyncClient(
        base_url=emu.base_url, headers=UA, timeout=PATIENCE, transport=AnnouncedTimeouts()
    ) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.get("/repos/octo/sample")
        assert (await http.get("/repos/octo/sample/languages")).status_code == 503  # not a timeout: passed on
    [timed_out, down] = emu.requests
    assert (timed_out.fault, timed_out.status, timed_out.dropped) == ("timeout", None, True)
    assert (down.fault, down.status) == ("down", 503)
    assert before < timed_out.started < timed_out.finished < down.started < clock.monotonic()


def test_redirect_elsewhere(client: httpx.Client, emu: GitHubEmulator) -> None:
    emu.redirect_elsewhere("/repos/octo/sample$", "https://evil.example/steal")
    response = client.get("/repos/octo/sample")
    assert (response.status_code, response.headers["location"]) == (302, "https://evil.example/steal")
    assert client.get("/repos/octo/sample").status_code == 200


async def test_latency_overlaps_across_requests(emu: GitHubEmulator) -> None:
    held = emu.waits = HeldWaits()
    emu.latency(0.2, "/languages")
    emu.latency(0.1, "/languages$")  # delays stack
    async with httpx.AsyncClient(base_url=emu.base_url, headers=UA, timeout=PATIENCE, verify=False) as http:
        answers = asyncio.gather(*(http.get("/repos/octo/sample/languages") for _ in range(10)))
        assert await asyncio.to_thread(held.wait_held, 10)  # all ten wait out their latency at once
        assert not answers.done()
        held.open()
        assert [a.status_code for a in await answers] == [200] * 10
        assert (await http.get("/repos/octo/sample")).status_code == 200  # other paths are not delayed
    assert held.requested == [pytest.approx(0.3)] * 10
    assert emu.max_in_flight == 10
    assert emu.in_flight == 0
    emu.reset_faults()
    emu.clear_log()
    assert (emu.requests, emu.max_in_flight) == ([], 0)


# ------------------------------------------------------------------------------------------ protocol


def test_missing_user_agent_is_forbidden(emu: GitHubEmulator) -> None:
    with httpx.Client(base_url=emu.base_url, verify=False) as http_client:
        request = http_client.build_request("GET", "/repos/octo/sample")
        del request.headers["User-Agent"]
        response = http_client.send(request)
    assert response.status_code == 403
    assert "Please make sure your request has a User-Agent header" in response.text
    assert emu.requests[0].counted is False


def test_keep_alive_and_records(emu: GitHubEmulator) -> None:
    host, port = emu.base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    sockets = []
    try:
        for path in ("/repos/octo/sample", "/repos/octo/sample/contents/src%2Fpkg?ref=main"):
            connection.request("GET", path, headers={**UA, "Accept": "application/vnd.github+json"})
            response = connection.getresponse()
            response.read()
            assert response.status == 200
            sockets.append(connection.sock)
    finally:
        connection.close()
    assert sockets[0] is not None
    assert sockets[0] is sockets[1]  # the server kept the connection open for the second request
    record = emu.requests[1]
    assert (record.path, record.decoded_path, record.query) == (
        "/repos/octo/sample/contents/src%2Fpkg",
        "/repos/octo/sample/contents/src/pkg",
        {"ref": "main"},
    )
    assert (record.accept, record.authorized, record.user_agent) == (
        "application/vnd.github+json",
        False,
        UA["User-Agent"],
    )
    assert record.started <= record.finished
    assert emu.request_paths() == ["/repos/octo/sample", "/repos/octo/sample/contents/src/pkg"]
