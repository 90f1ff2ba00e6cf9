"""C and C++ manifests: ``CMakeLists.txt``, ``meson.build``, ``vcpkg.json``, ``conanfile.txt`` and
``conanfile.py``.

CMake and Meson files are programs; they are never run. One tokenizer (:func:`calls`) reads the calls
they make, nested or not, from a single pass over the text: ``project(NAME VERSION 1.2 ...)``,
``add_subdirectory(dir)`` / ``subdir('dir')`` (the project's own folders: ``workspaces``),
``find_package(GTest)``, ``FetchContent_Declare(googletest ...)``, ``CPMAddPackage("gh:fmtlib/fmt@10")``
and Meson's ``dependency('glib-2.0')``. Dependency names are lower-cased (``GTest`` → ``gtest``: how
the test-framework table and the package managers name them). A folder named by ``add_subdirectory``
is the project's own; a dependency whose name is such a folder's is too. Linear, pure functions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from agent_core.report.manifest_values import Dependency, deps, groups, quoted, spec_text, text

Fields = dict[str, Any]

_MAX_NESTING = 200
_MAX_ARGUMENTS = 64  # arguments kept per call (the rest are not names)
_VERSION = re.compile(r"^v?\d{1,6}(?:\.\d{1,9}){0,4}[\w.+\-]{0,20}$")
_CMAKE_CALLS = frozenset(
    {
        "project",
        "add_subdirectory",
        "find_package",
        "fetchcontent_declare",
        "cpmaddpackage",
        "target_link_libraries",
    }
)
# Libraries a target links that are test frameworks (built from a bundled copy or found): what they declare
_TEST_LIBRARIES = frozenset(
    {"gtest", "gtest_main", "gmock", "gmock_main", "gtest::gtest", "gtest::gtest_main", "gtest::gmock",
     "catch2::catch2", "catch2::catch2withmain", "catch2", "doctest", "doctest::doctest"}
)  # fmt: skip
_MESON_CALLS = frozenset({"project", "subdir", "dependency"})
# find_package names that are CMake's own modules or the compiler's, not third-party packages
_NOT_PACKAGES = frozenset({"threads", "pkgconfig", "python", "python3", "perl", "git", "doxygen", "openmp"})


def calls(source: str, wanted: frozenset[str], quote: str) -> Iterator[tuple[str, list[str]]]:
    """Every call of a ``wanted`` command (lower-cased names), with its direct arguments (strings
    unquoted, bare words as written), in order of their closing parenthesis. Nested calls are found too;
    nesting deeper than :data:`_MAX_NESTING` is counted, not kept. ``quote``: the language's string
    quote (CMake ``"``, Meson ``'``); ``#`` starts a comment."""
    stack: list[tuple[str | None, list[str]]] = []
    depth = 0
    last: str | None = None
    for kind, token in _tokens(source, quote):
        if kind == "(":
            name = last.lower() if last is not None and last.lower() in wanted else None
            depth += 1
            if depth <= _MAX_NESTING:
                stack.append((name, []))
            last = None
        elif kind == ")":
            if depth:
                depth -= 1
                if depth < len(stack):
                    name, arguments = stack.pop()
                    if name is not None:
                        yield name, arguments
            last = None
        else:
            if (
                stack
                and stack[-1][0] is not None
                and len(stack[-1][1]) < _MAX_ARGUMENTS
                and depth == len(stack)
            ):
                stack[-1][1].append(token)
            last = token if kind == "word" else None


def _tokens(source: str, quote: str) -> Iterator[tuple[str, str]]:
    """("(", ""), (")", ""), ("word", w) and ("string", s) tokens; every character is looked at a
    bounded number of times (an unterminated string runs to the end of the text)."""
    special = re.compile(rf"[()#{re.escape(quote)}]")
    at, end = 0, len(source)
    while at < end:
        match = special.search(source, at)
        stop = match.start() if match is not None else end
        for word in source[at:stop].split():
            yield "word", word
        if match is None:
            return
        char = match.group(0)
        if char == "#":
            newline = source.find("\n", stop)
            at = end if newline == -1 else newline + 1
        elif char == quote:
            close = _closing(source, stop + 1, quote)
            yield "string", source[stop + 1 : close]
            at = close + 1
        else:
            yield char, ""
            at = stop + 1


def _closing(source: str, start: int, quote: str) -> int:
    """The index of the quote closing a string that starts at ``start`` (one not escaped by an odd run
    of backslashes), or the text's end."""
    at = start
    while True:
        found = source.find(quote, at)
        if found == -1:
            return len(source)
        slashes = 0
        while found - slashes - 1 >= at and source[found - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return found
        at = found + 1


def parse_cmake(source: str) -> Fields:
    """``project()`` name and version, ``add_subdirectory()`` folders, the packages found or fetched, and
    the test frameworks its targets link (``gtest``, ``Catch2::Catch2WithMain``: development)."""
    name = version = None
    folders: list[str] = []
    found: list[Dependency] = []
    tests: list[Dependency] = []  # test frameworks its targets link
    for command, arguments in calls(source, _CMAKE_CALLS, '"'):
        if not arguments:
            continue
        head = arguments[0]
        if command == "project" and name is None:
            name = head
            after = arguments.index("VERSION") + 1 if "VERSION" in arguments else 0
            version = arguments[after] if 0 < after < len(arguments) else None
        elif command == "add_subdirectory" and "$" not in head:
            folders.append(head.strip("/"))
        elif command == "find_package" and head.lower() not in _NOT_PACKAGES and "$" not in head:
            spec = arguments[1] if len(arguments) > 1 and _VERSION.match(arguments[1]) else ""
            found.append(Dependency(name=head.lower(), spec=spec))
        elif command == "fetchcontent_declare" and "$" not in head:
            tag = arguments.index("GIT_TAG") + 1 if "GIT_TAG" in arguments else 0
            found.append(
                Dependency(name=head.lower(), spec=arguments[tag] if 0 < tag < len(arguments) else "")
            )
        elif command == "cpmaddpackage":
            found += _cpm(arguments)
        elif command == "target_link_libraries":
            tests += [Dependency(name=a.lower()) for a in arguments[1:] if a.lower() in _TEST_LIBRARIES]
    return {
        "runtime": deps(_unique(found)),
        "dev": deps(_unique(tests)),
        "name": text(name) if name and "$" not in name else None,
        "version": version if version and _VERSION.match(version) else None,
        "workspaces": tuple(dict.fromkeys(f for f in folders if f)),
    }


def _cpm(arguments: list[str]) -> list[Dependency]:
    """``CPMAddPackage("gh:fmtlib/fmt#10.0.0")`` or ``CPMAddPackage(NAME fmt VERSION 10 ...)``."""
    if "NAME" in arguments:
        at = arguments.index("NAME") + 1
        version = arguments.index("VERSION") + 1 if "VERSION" in arguments else 0
        spec = arguments[version] if 0 < version < len(arguments) else ""
        return [Dependency(name=arguments[at].lower(), spec=spec)] if at < len(arguments) else []
    short = arguments[0].split(":", 1)[-1]
    repo, _, spec = short.replace("#", "@").partition("@")
    return [Dependency(name=repo.rsplit("/", 1)[-1].lower(), spec=spec_text(spec))] if repo else []


def parse_meson(source: str) -> Fields:
    """``project('name', ..., version: '1.0')``, ``subdir('x')`` folders and ``dependency('x')`` names."""
    name = version = None
    folders: list[str] = []
    found: list[Dependency] = []
    for command, arguments in calls(source, _MESON_CALLS, "'"):
        if not arguments:
            continue
        if command == "project" and name is None:
            name = arguments[0]
            after = arguments.index("version:") + 1 if "version:" in arguments else 0
            version = arguments[after] if 0 < after < len(arguments) else None
        elif command == "subdir":
            folders.append(arguments[0].strip("/"))
        elif command == "dependency" and arguments[0] and arguments[0].lower() not in _NOT_PACKAGES:
            spec = next((arguments[i + 1] for i, a in enumerate(arguments[:-1]) if a == "version:"), "")
            found.append(Dependency(name=arguments[0].lower(), spec=spec_text(spec)))
    return {
        "runtime": deps(_unique(found)),
        "name": text(name),
        "version": version if version and _VERSION.match(version) else None,
        "workspaces": tuple(dict.fromkeys(f for f in folders if f)),
    }


def parse_vcpkg(source: str) -> Fields:
    """``vcpkg.json``: its name, version, licence and dependencies (strings or ``{"name": ...}``; a
    ``"version>="`` kept as the constraint)."""
    data = json.loads(source)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    found: list[Dependency] = []
    entries = data.get("dependencies")
    for entry in entries[:2000] if isinstance(entries, list) else []:
        if isinstance(entry, str):
            found.append(Dependency(name=entry, spec=""))
        elif isinstance(entry, dict) and isinstance(entry.get("name"), str):
            minimum = entry.get("version>=")
            found.append(
                Dependency(name=entry["name"], spec=f">={minimum}" if isinstance(minimum, str) else "")
            )
    version = next(
        (data[k] for k in ("version", "version-semver", "version-string") if isinstance(data.get(k), str)),
        None,
    )
    return {
        "runtime": deps(found),
        "name": text(data.get("name")),
        "description": text(data.get("description")),
        "license": text(data.get("license")),
        "version": text(version),
    }


def parse_conanfile_txt(source: str) -> Fields:
    """``[requires]`` (runtime), ``[test_requires]`` (development), ``[tool_requires]`` /
    ``[build_requires]`` (build): ``name/version@user/channel`` lines."""
    sections: dict[str, list[Dependency]] = {}
    section = ""
    for raw in source.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip().lower()
        elif line and section.endswith("requires"):
            dep = _conan(line)
            if dep is not None:
                sections.setdefault(section, []).append(dep)
    return {
        "runtime": deps(sections.get("requires", [])),
        "dev": deps(sections.get("test_requires", [])),
        "groups": groups({"build": sections.get("tool_requires", []) + sections.get("build_requires", [])}),
    }


def parse_conanfile_py(source: str) -> Fields:
    """A ``conanfile.py``'s ``requires = ...`` attributes and ``self.requires("x/1.0")`` calls; ``test_``
    ones are development, ``tool_``/``build_`` ones build; ``name = "x"``."""
    runtime: list[Dependency] = []
    dev: list[Dependency] = []
    build: list[Dependency] = []
    name = None
    for raw in source.splitlines():
        line = raw.split("#", 1)[0].strip()
        if "requires" in line:
            kind = (
                dev
                if "test_requires" in line
                else build
                if ("tool_requires" in line or "build_requires" in line)
                else runtime
            )
            kind += [dep for literal in quoted(line) if (dep := _conan(literal)) is not None]
        elif line.startswith("name") and "=" in line and name is None:
            name = next(iter(quoted(line)), None)
    return {
        "runtime": deps(runtime),
        "dev": deps(dev),
        "groups": groups({"build": build}),
        "name": text(name),
    }


def _conan(reference: str) -> Dependency | None:
    """``zlib/1.2.11@conan/stable`` → zlib 1.2.11; a version range ``[>=1.0 <2]`` kept as written."""
    package, slash, rest = reference.strip().partition("/")
    if not slash or not re.fullmatch(r"[\w.+\-]{1,100}", package):
        return None
    return Dependency(name=package.lower(), spec=spec_text(rest.split("@", 1)[0]))


def _unique(found: list[Dependency]) -> list[Dependency]:
    return list({dep.name: dep for dep in reversed(found)}.values())[::-1]


__all__ = ["calls", "parse_cmake", "parse_conanfile_py", "parse_conanfile_txt", "parse_meson", "parse_vcpkg"]
