"""What a question asks about, and which files of a repository answer it.

:func:`read_question` turns a question (English or Chinese) into :class:`Asked`: the topics the report
knows how to answer (``tests``, ``ci``, ``cli``) and the terms left over, each a phrase of stemmed words
("circuit breakers" -> ``("circuit", "breaker")``). :func:`question_files` ranks a tree's paths for it:
per topic the files that show it (test configuration and a test file, CI files, entry points), and the
paths whose names match a term, most telling first, merged in turns and cut at ``QUESTION_READS``.

Pure functions over text and paths: the offline planner reads what :func:`question_files` names, and
the Answer section says which of them were read and what they show.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_core.report.concepts import BY_NAME, CONCEPTS, concept_files
from agent_core.report.facts import TEST_DIRS, TEST_FILE
from agent_core.tools.observe import notable_role

Topic = Literal["tests", "ci", "cli", "build", "deps", "license", "deploy", "config", "docs"]
QUESTION_READS = 6  # files the offline planner reads for one question, per repository
CI_DEPTH = 2  # notable_role names no file deeper than .github/workflows/<file>: deeper paths are skipped

_TOPICS: tuple[tuple[Topic, re.Pattern[str]], ...] = (
    (
        "tests",
        re.compile(
            r"\b(unit[\s-]?tests?|tests?|tested|testing|unittest|coverage|pytest|specs?|qa)\b|测试|单测|覆盖率",
            re.IGNORECASE,
        ),
    ),
    (
        "ci",
        re.compile(
            r"\b(ci|continuous integration|pipelines?|workflows?|github actions|gitlab ci|lint(ing)?)\b"
            r"|持续集成|流水线|工作流",
            re.IGNORECASE,
        ),
    ),
    (
        "cli",
        re.compile(
            r"\b(cli|command[\s-]?line|commands?|entry[\s-]?points?|arguments?|args|argparse|flags|"
            r"options|sub-?commands?|terminal|console|main|executables?|binar(?:y|ies)|launch\w*)\b"
            r"|命令行|入口|参数|终端|启动|主程序",
            re.IGNORECASE,
        ),
    ),
)
_ALL_TOPICS: tuple[tuple[Topic, re.Pattern[str]], ...] = (*_TOPICS, *((c.name, c.asked) for c in CONCEPTS))
_STOPWORDS = frozenset(
    re.findall(
        r"\S+",
        """a about all an analyse analysis analyze and any app application are as assess at be been by can
        class classes code codebase could define defined defines describe did do does done evaluate
        explain file files find for from function functions get give handle handled handles handling has
        have how i implement implementation implemented implements in is it its live lives located logic
        me module modules of on or overview part parts please project repo repository review run runs should show
        some summarise summarize summary tell that the there these this those to under use used uses using was
        we what what's where where's which who why will with work works would write you""",
    )
)
# Chinese words that name a concept file names spell in English.
_GLOSSARY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("熔断", ("breaker",)),
    ("重试", ("retry",)),
    ("缓存", ("cache",)),
    ("配置", ("config",)),
    ("设置", ("settings",)),
    ("日志", ("log",)),
    ("限流", ("rate", "limit")),
    ("认证", ("auth",)),
    ("鉴权", ("auth",)),
    ("数据库", ("database",)),
    ("解析", ("pars",)),
    ("路由", ("route",)),
    ("界面", ("ui",)),
    ("报告", ("report",)),
    ("模型", ("model",)),
    ("工具", ("tool",)),
    ("事件", ("event",)),
    ("安全", ("security",)),
    ("错误", ("error",)),
    ("诊断", ("diagnosis",)),
)
_TEST_CONFIG = re.compile(
    r"^(pytest\.ini|tox\.ini|noxfile\.py|setup\.cfg|conftest\.py|pyproject\.toml|package\.json|"
    r"(jest|vitest|karma|playwright|cypress)\.conf(ig)?\.[cm]?[jt]s|\.mocharc(\.\w+)?|phpunit\.xml(\.dist)?)$",
    re.IGNORECASE,
)
_ENTRY_NAMES = re.compile(r"^(__main__\.py|cli\.\w+|main\.\w+|cmd\.\w+|console\.\w+)$", re.IGNORECASE)
_SOURCE = re.compile(
    r"\.(py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|scala|ex|exs|sh|lua)$"
)


@dataclass(frozen=True, kw_only=True)
class Asked:
    """What a question asks: topics the report can answer, and terms to look for in file names."""

    topics: tuple[Topic, ...]
    terms: tuple[tuple[str, ...], ...]  # phrases of stemmed words
    written: tuple[str, ...]  # the terms as the question wrote them, for the answer

    @property
    def empty(self) -> bool:
        return not self.topics and not self.terms


def read_question(question: str) -> Asked:
    """The topics and terms of ``question``; a question about testing asks about CI too. Topics are
    taken in order, each from what the ones before left ("configures the build" is the build, not
    configuration)."""
    topics: list[Topic] = []
    rest = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", question)  # CircuitBreaker: two words
    for topic, pattern in _ALL_TOPICS:
        if pattern.search(rest):
            topics.append(topic)
            rest = pattern.sub(" | ", rest)
    if "tests" in topics and "ci" not in topics:
        topics.insert(1, "ci")
    terms: dict[tuple[str, ...], str] = {}
    for chunk in re.split(
        r"[^A-Za-z0-9\s_-]|\b(?:" + "|".join(sorted(_STOPWORDS)) + r")\b", rest, flags=re.I
    ):
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", chunk or "") if w.lower() not in _STOPWORDS]
        if words and any(len(w) > 2 for w in words):
            terms.setdefault(tuple(stem(w) for w in words), " ".join(words))
    for chinese, english in _GLOSSARY:
        if chinese in rest:
            terms.setdefault(english, chinese)
    return Asked(topics=tuple(topics), terms=tuple(terms), written=tuple(terms.values()))


def stem(word: str) -> str:
    """A crude English stem, enough to match file names: breakers -> breaker, retries -> retry,
    parsing -> pars, tested -> test."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
                w = w[:-1]  # running -> run
            break
    return w


