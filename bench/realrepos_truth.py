"""What is true of a real repository, read from its own files by the benchmark — never from the app.

The real-repository judge (:mod:`bench.realrepos_judge`) holds reports against a :class:`Truth`, built
here from ``git ls-tree`` and the blobs of one commit, with the benchmark's own small rules: vendored
paths, test files by each language's conventions, languages by extension, licences from the licence
files' texts and the manifests' ``license`` fields, CI systems from their configuration files,
packages and modules from the manifests, and the names every manifest declares. These rules are
deliberately written apart from ``agent_core`` so that a bug in the app's model of a repository is not
repeated in the judge. ``scope`` narrows what is "the repository" to one folder (a subfolder URL).
"""

from __future__ import annotations

import json
import posixpath
import re
import subprocess
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

_VENDORED_PARTS = frozenset(
    {"vendor", "node_modules", "third_party", "third-party", "bower_components", "Godeps"}
)
_TEST_PARTS = frozenset(
    {"test", "tests", "__tests__", "spec", "specs", "testing", "testdata", "e2e"}
    | {"fixtures", "__fixtures__", "test-fixtures", "integration-tests"}  # test data and test packages
)
_TEST_NAME = re.compile(
    r"(_test\.go|\.(spec|test)\.[cm]?[jt]sx?|^test_[^/]*\.py|_test\.py|Tests?\.(java|kt)|_spec\.rb|_test\.rs)$"
)
_EXTENSIONS = {
    ".go": "Go", ".ts": "TypeScript", ".tsx": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript",
    ".js": "JavaScript", ".jsx": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
    ".py": "Python", ".pyi": "Python", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin",
    ".sh": "Shell", ".bash": "Shell", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++",
    ".css": "CSS", ".scss": "SCSS", ".html": "HTML", ".rb": "Ruby", ".php": "PHP", ".swift": "Swift",
    ".m": "Objective-C", ".cs": "C#", ".scala": "Scala", ".groovy": "Groovy", ".lua": "Lua",
    ".ps1": "PowerShell", ".hcl": "HCL", ".vue": "Vue", ".dart": "Dart", ".zig": "Zig", ".r": "R",
    ".ex": "Elixir", ".exs": "Elixir", ".erl": "Erlang", ".hs": "Haskell", ".ml": "OCaml", ".nix": "Nix",
    ".mdx": "MDX", ".roff": "Roff", ".awk": "Awk", ".bat": "Batchfile", ".proto": "Protocol Buffer",
}  # fmt: skip
_NAMED_LANGUAGES = {"Makefile": "Makefile", "Dockerfile": "Dockerfile", "makefile": "Makefile"}
LANGUAGES = frozenset(_EXTENSIONS.values()) | frozenset(_NAMED_LANGUAGES.values())
# CI system -> a path pattern that configures it
CI_SYSTEMS = {
    "GitHub Actions": re.compile(r"^\.github/workflows/[^/]+\.ya?ml$"),
    "GitLab CI": re.compile(r"(^|/)\.gitlab-ci\.ya?ml$"),
    "CircleCI": re.compile(r"^\.circleci/"),
    "Travis CI": re.compile(r"^\.travis\.ya?ml$"),
    "Azure Pipelines": re.compile(r"(^|/)azure-pipelines[^/]*\.ya?ml$"),
    "Jenkins": re.compile(r"(^|/)Jenkinsfile$"),
    "Cirrus CI": re.compile(r"^\.cirrus\.ya?ml$"),
    "Buildkite": re.compile(r"^\.buildkite/"),
    "AppVeyor": re.compile(r"^\.?appveyor\.ya?ml$"),
    "Drone": re.compile(r"^\.drone\.ya?ml$"),
    "Prow": re.compile(r"^\.prow(\.ya?ml|/)"),
    "Tekton": re.compile(r"^\.tekton/"),
}
_LICENSE_FILE = re.compile(r"^(licen[cs]e|copying|unlicense)([-._][^/]*)?$", re.IGNORECASE)
# SPDX id -> phrases that all appear in its licence text (checked in order: the first match wins)
_LICENSE_TEXTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Apache-2.0", ("apache license", "version 2.0")),
    ("MIT", ("permission is hereby granted, free of charge",)),
    ("Unlicense", ("free and unencumbered software released into the public domain",)),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "neither the name")),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "names of its contributors")),
    ("BSD-2-Clause", ("redistribution and use in source and binary forms",)),
    ("MPL-2.0", ("mozilla public license version 2.0",)),
    ("LGPL-3.0", ("gnu lesser general public license", "version 3")),
    ("GPL-3.0", ("gnu general public license", "version 3")),
    ("GPL-2.0", ("gnu general public license", "version 2")),
    ("ISC", ("permission to use, copy, modify, and/or distribute this software for any purpose",)),
    ("CC0-1.0", ("cc0 1.0 universal",)),
)
SPDX_IDS = frozenset(spdx for spdx, _ in _LICENSE_TEXTS) | {"0BSD", "BSL-1.0", "Zlib", "AGPL-3.0"}
_MANIFEST = re.compile(
    r"(^|/)(package\.json|go\.mod|vendor\.mod|Cargo\.toml|pyproject\.toml|setup\.py|setup\.cfg|"
    r"requirements[^/]*\.(txt|in)|requirements/[^/]+\.(txt|in)|[^/]*\.gradle(\.kts)?|libs\.versions\.toml|pom\.xml|Gemfile|"
    r"composer\.json|pnpm-workspace\.yaml)$"
)
_PACKAGE_HOME = re.compile(
    r"(^|/)(go\.mod|package\.json|Cargo\.toml|build\.gradle(\.kts)?|pom\.xml|pyproject\.toml|setup\.py)$"
)
_DOCS_PARTS = frozenset({"docs", "doc", "documentation", "website", "site", "book"})
_DOCUMENTATION_PARTS = _DOCS_PARTS | {"examples", "example", "samples"}
_MAX_BLOB = 1_000_000  # bytes of one manifest or licence file the judge reads


