"""Which files of a repository answer a question, best first.

A question and each path become sets of words. A path's words are its file name's (split at ``_ - .``
and camelCase, crudely stemmed), its role in the repository model (tests, CI, docs, build, examples)
and the subject its name answers by convention (a Dockerfile: deployment; ``LICENSE``: licensing; a
manifest: dependencies; ``cli.py``: the command line). A question's words are its own, stemmed, less the
words every question has, with the ones that name a subject ("tested", 测试, "deployed") mapped to it.

A path scores the rarity in the tree of the words it shares with the question (BM25's inverse document
frequency, each word once), so a word naming one file outweighs a word naming half the tree. Ties go to
a subject met by convention (a test folder, a Dockerfile) over a word of a name, then source before CI,
build, docs and tests, code before other files, nearer the root, by path; at most two files of a folder
(the root's all) come before the rest. Two passes over the paths, each file name split once: linear.
The offline planner reads :func:`question_files`; the Answer says what the ones read show.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_core.sources.manifest_files import is_manifest
from agent_core.words import Said, said

QUESTION_READS = 6  # files the offline planner reads for one question, per repository
PER_FOLDER = 2  # files of one folder before other folders get their turn

Role = Callable[[str], str]

# A subject and the words that ask for it (stems; Chinese matched as substrings).
_SUBJECTS: dict[str, str] = {
    "test": "test unittest coverage pytest spec qa 测试 单测 覆盖率",
    "ci": "ci pipeline workflow action lint 持续集成 流水线 工作流",
    "cli": "cli command argument arg option flag entry main console terminal launch 命令行 入口 参数 终端 启动",
    "build": "build compil compile bundl bundle packag makefile 构建 编译 打包",
    "dependency": "dependency depend dep requirement library third lock 依赖 第三方 库",
    "license": "license licens licence copyright spdx 许可 协议 版权 授权",
    "deploy": "deploy deployment docker container kubernete k8s helm hosting host production 部署 容器 上线",
    "config": "config configur set setting environment env dotenv 配置 设置 环境变量",
    "doc": "doc documentation document manual guide tutorial readme 文档 教程 手册",
}
_ASKS = {word: subject for subject, said in _SUBJECTS.items() for word in said.split()}
# Chinese words for what file names spell in English.
_GLOSSARY = dict(
    re.findall(
        r"(\S+)=(\S+)",
        "熔断=breaker 重试=retry 缓存=cache 日志=log 限流=limit 认证=auth 鉴权=auth 数据库=database 解析=pars "
        "路由=route 界面=ui 报告=report 模型=model 工具=tool 事件=event 安全=security 错误=error",
    )
)
_STOPWORDS = frozenset(
    re.findall(
        r"\S+",
        """a about all an analyse analysis analyze and any app application are as assess at be been by can
    class classes code codebase configure configured configures could define defined defines describe did do does done evaluate
    explain file files find for from function functions get give handle handled handles handling has
    have how i implement implementation implemented implements in is it its live lives located logic
    me module modules of on or overview part parts please project repo repository review run runs should
    show some summarise summarize summary tell that the there these this those to under use used uses
    using was we what what's where where's which who why will with work works would write you""",
    )
)
_ROLE_SUBJECTS = {"tests": ("test",), "ci": ("ci", "test"), "docs": ("doc",), "build": ("build",)}
_NAME_SUBJECTS = (
    (
        "test",
        re.compile(
            r"^(pytest\.ini|tox\.ini|noxfile\.py|conftest\.py|pyproject\.toml|package\.json|"
            r"(jest|vitest|karma|playwright|cypress)\.conf(ig)?\.[cm]?[jt]s|\.mocharc(\.\w+)?)$"
        ),
    ),
    ("license", re.compile(r"^(licen[cs]e|copying|notice|unlicense)([.-][\w.-]+)?$")),
    (
        "deploy",
        re.compile(
            r"^(dockerfile([.-][\w.-]+)?|[\w.-]+\.dockerfile|(docker-)?compose[\w.-]*\.ya?ml|"
            r"procfile|fly\.toml|app\.ya?ml|vercel\.json|netlify\.toml|render\.ya?ml|"
            r"serverless\.ya?ml|skaffold\.ya?ml|kustomization\.ya?ml|chart\.yaml|[\w.-]+\.tf)$"
        ),
    ),
    (
        "config",
        re.compile(
            r"^(\.env\.(example|sample|template|dist)|[\w-]*settings\.\w+|config\.\w+|"
            r"appsettings(\.\w+)?\.json|application(-\w+)?\.(properties|ya?ml))$"
        ),
    ),
    ("cli", re.compile(r"^(__main__\.py|cli\.\w+|main\.\w+|cmd\.\w+|console\.\w+)$")),
    ("doc", re.compile(r"^(readme|contributing|mkdocs)(\.\w+)?$")),
)


@dataclass(frozen=True, kw_only=True)
class Asked:
    """A question's words: ``words`` to match (stems and subjects), ``written`` as the question has them."""

    words: frozenset[str]
    written: tuple[str, ...]


