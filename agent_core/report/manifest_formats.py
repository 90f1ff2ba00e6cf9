"""One parser per manifest format: text in, the fields of a :class:`~agent_core.report.manifests.Manifest`
out (a dict). Each raises ``ValueError`` (or a ``configparser``/XML error) on a file it cannot read.

Every parser is linear in its input: line scans, ``tomllib``, ``json`` and expat, and no regular
expression that can backtrack over a line (the input is a whole manifest, up to 512 KB, from an
untrusted repository). Pure functions, no I/O.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from agent_core.report.manifest_values import (
    Dependency,
    deps,
    groups,
    named,
    requirement,
    scripts,
    spec_text,
    strings,
    table,
    text,
)

Fields = dict[str, Any]


def parse_pyproject(source: str) -> Fields:
    data = tomllib.loads(source)
    project = table(data.get("project"))
    runtime = [requirement(s) for s in strings(project.get("dependencies"))]
    named_groups = {
        k: [requirement(s) for s in strings(v)]
        for k, v in table(project.get("optional-dependencies")).items()
    }
    named_groups.update(
        {k: [requirement(s) for s in strings(v)] for k, v in table(data.get("dependency-groups")).items()}
    )
    tool = table(data.get("tool"))
    if "dependencies" in strings(project.get("dynamic")):
        # dynamic metadata a Hatch hook fills in (`[tool.hatch.metadata.hooks.uv-dynamic-versioning]`)
        for hook in table(table(table(tool.get("hatch")).get("metadata")).get("hooks")).values():
            runtime += [requirement(s) for s in strings(table(hook).get("dependencies"))]
            for k, v in table(table(hook).get("optional-dependencies")).items():
                named_groups.setdefault(k, [requirement(s) for s in strings(v)])
    poetry = table(tool.get("poetry"))
    runtime += [named(k, v) for k, v in table(poetry.get("dependencies")).items() if k.lower() != "python"]
    dev = [named(k, v) for k, v in table(poetry.get("dev-dependencies")).items()]
    for group, body in table(poetry.get("group")).items():
        named_groups[group] = [named(k, v) for k, v in table(table(body).get("dependencies")).items()]
    for group, specs in table(table(tool.get("pdm")).get("dev-dependencies")).items():
        named_groups.setdefault(group, [requirement(s) for s in strings(specs)])
    uv = table(tool.get("uv"))
    uv_workspace = table(uv.get("workspace"))
    local = [
        str(k)
        for k, v in table(uv.get("sources")).items()
        if isinstance(v, Mapping) and ("workspace" in v or "path" in v)
    ]
    backend = table(data.get("build-system")).get("build-backend")
    return {
        "runtime": deps(runtime),
        "dev": deps(dev),
        "groups": groups(named_groups),
        "build_backend": backend if isinstance(backend, str) else None,
        "description": text(project.get("description")) or text(poetry.get("description")),
        "scripts": scripts({**table(poetry.get("scripts")), **table(project.get("scripts"))}),
        "name": text(project.get("name")) or text(poetry.get("name")),
        "license": _license(project.get("license")) or _license(poetry.get("license")),
        "workspaces": tuple(strings(uv_workspace.get("members"))),
        "workspace_exclude": tuple(strings(uv_workspace.get("exclude"))),
        "own_names": tuple(local),
        "version": text(project.get("version")) or text(poetry.get("version")),
    }


_DIRECT_REFERENCE = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*@\s*\S")


def parse_requirements(source: str) -> Fields:
    found = []
    for raw in source.replace("\\\n", " ").splitlines():
        line = _without_comment(raw).strip()
        direct = _DIRECT_REFERENCE.match(line)  # PEP 508 "name @ git+https://...": a package all the same
        if direct is not None:
            found.append(Dependency(name=direct.group(1), spec="@ URL"))
            continue
        if not line or line.startswith("-") or "://" in line or line.startswith((".", "/")):
            continue  # options (-r, -e, --hash...), URLs and local paths name no package
        dep = requirement(line)
        if dep.name:
            found.append(dep)
    return {"runtime": deps(found)}


def parse_package_json(source: str) -> Fields:
    data = json.loads(source)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    workspaces = data.get("workspaces")
    if isinstance(workspaces, Mapping):  # yarn's {"packages": [...], "nohoist": [...]}
        workspaces = workspaces.get("packages")
    named_groups = {
        k: [named(n, v) for n, v in table(data.get(k)).items()]
        for k in ("peerDependencies", "optionalDependencies")
    }
    bin_ = data.get("bin")
    local = [
        str(n)
        for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
        for n, v in table(data.get(key)).items()
        if isinstance(v, str) and v.startswith(("workspace:", "file:", "link:", "portal:"))
    ]
    return {
        "runtime": deps(named(n, v) for n, v in table(data.get("dependencies")).items()),
        "dev": deps(named(n, v) for n, v in table(data.get("devDependencies")).items()),
        "groups": groups(named_groups),
        "description": text(data.get("description")),
        "scripts": scripts({str(data.get("name", "")): bin_} if isinstance(bin_, str) else table(bin_)),
        "name": text(data.get("name")),
        "license": _license(data.get("license")),
        "workspaces": tuple(strings(workspaces)),
        "own_names": tuple(dict.fromkeys(local)),
        "version": text(data.get("version")),
        "commands": tuple(str(v)[:300] for v in table(data.get("scripts")).values() if isinstance(v, str))[
            :200
        ],
    }


def parse_pnpm_workspace(source: str) -> Fields:
    """``packages:`` of ``pnpm-workspace.yaml`` (a block list or a flow list) and its version catalogs:
    ``catalog:`` (the default one) and ``catalogs: {name: {...}}``, which ``"x": "catalog:"`` /
    ``"catalog:name"`` versions in the members' ``package.json`` refer to. The rest is not read."""
    found: list[str] = []
    pinned: dict[tuple[str, str], str] = {}
    top = ""
    named = ""  # the named catalog being read, under ``catalogs:``
    outer: int | None = None  # the indentation of a named catalog's key
    for raw in source.splitlines():
        line = _without_comment(raw).rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if not indent:  # a top-level key
            key, _, rest = line.partition(":")
            top, named, outer = key.strip(), "", None
            if top == "packages" and rest.strip().startswith("["):
                found += [_unquote(item) for item in rest.strip().strip("[]").split(",") if item.strip()]
            continue
        if top == "packages" and line.strip().startswith("-"):
            found.append(_unquote(line.strip()[1:]))
        elif top in ("catalog", "catalogs"):
            key, _, value = line.strip().partition(":")
            if top == "catalogs" and (outer is None or indent <= outer) and not value.strip():
                named, outer = _unquote(key), indent
            elif value.strip() and (top == "catalog" or named):
                pinned[(named or "default", _unquote(key))] = spec_text(_unquote(value))
    return {
        "workspaces": tuple(g for g in found if g),
        "versions": tuple(Dependency(name=n, spec=v) for (_c, n), v in pinned.items() if n),
        "catalog": tuple(
            (f"catalog:{c}:{n}", (Dependency(name=n, spec=v),)) for (c, n), v in pinned.items() if n
        ),
    }


