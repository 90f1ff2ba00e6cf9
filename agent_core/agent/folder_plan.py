"""What the offline planner reads for a scoped run's folder (a ``/tree/<ref>/<folder>`` URL) beyond the
folder's own README and manifests: what the folder is made of, and what its repository knows of it.

- its **main modules**: the entry points (``main.go``, ``__init__.py``, ``index.ts``, ``lib.rs``,
  ``Program.cs``, a file named like the folder...) then the largest of its own source files (without
  source code: its largest code, then text files), so a folder of code alone (a Go package) is never
  reported from 0 reads;
- **up its path**: the listings of the folders above it (the root always), for the nearest manifest when
  the folder has none (read: "declared in the parent's ..."), or the one it inherits when it has its own
  (a workspace root's, ``Directory.Packages.props``), the repository's licence and CI;
- its **tests kept elsewhere**: a test root seen up the path (``tests/``, ``test/``, ``spec/``) is listed
  and the folders in it named for this one are fetched whole: the root's ``tests/<pkg>/`` of a Python
  monorepo, ``test/Foo.Tests/`` of a .NET ``src/Foo`` (:func:`~agent_core.report.scoped.kept_tests`).

Every step is a bounded number of calls; the folder's tree is scanned once per tree (the planner's memo).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.agent.tree_paths import usable
from agent_core.repo import RepoRef
from agent_core.repomodel import model_of
from agent_core.repomodel.packages import manifest_ecosystem
from agent_core.report.folder_tests import TEST_ROOTS, ancestors, kept_for, project_chain, source_set_mirror
from agent_core.report.scoped import ci_folders
from agent_core.sources.languages import language_for
from agent_core.sources.models import DirListing, FileTree
from agent_core.tool_call import ToolCallRequest
from agent_core.tools.observe import notable_role
from agent_core.tools.registry import GET_FILE_TREE, LIST_DIRECTORY, READ_FILE
from agent_core.words import Said, said

MAX_MAIN_MODULES = 2
_MAX_PARENT_MANIFESTS = 2
_MAX_TEST_ROOTS = 2
_MAX_TEST_FOLDERS = 2
_ENTRY_STEMS = frozenset({"main", "__init__", "__main__", "index", "lib", "mod", "program", "app", "cli"})
_LICENSE_NAMES = ("license", "licence", "copying")
_TEXT = (".md", ".rst", ".txt", ".adoc")  # what a folder without code says, read when it has nothing else
ROOT_FOLDER = said("plan_root_folder")  # a listing of the root, as the narration names it
_INHERITED = frozenset(
    {"directory.build.props", "directory.packages.props", "go.work", "pnpm-workspace.yaml", "gemfile"}
)


@dataclass(frozen=True, kw_only=True)
class Pick:
    """A chosen follow-up call and how to describe it."""

    call: ToolCallRequest
    label: str | Said  # what the user reads: "README.md", "tests/", ROOT_FOLDER
    kind: str  # readme, manifest, ci, license, tests, root, question, module, context


def call(tool: str, repo: RepoRef, **arguments: Any) -> ToolCallRequest:
    return ToolCallRequest(tool=tool, arguments={"owner": repo.owner, "repo": repo.name, **arguments})


def main_modules(tree: FileTree, base: str) -> list[str]:
    """Up to :data:`MAX_MAIN_MODULES` of the folder's own files (paths relative to ``base``, the folder):
    its source's entry points first (shallowest), then its largest source files; a folder without source
    code (a test project, examples, documentation) its largest code, then text files. One pass over the
    entries."""
    model = model_of(tree)
    folder = base.rstrip("/").rpartition("/")[2].lower()
    ranked: list[tuple[int, int, int, str]] = []
    for entry in tree.entries:
        if entry.type != "file" or not entry.path.startswith(base) or not model.is_own(entry.path):
            continue
        path = entry.path[len(base) :]
        name = path.rpartition("/")[2].lower()
        code = language_for(entry.path) is not None
        if code and model.role_of(entry.path) == "source":
            stem = name.rpartition(".")[0]
            tier = 0 if stem in _ENTRY_STEMS or (bool(folder) and stem == folder) else 1
        elif code:
            tier = 2
        elif name.endswith(_TEXT):
            tier = 3
        else:
            continue
        ranked.append((tier, path.count("/") if tier == 0 else 0, -(entry.size or 0), path))
    ranked.sort()
    return [path for *_, path in ranked if usable(base + path)][:MAX_MAIN_MODULES]


def folder_context(
    repo: RepoRef,
    folder: str,
    listed: Callable[[str], DirListing | None],
    *,
    own_manifests: Sequence[str],
    own_license: bool,
    own_tests: bool = True,
    fetched: Callable[[str], FileTree | None] = lambda _path: None,
) -> list[Pick]:
    """The calls that tell a folder's run what its repository knows of it: the listings up its path,
    then (once they are known) the nearest manifest, the root's licence and workflows, the tests kept
    for it under a test root, and (once their trees are known) the manifest of each such test project,
    which names its test framework. ``listed(path)``: the listing of ``path`` if it was made;
    ``fetched(path)``: the tree of ``path`` if it was fetched."""
    above = ancestors(folder)
    picks = [
        Pick(call=call(LIST_DIRECTORY, repo, path=p), label=f"{p}/" if p else ROOT_FOLDER, kind="context")
        for p in above
    ]
    listings = {p: listed(p) for p in above}
    root = listings.get("")
    if root is not None:
        picks += workflows(repo, root)
        if not own_license:
            picks += [
                Pick(call=call(READ_FILE, repo, path=e.path), label=e.path, kind="license")
                for e in _license_files(root)[:1]
            ]
    picks += _nearest_manifests(repo, above, listings, own_manifests)
    # a folder of its parent's project (no manifest of its own) with no tests of its own: the project's
    kept = _tests_elsewhere(
        repo,
        folder,
        above,
        listings,
        listed,
        own_manifest=bool(own_manifests),
        project=not own_manifests and not own_tests,
    )
    return [*picks, *kept, *_test_manifests(repo, kept, fetched)]


def _test_manifests(
    repo: RepoRef, kept: Sequence[Pick], fetched: Callable[[str], FileTree | None]
) -> list[Pick]:
    """The manifest at the top of each test folder kept elsewhere whose tree came back (one each, at most
    :data:`_MAX_TEST_FOLDERS`): ``test/Foo.Tests/Foo.Tests.csproj``, ``test/CMakeLists.txt``."""
    picks = []
    for pick in kept:
        path = str(pick.call.args.get("path", ""))
        tree = fetched(path) if pick.call.tool == GET_FILE_TREE else None
        if tree is None:
            continue
        tops = sorted(
            e.path
            for e in tree.entries
            if e.type == "file" and e.path.rpartition("/")[0] == path and usable(e.path)
        )
        found = next((t for t in tops if manifest_ecosystem(t.rsplit("/", 1)[-1]) is not None), None)
        if found is not None:
            picks.append(Pick(call=call(READ_FILE, repo, path=found), label=found, kind="tests"))
    return picks[:_MAX_TEST_FOLDERS]


def workflows(repo: RepoRef, listing: DirListing) -> list[Pick]:
    """A root listing cannot show CI files one level down: its CI folders (``.github/workflows``, ``.ci``,
    ``.circleci``...: :func:`~agent_core.report.scoped.ci_folders`), listed."""
    return [
        Pick(call=call(LIST_DIRECTORY, repo, path=p), label=f"{p}/", kind="ci")
        for p in ci_folders(listing)
        if usable(p)
    ]


def _license_files(listing: DirListing) -> list[Any]:
    found = [
        e
        for e in listing.entries
        if e.type == "file" and e.name.lower().startswith(_LICENSE_NAMES) and usable(e.path)
    ]
    return sorted(found, key=lambda e: (len(e.name), e.name))


def _nearest_manifests(
    repo: RepoRef, above: Sequence[str], listings: dict[str, DirListing | None], own: Sequence[str]
) -> list[Pick]:
    """The manifests of the closest folder above that has one, once every listing nearer is known. Of a
    folder with manifests of its own (``own``: their names), only those it inherits: MSBuild's
    ``Directory.*.props``, ``go.work``, ``pnpm-workspace.yaml``, a ``Gemfile``, and a manifest of the same
    name (a workspace's root ``pyproject.toml``, ``package.json``, ``Cargo.toml``, a parent ``pom.xml``:
    where a workspace declares its members' test framework), never a parent ``go.mod`` (another module)."""
    names = {n.lower() for n in own}
    for path in above:
        listing = listings.get(path)
        if listing is None:
            return []  # not listed yet (or it failed): a farther manifest might not be the nearest
        found = sorted(
            e.path
            for e in listing.entries
            if e.type == "file"
            and notable_role(e.name) == "manifest"
            and usable(e.path)
            and (not names or _inherited(e.name.lower(), names))
        )
        if found:
            return [
                Pick(call=call(READ_FILE, repo, path=p), label=p, kind="manifest")
                for p in found[:_MAX_PARENT_MANIFESTS]
            ]
    return []


def _inherited(name: str, own: set[str]) -> bool:
    return name in _INHERITED or (name in own and name != "go.mod")


def _tests_elsewhere(
    repo: RepoRef,
    folder: str,
    above: Sequence[str],
    listings: dict[str, DirListing | None],
    listed: Callable[[str], DirListing | None],
    *,
    own_manifest: bool,
    project: bool,
) -> list[Pick]:
    """The test roots up the path (listed), then the folders named for the folder or its project, in
    them or beside them (fetched: :func:`~agent_core.report.scoped.kept_for`); a Maven/Gradle source
    set's test mirror (``src/test``); none named for it and ``project``: the nearest test root itself."""
    roots = [
        e.path
        for path in above
        if (listing := listings.get(path)) is not None
        for e in listing.entries
        if e.type == "dir"
        and e.name.lower() in TEST_ROOTS
        and e.path != folder
        and not folder.startswith(f"{e.path}/")
    ][:_MAX_TEST_ROOTS]
    picks = [Pick(call=call(LIST_DIRECTORY, repo, path=r), label=f"{r}/", kind="tests") for r in roots]
    inside = [e.path for r in roots if (got := listed(r)) is not None for e in got.entries if e.type == "dir"]
    owners = project_chain(folder, own_manifest, listed)
    kept = [p for p in kept_for(owners, inside, listed) if usable(p)][:_MAX_TEST_FOLDERS]
    mirror = source_set_mirror(folder)
    holder = listed(mirror[0].rpartition("/")[0]) if mirror is not None else None  # an ancestor: listed
    if (
        mirror is not None
        and holder is not None
        and any(e.path == mirror[0] for e in holder.entries)
        and usable(mirror[0])
    ):
        kept.append(mirror[0])
    elif not kept and project and roots and listed(roots[0]) is not None and usable(roots[0]):
        kept = [roots[0]]
    return [
        *picks,
        *(Pick(call=call(GET_FILE_TREE, repo, path=p), label=f"{p}/", kind="tests") for p in kept),
    ]


def describe(repo: RepoRef, picks: Sequence[Pick], *, several: bool, purpose: Said) -> Said:
    """One sentence for the user: "Reading README.md, the manifests pyproject.toml, ... ."."""
    if [p.kind for p in picks] == ["root"]:
        return said("plan_no_tree", repo=repo.full_name)
    groups: list[Said] = []
    for kind in ("readme", "manifest", "module", "ci", "license", "attributes", "question"):
        labels = [p.label for p in picks if p.kind == kind and p.call.tool == READ_FILE]
        if labels:
            extra = {"purpose": purpose} if kind == "question" else {}
            groups.append(said(f"plan_read_{kind}", files=labels, **extra))
    listed = [p.label for p in picks if p.call.tool == LIST_DIRECTORY and p.kind != "root"]
    trees = [p.label for p in picks if p.call.tool == GET_FILE_TREE]
    parts = [said("plan_reading", groups=groups)] if groups else []
    if listed:
        parts.append(said("plan_listing" if parts else "plan_listing_first", folders=listed))
    if trees:
        parts.append(said("plan_fetching" if parts else "plan_fetching_first", folders=trees))
    return (
        said("plan_step_in", parts=parts, repo=repo.full_name) if several else said("plan_step", parts=parts)
    )