def is_vendored(path: str) -> bool:
    return any(part in _VENDORED_PARTS for part in path.split("/")[:-1])


def is_test(path: str) -> bool:
    parts = path.split("/")
    return bool(_TEST_NAME.search(parts[-1])) or any(p in _TEST_PARTS for p in parts[:-1])


def language_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if name in _NAMED_LANGUAGES:
        return _NAMED_LANGUAGES[name]
    return _EXTENSIONS.get(PurePosixPath(name).suffix.lower())


def licenses_in_text(text: str) -> set[str]:
    """SPDX ids whose licence text ``text`` holds (a licence file), or names (an SPDX expression)."""
    lowered = " ".join(text.lower().split())
    for spdx, phrases in _LICENSE_TEXTS:
        if all(p in lowered for p in phrases):
            return {spdx}
    return {t for t in re.findall(r"[A-Za-z0-9.+-]+", text) if t in SPDX_IDS}


def _glob_regex(glob: str) -> re.Pattern[str]:
    parts = []
    for piece in re.split(r"(\*\*|\*|\?)", glob.strip().strip("/").removeprefix("./")):
        parts.append({"**": ".*", "*": "[^/]*", "?": "[^/]"}.get(piece, re.escape(piece)))
    return re.compile("".join(parts) + "$")


