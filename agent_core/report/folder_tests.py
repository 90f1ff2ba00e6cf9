"""Where a folder's tests are kept, by the rules of the ecosystems that keep them outside it: pure
functions of paths and names, shared by the planner (which folders to fetch,
:mod:`agent_core.agent.folder_plan`) and the report (which fetched trees are the folder's,
:mod:`agent_core.report.scoped`).

- a test root up the path holds a folder named for it: ``tests/a`` for ``packages/a``,
  ``test/Foo.Tests`` for ``src/Foo`` (:func:`kept_tests`), or for the project it belongs to
  (:func:`project_chain`: ``test/Polly.Core.Tests`` for ``src/Polly.Core/CircuitBreaker``);
- a test project beside it: ``Src/AutoFixtureUnitTest`` beside ``Src/AutoFixture``, a test source set
  beside a source set (``src/jvmTest``) (:func:`kept_for`);
- a Maven/Gradle source set's mirror: ``src/main/java/x`` ↔ ``src/test/java/x`` (:func:`source_set_mirror`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence

from agent_core.repomodel import RepoModel
from agent_core.sources.models import DirListing
from agent_core.tools.observe import notable_role

TEST_ROOTS = frozenset({"tests", "test", "spec", "specs", "__tests__"})
"""Folders that hold a repository's tests for several of its packages (``tests/<pkg>/``)."""
MAX_ANCESTORS = 8  # folders listed up a folder's path (closest first), the root always among them
_TEST_AFFIXES = (
    "unittests",
    "unittest",
    "integrationtests",
    "integrationtest",
    "functionaltests",
    "tests",
    "test",
    "specs",
    "spec",
)


def is_test_dir(name: str) -> bool:
    """A folder name that says tests: a test root (``tests``, ``spec``) or one prefixed so
    (``tests-integration``, ``tests-build``, ``test_utils``)."""
    low = name.lower()
    return low in TEST_ROOTS or low.startswith(("tests-", "tests_", "test-", "test_"))


def is_test_root(folder: str) -> bool:
    """Whether a folder's run is on a test root itself (``tests``, ``activerecord/test``, ``spec``)."""
    return bool(folder) and folder.rpartition("/")[2].lower() in TEST_ROOTS


def ancestors(folder: str) -> list[str]:
    """The folders above ``folder``, closest first, at most :data:`MAX_ANCESTORS` with the root last."""
    parts = folder.split("/")[:-1]
    return [*["/".join(parts[:i]) for i in range(len(parts), 0, -1)][: MAX_ANCESTORS - 1], ""]


def project_chain(
    folder: str, own_manifest: bool, listing_of: Callable[[str], DirListing | None]
) -> list[str]:
    """Whose tests are the folder's: itself and, when it has no manifest of its own, the folders above
    it up to the nearest one with a manifest, its project (``src/Polly.Core`` for
    ``src/Polly.Core/CircuitBreaker``), never the root."""
    owners = [folder]
    if own_manifest:
        return owners
    for path in ancestors(folder):
        listing = listing_of(path)
        if not path or listing is None:
            break
        owners.append(path)
        if any(e.type == "file" and notable_role(e.name) == "manifest" for e in listing.entries):
            break
    return owners


def kept_for(
    owners: Sequence[str], in_test_roots: Sequence[str], listing_of: Callable[[str], DirListing | None]
) -> list[str]:
    """The folders holding the tests of ``owners`` by their names: in a test root (``in_test_roots``:
    the folders the test roots up the path hold) or beside an owner (``src/AutoFixtureUnitTest`` beside
    ``src/AutoFixture``, a test affix required there)."""
    found: list[str] = []
    for owner in owners:
        parent = listing_of(posixpath.dirname(owner))
        beside = [e.path for e in parent.entries if e.type == "dir"] if parent is not None else []
        names = [posixpath.basename(p) for p in beside]
        found += kept_tests(owner, in_test_roots, names, by_first_word=True)
        found += [
            p for p in kept_tests(owner, [b for b in beside if b != owner], names) if _affixed(owner, p)
        ]
        if posixpath.basename(posixpath.dirname(owner)) == "src":  # a source set: jvmTest beside jvmMain
            found += [b for b in beside if b != owner and _name_key(posixpath.basename(b)).endswith("test")]
    return list(dict.fromkeys(found))


