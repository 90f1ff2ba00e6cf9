"""The check reads what it needs: before a model's report is checked, the manifests its claims rest on.

A licence claim: the root's licence files not read yet (a repository may hold several).

A claim about a dependency, its version or a test framework is ✗ only when the files that would show it
were read (a framework: every manifest of its ecosystem in a whole tree and the task and CI files that may
run it, see :mod:`~agent_core.report.verdict_packages`; a name said to be a dependency: every manifest);
a run that read only the root's leaves it "?". When a model's report makes such claims,
:func:`claim_reads` picks, per repository, what was not read yet: the root's manifests and the central
version files (``Directory.Packages.props``, ``gradle/libs.versions.toml``, ``pnpm-workspace.yaml``,
``go.work``...) first (of a folder's run: the folder's, and the nearest parent's from the listings up its
path); then a claimed framework's manifests and runners, when all of them fit; then every package's
manifest and those beside it (a gem's ``Gemfile``), in the order of
:func:`~agent_core.sources.manifest_files.manifests_to_read`; then the tree's other manifests (fixtures',
examples'), when all of them fit. At most :data:`MAX_READS` per repository. :func:`read_for_check` reads
them in one turn like the prefetch's (trace, budgets, memo, cache, retries), unless the run is out of time.
They are the app's reads, not the model's: they do not wait on the model's tool-call limit, but never take
more than a quarter of what GitHub's rate limit has left (:data:`RATE_SHARE`), and the owner's request
budgets hold them like any. Linear in the tree (one pass, the memoised model).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agent_core.agent.flow import Flow
from agent_core.agent.prefetch import evidence_turn
from agent_core.agent.run import Run
from agent_core.github.ratelimit import RateLimit
from agent_core.offload import off_loop
from agent_core.repo import RepoRef
from agent_core.repomodel import model_of
from agent_core.repomodel.packages import manifest_kind
from agent_core.report.claim_finders import Found, find_claims
from agent_core.report.folder_tests import ancestors
from agent_core.report.frameworks import framework_of
from agent_core.report.gradle_conventions import CONVENTION_DIRS, convention_sources
from agent_core.report.scoped import ci_folders
from agent_core.sources.languages import is_vendored
from agent_core.sources.licenses import MAX_LICENSE_FILES, is_license_file
from agent_core.sources.manifest_files import is_parsed_manifest, manifest_rank, manifests_to_read
from agent_core.sources.models import DirListing, FileTree
from agent_core.tool_call import ToolCallRequest
from agent_core.tools.observe import notable_role
from agent_core.tools.registry import GET_FILE_TREE, LIST_DIRECTORY, READ_FILE
from agent_core.tools.results import ToolResult
from agent_core.words import said

MAX_READS = 320  # manifests read for the check, per repository
MAX_TREES_BESIDE = 4  # a folder's run: trees fetched beside its own for the paths a report claims there
ROUNDS = 3  # a folder's run: list up its path, list the CI folders, read what they hold
RATE_SHARE = 4  # the check takes at most 1/RATE_SHARE of the GitHub requests its rate limit has left
_CENTRAL = frozenset(
    {"directory.packages.props", "directory.build.props", "pnpm-workspace.yaml", "go.work", "global.json"}
)
# A framework's ecosystem (report.frameworks) → the manifest ecosystems that can declare it (as the verdict).
_DECLARED_IN = {"maven": {"maven", "gradle"}, "cmake": {"cmake", "meson", "vcpkg", "conan"}}
# Files that may install and run a test tool no manifest declares, with the ecosystem they serve ("": any);
# CI files too. As the framework verdict has them (report.verdict_packages).
_RUNNERS = {
    "tox.ini": "python", "noxfile.py": "python", "rakefile": "rubygems",
    "makefile": "", "justfile": "", "taskfile.yml": "", "taskfile.yaml": "",
}  # fmt: skip
_SHOWN = 6  # files named in the turn's thought


async def read_for_check(run: Run, report: str) -> Flow:
    """The turns reading the manifests ``report``'s claims rest on (none: no turn). A folder's run may
    first list the folders up its path and the repository's CI folders, then read what they hold: at
    most :data:`ROUNDS` turns, each over what the last one found."""
    budget = allowance(run.parts.sink.rate_limit, len(run.parts.scope))
    for _ in range(ROUNDS):
        if run.time_limit_reached() or budget <= 0:
            return
        calls = await off_loop(_reads_of, report, run.parts.scope, run.state.all_results)
        calls = calls[:budget]
        if not calls:
            return
        budget -= len(calls)
        paths = [str(c.args["path"]) or "/" for c in calls]
        more = f" (+{len(paths) - _SHOWN})" if len(paths) > _SHOWN else ""
        thought = said("check_reads_thought", files=paths[:_SHOWN], more=more)
        extra = max(0, len(calls) - run.calls_left())
        async for item in evidence_turn(run, calls, thought, allowance=extra):
            yield item


def allowance(rate_limit: RateLimit | None, repositories: int) -> int:
    """The reads the check may make: :data:`MAX_READS` per repository, at most a :data:`RATE_SHARE`th of
    what the last rate limit GitHub announced has left (a local repository announces none)."""
    most = MAX_READS * max(1, repositories)
    return most if rate_limit is None else min(most, max(0, rate_limit.remaining) // RATE_SHARE)


def _reads_of(report: str, scope: Sequence[RepoRef], results: Sequence[ToolResult]) -> list[ToolCallRequest]:
    return claim_reads(find_claims(report), scope, results)


def claim_reads(
    claims: Sequence[Found], scope: Sequence[RepoRef], results: Sequence[ToolResult]
) -> list[ToolCallRequest]:
    """The reads of manifests not read yet that the dependency, version and framework ``claims`` rest on,
    per repository of ``scope`` whose tree ``results`` hold; none when no claim is of those kinds."""
    relevant = [
        c for c in claims if c.kind == "dependency" or (c.kind == "version" and c.subject == "package")
    ]
    licensed = any(c.kind == "license" for c in claims)
    claimed_paths = [c.value for c in claims if c.kind == "path"]
    if not relevant and not licensed and not claimed_paths:
        return []
    frameworks = {  # the ecosystems of the test frameworks claimed
        framework.ecosystem
        for claim in relevant
        if claim.subject == "framework" and (framework := framework_of(claim.value)) is not None
    }
    calls: list[ToolCallRequest] = []
    for repo in scope:
        tree = _tree(results, repo.key())
        if tree is None:
            continue
        read = {  # tried already, whatever came of it (a missing file is not asked twice)
            str(r.arguments.get("path", ""))
            for r in results
            if r.tool == READ_FILE and r.repo is not None and r.repo.key() == repo.key()
        }
        listings = _listings(results, repo.key())
        beside = _trees_beside(tree, listings, claimed_paths, results) if tree.path and claimed_paths else []
        if relevant and tree.path:  # Gradle's convention plugins at the root (buildSrc/): their tree
            beside += [
                d for d in _convention_dirs(listings) if d not in beside and d not in _fetched(results)
            ]
        calls += [_tree_of(repo, path) for path in beside]
        if relevant and tree.path:  # a folder's run: the folders up its path, the repository's CI ones
            tried = {  # asked already, whatever came of it (a folder that is not there is not asked twice)
                str(r.arguments.get("path", ""))
                for r in results
                if r.tool == LIST_DIRECTORY and r.repo is not None and r.repo.key() == repo.key()
            }
            unlisted = [p for p in _unlisted(tree, listings, ci=bool(frameworks)) if p not in tried]
            calls += [_list(repo, path) for path in unlisted]
            if unlisted:
                continue  # what they hold is read in the next round
        paths = _licences(tree, listings, read) if licensed else []
        if relevant:
            above = _parent_manifests(listings, tree) + _conventions(tree, results, repo.key(), read)
            if frameworks and tree.path:  # a folder's run: its tests kept elsewhere, the repository's CI
                above += [p for p in _elsewhere(results, repo.key(), tree) if p not in above]
                above += [p for p in _ci_listed(listings) if p not in above]
            paths += _wanted(tree, frameworks, above, read)
        calls += [
            _read(repo, path) for path in dict.fromkeys(paths)
        ]  # a CI file both listed and in the tree: once
    return calls


def _licences(tree: FileTree, listings: dict[str, DirListing], read: set[str]) -> list[str]:
    """The root's licence files not read yet (``LICENSE-CODE`` beside ``LICENSE``): a licence claim is ✗
    only when every one of them was read and recognised (a folder's run: as the root's listing shows)."""
    if tree.path:  # the folder's own, then the root's
        base = f"{tree.path}/"
        own = [
            e.path
            for e in tree.entries
            if e.type != "dir" and "/" not in e.path.removeprefix(base) and is_license_file(e.path)
        ]
        root = listings.get("")
        found = [
            e.path for e in (root.entries if root else ()) if e.type == "file" and is_license_file(e.path)
        ]
        return [p for p in [*sorted(own), *sorted(found)] if p not in read][: 2 * MAX_LICENSE_FILES]
    found = [
        e.path for e in tree.entries if e.type != "dir" and "/" not in e.path and is_license_file(e.path)
    ]
    return sorted(p for p in found if p not in read)[:MAX_LICENSE_FILES]


def _wanted(tree: FileTree, frameworks: set[str], parents: list[str], read: set[str]) -> list[str]:
    """The tree's files worth reading for the check, not read yet, most useful first (see the module's
    note): a claimed framework's manifests and the files that may run it only when all of them fit (else
    its check cannot end in ✗), the other manifests of the tree (fixtures', examples') only when every
    manifest fits (a name said to be a dependency is ✗ only when every manifest was read)."""
    base = f"{tree.path}/" if tree.path else ""
    packages = model_of(tree).packages
    manifests = {p.manifest for p in packages}
    folders = {p.path for p in packages}
    declared_in = {e for f in frameworks for e in _DECLARED_IN.get(f, {f})}
    first, framed, runners, rest, others = [p for p in parents if p not in read], [], [], [], []
    for entry in tree.entries:
        path = entry.path
        if entry.type == "dir" or path in read:
            continue
        folder, _, name = path.rpartition("/")
        parsed, role = (
            is_parsed_manifest(path),
            notable_role(path.removeprefix(base)),
        )  # as the folder sees it
        if not parsed and role != "manifest":
            runner = _RUNNERS.get(name.lower(), "" if role == "ci" else None)
            if frameworks and (runner == "" or runner in frameworks) and not is_vendored(path):
                runners.append(path)
            continue
        if is_vendored(path):
            continue
        low = name.lower()
        kind = manifest_kind(name)
        if "/" not in path.removeprefix(base) or low in _CENTRAL or low.endswith(".versions.toml"):
            first.append(path)
        elif parsed and (kind.ecosystem if kind else "python") in declared_in:
            framed.append(path)
        elif parsed and (path in manifests or folder in folders):
            rest.append(path)
        else:
            others.append(path)
    chosen = sorted(first, key=manifest_rank)
    if frameworks and len(chosen) + len(framed) + len(runners) <= MAX_READS:
        chosen += [*_ordered(framed), *sorted(runners)]
    else:
        rest += framed
    chosen += _ordered(rest)
    if len(chosen) + len(others) <= MAX_READS:
        chosen += sorted(others, key=manifest_rank)
    return chosen[:MAX_READS]


def _ordered(paths: list[str]) -> list[str]:
    """``paths`` as :func:`manifests_to_read` orders them (a test package's first, then by ecosystem),
    what it leaves out (fixtures, examples) after, by rank."""
    picked = manifests_to_read(paths, limit=len(paths))
    chosen = set(picked)
    return [*picked, *sorted((p for p in paths if p not in chosen), key=manifest_rank)]


def _listings(results: Sequence[ToolResult], key: str) -> dict[str, DirListing]:
    return {
        r.value.path: r.value
        for r in _of(results, key)
        if r.tool == LIST_DIRECTORY and isinstance(r.value, DirListing)
    }


def _parent_manifests(listings: dict[str, DirListing], tree: FileTree) -> list[str]:
    """Of a folder's run: the parsed manifests of every folder up its path that a listing showed (the
    prefetch lists them), the closest first: what declares the folder's dependencies with its own."""
    if not tree.path:
        return []
    parts = tree.path.split("/")
    found: list[str] = []
    for depth in range(len(parts) - 1, -1, -1):
        listing = listings.get("/".join(parts[:depth]))
        if listing is not None:
            found += sorted(
                (
                    e.path
                    for e in listing.entries
                    if e.type == "file" and (kind := manifest_kind(e.name)) is not None and kind.parsed
                ),
                key=manifest_rank,
            )
    return found


