"""Where a file sits and what its name says: the contexts the repository model's one pass reads.

Each folder's context (inside a vendored root? test data? a test folder? examples? documentation? a CI
folder? a source folder?) is computed once, from its parent's, and memoised; what Linguist and our
layer say of a folder's name in its place is computed once per folder key (its last two segments), and
what a file's name says once per distinct name (memoised across trees). The rules are
:mod:`~agent_core.repomodel.conventions` (ours) and :mod:`~agent_core.repomodel.linguist` (Linguist's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from agent_core.repomodel import conventions as cv
from agent_core.repomodel import linguist
from agent_core.repomodel.attributes import Attribute
from agent_core.repomodel.ci import CI_DIRS, ci_file
from agent_core.repomodel.packages import MANIFEST_KINDS, manifest_ecosystem


@dataclass(frozen=True, slots=True)
class _Folder:
    """What a folder's place says about every file inside it."""

    top: str | None = None  # the top-level folder (of the model's root) holding it; None: the root
    vendored: str | None = None  # the vendored root holding it
    generated: bool = False
    test_dir: str | None = None  # the test folder holding it
    test_label: str | None = None
    fixtures: str | None = None  # the fixtures folder holding it (test data)
    spec: bool = False  # inside Ruby's spec/: its .rb files are tests
    source: bool = False  # inside a source folder (src/, lib/) not under a test folder
    examples: str | None = None  # the outermost examples folder holding it
    docs: str | None = None  # the documentation folder holding it
    ci: str | None = None  # the CI system whose folder holds it
    config: bool = False  # inside .github/ (not its workflows): the repository's configuration


class _Name(NamedTuple):
    """What a file's name alone says (computed once per distinct name, and place: root or below)."""

    vendored: bool
    generated: bool
    test: str | None  # the test convention's label
    class_test: str | None  # a class-name test convention (tests outside source folders)
    ruby: bool
    docs: bool
    build: bool
    ci: str | None  # the CI system, when the file is at the repository's root
    manifest: bool  # a package manifest (go.mod, NAME.gemspec...)


class _Extension(NamedTuple):
    """What a file's last extension alone allows (computed once per extension): which of the name's
    rules can apply at all, so a name such as ``handler.go`` costs a few set lookups."""

    asks: bool  # a Linguist name rule may name it (:func:`linguist.name_says` decides)
    asks_after_dot: bool  # ... with the extension before it (``.d.ts``, ``.designer.cs``)
    prose: bool  # a prose language's (Markdown, Text...)
    build: bool  # ends a build or manifest suffix (``.csproj``, ``.versions.toml``)
    generated: bool  # ends a generated suffix (``.pb.go``, ``_pb2.py``, ``.js.map``)
    test: bool  # a language with a test naming convention (Go, Python, JavaScript, Ruby)
    class_test: bool  # a language with a class-name test convention (Java, PHP, C#...)


def _last(suffixes: tuple[str, ...]) -> frozenset[str]:
    return frozenset(s.rpartition(".")[2] for s in suffixes)


_ASKS = (
    linguist.VENDOR_EXTENSIONS
    | linguist.SCRIPT_EXTENSIONS
    | linguist.GENERATED_EXTENSIONS
    | linguist.LOCK_EXTENSIONS
)
_ASKS_AFTER_DOT = _last(tuple(linguist.VENDOR_AFTER_DOTS | linguist.GENERATED_AFTER_DOTS))
_DOUBLES = linguist.VENDOR_AFTER_DOTS | linguist.GENERATED_AFTER_DOTS
_TEST_EXTENSIONS = frozenset({"go", "py", "rb", "js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"})
_EXTENSIONS: dict[str, _Extension] = {}  # at most 4096: extensions are the repository's


def _extension(ext: str) -> _Extension:
    found = _EXTENSIONS.get(ext)
    if found is None:
        if len(_EXTENSIONS) >= 4096:
            _EXTENSIONS.clear()
        found = _EXTENSIONS[ext] = _Extension(
            asks=not ext or ext in _ASKS,
            asks_after_dot=ext in _ASKS_AFTER_DOT,
            prose=bool(ext) and linguist.prose(f"x.{ext}", f"x.{ext}"),
            build=ext in _BUILD_EXTENSIONS,
            generated=ext in _GENERATED_EXTENSIONS,
            test=ext in _TEST_EXTENSIONS,
            class_test=ext in _CLASS_TEST_EXTENSIONS,
        )
    return found


