""".NET's manifests: solutions (``*.sln``), MSBuild projects (``*.csproj``, ``*.fsproj``, ``*.vbproj``,
``Directory.Build.props``), central package versions (``Directory.Packages.props``) and ``global.json``.

A solution lists its projects as ``Project("{TYPE}") = "Name", "src\\Name\\Name.csproj", "{GUID}"``
(solution folders have a path without a project extension and are skipped). A project references
packages with ``<PackageReference Include="X" Version="1.2" />`` (with central package management the
version lives in ``Directory.Packages.props`` as ``<PackageVersion Include="X" Version="1.2" />``) and the
repository's own projects with ``<ProjectReference Include="..\\Core\\Core.csproj" />``. A test project
references ``Microsoft.NET.Test.Sdk`` or says ``<IsTestProject>true</IsTestProject>``: all it references
is for testing. XML is parsed by expat with document types and entities refused; ``$(Property)``
versions are replaced once from the file's own properties. Pure functions.
"""

from __future__ import annotations

import json
import re
from typing import Any
from xml.etree import ElementTree

from agent_core.report.manifest_values import Dependency, deps, groups, spec_text, table, text, xml_root

Fields = dict[str, Any]

_PROJECT_LINE = re.compile(
    r'^Project\("\{[0-9A-Fa-f-]{1,40}\}"\)\s{0,9}=\s{0,9}"([^"\n]{1,200})",\s{0,9}"([^"\n]{1,400})"'
)
_PROJECT_FILE = re.compile(r"\.(cs|fs|vb|vcx|sql|sfc|wap|njs|py|shp|dcp)proj$", re.IGNORECASE)
_PROPERTY = re.compile(r"\$\((\w{1,100})\)")
TEST_SDK = "microsoft.net.test.sdk"


def parse_sln(source: str) -> Fields:
    """The solution's projects: their folders (``workspaces``, forward slashes) and names (``own_names``)."""
    folders: list[str] = []
    names: list[str] = []
    for line in source.splitlines():
        match = _PROJECT_LINE.match(line.strip())
        if match is None or not _PROJECT_FILE.search(match.group(2)):
            continue  # a solution folder, or a line that only looks like a project
        path = match.group(2).replace("\\", "/").strip("/")
        names.append(match.group(1))
        folders.append(path.rpartition("/")[0] or ".")
    return {"workspaces": tuple(dict.fromkeys(folders)), "own_names": tuple(dict.fromkeys(names))}


def parse_msbuild(source: str) -> Fields:
    """An MSBuild project (or ``Directory.Build.props``): package references (a test project's all
    development; ``PrivateAssets="all"`` ones, analyzers and build tools, apart), project references,
    its assembly name, licence and description. A file that is not well-formed XML (cut when read, or
    an unbalanced tag) is read item by item (:func:`_scanned`)."""
    root = _root(source)
    properties = _properties(root)
    references: list[Dependency] = []
    private: list[Dependency] = []
    for item in root.iter("PackageReference"):
        dep = _package(item, properties)
        if dep is None:
            continue
        assets = (item.get("PrivateAssets") or item.findtext("PrivateAssets") or "").strip().lower()
        (private if assets == "all" else references).append(dep)
    test = _is_test(properties, references + private)
    projects = [
        _stem(item.get("Include") or "") for item in root.iter("ProjectReference") if item.get("Include")
    ]
    return {
        "runtime": () if test else deps(references),
        "dev": deps(references) if test else (),
        "groups": groups({"build": private}),
        "name": text(properties.get("AssemblyName") or properties.get("PackageId")),
        "description": text(properties.get("Description")),
        "license": text(properties.get("PackageLicenseExpression")),
        "version": text(properties.get("Version") or properties.get("VersionPrefix")),
        "own_names": tuple(dict.fromkeys(p for p in projects if p)),
        "test_project": test,
    }


def parse_packages_props(source: str) -> Fields:
    """Central package management: each ``PackageVersion``'s version (``versions``); a
    ``GlobalPackageReference`` applies to every project (runtime)."""
    root = _root(source)
    properties = _properties(root)
    pinned = [
        dep
        for item in root.iter("PackageVersion")
        if item.get("Include") and (dep := _package(item, properties)) is not None
    ]
    everywhere = [
        dep for item in root.iter("GlobalPackageReference") if (dep := _package(item, properties)) is not None
    ]
    return {"versions": deps(pinned), "runtime": deps(everywhere)}


_ITEM = re.compile(
    r"<(PackageReference|PackageVersion|GlobalPackageReference|ProjectReference)\b([^<>]{0,1000})>"
)
_ATTRIBUTE = re.compile(r'(\w{1,40})\s{0,4}=\s{0,4}"([^"<>]{0,400})"')
_SIMPLE_PROPERTY = re.compile(r"<(\w{1,100})>([^<>]{1,200})</(\w{1,100})>")


def _root(source: str) -> ElementTree.Element:
    """The document's root, or, when it is not well-formed XML, one rebuilt from its items and simple
    properties (document types and entities are refused either way: :func:`xml_root`)."""
    try:
        return xml_root(source)
    except ElementTree.ParseError:
        return _scanned(source)


def _scanned(source: str) -> ElementTree.Element:
    """Items (``<PackageReference Include=... Version=... />``) and ``<Name>value</Name>`` properties
    found by a linear scan, as an element tree shaped like the document's."""
    root = ElementTree.Element("Project")
    group = ElementTree.SubElement(root, "PropertyGroup")
    for match in _SIMPLE_PROPERTY.finditer(source):
        if match.group(1) == match.group(3):
            ElementTree.SubElement(group, match.group(1)).text = match.group(2)
    items = ElementTree.SubElement(root, "ItemGroup")
    for match in _ITEM.finditer(source):
        attributes = {k: v for k, v in _ATTRIBUTE.findall(match.group(2))}
        ElementTree.SubElement(items, match.group(1), attributes)
    return root


def parse_global_json(source: str) -> Fields:
    """``global.json``: the .NET SDK version it pins (``toolchain``)."""
    data = json.loads(source)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    version = table(data.get("sdk")).get("version")
    return {
        "toolchain": f".NET SDK {version.strip()[:40]}"
        if isinstance(version, str) and version.strip()
        else None
    }


def _properties(root: ElementTree.Element) -> dict[str, str]:
    """The file's own ``<PropertyGroup>`` values, the first of each name (conditions are not evaluated)."""
    found: dict[str, str] = {}
    for group in root.iter("PropertyGroup"):
        for prop in group:
            if isinstance(prop.tag, str) and prop.text and prop.text.strip():
                found.setdefault(prop.tag, prop.text.strip())
    return found


def _package(item: ElementTree.Element, properties: dict[str, str]) -> Dependency | None:
    name = (item.get("Include") or item.get("Update") or "").strip()
    if not name or len(name) > 200:
        return None
    version = (item.get("Version") or item.findtext("Version") or item.get("VersionOverride") or "").strip()
    version = _PROPERTY.sub(lambda m: properties.get(m.group(1), m.group(0)), version)  # once: no recursion
    return Dependency(name=name, spec=spec_text(version))


def _is_test(properties: dict[str, str], references: list[Dependency]) -> bool:
    return properties.get("IsTestProject", "").lower() == "true" or any(
        d.name.lower() == TEST_SDK for d in references
    )


def _stem(path: str) -> str:
    """``..\\Core\\Core.csproj`` → ``Core``."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name else name
