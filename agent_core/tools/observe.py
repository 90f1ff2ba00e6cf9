"""Turning source values into compact observations for a model: tree summaries, notable files, cuts.

The UI keeps the full result; a model gets a summary sized for its context window.
"""

from __future__ import annotations

import heapq
import json
import re
from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from agent_core.repomodel import CI_DIRS, TopFolder, derived, model_of
from agent_core.repomodel.ci import ci_file
from agent_core.sources.models import FileTree, TreeEntry

# What an analyst looks for first, by role. Matched against a path (case-insensitive).
_NOTABLE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("readme", re.compile(r"^readme(\.[a-z]+)?$")),
    ("license", re.compile(r"^(license|licence|copying)(\.[a-z]+)?$")),
    (
        "manifest",
        re.compile(
            r"^(pyproject\.toml|setup\.py|setup\.cfg|requirements[\w.-]*\.txt|pipfile|package\.json|"
            r"cargo\.toml|go\.mod|pom\.xml|build\.gradle(\.kts)?|gemfile|composer\.json|environment\.ya?ml|"
            r"cmakelists\.txt|meson\.build|mix\.exs|pubspec\.yaml|deno\.json|go\.work|settings\.gradle(\.kts)?|"
            r"[\w.-]+\.(gemspec|csproj|fsproj|vbproj|sln)|directory\.(packages|build)\.props|global\.json|"
            r"vcpkg\.json|conanfile\.(txt|py)|pnpm-workspace\.yaml)$"
        ),
    ),
    (
        "ci",
        re.compile(
            r"^(\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|\.gitlab/ci/[^/]+\.ya?ml|\.circleci/config\.ya?ml|"
            r"azure-pipelines\.ya?ml|\.azure-pipelines/[^/]+\.ya?ml|\.travis\.ya?ml|jenkinsfile|bitbucket-pipelines\.yml|"
            r"\.drone\.ya?ml|appveyor\.ya?ml|\.woodpecker\.ya?ml|\.buildkite/[^/]+\.ya?ml|"
            r"\.ci/[^/]+|ci/[^/]+\.(sh|bash|ya?ml|py))$"
        ),
    ),
    ("container", re.compile(r"^(dockerfile|docker-compose[\w.-]*\.ya?ml|compose\.ya?ml)$")),
    ("docs", re.compile(r"^(contributing|changelog|changes|history|security|code_of_conduct)(\.[a-z]+)?$")),
    (
        "build",
        re.compile(r"^(makefile|tox\.ini|noxfile\.py|justfile|mkdocs\.yml|\.pre-commit-config\.yaml)$"),
    ),
)

_REQUIREMENTS_DIR = re.compile(r"^requirements/[\w.-]+\.txt$")  # requirements/base.txt, requirements/dev.txt


def notable_role(path: str) -> str | None:
    """The role of a notable file ("readme", "license", "manifest", "ci", ...) or None.

    Root-level files count, plus CI files at their conventional places (GitHub Actions, GitLab CI,
    CircleCI, Azure Pipelines, Travis, Jenkins, Drone, AppVeyor, Buildkite, a ``.ci/`` folder of scripts)
    and manifests one level deep (monorepos: ``backend/pyproject.toml``; ``requirements/*.txt``).
    Deeper paths can only be CI files, so they cost one match (a report asks this of every path).
    """
    low = path.lower()
    depth = low.count("/")
    if depth > 1:
        return "ci" if _CI.match(low) or _model_ci(low) else None
    name = low.rpartition("/")[2]
    if depth == 1:
        if _REQUIREMENTS_DIR.match(low) or _MANIFEST.match(name):
            return "manifest"
        return "ci" if _CI.match(low) or _model_ci(low) else None
    for role, pattern in _NOTABLE:
        if pattern.match(name) if role != "ci" else _CI.match(low) or _model_ci(low):
            return role
    return None


_CI = dict(_NOTABLE)["ci"]
_MANIFEST = dict(_NOTABLE)["manifest"]


def _model_ci(low: str) -> bool:
    """A CI file by the repository model's table (Cirrus, Prow, Tekton, Semaphore... beside the above)."""
    folder, _, name = low.rpartition("/")
    return bool(ci_file(name)) if not folder else folder in _CI_DIRS


_CI_DIRS = frozenset(path.lower() for path in CI_DIRS)