@dataclass
class Truth:
    """One commit of one repository as the judge sees it (see the module docstring)."""

    files: dict[str, int]  # path -> size in bytes, every blob of the commit
    dirs: set[str]
    texts: dict[str, str]  # manifests and licence files (root and scope) that were read
    scope: str = ""  # "" for the whole repository, else a folder
    _under_cache: dict[str, int] = field(default_factory=dict, repr=False)
    _shares: dict[bool, dict[str, float]] = field(default_factory=dict, repr=False)

    @classmethod
    def read(cls, git_dir: Path, commit: str = "HEAD", *, scope: str = "") -> Truth:
        out = _git(git_dir, "ls-tree", "-r", "-t", "-l", "-z", commit)
        files: dict[str, int] = {}
        dirs: set[str] = set()
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, name = record.split(b"\t", 1)
            _, kind, _, size = meta.decode().split()
            path = name.decode("utf-8", "surrogateescape")
            if kind == "tree":
                dirs.add(path)
            elif kind == "blob":
                files[path] = int(size) if size.isdigit() else 0  # "-", or "BAD": absent from a snapshot
        scope = scope.strip("/")
        wanted = [p for p in files if _wanted_text(p, scope) and files[p] <= _MAX_BLOB]
        return cls(files=files, dirs=dirs, texts=_read_blobs(git_dir, commit, wanted), scope=scope)

    @cached_property
    def whole(self) -> Truth:
        """The same commit without the scope."""
        return Truth(files=self.files, dirs=self.dirs, texts=self.texts)

    # -- paths

    def in_scope(self, path: str) -> bool:
        return not self.scope or path == self.scope or path.startswith(self.scope + "/")

    @cached_property
    def scoped_files(self) -> list[str]:
        return [p for p in self.files if self.in_scope(p)]

    def exists(self, path: str) -> bool:
        """``path`` is a file or folder of the commit, from the root or from the scope."""
        return bool(path.strip().removeprefix("./").strip("/")) and bool(self.resolutions(path))

    def resolve(self, path: str) -> str | None:
        return next(iter(self.resolutions(path)), None)

    def resolutions(self, path: str) -> list[str]:
        """Every path ``path`` may name: from the scope (``../`` climbs out of it) and from the root."""
        path = path.strip().removeprefix("./").strip("/")
        candidates = [
            posixpath.normpath(c) for c in ([f"{self.scope}/{path}"] if self.scope else []) + [path]
        ]
        return [c for c in candidates if c in self.files or c in self.dirs]

    def exists_deeper(self, path: str) -> bool:
        """Some file or folder ends with ``/path`` (a path named relative to somewhere unknown)."""
        tail = "/" + path.strip().removeprefix("./").strip("/")
        return any(p.endswith(tail) for p in self.files) or any(d.endswith(tail) for d in self.dirs)

    def files_under(self, folder: str) -> int:
        if folder not in self._under_cache:
            prefix = folder.strip("/") + "/"
            self._under_cache[folder] = sum(1 for p in self.files if p.startswith(prefix))
        return self._under_cache[folder]

    @cached_property
    def top_folders(self) -> list[str]:
        return sorted(d for d in self.dirs if "/" not in d)

    # -- the project's own files, its tests, its languages

    @cached_property
    def own_files(self) -> list[str]:
        return [p for p in self.scoped_files if not is_vendored(p)]

    @cached_property
    def vendored_files(self) -> int:
        return sum(1 for p in self.scoped_files if is_vendored(p))

    @cached_property
    def test_files(self) -> set[str]:
        return {p for p in self.own_files if is_test(p) and language_of(p) is not None}

    @cached_property
    def test_counts(self) -> set[int]:
        """The fair counts of the tests: code files by convention, and every file by convention
        (fixtures and testdata too)."""
        return {len(self.test_files), sum(1 for p in self.own_files if is_test(p))} - {0}

    def language_shares(self, *, own: bool) -> dict[str, float]:
        """Percent of code bytes per language (own: without vendored files)."""
        if own not in self._shares:
            self._shares[own] = self._language_shares(own=own)
        return self._shares[own]

    def _language_shares(self, *, own: bool) -> dict[str, float]:
        sizes: Counter[str] = Counter()
        for path in self.own_files if own else self.scoped_files:
            if own and any(part in _DOCUMENTATION_PARTS for part in path.split("/")[:-1]):
                continue  # Linguist leaves documentation and examples out of the languages too
            language = language_of(path)
            if language is not None:
                sizes[language] += self.files[path]
        total = sum(sizes.values()) or 1
        return {language: 100.0 * size / total for language, size in sizes.items()}

    # -- licences, CI, docs

    @cached_property
    def licenses(self) -> set[str]:
        """SPDX ids of the licence files and the manifests' ``license`` fields at the root and the scope."""
        found: set[str] = set()
        for folder in {"", self.scope}:
            for path, text in self.texts.items():
                parent, _, name = path.rpartition("/")
                if parent != folder:
                    continue
                if _LICENSE_FILE.match(name):
                    found |= licenses_in_text(text)
                elif name in ("package.json", "Cargo.toml", "pyproject.toml", "setup.cfg"):
                    for value in re.findall(r"""["']?license["']?\s*[:=]\s*["']([^"'\n]+)["']""", text):
                        found |= {t for t in re.findall(r"[A-Za-z0-9.+-]+", value) if t in SPDX_IDS}
        return found

    @cached_property
    def ci_systems(self) -> set[str]:
        return {name for name, pattern in CI_SYSTEMS.items() if any(pattern.search(p) for p in self.files)}

    @cached_property
    def docs_places(self) -> set[str]:
        """Documentation folders at the top of the scope (``docs/``...)."""
        base = self.scope + "/" if self.scope else ""
        return {d for d in self.dirs if d.startswith(base) and d[len(base) :] in _DOCS_PARTS}

    # -- packages, modules, dependencies

    def _manifests(self, name: re.Pattern[str]) -> list[str]:
        return [p for p in self.own_files if name.search(p)]

    @cached_property
    def package_counts(self) -> dict[str, int]:
        """Each way of counting the packages or modules of the scope, by name (only those with 2+)."""
        counts = {
            "go modules": len(self._manifests(re.compile(r"(^|/)go\.mod$"))),
            "go packages": len(
                {p.rsplit("/", 1)[0] for p in self.own_files if p.endswith(".go") and "/" in p}
            ),
            "go test packages": len({p.rsplit("/", 1)[0] for p in self.own_files if p.endswith("_test.go")}),
            "npm packages": len(self._manifests(re.compile(r"(^|/)package\.json$"))) - 1,
            "cargo crates": len(self._manifests(re.compile(r"(^|/)Cargo\.toml$"))),
            "python projects": len(self._manifests(re.compile(r"(^|/)(pyproject\.toml|setup\.py)$"))),
            "maven modules": len(self._manifests(re.compile(r"(^|/)pom\.xml$"))),
            "gradle builds": len(self._manifests(re.compile(r"(^|/)build\.gradle(\.kts)?$"))),
            "workspace members": self._workspace_members(),
            "packages with tests": self._packages_with_tests(),
            "gradle modules": self._gradle_includes(),
        }
        return {name: n for name, n in counts.items() if n >= 2}

    def _packages_with_tests(self) -> int:
        """Folders with a manifest (or the root) that hold a test file, each test counted in its nearest."""
        homes = {p.rsplit("/", 1)[0] if "/" in p else "" for p in self.own_files if _PACKAGE_HOME.search(p)}
        found = set()
        for path in self.own_files:
            if is_test(path):
                folder = path.rsplit("/", 1)[0] if "/" in path else ""
                while folder and folder not in homes:
                    folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
                found.add(folder)
        return len(found)

    def _root_text(self, name: str) -> str:
        for folder in (self.scope,) if self.scope else ("",):
            text = self.texts.get(f"{folder}/{name}" if folder else name)
            if text is not None:
                return text
        return ""

    def _workspace_members(self) -> int:
        globs: list[str] = []
        try:
            package = json.loads(self._root_text("package.json") or "{}")
        except ValueError:
            package = {}
        spaces = package.get("workspaces") if isinstance(package, dict) else None
        if isinstance(spaces, dict):
            spaces = spaces.get("packages")
        if isinstance(spaces, list):
            globs += [g for g in spaces if isinstance(g, str)]
        pnpm = self._root_text("pnpm-workspace.yaml")
        globs += re.findall(r"^\s*-\s*['\"]?([^'\"\n#]+?)['\"]?\s*$", pnpm.split("catalog")[0], re.MULTILINE)
        cargo = re.search(
            r"^\[workspace\][^\[]*?members\s*=\s*\[(.*?)\]", self._root_text("Cargo.toml"), re.S | re.M
        )
        if cargo:
            globs += re.findall(r"[\"']([^\"']+)[\"']", cargo.group(1))
        patterns = [_glob_regex(g) for g in globs if not g.startswith("!")]
        if not patterns:
            return 0
        manifests = {
            p.rsplit("/", 1)[0] for p in self.own_files if p.endswith(("/package.json", "/Cargo.toml"))
        }
        return sum(1 for d in manifests if any(p.match(d) for p in patterns))

    def _gradle_includes(self) -> int:
        text = self._root_text("settings.gradle") or self._root_text("settings.gradle.kts")
        return len(set(re.findall(r"""['"](:[\w.:-]+)['"]""", text)))

    @cached_property
    def manifest_text(self) -> str:
        return "\n".join(text for path, text in self.texts.items() if _MANIFEST.search(path))

    def declares(self, name: str) -> bool:
        """``name`` appears as a whole name in one of the scope's manifests (any dependency group)."""
        name = name.strip()
        if not name:
            return False
        spelled = "[-_.]".join(re.escape(part) for part in re.split(r"[-_.]", name))
        # a whole name: not the tail of another (``foo.bar``), except a TOML table ``[dependencies.name]``
        pattern = rf"(?:(?<![\w.@/-])|(?<=dependencies\.)){spelled}(?![\w-])"
        return bool(re.search(pattern, self.manifest_text, re.IGNORECASE))

    @cached_property
    def own_names(self) -> frozenset[str]:
        """The names the repository's own packages publish (package.json, pyproject.toml, setup.cfg,
        Cargo.toml), normalised: a manifest listing one of them references the project itself."""
        names: set[str] = set()
        for path, text in self.texts.items():
            name = path.rsplit("/", 1)[-1]
            if name == "package.json":
                try:
                    data = json.loads(text)
                except ValueError:
                    continue
                names.add(str(data.get("name", "")) if isinstance(data, dict) else "")
            elif name in ("pyproject.toml", "Cargo.toml"):
                try:
                    data = tomllib.loads(text)
                except tomllib.TOMLDecodeError:
                    continue
                names |= {str(data.get(t, {}).get("name", "")) for t in ("project", "package")}
            elif name == "setup.cfg":
                names |= set(re.findall(r"^name\s*=\s*(\S+)", text, re.M))
            elif name == "go.mod":
                names |= set(re.findall(r"^module\s+(\S+)", text, re.M))
        return frozenset(_normal(n) for n in names if n)

    @cached_property
    def dependency_counts(self) -> set[int]:
        """Every count of declared dependencies one manifest gives (a group, or all of its groups), with and
        without the repository's own packages (:attr:`own_names`) among them."""
        counts: set[int] = set()
        own = self.own_names
        for path, text in self.texts.items():
            name = path.rsplit("/", 1)[-1]
            if name == "package.json":
                counts |= _package_json_counts(text, own)
            elif name in ("build.gradle", "build.gradle.kts"):
                counts |= _gradle_counts(text)
            elif name in ("go.mod", "vendor.mod"):
                requires = re.findall(r"^\s*(?:require\s+)?([\w.-]+\.[\w.-]+/\S*)\s+v\S+(.*)$", text, re.M)
                indirect = sum("// indirect" in rest for _, rest in requires)
                counts |= {len(requires), indirect, len(requires) - indirect}
                mine = sum(_normal(path) in own for path, rest in requires if "// indirect" not in rest)
                counts |= {len(requires) - mine, len(requires) - indirect - mine}  # own modules said apart
            elif name in ("Cargo.toml", "pyproject.toml"):
                counts |= _toml_counts(text)
            elif name in ("setup.py", "setup.cfg"):
                lists = re.findall(
                    r"(?:install_requires|extras_require|tests_require)\s*=\s*\[(.*?)\]", text, re.S
                )
                sizes = [len(re.findall(r"[\"'][^\"']+[\"']", body)) for body in lists]
                counts |= set(sizes) | {sum(sizes)}
            elif name.endswith((".txt", ".in")):
                lines = [
                    ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "-"))
                ]
                counts.add(len(lines))
                named = [re.match(r"\s*([A-Za-z0-9][\w.-]*)", ln) for ln in lines]
                counts.add(sum(1 for m in named if not (m and _normal(m.group(1)) in own)))
        return counts - {0}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.strip().lower())


