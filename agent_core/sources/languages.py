"""Which programming language a file is written in, by its name, and bytes per language.

A deliberately modest version of GitHub's linguist, for sources that have no languages endpoint (a
local git repository). Like GitHub's ``/languages`` it counts code only: prose (Markdown, text),
configuration and data (JSON, YAML, TOML, lock files) and images map to ``None`` and are not counted.
Vendored or generated paths are skipped too, see :func:`is_vendored`. No content sniffing (shebangs,
``.h`` as C++): the name decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

# Read-only views: module state that cannot be mutated by accident.
_BY_EXTENSION = MappingProxyType(
    {
        ".py": "Python",
        ".pyi": "Python",
        ".pyx": "Cython",
        ".ipynb": "Jupyter Notebook",
        ".js": "JavaScript",
        ".mjs": "JavaScript",
        ".cjs": "JavaScript",
        ".jsx": "JavaScript",
        ".ts": "TypeScript",
        ".mts": "TypeScript",
        ".cts": "TypeScript",
        ".tsx": "TypeScript",
        ".rs": "Rust",
        ".go": "Go",
        ".java": "Java",
        ".kt": "Kotlin",
        ".kts": "Kotlin",
        ".scala": "Scala",
        ".groovy": "Groovy",
        ".c": "C",
        ".h": "C",
        ".cc": "C++",
        ".cpp": "C++",
        ".cxx": "C++",
        ".hh": "C++",
        ".hpp": "C++",
        ".hxx": "C++",
        ".cs": "C#",
        ".fs": "F#",
        ".m": "Objective-C",
        ".mm": "Objective-C++",
        ".swift": "Swift",
        ".rb": "Ruby",
        ".php": "PHP",
        ".pl": "Perl",
        ".pm": "Perl",
        ".lua": "Lua",
        ".r": "R",
        ".jl": "Julia",
        ".dart": "Dart",
        ".ex": "Elixir",
        ".exs": "Elixir",
        ".erl": "Erlang",
        ".hs": "Haskell",
        ".ml": "OCaml",
        ".clj": "Clojure",
        ".zig": "Zig",
        ".nim": "Nim",
        ".sh": "Shell",
        ".bash": "Shell",
        ".zsh": "Shell",
        ".ps1": "PowerShell",
        ".bat": "Batchfile",
        ".cmd": "Batchfile",
        ".html": "HTML",
        ".htm": "HTML",
        ".css": "CSS",
        ".scss": "SCSS",
        ".sass": "Sass",
        ".less": "Less",
        ".vue": "Vue",
        ".svelte": "Svelte",
        ".dockerfile": "Dockerfile",
        ".mk": "Makefile",
        ".cmake": "CMake",
        ".tf": "HCL",
        ".sol": "Solidity",
        ".tex": "TeX",
    }
)

_BY_FILENAME = MappingProxyType(
    {
        "dockerfile": "Dockerfile",
        "containerfile": "Dockerfile",
        "makefile": "Makefile",
        "gnumakefile": "Makefile",
        "cmakelists.txt": "CMake",
        "rakefile": "Ruby",
        "gemfile": "Ruby",
        "jenkinsfile": "Groovy",
    }
)

#: Path segments under which files are vendored or generated (matched at any depth, as linguist does).
VENDORED_DIRS = frozenset({"vendor", "node_modules", "third_party", "dist", "build"})

_MINIFIED_SUFFIXES = (".min.js", ".min.css")

LANGUAGE_NAMES: frozenset[str] = frozenset(
    {v for v in (*_BY_EXTENSION.values(), *_BY_FILENAME.values()) if v}
    | {
        "C#",
        "F#",
        "Objective-C",
        "Perl",
        "Lua",
        "Haskell",
        "Elixir",
        "Erlang",
        "Clojure",
        "Julia",
        "R",
        "Dart",
        "Zig",
    }
)
"""Every language name this module knows, and a few more a report may name (for the claim check)."""


def language_for(path: str) -> str | None:
    """The language of ``path`` by file name or extension (case-insensitive), or None if not code."""
    name = path.rsplit("/", 1)[-1].lower()
    if name in _BY_FILENAME:
        return _BY_FILENAME[name]
    if name.startswith("dockerfile."):
        return "Dockerfile"
    dot = name.rfind(".")
    if dot <= 0:  # no extension, or a dotfile such as ".bashrc"
        return None
    return _BY_EXTENSION.get(name[dot:])


def is_vendored(path: str) -> bool:
    """True for paths GitHub would not count: under a vendored/build directory, or minified."""
    *dirs, name = path.split("/")
    return any(d in VENDORED_DIRS for d in dirs) or name.lower().endswith(_MINIFIED_SUFFIXES)


def count_languages(files: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Bytes per language over ``(path, size in bytes)`` pairs, largest first.

    Files that are not code (:func:`language_for` is None) or are vendored (:func:`is_vendored`:
    anything under ``vendor/``, ``node_modules/``, ``third_party/``, ``dist/`` or ``build/`` at any
    depth, and ``*.min.js``/``*.min.css``) are skipped.
    """
    totals: dict[str, int] = {}
    for path, size in files:
        if is_vendored(path):
            continue
        language = language_for(path)
        if language is not None:
            totals[language] = totals.get(language, 0) + size
    return dict(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))
