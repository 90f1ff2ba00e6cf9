"""The values a manifest parser builds (:class:`Dependency`) and the small helpers every format shares:
reading TOML/JSON tables defensively, PEP 508 strings, ``name = spec`` tables. Pure functions, no I/O."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
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


def requirement(value: str) -> Dependency:
    """A PEP 508 string: the name and the version part, without extras or environment markers."""
    match = _REQUIREMENT.match(value.split(";", 1)[0][:400])
    if match is None:
        return Dependency(name="")
    return Dependency(name=match.group(1), spec=match.group(3).strip().strip("()").replace(" ", "")[:40])


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
    return Dependency(name=str(name), spec=spec.strip()[:40])


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