def _package_json_counts(text: str, own: frozenset[str]) -> set[int]:
    try:
        data = json.loads(text)
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    found = [
        data[key]
        for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
        if isinstance(data.get(key), dict)
    ]
    groups = [len(group) for group in found]
    others = [sum(1 for name in group if _normal(name) not in own) for group in found]
    return set(groups) | {sum(groups)} | set(others) | {sum(others)}


_GRADLE_DEPENDENCY = re.compile(
    r"^\s*(classpath|api|implementation|compileOnly|runtimeOnly|kapt|ksp|annotationProcessor"
    r"|test\w*|androidTest\w*|\w+Implementation|\w+Api)\b\s*\(?\s*(.*)$",
    re.M,
)


def _gradle_counts(text: str) -> set[int]:
    """Sizes of a build.gradle's dependency groups (the buildscript's classpath, tests, the rest), the
    repository's own projects (``project(':x')``, ``projects.x``) left out."""
    sizes: Counter[str] = Counter()
    for configuration, rest in _GRADLE_DEPENDENCY.findall(text):
        if rest.startswith(("project(", "projects.")) or not rest.strip():
            continue
        low = configuration.lower()
        sizes["build" if low == "classpath" else "test" if "test" in low else "main"] += 1
    return set(sizes.values()) | {sum(sizes.values())}


