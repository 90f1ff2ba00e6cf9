"""Claims naming the project's build system ("built with CMake", "**Gradle**: Build tool used for
building the project", "使用 Bazel 构建"), held against the build files of the tree.

The real 1.5B called Gradle fmt's build tool: fmt builds with CMake (``CMakeLists.txt`` at its root),
and Gradle's one file is ``support/build.gradle``, for Android. A build system is named by the files
it reads (:data:`SYSTEMS`: ``CMakeLists.txt``, ``build.gradle``, ``pom.xml``, ``meson.build``…). A claim
that one builds the project is

- ✓ when its files stand at the root;
- ✗ when a whole tree holds none of them, or holds them only below the root while another build
  system's stand at the root (Make beside CMake, Meson or Autotools, and Ninja beside CMake or Meson, are
  never ✗: those generate them);
- ? otherwise (a root with no build file: a monorepo's parts build themselves).

A claim hedged or narrowed in its clause ("can also be built with Bazel", "Gradle builds the Android
library", "not built with Make") is not found: it says nothing of the project's own build. Patterns are
fixed and bounded (linear in the line).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from agent_core.report.claim_names import Found
from agent_core.report.facts import Facts
from agent_core.report.path_index import index_of
from agent_core.report.verdicts import Outcome
from agent_core.words import said


@dataclass(frozen=True)
class System:
    """A build system: its name as the report writes it, and the files that say it is used."""

    name: str
    files: frozenset[str] = frozenset()  # lower-cased file names
    suffixes: tuple[str, ...] = ()  # of lower-cased file names
    generates_for: frozenset[str] = frozenset()  # systems whose root files make this one's claim not ✗


SYSTEMS: dict[str, System] = {
    system.name.casefold(): system
    for system in (
        System("CMake", frozenset({"cmakelists.txt"})),
        System(
            "Gradle",
            frozenset({"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}),
        ),
        System("Maven", frozenset({"pom.xml"})),
        System("Bazel", frozenset({"build.bazel", "workspace", "workspace.bazel", "module.bazel"})),
        System("Meson", frozenset({"meson.build"})),
        System(
            "Make",
            frozenset({"makefile", "gnumakefile"}),
            generates_for=frozenset({"cmake", "meson", "autotools"}),
        ),
        System("Autotools", frozenset({"configure.ac", "configure.in", "makefile.am"})),
        System("Ninja", frozenset({"build.ninja"}), generates_for=frozenset({"cmake", "meson"})),
        System("sbt", frozenset({"build.sbt"})),
        System("MSBuild", suffixes=(".csproj", ".vcxproj", ".fsproj", ".vbproj", ".sln")),
        System("SCons", frozenset({"sconstruct"})),
        System("xmake", frozenset({"xmake.lua"})),
        System("Premake", frozenset({"premake5.lua", "premake4.lua"})),
        System("Rake", frozenset({"rakefile"})),
        System("Cargo", frozenset({"cargo.toml"})),
        System("Leiningen", frozenset({"project.clj"})),
        System("Mill", frozenset({"build.sc", "build.mill"})),
    )
}
_ALIASES = {"gnu make": "make", "autoconf": "autotools", "automake": "autotools"}
_NAMES = "|".join(
    sorted(
        (re.escape(n) for n in (*(s.name for s in SYSTEMS.values()), "GNU Make", "Autoconf", "Automake")),
        key=len,
        reverse=True,
    )
)
_N = rf"[*`_]{{0,2}}({_NAMES})[*`_]{{0,2}}"
_CLAIMS = re.compile(
    rf"\b(?:built|builds|build|compiled|compiles)\s+(?:with|using|by|via|through)\s+(?:the\s+)?{_N}(?![\w-])"
    rf"|(?<![\w-]){_N}\s*(?:[:(–—-]\s*|\s(?:is|as|serves\s+as)\s+)?(?:the\s+|its\s+|a\s+|an\s+)?"
    r"(?:(?:primary|main|project's|project)\s+)?build[\s-]+(?:system|tool)\b"
    rf"|(?<![\w-]){_N}\s+(?:is\s+)?used\s+(?:for|to)\s+(?:build|compil)\w*"
    rf"|\buses\s+{_N}\s+(?:to\s+build|for\s+build|as\s+(?:its|the)\s+build)\w*"
    rf"|(?:使用|采用|用|通过)\s*{_N}\s*(?:进行)?(?:构建|编译)"
    rf"|{_N}\s*(?:作为|是)?\s*(?:项目的|本项目的)?构建(?:系统|工具)",
    re.IGNORECASE,
)
# In the claim's clause: it is hedged, negated or about a part (the claim says nothing of the project's
# own build).
_NARROWED = re.compile(
    r"\b(?:not|n't|never|no|also|alternative(?:ly)?|optional(?:ly)?|can|could|may|might|support(?:s|ed)?"
    r"|other|additional|as\s+well|either|or|instead|android|ios|binding|bindings|wrapper|plugin|module"
    r"|example|examples|docs?|documentation|tests?|benchmarks?|package|packages|subproject|part|some"
    r"|legacy|older|previous(?:ly)?|formerly|used\s+to|if|when|whether)\b"
    r"|不|也|可选|支持|或|示例|测试|文档|部分",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.;!?。；！？]\s|[.;!?。；！？]$")
_BEFORE = 60  # characters of the clause before a claim looked at for a hedge
_AFTER = 120  # and after it, for a part it narrows to


def build_claims(line: str, base: int) -> Iterator[Found]:
    """The build-system claims of one line (kind ``build``, value the system's name)."""
    for m in _CLAIMS.finditer(line):
        before = line[max(0, m.start() - _BEFORE) : m.start()]
        ends = [e.end() for e in _CLAUSE_END.finditer(before)]
        clause = before[ends[-1] :] if ends else before
        after = _CLAUSE_END.search(line, m.end(), m.end() + _AFTER)
        rest = line[m.end() : after.start() if after else m.end() + _AFTER]
        if _NARROWED.search(clause) or _NARROWED.search(m.group(0)) or _NARROWED.search(rest):
            continue
        name = next(g for g in m.groups() if g)
        if name in ("make", "mill", "rake") and "`" not in m.group(0):
            continue  # a verb, not the tool ("helps make build tools faster")
        key = _ALIASES.get(name.casefold(), name.casefold())
        start = m.start() + m.group(0).casefold().find(name.casefold())
        yield Found(kind="build", subject=key, value=name, start=base + start, end=base + start + len(name))


def build_system(found: Found, facts: Facts) -> Outcome:
    """``found`` held against the build files of the tree (see the module)."""
    where = _build_files(facts)
    system = SYSTEMS[found.subject]
    own = where.get(found.subject, ())
    at_root = [p for p in own if "/" not in p]
    if at_root:
        return "verified", said("observed_build_root", files=", ".join(at_root[:3]))
    at_top = {
        key: next(p for p in paths if "/" not in p)
        for key, paths in where.items()
        if any("/" not in p for p in paths)
    }
    if set(at_top) & system.generates_for:
        return "unchecked", None
    root = next(iter(at_top), None)  # a system whose files stand at the root, and its first file there
    if own and root is not None:
        return "contradicted", said(
            "observed_build_elsewhere",
            files=", ".join(own[:2]),
            root=SYSTEMS[root].name,
            root_file=at_top[root],
        )
    if not own and facts.tree_complete and facts.paths:
        if root is not None:
            return "contradicted", said(
                "observed_build_none_root",
                system=system.name,
                root=SYSTEMS[root].name,
                root_file=at_top[root],
            )
        return "contradicted", said("observed_build_none", system=system.name)
    return "unchecked", None


def _build_files(facts: Facts) -> dict[str, Sequence[str]]:
    """Each build system's files in the tree (one pass over it, once per tree)."""

    def build() -> dict[str, list[str]]:
        by_name: dict[str, str] = {}
        for system_key, system in SYSTEMS.items():
            for file in system.files:
                by_name[file] = system_key
        found: dict[str, list[str]] = {}
        for path in facts.paths:
            name = path.rsplit("/", 1)[-1].casefold()
            key = by_name.get(name)
            if key is None and name.endswith(SYSTEMS["msbuild"].suffixes):
                key = "msbuild"
            if key is not None:
                found.setdefault(key, []).append(path)
        return found

    return index_of(facts).derived("build_files", build)  # type: ignore[return-value]
