"""The JVM's manifests: Maven ``pom.xml``, Gradle ``settings.gradle(.kts)``, ``build.gradle(.kts)`` and the
version catalog ``gradle/libs.versions.toml``.

Dependencies are named ``group:artifact`` (how Maven Central and the test-framework table name them).
A Gradle build's ``libs.x.y`` references are kept as written here and resolved through the catalog by
:func:`~agent_core.report.manifest_links.resolve` once every manifest is read; ``project(":x")`` and
``projects.x`` references are the repository's own projects (``own_names``), never dependencies.
Gradle scripts are Groovy or Kotlin and never run: each line is read for the calls it holds, block names
(``commonTest { ... }``) tracked on a bounded stack. Linear, pure functions.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from agent_core.report.manifest_values import (
    Dependency,
    deps,
    groups,
    quoted,
    spec_text,
    strings,
    table,
    text,
    xml_root,
)

Fields = dict[str, Any]

_MAX_DEPTH = 100
# configuration(notation): implementation, api, testImplementation, kapt, "friends"(...), ...
_CALL = re.compile(r"""(?<![\w.])["']?([A-Za-z][\w]{0,60})["']?\s{0,4}(\(|\s)""")
_CATALOG_REF = re.compile(r"(?<![\w.])(libs(?:\.\w{1,80}){1,8})")
_PROJECT_REF = re.compile(r"""project\(\s{0,4}(?:path\s{0,4}[:=]\s{0,4})?["']:?([\w:.\-]{1,200})["']""")
_PROJECTS_ACCESSOR = re.compile(r"(?<![\w.])projects((?:\.\w{1,80}){1,6})")
_KOTLIN_MODULE = re.compile(r"""(?<![\w.])kotlin\(\s{0,4}["']([\w.\-]{1,80})["']""")
_PROJECT_DIR = re.compile(
    r"""project\(\s{0,4}["']([\w:.\-]{1,200})["']\s{0,4}\)\s{0,4}\.projectDir\s{0,4}=\s{0,4}"""
    r"""(?:file|new\s{1,4}File)\(\s{0,4}(?:rootDir\s{0,4},\s{0,4})?["']([^"'\n]{1,300})["']"""
)
_CONFIGURATIONS = re.compile(
    r"(?i)^(implementation|api|compile|compileonly|runtimeonly|runtime|kapt|ksp|annotationprocessor"
    r"|testimplementation|testapi|testcompile|testcompileonly|testruntimeonly|testruntime|testfixturesapi"
    r"|testfixturesimplementation|androidtestimplementation|debugimplementation|releaseimplementation"
    r"|classpath|friends|\w{1,40}(?:implementation|api|compileonly|runtimeonly))$"
)


def parse_pom(source: str) -> Fields:
    """Maven: ``<modules>``, the dependencies (``test``/``provided`` scopes apart), the versions its
    ``<dependencyManagement>`` pins, the artifact and its parent."""
    root = xml_root(source)
    properties = _properties(root)
    runtime: list[Dependency] = []
    dev: list[Dependency] = []
    for dep in root.findall("./dependencies/dependency"):
        scope = (dep.findtext("scope") or "").strip()
        (dev if scope in ("test", "provided") else runtime).append(_maven(dep, properties))
    managed = [
        _maven(dep, properties) for dep in root.findall("./dependencyManagement/dependencies/dependency")
    ]
    licenses = [name.strip() for name in (e.text for e in root.findall("./licenses/license/name")) if name]
    artifact = (root.findtext("artifactId") or "").strip()
    group = (root.findtext("groupId") or root.findtext("parent/groupId") or "").strip()
    parent = _maven(root.find("parent")) if root.find("parent") is not None else None
    return {
        "runtime": deps(runtime),
        "dev": deps(dev),
        "versions": deps(managed),
        "name": text(artifact),
        "description": text(root.findtext("description")),
        "license": " OR ".join(licenses) or None,
        "version": text(root.findtext("version")),
        "workspaces": tuple(
            m.text.strip() for m in root.findall("./modules/module") if m.text and m.text.strip()
        ),
        "own_names": tuple(n for n in (f"{group}:{artifact}" if group and artifact else "",) if n),
        "parent": parent.name if parent is not None and parent.name else None,
    }


def _maven(dep: Any, properties: dict[str, str] | None = None) -> Dependency:
    name = ":".join(
        filter(None, ((dep.findtext("groupId") or "").strip(), (dep.findtext("artifactId") or "").strip()))
    )
    written = (dep.findtext("version") or "").strip()
    whole = _PROPERTY.fullmatch(written)  # `${guava.version}`, defined in this POM's <properties>
    if whole is not None and properties and whole.group(1) in properties:
        written = properties[whole.group(1)]
    return Dependency(name=name, spec=spec_text(written))


_PROPERTY = re.compile(r"\$\{([\w.-]{1,200})\}")
_MAX_PROPERTIES = 2_000


def _properties(root: Any) -> dict[str, str]:
    """The POM's own ``<properties>`` (a parent's are not read: a version only it defines stays as
    written), literal values only, at most :data:`_MAX_PROPERTIES`."""
    found: dict[str, str] = {}
    holder = root.find("./properties")
    for element in list(holder)[:_MAX_PROPERTIES] if holder is not None else ():
        tag, value = str(element.tag), (element.text or "").strip()
        if value and "$" not in value and len(value) <= 200:
            found[tag] = value
    return found


def parse_gradle_settings(source: str) -> Fields:
    """``include(":app", ":lib:core")`` / ``include ':app'`` (also over several lines) of
    ``settings.gradle(.kts)``, as folders; ``rootProject.name``."""
    members: list[str] = []
    name = None
    open_include = False
    moved: dict[str, str] = {}  # project(":a:b").projectDir = file("./formats/b"): the member's folder
    for raw in source.splitlines():
        line = _without_comment(raw).strip()
        if (where := _PROJECT_DIR.match(line)) is not None:
            moved[where.group(1).strip(":").replace(":", "/")] = where.group(2).removeprefix("./").strip("/")
            continue
        if open_include or (line.startswith("include") and not line.startswith("includeBuild")):
            members += [q.strip(":").replace(":", "/") for q in quoted(line) if q.strip(":")]
            if line.startswith("include"):
                open_include = line.count("(") > line.count(")")
            elif ")" in line:
                open_include = False
        elif line.startswith("rootProject.name"):
            name = next(iter(quoted(line)), None)
    return {"workspaces": tuple(dict.fromkeys(moved.get(m, m) for m in members)), "name": name}


def parse_gradle_build(source: str) -> Fields:
    """The dependencies a ``build.gradle(.kts)`` declares, by configuration: ``test*`` configurations and
    any inside a ``*Test { }`` source set (Kotlin multiplatform's ``commonTest``, ``jvmTest``) are
    development; ``classpath`` (a ``buildscript { }``'s Gradle plugins) is the build's; ``libs.x`` catalog
    references as written; project references are ``own_names``."""
    runtime: list[Dependency] = []
    dev: list[Dependency] = []
    build: list[Dependency] = []
    own: list[str] = []
    blocks: list[str] = []
    for raw in source.splitlines():
        line = _without_comment(raw).strip()
        own += [p.replace(":", "/").strip("/") for p in _PROJECT_REF.findall(line)]
        own += [a.strip(".") for a in _PROJECTS_ACCESSOR.findall(line)]
        call = _CALL.match(line)
        if call is not None and _CONFIGURATIONS.match(call.group(1)):
            found = _notations(line[call.end() - 1 :])
            configuration = call.group(1).lower()
            testing = "test" in configuration or any(b.lower().endswith("test") for b in blocks)
            (build if configuration == "classpath" else dev if testing else runtime).extend(found)
        _track_blocks(line, blocks)
    return {
        "runtime": deps(runtime),
        "dev": deps(dev),
        "groups": groups({"build": build}),
        "own_names": tuple(dict.fromkeys(own)),
    }


def _notations(arguments: str) -> list[Dependency]:
    """``"g:a:v"``, ``libs.x.y``, ``kotlin("test")`` and ``group: "g", name: "a", version: "v"``."""
    found = [Dependency(name=ref, spec="") for ref in _CATALOG_REF.findall(arguments)]
    found += [
        Dependency(name=f"org.jetbrains.kotlin:kotlin-{m}", spec="")
        for m in _KOTLIN_MODULE.findall(arguments)
    ]
    literals = quoted(arguments)
    if "group" in arguments and "name" in arguments and len(literals) >= 2 and ":" not in literals[0]:
        return [
            *found,
            Dependency(name=f"{literals[0]}:{literals[1]}", spec=literals[2] if len(literals) > 2 else ""),
        ]
    for literal in literals:
        parts = literal.split(":")
        if 2 <= len(parts) <= 4 and all(parts[:2]) and " " not in literal:
            found.append(Dependency(name=f"{parts[0]}:{parts[1]}", spec=parts[2] if len(parts) > 2 else ""))
    return found


def _track_blocks(line: str, blocks: list[str]) -> None:
    """Push the word before each ``{`` and pop at each ``}`` (bounded; unbalanced text just empties it)."""
    for match in re.finditer(r"(\w{0,60})\s{0,4}\{|\}", line):
        if match.group(0) == "}":
            if blocks:
                blocks.pop()
        elif len(blocks) < _MAX_DEPTH:
            blocks.append(match.group(1) or "")


def parse_version_catalog(source: str) -> Fields:
    """``gradle/libs.versions.toml``: every library as ``group:artifact`` with its version (``versions``)
    and the catalog itself (``catalog``: alias → the libraries it stands for; bundles included)."""
    data = tomllib.loads(source)
    versions = {k: v for k, v in table(data.get("versions")).items() if isinstance(v, str)}
    libraries: dict[str, Dependency] = {}
    for alias, spec in table(data.get("libraries")).items():
        dep = _library(spec, versions)
        if dep is not None:
            libraries[_alias(alias)] = dep
    catalog: dict[str, tuple[Dependency, ...]] = {alias: (dep,) for alias, dep in libraries.items()}
    for alias, members in table(data.get("bundles")).items():
        catalog[f"bundles.{_alias(alias)}"] = tuple(
            libraries[_alias(m)] for m in strings(members) if _alias(m) in libraries
        )
    plugins = [
        Dependency(name=str(spec.get("id")), spec=_version(spec, versions))
        for spec in table(data.get("plugins")).values()
        if isinstance(spec, dict) and isinstance(spec.get("id"), str)
    ]
    return {
        "versions": deps(libraries.values()),
        "groups": groups({"build": plugins}),
        "catalog": tuple(catalog.items()),
    }


def _library(spec: Any, versions: dict[str, str]) -> Dependency | None:
    if isinstance(spec, str):  # "group:artifact:version"
        parts = spec.split(":")
        return (
            Dependency(name=f"{parts[0]}:{parts[1]}", spec=spec_text(":".join(parts[2:])))
            if len(parts) >= 2
            else None
        )
    if not isinstance(spec, dict):
        return None
    module = spec.get("module")
    if not isinstance(module, str):
        module = f"{spec.get('group')}:{spec.get('name')}" if spec.get("group") and spec.get("name") else None
    return Dependency(name=module, spec=_version(spec, versions)) if module else None


def _version(spec: dict[str, Any], versions: dict[str, str]) -> str:
    """A catalog entry's version: ``version = "1"``, ``version.ref = "x"``, or ``{ strictly/require/prefer }``."""
    version = spec.get("version")
    if isinstance(version, str):
        return spec_text(version)
    if isinstance(version, dict):
        ref = version.get("ref")
        if isinstance(ref, str):
            return spec_text(versions.get(ref, ""))
        found = next(
            (version[k] for k in ("strictly", "require", "prefer") if isinstance(version.get(k), str)), ""
        )
        return spec_text(str(found))
    return ""


def catalog_alias(reference: str) -> str:
    """The catalog key a build script's ``libs.junit.jupiter.api`` reference means."""
    return _alias(reference.removeprefix("libs."))


def _alias(alias: str) -> str:
    """Gradle maps ``-``, ``_`` and ``.`` in an alias to the same accessor separator; case is kept apart
    only in accessors, so keys compare lower-cased."""
    return re.sub(r"[-_.]", ".", alias).lower()


def _without_comment(line: str) -> str:
    """The line before a ``//`` comment that starts it or follows white space (``https://`` is kept)."""
    at = line.find("//")
    while at != -1:
        if at == 0 or line[at - 1].isspace():
            return line[:at]
        at = line.find("//", at + 2)
    return line