def _elsewhere(results: Sequence[ToolResult], key: str, tree: FileTree) -> list[str]:
    """Of a folder's run: the manifests of the trees it fetched beside its own (its tests kept elsewhere)."""
    return sorted(
        (
            e.path
            for r in _of(results, key)
            if r.tool == GET_FILE_TREE
            and isinstance(r.value, FileTree)
            and r.value.path not in ("", tree.path)
            for e in r.value.entries
            if e.type != "dir" and is_parsed_manifest(e.path) and not is_vendored(e.path)
        ),
        key=manifest_rank,
    )


def _ci_listed(listings: dict[str, DirListing]) -> list[str]:
    """The CI and task files the listings show outside a folder's tree (the repository's workflows, its
    Rakefile or Makefile)."""
    return sorted(
        e.path
        for listing in listings.values()
        for e in listing.entries
        if e.type == "file" and (notable_role(e.path) == "ci" or e.name.lower() in _RUNNERS)
    )


def _of(results: Iterable[ToolResult], key: str) -> Iterable[ToolResult]:
    return (r for r in results if r.ok and r.repo is not None and r.repo.key() == key)


def _tree(results: Sequence[ToolResult], key: str) -> FileTree | None:
    trees = [
        r.value
        for r in _of(results, key)
        if r.tool == GET_FILE_TREE and isinstance(r.value, FileTree) and not r.arguments.get("path")
    ]
    return trees[-1] if trees else None


