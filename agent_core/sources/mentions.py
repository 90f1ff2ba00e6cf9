"""Repositories mentioned inside free text (a question, a follow-up): found conservatively.

A missed mention is better than a wrong one: every URL on the host that
:func:`~agent_core.sources.targets.parse_target` accepts counts; a bare ``owner/repo`` only when it
cannot be read as anything else (see :func:`find_repo_mentions`).
"""

from __future__ import annotations

import re

from agent_core.errors import InvalidTargetError
from agent_core.repo import OWNER_RE, REPO_RE
from agent_core.sources.targets import RESERVED_OWNERS, Target, dedupe_key, normalize_host, parse_target

# A URL runs until whitespace, a quote or angle bracket, or CJK text/punctuation ("看https://…和…").
_URL_BODY = r"[^\s<>\"'`\u2e80-\u9fff\u3000-\u303f\uff00-\uffef\uac00-\ud7af]*"
# A bare owner/repo: a standalone token, i.e. not glued to a word, path, e-mail, scope ("@types/node")
# or URL on either side; trailing sentence dots are not part of the name.
_BARE_RE = re.compile(
    r"(?<![A-Za-z0-9_.@/:#~\\-])"
    r"([A-Za-z0-9][A-Za-z0-9_-]{0,38})/([A-Za-z0-9._-]*[A-Za-z0-9_-])"
    r"(?![A-Za-z0-9_@/\\-]|\.[A-Za-z0-9_-])"
)
_STOP_PAIRS = frozenset(
    {
        "and/or", "either/or", "tcp/ip", "udp/ip", "input/output", "read/write", "yes/no", "on/off",
        "true/false", "client/server", "he/she", "his/her", "him/her", "she/her", "he/him",
        "they/them", "pros/cons", "before/after", "get/set", "min/max", "start/stop", "open/close",
        "push/pull", "request/response", "frontend/backend", "ci/cd", "ui/ux", "ai/ml", "src/main",
        "src/test", "linux/amd64", "linux/arm64", "darwin/arm64", "windows/amd64",
    }
)  # fmt: skip
# Directory names that start paths ("src/app.py", "docs/guide"), not owners.
_STOP_OWNERS = frozenset(
    {
        "api", "app", "assets", "bin", "build", "cmd", "config", "dev", "dist", "doc", "docs", "etc",
        "examples", "home", "include", "internal", "lib", "node_modules", "opt", "out", "pkg", "public",
        "scripts", "src", "static", "test", "tests", "tmp", "usr", "var", "vendor",
    }
)  # fmt: skip
# File extensions: "agent/loop.py" is a file. Repositories named like files ("Rapptz/discord.py") are
# missed as bare text (a false negative; their URL still counts). ".js" and ".io" are common repo names.
_FILE_NAME_RE = re.compile(
    r".*\.(?:py|md|rst|txt|json|ya?ml|toml|cfg|ini|lock|rs|go|c|h|cc|cpp|hpp|java|kt|ts|tsx|jsx|html|"
    r"css|sh|rb|php|sql|xml|csv|log)",
    re.IGNORECASE,
)
_NUMBERISH_RE = re.compile(r"v?[\d.]+", re.IGNORECASE)
_NOT_OWNERS = _STOP_OWNERS | RESERVED_OWNERS
_ACRONYM_RE = re.compile(r"[A-Z]{1,5}")


def find_repo_mentions(text: str, *, host: str = "github.com") -> list[Target]:
    """Repositories mentioned in free text, in order of appearance, deduplicated case-insensitively.

    Conservative (a missed mention is better than a wrong one). Every URL on ``host`` that
    :func:`parse_target` accepts counts. A bare ``owner/repo`` counts only when it is a standalone token
    (not part of a longer path, URL, e-mail or ``@scope/pkg``), both parts are valid and at least two
    characters long, and it is none of: a stop pair (``and/or``, ``TCP/IP``, ``src/main``...), a path
    starting with a common directory (``src/``, ``docs/``...), a file name (``agent/loop.py``), numbers
    or versions (``24/7``, ``v1/v2``), or two short all-caps acronyms (``I/O``, ``UI/UX``).
    """
    host = normalize_host(host)
    found: list[tuple[int, Target]] = []
    masked = list(text)
    url_re = re.compile(
        rf"(?<![A-Za-z0-9_.@-])(?:(?:https?|ssh|git)://)?(?:git@)?(?:www\.)?{re.escape(host)}(?::\d+)?[/:]{_URL_BODY}",
        re.IGNORECASE,
    )
    for match in url_re.finditer(text):
        masked[match.start() : match.end()] = " " * (match.end() - match.start())
        try:
            found.append((match.start(), parse_target(match.group(), host=host)))
        except InvalidTargetError:
            continue
    for match in _BARE_RE.finditer("".join(masked)):
        owner, name = match.group(1), re.sub(r"(?:\.git)+$", "", match.group(2), flags=re.IGNORECASE)
        if _is_plausible_bare_mention(owner, name):
            found.append((match.start(), Target(kind="github", owner=owner, name=name, raw=match.group())))
    mentions: list[Target] = []
    seen: set[str] = set()
    for _, target in sorted(found, key=lambda item: item[0]):
        if dedupe_key(target) not in seen:
            seen.add(dedupe_key(target))
            mentions.append(target)
    return mentions


def _is_plausible_bare_mention(owner: str, name: str) -> bool:
    if len(owner) < 2 or len(name) < 2 or not OWNER_RE.fullmatch(owner) or not REPO_RE.fullmatch(name):
        return False
    if name in {".", ".."} or f"{owner}/{name}".lower() in _STOP_PAIRS or owner.lower() in _NOT_OWNERS:
        return False
    if _NUMBERISH_RE.fullmatch(owner) or _NUMBERISH_RE.fullmatch(name) or _FILE_NAME_RE.fullmatch(name):
        return False
    return not (_ACRONYM_RE.fullmatch(owner) and _ACRONYM_RE.fullmatch(name))


# A local path in free text: a token starting with "/", "./", "../" or "~/" ("analyse /srv/repo", "分析 ./app").
_LOCAL_PATH_RE = re.compile(r"(?:^|(?<=[\s(\"'`]))((?:~|\.{1,2})?/[^\s\"'`()，。、；：！？]*)")


def find_local_path(text: str) -> str | None:
    """The first local path written in ``text`` (``/srv/repo``, ``./app``, ``~/code/x``), as written, trailing
    sentence punctuation dropped; None when there is none. Whether it exists is the caller's question."""
    for match in _LOCAL_PATH_RE.finditer(text):
        path = match.group(1).rstrip(".,;:!?")
        if path not in ("/", "./", "../", "~/"):
            return path
    return None
