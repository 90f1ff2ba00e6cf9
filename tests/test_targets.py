"""Targets: every accepted and rejected form of what users paste, and the path validation that keeps
every request inside ``/repos/{owner}/{repo}/`` (table-driven, then property-based with hypothesis)."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agent_core.errors import ConfigurationError, InvalidArgumentError, InvalidTargetError
from agent_core.repo import RepoRef, normalize_path, repo_api_path, validate_owner, validate_repo_name
from agent_core.sources.mentions import find_repo_mentions
from agent_core.sources.targets import parse_target, parse_targets
from tests.security_helpers import path_texts, valid_names, valid_owners

EXPECTED = "Expected a GitHub repository like https://github.com/owner/repo or owner/repo; got "
LOCAL_DISABLED = "Local paths are disabled on this server"

# --- parse_target: accepted -------------------------------------------------------------------------

FLASK = ("pallets", "flask", None, None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://github.com/pallets/flask", FLASK),
        ("http://github.com/pallets/flask", FLASK),
        ("https://www.github.com/pallets/flask", FLASK),
        ("HTTPS://GitHub.com/pallets/flask", FLASK),
        ("github.com/pallets/flask", FLASK),
        ("www.github.com/pallets/flask", FLASK),
        ("https://github.com/pallets/flask.git", FLASK),
        ("https://github.com/pallets/flask/", FLASK),
        ("https://github.com:443/pallets/flask", FLASK),
        ("https://github.com/pallets/flask/issues", FLASK),
        ("https://github.com/pallets/flask/issues/5000", FLASK),
        ("https://github.com/pallets/flask/pulls", FLASK),
        ("https://github.com/pallets/flask/pull/12/files", FLASK),
        ("https://github.com/pallets/flask/actions", FLASK),
        ("https://github.com/pallets/flask?tab=readme-ov-file", FLASK),
        ("https://github.com/pallets/flask#readme", FLASK),
        ("https://github.com/pallets/flask/tree", FLASK),
        ("git@github.com:pallets/flask.git", FLASK),
        ("git@github.com:pallets/flask", FLASK),
        ("ssh://git@github.com/pallets/flask.git", FLASK),
        ("pallets/flask", FLASK),
        ("pallets/flask/", FLASK),
        ("pallets/flask.git", FLASK),
        ("  pallets/flask \n", FLASK),
        ('"pallets/flask"', FLASK),
        ("'pallets/flask'", FLASK),
        ("`pallets/flask`", FLASK),
        ("<https://github.com/pallets/flask>", FLASK),
        ("(https://github.com/pallets/flask)", FLASK),
        ("https://github.com/pallets/flask).", FLASK),
        ("pallets/flask.", FLASK),
        ("pallets/flask,", FLASK),
        ("pallets/flask;", FLASK),
        ("pallets/flask)", FLASK),
        ("pallets/flask!", FLASK),
        ("pallets/flask?", FLASK),
        ("pallets/flask。", FLASK),
        ("pallets/flask，", FLASK),
        ("“pallets/flask”。", FLASK),
        ("'pallets/flask'.", FLASK),
        ("Pallets/Flask", ("Pallets", "Flask", None, None)),
        ("mrdoob/three.js", ("mrdoob", "three.js", None, None)),
        ("github/.github", ("github", ".github", None, None)),
        ("octo_acme/repo", ("octo_acme", "repo", None, None)),
        ("https://github.com/pallets/flask/tree/main", ("pallets", "flask", "main", None)),
        ("https://github.com/pallets/flask/tree/main/src/flask", ("pallets", "flask", "main", "src/flask")),
        (
            "https://github.com/pallets/flask/blob/3.0.x/src/flask/app.py#L10-L20",
            ("pallets", "flask", "3.0.x", "src/flask/app.py"),
        ),
        ("github.com/o/r/blob/main/docs/a%20b.md", ("o", "r", "main", "docs/a b.md")),
        ("github.com/o/r/blob/main/docs/文档.md", ("o", "r", "main", "docs/文档.md")),
        ("github.com/o/r/tree/v1.2.3/", ("o", "r", "v1.2.3", None)),
        # A ref with a slash cannot be told apart from the path: the first segment is the ref.
        ("https://github.com/o/r/tree/feature/login/src", ("o", "r", "feature", "login/src")),
    ],
)
def test_parse_target_accepts(text: str, expected: tuple[str, str, str | None, str | None]) -> None:
    target = parse_target(text)
    assert target.kind == "github"
    assert (target.owner, target.name, target.ref, target.subpath) == expected
    assert target.raw == text.strip()
    assert target.local_path is None


def test_github_target_full_name_and_repo_ref() -> None:
    target = parse_target("https://github.com/Pallets/Flask.git")
    assert target.full_name == "Pallets/Flask"
    assert target.repo_ref() == RepoRef(owner="Pallets", name="Flask")


@pytest.mark.parametrize(
    "text",
    ["https://ghe.example.com/acme/tool", "ghe.example.com/acme/tool", "git@ghe.example.com:acme/tool"],
)
def test_parse_target_enterprise_host(text: str) -> None:
    target = parse_target(text, host="GHE.example.com")
    assert (target.owner, target.name) == ("acme", "tool")


def test_enterprise_host_with_port() -> None:
    target = parse_target("https://ghe.local:8443/acme/tool", host="ghe.local:8443")
    assert (target.owner, target.name) == ("acme", "tool")


def test_enterprise_host_rejects_github_com_urls() -> None:
    with pytest.raises(InvalidTargetError, match=r"only ghe\.example\.com repositories are supported"):
        parse_target("https://github.com/o/r", host="ghe.example.com")


@pytest.mark.parametrize("host", ["", "https://github.com", "git hub.com", "user@github.com"])
def test_unusable_host_is_a_configuration_error(host: str) -> None:
    with pytest.raises(ConfigurationError, match="Invalid GitHub host"):
        parse_target("o/r", host=host)


# --- parse_target: rejected -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "got an empty input"),
        ("   ", "got an empty input"),
        ('""', "got an empty input"),
        ("https://gitlab.com/o/r", "only github.com repositories are supported, not 'gitlab.com'"),
        ("gitlab.com/o/r", "only github.com repositories are supported, not 'gitlab.com'"),
        ("https://gist.github.com/o/abc", "not 'gist.github.com'"),
        ("https://api.github.com/repos/o/r", "not 'api.github.com'"),
        ("https://github.com/torvalds", "user or organisation page"),
        ("github.com/torvalds/", "user or organisation page"),
        ("github.com", "that is github.com itself"),
        ("https://github.com/", "that is github.com itself"),
        ("https://github.com/?tab=repositories", "that is github.com itself"),
        ("github.com/settings/profile", "'settings' is a github.com page"),
        ("https://github.com/orgs/python/repositories", "'orgs' is a github.com page"),
        ("https://github.com/marketplace/actions/checkout", "'marketplace' is a github.com page"),
        ("github.com/topics/python", "'topics' is a github.com page"),
        ("https://github.com/search?q=flask", "'search' is a github.com page"),
        ("github.com/login", "'login' is a github.com page"),
        ("settings/profile", "'settings' is a github.com page"),
        ("flask", "give both the owner and the repository name"),
        ("a/b/c", "exactly one '/'"),
        ("-pallets/flask", "Invalid repository owner '-pallets'"),
        ("pallets-/flask", "Invalid repository owner"),
        ("pal--lets/flask", "Invalid repository owner"),
        ("pa.llets/flask", "Invalid repository owner"),
        ("gitlab.com/o", "Invalid repository owner 'gitlab.com'"),
        ("o/r r", "Invalid repository name 'r r'"),
        ("o/..", "Invalid repository name"),
        ("o/.git", "Invalid repository name"),
        ("github.com/o/fl%61sk", "Invalid repository name"),
        ("x" * 40 + "/repo", "Invalid repository owner"),
        ("o/" + "x" * 101, "Invalid repository name"),
        ("ftp://github.com/o/r", "the scheme 'ftp' is not supported"),
        ("https://[github.com/o/r", "it is not a valid URL"),
        ("https://github.com:99999/o/r", "it is not a valid URL"),
        ("https://github.com/o/r/tree/a..b/x", "'a..b' is not a usable branch, tag or commit"),
        ("https://github.com/o/r/tree/a%20b", "is not a usable branch"),
        ("https://github.com/o/r/blob/main/%2e%2e/secret", "'..' segments are not allowed"),
        ("https://github.com/o/r/blob/main/a/../../x", "'..' segments are not allowed"),
        ("https://github.com/o/r/blob/main/a%00b", "control character"),
        ("o/r\tx", "it contains control characters"),
        # Host confusion: the repository must be on the configured host, whatever the URL dresses up as.
        ("https://github.com.evil.com/o/r", "not 'github.com.evil.com'"),
        ("github.com.evil.com/o/r", "not 'github.com.evil.com'"),
        ("https://evil.com/github.com/o/r", "not 'evil.com'"),
        ("https://github.com@evil.com/o/r", "got a URL with credentials in it"),
        ("git@evil.com:o/r.git", "not 'evil.com'"),
        ("ssh://git@evil.com/o/r.git", "not 'evil.com'"),
    ],
)
def test_parse_target_rejects_with_clear_message(text: str, reason: str) -> None:
    with pytest.raises(InvalidTargetError) as caught:
        parse_target(text)
    assert str(caught.value).startswith(EXPECTED)
    assert reason in str(caught.value)


def test_rejection_message_shows_what_was_typed() -> None:
    with pytest.raises(InvalidTargetError, match=r"got 'https://gitlab\.com/o/r'"):
        parse_target("  https://gitlab.com/o/r  ")


def test_credentials_in_a_url_are_refused_and_never_echoed() -> None:
    for text in [
        "https://x-access-token:ghp_SECRET123@github.com/o/r",
        "https://ghp_SECRET123@github.com/o/r",
    ]:
        with pytest.raises(InvalidTargetError) as caught:
            parse_target(text)
        assert "credentials" in str(caught.value)
        assert "SECRET" not in str(caught.value)


def test_long_input_is_not_echoed_whole() -> None:
    with pytest.raises(InvalidTargetError) as caught:
        parse_target("x" * 5000)
    assert len(str(caught.value)) < 250
    assert "x" * 81 not in str(caught.value)


@pytest.mark.parametrize(
    "text", ["/tmp", "/home/me/project", "./x", "../x", "~/x", "~", ".", "..", "C:\\code"]
)
def test_local_paths_disabled_by_default(text: str) -> None:
    with pytest.raises(InvalidTargetError, match=LOCAL_DISABLED):
        parse_target(text)


def test_existing_directory_is_github_when_local_disabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pallets" / "flask").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert parse_target("pallets/flask").kind == "github"


# --- parse_target: local ----------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory ``proj`` inside a temporary working directory that is also $HOME."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "file.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    return (tmp_path / "proj").resolve()


@pytest.mark.parametrize("text", ["{abs}", "./proj", "~/proj", "proj", "'{abs}'", "./proj/", "proj/../proj"])
def test_local_targets(project: Path, text: str) -> None:
    target = parse_target(text.format(abs=project), allow_local=True)
    assert target.kind == "local"
    assert target.local_path == project
    assert target.full_name == "proj"
    assert target.repo_ref() == RepoRef(owner="local", name="proj")
    assert target.owner is None


def test_local_dot_is_the_working_directory(project: Path) -> None:
    target = parse_target(".", allow_local=True)
    assert target.local_path == project.parent


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("./missing", "does not exist or is not a directory"),
        ("/definitely/not/here", "does not exist or is not a directory"),
        ("./file.txt", "does not exist or is not a directory"),
        ("~no_such_user_xyz/x", "cannot be used"),
    ],
)
def test_local_targets_must_be_existing_directories(project: Path, text: str, reason: str) -> None:
    with pytest.raises(InvalidTargetError, match=reason):
        parse_target(text, allow_local=True)


def test_urls_stay_github_even_when_local_allowed(project: Path) -> None:
    assert parse_target("https://github.com/pallets/flask", allow_local=True).kind == "github"
    assert parse_target("pallets/flask", allow_local=True).kind == "github"  # no such directory


# --- parse_targets ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "pallets/flask fastapi/fastapi",
        "pallets/flask, fastapi/fastapi",
        "pallets/flask,fastapi/fastapi",
        "pallets/flask\nfastapi/fastapi\n",
        "pallets/flask and fastapi/fastapi",
        "pallets/flask AND fastapi/fastapi",
        "pallets/flask vs fastapi/fastapi",
        "pallets/flask vs. fastapi/fastapi",
        "https://github.com/pallets/flask versus https://github.com/fastapi/fastapi.",
        "pallets/flask和fastapi/fastapi",
        "pallets/flask 与 fastapi/fastapi",
        "对比 pallets/flask 和 fastapi/fastapi",
        "对比pallets/flask和fastapi/fastapi",
        "pallets/flask、fastapi/fastapi",
        "pallets/flask fastapi/fastapi Pallets/Flask https://github.com/pallets/flask.git",
    ],
)
def test_parse_targets_splits_and_dedupes(text: str) -> None:
    assert [t.full_name.lower() for t in parse_targets(text)] == ["pallets/flask", "fastapi/fastapi"]


def test_parse_targets_keeps_first_spelling_and_order() -> None:
    targets = parse_targets("Django/Django pallets/flask django/django")
    assert [t.full_name for t in targets] == ["Django/Django", "pallets/flask"]


def test_parse_targets_does_not_split_names_containing_separator_words() -> None:
    names = [t.full_name for t in parse_targets("sand/andromeda and vs-code/vs")]
    assert names == ["sand/andromeda", "vs-code/vs"]


def test_parse_targets_at_most_five() -> None:
    five = " ".join(f"o/r{i}" for i in range(5))
    assert len(parse_targets(five)) == 5
    assert len(parse_targets(five + " o/r0")) == 5  # a duplicate does not count
    with pytest.raises(InvalidTargetError, match="At most 5 repositories can be compared at once; got 6"):
        parse_targets(five + " o/r5")


@pytest.mark.parametrize("text", ["", " , and vs ", "和"])
def test_parse_targets_empty(text: str) -> None:
    with pytest.raises(InvalidTargetError, match="got an empty input"):
        parse_targets(text)


def test_parse_targets_reports_the_bad_item() -> None:
    with pytest.raises(InvalidTargetError, match=r"got 'https://gitlab\.com/a/b'"):
        parse_targets("pallets/flask vs https://gitlab.com/a/b")


def test_parse_targets_local(project: Path) -> None:
    targets = parse_targets(f"./proj, {project} pallets/flask", allow_local=True)
    assert [t.kind for t in targets] == ["local", "github"]


# --- find_repo_mentions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("compare pallets/flask and fastapi/fastapi", ["pallets/flask", "fastapi/fastapi"]),
        ("对比 pallets/flask 和 fastapi/fastapi", ["pallets/flask", "fastapi/fastapi"]),
        ("对比pallets/flask和fastapi/fastapi的架构", ["pallets/flask", "fastapi/fastapi"]),
        ("How does (pallets/flask) route requests?", ["pallets/flask"]),
        ("Is `encode/httpx`, or psf/requests. better?", ["encode/httpx", "psf/requests"]),
        ("clone pallets/flask.git please", ["pallets/flask"]),
        ("mrdoob/three.js vs. chartjs/Chart.js", ["mrdoob/three.js", "chartjs/Chart.js"]),
        ("see https://github.com/pallets/flask.", ["pallets/flask"]),
        ("[flask](https://github.com/pallets/flask) is nice", ["pallets/flask"]),
        ("看看https://github.com/pallets/flask和django/django", ["pallets/flask", "django/django"]),
        ("git@github.com:pallets/flask.git and github.com/psf/black", ["pallets/flask", "psf/black"]),
        # URL mentions always count, even where a bare token would be skipped.
        (
            "https://github.com/src/main and https://github.com/Rapptz/discord.py",
            ["src/main", "Rapptz/discord.py"],
        ),
        ("pallets/flask (https://github.com/Pallets/Flask) pallets/flask", ["pallets/flask"]),
        ("fastapi/fastapi then https://github.com/pallets/flask", ["fastapi/fastapi", "pallets/flask"]),
    ],
)
def test_find_repo_mentions(text: str, expected: list[str]) -> None:
    assert [t.full_name for t in find_repo_mentions(text)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "use and/or combine",
        "I/O is slow, TCP/IP too, and so are UI/UX and AI/ML",
        "GUI/CLI, REST/RPC and PDF/EPUB",
        "the entry point is src/main",
        "open src/main/java/App.java",
        "edit agent/loop.py and docs/index.md",
        "python 1.2/3 or 24/7 or v1/v2",
        "install @types/node",
        "r/python and u/spez",
        "mail me@example.com/x",
        "see https://gitlab.com/pallets/flask or example.com/a/b",
        "https://github.com/torvalds is a user",
        "a/b and x/y",
        "run on linux/amd64",
        "settings/profile",
        "foo/bar/baz",
        "foo/bar/",
    ],
)
def test_find_repo_mentions_skips_lookalikes(text: str) -> None:
    assert find_repo_mentions(text) == []


def test_find_repo_mentions_keeps_url_ref_and_subpath() -> None:
    [target] = find_repo_mentions("look at https://github.com/pallets/flask/tree/main/src/flask, please")
    assert (target.ref, target.subpath) == ("main", "src/flask")


def test_find_repo_mentions_enterprise_host() -> None:
    mentions = find_repo_mentions("see https://ghe.example.com/acme/tool and org/lib", host="ghe.example.com")
    assert [t.full_name for t in mentions] == ["acme/tool", "org/lib"]


# --- validate_owner / validate_repo_name ------------------------------------------------------------


@pytest.mark.parametrize("owner", ["a", "pallets", "Pallets", "a-b", "a1", "1a", "x" * 39, "octo_acme"])
def test_validate_owner_accepts(owner: str) -> None:
    assert validate_owner(owner) == owner


@pytest.mark.parametrize(
    "owner", ["", "-a", "a-", "a--b", "a b", "a.b", "x" * 40, "_a", "a_", "ü", "a/b", "..", "a\n", "a%2f"]
)
def test_validate_owner_rejects(owner: str) -> None:
    with pytest.raises(InvalidArgumentError, match=r"Invalid repository owner.*1-39 letters"):
        validate_owner(owner)


def test_validate_owner_rejects_non_strings() -> None:
    with pytest.raises(InvalidArgumentError, match="Invalid repository owner a int"):
        validate_owner(123)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("flask", "flask"),
        ("three.js", "three.js"),
        (".github", ".github"),
        ("a_b-c", "a_b-c"),
        ("...", "..."),
        ("flask.git", "flask"),
        ("flask.GIT", "flask"),
        ("x" * 100, "x" * 100),
    ],
)
def test_validate_repo_name_accepts(name: str, expected: str) -> None:
    assert validate_repo_name(name) == expected


@pytest.mark.parametrize(
    "name", ["", ".", "..", ".git", "..git", "a b", "a/b", "x" * 101, "ü", "a%2f", "a\x00"]
)
def test_validate_repo_name_rejects(name: str) -> None:
    with pytest.raises(InvalidArgumentError, match=r"Invalid repository name.*1-100 letters"):
        validate_repo_name(name)


@pytest.mark.parametrize("validate", [validate_owner, validate_repo_name])
def test_validation_messages_echo_at_most_80_chars(validate: object) -> None:
    assert callable(validate)
    with pytest.raises(InvalidArgumentError) as caught:
        validate("y" * 500 + "\x00" * 100)
    assert "y" * 81 not in str(caught.value)
    assert "\x00" not in str(caught.value)
    assert len(str(caught.value)) < 250


# --- normalize_path ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (None, ""),
        ("", ""),
        ("/", ""),
        (".", ""),
        ("./", ""),
        ("//./", ""),
        ("src", "src"),
        ("/src", "src"),
        ("///src", "src"),
        ("src/", "src"),
        ("//src//a//", "src/a"),
        ("./src/./a.py", "src/a.py"),
        ("src/.", "src"),
        (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
        ("...", "..."),
        ("a..b/..c", "a..b/..c"),
        ("a b/c d.py", "a b/c d.py"),
        ("ab:c/d", "ab:c/d"),
        ("src/C:/x", "src/C:/x"),
        ("src/~/x", "src/~/x"),
        ("~$report.docx", "~$report.docx"),
        ("a+b&c=d;e@f", "a+b&c=d;e@f"),
        ("docs/文档.md", "docs/文档.md"),
        ("cafe\u0301.txt", "cafe\u0301.txt"),  # NFD stays NFD: git stores bytes
        ("\U0001f468\u200d\U0001f469.md", "\U0001f468\u200d\U0001f469.md"),
        ("a/" * 2000 + "b", "a/" * 2000 + "b"),
    ],
)
def test_normalize_path_accepts(path: str | None, expected: str) -> None:
    assert normalize_path(path) == expected


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("..", "'..' segments are not allowed"),
        ("../x", "'..' segments are not allowed"),
        ("/../x", "'..' segments are not allowed"),
        ("a/../b", "'..' segments are not allowed"),
        ("a/..", "'..' segments are not allowed"),
        ("．．/etc", "'..' segments are not allowed"),  # fullwidth dots fold to ".."
        ("a/．/b", "'..' segments are not allowed (nor look-alikes"),
        ("\u2025/etc", "'..' segments are not allowed"),  # two-dot leader folds to ".."
        ("a／../b", "reads as '/'"),
        ("a\\b", "backslashes are not allowed"),
        ("\\\\server\\share", "backslashes are not allowed"),
        ("a\x00b", "control character '\\x00'"),
        ("a\nb", "control character"),
        ("a\x7fb", "control character"),
        ("a\u0085b", "control character"),
        ("a\u2028b", "control character"),
        ("a\u2029b", "control character"),
        ("a\ud800b", "control character"),
        ("a?b", "'?' is not allowed"),
        ("a#b", "'#' is not allowed"),
        ("%2e%2e/x", "'%' is not allowed"),
        ("a%2fb", "'%' is not allowed"),
        ("a％2fb", "'%' is not allowed"),
        ("C:/Windows", "Windows drive"),
        ("c:\\x", "Windows drive"),
        ("C:", "Windows drive"),
        ("/D:x", "Windows drive"),
        ("~", "home directory"),
        ("~/x", "home directory"),
        ("/~/x", "home directory"),
        ("~root/.ssh", "home directory"),
        ("a" * 4097, "longer than 4096 characters"),
    ],
)
def test_normalize_path_rejects(path: str, reason: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        normalize_path(path)
    assert str(caught.value).startswith("Invalid path")
    assert reason in str(caught.value)


def test_normalize_path_rejects_non_strings() -> None:
    with pytest.raises(InvalidArgumentError, match="expected a string, got int"):
        normalize_path(5)  # type: ignore[arg-type]


# --- repo_api_path ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "path", "expected"),
    [
        (("o", "r", "contents"), "src/a b.py", "/repos/o/r/contents/src/a%20b.py"),
        (("o", "r"), None, "/repos/o/r"),
        (("o", "r", "languages"), None, "/repos/o/r/languages"),
        (("o", "r", "contents"), "/", "/repos/o/r/contents"),
        (("o", "r", "contents"), "//src/./", "/repos/o/r/contents/src"),
        (("o", "r.git", "git", "trees", "main"), None, "/repos/o/r/git/trees/main"),
        (("o", "r", "contents"), "文档.md", "/repos/o/r/contents/%E6%96%87%E6%A1%A3.md"),
        (("o", "r", "contents"), "a+b&c=d;e@f:g", "/repos/o/r/contents/a%2Bb%26c%3Dd%3Be%40f%3Ag"),
        (("Pallets", "flask", "readme"), None, "/repos/Pallets/flask/readme"),
    ],
)
def test_repo_api_path(args: tuple[str, ...], path: str | None, expected: str) -> None:
    assert repo_api_path(*args, path=path) == expected


@pytest.mark.parametrize(
    ("args", "path", "reason"),
    [
        (("..", "r", "contents"), None, "Invalid repository owner"),
        (("o/x", "r", "contents"), None, "Invalid repository owner"),
        (("o", "..", "contents"), None, "Invalid repository name"),
        (("o", "r/../x", "contents"), None, "Invalid repository name"),
        (("o", "r", "contents/../../x"), None, "must not contain '/'"),
        (("o", "r", ".."), None, "'..' segments are not allowed"),
        (("o", "r", "."), None, "'..' segments are not allowed"),
        (("o", "r", ""), None, "must be a non-empty string"),
        (("o", "r", "a?b"), None, "'?' is not allowed"),
        (("o", "r", "contents"), "../../x", "'..' segments are not allowed"),
        (("o", "r", "contents"), "a?ref=evil", "'?' is not allowed"),
        (("o", "r", "contents"), "a#frag", "'#' is not allowed"),
    ],
)
def test_repo_api_path_rejects(args: tuple[str, ...], path: str | None, reason: str) -> None:
    with pytest.raises(InvalidArgumentError, match="Invalid") as caught:
        repo_api_path(*args, path=path)
    assert reason in str(caught.value)


# --- properties -------------------------------------------------------------------------------------
# That nothing a user pastes or a model asks for leaves the repository is the security suite's
# (tests/test_security_suite.py), over the same strategies; here, that valid input round-trips.

FAST = settings(max_examples=120, deadline=None)


@FAST
@given(
    valid_owners,
    valid_names,
    st.sampled_from(
        ["https://github.com/{}", "github.com/{}/", "git@github.com:{}.git", "{}", "<{}>.", "'{}',"]
    ),
)
def test_parse_target_round_trips_valid_names(owner: str, name: str, form: str) -> None:
    target = parse_target(form.format(f"{owner}/{name}"))
    assert (target.owner, target.name) == (owner, name)


valid_refs = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,10}", fullmatch=True).filter(
    lambda ref: ".." not in ref and not ref.endswith((".", ".lock"))
)


@FAST
@given(valid_owners, valid_names, st.sampled_from(["tree", "blob"]), valid_refs, path_texts)
def test_tree_and_blob_urls_keep_exactly_the_normalized_subpath(
    owner: str, name: str, kind: str, ref: str, path: str
) -> None:
    assume(not any(unicodedata.category(c) == "Cs" for c in path))  # not encodable in a URL at all
    # Encode "." too, so that "%2E%2E" must be caught after decoding and no dot reads as punctuation.
    url = f"https://github.com/{owner}/{name}/{kind}/{ref}/" + quote(path, safe="/").replace(".", "%2E")
    try:
        expected = normalize_path(path) or None
    except InvalidArgumentError:
        with pytest.raises(InvalidTargetError, match="its file path is not usable"):
            parse_target(url)
        return
    target = parse_target(url)
    assert (target.owner, target.name, target.ref, target.subpath) == (owner, name, ref, expected)
