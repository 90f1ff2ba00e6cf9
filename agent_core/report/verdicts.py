"""The verdict on one claim, by kind: what the observations (one repository's facts) say about it.

Each checker returns ``(verdict, observed)``: ``verified``/``contradicted``/``unchecked`` and what was
observed (shown beside a contradicted claim: a value of the repository's, or the app's words about it as
:class:`~agent_core.words.Said`), or ``(None, None)`` when the text was not a claim after all. Absence is only a fact when the data that would show the thing was complete (a whole tree, every
manifest read); otherwise the claim is not checkable. Here: dependencies by name and paths (and
:func:`locate`, shared); a version or a test framework beside a dependency is
:mod:`~agent_core.report.verdict_packages`'s, the repository's metadata (counts, licence, language,
dates) :mod:`~agent_core.report.verdict_facts`'.
"""

from __future__ import annotations

import re

from agent_core import events as ev
from agent_core.report.claim_names import Found
from agent_core.report.facts import Facts
from agent_core.report.gradle_conventions import conventions_unread
from agent_core.report.manifest_links import own_package_names
from agent_core.report.manifests import NOTABLE_DEPENDENCIES, Manifest
from agent_core.report.path_index import index_of
from agent_core.report.scoped import in_scope, whole_tree
from agent_core.report.versions import compatible
from agent_core.sources.languages import is_vendored
from agent_core.sources.manifest_files import is_parsed_manifest
from agent_core.tools.observe import notable_role
from agent_core.tools.registry import TOOL_NAMES
from agent_core.words import Said, said

_RUNTIME_CATEGORIES = frozenset(
    {"web", "http", "cli", "async", "ui", "data", "ml", "orm", "server", "serialization", "llm", "rpc"}
)
_SHOWN = 3  # manifests named beside a verdict
# Folders a build or an install makes (git ignores them), and placeholders: absent from a tree, not invented.
_PRODUCED = re.compile(
    r"(?:dist|build|target|out|obj|bin/(?:Debug|Release)|coverage|node_modules|vendor|\.venv|venv|__pycache__|"
    r"\.next|\.cache|site|_build|path/to|your[-_\w]*)(?:/|$)",
    re.IGNORECASE,
)
_RUNTIMES = frozenset(
    {"python", "node", "nodejs", "go", "golang", "java", "jdk", "ruby", "rust", "dotnet", "php"}
)
_WORD = re.compile(r"[\w@][\w@./:-]*")

Observed = str | Said | tuple[Said, ...] | None  # several: clauses of one observation
Outcome = tuple[ev.Verdict | None, Observed]


def dependency(found: Found, facts: Facts) -> Outcome:
    name = normal(found.value)
    if found.subject == "module":
        return _module(found, facts)
    if name == normal(facts.evidence.repo.name) or found.value in TOOL_NAMES:
        return None, None  # the project itself or a tool: not a dependency
    parsed = [m for m in facts.manifests if m.status == "parsed"]
    declared, groups = declared_names(facts)
    if name not in declared and name in _RUNTIMES:
        return None, None  # `python>=3.10`, "requires Node 18": the runtime, not a package
    if name not in declared and locate(found.value, facts):
        return None, None  # a file or folder of the tree (`rack` is a dependency when declared, though)
    if not parsed:
        return "unchecked", None
    if name not in declared and name in groups:
        return None, None  # an extra's or a group's name (`httpx` for httpx2): not one dependency
    if name not in declared and name in {normal(own) for own in _module_names(facts)[0]}:
        return None, None  # one of the repository's own packages (a workspace member, a gem of a monorepo)
    return _declared(found, name in declared, NOTABLE_DEPENDENCIES.get(name), parsed, facts)


