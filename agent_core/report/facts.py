"""From tool results to what they show about one repository, and the strengths and risks it supports.

Per repository: :func:`gather` keeps the successful results by kind (:class:`Evidence`), then
:func:`build_facts` derives :class:`Facts` (manifests parsed, CI/tests/license presence, activity);
:func:`strengths` and :func:`risks` turn facts into sentences. ``None`` means unknown and ``()``
known to be absent: an absence ("no license") is only claimed when the data that would show the
thing was actually fetched.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from agent_core.repo import RepoRef
from agent_core.repomodel import RepoModel, RootContext, model_of, workspace_globs
from agent_core.report.activity import activity_of
from agent_core.report.evidence import Evidence, Facts
from agent_core.report.folder_tests import TOP_TEST_DIRS, is_test_root, main_tests_dir
from agent_core.report.inert import code, plain
from agent_core.report.manifests import Manifest, parse_manifest, read_manifests, root_workspaces
from agent_core.report.model_words import tests_phrase
from agent_core.report.phrases import day, files_phrase, join_names
from agent_core.report.scoped import license_files_of, manifest_scope, reroot
from agent_core.report.tree_lists import tree_lists
from agent_core.sources.licenses import UNNAMED
from agent_core.sources.models import CommitList, DirListing, FileContent, FileTree, Languages, RepoInfo
from agent_core.tools.observe import notable_role
from agent_core.tools.results import ToolResult
from agent_core.words import Words

__all__ = [  # Evidence and Facts live in report/evidence.py (below scoped.py and tree_lists.py), named here too
    "TEST_FILE",
    "TEST_RUNNERS",
    "Evidence",
    "Facts",
    "Finding",
    "build_facts",
    "call_label",
    "description",
    "gather",
    "link",
    "repo_model",
    "risks",
    "strengths",
    "tests_elsewhere",
]

# Test files by the commonest conventions (Facts.test_files); the report's own test counts come from the
# repository model (agent_core.repomodel), which knows every language's convention.
TEST_FILE = re.compile(r"(^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[jt]sx?$|Test\.java$|_spec\.rb$)")
TEST_RUNNERS = ("tox.ini", "noxfile.py")  # run the tests the same way everywhere; CI usually calls them


def gather(repo: RepoRef, results: Sequence[ToolResult], words: Words) -> Evidence:
    """The results that belong to ``repo``, sorted by kind; ``words`` describes stale and degraded ones."""
    latest: dict[type, Any] = {}
    listings: dict[str, DirListing] = {}
    files: dict[str, FileContent] = {}
    subtrees: dict[str, FileTree] = {}
    gaps: dict[str, None] = {}  # an ordered set
    attempted: set[str] = set()
    for result in (r for r in results if _belongs(r, repo)):
        attempted.add(result.tool)
        gap = _gap(result, words)
        if gap:
            gaps[gap] = None
        value = result.value if result.ok else None
        if isinstance(value, DirListing):
            listings[value.path] = value
        elif isinstance(value, FileContent):
            if value.path not in files or (value.start_line or 1) == 1:  # the first page says most
                files[value.path] = value
        elif isinstance(value, FileTree) and result.arguments.get("path") and value.path:
            subtrees[value.path] = value  # a folder's tree asked by path: a scoped run's tests elsewhere
        elif isinstance(value, RepoInfo | Languages | CommitList) or (
            isinstance(value, FileTree)
            and not result.arguments.get("path")  # the run's tree (maybe a scope's)
        ):
            latest[type(value)] = value
    return reroot(
        Evidence(
            repo=repo,
            info=latest.get(RepoInfo),
            tree=latest.get(FileTree),
            languages=latest.get(Languages),
            commits=latest.get(CommitList),
            listings=listings,
            files=files,
            subtrees=subtrees,
            attempted=frozenset(attempted),
            gaps=tuple(gaps),
        )
    )


def _belongs(result: ToolResult, repo: RepoRef) -> bool:
    if result.repo is not None:
        return result.repo.key() == repo.key()
    owner, name = result.arguments.get("owner"), result.arguments.get("repo")
    return f"{owner}/{name}".lower() == repo.key()


def _gap(result: ToolResult, words: Words) -> str | None:
    what = call_label(result)
    if result.stale:
        return words("stale_item", what)
    if result.degraded:
        return words("degraded_item", what, plain(result.error or words("unknown"), limit=120))
    return None


def call_label(result: ToolResult) -> str:
    """The call as cited in the report: tool, repository and path, escaped."""
    path = result.arguments.get("path")
    owner, name = result.arguments.get("owner"), result.arguments.get("repo")
    where = f" {plain(f'{owner}/{name}')}" if owner and name else ""
    return f"{code(result.tool)}{where}" + (f" {code(str(path))}" if path else "")


Finding = tuple[str, str]  # (kind, sentence); the kind selects the recommendation


def build_facts(evidence: Evidence, *, question: str = "") -> Facts:
    """What ``evidence`` shows; every absence in it was checkable (else the field is None). With a
    tree, the counts (files, tests, docs, CI) come from its repository model."""
    tree, root = evidence.tree, evidence.listings.get("")
    manifests = tuple(read_manifests(evidence.files))
    model = repo_model(evidence, manifests)
    if tree is not None:
        paths, dirs, large = tree_lists(tree)  # once per tree
        root_complete = tree_complete = not tree.truncated
    else:
        listed = [e for listing in evidence.listings.values() for e in listing.entries]
        paths = tuple(sorted(e.path for e in listed if e.type != "dir"))
        dirs = tuple(sorted(e.path for e in listed if e.type == "dir"))
        root_complete, tree_complete = root is not None and not root.truncated, False
        large = ()
    top_files = [p for p in paths if "/" not in p]
    readme = next((p for p in sorted(top_files, key=_readme_rank) if notable_role(p) == "readme"), None)
    licenses = tuple(p for p in top_files if re.match(r"(?i)(license|licence|copying)\b", p))
    if model is not None:
        tests_dir, test_files = main_tests_dir(model), model.tests.files
        docs_dir = model.docs[0].path if model.docs else None
        # A scoped run sees one folder: CI and licence files usually live at the repository's root,
        # outside it, so their absence from the folder is no absence from the repository (unless the
        # root and its workflows were listed: then the repository's CI is known).
        known = tree_complete and (not evidence.root or evidence.root_known)
        ci = model.ci_paths if model.ci_paths or known else None  # the root's: evidence.ci_outside
        test_files += sum(n for _path, n in evidence.tests_outside)  # a folder's tests kept elsewhere
        if not test_files:  # none of its own: its project's test root covers it
            test_files = sum(n for _path, n in evidence.project_tests)
        if not test_files and is_test_root(evidence.root):  # a folder that is a test root: tests, all of it
            test_files = model.own_files
    else:  # folder listings only: what their names say, at the top level
        tests_dir = next((name for name in TOP_TEST_DIRS if name in dirs), None)
        test_files = sum(1 for p in paths if TEST_FILE.search(p.rsplit("/", 1)[-1]))
        docs_dir = next((d for d in ("docs", "doc", "documentation") if d in dirs), None)
        ci = _ci(paths, dirs, evidence)
    return Facts(
        evidence=evidence,
        manifest_scope=manifest_scope(manifests, evidence),
        paths=paths,
        dirs=dirs,
        root_complete=root_complete,
        tree_complete=tree_complete,
        manifests=manifests,
        readme=readme,
        license_files=license_files_of(licenses, evidence, root_complete),
        ci=ci,
        test_runners=tuple(p for p in top_files if p.lower() in TEST_RUNNERS),
        tests_dir=tests_dir,
        test_files=test_files if test_files or tree_complete else None,
        docs_dir=docs_dir,
        activity=activity_of(evidence.commits),
        large_files=large,
        question=question,
        model=model,
    )


def repo_model(evidence: Evidence, manifests: Sequence[Manifest] | None = None) -> RepoModel | None:
    """The repository model of the evidence's tree (built once per tree, :func:`model_of`), with the
    root ``.gitattributes`` and the root's workspaces (``package.json``, else ``pnpm-workspace.yaml``)
    when they were read. ``manifests``: the evidence's files already parsed (its tree at the root)."""
    tree = evidence.tree
    if tree is None or tree.empty_repository:
        return None
    base = f"{tree.path}/" if tree.path else ""
    attributes = evidence.files.get(".gitattributes")
    package = evidence.files.get(f"{base}package.json") or evidence.files.get("package.json")
    globs = workspace_globs(package.text if package is not None else None)
    pnpm = evidence.files.get(f"{base}pnpm-workspace.yaml") or evidence.files.get("pnpm-workspace.yaml")
    if not globs and pnpm is not None and pnpm.text:
        globs = parse_manifest(pnpm.path, pnpm.text).workspaces
    if manifests is None or base:
        manifests = read_manifests(
            {k[len(base) :]: v for k, v in evidence.files.items() if k.startswith(base)}
        )
    members, virtual = root_workspaces(manifests)  # what the manifests read say of the packages
    context = RootContext(
        gitattributes=attributes.text if attributes is not None else None,
        workspace_globs=tuple(globs),
        members=members,
        virtual=virtual,
        read=tuple(m.path for m in manifests if m.status == "parsed"),  # an unread root is not counted
        above=evidence.root,
    )
    return model_of(tree, context)


