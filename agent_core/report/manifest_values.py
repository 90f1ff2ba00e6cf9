"""The values a manifest parser builds (:class:`Dependency`, :class:`Manifest`; what a group or a
requirements file is for: :func:`group_kind`, :func:`requirements_kind`) and the small helpers every
format shares: reading TOML/JSON tables defensively, PEP 508 strings, ``name = spec`` tables. Pure
functions, no I/O. Below :mod:`~agent_core.report.manifests` and
:mod:`~agent_core.report.manifest_links`, which both read a :class:`Manifest`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal
from xml.etree import ElementTree


@dataclass(frozen=True, kw_only=True)
class Dependency:
    name: str
    spec: str = ""  # version constraint as written ("" = any), environment markers dropped

    def text(self) -> str:
        if not self.spec:
            return self.name
        glue = "" if self.spec[0] in "<>=!~[(@" else " "
        return f"{self.name}{glue}{self.spec}"


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\[[^\]]*\])?\s*(.*)$")

Groups = tuple[tuple[str, tuple[Dependency, ...]], ...]

SPEC_CHARS = 120  # characters of a version constraint kept; a longer one ends in "…" and is never checked


def spec_text(value: str) -> str:
    """A constraint as written, cut past :data:`SPEC_CHARS` with "…" (the claim check reads no cut one:
    ``^0.14 || ^0.15`` cut to ``^0.14 || ^0`` would accept 0.13)."""
    value = value.strip()
    return value if len(value) <= SPEC_CHARS else value[:SPEC_CHARS] + "…"


def requirement(value: str) -> Dependency:
    """A PEP 508 string: the name and the version part, without extras or environment markers."""
    match = _REQUIREMENT.match(value.split(";", 1)[0][:400])
    if match is None:
        return Dependency(name="")
    return Dependency(
        name=match.group(1), spec=spec_text(match.group(3).strip().strip("()").replace(" ", ""))
    )


def named(name: str, value: Any) -> Dependency:
    """A dependency given as ``name = spec`` (Poetry, Cargo, npm): spec is a string or a table."""
    if isinstance(value, str):
        spec = value
    elif isinstance(value, Mapping):
        found = next((k for k in ("version", "path", "git", "workspace") if k in value), None)
        spec = str(value[found]) if found == "version" else (found or "")
    else:
        spec = ""
    spec = "" if spec == "*" else spec
    return Dependency(name=str(name), spec=spec_text(spec))


def deps(items: Iterable[Dependency]) -> tuple[Dependency, ...]:
    return tuple(d for d in items if d.name)


def groups(found: Mapping[str, list[Dependency]]) -> Groups:
    return tuple((name, deps(items)) for name, items in found.items() if deps(items))


def table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def scripts(found: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (str(k).strip(), str(v).strip()) for k, v in found.items() if str(k).strip() and isinstance(v, str)
    )


def text(value: Any) -> str | None:
    """A one-line description as written, or None (not a string, empty, or a ``file:`` reference)."""
    if not isinstance(value, str) or not value.strip() or value.strip().startswith(("file:", "attr:")):
        return None
    return " ".join(value.split())


def strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


_QUOTED = re.compile(r"\"([^\"\n]{0,300})\"|'([^'\n]{0,300})'")


def quoted(line: str) -> list[str]:
    """The string literals of one line, single- or double-quoted, in order (a literal longer than 300
    characters is skipped: no name or version is that long)."""
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _QUOTED.finditer(line)]


def xml_root(source: str) -> ElementTree.Element:
    """The root element of an XML manifest, tags without their namespace. A document type or entity
    declaration is refused before parsing (no entity is ever expanded: the billion-laughs attack)."""
    if "<!ENTITY" in source or "<!DOCTYPE" in source:
        raise ValueError("a document type or entity declaration: not read")
    root = ElementTree.fromstring(source)  # noqa: S314 (no DTD or entity, checked above)
    for element in root.iter():  # {http://maven.apache.org/POM/4.0.0}module -> module
        if isinstance(element.tag, str):
            element.tag = element.tag.rsplit("}", 1)[-1]
    return root


ManifestStatus = Literal["parsed", "unparsed", "invalid"]
GroupKind = Literal["runtime", "development", "documentation", "optional", "peer", "build", "indirect"]
#: What dependencies can be for, in the order a report names them.
GROUP_KINDS: tuple[GroupKind, ...] = (
    "runtime",
    "development",
    "documentation",
    "optional",
    "peer",
    "build",
    "indirect",
)


@dataclass(frozen=True, kw_only=True)
class Manifest:
    """What one manifest declares. ``partial``: the file was cut when read, lists may be incomplete.

    ``runtime``, ``dev`` and ``docs`` are the manifest's own lists; ``groups`` its named groups as written
    (extras, dependency groups, ``peerDependencies``...); :meth:`dependency_groups` all of them by kind."""

    path: str
    status: ManifestStatus
    runtime: tuple[Dependency, ...] = ()
    dev: tuple[Dependency, ...] = ()
    docs: tuple[Dependency, ...] = ()  # a documentation requirements file
    groups: Groups = ()  # extras / optional / named groups, as the manifest names them
    indirect_deps: tuple[Dependency, ...] = ()  # go.mod ``// indirect``
    build_backend: str | None = None
    partial: bool = False
    detail: str | None = None  # why it could not be parsed
    description: str | None = None  # the project's own one-line description, when the manifest has one
    scripts: tuple[tuple[str, str], ...] = ()  # commands it installs: (name, what runs), e.g. console scripts
    name: str | None = None  # the module path (go.mod) or package name it declares
    go_version: str | None = None  # go.mod's ``go`` directive
    license: str | None = None  # the licence it declares, as written (usually an SPDX expression)
    workspaces: tuple[str, ...] = ()  # workspace globs / member folders, as written
    workspace_exclude: tuple[str, ...] = ()
    # The repository's own packages this manifest names: composer ``replace``, .NET project references
    # and solution projects, Gradle project references, Cargo/uv path dependencies, npm ``workspace:``.
    own_names: tuple[str, ...] = ()
    versions: tuple[Dependency, ...] = ()  # versions pinned for others to use (central, catalog, managed)
    version: str | None = None  # the package's own version, when written literally
    toolchain: str | None = None  # the language or SDK it requires: "PHP >=8.2", ".NET SDK 8.0.100"
    test_project: bool = False  # a .NET test project (references Microsoft.NET.Test.Sdk)
    parent: str | None = None  # Maven's parent POM, ``group:artifact``
    catalog: tuple[tuple[str, tuple[Dependency, ...]], ...] = ()  # Gradle catalog alias -> libraries
    commands: tuple[str, ...] = ()  # the commands its scripts run (package.json "scripts")

    @property
    def indirect(self) -> int:
        """How many ``// indirect`` requirements the go.mod lists."""
        return len(self.indirect_deps)

    def all_dependencies(self, *, indirect: bool = True) -> Iterable[Dependency]:
        """Every dependency named, the ``// indirect`` ones last (or left out)."""
        yield from self.runtime
        yield from self.dev
        yield from self.docs
        for _name, deps in self.groups:
            yield from deps
        if indirect:
            yield from self.indirect_deps

    def dependency_groups(self) -> Mapping[GroupKind, tuple[str, ...]]:
        """Every dependency's name by what it is for, kinds in :data:`GROUP_KINDS` order, empty ones left out."""
        found: dict[GroupKind, list[str]] = {kind: [] for kind in GROUP_KINDS}
        found["runtime"] += [d.name for d in self.runtime]
        found["development"] += [d.name for d in self.dev]
        found["documentation"] += [d.name for d in self.docs]
        for name, deps in self.groups:
            found[group_kind(name)] += [d.name for d in deps]
        found["indirect"] += [d.name for d in self.indirect_deps]
        return MappingProxyType({kind: tuple(names) for kind, names in found.items() if names})


