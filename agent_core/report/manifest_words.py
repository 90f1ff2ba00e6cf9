"""How the report's technology section says what the manifests declare: one manifest's line, the
packages per ecosystem, and whether the tree has no manifest at all.

The repository's own packages (:func:`~agent_core.report.manifests.own_package_names`) are never listed
as its dependencies: they are said apart, as the own packages a manifest references. Repository text goes
through :func:`~agent_core.report.inert.plain` or :func:`~agent_core.report.inert.code`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_core.repomodel.counts import ecosystem_counts
from agent_core.report.inert import code, plain
from agent_core.report.manifests import Dependency, Manifest, group_kind, is_own
from agent_core.report.model_words import left_out
from agent_core.report.phrases import MAX_NAMES, join_names
from agent_core.sources.manifest_files import is_manifest
from agent_core.words import Words

if TYPE_CHECKING:
    from agent_core.report.facts import Facts


def no_manifest_anywhere(facts: Facts) -> bool:
    """No manifest in the tree (nor, for a folder, in the folders above it, all of them listed)."""
    ev = facts.evidence
    if ev.tree is None and not facts.root_complete:
        return False
    if ev.root and (not ev.ancestors_listed or ev.parent_manifests):
        return False
    return not any(is_manifest(p) for p in facts.paths)


def ecosystem_lines(facts: Facts, words: Words) -> list[str]:
    """ "**Packages by ecosystem:** 13 gems (rubygems); 24 .NET projects (nuget), 16 of them for tests." """
    model = facts.model
    counts = ecosystem_counts(model.packages, model.aside) if model is not None else ()
    if not counts or (len(counts) == 1 and counts[0].packages == 1 and not counts[0].leaves_out):
        return []
    parts = []
    for found in counts:
        plural = "one" if found.packages == 1 else "many"
        part = words(
            "eco_count", f"{found.packages:,}", words(f"eco_unit_{found.ecosystem}_{plural}"), found.ecosystem
        )
        if found.tests:
            part += words("eco_tests", f"{found.tests:,}")
        parts.append(part + left_out(found, words))
    return [words("eco_packages", words("eco_sep").join(parts))]


def manifest_text(manifest: Manifest, words: Words, own: frozenset[str] = frozenset()) -> str:
    """One manifest's line: what it is, what it depends on (its own packages apart), its members."""
    if manifest.status == "unparsed":
        return words("unparsed")
    if manifest.status == "invalid":
        return words("invalid", plain(manifest.detail or words("unknown"), limit=120))
    parts = [*_identity(manifest, words), *_dependencies(manifest, words, own)]
    if manifest.workspaces:
        members = join_names([code(m) for m in manifest.workspaces], words)
        parts.append(words("workspaces", len(manifest.workspaces), members))
    if manifest.indirect:
        parts.append(words("indirect", manifest.indirect))
    if manifest.build_backend:
        parts.append(words("build_backend", code(manifest.build_backend)))
    if manifest.partial:
        parts.append(words("partial"))
    return words("semi").join(parts) or words("no_deps")


def _identity(manifest: Manifest, words: Words) -> list[str]:
    parts = []
    if manifest.name and manifest.go_version:  # a Go module: its path and Go version
        go = words("paren", f"Go {plain(manifest.go_version, limit=20)}")
        parts.append(words("module", code(manifest.name)) + go)
    if manifest.version:
        parts.append(words("project_version", code(manifest.version)))
    if manifest.test_project:
        parts.append(words("test_project"))
    if manifest.toolchain:
        parts.append(words("toolchain", plain(manifest.toolchain, limit=60)))
    return parts


def _dependencies(manifest: Manifest, words: Words, own: frozenset[str]) -> list[str]:
    """Its dependency lists without the repository's own packages, which are said apart."""
    parts = []
    for key, deps in (
        ("runtime_deps", manifest.runtime),
        ("dev_deps", manifest.dev),
        ("docs_deps", manifest.docs),
    ):
        others = [d for d in deps if not is_own(d.name, own)]
        if others:
            parts.append(words(key, len(others), deps_text(others, words)))
    groups = []
    for name, deps in manifest.groups:
        kept = [d for d in deps if not is_own(d.name, own)]
        if kept and name == "build":  # the build's own list (plugins, build-dependencies, tool_requires)
            parts.append(words("build_deps", len(kept), deps_text(kept, words)))
        elif kept:
            kind = words(f"group_{group_kind(name)}") + words("colon")
            groups.append(code(name) + words("paren", kind + deps_text(kept, words, cap=10)))
    if groups:
        parts.append(words("groups", words("sep").join(groups)))
    pinned = [d for d in manifest.versions if not is_own(d.name, own)]
    if pinned:
        parts.append(words("pinned_versions", len(pinned), deps_text(pinned, words)))
    every = (*manifest.all_dependencies(indirect=False), *manifest.versions)
    mine = list(dict.fromkeys(d.name for d in every if is_own(d.name, own)))
    if mine:
        parts.append(words("own_refs", len(mine), join_names([code(n) for n in mine], words)))
    return parts


def deps_text(deps: Sequence[Dependency], words: Words, *, cap: int = MAX_NAMES) -> str:
    return join_names([code(d.text()) for d in deps], words, cap=cap)