@lru_cache(maxsize=1 << 17)
def _name_facts(name: str, at_root: bool) -> _Name:
    lower = name.lower()
    dot, last = lower.find("."), lower.rfind(".")
    kind = _extension(lower[last + 1 :] if dot > 0 else "")
    says = (
        linguist.name_says(name, at_root, lower)
        if kind.asks
        or (last != dot and kind.asks_after_dot and lower[lower.rfind(".", 0, last) + 1 :] in _DOUBLES)
        or lower.startswith(linguist.DOC_STEMS)
        else linguist.NOTHING
    )
    build = (
        lower in _BUILD_NAMES
        or (kind.build and lower.endswith(_BUILD_SUFFIXES))
        or (lower.startswith(_BUILD_STARTS) and cv.build_name(lower))
    )
    generated = (
        says.generated
        or (kind.generated and lower.endswith(cv.GENERATED_SUFFIXES))
        or lower in cv.LOCK_NAMES
        or lower.startswith(cv.GENERATED_PREFIXES)
    )
    return _Name(
        vendored=says.vendored and lower not in cv.NOT_VENDORED_NAMES,
        generated=generated,
        test=cv.test_name(name) if kind.test else None,
        class_test=cv.class_test_name(name)
        if kind.class_test and name.endswith(cv.CLASS_TEST_SUFFIXES)
        else None,
        ruby=lower.endswith(".rb"),
        docs=says.documentation or (kind.prose and not build and linguist.prose(name, lower)),
        build=build,
        ci=ci_file(lower) if at_root else None,
        manifest=build and manifest_ecosystem(name) is not None,  # every manifest is build configuration
    )


_MANIFEST_SUFFIXES = tuple(k.key for k in MANIFEST_KINDS if k.key.startswith("."))
_BUILD_NAMES = cv.BUILD_NAMES | {k.key for k in MANIFEST_KINDS if not k.key.startswith(".")}
_BUILD_SUFFIXES = cv.BUILD_SUFFIXES + _MANIFEST_SUFFIXES
_BUILD_STARTS = cv.BUILD_PREFIXES + cv.BUILD_CONFIG_STEMS
_BUILD_EXTENSIONS = _last(_BUILD_SUFFIXES)
_GENERATED_EXTENSIONS = _last(cv.GENERATED_SUFFIXES)
_CLASS_TEST_EXTENSIONS = _last(cv.CLASS_TEST_SUFFIXES)


class Folders:
    """Folder contexts, computed once per folder from the parent's; what Linguist and our layer say of
    a folder's name in its place is computed once per :func:`~agent_core.repomodel.linguist.folder_key`
    (its last two segments), so a tree repeating a layout asks once."""

    def __init__(self, root: str, *, above: str = "") -> None:
        self._root = root
        self._above = above  # a tree re-rooted at a folder: where its root stands in the repository
        # a folder report on tests or examples (phpunit's tests/end-to-end, vite's playground): their
        # vendor/ and external/ folders are test data, as they are in the whole repository's report
        segments = above.lower().split("/") if above else []
        self._sheltered = any(cv.test_dir_label("", s) or cv.example_dir(s, True) for s in segments)
        self.known: dict[str, _Folder] = {root: _Folder()}
        if root:  # the repository's root, above the model's: only its conventions matter
            self.known[""] = _Folder()
        self._said: dict[str, tuple[linguist.Says, bool]] = {}

    def get(self, path: str) -> _Folder:
        found = self.known.get(path)
        if found is None:
            parent, _, name = path.rpartition("/")
            up = self.get(parent)
            if parent == self._root or not parent:
                top = name if parent == self._root else up.top
                says = self._says(parent, name, path)[0]
                found = _child(
                    up,
                    top,
                    parent,
                    name,
                    path,
                    says=says,
                    at_top=parent == self._root,
                    sheltered=self._sheltered,
                )
            elif up.fixtures or (up.vendored and up.ci is None):
                found = up  # inside test data or vendored code, nothing below changes the role
            else:
                says, telling = self._says(parent, name, path)
                # an ordinary folder inside another says nothing new: it shares its context
                found = (
                    _child(up, up.top, parent, name, path, says=says, at_top=False, sheltered=self._sheltered)
                    if telling
                    else up
                )
            self.known[path] = found
        return found

    def _says(self, parent: str, name: str, path: str) -> tuple[linguist.Says, bool]:
        # Linguist's rules anchored at the repository's root (``^[Dd]ependencies/``) read the whole path
        where = f"{self._above}/{parent}" if self._above and parent else self._above or parent
        key = linguist.folder_key(where, name)
        said = self._said.get(key)
        if said is None:
            says = cv.linguist_folder(where, name)
            telling = (
                says != _NOTHING
                or name in _OURS
                or name.lower() in cv.EXAMPLE_DIRS
                or path in CI_DIRS
                or cv.test_dir_label(parent.rpartition("/")[2], name) is not None
            )
            said = self._said[key] = (says, telling)
        return said