_DOCS_WORDS = r"docs?|documentation|sphinx|mkdocs"
_DEV_WORDS = r"dev|devel|develop|development|tests?|testing|lint|linting|ci|typing|check|style|bench|mypy"
_DOCS_REQUIREMENTS = re.compile(
    rf"(^|/)((?:{_DOCS_WORDS})/[\w.-]*requirements[\w.-]*|requirements[-_.](?:{_DOCS_WORDS})\b[\w.-]*"
    rf"|(?:{_DOCS_WORDS})[-_]requirements[\w.-]*|requirements/(?:{_DOCS_WORDS})\b[\w.-]*)\.txt$"
)
_DEV_REQUIREMENTS = re.compile(
    rf"(^|/)((?:{_DEV_WORDS})/[\w.-]*requirements[\w.-]*|requirements[-_.](?:{_DEV_WORDS})\b[\w.-]*"
    rf"|(?:{_DEV_WORDS})[-_]requirements[\w.-]*|requirements/(?:{_DEV_WORDS})\b[\w.-]*)\.txt$"
)


def requirements_kind(path: str) -> GroupKind:
    """What a requirements file is for, by its name and folder: ``docs/requirements.txt``,
    ``requirements-docs.txt`` and ``doc-requirements.txt`` are ``documentation``; ``requirements-dev.txt``,
    ``test-requirements.txt`` and ``requirements/lint.txt`` are ``development``; others ``runtime``."""
    low = path.lower()
    if _DOCS_REQUIREMENTS.search(low):
        return "documentation"
    if _DEV_REQUIREMENTS.search(low):
        return "development"
    return "runtime"


def is_dev_requirements(path: str) -> bool:
    """A requirements file for developing the project or its documentation, not for running it."""
    return requirements_kind(path) != "runtime"


def group_kind(name: str) -> GroupKind:
    """What a named group is for: ``peerDependencies`` peer, ``build`` (Cargo) build, ``docs`` documentation,
    ``dev``/``test``/``lint`` development, anything else (extras such as ``socks``) optional."""
    low = name.lower()
    if low == "peerdependencies":
        return "peer"
    if low == "build":
        return "build"
    words = re.split(r"[^a-z]+", low)
    if any(re.fullmatch(_DOCS_WORDS, w) for w in words):
        return "documentation"
    if any(re.fullmatch(_DEV_WORDS, w) for w in words):
        return "development"
    return "optional"