def _module(found: Found, facts: Facts) -> Outcome:
    """A Go module path or a scoped npm name: a dependency when a manifest declares it (a package inside
    a required Go module counts), the project itself when a manifest read names it so; never a path."""
    parsed = [m for m in facts.manifests if m.status == "parsed"]
    name = _module_key(found.value)
    own, declared = _module_names(facts)
    if (
        "/" in name
        and not any(name == d or name.startswith(d + "/") for d in declared)
        and locate(found.value, facts)
    ):
        return path(found, facts)  # `vendor/package`-shaped, but a folder of the tree
    if any(name == o or name.startswith(o + "/") for o in own):
        return None, None  # the project's own module or package
    if not parsed:
        return "unchecked", None
    present = any(name == d or name.startswith(d + "/") for d in declared)
    return _declared(found, present, NOTABLE_DEPENDENCIES.get(re.sub(r"/v\d+$", "", name)), parsed, facts)


def declared_names(facts: Facts) -> tuple[set[str], set[str]]:
    """The dependencies the parsed manifests declare and their groups' names, as :func:`normal` has
    them, once per ``Facts`` (a report makes hundreds of claims; the manifests, thousands of names)."""

    def build() -> tuple[set[str], set[str]]:
        parsed = [m for m in facts.manifests if m.status == "parsed"]
        return (
            {key for m in parsed for d in m.all_dependencies() for key in _names_of(d.name)},
            {normal(group) for m in parsed for group, _ in m.groups},
        )

    return index_of(facts).derived("declared_names", build)  # type: ignore[return-value]


def _names_of(declared: str) -> tuple[str, ...]:
    """The names a declared dependency answers to, as :func:`normal` has them: its own, and a Maven or
    Gradle coordinate's artifact ("Guava" is ``com.google.guava:guava``)."""
    own = normal(declared)
    group, colon, artifact = declared.partition(":")
    return (own, normal(artifact)) if colon and group and artifact and ":" not in artifact else (own,)


def _module_names(facts: Facts) -> tuple[set[str], set[str]]:
    """The parsed manifests' own module names and the modules they declare, as :func:`_module_key` has
    them, once per ``Facts``."""

    def build() -> tuple[set[str], set[str]]:
        parsed = [m for m in facts.manifests if m.status == "parsed"]
        return (
            {_module_key(name) for name in own_package_names(parsed)},
            {_module_key(d.name) for m in parsed for d in m.all_dependencies()},
        )

    return index_of(facts).derived("module_names", build)  # type: ignore[return-value]


def _declared(
    found: Found, present: bool, category: str | None, parsed: list[Manifest], facts: Facts
) -> Outcome:
    holders = _holders(facts)
    declaring = holders.get(normal(found.value)) or holders.get(normal(_module_key(found.value)))
    where = (declaring if present and declaring else [m.path for m in parsed])[:_SHOWN]
    if found.negated:
        return ("contradicted" if present else "verified"), (
            said("observed_declared_in", where=where) if present else said("observed_not_in", where=where)
        )
    if present:
        return "verified", said("observed_declared_in", where=where)
    all_read = index_of(facts).derived("all_manifests_read", lambda: _all_manifests_read(facts))
    if all_read and category in _RUNTIME_CATEGORIES:
        return "contradicted", said("observed_not_among", where=where)
    if all_read and found.explicit and not _named_in_files(found.value, facts):
        return "contradicted", said("observed_not_among", where=where)  # "depends on `X`", X nowhere
    return "unchecked", said("observed_not_in", where=where)


def _all_manifests_read(facts: Facts) -> bool:
    """Every manifest of the tree (vendored ones left out) was read, and the tree is complete; of a
    folder's run, also every manifest up its path (a workspace root's, ``Directory.Build.props``): what
    declares the folder's dependencies. A folder's claim is the folder's, not its neighbours'."""
    if not facts.tree_complete or not all(p in facts.evidence.files for p in _manifest_paths(facts)):
        return False
    if conventions_unread(facts):  # Gradle's buildSrc/ may add dependencies no build file names
        return False
    evidence = facts.evidence
    if not evidence.root:
        return True
    above = [p for p in evidence.parent_manifests if is_parsed_manifest(p)]
    return evidence.ancestors_listed and all(p in evidence.files for p in above)