def parse_cargo(source: str) -> Fields:
    data = tomllib.loads(source)
    workspace = table(data.get("workspace"))
    package = table(data.get("package"))
    runtime = dict(table(data.get("dependencies")))
    for target in table(data.get("target")).values():  # [target.'cfg(...)'.dependencies]
        runtime.update(
            {k: v for k, v in table(table(target).get("dependencies")).items() if k not in runtime}
        )
    every = [
        *runtime.items(),
        *table(data.get("dev-dependencies")).items(),
        *table(workspace.get("dependencies")).items(),
    ]
    local = [str(k) for k, v in every if isinstance(v, Mapping) and "path" in v]
    version = package.get("version")
    license_ = package.get("license")
    if isinstance(license_, Mapping):  # license.workspace = true
        license_ = table(workspace.get("package")).get("license")
    return {
        "runtime": deps(named(k, v) for k, v in runtime.items()),
        "dev": deps(named(k, v) for k, v in table(data.get("dev-dependencies")).items()),
        "groups": groups({"build": [named(k, v) for k, v in table(data.get("build-dependencies")).items()]}),
        "description": text(package.get("description")),
        "name": text(package.get("name")),
        "license": _license(license_),
        "workspaces": tuple(strings(workspace.get("members"))),
        "workspace_exclude": tuple(strings(workspace.get("exclude"))),
        "versions": deps(named(k, v) for k, v in table(workspace.get("dependencies")).items()),
        "own_names": tuple(dict.fromkeys(local)),
        "version": version if isinstance(version, str) else None,
    }


def parse_go_mod(source: str) -> Fields:
    """``module``, ``go`` and every ``require`` (single lines and blocks); ``// indirect`` ones apart; the
    modules ``replace``d by a local folder (``=> ../component``) as ``own_names``: their code is in this
    repository (a multi-module repository's siblings), never a dependency.

    ``exclude``, ``retract``, ``tool`` and ``godebug`` blocks are skipped."""
    direct: list[Dependency] = []
    indirect: list[Dependency] = []
    local: list[str] = []
    module = go = None
    block: str | None = None
    for raw in source.splitlines():
        code, _, comment = raw.partition("//")
        words = code.split()
        if block is not None:
            if words[:1] == [")"]:
                block = None
            elif block == "require" and len(words) >= 2:
                (indirect if _indirect(comment) else direct).append(Dependency(name=words[0], spec=words[1]))
            elif block == "replace":
                local += _local_replace(words)
            continue
        if not words:
            continue
        if words[1:] == ["("]:
            block = words[0]
        elif words[0] == "require" and len(words) >= 3:
            (indirect if _indirect(comment) else direct).append(Dependency(name=words[1], spec=words[2]))
        elif words[0] == "replace":
            local += _local_replace(words[1:])
        elif words[0] == "module" and len(words) >= 2:
            module = words[1].strip('"')
        elif words[0] == "go" and len(words) >= 2:
            go = words[1]
    return {
        "runtime": deps(direct),
        "indirect_deps": deps(indirect),
        "name": module,
        "go_version": go,
        "own_names": tuple(dict.fromkeys(local)),
    }