def read_question(question: str) -> Asked:
    """The words of ``question`` worth matching against the tree (none: it names nothing to look up)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", question[:2000])
    written: dict[str, str] = {}
    for word in re.findall(r"[A-Za-z][A-Za-z0-9]*", spaced):
        if word.lower() not in _STOPWORDS and len(word) > 1:
            written.setdefault(_ASKS.get(stem(word), stem(word)), word)
    for chinese, english in [*_GLOSSARY.items(), *((k, v) for k, v in _ASKS.items() if not k.isascii())]:
        if chinese in spaced:
            written.setdefault(english, chinese)
    return Asked(words=frozenset(written), written=tuple(written.values()))


@functools.lru_cache(maxsize=65_536)  # a tree's names repeat their words (100,000 names: 150,000 words)
def stem(word: str) -> str:
    """A crude English stem, enough for file names: breakers -> breaker, retries -> retry, parsing ->
    pars, tested -> test, running -> run."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    for suffix in ("ing", "ed", "ation"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
                w = w[:-1]
            break
    return w


def _name_words(name: str, asks: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The words of a file name (its stems) and the subjects among ``asks`` its name answers by
    convention (only the subjects asked are tried: a name is matched against few patterns)."""
    lower = name.lower()
    spaced = _CAMEL.sub(r"\1 \2", name) if _CAMEL.search(name) else name  # most names are not camelCase
    words = frozenset(stem(t) for t in _NON_WORD.split(spaced) if t)
    subjects = {subject for subject, pattern in _NAME_SUBJECTS if subject in asks and pattern.match(lower)}
    if asks & _MANIFEST_SUBJECTS and is_manifest(lower):
        subjects.update(_MANIFEST_SUBJECTS)
    return words, frozenset(subjects)


_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NON_WORD = re.compile(r"[^A-Za-z0-9]+")
_MANIFEST_SUBJECTS = frozenset({"dependency", "build"})


_ROLE_ORDER = {role: i for i, role in enumerate(("source", "ci", "build", "docs", "examples", "tests"))}
_CODE = re.compile(r"\.(py|pyi|[cm]?[jt]sx?|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|scala|exs?|sh|lua)$")


def ranked(asked: Asked, paths: Sequence[str], role: Role | None = None) -> list[str]:
    """Every path sharing a word with ``asked``, best first (see the module's docstring); vendored and
    generated paths (by ``role``, the repository model's) never answer."""
    if not asked.words:
        return []
    asks = asked.words
    names: dict[str, tuple[frozenset[str], frozenset[str], bool]] = {}  # words, subjects asked; a test?
    kinds = {kind: frozenset(named) & asks for kind, named in _ROLE_SUBJECTS.items()}
    matched: list[tuple[str, str, frozenset[str], int]] = []
    df: dict[str, int] = {}
    # a name can share an asked stem only if it holds the stem's first letters (`retr` of retry for
    # "retries"); one that holds none, and no subject asked by convention, is skipped at once
    probes = tuple({w[:-1] if len(w) > 3 else w for w in asks})
    conventions = [pattern for subject, pattern in _NAME_SUBJECTS if subject in asks]
    manifests = bool(asks & _MANIFEST_SUBJECTS)
    nothing = (frozenset[str](), frozenset[str](), False)
    for path in paths:
        name = path.rpartition("/")[2]
        if (found := names.get(name)) is None:
            lower = name.lower()
            if (
                "test" not in lower
                and not any(p in lower for p in probes)
                and not any(c.match(lower) for c in conventions)
                and not (manifests and is_manifest(lower))
            ):
                found = names[name] = nothing
            else:
                words, subjects = _name_words(name, asks)
                found = names[name] = (words & asks, subjects & asks, "test" in words)
        words, subjects, test = found
        kind = role(path) if role is not None else "tests" if test else "source"
        if by_role := kinds.get(kind):
            subjects = subjects | by_role
        if (words or subjects) and kind not in ("vendored", "generated"):
            shared = words | subjects
            matched.append((path, kind, shared, len(subjects)))
            for word in shared:
                df[word] = df.get(word, 0) + 1
    idf = {w: math.log((len(paths) - d + 0.5) / (d + 0.5) + 1) for w, d in df.items()}
    matched.sort(
        key=lambda m: (
            -sum(idf[w] for w in m[2]),
            -m[3],  # a subject by convention (a test folder, a Dockerfile) before a name's word
            _ROLE_ORDER.get(m[1], 0),
            not _CODE.search(m[0]),
            m[0].count("/"),
            m[0],
        )
    )
    first: list[str] = []
    later: list[str] = []
    per_folder: dict[str, int] = {}
    for path, *_ in matched:
        folder = path.rpartition("/")[0]
        per_folder[folder] = per_folder.get(folder, 0) + 1
        (first if not folder or per_folder[folder] <= PER_FOLDER else later).append(path)
    return first + later


def question_files(
    question: str, paths: Sequence[str], *, role: Role | None = None, budget: int = QUESTION_READS
) -> list[str]:
    """What the offline planner reads for ``question``: the best :func:`ranked` paths, at most ``budget``."""
    return ranked(read_question(question), paths, role)[:budget]


def describe_question(question: str) -> Said:
    """What the reads are for, in a few words: "the question (“circuit breaker”)", said in words."""
    written = read_question(question).written
    quoted = [said("plan_quoted", word=w) for w in written]
    return said("plan_question_about", topics=quoted) if quoted else said("plan_question")
