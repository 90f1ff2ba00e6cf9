"""Concepts a question asks about that no file name spells: the build, the dependencies, the licence,
deployment, configuration, the documentation.

Each :class:`Concept` has the words that ask for it (English and Chinese), the files that answer it by
convention (``pyproject.toml`` with its ``[build-system]``, ``Makefile``, ``Dockerfile``, ``fly.toml``,
``.env.example``, ``docs/``...) and what such a file shows (:func:`shows`: the build backend, the
image a Dockerfile starts from, the first line of a licence). :mod:`~agent_core.report.relevance` reads
the question with :data:`CONCEPTS`, :mod:`~agent_core.report.answer` says what the files read show.
Vendored and generated paths never answer (the repository model's roles, when the tree is known).
Pure functions over text and paths, linear in them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

ConceptName = Literal["build", "deps", "license", "deploy", "config", "docs"]


@dataclass(frozen=True, kw_only=True)
class Concept:
    name: ConceptName
    asked: re.Pattern[str]  # words of a question that ask for it
    files: re.Pattern[str]  # a path (lower-cased) that answers it
    # its words (agent_core.words): concept_<name>_heading, and concept_<name>_none when a complete tree
    # has no file for it
    limit: int = 6


def _files(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        name="build",
        asked=re.compile(
            r"\b(config\w*\s+(?:the\s+)?build|build\s+(?:system|config\w*|tool\w*|process|script\w*)|"
            r"builds?|building|built|compil\w+|bundl\w+|packag(?:ing|ed)|makefile)\b|构建|编译|打包",
            re.IGNORECASE,
        ),
        files=_files(
            r"^(?:[^/]+/)?(pyproject\.toml|setup\.py|setup\.cfg|makefile|cmakelists\.txt|meson\.build|"
            r"build\.gradle(\.kts)?|settings\.gradle(\.kts)?|pom\.xml|cargo\.toml|build\.rs|justfile|"
            r"build\.zig|workspace(\.bazel)?|build(\.bazel)?|(webpack|vite|rollup|esbuild|tsup)\.config\.[cm]?[jt]s|"
            r"tsconfig\.json|package\.json|go\.mod|magefile\.go|noxfile\.py|tox\.ini)$"
        ),
    ),
    Concept(
        name="deps",
        asked=re.compile(
            r"\b(dependenc(?:y|ies)|depends?|deps|requirements?|third[\s-]party|librar(?:y|ies)|"
            r"lock\s?files?)\b|依赖|第三方|库",
            re.IGNORECASE,
        ),
        files=_files(
            r"^(?:[^/]+/)?(pyproject\.toml|setup\.py|setup\.cfg|requirements[\w.-]*\.txt|pipfile|package\.json|"
            r"cargo\.toml|go\.mod|pom\.xml|build\.gradle(\.kts)?|gemfile|composer\.json|environment\.ya?ml|"
            r"pubspec\.yaml|mix\.exs|deno\.json|directory\.packages\.props|vcpkg\.json|conanfile\.(txt|py)|go\.work)$"
            r"|^requirements/[\w.-]+\.txt$|^gradle/libs\.versions\.toml$"
            r"|^(?:[^/]+/){0,2}[\w.-]+\.(gemspec|csproj|fsproj|vbproj|sln)$"
        ),
    ),
    Concept(
        name="license",
        asked=re.compile(r"\b(licen[cs](?:e[ds]?|ing)|copyright|spdx)\b|许可|协议|版权|授权", re.IGNORECASE),
        files=_files(r"^(licen[cs]e|copying|notice|unlicense)([.-][\w.-]+)?$"),
    ),
    Concept(
        name="deploy",
        asked=re.compile(
            r"\b(deploy\w*|docker\w*|containers?|kubernetes|k8s|helm|hosting|hosted|production|"
            r"heroku|fly\.io|serverless)\b|部署|容器|上线",
            re.IGNORECASE,
        ),
        files=_files(
            r"(^|/)(dockerfile([.-][\w.-]+)?|[\w.-]+\.dockerfile|docker-compose[\w.-]*\.ya?ml|compose\.ya?ml|"
            r"procfile|fly\.toml|app\.ya?ml|vercel\.json|netlify\.toml|render\.ya?ml|serverless\.ya?ml|"
            r"skaffold\.ya?ml|kustomization\.ya?ml|chart\.yaml|[\w.-]+\.tf)$|"
            r"^(k8s|kubernetes|deploy|deployment|deployments|helm|charts|manifests)/[^/]+\.(ya?ml|json)$"
        ),
    ),
    Concept(
        name="config",
        asked=re.compile(
            r"\b(config\w*|settings?|environment\s+variables?|env\s+vars?|dotenv|\.env)\b|配置|设置|环境变量",
            re.IGNORECASE,
        ),
        files=_files(
            r"(^|/)(\.env\.(example|sample|template|dist)|[\w-]*settings\.(py|ya?ml|json|toml|ini)|"
            r"config\.(py|ya?ml|json|toml|ini|go|rs|ts|js)|appsettings(\.\w+)?\.json|"
            r"application(-\w+)?\.(properties|ya?ml))$|^(config|conf|configs|settings)/[^/]+$"
        ),
    ),
    Concept(
        name="docs",
        asked=re.compile(
            r"\b(docs?|documentation|documented|manuals?|guides?|tutorials?)\b|文档|教程|手册", re.IGNORECASE
        ),
        files=_files(
            r"^(readme(\.\w+)?|contributing(\.\w+)?|mkdocs\.ya?ml|docs?/(index|readme|conf)\.\w+|"
            r"docs?/[^/]+\.(md|rst|txt)|documentation/[^/]+\.(md|rst))$"
        ),
    ),
)
BY_NAME = {c.name: c for c in CONCEPTS}


def concept_files(
    name: ConceptName, paths: Sequence[str], skip: Callable[[str], bool] | None = None
) -> list[str]:
    """The files answering concept ``name``, most telling first (nearest the root, then by name);
    ``skip`` leaves out paths (vendored, generated) when the repository model is known."""
    concept = BY_NAME[name]
    found = [p for p in paths if p.count("/") <= 2 and concept.files.search(p.lower())]
    found = [p for p in found if skip is None or not skip(p)]
    return sorted(found, key=lambda p: (p.count("/"), _first(name, p), p))[: concept.limit]


def _first(name: ConceptName, path: str) -> int:
    """Within a depth: the file that says most first (``pyproject.toml`` before ``tox.ini``)."""
    low = path.rsplit("/", 1)[-1].lower()
    firsts = {
        "build": (
            "pyproject.toml",
            "makefile",
            "cargo.toml",
            "package.json",
            "go.mod",
            "build.gradle",
            "pom.xml",
        ),
        "deploy": ("dockerfile", "docker-compose.yml", "fly.toml", "procfile"),
        "config": (".env.example",),
        "docs": ("readme.md",),
    }.get(name, ())
    return firsts.index(low) if low in firsts else len(firsts)


_BUILD_FACTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\[build-system\]", re.MULTILINE), "`[build-system]`"),
    (re.compile(r"^build-backend\s*=\s*[\"']([\w.:-]+)[\"']", re.MULTILINE), "backend `{}`"),
    (re.compile(r"^\[tool\.(setuptools|hatch|poetry|flit|pdm|maturin)\b", re.MULTILINE), "`[tool.{}]`"),
    (re.compile(r"\"(build|compile|bundle)\"\s*:\s*\"([^\"]{1,80})\""), "script `{}`: `{}`"),
    (re.compile(r"^(build|all|install|dist)\s*:", re.MULTILINE), "target `{}`"),
    (re.compile(r"^\[(workspace|package)\]", re.MULTILINE), "`[{}]`"),
)


def shows(name: ConceptName, path: str, text: str) -> list[str]:
    """What a file read shows for the concept, as short Markdown phrases (repository text in code spans,
    backticks removed from it)."""
    if name == "build":
        out = []
        for pattern, template in _BUILD_FACTS:
            match = pattern.search(text)
            if match:
                out.append(template.format(*(g.replace("`", "") for g in match.groups())))
        return out
    if name == "deploy":
        images = re.findall(r"^FROM\s+([\w./:@-]{1,80})", text, flags=re.MULTILINE | re.IGNORECASE)
        return [f"`FROM {image}`" for image in dict.fromkeys(images)][:3]
    if name == "license":
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        return [f"“{first[:80].replace('`', '')}”"] if first else []
    return []