def notable_files(tree: FileTree) -> Mapping[str, str]:
    """Every notable file of ``tree``: its path → :func:`notable_role` of the path from the tree's
    folder, in the tree's order; found once per tree (the trace's summary and the report's sections
    each ask, and a 100,000-entry tree is 100,000 questions)."""
    return derived(tree, "notable_files", lambda: MappingProxyType(_notable_files(tree)))


def _notable_files(tree: FileTree) -> dict[str, str]:
    cut = len(tree.path) + 1 if tree.path else 0
    return {e.path: role for e in tree.entries if e.type != "dir" and (role := notable_role(e.path[cut:]))}


def summarise_tree(tree: FileTree, *, max_entries: int = 200) -> dict[str, Any]:
    """A model-sized picture of a whole tree, counted by the repository model (:func:`model_of`): the
    cut flag first (so it survives any later cut), files and the project's own apart from vendored and
    generated, tests by convention, packages, CI, each top-level folder with its files and role, the
    largest subdirectories, notable files and a bounded path list."""
    if tree.empty_repository:
        return {"empty_repository": True, "files": 0, "dirs": 0}
    model = model_of(tree)
    base = f"{tree.path}/" if tree.path else ""
    files = [e for e in tree.entries if e.type != "dir"]
    per_dir = _second_level_counts(files, len(base))
    tops = {t.name: t for t in model.top_level}
    top_level = [
        {"name": name, "type": e.type, **(_folder(tops[name]) if name in tops else {})}
        for e in tree.entries
        if "/" not in (name := e.path[len(base) :])
    ]
    # the shallowest first: sorted(...)[:max_entries], without sorting every path of the tree
    shown = [e.path for e in heapq.nsmallest(max_entries, files, key=lambda e: _shallow_first(e.path))]
    summary: dict[str, Any] = {}
    if tree.truncated:
        summary["truncated"] = True
        summary["note"] = "GitHub truncated this tree (over 100,000 entries or 7 MB): counts are lower bounds"
    summary |= {
        **(tree.cut_observation() or {}),  # early: a preview cut at a few KB must still show the cut
        "ref": tree.ref,
        "path": tree.path or "/",
        "files": tree.files,
        "dirs": tree.dirs,
        "own_files": model.own_files,
        "vendored": [{"path": v.path, "files": v.files} for v in model.vendored[:20]],
        "generated_files": model.generated_files,
        "tests": {
            "files": model.tests.files,
            "packages": model.tests.packages,
            "by_convention": dict(model.tests.by_convention[:8]),
        },
        "packages": [f"{p.path or '.'} ({p.ecosystem})" for p in model.packages[:30]],
        "ci": [c.name for c in model.ci],
        "top_level": top_level[:100],
        "largest_subdirectories": [{"path": f"{base}{d}", "files": n} for d, n in per_dir.most_common(20)],
        "notable_files": dict(sorted(notable_files(tree).items(), key=lambda kv: _shallow_first(kv[0]))),
        "paths": shown,
    }
    if len(files) > len(shown):
        summary["paths_omitted"] = len(files) - len(shown)
    return summary


def _second_level_counts(files: list[TreeEntry], cut: int) -> Counter[str]:
    """Files under each second-level folder (``a/b``, from the tree's folder, ``cut`` characters in),
    each folder's first file first: counted per folder, then per folder added up."""
    per_folder = Counter(e.path.rpartition("/")[0] for e in files)
    per_dir: Counter[str] = Counter()
    for folder, n in per_folder.items():
        rel = folder[cut:]
        first = rel.find("/")
        if first != -1:
            second = rel.find("/", first + 1)
            per_dir[rel if second == -1 else rel[:second]] += n
    return per_dir


def _shallow_first(path: str) -> tuple[int, str]:
    return path.count("/"), path.lower()


def _folder(top: TopFolder) -> dict[str, Any]:
    own = {} if top.own_files == top.files else {"own_files": top.own_files}
    return {"files": top.files, **own, "role": top.role}


CUT_MARK = "observation cut for the model"
"""The note an observation cut to size ends with (a draft that carries it copied a tool's result)."""


def cut_for_model(observation: dict[str, Any], max_chars: int) -> str:
    """The observation as JSON text, cut to ``max_chars`` with a note saying how much was left out."""
    text = json.dumps(observation, ensure_ascii=False, separators=(",", ":"))
    if len(text) <= max_chars:
        return text
    omitted = len(text) - max_chars
    return f"{text[:max_chars]}… [{CUT_MARK}: {omitted:,} more characters not shown]"