def description(facts: Facts) -> tuple[str, str | None] | None:
    """The project's description and where it comes from: the repository's metadata (None), else a
    manifest read at the root that has one (its path), else one in a top-level folder named as the
    repository (``gson/pom.xml`` of google/gson); None when none says. A module's manifest describes the
    module (gson's ``extras/pom.xml``: "grab bag of utilities"), not the project."""
    info = facts.evidence.info
    if info is not None and info.description:
        return info.description, None
    name = facts.evidence.repo.name.casefold()
    own = [m for m in facts.manifests if m.description and not m.path.startswith("../")]
    found = next((m for m in own if "/" not in m.path), None) or next(
        (m for m in own if m.path.count("/") == 1 and m.path.split("/", 1)[0].casefold() == name), None
    )
    return (found.description, found.path) if found is not None and found.description else None


def _ci(paths: Sequence[str], dirs: Sequence[str], evidence: Evidence) -> tuple[str, ...] | None:
    """Without a tree: CI files the listings show; () only when the listings rule them out."""
    found = tuple(p for p in paths if notable_role(p) == "ci")
    if found:
        return found
    root = evidence.listings.get("")
    if root is None or root.truncated:
        return None
    if ".github" not in dirs or ".github/workflows" in evidence.listings:
        return found  # the root shows no .github folder, or its workflows folder was listed
    return None


