"""The architecture diagram built without a model: from the tree (packages, tests, docs, CI, entry points,
examples and tooling) and from the imports among the files that were read.

Components are folders (or, for an entry point, a file) that exist in the tree. Packages are the
top-level folders that hold code (one level down under ``src/``, ``lib/``, ``packages/``, ``cmd/``...);
when a single package holds the code, its sub-packages are shown instead. Relations: what the imports of
the files read show (Python ``import``/``from`` with relative imports resolved, JavaScript/TypeScript
relative ``import``/``require``, Go import paths; other languages add none), tests to what they test, CI
to the tests it runs, docs, examples and tooling to the main package, an entry point to its package.
Pure functions over :class:`~agent_core.report.facts.Facts`.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections import Counter
from collections.abc import Iterator, Sequence
from types import MappingProxyType
from urllib.parse import quote

from agent_core.events import Component, Relation
from agent_core.repomodel import derived
from agent_core.report.diagram import MAX_NODES, Graph, cap
from agent_core.report.facts import Facts
from agent_core.report.path_index import index_of, suffixes
from agent_core.words import Words


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


CODE_EXTENSIONS = _word_set(
    ".py .pyi .js .jsx .mjs .cjs .ts .tsx .go .rs .java .kt .scala .rb .php .c .h .cc .cpp .hpp .cs "
    ".swift .m .ex .exs .erl .hs .ml .lua .dart .vue .svelte .clj .jl .r .zig .nim"
)
_CONTAINERS = frozenset({"src", "lib", "packages", "crates", "cmd", "pkg", "internal", "apps", "modules"})
_SKIP = frozenset({"vendor", "node_modules", "third_party", "third-party", "build", "dist", "target", "out"})
_SPECIAL = MappingProxyType(  # by name; tests, docs and examples come from the repository model
    {
        **dict.fromkeys(("tests", "test", "spec", "__tests__"), "tests"),
        **dict.fromkeys(("docs", "doc", "documentation"), "docs"),
        **dict.fromkeys(("examples", "example", "samples"), "examples"),
        **dict.fromkeys(("scripts", "tools", "bin"), "tooling"),
        **dict.fromkeys(("benchmarks", "bench", "benches"), "benchmarks"),
    }
)
_ENTRY_NAMES = _word_set(
    "__main__.py main.py app.py cli.py manage.py wsgi.py asgi.py server.py main.go main.rs "
    "index.js index.ts main.js main.ts server.js server.ts"
)
_PACKAGE_ENTRY_NAMES = frozenset({"__main__.py", "cli.py", "main.py", "main.go", "main.rs"})  # in a package
_MAX_ENTRIES = 3
_COMMIT = re.compile(r"[0-9a-f]{40}")


def tree_graph(facts: Facts, words: Words) -> Graph:
    """The deterministic diagram of one repository (no components when no file path is known): the
    packages first, then tests, docs and CI, then entry points, then examples and tooling, as many of the
    last two kinds as leave room under the node cap."""
    packages = _packages(facts)
    main = packages[0] if packages else None
    entries = [Component(name=p, path=p, role=words("diagram_entry")) for p in _entry_points(facts, packages)]
    relations = _import_relations(facts, packages, [e.path for e in entries], words)
    for entry in entries:
        owner = _owner(entry.path, packages) or main
        if owner is not None and not any(r.source == entry.path for r in relations):
            relations.append(Relation(source=entry.path, target=owner, label=words("diagram_starts")))
    tested = {r.source for r in relations}
    kept: list[Component] = []
    extras: list[Component] = []
    for path, kind in _special(facts):
        role = words(f"role_{kind}") if words.has(f"role_{kind}") else kind
        component = Component(name="CI" if kind == "ci" else _name(path), path=path, role=role)
        (kept if kind in ("tests", "docs", "ci") else extras).append(component)
        if kind == "ci":
            relations.append(
                Relation(source=path, target=facts.tests_dir or main or path, label=words("diagram_runs"))
            )
        elif kind == "tests" and path not in tested:
            roots = [p for p in packages if _owner(p, [q for q in packages if q != p]) is None]
            relations += [Relation(source=path, target=p, label=words("diagram_tests")) for p in roots[:3]]
        elif main is not None and kind != "tests":
            label = words("diagram_documents") if kind == "docs" else words("diagram_uses")
            relations.append(Relation(source=path, target=main, label=label))
    linked = {p for r in relations for p in (r.source, r.target)}
    for package in packages:  # a sub-package nothing read links: at least its place
        parent = _owner(package, [q for q in packages if q != package])
        if parent is not None and package not in linked:
            relations.append(Relation(source=package, target=parent, label=words("diagram_part_of")))
    shown = {*packages, *(c.path for c in kept)}
    tree = facts.evidence.tree
    partial = [f.path for f in (tree.top_level if tree else ()) if not f.complete and f.path not in shown]
    kept += [
        Component(name=_name(p), path=p, role=words("diagram_cut")) for p in partial
    ]  # named, though cut
    room = max(1, MAX_NODES - len(packages) - len(kept))
    entries = entries[:room]
    extras = extras[: max(0, room - len(entries))]
    components = [Component(name=_name(p), path=p, role=words("diagram_package")) for p in packages]
    graph = Graph(
        repo=facts.evidence.repo.full_name,
        source="tree",
        components=(*components, *kept, *entries, *extras),
        relations=tuple(relations),
        commit=analysed_commit(facts),
        link_base=repository_url(facts),
        root=facts.evidence.root,
    )
    return cap(graph)


def analysed_commit(facts: Facts) -> str | None:
    """The analysed commit (the newest fetched, else the tree's when it is a commit), for permalinks."""
    commits = facts.evidence.commits
    if commits is not None and commits.commits and _COMMIT.fullmatch(commits.commits[0].sha or ""):
        return commits.commits[0].sha
    tree = facts.evidence.tree
    return tree.ref if tree is not None and _COMMIT.fullmatch(tree.ref or "") else None


def repository_url(facts: Facts) -> str | None:
    """``https://github.com/OWNER/REPO`` for a GitHub repository, None for a local one."""
    info = facts.evidence.info
    if facts.link_base is None or info is None:
        return None
    return f"https://github.com/{quote(info.full_name, safe='/')}"


# -- the tree ----------------------------------------------------------------------------------------------


def _is_code(path: str) -> bool:
    return posixpath.splitext(path)[1].lower() in CODE_EXTENSIONS


def _is_code_name(name: str) -> bool:
    """:func:`_is_code` of a file name (``posixpath.splitext``'s rule: the last dot, after a character
    other than a dot), without the path's split."""
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in CODE_EXTENSIONS and name[:dot].lstrip(".") != ""


def _ancestors(folder: str) -> Iterator[str]:
    """``folder`` and the folders above it (``a/b`` → ``a/b``, ``a``); none for the root ``""``."""
    while folder:
        yield folder
        folder = posixpath.dirname(folder)


def _packages(facts: Facts) -> list[str]:
    """:func:`_find_packages`, once per tree and model (a 100,000-entry tree's packages are found in a
    second of CPU; the report and the diagram event both draw the tree's diagram)."""
    tree, model = facts.evidence.tree, facts.model
    if tree is None or model is None:  # folder listings: a few paths
        return _find_packages(facts)
    return list(derived(tree, ("diagram_packages", id(model)), lambda: tuple(_find_packages(facts))))


def _find_packages(facts: Facts) -> list[str]:
    """Folders that hold code and are not tests, docs, tooling...: top level (one down in containers),
    most code first; with three or fewer, the main one's code folders are shown instead of it (and it
    too, when it has code of its own)."""
    source_dirs, own_code, code_dirs = _code_folders(facts)
    with_code = {a for d in source_dirs for a in _ancestors(d)}  # one pass, not folders × code folders
    counts: dict[str, int] = {}  # own code files under each folder
    for folder, n in own_code.items():
        for above in _ancestors(folder):
            counts[above] = counts.get(above, 0) + n
    children: dict[str, list[str]] = {}
    for d in facts.dirs:
        children.setdefault(posixpath.dirname(d), []).append(d)

    def candidates(folders: Sequence[str]) -> list[str]:
        return [d for d in folders if d in with_code and not _ignored(d.rsplit("/", 1)[-1])]

    def code_files(folder: str) -> int:
        return counts.get(folder, 0)

    top = [d for d in facts.dirs if "/" not in d]
    found: list[str] = []
    for folder in candidates(top):
        inner = candidates(children.get(folder, []))
        found += inner if folder.lower() in _CONTAINERS and inner else [folder]
    found.sort(key=lambda p: (-code_files(p), p))
    if found and len(found) <= 3:  # few packages: the main one's inside says more
        inner = candidates(children.get(found[0], []))
        if len(inner) >= 2:
            own = found[0] in code_dirs
            inner.sort(key=lambda p: (-code_files(p), p))
            found = [*([found[0]] if own else []), *inner, *found[1:]]
    return found[:MAX_NODES]


def _code_folders(facts: Facts) -> tuple[set[str], Counter[str], set[str]]:
    """In one pass over the files: the folders holding the project's own source (not vendored,
    generated, tests, docs or examples), the own code files (not vendored or generated) in each folder,
    and the folders holding any code file."""
    model = facts.model
    source_dirs: set[str] = set()
    own_code: Counter[str] = Counter()
    code_dirs: set[str] = set()
    for p in facts.paths:
        folder, _, name = p.rpartition("/")
        if not _is_code_name(name):
            continue
        code_dirs.add(folder)
        role = model.role_of(p) if model is not None else "source"
        if role == "source":
            source_dirs.add(folder)
        if role not in _NOT_OWN:
            own_code[folder] += 1
    return source_dirs, own_code, code_dirs


_NOT_OWN = frozenset({"vendored", "generated"})


def _ignored(name: str) -> bool:
    low = name.lower()
    return (low.startswith((".", "_")) and low != "__tests__") or low in _SKIP or low in _SPECIAL


def _special(facts: Facts) -> Iterator[tuple[str, str]]:
    """(path, kind) of the tests, docs, examples, tooling, benchmarks folders and the CI configuration:
    the tests, docs and examples the repository model found (its test summary: the project's test folder,
    never a stray ``spec/`` deep inside), tooling and benchmarks by their folder's name."""
    if facts.tests_dir:
        yield facts.tests_dir, "tests"
    if facts.docs_dir:
        yield facts.docs_dir, "docs"
    model = facts.model
    examples = [t.name for t in model.top_level if t.role == "examples"] if model is not None else []
    for folder in (d for d in facts.dirs if "/" not in d):
        kind = "examples" if folder in examples else _SPECIAL.get(folder.lower())
        if kind in ("tooling", "benchmarks") or (
            kind == "examples" and (model is None or folder in examples)
        ):
            yield folder, kind
    ci = facts.ci or ()
    if ci:
        folder = posixpath.dirname(ci[0])
        yield (folder if folder in facts.dirs else ci[0]), "ci"


def _entry_points(facts: Facts, packages: Sequence[str]) -> list[str]:
    """Files that start the program: declared scripts of a pyproject.toml read, then well-known names at
    the top level (``app.py``, ``index.js``...) or at a package's top (``__main__.py``, ``cli.py``...)."""
    declared = list(_declared_scripts(facts))
    tree, model = facts.evidence.tree, facts.model
    if tree is None or model is None:  # folder listings: a few paths
        found = _entry_names(facts.paths, packages)
    else:  # the packages are the tree's and the model's (_packages): once per tree and model
        key = ("diagram_entry_names", id(model))
        found = derived(tree, key, lambda: _entry_names(facts.paths, packages))
    named = [p for p in found if p not in declared]
    return (declared + named)[:_MAX_ENTRIES]


def _entry_names(paths: Sequence[str], packages: Sequence[str]) -> tuple[str, ...]:
    """Well-known entry-point names at the top level or at a top package's top, shallowest first."""
    tops = {"", *(p for p in packages if _owner(p, [q for q in packages if q != p]) is None)}
    named = [
        p
        for p in paths
        if (split := p.rpartition("/"))[0] in tops  # dirname and basename of a tree's path
        and split[2] in (_ENTRY_NAMES if not split[1] else _PACKAGE_ENTRY_NAMES)
    ]
    return tuple(sorted(named, key=lambda p: (p.count("/"), p)))


def _declared_scripts(facts: Facts) -> Iterator[str]:
    read = facts.evidence.files.get("pyproject.toml")
    if read is None or read.text is None or read.truncated:
        return
    try:
        scripts = tomllib.loads(read.text).get("project", {}).get("scripts", {})
    except tomllib.TOMLDecodeError:
        return
    known = set(facts.paths)
    for target in scripts.values() if isinstance(scripts, dict) else ():
        module = str(target).split(":", 1)[0].strip().replace(".", "/")
        for path in (f"{module}.py", f"{module}/__main__.py", f"src/{module}.py", f"{module}/__init__.py"):
            if path in known:
                yield path
                break


# -- imports among the files read -----------------------------------------------------------------------

_PY_IMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+import\s|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))", re.M)
_JS_IMPORT = re.compile(r"""(?:\bfrom\s*|\brequire\(\s*|\bimport\(?\s*)["'](\.{1,2}/[^"'\n]+)["']""")
_GO_IMPORT = re.compile(r'^\s*(?:import\s+)?(?:[\w.]+\s+)?"([\w.\-/]+)"\s*$', re.M)