def path_tokens(path: str) -> list[str]:
    """The stemmed words of a path: split at ``/ _ - .`` and camelCase."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", path)
    return [stem(t) for t in re.split(r"[^A-Za-z0-9]+", spaced) if t]


def _same(word: str, token: str) -> bool:
    """A question's word names a path's token: equal, or one begins the other ("pars" for "parser";
    "config" for "configuration", a token only when it is at least 5 letters: "repo" is no "report")."""
    if word == token:
        return True
    if len(word) < len(token):
        return len(word) >= 4 and token.startswith(word)
    return len(token) >= 5 and word.startswith(token)


def term_score(term: Sequence[str], path: str) -> int:
    """How well ``path`` matches a phrase: a word in the file name counts 3, in a folder name 1, the
    whole phrase in the file name 4 more (``circuit_breaker.py``, ``CircuitBreaker.java``)."""
    folder, _, name = path.rpartition("/")
    name_tokens, dir_tokens = path_tokens(name), path_tokens(folder)
    joined = "".join(name_tokens)
    score = 0
    for word in term:
        if any(_same(word, t) for t in name_tokens):
            score += 3
        elif any(_same(word, t) for t in dir_tokens):
            score += 1
    if len(term) > 1 and "".join(term) in joined:
        score += 4
    return score if any(any(_same(w, t) for t in name_tokens) for w in term) else 0


# The endings of the names TEST_FILE matches, but ``test_*.py`` (``str.endswith`` over a tuple is one C
# call: a question about tests asks it of every path of the tree).
_TEST_ENDINGS = (
    "_test.py",
    "_test.go",
    *(f".{kind}.{ext}" for kind in ("test", "spec") for ext in ("js", "jsx", "ts", "tsx")),
    "Test.java",
    "_spec.rb",
)


def is_test_name(path: str) -> bool:
    """Whether the file name of ``path`` follows a test convention (:data:`TEST_FILE`)."""
    return path.endswith(_TEST_ENDINGS) or (
        path.endswith(".py") and path.rpartition("/")[2].startswith("test_")
    )


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    return bool(TEST_FILE.search(parts[-1])) or any(p in TEST_DIRS for p in parts[:-1])


def _needle(word: str) -> str:
    """What a file name must contain (lower-cased) for ``word`` to name one of its tokens (:func:`_same`).

    A token's stem without its last letter begins the name's raw word ("retry" from "retries": "retr"),
    and a match shares at least the word's first four letters, or the whole word when it is shorter."""
    return word[: max(1, min(4, len(word) - 1))]