def _toml_counts(text: str) -> set[int]:
    """Sizes of each dependency group of a Cargo.toml or pyproject.toml, and of all of them."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return set()
    project = data.get("project", {})
    groups: list[Any] = [
        project.get("dependencies"),
        *project.get("optional-dependencies", {}).values(),
        *data.get("dependency-groups", {}).values(),
        data.get("tool", {}).get("poetry", {}).get("dependencies"),
        data.get("workspace", {}).get("dependencies"),
    ]
    extra: list[int] = []
    for key in ("dependencies", "dev-dependencies", "build-dependencies"):
        groups.append(data.get(key))
        targets = [t.get(key) for t in data.get("target", {}).values() if isinstance(t, dict)]
        groups += targets
        # a platform's dependencies are that group's too: "runtime dependencies (11)" = 10 + 1 for musl
        extra.append(sum(len(g) for g in [data.get(key), *targets] if isinstance(g, dict)))
    sizes = [len(g) for g in groups if isinstance(g, (list, dict)) and g]
    return set(sizes) | set(extra) | {sum(sizes)}


def _wanted_text(path: str, scope: str) -> bool:
    if is_vendored(path):
        return False
    parent, _, name = path.rpartition("/")
    if _LICENSE_FILE.match(name):
        return parent in ("", scope)
    return bool(_MANIFEST.search(path))


def _git(git_dir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", "-C", str(git_dir), *args], input=stdin, capture_output=True, check=True
    ).stdout


def _read_blobs(git_dir: Path, commit: str, paths: list[str]) -> dict[str, str]:
    if not paths:
        return {}
    request = "".join(f"{commit}:{p}\n" for p in paths).encode("utf-8", "surrogateescape")
    out = _git(git_dir, "cat-file", "--batch", stdin=request)
    texts: dict[str, str] = {}
    at = 0
    for path in paths:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        texts[path] = out[at : at + size].decode("utf-8", "replace")
        at += size + 1
    return texts
