"""Which programming language a file is written in, and bytes per language, as GitHub's language bar.

For sources that have no languages endpoint (a local git repository): GitHub Linguist's own data, asked
of go-enry (:mod:`agent_core.repomodel.linguist`), by file name and extension, without content (a tree
has none): of several candidates for an extension (``.cs``: C# or Smalltalk) the one whose primary
extension it is, else Linguist's first; ``.h`` headers go with the C-family language of the other files
(Linguist reads their content). Like GitHub's ``/languages``
it counts programming and markup languages only (Linguist's types): prose (Markdown, Text), data (JSON,
YAML, TOML, lock files) and images are not counted, unless ``.gitattributes`` says
``linguist-detectable``; ``linguist-detectable=false`` leaves a file out and ``linguist-language=NAME``
names its language. Languages are summed by Linguist's ``group`` (TSX is TypeScript). Vendored, generated
and documentation paths are left out, by the repository model's rules (Linguist's, and its
``.gitattributes`` overrides). One enry question per distinct extension or file name, memoised.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

from agent_core.repomodel import (
    RootContext,
    build_repo_model,
    linguist,
    model_of,
    parse_gitattributes,
    role_by_convention,
)
from agent_core.repomodel.attributes import Overrides
from agent_core.sources.models import FileTree

#: Linguist's ``group:`` of the languages a repository of code holds (go-enry's ``data/groups.go``;
#: the Python bindings do not expose it): the language bar sums a group under its name.
_GROUPS: Mapping[str, str] = MappingProxyType(
    {
        "TSX": "TypeScript",
        "Glimmer JS": "JavaScript",
        "Glimmer TS": "TypeScript",
        "JavaScript+ERB": "JavaScript",
        "HTML+ECR": "HTML",
        "HTML+EEX": "HTML",
        "HTML+ERB": "HTML",
        "HTML+PHP": "HTML",
        "HTML+Razor": "HTML",
        "Java Server Pages": "Java",
        "Java Template Engine": "Java",
        "Gradle Kotlin DSL": "Gradle",
        "Groovy Server Pages": "Groovy",
        "RBS": "Ruby",
        "PostCSS": "CSS",
        "Tcsh": "Shell",
        "Alpine Abuild": "Shell",
        "Gentoo Ebuild": "Shell",
        "OpenCL": "C",
        "Unified Parallel C": "C",
        "Unix Assembly": "Assembly",
        "Motorola 68K Assembly": "Assembly",
        "Roff Manpage": "Roff",
        "Literate Haskell": "Haskell",
        "Literate CoffeeScript": "CoffeeScript",
        "Snakemake": "Python",
        "NumPy": "Python",
        "Fortran Free Form": "Fortran",
        "Bison": "Yacc",
        "Lean 4": "Lean",
    }
)
_COUNTED_TYPES = frozenset({"programming", "markup"})
_NOT_COUNTED = frozenset({"vendored", "generated", "docs"})  # Linguist leaves these out of the statistics

LANGUAGE_NAMES: frozenset[str] = frozenset(
    {
        *("Python", "JavaScript", "TypeScript", "Rust", "Go", "Java", "Kotlin", "Scala", "Groovy", "C"),
        *("C++", "C#", "F#", "Objective-C", "Objective-C++", "Swift", "Ruby", "PHP", "Perl", "Lua", "R"),
        *("Julia", "Dart", "Elixir", "Erlang", "Haskell", "OCaml", "Clojure", "Zig", "Nim", "Shell"),
        *("PowerShell", "Batchfile", "HTML", "CSS", "SCSS", "Sass", "Less", "Vue", "Svelte", "Dockerfile"),
        *("Makefile", "CMake", "HCL", "Solidity", "TeX", "Cython", "Jupyter Notebook", "Visual Basic .NET"),
        *("Starlark", "Assembly", "Fortran", "MATLAB", "Elm", "CoffeeScript", "Crystal", "D", "V", "Gradle"),
    }
)
"""Language names a report may name (for the claim check), as Linguist spells them."""


@lru_cache(maxsize=1 << 15)
def _counted_language(name: str) -> str | None:
    language = linguist.language_of(name)
    if language is None or linguist.language_type(language) not in _COUNTED_TYPES:
        return None
    return _GROUPS.get(language, language)


def language_for(path: str) -> str | None:
    """The language GitHub's bar would count ``path`` under, by its name (None: not counted: prose,
    data, images, or unknown to Linguist)."""
    return _counted_language(path.rpartition("/")[2])


@lru_cache(maxsize=256)
def _resolved(value: str) -> tuple[str, str] | None:
    """A ``linguist-language`` value as Linguist names the language (``Objective-C``, or
    ``Protocol-Buffer`` for "Protocol Buffer") and its type, or None when Linguist knows no such name
    (its lower-case aliases, ``cpp``, ``objective-c``, are not in go-enry's Python bindings: such a
    line is left out, and the file counted by its name)."""
    for name in (value, value.replace("-", " ")):
        kind = linguist.language_type(name)
        if kind:
            return _GROUPS.get(name, name), kind
    return None


def _language(path: str, overrides: Overrides | None) -> str | None:
    if overrides is None:
        return language_for(path)
    forced = overrides.of(path).get("detectable")
    if forced is False:
        return None
    named = overrides.language(path)
    resolved = _resolved(named) if named else None
    if resolved is not None:
        language, kind = resolved
        return language if forced or kind in _COUNTED_TYPES else None
    if forced:  # detectable whatever its type (a data or prose language)
        found = linguist.language_of(path.rpartition("/")[2])
        return _GROUPS.get(found, found) if found else None
    return language_for(path)


def is_vendored(path: str) -> bool:
    """True for paths GitHub would not count as the project's code: vendored or generated by the
    repository model's rules (``vendor/``, ``node_modules/``, ``third_party/``, ``dist/`` at any depth,
    minified files, lock files, protocol buffers...)."""
    return role_by_convention(path) in ("vendored", "generated")


class _File(NamedTuple):
    """A file as the repository model reads it (a tuple: a 100,000-file count builds 100,000 of them)."""

    path: str
    type: str
    size: int


def _sorted(totals: dict[str, int]) -> dict[str, int]:
    return dict(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))


_HEADER_OWNERS = ("C++", "Objective-C", "Objective-C++", "C")


def _with_headers(
    totals: dict[str, int], headers: int, around: Mapping[str, int] | None = None
) -> dict[str, int]:
    """``totals`` with the bytes of ``.h`` headers added to the C-family language the other files are
    written in (most bytes among C++, Objective-C, Objective-C++ and C; C when none): Linguist tells a
    header's language by its content, which a tree does not carry, and a header is written in the
    language of the sources it serves (fmt's ``include/fmt/*.h`` are C++, not C). ``around``: the bytes per
    language of the whole repository, for a folder of headers alone."""
    if headers:
        wider = around or {}
        owner = max(
            _HEADER_OWNERS,
            key=lambda language: (totals.get(language, 0), wider.get(language, 0), language == "C"),
        )
        totals[owner] = totals.get(owner, 0) + headers
    return _sorted(totals)


def _header(path: str, language: str | None) -> bool:
    return language == "C" and path[-2:].lower() == ".h"


def count_languages(files: Iterable[tuple[str, int]], *, gitattributes: str | None = None) -> dict[str, int]:
    """Bytes per language over ``(path, size in bytes)`` pairs, largest first.

    Files that are not counted (:func:`language_for` is None) are skipped, and so are those Linguist
    leaves out: vendored, generated and documentation, as the repository model (one pass) assigns roles,
    with the ``.gitattributes`` overrides when its text is given.
    """
    pairs = list(files)
    entries = [_File(path, "file", size) for path, size in pairs]
    model = build_repo_model(entries, context=RootContext(gitattributes=gitattributes))
    overrides = parse_gitattributes(gitattributes) or None
    totals: dict[str, int] = {}
    headers = 0
    for path, size in pairs:
        if model.role_of(path) in _NOT_COUNTED:
            continue
        language = _language(path, overrides)
        if _header(path, language):
            headers += size
        elif language is not None:
            totals[language] = totals.get(language, 0) + size
    return _with_headers(totals, headers)


def tree_languages(
    tree: FileTree, *, gitattributes: str | None = None, around: Mapping[str, int] | None = None
) -> dict[str, int]:
    """:func:`count_languages` of a tree's files (symlinks and submodules are not files), their roles
    read from the tree's own repository model (:func:`model_of`: built once per tree, and shared with
    everything else that asks) instead of a model built for the count alone."""
    model = model_of(tree, RootContext(gitattributes=gitattributes))
    overrides = parse_gitattributes(gitattributes) or None
    totals: dict[str, int] = {}
    headers = 0
    for entry in tree.entries:
        if entry.type != "file":
            continue
        path = entry.path
        if model.role_of(path) in _NOT_COUNTED:
            continue
        language = _language(path, overrides)
        if _header(path, language):
            headers += entry.size or 0
        elif language is not None:
            totals[language] = totals.get(language, 0) + (entry.size or 0)
    return _with_headers(totals, headers, around)