def strengths(facts: Facts, words: Words) -> list[str]:
    """Sentences on what the data shows to be in good shape (CI, tests, license, docs, activity)."""
    ev, out = facts.evidence, []
    ci = facts.ci or facts.evidence.ci_outside  # a scoped run: the repository's CI runs for its folder
    if ci:
        out.append(words("s_ci", join_names([link(facts, p) for p in ci], words)))
    if facts.test_runners:
        out.append(words("s_runner", join_names([link(facts, p) for p in facts.test_runners], words)))
    out += _tested(facts, words)
    license_id = ev.info.license if ev.info else None
    license_id = None if (license_id or "").lower() in UNNAMED else license_id  # GitHub's NOASSERTION
    if license_id:  # a folder's run: the repository's licence, which a folder of vendored code may not carry
        out.append(words("s_license_repo" if ev.root else "s_license", plain(license_id)))
    elif facts.license_files:
        out.append(words("s_license_file", join_names([link(facts, p) for p in facts.license_files], words)))
    readme = ev.files.get(facts.readme or "")
    if readme is not None and (readme.total_lines or 0) >= 20:
        out.append(words("s_readme", link(facts, readme.path), readme.total_lines))
    if facts.docs_dir:
        out.append(words("s_docs", code(f"{facts.docs_dir}/")))
    act = facts.activity
    if act and act.per_week and act.per_week >= 1 and act.first and act.last:
        week = f"{act.per_week:.1f}"
        out.append(words("s_activity", act.count, day(act.first), day(act.last), week, day(act.last)))
    if act and len(act.authors) >= 3:
        out.append(words("s_contributors", len(act.authors)))
    return out