def _unlisted(tree: FileTree, listings: dict[str, DirListing], *, ci: bool) -> list[str]:
    """Of a folder's run: the folders up its path not listed yet (their manifests declare with the
    folder's), and when a framework is claimed, the root's CI folders (a CI step may install one)."""
    wanted = [p for p in ancestors(tree.path) if p not in listings]
    root = listings.get("")
    if ci and root is not None:
        wanted += [p for p in ci_folders(root) if p not in listings]
    return wanted


def _fetched(results: Sequence[ToolResult]) -> set[str]:
    return {
        str(r.arguments.get("path")) for r in results if r.tool == GET_FILE_TREE and r.arguments.get("path")
    }


def _convention_dirs(listings: dict[str, DirListing]) -> list[str]:
    root = listings.get("")
    return sorted(
        e.path
        for e in (root.entries if root else ())
        if e.type == "dir" and e.name.lower() in CONVENTION_DIRS
    )


def _conventions(tree: FileTree, results: Sequence[ToolResult], key: str, read: set[str]) -> list[str]:
    """Gradle's convention plugins' sources not read yet: of the whole tree, from it; of a folder's run,
    from the trees fetched beside it (see :mod:`~agent_core.report.gradle_conventions`)."""
    trees = (
        [tree]
        if not tree.path
        else [
            r.value
            for r in _of(results, key)
            if r.tool == GET_FILE_TREE and isinstance(r.value, FileTree) and r.arguments.get("path")
        ]
    )
    paths = [e.path for t in trees for e in t.entries if e.type != "dir"]
    return [p for p in convention_sources(paths) if p not in read]