def _local_replace(words: list[str]) -> list[str]:
    """The module a ``replace`` directive points at a local folder (``X [v] => ./dir``), as Go reads a
    path starting with ``./`` or ``../``; [] for a replacement by another module."""
    if "=>" not in words[1:3]:
        return []
    target = words[words.index("=>") + 1 :]
    path = target[0].strip('"') if target else ""
    return [words[0].strip('"')] if path in (".", "..") or path.startswith(("./", "../")) else []


def parse_setup_cfg(source: str) -> Fields:
    config = configparser.ConfigParser(interpolation=None)
    config.read_string(source)
    runtime = config.get("options", "install_requires", fallback="")
    tests = config.get("options", "tests_require", fallback="")
    extras = config["options.extras_require"] if config.has_section("options.extras_require") else {}
    console = config.get("options.entry_points", "console_scripts", fallback="")
    commands = dict(line.split("=", 1) for line in console.splitlines() if "=" in line)
    return {
        "runtime": deps(requirement(s) for s in runtime.splitlines() if s.strip()),
        "dev": deps(requirement(s) for s in tests.splitlines() if s.strip()),
        "groups": groups(
            {k: [requirement(s) for s in v.splitlines() if s.strip()] for k, v in extras.items()}
        ),
        "description": text(config.get("metadata", "description", fallback=None)),
        "scripts": scripts(commands),
        "name": text(config.get("metadata", "name", fallback=None)),
        "license": _license(config.get("metadata", "license", fallback=None)),
    }


def parse_go_work(source: str) -> Fields:
    """``go.work``: the ``go`` version and the modules it ``use``s (single lines and blocks), as folders."""
    members: list[str] = []
    go = None
    block = False
    for raw in source.splitlines():
        words = raw.partition("//")[0].split()
        if block:
            if words[:1] == [")"]:
                block = False
            elif words:
                members.append(words[0].strip('"').removeprefix("./").strip("/") or ".")
        elif words[:2] == ["use", "("]:
            block = True
        elif words[:1] == ["use"] and len(words) >= 2:
            members.append(words[1].strip('"').removeprefix("./").strip("/") or ".")
        elif words[:1] == ["go"] and len(words) >= 2:
            go = words[1]
    return {"workspaces": tuple(dict.fromkeys(members)), "go_version": go}


#: Composer's platform requirements: the PHP version, extensions and system libraries, not packages.
_PLATFORM = re.compile(
    r"^(php(-64bit|-ipv6|-zts|-debug)?|hhvm|ext-.+|lib-.+|composer(-plugin|-runtime)?-api)$"
)


def parse_composer(source: str) -> Fields:
    """``composer.json``: ``require`` (runtime) and ``require-dev`` without the platform requirements
    (``php``, ``ext-*``: said as the ``toolchain``), ``replace`` (packages the repository itself provides:
    ``own_names``)."""
    data = json.loads(source)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    require = table(data.get("require"))
    php = require.get("php")
    license_ = data.get("license")
    return {
        "runtime": deps(named(n, v) for n, v in require.items() if not _PLATFORM.match(str(n).lower())),
        "dev": deps(
            named(n, v)
            for n, v in table(data.get("require-dev")).items()
            if not _PLATFORM.match(str(n).lower())
        ),
        "name": text(data.get("name")),
        "description": text(data.get("description")),
        "license": " OR ".join(strings(license_)) or None
        if isinstance(license_, list)
        else _license(license_),
        "own_names": tuple(str(n) for n in table(data.get("replace"))),
        "toolchain": f"PHP {php.strip()[:40]}" if isinstance(php, str) and php.strip() else None,
    }


def _indirect(comment: str) -> bool:
    """Go writes ``// indirect``, possibly followed by ``; another comment``."""
    return comment.strip().split(";", 1)[0].strip() == "indirect"


_COMMENTS = {marker: re.compile(rf"(^|\s){re.escape(marker)}.*$") for marker in ("#", "//")}


def _without_comment(line: str, *, marker: str = "#") -> str:
    """The line before a comment that starts the line or follows white space (``pkg#egg`` is kept)."""
    return _COMMENTS[marker].sub("", line)


def _unquote(value: str) -> str:
    return value.strip().strip("\"'").strip()


def _license(value: Any) -> str | None:
    """A manifest's licence as written: a string, ``{text = ...}`` (pyproject) or ``{type: ...}`` (npm)."""
    if isinstance(value, Mapping):
        value = value.get("type") or value.get("text")
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        return None
    return " ".join(value.split())
