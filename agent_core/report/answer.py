"""The Answer section: what the files read say about the question asked.

:func:`answer` reads the question (:func:`~agent_core.report.relevance.read_question`) and, per topic
and term, says what the evidence shows -- the tests (folder, how many, the framework and where it is
declared or used), the CI files and the commands they run, the command line (installed commands, entry
points, the argument parser and its options), the files whose names match a term (their summary line
and top-level definitions) -- then which files were read for it and which relevant ones the read budget
left unread. Every file is linked as the rest of the report links files
(:func:`~agent_core.report.facts.link`); the claim check turns the links into permalinks at the
analysed commit. Repository text goes through :func:`~agent_core.report.inert.plain` or
:func:`~agent_core.report.inert.code`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from agent_core.report.claim_finders import find_claims
from agent_core.report.concepts import CONCEPTS, ConceptName, shows
from agent_core.report.facts import TEST_FILE, Facts, link, tests_elsewhere
from agent_core.report.inert import code, inline, plain
from agent_core.report.outline import (
    commands,
    definitions,
    frameworks_in,
    options,
    parser_library,
    summary,
    test_packages,
)
from agent_core.report.phrases import files_phrase, join_names, shorten
from agent_core.report.relevance import (
    QUESTION_READS,
    Topic,
    question_files,
    read_question,
    term_files,
    topic_files,
)
from agent_core.words import Words


def answer(facts: Facts, words: Words) -> list[str]:
    """The Answer section's lines for one repository (empty when no question was asked)."""
    if not facts.question.strip():
        return []
    asked = read_question(facts.question)
    if asked.empty:
        return [words("a_nothing")]
    if not facts.paths:
        return [words("a_no_tree")]
    blocks = [_TOPICS[topic](facts, words) for topic in asked.topics]
    blocks += [
        _matches(facts, words, term, said) for term, said in zip(asked.terms, asked.written, strict=True)
    ]
    files = facts.evidence.files
    model = facts.model
    skip = (lambda p: not model.is_own(p)) if model is not None else None
    chosen = question_files(asked, facts.paths, skip=skip)
    relevant = [*(p for t in asked.topics for p in topic_files(t, facts.paths, skip))]
    relevant += [p for term in asked.terms for p in term_files(term, facts.paths)]
    read = [link(facts, p) for p in dict.fromkeys([*chosen, *relevant]) if p in files]
    unread = [link(facts, p) for p in dict.fromkeys(relevant) if p not in files]
    listed = [code(f"{p}/") for p in sorted(facts.evidence.listings) if p and "tests" in asked.topics]
    footer = [words("a_read", join_names(read, words))] if read else []
    footer += [words("a_listed", join_names(listed, words))] if listed else []
    footer += [words("a_beyond", QUESTION_READS, join_names(unread, words, cap=10))] if unread else []
    return _blocks(*blocks, ["".join(footer).strip()] if footer else [])


# -- topics ------------------------------------------------------------------------------------------------


def _tests(facts: Facts, words: Words) -> list[str]:
    named = sum(1 for p in facts.paths if TEST_FILE.search(p.rsplit("/", 1)[-1]))
    if facts.tests_dir:
        count = sum(1 for p in facts.paths if p.startswith(f"{facts.tests_dir}/"))
        where = code(f"{facts.tests_dir}/")
        said = words("a_tests_dir", where, files_phrase(count, words), files_phrase(named, words))
    elif named:
        said = words("a_test_files", files_phrase(named, words))
    elif elsewhere := tests_elsewhere(facts, words):  # a folder's run: its tests kept outside it
        said = elsewhere
    elif facts.tree_complete:
        return [words("a_tests", words("a_no_tests"))]
    else:
        return [words("a_tests", words("a_tests_unknown"))]
    return [words("a_tests", said + _frameworks(facts, words))]


def _frameworks(facts: Facts, words: Words) -> str:
    """The test frameworks: declared in which manifests, used in which files read."""
    declared: dict[str, list[str]] = {}
    for manifest in facts.manifests:
        for name in test_packages(d.name for d in manifest.all_dependencies()):
            declared.setdefault(name, []).append(link(facts, manifest.path))
    used: dict[str, list[str]] = {}
    for path, content in sorted(facts.evidence.files.items()):
        for name in frameworks_in(content.text or ""):
            used.setdefault(name, []).append(link(facts, path))
    if any(p.endswith("_test.go") for p in facts.paths):
        used.setdefault("go test", [])
    names = list(dict.fromkeys([*used, *declared]))
    if not names:
        return words("a_framework_unknown")
    parts = []
    for name in names:
        where = [words("a_declared", join_names(declared[name], words, cap=3))] if name in declared else []
        where += [words("a_seen", join_names(used[name], words, cap=4))] if used.get(name) else []
        parts.append(plain(name) + (words("paren", words("semi").join(where)) if where else ""))
    return words("a_framework", words("sep").join(parts))


