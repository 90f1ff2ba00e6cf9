"""The offline planner: which tools to call, turn by turn, when no model is configured.

The same loop runs with or without a model; without one, :class:`OfflinePlanner` proposes the calls.
It is deterministic (sorted choices, no randomness, no model) and derives every decision from the
results so far, so it holds no state besides its configuration and, per tree seen, what it derived from
it (:mod:`~agent_core.agent.tree_paths`, once, in time linear in the entries)::

    turn 1  every repository at once: the overview of the tool registry (get_repo_info, get_file_tree,
            get_commits(30), get_languages: each spec's ``overview`` arguments)
    turn 2  from the tree: read_file README, manifests, CI workflows (up to 2), LICENSE,
            list_directory of the tests folder -- at most ``max_files_per_repo`` per repository
            (tree failed: list_directory of the root instead, and the picks come one turn later)
            and, for the question asked, the files that answer it (:mod:`~agent_core.report.relevance`:
            its words against each path's name, role and conventional subject) -- at most
            ``max_question_reads`` more per repository
    then    None: nothing left that has not been tried

A call already made (same tool and arguments, whatever its outcome) is never proposed again, so a
failed read is not retried in a loop and the planner always finishes; a follow-up question proposes only
the reads its question adds. When every failure of this run for a repository is a broken connection (DNS,
TLS, the network), the planner proposes nothing more for it: the next calls would fail the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.agent.folder_plan import ROOT_FOLDER, folder_context, main_modules
from agent_core.agent.folder_plan import Pick as _Pick
from agent_core.agent.folder_plan import describe as _describe
from agent_core.agent.folder_plan import workflows as _workflows
from agent_core.agent.tree_paths import TreePaths, tree_paths, usable
from agent_core.repo import RepoRef
from agent_core.repomodel import RepoModel, model_of
from agent_core.report.relevance import QUESTION_READS, describe_question, question_files
from agent_core.sources.manifest_files import manifest_rank, manifests_to_read
from agent_core.sources.models import DirListing, FileTree
from agent_core.tool_call import ToolCallRequest
from agent_core.tools.observe import notable_role
from agent_core.tools.registry import (
    COMMITS_IN_OVERVIEW,
    GET_FILE_TREE,
    GET_REPO_INFO,
    LIST_DIRECTORY,
    READ_FILE,
    overview_calls,
)
from agent_core.tools.results import ToolResult
from agent_core.words import Said, said, say

TEST_DIRS = ("tests", "test", "spec", "__tests__")
CONNECTIVITY_CAUSES = frozenset({"dns", "tls", "network"})
_MAX_CI_FILES = 2
_MAX_ROOT_MANIFESTS_FIRST = 3  # more root manifests only if the budget is left after CI, license, tests
_MAX_NESTED_MANIFESTS = 8  # package manifests below the root (every ecosystem, a test package too)
_KEY_NESTED_MANIFESTS = 2  # of them, read before the root's remaining manifests
_CI_NAME = re.compile(r"ci|test|build|check")
_LICENSE = re.compile(r"^(license|licence|copying)([.-][\w.-]+)?$", re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class PlanStep:
    """One turn: the calls to run concurrently, and one or two sentences saying why (shown to the user,
    in the user's language: ``said``; ``thought`` is them in English)."""

    said: tuple[Said, ...]
    calls: tuple[ToolCallRequest, ...]

    @property
    def thought(self) -> str:
        return say(self.said, "en")


CallKey = tuple[str, str, str, tuple[tuple[str, str], ...]]


def call_key(tool: str, arguments: Mapping[str, Any]) -> CallKey:
    """The identity of a call: tool, repository (case-insensitive) and the other arguments, with the
    defaults the tools fill in (``path`` "" for the root) left out so that a proposed call and the
    recorded result of the same call compare equal."""
    rest = tuple(
        sorted(
            (name, str(value))
            for name, value in arguments.items()
            if name not in ("owner", "repo")
            and value is not None
            and not (name == "path" and value in ("", "/"))
        )
    )
    return (tool, str(arguments.get("owner", "")).lower(), str(arguments.get("repo", "")).lower(), rest)


class OfflinePlanner:
    """Proposes tool calls without a model. See the module docstring for the plan."""

    def __init__(
        self,
        scope: Sequence[RepoRef],
        *,
        question: str = "",
        max_files_per_repo: int = 8,
        max_question_reads: int = QUESTION_READS,
        run_start: int = 0,
    ) -> None:
        """``run_start``: where this run's results begin in the results ``next_step`` is given; a broken
        connection in an earlier run does not stop this one (the network may be back)."""
        if not scope:
            raise ValueError("the planner needs at least one repository")
        if max_files_per_repo < 1:
            raise ValueError(f"max_files_per_repo must be >= 1, got {max_files_per_repo}")
        if max_question_reads < 0:
            raise ValueError(f"max_question_reads must be >= 0, got {max_question_reads}")
        self._scope = tuple(scope)
        self._question = question
        self._max_files = max_files_per_repo
        self._max_question = max_question_reads
        self._run_start = run_start
        # what each tree seen yields (keyed by identity; the tree is kept so that the key stays its own)
        self._memo: dict[
            tuple[int, RepoRef], tuple[FileTree, TreePaths, list[str], list[str], list[_Pick]]
        ] = {}

    def next_step(self, results: Sequence[ToolResult]) -> PlanStep | None:
        """The next turn given every result so far (all repositories), or None when done."""
        made = {call_key(r.tool, r.arguments) for r in results}
        first = [c for repo in self._scope for c in _first_calls(repo) if _key(c) not in made]
        if first:
            names = [repo.full_name for repo in self._scope]
            overview = said("plan_overview", repos=names, commits=COMMITS_IN_OVERVIEW)
            return PlanStep(said=(overview,), calls=tuple(first))
        calls: list[ToolCallRequest] = []
        sentences: list[Said] = []
        for repo in self._scope:
            mine = [r for r in results if _belongs(r, repo)]
            if offline([r for r in results[self._run_start :] if _belongs(r, repo)]):
                continue  # no connection: every further call would fail the same way
            picks = _unique(p for p in self._follow_ups(repo, mine) if _key(p.call) not in made)
            if picks:
                calls.extend(p.call for p in picks)
                purpose = describe_question(self._question)
                sentences.append(_describe(repo, picks, several=len(self._scope) > 1, purpose=purpose))
        if not calls:
            return None
        return PlanStep(said=tuple(sentences), calls=tuple(calls))

    def _follow_ups(self, repo: RepoRef, results: Sequence[ToolResult]) -> list[_Pick]:
        """Everything worth calling for ``repo`` given what is known; made calls are filtered later."""
        tree = _root_tree(results)
        if tree is not None:  # a scoped run's folder is planned as if it were the root, then re-rooted
            base = f"{tree.path}/" if tree.path else ""
            paths, asked, mains, found = self._derived(repo, tree, base)
            focus = [
                _Pick(call=_call(READ_FILE, repo, path=f), label=f, kind="question")
                for f in [tree.focus]
                if f
            ]
            picks = [*self._bounded(found), *self._for_question(repo, asked)]
            picks += [_Pick(call=_call(READ_FILE, repo, path=p), label=p, kind="module") for p in mains]
            outside = self._folder_context(repo, tree, paths, results) if base else []
            return [*focus, *(_rooted(p, base) for p in picks), *outside]
        tree_result = next((r for r in reversed(results) if r.tool == GET_FILE_TREE), None)
        if tree_result is None or not _worth_listing(results):
            return []
        root_call = _call(LIST_DIRECTORY, repo, path="")
        listing = _listing(results, _key(root_call))
        if listing is None:
            return [_Pick(call=root_call, label=ROOT_FOLDER, kind="root")]
        picks = _picks_from_paths(repo, tree_paths((e.path or e.name, e.type) for e in listing.entries))
        picks += _workflows(repo, listing)
        return [_Pick(call=root_call, label=ROOT_FOLDER, kind="root"), *self._bounded(picks)]

    def _bounded(self, picks: list[_Pick]) -> list[_Pick]:
        return picks[: self._max_files]

    def _folder_context(
        self, repo: RepoRef, tree: FileTree, paths: TreePaths, results: Sequence[ToolResult]
    ) -> list[_Pick]:
        """A scoped run's reads up its path: the nearest manifest when the folder has none, the
        repository's licence and CI, its tests kept under a test root (:mod:`~agent_core.agent.folder_plan`)."""

        def listed(path: str) -> DirListing | None:
            return _listing(results, _key(_call(LIST_DIRECTORY, repo, path=path)))

        def fetched(path: str) -> FileTree | None:
            return next(
                (
                    r.value
                    for r in reversed(results)
                    if r.tool == GET_FILE_TREE
                    and r.ok
                    and isinstance(r.value, FileTree)
                    and r.arguments.get("path") == path
                ),
                None,
            )

        tops = [p for p in paths.files if "/" not in p]
        return folder_context(
            repo,
            tree.path,
            listed,
            own_manifests=[p for p in paths.role("manifest") if "/" not in p],
            own_license=any(_LICENSE.match(p) for p in tops),
            own_tests=model_of(tree).tests.files > 0,
            fetched=fetched,
        )

    def _derived(
        self, repo: RepoRef, tree: FileTree, base: str
    ) -> tuple[TreePaths, list[str], list[str], list[_Pick]]:
        """The tree's paths (under ``base``, re-rooted) by role, the question's reads in it, a folder's
        main modules and the usual reads (README, manifests, CI...), derived once per tree: the same tree
        comes back with every later step, and deriving is linear in its entries."""
        memo = self._memo.get((id(tree), repo))  # the picks name the repository: two may share a tree
        if memo is None or memo[0] is not tree:
            paths = tree_paths((e.path.removeprefix(base), e.type) for e in tree.entries)
            model = model_of(tree)  # built once per tree; the vendored and generated answer no concept
            role = _role(model, base)
            reads = question_files(self._question, paths.files, role=role, budget=self._max_question)
            asked = [path for path in reads if usable(path)]  # a name the tools refuse is not asked for
            mains = main_modules(tree, base) if base else []  # a folder's entry points, largest sources
            found = _picks_from_paths(repo, paths)
            memo = self._memo[(id(tree), repo)] = (tree, paths, asked, mains, found)
        return memo[1], memo[2], memo[3], memo[4]

    def _for_question(self, repo: RepoRef, asked: Sequence[str]) -> list[_Pick]:
        """The reads the question needs, at most ``max_question_reads`` (some may be made already)."""
        return [_Pick(call=_call(READ_FILE, repo, path=path), label=path, kind="question") for path in asked]


def _role(model: RepoModel, base: str) -> Callable[[str], str]:
    return lambda path: model.role_of(base + path)


def offline(results: Sequence[ToolResult]) -> bool:
    """Whether something failed and every failure so far is a broken connection (DNS, TLS, network)."""
    failures = [r for r in results if not r.ok]
    return bool(failures) and all(r.cause in CONNECTIVITY_CAUSES for r in failures)


def _unique(picks: Iterable[_Pick]) -> list[_Pick]:
    """The picks without repeats (a question's read may be one of the usual reads), first one kept."""
    unique: dict[CallKey, _Pick] = {}
    for pick in picks:
        unique.setdefault(_key(pick.call), pick)
    return list(unique.values())


def _first_calls(repo: RepoRef) -> list[ToolCallRequest]:
    return [ToolCallRequest(tool=tool, arguments=arguments) for tool, arguments in overview_calls(repo)]


def basic_reads(repo: RepoRef, tree: FileTree) -> list[ToolCallRequest]:
    """What every analysis reads first: the README and, per ecosystem, its most telling top-level
    manifest (``pyproject.toml`` before ``setup.cfg`` before ``requirements.txt``...)."""
    files = sorted(e.path for e in tree.entries if e.type == "file" and "/" not in e.path and usable(e.path))
    readme = sorted((p for p in files if notable_role(p) == "readme"), key=_readme_rank)[:1]
    primary: dict[str, str] = {}
    for path in sorted((p for p in files if notable_role(p) == "manifest"), key=_manifest_rank):
        primary.setdefault(_ecosystem(path), path)
    return [_call(READ_FILE, repo, path=path) for path in [*readme, *primary.values()]]


_ECOSYSTEMS = (
    ("python", re.compile(r"^(pyproject\.toml|setup\.cfg|setup\.py|requirements[\w.-]*\.txt|pipfile)$")),
    ("javascript", re.compile(r"^(package\.json|deno\.json)$")),
    ("java", re.compile(r"^(pom\.xml|build\.gradle(\.kts)?)$")),
)


def _ecosystem(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return next((kind for kind, pattern in _ECOSYSTEMS if pattern.match(name)), name)


def _picks_from_paths(repo: RepoRef, paths: TreePaths) -> list[_Pick]:
    """README, manifests, CI, LICENSE and the tests folder, most important first.

    The order makes the per-repository bound cut the least useful calls: a monorepo's many nested
    manifests come after the license and the tests folder.
    """
    readme = sorted(paths.role("readme"), key=_readme_rank)[:1]
    manifests = sorted(paths.role("manifest"), key=_manifest_rank)
    root_manifests = [p for p in manifests if "/" not in p]
    nested_manifests = list(
        dict.fromkeys(
            [
                *manifests_to_read(paths.files, limit=_MAX_NESTED_MANIFESTS),
                *(p for p in manifests if "/" in p),
            ]
        )
    )
    ci = sorted(paths.role("ci"), key=_ci_rank)
    roots = [p for p in paths.files if "/" not in p]
    licenses = sorted((p for p in roots if _LICENSE.match(p) and usable(p)), key=lambda p: (len(p), p))[:1]
    tests = [name for name in TEST_DIRS if name in paths.top_dirs][:1]

    def read(path: str, kind: str, label: str) -> _Pick:
        return _Pick(call=_call(READ_FILE, repo, path=path), label=label, kind=kind)

    head = _MAX_ROOT_MANIFESTS_FIRST
    return [
        *(read(p, "readme", p) for p in readme),
        *(read(p, "manifest", p) for p in root_manifests[:head]),
        *(read(p, "ci", p) for p in ci[:1]),
        *(read(p, "license", p) for p in licenses),
        *(
            read(p, "attributes", p) for p in roots if p == ".gitattributes"
        ),  # the repository model's overrides
        *(_Pick(call=_call(LIST_DIRECTORY, repo, path=t), label=f"{t}/", kind="tests") for t in tests),
        # a package's manifest (a test project's first) says more than the root's remaining ones
        *(read(p, "manifest", p) for p in nested_manifests[:_KEY_NESTED_MANIFESTS]),
        *(read(p, "manifest", p) for p in root_manifests[head:]),
        *(read(p, "ci", p) for p in ci[1:_MAX_CI_FILES]),
        *(read(p, "manifest", p) for p in nested_manifests[_KEY_NESTED_MANIFESTS:]),
    ]


def _rooted(pick: _Pick, base: str) -> _Pick:
    """A pick planned inside a scoped folder, with its path from the repository root again."""
    if not base:
        return pick
    path = base + str(pick.call.args.get("path", ""))
    call = ToolCallRequest(tool=pick.call.tool, arguments={**pick.call.args, "path": path})
    label = base + pick.label if isinstance(pick.label, str) else pick.label
    return _Pick(call=call, label=label, kind=pick.kind)


def _call(tool: str, repo: RepoRef, **arguments: Any) -> ToolCallRequest:
    return ToolCallRequest(tool=tool, arguments={"owner": repo.owner, "repo": repo.name, **arguments})


def _key(call: ToolCallRequest) -> CallKey:
    return call_key(call.tool, call.args)


def _belongs(result: ToolResult, repo: RepoRef) -> bool:
    if result.repo is not None:
        return result.repo.key() == repo.key()
    owner, name = result.arguments.get("owner"), result.arguments.get("repo")
    return f"{owner}/{name}".lower() == repo.key()


def _root_tree(results: Sequence[ToolResult]) -> FileTree | None:
    """The latest whole tree fetched (a stale copy counts: it is still the repository's tree); a
    scoped run's is its folder's (``tree.path``)."""
    for result in reversed(results):
        if (
            result.tool == GET_FILE_TREE
            and result.ok
            and isinstance(result.value, FileTree)
            and not result.arguments.get("path")
        ):
            return result.value
    return None


def _listing(results: Sequence[ToolResult], key: CallKey) -> DirListing | None:
    for result in reversed(results):
        if (
            result.ok
            and isinstance(result.value, DirListing)
            and call_key(result.tool, result.arguments) == key
        ):
            return result.value
    return None


def _worth_listing(results: Sequence[ToolResult]) -> bool:
    """Fall back to a root listing unless the repository itself is known to be missing (a plain,
    non-degraded failure of get_repo_info, e.g. not found): then every listing would fail too."""
    info = next((r for r in reversed(results) if r.tool == GET_REPO_INFO), None)
    return info is None or info.ok or info.degraded


def _ci_rank(path: str) -> tuple[bool, bool, str]:
    """GitHub Actions first, and among them the workflows whose name says they build or test."""
    name = path.rsplit("/", 1)[-1].lower()
    return (not path.startswith(".github/"), not _CI_NAME.search(name), path)


def _readme_rank(path: str) -> tuple[int, str]:
    low = path.lower()
    return (0 if low.endswith(".md") else 1 if "." not in low else 2, path)


def _manifest_rank(path: str) -> tuple[int, int, str]:
    return manifest_rank(path)  # sources.manifest_files: one order for every ecosystem
