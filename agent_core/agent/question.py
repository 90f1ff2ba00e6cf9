"""The offline planner's reads for the question asked, and when it stops trying.

:func:`question_reads` names the files a question needs (:func:`~agent_core.report.relevance.question_files`:
tests and CI for "how is it tested", entry points for "the CLI", the build, dependencies, licensing,
deployment, configuration and docs by concept (:mod:`~agent_core.report.concepts`), paths whose names
match the question's terms), at most ``budget`` per repository and question. The same question always names the same files,
so the planner stays stateless: a follow-up with a new question names new files, and the ones already
read are not read again (the planner skips calls already made).

:func:`offline` says when every failure so far is a broken connection (DNS, TLS, the network): then more
calls to the same service would fail the same way, and the planner stops for that repository.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from agent_core.report.relevance import QUESTION_READS, Asked, Topic, question_files, read_question
from agent_core.tools.results import ToolResult

CONNECTIVITY_CAUSES = frozenset({"dns", "tls", "network"})
_TOPIC_LABELS: Mapping[Topic, str] = MappingProxyType(
    {
        "tests": "tests",
        "ci": "CI",
        "cli": "command line",
        "build": "build",
        "deps": "dependencies",
        "license": "licensing",
        "deploy": "deployment",
        "config": "configuration",
        "docs": "documentation",
    }
)


def question_reads(
    question: str,
    paths: Sequence[str],
    *,
    budget: int = QUESTION_READS,
    skip: Callable[[str], bool] | None = None,
) -> list[str]:
    """The files to read for ``question`` among ``paths`` (a repository's files), at most ``budget``;
    ``skip``: the paths that never answer a concept (vendored, generated)."""
    asked = read_question(question)
    return question_files(asked, sorted(paths), budget=budget, skip=skip) if not asked.empty else []


def describe_question(question: str) -> str:
    """What the reads are for, in a few words: "the question (tests, CI, “circuit breaker”)"."""
    asked: Asked = read_question(question)
    parts = [*(_TOPIC_LABELS[t] for t in asked.topics), *(f"“{w}”" for w in asked.written)]
    return f"the question ({', '.join(parts)})" if parts else "the question"


def offline(results: Sequence[ToolResult]) -> bool:
    """Whether something failed and every failure so far is a broken connection (DNS, TLS, network)."""
    failures = [r for r in results if not r.ok]
    return bool(failures) and all(r.cause in CONNECTIVITY_CAUSES for r in failures)