def _import_relations(
    facts: Facts, packages: Sequence[str], entries: Sequence[str], words: Words
) -> list[Relation]:
    """``imports`` arrows between the components that the files read show (most imports first)."""
    owners = [*packages, *entries, *(d for d, _kind in _special(facts))]
    counts: Counter[tuple[str, str]] = Counter()
    for path, content in facts.evidence.files.items():
        source = _owner(path, owners) or (path if _is_code(path) and "/" not in path else None)
        if content.text is None or source is None:
            continue
        for target in _imported(path, content.text, facts):
            owner = _owner(target, packages)
            if owner is not None and owner != source:
                counts[(source, owner)] += 1
    label = {d: words("diagram_tests") for d, kind in _special(facts) if kind == "tests"}
    return [
        Relation(source=s, target=t, label=label.get(s, words("diagram_imports")))
        for (s, t), _n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def _imported(path: str, text: str, facts: Facts) -> Iterator[str]:
    """Tree paths (folders or module paths) that a file's imports name."""
    ext = posixpath.splitext(path)[1].lower()
    folder = posixpath.dirname(path)
    if ext in (".py", ".pyi"):
        for relative, plain in _PY_IMPORT.findall(text):
            for module in [relative] if relative else plain.split(","):
                yield from _python_module(module.strip(), folder)
    elif ext in (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".vue", ".svelte"):
        for target in _JS_IMPORT.findall(text):
            yield posixpath.normpath(posixpath.join(folder, target))
    elif ext == ".go":
        for target in _GO_IMPORT.findall(text):
            dirs = _dir_set(facts)  # a lookup per suffix, not a scan of every folder per import
            yield from sorted(d for d in suffixes(target) if d in dirs)


def _dir_set(facts: Facts) -> set[str]:
    return index_of(facts).derived("dirs", lambda: set(facts.dirs))  # type: ignore[return-value]


def _python_module(module: str, folder: str) -> Iterator[str]:
    dots = len(module) - len(module.lstrip("."))
    name = module[dots:].replace(".", "/")
    if dots:
        base = folder
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        yield posixpath.join(base, name) if name else base
    elif name:
        yield name
        yield f"src/{name}"


def _owner(path: str, folders: Sequence[str]) -> str | None:
    """The deepest of ``folders`` that is ``path`` or holds it."""
    holders = [f for f in folders if path == f or path.startswith(f + "/")]
    return max(holders, key=len, default=None)


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]
