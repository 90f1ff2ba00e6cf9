"""What a file read shows, in a few words: its summary line, its top-level definitions, the commands a
CI file runs, the options a command line parses.

Pure functions over the text the tools returned (untrusted: callers render the results with
:func:`~agent_core.report.inert.plain` or :func:`~agent_core.report.inert.code`). They err towards
saying less: a line that does not look like what is sought is skipped.
"""

from __future__ import annotations

import re

MAX_DEFINITIONS = 12
MAX_COMMANDS = 8
MAX_OPTIONS = 12

_DOCSTRING = re.compile(r'^\s*(?:#![^\n]*\n)?(?:#[^\n]*\n|\s)*[rRuU]?("""|\'\'\')\s*(?P<text>[^\n]*)')
_COMMENT = re.compile(r"^\s*(?:#!.*\n)?\s*(?:#|//|/\*+|--)\s*(?P<text>[^\n]*\w[^\n]*)")
_DEFINITIONS = (
    (r"\.pyi?$", re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", re.MULTILINE)),
    (
        r"\.[cm]?[jt]sx?$",
        re.compile(
            r"^export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|interface|type)\s+([A-Za-z_$][\w$]*)",
            re.MULTILINE,
        ),
    ),
    (r"\.go$", re.compile(r"^(?:func\s+(?:\([^)]*\)\s*)?|type\s+)([A-Za-z_]\w*)", re.MULTILINE)),
    (
        r"\.rs$",
        re.compile(r"^pub\s+(?:async\s+)?(?:fn|struct|enum|trait|mod|type)\s+([A-Za-z_]\w*)", re.MULTILINE),
    ),
    (
        r"\.(java|kt|cs|scala)$",
        re.compile(
            r"^\s*(?:public\s+|internal\s+)?(?:final\s+|abstract\s+|data\s+|sealed\s+)*(?:class|interface|enum|object|record)\s+(\w+)",
            re.MULTILINE,
        ),
    ),
    (r"\.rb$", re.compile(r"^(?:class|module|def)\s+([A-Za-z_][\w:.]*)", re.MULTILINE)),
    (r"(\.(sh|bash)|^[^.]+)$", re.compile(r"^(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)\s*\{", re.MULTILINE)),
)
# What a CI file runs that says how the project is checked; installs and setup are left out.
_COMMAND = re.compile(
    r"^(?:python3?\s+-m\s+\w+|pytest|tox|nox|npm\s+(?:run\s+\S+|test)|yarn\s+\S+|pnpm\s+\S+|npx\s+\S+|"
    r"make(?:\s+[\w-]+)?|cargo\s+\S+|go\s+(?:test|vet|build)|ruff|mypy|pyright|flake8|black|isort|pylint|"
    r"eslint|prettier|jest|vitest|mvn|gradle|\./gradlew|bundle\s+exec|rake|coverage|pre-commit|uv\s+run|"
    r"poetry\s+run|hatch\s+run|phpunit|dotnet\s+test|ctest|meson\s+test)\b"
)
_INSTALL = re.compile(r"\b(install|sync|ci|setup|update|upgrade|download|cache)\b")
_PARSERS = (
    ("argparse", re.compile(r"^\s*(?:import argparse|from argparse import)", re.MULTILINE)),
    ("click", re.compile(r"^\s*(?:import click|from click import)", re.MULTILINE)),
    ("typer", re.compile(r"^\s*(?:import typer|from typer import)", re.MULTILINE)),
    ("docopt", re.compile(r"^\s*(?:import docopt|from docopt import)", re.MULTILINE)),
    ("fire", re.compile(r"^\s*(?:import fire|from fire import)", re.MULTILINE)),
    ("clap", re.compile(r"\buse\s+clap\b")),
    ("cobra", re.compile(r'"github\.com/spf13/cobra"')),
    ("flag", re.compile(r'^\s*(?:import\s+)?"flag"', re.MULTILINE)),
    ("commander", re.compile(r"""require\(['"]commander['"]\)|from\s+['"]commander['"]""")),
    ("yargs", re.compile(r"""require\(['"]yargs['"]\)|from\s+['"]yargs""")),
)
_OPTION = re.compile(
    r"""(?:add_argument|\.option|Option|\.flag)\(\s*["'](-{1,2}[A-Za-z][\w-]*|[a-z][\w-]*)["']"""
)


def summary(path: str, text: str) -> str | None:
    """A file's own first line about itself: a Python module docstring's, else a leading comment's."""
    if path.endswith((".py", ".pyi")):
        match = _DOCSTRING.match(text)
        if match and match["text"].strip(" \"'"):
            return match["text"].strip().rstrip("\"'").strip()
    match = _COMMENT.match(text)
    if match is None:
        return None
    line = match["text"].strip().rstrip("*/").strip()
    return line if re.search(r"[A-Za-z\u3400-\u9fff]{3}", line) else None


def definitions(path: str, text: str) -> list[str]:
    """The names a file defines at its top level (functions, classes, types), in order, at most 12;
    the private ones (``_name``) only when there is nothing else."""
    name = path.rsplit("/", 1)[-1]
    pattern = next((p for suffix, p in _DEFINITIONS if re.search(suffix, name)), None)
    if pattern is None:
        return []
    names = list(dict.fromkeys(pattern.findall(text)))
    public = [n for n in names if not n.startswith("_")]
    return (public or names)[:MAX_DEFINITIONS]


def commands(text: str) -> list[str]:
    """The check and test commands a CI file or script runs (``ruff check .``, ``python -m pytest``), in
    order, each once; installs and setup steps left out."""
    found: dict[str, None] = {}
    for raw in text.splitlines():
        line = re.sub(r"^\s*(?:-\s+)?(?:run:|script:|- run:)?\s*", "", raw).strip().strip("'\"")
        if line.startswith("#"):
            continue
        for piece in re.split(r"\s*(?:&&|\|\||;)\s*", line):
            part = re.sub(r"\s*(?:[12]?>\s*\S+|\|.*)$", "", piece).strip()
            second = part.split(" ", 2)[1] if " " in part else ""
            if _COMMAND.match(part) and not _INSTALL.search(second) and not re.search(r"\bpip\b", part):
                found.setdefault(part[:80], None)
    return list(found)[:MAX_COMMANDS]


def parser_library(text: str) -> str | None:
    """The argument parsing library a file uses, when it imports a known one."""
    return next((name for name, pattern in _PARSERS if pattern.search(text)), None)


def options(text: str) -> list[str]:
    """The options and arguments a command line declares (``--json``, ``target``), at most 12."""
    return list(dict.fromkeys(_OPTION.findall(text)))[:MAX_OPTIONS]
