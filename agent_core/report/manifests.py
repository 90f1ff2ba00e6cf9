"""Dependency manifests, parsed: what a repository declares it depends on.

:func:`parse_manifest` reads ``pyproject.toml``, ``requirements*.txt``, ``package.json``,
``Cargo.toml``, ``go.mod`` and ``setup.cfg`` into a :class:`Manifest`; any other file is
``unparsed``, and one that does not parse is ``invalid`` with the reason. What a project needs only to
develop it is never a runtime dependency: a development requirements file (``requirements-dev.txt``,
``requirements/test.txt``...) lists ``dev`` dependencies, and extras or dependency groups are ``groups``.
The project's own description (``[project] description``, setup.cfg's ``[metadata]``, ``setup.py``'s
``description=``, package.json, Cargo.toml) is kept as ``description``. :func:`notable_dependencies`
names the well-known dependencies and what each is known for. Pure functions over text, no I/O.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

ManifestStatus = Literal["parsed", "unparsed", "invalid"]


@dataclass(frozen=True, kw_only=True)
class Dependency:
    name: str
    spec: str = ""  # version constraint as written ("" = any), environment markers dropped

    def text(self) -> str:
        if not self.spec:
            return self.name
        glue = "" if self.spec[0] in "<>=!~[(@" else " "
        return f"{self.name}{glue}{self.spec}"


@dataclass(frozen=True, kw_only=True)
class Manifest:
    """What one manifest declares. ``partial``: the file was cut when read, lists may be incomplete."""

    path: str
    status: ManifestStatus
    runtime: tuple[Dependency, ...] = ()
    dev: tuple[Dependency, ...] = ()
    groups: tuple[tuple[str, tuple[Dependency, ...]], ...] = ()  # extras / optional groups
    build_backend: str | None = None
    indirect: int = 0
    partial: bool = False
    detail: str | None = None  # why it could not be parsed
    description: str | None = None  # the project's own one-line description, when the manifest has one
    scripts: tuple[tuple[str, str], ...] = ()  # commands it installs: (name, what runs), e.g. console scripts

    def all_dependencies(self) -> Iterable[Dependency]:
        yield from self.runtime
        yield from self.dev
        for _name, deps in self.groups:
            yield from deps


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\[[^\]]*\])?\s*(.*)$")
_GO_REQUIRE = re.compile(r"^\s*([^\s()]+)\s+(v[^\s]+)(\s*//\s*indirect)?")
_DEV_WORDS = (
    r"(dev|devel|develop|development|test|tests|testing|lint|linting|docs?|ci|typing|check|style|bench)"
)
_DEV_REQUIREMENTS = re.compile(
    rf"(^|/)(requirements[-_.]{_DEV_WORDS}\b[\w.-]*|{_DEV_WORDS}[-_]requirements[\w.-]*|requirements/{_DEV_WORDS}\b[\w.-]*)\.txt$"
)
_SETUP_PY_DESCRIPTION = re.compile(r"(?<![\w.])description\s*=\s*(?P<q>[\"'])(?P<text>[^\"'\n]{1,300})(?P=q)")


def parse_manifest(path: str, text: str, *, partial: bool = False) -> Manifest:
    """Parse the dependency manifests the report understands; others are ``unparsed``."""
    name = path.rsplit("/", 1)[-1].lower()
    parser = _PARSERS.get(name)
    if parser is None and is_requirements_file(path):
        parser = _parse_requirements
    if parser is None:
        described = _SETUP_PY_DESCRIPTION.search(text) if name == "setup.py" else None
        return Manifest(path=path, status="unparsed", description=described["text"] if described else None)
    try:
        fields = parser(text)
    except (ValueError, configparser.Error) as exc:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        reason = "the file was cut when read" if partial else _first_line(str(exc))
        return Manifest(path=path, status="invalid", detail=reason)
    if parser is _parse_requirements and is_dev_requirements(path):
        fields = {"dev": fields["runtime"]}
    return Manifest(path=path, status="parsed", partial=partial, **fields)


def is_requirements_file(path: str) -> bool:
    """``requirements*.txt`` anywhere, or any ``.txt`` in a ``requirements/`` folder."""
    low = path.lower()
    return bool(re.search(r"(^|/)(requirements[\w.-]*|requirements/[\w.-]+)\.txt$", low))


def is_dev_requirements(path: str) -> bool:
    """A requirements file for developing the project, not running it: ``requirements-dev.txt``,
    ``test-requirements.txt``, ``requirements/lint.txt``..."""
    return bool(_DEV_REQUIREMENTS.search(path.lower()))


def _parse_pyproject(text: str) -> dict[str, Any]:
    data = tomllib.loads(text)
    project = _table(data.get("project"))
    runtime = [_requirement(s) for s in _strings(project.get("dependencies"))]
    groups = {
        k: [_requirement(s) for s in _strings(v)]
        for k, v in _table(project.get("optional-dependencies")).items()
    }
    groups.update(
        {k: [_requirement(s) for s in _strings(v)] for k, v in _table(data.get("dependency-groups")).items()}
    )
    poetry = _table(_table(data.get("tool")).get("poetry"))
    runtime += [_named(k, v) for k, v in _table(poetry.get("dependencies")).items() if k.lower() != "python"]
    dev = [_named(k, v) for k, v in _table(poetry.get("dev-dependencies")).items()]
    for group, body in _table(poetry.get("group")).items():
        groups[group] = [_named(k, v) for k, v in _table(_table(body).get("dependencies")).items()]
    backend = _table(data.get("build-system")).get("build-backend")
    return {
        "runtime": _deps(runtime),
        "dev": _deps(dev),
        "groups": _groups(groups),
        "build_backend": backend if isinstance(backend, str) else None,
        "description": _text(project.get("description")) or _text(poetry.get("description")),
        "scripts": _scripts({**_table(poetry.get("scripts")), **_table(project.get("scripts"))}),
    }


def _parse_requirements(text: str) -> dict[str, Any]:
    deps = []
    for raw in text.replace("\\\n", " ").splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if not line or line.startswith("-") or "://" in line or line.startswith((".", "/")):
            continue  # options (-r, -e, --hash...), URLs and local paths name no package
        dep = _requirement(line)
        if dep.name:
            deps.append(dep)
    return {"runtime": _deps(deps)}


def _parse_package_json(text: str) -> dict[str, Any]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    groups = {
        k: [_named(n, v) for n, v in _table(data.get(k)).items()]
        for k in ("peerDependencies", "optionalDependencies")
    }
    return {
        "runtime": _deps(_named(n, v) for n, v in _table(data.get("dependencies")).items()),
        "dev": _deps(_named(n, v) for n, v in _table(data.get("devDependencies")).items()),
        "groups": _groups(groups),
        "description": _text(data.get("description")),
        "scripts": _scripts(
            {str(data.get("name", "")): bin_} if isinstance(bin_ := data.get("bin"), str) else _table(bin_)
        ),
    }


def _parse_cargo(text: str) -> dict[str, Any]:
    data = tomllib.loads(text)
    runtime = _table(data.get("dependencies")) or _table(_table(data.get("workspace")).get("dependencies"))
    return {
        "runtime": _deps(_named(k, v) for k, v in runtime.items()),
        "dev": _deps(_named(k, v) for k, v in _table(data.get("dev-dependencies")).items()),
        "groups": _groups(
            {"build": [_named(k, v) for k, v in _table(data.get("build-dependencies")).items()]}
        ),
        "description": _text(_table(data.get("package")).get("description")),
    }


def _parse_go_mod(text: str) -> dict[str, Any]:
    direct, indirect, in_block = [], 0, False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("require ("):
            in_block = True
            continue
        if in_block and line.startswith(")"):
            in_block = False
            continue
        if not in_block and not line.startswith("require "):
            continue
        match = _GO_REQUIRE.match(line.removeprefix("require "))
        if match is None:
            continue
        if match.group(3):
            indirect += 1
        else:
            direct.append(Dependency(name=match.group(1), spec=match.group(2)))
    return {"runtime": _deps(direct), "indirect": indirect}


def _parse_setup_cfg(text: str) -> dict[str, Any]:
    config = configparser.ConfigParser(interpolation=None)
    config.read_string(text)
    runtime = config.get("options", "install_requires", fallback="")
    tests = config.get("options", "tests_require", fallback="")
    extras = config["options.extras_require"] if config.has_section("options.extras_require") else {}
    console = config.get("options.entry_points", "console_scripts", fallback="")
    scripts = dict(line.split("=", 1) for line in console.splitlines() if "=" in line)
    return {
        "runtime": _deps(_requirement(s) for s in runtime.splitlines() if s.strip()),
        "dev": _deps(_requirement(s) for s in tests.splitlines() if s.strip()),
        "groups": _groups(
            {k: [_requirement(s) for s in v.splitlines() if s.strip()] for k, v in extras.items()}
        ),
        "description": _text(config.get("metadata", "description", fallback=None)),
        "scripts": _scripts(scripts),
    }


_PARSERS = MappingProxyType(
    {
        "pyproject.toml": _parse_pyproject,
        "package.json": _parse_package_json,
        "cargo.toml": _parse_cargo,
        "go.mod": _parse_go_mod,
        "setup.cfg": _parse_setup_cfg,
    }
)


def _requirement(text: str) -> Dependency:
    """A PEP 508 string: the name and the version part, without extras or environment markers."""
    match = _REQUIREMENT.match(text.split(";", 1)[0])
    if match is None:
        return Dependency(name="")
    return Dependency(name=match.group(1), spec=match.group(3).strip().strip("()").replace(" ", "")[:40])


def _named(name: str, value: Any) -> Dependency:
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


def _deps(items: Iterable[Dependency]) -> tuple[Dependency, ...]:
    return tuple(d for d in items if d.name)


def _groups(groups: Mapping[str, list[Dependency]]) -> tuple[tuple[str, tuple[Dependency, ...]], ...]:
    return tuple((name, _deps(deps)) for name, deps in groups.items() if _deps(deps))


def _table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _scripts(table: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (str(k).strip(), str(v).strip()) for k, v in table.items() if str(k).strip() and isinstance(v, str)
    )


def _text(value: Any) -> str | None:
    """A one-line description as written, or None (not a string, empty, or a ``file:`` reference)."""
    if not isinstance(value, str) or not value.strip() or value.strip().startswith(("file:", "attr:")):
        return None
    return " ".join(value.split())


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


# What a dependency is known for, by normalised name (lower case, "_" as "-"); Go paths without /vN.
NOTABLE_DEPENDENCIES = MappingProxyType(
    {
        **dict.fromkeys(("django", "flask", "fastapi", "starlette", "tornado", "sanic", "aiohttp"), "web"),
        **dict.fromkeys(
            ("express", "koa", "next", "nuxt", "@nestjs/core", "actix-web", "axum", "rocket"), "web"
        ),
        **dict.fromkeys(
            ("github.com/gin-gonic/gin", "github.com/labstack/echo", "github.com/gofiber/fiber"), "web"
        ),
        **dict.fromkeys(("requests", "httpx", "urllib3", "axios", "reqwest", "hyper"), "http"),
        **dict.fromkeys(
            ("pytest", "hypothesis", "jest", "mocha", "vitest", "github.com/stretchr/testify"), "testing"
        ),
        **dict.fromkeys(
            ("click", "typer", "rich", "clap", "commander", "yargs", "github.com/spf13/cobra"), "cli"
        ),
        **dict.fromkeys(("tokio", "async-std", "trio", "anyio"), "async"),
        **dict.fromkeys(
            ("react", "vue", "svelte", "@angular/core", "gradio", "streamlit", "tailwindcss"), "ui"
        ),
        **dict.fromkeys(("numpy", "pandas", "scipy", "polars", "pydantic"), "data"),
        **dict.fromkeys(("torch", "tensorflow", "scikit-learn", "transformers", "jax", "keras"), "ml"),
        **dict.fromkeys(
            ("sqlalchemy", "peewee", "prisma", "typeorm", "diesel", "sqlx", "gorm.io/gorm"), "orm"
        ),
        **dict.fromkeys(
            ("webpack", "vite", "esbuild", "rollup", "typescript", "setuptools", "hatchling"), "build"
        ),
        **dict.fromkeys(("eslint", "prettier", "ruff", "black", "mypy", "flake8", "pylint"), "lint"),
        **dict.fromkeys(("uvicorn", "gunicorn"), "server"),
        **dict.fromkeys(("serde", "serde-json", "protobuf"), "serialization"),
        **dict.fromkeys(("openai", "anthropic", "langchain", "llama-index"), "llm"),
        **dict.fromkeys(("grpcio", "google.golang.org/grpc", "tonic"), "rpc"),
    }
)


def notable_dependencies(manifests: Iterable[Manifest]) -> list[tuple[str, str]]:
    """(name as written, category) of the well-known dependencies, sorted by name, each once."""
    found: dict[str, tuple[str, str]] = {}
    for manifest in manifests:
        for dep in manifest.all_dependencies():
            key = re.sub(r"/v\d+$", "", dep.name.lower().replace("_", "-"))
            category = NOTABLE_DEPENDENCIES.get(key)
            if category is not None and key not in found:
                found[key] = (dep.name, category)
    return sorted(found.values(), key=lambda item: item[0].lower())


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