def names_containing(needles: Iterable[str], paths: Iterable[str]) -> list[str]:
    """The paths whose file name, lower-cased, contains one of ``needles`` (lower-case), in their order.

    ``str.find`` runs over all the paths joined at once, so the work in Python is per match, not per
    path: a 100,000-path tree costs a few milliseconds per word. (NUL cannot be in a git path; a path
    holding one anyway is only looked at, never matched, and the offsets stay right: each path is
    measured after lower-casing.)"""
    paths = paths if isinstance(paths, Sequence) else list(paths)
    low = list(map(str.lower, paths))
    text = "\0".join(low)
    ends = list(map(operator.add, itertools.accumulate(map(len, low)), itertools.count()))  # exclusive
    found: set[int] = set()
    for needle in needles:
        position = text.find(needle)
        while position >= 0:  # at most twice per path: once in its folders, once in its name
            i = bisect.bisect_left(ends, position)
            name = ends[i] - len(low[i]) + low[i].rfind("/") + 1
            if position < name:
                position = text.find(needle, name)
                continue
            if position + len(needle) <= ends[i]:
                found.add(i)
            position = text.find(needle, ends[i] + 1)
    return [paths[i] for i in sorted(found)]


def term_files(term: Sequence[str], paths: Iterable[str]) -> list[str]:
    """The paths matching ``term``, best first: higher score, source code before other files, and the
    code before its tests. Linear in the paths: a substring test leaves out the names no word can
    match before any of them is split into stemmed words."""
    scored = [(term_score(term, p), p) for p in names_containing([_needle(word) for word in term], paths)]
    return [
        p
        for s, p in sorted(
            ((s, p) for s, p in scored if s > 0),
            key=lambda sp: (-sp[0], not _SOURCE.search(sp[1]), is_test_path(sp[1]), sp[1].count("/"), sp[1]),
        )
    ]


def topic_files(topic: Topic, paths: Sequence[str], skip: Callable[[str], bool] | None = None) -> list[str]:
    """The files that show ``topic``, most telling first (a concept's: :mod:`~agent_core.report.concepts`;
    ``skip``: paths that never answer one, the vendored and generated)."""
    if topic == "ci":
        near = (p for p in paths if p.count("/") <= CI_DEPTH)
        return sorted((p for p in near if notable_role(p) == "ci"), key=_ci_rank)
    if topic == "tests":
        near = (p for p in paths if p.count("/") <= 1 and _near_root(p))
        config = [p for p in near if _TEST_CONFIG.match(p.rpartition("/")[2])]
        config.sort(key=lambda p: (p.rsplit("/", 1)[-1].lower() in ("pyproject.toml", "package.json"), p))
        named = [p for p in paths if is_test_name(p)]
        tests = named or [p for p in paths if is_test_path(p) and _SOURCE.search(p)]
        first = min(tests, key=_test_rank, default=None)
        return [*config, *(p for p in [first] if p is not None and p not in config)]
    if topic in BY_NAME:
        return concept_files(topic, paths, skip)
    entries = [p for p in paths if _ENTRY_NAMES.match(p.rsplit("/", 1)[-1]) and not is_test_path(p)]
    listed = set(entries)  # a set: ``p not in entries`` was paths × entries
    entries += [p for p in paths if re.match(r"^(bin|cmd)/", p) and p not in listed]
    return sorted(entries, key=lambda p: (p.count("/"), not p.endswith("__main__.py"), p))[:8]


def question_files(
    asked: Asked,
    paths: Sequence[str],
    *,
    budget: int = QUESTION_READS,
    skip: Callable[[str], bool] | None = None,
) -> list[str]:
    """What to read for ``asked``: each topic's and each term's files, merged in turns (one of each
    in order, then the second of each...) so that no part of the question starves, at most ``budget``.
    ``skip``: paths no concept is answered by (the vendored and generated)."""
    lists = [topic_files(t, paths, skip) for t in asked.topics] + [term_files(t, paths) for t in asked.terms]
    chosen: list[str] = []
    for rank in range(max((len(x) for x in lists), default=0)):
        for files in lists:
            if rank < len(files) and files[rank] not in chosen and len(chosen) < budget:
                chosen.append(files[rank])
    return chosen


def _near_root(path: str) -> bool:
    parts = path.split("/")
    return len(parts) == 1 or (len(parts) == 2 and parts[0] in TEST_DIRS)


def _test_rank(path: str) -> tuple[int, bool, str]:
    name = path.rsplit("/", 1)[-1]
    return (path.count("/"), name.startswith("__"), path)


def _ci_rank(path: str) -> tuple[bool, bool, str]:
    name = path.rsplit("/", 1)[-1].lower()
    return (not path.startswith((".github/", ".ci/")), not re.search(r"ci|test|build|check", name), path)