def _tested(facts: Facts, words: Words) -> list[str]:
    """The tests found: by the model's conventions, a tests folder or test files; of a folder's run,
    also those kept for it under a test root (``tests/<pkg>/``, ``test/Foo.Tests/``)."""
    out, ev = [], facts.evidence
    tested = tests_phrase(facts.model, words) if facts.model is not None else None
    if tested:
        out.append(words("model_tests_strength", tested))
    elif is_test_root(ev.root) and facts.test_files:  # a folder's run on a test root (tests/, spec/)
        out.append(words("s_is_tests", code(f"{ev.root}/"), files_phrase(facts.test_files or 0, words)))
    elif facts.tests_dir:
        count = sum(1 for p in facts.paths if p.startswith(f"{facts.tests_dir}/"))
        out.append(words("s_tests", code(f"{facts.tests_dir}/"), files_phrase(count, words)))
    elif facts.test_files and not (ev.tests_outside or ev.project_tests):
        out.append(words("s_test_files", files_phrase(facts.test_files, words)))
    elsewhere = tests_elsewhere(facts, words)
    if elsewhere and (ev.tests_outside or not out):
        out.append(elsewhere)
    return out


def tests_elsewhere(facts: Facts, words: Words) -> str | None:
    """Of a folder's run, where its tests are kept outside it: named for it (``tests/<pkg>/``), its
    project's test root, or the repository's test folders up its path; None when none is known."""
    ev = facts.evidence
    if ev.tests_outside or any(n for _p, n in ev.project_tests):
        key = "s_tests_elsewhere" if ev.tests_outside else "s_project_tests"
        kept = [
            link(facts, f"{p}/") + words("paren", files_phrase(n, words))
            for p, n in (ev.tests_outside or ev.project_tests)
        ]
        return words(key, join_names(kept, words))
    if ev.test_dirs_seen:
        return words("s_repo_tests", join_names([link(facts, f"{p}/") for p in ev.test_dirs_seen], words))
    return None


def risks(facts: Facts, words: Words) -> list[Finding]:
    """What the data shows to be missing or worrying; an absence only when it was checkable."""
    ev = facts.evidence
    gaps = [("data", words("r_data", words("semi").join(ev.gaps)))] if ev.gaps else []
    if (ev.commits is not None and ev.commits.empty_repository) or (
        ev.tree is not None and ev.tree.empty_repository
    ):
        return [("empty", words("r_empty")), *gaps]
    out: list[Finding] = []
    if ev.info is not None and ev.info.archived:
        out.append(("archived", words("r_archived")))
    if facts.license_files == () and not (ev.info and ev.info.license):
        out.append(("no_license", words("r_no_license")))
    if facts.ci == () and not facts.test_runners and not ev.ci_outside:
        out.append(("no_ci", words("r_no_ci")))
    if facts.test_files == 0 and not facts.tests_dir and not ev.test_dirs_seen:
        out.append(("no_tests", words("r_no_tests")))
    if facts.root_complete and facts.readme is None and facts.paths and not ev.root:  # a folder needs none
        out.append(("no_readme", words("r_no_readme")))
    readme = ev.files.get(facts.readme or "")
    if readme is not None and readme.total_lines is not None and readme.total_lines < 10:
        out.append(("short_readme", words("r_short_readme", readme.total_lines)))
    act = facts.activity
    if act and act.count >= 2 and len(act.authors) == 1 and act.authors[0][0]:
        who = plain(act.authors[0][0] or words("unknown"))
        out.append(("single_author", words("r_single_author", act.count, who)))
    if facts.large_files:
        big = [link(facts, p) + words("paren", f"{s / 1048576:.1f} MB") for p, s in facts.large_files]
        out.append(("large_files", words("r_large_files", words("sep").join(big))))
    checks = (("license", facts.license_files), ("ci", facts.ci), ("tests", facts.test_files))
    unchecked = [words(f"check_{name}") for name, known in checks if known is None]
    if unchecked:
        out.append(("unchecked", words("r_unchecked", words("sep").join(unchecked))))
    return [*out, *gaps]


def link(facts: Facts, path: str) -> str:
    """A file cited: a link to its page on GitHub, or just the path for a local repository."""
    base, root = facts.link_base, facts.evidence.root
    if base is None:
        return code(path)
    if root and path.startswith("../"):  # outside a scoped run's folder: the URL without "..", from the root
        top = base.removesuffix(f"{quote(root)}/")
        return f"[{code(path)}]({top}{quote(posixpath.normpath(f'{root}/{path}'), safe='/')})"
    return f"[{code(path)}]({base}{quote(path, safe='/')})"


def _readme_rank(path: str) -> tuple[int, str]:
    low = path.lower()
    return (0 if low.endswith(".md") else 1 if "." not in low else 2, path)
