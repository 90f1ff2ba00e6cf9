"""Paths named inside a report's fenced code blocks: checked like any other path, and only what is one.

A token is a path when :func:`~agent_core.report.claim_names.path_like` says so and it is not a module
or package name, a command, a URL, an absolute or parent-relative path, a glob or a variable. How sure a
token must look depends on the block: in a listing (no language, ``text``, ``tree``) any path-like token;
in a shell block (``bash``, ``console``...) only a path inside a command line that is clearly the
repository's (``./scripts/x.sh``, or a folder and a file's extension: ``python tools/gen.py``), the first
one of the line and not an option's value (what a command writes need not exist); in a block of code,
only a folder and a file's extension (``"./styles/main.css"``), and as such a path may be relative to a
file nobody names, it is confirmed when found but never contradicted (subject ``code``). Diagram and
diff blocks hold no path claims. Linear in the line: one token scan, no backtracking pattern. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_core.report.claim_names import Found, has_extension, is_command, is_module_name, path_like

SHELL = frozenset(
    {"bash", "sh", "shell", "console", "zsh", "fish", "powershell", "ps1", "pwsh", "cmd", "bat", "terminal"}
    | {"shell-session", "sh-session", "shellsession"}
)
LISTING = frozenset(
    {"", "text", "txt", "plain", "plaintext", "tree", "none", "output", "log", "md", "markdown"}
)
NO_PATHS = frozenset({"mermaid", "diff", "patch", "dot", "graphviz", "plantuml"})
_TOKEN = re.compile(r"[\w./@+-]+")
_ROOT_LINE = re.compile(r"[\w.@+-]+/")
_PROMPT = re.compile(r"\s*(?:\$|>|PS>|%)\s")
_COMMENT = re.compile(r"\s*(?:#|//|rem\s)", re.IGNORECASE)


def fence_language(opening: str) -> str:
    """The language of a fence's opening line (```` ```bash ```` → ``bash``), lower-cased."""
    info = opening.strip().lstrip("`~").strip()
    return info.split(maxsplit=1)[0].lower().strip("{}.") if info else ""


def fenced_paths(line: str, base: int, language: str, *, first: bool = False) -> Iterator[Found]:
    """The path claims of one line of a fenced block written in ``language``; the ``first`` line of a
    listing that is one folder alone (``my-project/``) is the listing's root, named as the writer likes."""
    if language in NO_PATHS or (first and language in LISTING and _ROOT_LINE.fullmatch(line.strip())):
        return
    shell = language in SHELL
    text = line
    if shell:
        prompt = _PROMPT.match(line)
        if prompt is None and _COMMENT.match(line):
            return  # a comment line
    after_option = False
    for m in _TOKEN.finditer(text):
        token = m.group(0).rstrip(".,:;")
        option, after_option = after_option, token.startswith("-")
        if not token or option or not _is_path(token, text, m.start(), language, shell):
            continue
        subject = "path" if shell or language in LISTING else "code"  # see verdicts.path: never ✗ alone
        yield Found(
            kind="path",
            subject=subject,
            value=token,
            start=base + m.start(),
            end=base + m.start() + len(token),
        )
        if shell:
            return  # the script a command line runs; later arguments may be what it writes


def _is_path(token: str, line: str, at: int, language: str, shell: bool) -> bool:
    before = line[at - 1] if at > 0 else " "
    if before in ":/$%{<=\\":
        return False  # a URL's rest, an absolute path's part, a variable, an option's value (--x=y)
    if token.startswith(("/", "~", "..", "-", "@")) or any(c in token for c in "*{}<>$"):
        return False
    if is_module_name(token) or is_command(token) or not path_like(token):
        return False
    folder_and_file = "/" in token.removeprefix("./").strip("/") and has_extension(token)
    if shell:
        return folder_and_file or (token.startswith("./") and ("/" in token[2:] or has_extension(token)))
    if language in LISTING:
        return True
    return folder_and_file
