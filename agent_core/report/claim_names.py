"""What a code span or a word of a report names: a file or folder of the repository (a path), or a module
or package (a dependency). Shared by the claim finders; pure functions, no I/O."""

from __future__ import annotations

import re

from agent_core.repomodel.conventions import test_name
from agent_core.sources.licenses import LICENSE_FILE

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


def path_like(text: str) -> bool:
    text = text.strip()
    if not _PATH_LIKE.match(text) or text.startswith("-") or re.fullmatch(r"v?\d+(\.\d+)*", text):
        return False
    if text.startswith("_") and test_name(text) == f"*{text}":  # a test convention (`_test.go`), no file
        return False
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