def _ci(facts: Facts, words: Words) -> list[str]:
    if facts.ci is None:
        return [words("a_ci"), words("a_ci_unknown")]
    items = []
    for path in topic_files("ci", facts.paths):
        content = facts.evidence.files.get(path)
        if content is None or content.text is None:
            items.append(f"- {link(facts, path)}")  # unread: the footer says so
            continue
        run = commands(content.text)
        about = summary(path, content.text)
        line = (
            words("a_runs", link(facts, path), join_names([code(c) for c in run], words))
            if run
            else words("a_ran", link(facts, path))
        )
        items.append(f"- {line}" + _quote(about, line))
    items += [f"- {words('a_runner', link(facts, p))}" for p in facts.test_runners]
    items += [f"- {link(facts, p)}" for p in facts.evidence.ci_outside]  # a folder's run: the repository's
    return [words("a_ci"), *items] if items else [words("a_ci"), words("a_no_ci")]


def _cli(facts: Facts, words: Words) -> list[str]:
    items = [
        f"- {words('a_script', link(facts, m.path), code(name), code(target))}"
        for m in facts.manifests
        for name, target in m.scripts
    ]
    entries = topic_files("cli", facts.paths)
    for path in entries:
        content = facts.evidence.files.get(path)
        if content is None or content.text is None:
            continue
        parts = []
        library = parser_library(content.text)
        if library:
            parts.append(words("a_parses", code(library)))
            declared = options(content.text)
            if declared:
                parts.append(words("a_options", join_names([code(o) for o in declared], words)))
        line = f"- {link(facts, path)}" + (f" — {words('semi').join(parts)}" if parts else "")
        items.append(line + _quote(summary(path, content.text), line, lead=words("semi") if parts else " — "))
    if not items and not entries and facts.tree_complete:
        return [words("a_cli"), words("a_no_entry")]
    return [words("a_cli"), *items] if items else []


def _concept(name: ConceptName) -> Callable[[Facts, Words], list[str]]:
    """The block of a concept (:mod:`~agent_core.report.concepts`): each file that answers it, and what
    the ones read show (a build backend, a base image, a licence's first line)."""

    def block(facts: Facts, words: Words) -> list[str]:
        model = facts.model
        skip = (lambda p: not model.is_own(p)) if model is not None else None
        items = []
        for path in topic_files(name, facts.paths, skip):
            content = facts.evidence.files.get(path)
            said = shows(name, path, content.text) if content is not None and content.text else []
            items.append(f"- {link(facts, path)}" + (f" — {words('sep').join(said)}" if said else ""))
        if items:
            return [words(f"concept_{name}_heading"), *items]
        return (
            [words(f"concept_{name}_heading"), words(f"concept_{name}_none")] if facts.tree_complete else []
        )

    return block


_TOPICS: dict[Topic, Callable[[Facts, Words], list[str]]] = {
    "tests": _tests,
    "ci": _ci,
    "cli": _cli,
    **{c.name: _concept(c.name) for c in CONCEPTS},
}


# -- terms -------------------------------------------------------------------------------------------------


def _matches(facts: Facts, words: Words, term: Sequence[str], said: str) -> list[str]:
    found = term_files(term, facts.paths)
    if not found:
        return [words("a_no_match", plain(said, limit=80))]
    items = []
    for path in found:
        content = facts.evidence.files.get(path)
        if content is None or content.text is None:
            continue
        parts = []
        is_test = bool(TEST_FILE.search(path.rsplit("/", 1)[-1]))
        names = definitions(path, content.text)
        tests = [n for n in names if n.startswith("test")] if is_test else []
        if tests:
            count = len(re.findall(r"^(?:async\s+)?def\s+test", content.text, flags=re.MULTILINE))
            parts.append(words("a_test_count", count or len(tests)))
        names = [n for n in names if n not in tests]
        if names:
            parts.append(words("a_defines", join_names([code(n) for n in names], words)))
        if content.truncated and content.end_line:
            parts.append(words("a_partial", content.end_line))
        role = words("paren", words("a_test_role")) if is_test else ""
        line = f"- {link(facts, path)}{role}"
        about = _quote(summary(path, content.text), line)
        items.append(
            line + about + ((words("semi") if about else " — ") + words("semi").join(parts) if parts else "")
        )
    return [words("a_matches", plain(said, limit=80)), *items] if items else []


def _quote(about: str | None, line: str, *, lead: str = " — ") -> str:
    """A file's own summary line, to follow ``line``, unless it would add a checkable claim to it: the
    repository's words are not the report's, and "a fresh machine lacks ... the README" is no claim
    that the README is missing. reStructuredText roles and literals become code spans."""
    if not about:
        return ""
    about = re.sub(r"(?::[\w:]+:)?``?([^`]+)``?", r"`\1`", shorten(about, 160)).rstrip(" .")
    quoted = lead + inline(about)
    return quoted if len(find_claims(line + quoted)) == len(find_claims(line)) else ""


def _blocks(*blocks: list[str]) -> list[str]:
    out: list[str] = []
    for block in blocks:
        if block:
            out += [*([""] if out else []), *block]
    return out