def _named_in_files(name: str, facts: Facts) -> bool:
    """Whether a file read names ``name`` (a system requirement a README describes, a tool a CI step
    installs, a ``find_package(Threads)`` or an optional group a parser does not list): then its absence
    from the parsed dependencies proves nothing. A manifest's own description is prose and names nothing
    ("works with all Rack apps, including Rails", a gemspec's). One set of words for all the files."""

    def build() -> frozenset[str]:
        words: set[str] = set()
        described = {m.path: m.description for m in facts.manifests if m.status == "parsed" and m.description}
        for path, content in facts.evidence.files.items():
            text = (content.whole_text if content.whole_text is not None else content.text) or ""
            if path in described:
                text = " ".join(text.split()).replace(described[path] or "", " ")
            found = [w.lower().strip(".:-/") for w in _WORD.findall(text)]
            words.update(found)
            words.update(w.rsplit(":", 1)[0] for w in found if w.count(":") >= 2)  # `g:a:1.0` names `g:a`
        return frozenset(words)

    named: frozenset[str] = index_of(facts).derived("words_read", build)  # type: ignore[assignment]
    return name.lower() in named


def _holders(facts: Facts) -> dict[str, list[str]]:
    """Each declared name (as :func:`normal` has it) → the parsed manifests declaring it, once per ``Facts``."""

    def build() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for m in facts.manifests:
            if m.status == "parsed":
                for d in m.all_dependencies():
                    for key in {normal(_module_key(d.name)), *_names_of(d.name)}:
                        paths = found.setdefault(key, [])
                        if m.path not in paths:
                            paths.append(m.path)
        return found

    return index_of(facts).derived("holders", build)  # type: ignore[return-value]


def _manifest_paths(facts: Facts) -> list[str]:
    root = facts.evidence.root
    return [
        p
        for p in facts.paths
        if (is_parsed_manifest(p) or notable_role(p) == "manifest")
        and not is_vendored(f"{root}/{p}" if root else p)  # Linguist's rules read from the root
    ]


def _module_key(name: str) -> str:
    """A module path compared as Go and npm do: lower case, without a ``/vN`` major-version suffix."""
    return re.sub(r"/v\d+(?=/|$)", "", name.strip().lower())


def path(found: Found, facts: Facts) -> Outcome:
    if facts.evidence.tree is None and not facts.paths:
        return "unchecked", None
    path = found.value.strip().removeprefix("./").strip("/")
    if path.lower() in _repository_names(facts):
        return "unchecked", None  # `owner/repo` names the repository, not a path in it
    where = locate(path, facts)
    if where is None and path in _fetched_elsewhere(facts):  # a folder's run: in a tree it fetched beside
        where = path
    if where is None and found.subject == "tree" and "/" in path:
        return _drawn(path, facts)
    if where is not None:
        return ("contradicted" if found.negated else "verified"), where
    if (declared := _declared_package(path, facts)) is not None:
        return ("contradicted" if found.negated else "verified"), declared  # `phpunit/phpunit`: a package
    if not _tree_covers(path, facts) or _package_shaped(path, facts):
        return "unchecked", None
    if _PRODUCED.match(path):  # `dist/app.js`, `path/to/config.yml`: what a build makes, or a placeholder
        return "unchecked", said("observed_produced")
    if found.subject == "code":  # a path in a block of code may be relative to a file nobody names
        return "unchecked", said("observed_not_found")
    return ("verified" if found.negated else "contradicted"), said("observed_not_in_tree")


def _drawn(path: str, facts: Facts) -> Outcome:
    """A drawn branch whose whole path is not in the tree: true when its name is somewhere inside its
    parent (the drawing left levels out), false when its parent is a folder of a whole tree holding no
    such name; its parent not in the tree, not judged here (that branch is, on its own line)."""
    parent, _, name = path.rpartition("/")
    index = index_of(facts)
    folder = index.lower.get(parent.lower())
    if folder is None:
        return "unchecked", None
    inside = [p for p in index.named.get(name, ()) if p.startswith(f"{folder}/")]
    if inside:
        return "verified", inside[0]
    if not _tree_covers(path, facts) or _PRODUCED.match(path):
        return "unchecked", None
    dirs: frozenset[str] = index.derived("dirs", lambda: frozenset(facts.dirs))  # type: ignore[assignment]
    return "contradicted", said("observed_not_in", where=f"{folder}/" if folder in dirs else folder)