# Folder names of our layer that change a context below the top level.
_OURS = (
    cv.TEST_DIRS
    | cv.FIXTURE_DIRS
    | cv.GENERATED_DIRS
    | cv.SOURCE_DIRS
    | cv.BUNDLED_TEST_FRAMEWORKS
    | {cv.SPEC_DIR, ".github"}
)
_NOTHING = linguist.NOTHING


def _child(
    up: _Folder,
    top: str | None,
    parent: str,
    name: str,
    path: str,
    *,
    says: linguist.Says,
    at_top: bool,
    sheltered: bool = False,
) -> _Folder:
    if up.fixtures or up.vendored:
        says = _NOTHING
    label = None if up.test_dir or up.fixtures else cv.test_dir_label(parent.rpartition("/")[2], name)
    fixtures = up.fixtures or (path if cv.fixture_dir(name) else None)
    in_tests = up.test_dir or label
    vendored = None
    if not fixtures:
        bundled = in_tests and name in cv.BUNDLED_TEST_FRAMEWORKS
        # a vendor/ or external/ inside tests or an example is that test's or example's own content (a
        # fixture app's vendor/, vite's playground/external/), not code the project copied in
        named = says.vendored and not (in_tests or up.examples or sheltered)
        vendored = up.vendored or (path if named or bundled else None)
    if fixtures and not up.fixtures and not up.test_dir:
        label = f"{name}/"
    return _Folder(
        top=top,
        vendored=vendored,
        generated=not fixtures and (up.generated or says.generated or name in cv.GENERATED_DIRS),
        test_dir=up.test_dir or ((path if label else None) if not up.fixtures else None),
        test_label=up.test_label or label,
        fixtures=fixtures,
        spec=up.spec or (name == cv.SPEC_DIR and not in_tests),
        source=up.source or (name in cv.SOURCE_DIRS and not in_tests),
        examples=up.examples or (path if cv.example_dir(name, at_top) else None),
        docs=up.docs or (path if says.documentation else None),
        ci=up.ci or CI_DIRS.get(path),
        config=up.config or name == ".github",
    )


def _tests(folder: _Folder, facts: _Name) -> bool:
    return bool(
        folder.test_dir
        or folder.fixtures
        or facts.test
        or (facts.class_test and not folder.source)
        or (folder.spec and facts.ruby)
    )


def _role(folder: _Folder, facts: _Name, at_root: bool, forced: Mapping[Attribute, bool]) -> cv.Role:
    """The rules in order: fixtures (test data), vendored, generated, CI, tests, examples, docs, build,
    else source; a ``.gitattributes`` override sets (True) or clears (False) vendored, generated and
    documentation."""
    vendored, generated, docs = forced.get("vendored"), forced.get("generated"), forced.get("documentation")
    if vendored or (vendored is None and not folder.fixtures and (folder.vendored or facts.vendored)):
        return "vendored"
    if generated or (generated is None and not folder.fixtures and (folder.generated or facts.generated)):
        return "generated"
    if docs:
        return "docs"
    if folder.ci or (at_root and facts.ci):
        return "ci"
    if _tests(folder, facts):
        return "tests"
    if folder.config:
        return "build"
    if folder.examples:
        return "examples"
    if docs is None and (folder.docs or facts.docs):
        return "docs"
    return "build" if facts.build else "source"


def _fixed_role(folder: _Folder) -> cv.Role | None:
    """The role every file of a folder has whatever its name (no overrides): test data, vendored,
    generated."""
    if folder.fixtures:
        return "tests"
    if folder.vendored:
        return "vendored"
    return "generated" if folder.generated else None


def _plain_role(folder: _Folder, facts: _Name, at_root: bool) -> cv.Role:
    """:func:`_role` without overrides (the common case, kept apart for speed)."""
    if folder.fixtures:
        return "tests"
    if folder.vendored or facts.vendored:
        return "vendored"
    if folder.generated or facts.generated:
        return "generated"
    if folder.ci or (at_root and facts.ci):
        return "ci"
    if (
        folder.test_dir
        or facts.test
        or (facts.class_test and not folder.source)
        or (folder.spec and facts.ruby)
    ):
        return "tests"
    if folder.config:
        return "build"
    if folder.examples:
        return "examples"
    if folder.docs or facts.docs:
        return "docs"
    return "build" if facts.build else "source"


def forget_memos() -> None:
    """Empty the memos kept across trees: Linguist's answers and the facts of each file name (a cold
    measurement, as a new process: ``scripts/repomodel_cpu.py``)."""
    linguist.forget()
    _name_facts.cache_clear()
    _EXTENSIONS.clear()
    _EXTENSIONS.clear()