def source_set_mirror(folder: str) -> tuple[str, str] | None:
    """The test source set of a Maven/Gradle folder: (its root, the folder's mirror in it), e.g.
    ``gson/src/main/java/x`` → (``gson/src/test``, ``gson/src/test/java/x``), ``core/commonMain/src`` →
    (``core/commonTest``, ``core/commonTest/src``); None outside a ``main`` source set."""
    parts = folder.split("/")
    at = next(
        (
            i
            for i in range(len(parts) - 1, -1, -1)
            if parts[i] == "main" or (parts[i].endswith("Main") and len(parts[i]) > 4)
        ),
        -1,
    )
    if at < 0:
        return None
    mirror = "test" if parts[at] == "main" else parts[at][:-4] + "Test"
    root = "/".join([*parts[:at], mirror])
    return root, "/".join([*parts[:at], mirror, *parts[at + 1 :]])


def _affixed(owner: str, path: str) -> bool:
    """``path``'s name is ``owner``'s with a test affix (not the same name, nor a bare singular "test":
    ``tokio-test`` beside ``tokio`` is a crate of test helpers, ``Foo.Tests`` a test project)."""
    key, own = _name_key(posixpath.basename(path)), _name_key(posixpath.basename(owner))
    return key != own and key not in (own + "test", "test" + own, own + "spec")


def kept_tests(
    folder: str, candidates: Sequence[str], siblings: Sequence[str] = (), *, by_first_word: bool = False
) -> list[str]:
    """The folders of ``candidates`` (paths in a test root) that hold ``folder``'s tests by their name:
    ``tests/a`` for ``packages/a``, ``test/Foo.Tests`` and ``test/Foo.UnitTests`` for ``src/Foo``,
    ``tests/my_pkg`` for ``my-pkg`` (case, ``-``, ``_`` and ``.`` alike); and, when a sibling folder
    (``siblings``: the names beside it) shares its first word, by the rest of its name: ``tests/graph``
    for ``pydantic_graph`` beside ``pydantic_evals`` (``by_first_word``: by that first word too)."""
    name = folder.rpartition("/")[2]
    names = {_name_key(name)} - {""}
    first, sep, rest = _first_word(name)
    if sep and any(s != name and s.lower().startswith(first.lower() + sep) for s in siblings):
        names.add(_name_key(rest))
        if by_first_word:  # in a test root: AutoGen.Tests for AutoGen.Core beside AutoGen.OpenAI
            names.add(_name_key(first))
    names.discard("")
    found = []
    for path in candidates:
        key = _name_key(path.rpartition("/")[2])
        if any(
            key == own
            or any(
                (key.endswith(a) and key[: -len(a)] == own) or (key.startswith(a) and key[len(a) :] == own)
                for a in _TEST_AFFIXES
            )
            for own in names
        ):
            found.append(path)
    return sorted(found)


def _first_word(name: str) -> tuple[str, str, str]:
    """``pydantic_graph`` → (``pydantic``, ``_``, ``graph``); no separator: (name, "", "")."""
    at = next((i for i, c in enumerate(name) if c in "-_."), -1)
    return (name[:at], name[at], name[at + 1 :]) if at > 0 else (name, "", "")


def in_test_root(path: str, folder: str) -> bool:
    """Whether ``path`` lies in a test root (``tests/a``) outside ``folder``."""
    if path == folder or path.startswith(f"{folder}/") or folder.startswith(f"{path}/"):
        return False
    return any(part.lower() in TEST_ROOTS for part in path.split("/")[:-1])


def _name_key(name: str) -> str:
    return "".join(c for c in name.lower() if c not in "-_.")


TOP_TEST_DIRS = ("tests", "test", "__tests__", "e2e", "integration-tests", "spec")


def main_tests_dir(model: RepoModel) -> str | None:
    """The project's test folder when it has one at the top level (``tests/``, ``e2e/``...): a test
    folder of the model, or a top-level folder mostly of tests. Never a stray folder deep inside."""
    top_tests = [d for d in model.tests.dirs if "/" not in d.removeprefix(f"{model.root}/")]
    top_tests += [
        f"{model.root}/{t.name}" if model.root else t.name for t in model.top_level if t.role == "tests"
    ]
    ranked = sorted(dict.fromkeys(top_tests), key=lambda d: (_rank(d.rsplit("/", 1)[-1]), d))
    return ranked[0] if ranked else None


def _rank(name: str) -> int:
    return TOP_TEST_DIRS.index(name) if name in TOP_TEST_DIRS else len(TOP_TEST_DIRS)