def _fetched_elsewhere(facts: Facts) -> frozenset[str]:
    """Every path (files and folders) of the trees a folder's run fetched beside its own, once per Facts."""

    def build() -> frozenset[str]:
        return frozenset(e.path for tree in facts.evidence.subtrees.values() for e in tree.entries)

    return index_of(facts).derived("fetched_elsewhere", build)  # type: ignore[return-value]


def _tree_covers(path: str, facts: Facts) -> bool:
    """Whether a complete tree the run read covers ``path`` (from the repository root), so its absence
    there is an absence: the repository's tree; a scoped run's folder, for a path inside it; a folder's
    tests kept elsewhere, fetched whole (``test/`` for ``lib/sinatra``)."""
    if not facts.tree_complete:
        return False
    evidence = facts.evidence
    if whole_tree(evidence):
        return True
    if path.startswith(f"{evidence.root}/"):
        return True
    return any(path.startswith(f"{at}/") and not tree.truncated for at, tree in evidence.subtrees.items())


def _declared_package(name: str, facts: Facts) -> Said | None:
    """Where a manifest read declares a package of this name (Composer's ``vendor/package``...)."""
    key = _module_key(name)
    if not any(key == d for d in _module_names(facts)[1]):
        return None
    where = [
        m.path
        for m in facts.manifests
        if m.status == "parsed" and any(_module_key(d.name) == key for d in m.all_dependencies())
    ]
    return said("observed_declared_in", where=where[:3])


def _package_shaped(path: str, facts: Facts) -> bool:
    """``vendor/package``: two names, no file extension, and no folder of the tree named like the first
    (a package nobody declared in what was read, not an invented path)."""
    first, _, rest = path.partition("/")
    if not rest or "/" in rest or "." in rest or first.startswith("."):
        return False
    index = index_of(facts)
    return first not in index.known and first.lower() not in index.lower


def _repository_names(facts: Facts) -> set[str]:
    """The analysed repository's names, as asked for and as GitHub answered (a rename), lower-cased."""
    names = {facts.evidence.repo.full_name.lower()}
    if facts.evidence.info is not None and facts.evidence.info.full_name:
        names.add(facts.evidence.info.full_name.lower())
    return names


def locate(path: str, facts: Facts) -> str | Said | None:
    """Where ``path`` is in the tree: itself, the one file it names by a shorter path, or a top-level
    file it names without its extension ("README" for ``README.md``)."""
    index = index_of(facts)
    path = in_scope(path, facts.evidence)  # a scoped run's paths are relative to its folder
    if path in index.known:
        return path
    if path.lower() in index.lower:
        return index.lower[path.lower()]
    stems = [p for p in index.top if p.lower().startswith(path.lower() + ".")]
    if "/" not in path and "." not in path and stems:
        return stems[0]
    tails = index.tails(path)
    return (
        tails[0]
        if len(tails) == 1
        else (said("observed_places", count=len(tails), first=sorted(tails)[0]) if tails else None)
    )


def normal(name: str) -> str:
    """A package name as indexes compare them (case, and ``-``/``_``/``.`` alike)."""
    return re.sub(r"[-_.]+", "-", name.lower())


_TOOLCHAINS = {"php": "composer"}  # a runtime a manifest requires (its `toolchain`) → whose syntax it uses


def toolchain(found: Found, facts: Facts) -> Outcome | None:
    """ "depends on `php` 7.0": the version against the PHP a manifest read requires (composer.json's
    ``require.php``), when one does; None otherwise."""
    ecosystem = _TOOLCHAINS.get(found.value.strip().lower())
    if ecosystem is None:
        return None
    for m in facts.manifests:
        word, _, spec = (m.toolchain or "").partition(" ")
        if (
            m.status == "parsed"
            and word.lower() == found.value.strip().lower()
            and spec
            and not spec.endswith("…")
        ):
            met = compatible(found.version, [(spec, ecosystem)])
            if met is not None:
                return ("verified" if met else "contradicted"), said(
                    "observed_spec_in", spec=spec, where=m.path
                )
    return None
