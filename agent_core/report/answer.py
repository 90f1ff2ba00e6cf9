"""The Answer section: what the files read for the question show.

The files are :func:`~agent_core.report.relevance.ranked` for the question (the same order the offline
planner read them in); each one read is linked, with its role in the repository and what it shows --
its own summary line, the commands a CI file runs, the parser and options of a command line, a build
backend, a Dockerfile's base image, a licence's first line, the names a file defines -- then the relevant
files the read budget left unread. Links are made as the rest of the report makes them
(:func:`~agent_core.report.facts.link`); repository text goes through :mod:`~agent_core.report.inert`.
"""

from __future__ import annotations

import re

from agent_core.report.claim_finders import find_claims
from agent_core.report.facts import Facts, link, tests_elsewhere
from agent_core.report.inert import code, inline, plain
from agent_core.report.outline import commands, definitions, options, parser_library, summary
from agent_core.report.phrases import join_names, shorten
from agent_core.report.relevance import QUESTION_READS, ranked, read_question
from agent_core.words import Words

_BUILD_FACTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\[build-system\]", re.MULTILINE), "`[build-system]`"),
    (re.compile(r"^build-backend\s*=\s*[\"']([\w.:-]+)[\"']", re.MULTILINE), "backend `{}`"),
    (re.compile(r"^\[tool\.(setuptools|hatch|poetry|flit|pdm|maturin)\b", re.MULTILINE), "`[tool.{}]`"),
    (re.compile(r"\"(build|compile|bundle)\"\s*:\s*\"([^\"`]{1,80})\""), "script `{}`: `{}`"),
    (re.compile(r"^(build|all|install|dist)\s*:", re.MULTILINE), "target `{}`"),
)
_IMAGE = re.compile(r"^FROM\s+([\w./:@-]{1,80})", re.MULTILINE | re.IGNORECASE)
_LICENSE = re.compile(r"^(licen[cs]e|copying|unlicense)([.-][\w.-]+)?$", re.IGNORECASE)
_TEST_DEF = re.compile(r"^(?:async\s+)?def\s+test", re.MULTILINE)


def answer(facts: Facts, words: Words) -> list[str]:
    """The Answer section's lines for one repository (empty when no question was asked)."""
    if not facts.question.strip():
        return []
    asked = read_question(facts.question)
    if not asked.words:
        return [words("a_nothing")]
    if not facts.paths:
        return [words("a_no_tree")]
    files, outside, model = facts.evidence.files, facts.evidence.ci_outside, facts.model
    known = set(facts.paths)
    paths = [*facts.paths, *(p for p in [*files, *outside] if p not in known)]  # a folder's, outside it

    def role(path: str) -> str:
        return "ci" if path in outside else model.role_of(path) if model is not None else "source"

    found = ranked(asked, paths, role)
    lines = [_line(facts, words, p, role(p)) for p in found if p in files or p in outside]
    elsewhere = tests_elsewhere(facts, words) if "test" in asked.words else None
    lines += ["", words("a_tests", elsewhere)] if elsewhere else []
    unread = [link(facts, p) for p in found[: 2 * QUESTION_READS] if p not in files and p not in outside]
    # a paragraph of its own: right under the list, Markdown would join it to the last item
    footer = ["", words("a_beyond", QUESTION_READS, join_names(unread, words))] if unread else []
    said = plain(" ".join(asked.written), limit=80)
    if not found:
        return [words("a_no_match", said), *lines]
    return [words("a_files", said), *lines, *footer] if lines else footer[1:]


def _line(facts: Facts, words: Words, path: str, role: str) -> str:
    """One file read: its link, its role, its summary line and what it shows."""
    content = facts.evidence.files.get(path)  # None: a folder's run lists the repository's CI unread
    text = content.text or "" if content is not None else ""
    parts = _shows(path, text, role, words)
    names = definitions(path, text)
    tests = [n for n in names if n.startswith("test")] if role == "tests" else []
    if tests:
        parts.append(words("a_test_count", len(_TEST_DEF.findall(text)) or len(tests)))
    if names := [n for n in names if n not in tests]:
        parts.append(words("a_defines", join_names([code(n) for n in names], words)))
    if content is not None and content.truncated and content.end_line:
        parts.append(words("a_partial", content.end_line))
    label = words("paren", words(f"role_{role}")) if role != "source" and words.has(f"role_{role}") else ""
    line = f"- {link(facts, path)}{label}"
    about = _quote(summary(path, text), line)
    rest = words("semi").join(parts)
    return line + about + (((words("semi") if about else " — ") + rest) if rest else "")


def _shows(path: str, text: str, role: str, words: Words) -> list[str]:
    """What a file's text shows by its kind: commands a CI file runs, a command line's parser and
    options, build facts, a base image, a licence's first line (repository text in code spans)."""
    name = path.rpartition("/")[2]
    if role == "ci" and (run := commands(text)):
        return [words("a_runs", join_names([code(c) for c in run], words))]
    if library := parser_library(text):
        declared = options(text)
        found = [words("a_options", join_names([code(o) for o in declared], words))] if declared else []
        return [words("a_parses", code(library)), *found]
    if _LICENSE.match(name):
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        return [f"“{plain(first, limit=80)}”"] if first else []
    images = list(dict.fromkeys(_IMAGE.findall(text)))[:3] if "file" in name.lower() else []
    if images:  # a Dockerfile's, a Containerfile's
        return [code(f"FROM {image}") for image in images]
    facts = []
    for pattern, template in _BUILD_FACTS:
        if match := pattern.search(text):
            facts.append(template.format(*(g.replace("`", "") for g in match.groups())))
    return [words("sep").join(facts)] if facts else []


def _quote(about: str | None, line: str) -> str:
    """A file's own summary line, to follow ``line``, unless it would add a checkable claim to it: the
    repository's words are not the report's. reStructuredText roles and literals become code spans."""
    if not about:
        return ""
    about = re.sub(r"(?::[\w:]+:)?``?([^`]+)``?", r"`\1`", shorten(about, 160)).rstrip(" .")
    quoted = " — " + inline(about)
    return quoted if len(find_claims(line + quoted)) == len(find_claims(line)) else ""
