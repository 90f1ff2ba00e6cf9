"""What a code span or a word of a report names: a file or folder of the repository (a path), a module
or package (a dependency), or a command; and :class:`Found`, one claim where it stands. Shared by the claim
finders; pure functions, no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_core.repomodel.conventions import test_name
from agent_core.sources.licenses import LICENSE_FILE


@dataclass(frozen=True, kw_only=True)
class Found:
    """One claim as written: its kind (number, license, language, date, version, dependency, path, link),
    its subject (stars / forks / open_issues / commits; created / last_commit / last_push; python /
    package; dependency / module (a Go module path, a scoped npm name, a Maven coordinate) / framework),
    its value as written ("70.3k", "MIT", "src/app.py", a URL) and where it stands."""

    kind: str
    subject: str
    value: str
    start: int
    end: int
    negated: bool = False  # "there is no package.json"
    primary: bool = False  # a language claim about the main language
    version: str = ""  # a dependency's version or constraint as written beside it ("^18.2", "1.2.3")
    explicit: bool = False  # said to be a dependency in so many words ("depends on `X`", "依赖 `X`")


_NEGATION = re.compile(
    r"\b(?:no|not|without|missing|lacks?|lacking|absent|isn't|aren't|doesn't|does not|do not|neither|nor|none)\b|没有|缺少|缺乏|未|无",
    re.IGNORECASE,
)
# A recommendation to add something (the clause opens with the imperative): it says the thing is absent.
_TO_ADD = re.compile(
    r"[\s*_>#\d.-]*(?:add|create|write|consider adding|push a first commit with)\b|[\s*_>#\d.-]*(?:添加|创建|编写)",
    re.IGNORECASE,
)
_EXCEPT = re.compile(r"\b(?:besides|except|other than|apart from|beyond|only)\b|除了|之外", re.IGNORECASE)


def negated(line: str, at: int) -> bool:
    """A negation word in the same clause, before the claim ("no `package.json`", "没有 CI"), and no
    "besides"/"except" between them ("no dependencies besides `click`" names one). Only the clause's last
    60 characters count, so only the 100 before the claim are read (a line of a thousand claims stays
    linear)."""
    clause = re.split(r"[.;:。；：!?！？]|\bbut\b|，但", line[max(0, at - 100) : at])[-1]
    if _TO_ADD.match(clause):
        return True  # "Add a README that ...": a recommendation to add what is not there
    clause = clause[-60:]
    negations = list(_NEGATION.finditer(clause))
    return bool(negations) and not _EXCEPT.search(clause[negations[-1].end() :])


class Taken:
    """Which characters of a line a finder has already given to a claim, a file name or a link: marking a
    stretch costs its length, asking about a character costs one lookup (a list of stretches asked about
    at every match made a line of many code spans quadratic)."""

    def __init__(self, size: int) -> None:
        self._marks = bytearray(size)

    def add(self, start: int, end: int) -> None:
        self._marks[start:end] = b"\x01" * max(0, min(end, len(self._marks)) - start)

    def covers(self, at: int) -> bool:
        return 0 <= at < len(self._marks) and self._marks[at] == 1


# Installed, not committed: a tool's binary under a package manager's folder is a command, not a path.
_INSTALLED = re.compile(r"^(?:\./)?(?:vendor/bin|node_modules/\.bin|node_modules)/", re.IGNORECASE)


# A .NET package or namespace: dotted PascalCase names (a file's extension is lower case).
DOTTED_NAME = re.compile(r"[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)+")


def is_command(text: str) -> bool:
    """A command or an installed tool's binary (``vendor/bin/phpunit``, ``node_modules/.bin/jest``)."""
    return _INSTALLED.match(text.strip()) is not None


# A module or package name: a Go module path (a domain, then a path: github.com/stretchr/testify,
# google.golang.org/grpc) or a scoped npm name (@typescript-eslint/parser). A dependency, not a path.
_MODULE = re.compile(
    r"@[a-z0-9][\w.-]*/[\w.-]+|[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.[a-z]{2,6}(?:/[\w.~+-]+)+"
)
_PATH_EXTENSIONS = (
    "py|pyi|js|mjs|cjs|ts|tsx|jsx|json|toml|md|rst|txt|yml|yaml|cfg|ini|lock|rs|go|java|kt|c|h|cc|cpp|hpp|"
    "cs|rb|php|sh|bash|html|css|scss|sql|xml|gradle|swift|vue|svelte|ipynb|mod|sum|env|example|cfg"
)
_PATH_LIKE = re.compile(r"^(?:\./)?[\w@+-][\w.@+-]*(?:/[\w.@+-]+)*/?$")
_HAS_EXTENSION = re.compile(rf"\.(?:{_PATH_EXTENSIONS})$", re.IGNORECASE)
KNOWN_FILES = re.compile(
    r"(?<![\w./-])(README(?:\.(?:md|rst|txt))?|LICENSE(?:\.(?:md|txt))?|CHANGELOG\.md|CONTRIBUTING\.md|Dockerfile|Makefile|"
    r"package\.json|pyproject\.toml|setup\.py|setup\.cfg|requirements\.txt|Cargo\.toml|go\.mod|tox\.ini|noxfile\.py|"
    r"pom\.xml|build\.gradle|Gemfile|composer\.json|docker-compose\.ya?ml)(?![\w/-]|\.\w)"
)


def has_extension(text: str) -> bool:
    """``text`` ends with a known file extension (``.py``, ``.json``, ``.gradle``...)."""
    return _HAS_EXTENSION.search(text) is not None


def path_like(text: str) -> bool:
    text = text.strip()
    if not _PATH_LIKE.match(text) or text.startswith("-") or re.fullmatch(r"v?\d+(\.\d+)*", text):
        return False
    if text.startswith("_") and test_name(text) == f"*{text}":  # a test convention (`_test.go`), no file
        return False
    if is_command(text):
        return False
    if DOTTED_NAME.fullmatch(text):
        return False  # `Newtonsoft.Json`, `System.Text.Json`: a .NET package or namespace, not a file
    return (
        "/" in text.strip("/")
        or text.endswith("/")
        or bool(_HAS_EXTENSION.search(text))
        or bool(KNOWN_FILES.fullmatch(text))
        or bool(LICENSE_FILE.fullmatch(text))
    )


def is_module_name(text: str) -> bool:
    """A Go module path or a scoped npm name (see ``_MODULE``); a first segment with a file's extension
    (``setup.py/``) or a leading dot (``.github/``) is a path."""
    text = text.strip()
    if _MODULE.fullmatch(text) is None:
        return False
    first = text.split("/", 1)[0]
    return text.startswith("@") or not _HAS_EXTENSION.search(first)