def _trees_beside(
    tree: FileTree, listings: dict[str, DirListing], claimed: Sequence[str], results: Sequence[ToolResult]
) -> list[str]:
    """Of a folder's run: for each claimed path outside the folder, the deepest folder above it that a
    listing showed (``test/Polly.Core.Tests`` for a test of ``src/Polly.Core``), not fetched yet and not
    above the run's folder; at most :data:`MAX_TREES_BESIDE`. Fetched whole, it says whether the path is
    there."""
    dirs = {e.path for listing in listings.values() for e in listing.entries if e.type == "dir"}
    fetched = _fetched(results)
    wanted: list[str] = []
    for raw in claimed:
        path = raw.strip().removeprefix("./").strip("/")
        if path.startswith(f"{tree.path}/") or any(path.startswith(f"{f}/") for f in (*fetched, *wanted)):
            continue
        parts = path.split("/")[:-1]
        folder = next(
            ("/".join(parts[:n]) for n in range(len(parts), 0, -1) if "/".join(parts[:n]) in dirs), ""
        )
        if folder and not tree.path.startswith(f"{folder}/"):
            wanted.append(folder)
        if len(wanted) >= MAX_TREES_BESIDE:
            break
    return wanted


def _tree_of(repo: RepoRef, path: str) -> ToolCallRequest:
    arguments: dict[str, Any] = {"owner": repo.owner, "repo": repo.name, "path": path}
    return ToolCallRequest(tool=GET_FILE_TREE, arguments=arguments)


def _list(repo: RepoRef, path: str) -> ToolCallRequest:
    arguments: dict[str, Any] = {"owner": repo.owner, "repo": repo.name, "path": path}
    return ToolCallRequest(tool=LIST_DIRECTORY, arguments=arguments)


def _read(repo: RepoRef, path: str) -> ToolCallRequest:
    arguments: dict[str, Any] = {"owner": repo.owner, "repo": repo.name, "path": path}
    return ToolCallRequest(tool=READ_FILE, arguments=arguments)
