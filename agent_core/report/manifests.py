"""Dependency manifests, parsed: what a repository declares it depends on, and its workspace members.

:func:`parse_manifest` reads ``pyproject.toml``, ``requirements*.txt`` (and ``*-requirements.txt``),
``package.json``, ``pnpm-workspace.yaml``, ``Cargo.toml``, ``go.mod``, ``setup.cfg``, ``pom.xml`` and
``settings.gradle(.kts)`` into a :class:`Manifest` (one parser per format in
:mod:`~agent_core.report.manifest_formats`); any other file is ``unparsed``, and one that does not parse
is ``invalid`` with the reason. :func:`read_manifests` parses the manifests among the files read, from
their whole text (``FileContent.whole_text``), not the page the model saw.

Dependencies are kept apart by what they are for (:data:`GROUP_KINDS`): what a project needs only to
develop it or to build its documentation is never a runtime dependency (``requirements-dev.txt`` is
``development``, ``docs/requirements.txt`` and ``requirements-docs.txt`` are ``documentation``); a
``go.mod``'s ``// indirect`` requirements are counted exactly and named apart. Workspace globs and
members (npm/yarn ``workspaces``, pnpm ``packages``, Cargo ``[workspace] members``, Maven ``<modules>``,
Gradle ``include``) are ``workspaces``. :func:`notable_dependencies` names the well-known dependencies and
what each is known for. Pure functions over text, no I/O.
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any
from xml.etree.ElementTree import ParseError

from agent_core.repomodel.packages import is_test_package
from agent_core.report import manifest_dotnet as dotnet
from agent_core.report import manifest_formats as formats
from agent_core.report import manifest_jvm as jvm
from agent_core.report import manifest_native as native
from agent_core.report import manifest_ruby as ruby
from agent_core.report.manifest_links import (
    is_own,
    own_names_in_tree,
    own_package_names,
    resolve,
    root_workspaces,
)
from agent_core.report.manifest_values import (
    GROUP_KINDS,
    Dependency,
    GroupKind,
    Manifest,
    group_kind,
    is_dev_requirements,
    requirements_kind,
)
from agent_core.sources.manifest_files import (
    MANIFEST_NAMES,
    is_parsed_manifest,
    is_requirements_file,
    parsed_kind,
)
from agent_core.sources.models import FileContent
from agent_core.tools.observe import notable_role

__all__ = [
    "GROUP_KINDS",
    "NOTABLE_DEPENDENCIES",
    "Dependency",
    "GroupKind",
    "Manifest",
    "group_kind",
    "is_dev_requirements",
    "is_own",
    "is_requirements_file",
    "notable_dependencies",
    "own_names_in_tree",
    "own_package_names",
    "parse_manifest",
    "read_manifests",
    "requirements_kind",
    "root_workspaces",
]

_SETUP_PY_DESCRIPTION = re.compile(r"(?<![\w.])description\s*=\s*(?P<q>[\"'])(?P<text>[^\"'\n]{1,300})(?P=q)")


def parse_manifest(path: str, text: str, *, partial: bool = False) -> Manifest:
    """Parse the dependency manifests the report understands; others are ``unparsed``. A .NET project
    or a gemspec without a name of its own is named by its file (``Polly.Core.csproj`` → ``Polly.Core``)."""
    name = path.rsplit("/", 1)[-1].lower()
    kind = parsed_kind(path)
    parser = _PARSERS.get(kind.key) if kind is not None else None
    if parser is None and is_requirements_file(path):
        parser = formats.parse_requirements
    if parser is None:
        described = _SETUP_PY_DESCRIPTION.search(text) if name == "setup.py" else None
        return Manifest(path=path, status="unparsed", description=described["text"] if described else None)
    try:
        fields = parser(text.removeprefix("\ufeff"))  # a byte-order mark is no part of the format
    except (ValueError, configparser.Error, ParseError) as exc:  # TOML/JSON errors are ValueErrors
        reason = "the file was cut when read" if partial else _first_line(str(exc))
        return Manifest(path=path, status="invalid", detail=reason)
    except RecursionError:  # JSON or TOML nested thousands deep: no manifest looks like that
        reason = "nested too deeply to be a manifest"
        return Manifest(path=path, status="invalid", detail=reason)
    if parser is formats.parse_requirements:
        purpose = requirements_kind(path)
        if purpose != "runtime":
            fields = {"docs" if purpose == "documentation" else "dev": fields["runtime"]}
    if kind is not None and kind.package and kind.key[0] == "." and not fields.get("name"):
        fields["name"] = path.rsplit("/", 1)[-1][: -len(kind.key)]
    nuget_project = kind is not None and kind.ecosystem == "nuget" and kind.package
    if nuget_project and not fields.get("test_project") and is_test_package(path.rpartition("/")[0], "nuget"):
        fields["test_project"] = True  # Foo.Tests: its test SDK may come from an imported .targets
        fields["dev"], fields["runtime"] = (*fields.get("runtime", ()), *fields.get("dev", ())), ()
    return Manifest(path=path, status="parsed", partial=partial, **fields)


def read_manifests(files: Mapping[str, FileContent]) -> tuple[Manifest, ...]:
    """The manifests among ``files`` (path → what was read), parsed from their whole text when the source
    kept it, by path; references between them resolved (:func:`~agent_core.report.manifest_links.resolve`:
    Gradle catalog aliases, central .NET versions, Cargo ``workspace = true``)."""
    return resolve(tuple(_read(files)))


def _read(files: Mapping[str, FileContent]) -> Iterable[Manifest]:
    for path, content in sorted(files.items()):
        if not is_parsed_manifest(path) and notable_role(path) != "manifest":
            continue
        if content.whole_text is not None:
            yield parse_manifest(path, content.whole_text, partial=content.whole_cut)
        elif content.text is None:
            yield Manifest(path=path, status="invalid", detail=content.kind)
        else:
            yield parse_manifest(path, content.text, partial=content.truncated)


_PARSERS: Mapping[str, Callable[[str], dict[str, Any]]] = MappingProxyType(
    {
        "pyproject.toml": formats.parse_pyproject,
        "package.json": formats.parse_package_json,
        "pnpm-workspace.yaml": formats.parse_pnpm_workspace,
        "cargo.toml": formats.parse_cargo,
        "go.mod": formats.parse_go_mod,
        "vendor.mod": formats.parse_go_mod,  # go.mod's format, where `go mod vendor` is run without a go.mod
        "setup.cfg": formats.parse_setup_cfg,
        "go.work": formats.parse_go_work,
        "composer.json": formats.parse_composer,
        "pom.xml": jvm.parse_pom,
        "settings.gradle": jvm.parse_gradle_settings,
        "settings.gradle.kts": jvm.parse_gradle_settings,
        "build.gradle": jvm.parse_gradle_build,
        "build.gradle.kts": jvm.parse_gradle_build,
        ".versions.toml": jvm.parse_version_catalog,
        "gemfile": ruby.parse_gemfile,
        ".gemspec": ruby.parse_gemspec,
        ".sln": dotnet.parse_sln,
        ".csproj": dotnet.parse_msbuild,
        ".fsproj": dotnet.parse_msbuild,
        ".vbproj": dotnet.parse_msbuild,
        "directory.build.props": dotnet.parse_msbuild,
        "directory.packages.props": dotnet.parse_packages_props,
        "global.json": dotnet.parse_global_json,
        "cmakelists.txt": native.parse_cmake,
        "meson.build": native.parse_meson,
        "vcpkg.json": native.parse_vcpkg,
        "conanfile.txt": native.parse_conanfile_txt,
        "conanfile.py": native.parse_conanfile_py,
    }
)
assert set(_PARSERS) == MANIFEST_NAMES, "repomodel.packages.MANIFEST_KINDS lists the files parsed here"


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
        for dep in manifest.all_dependencies(indirect=False):  # what the project chose, not what came along
            key = re.sub(r"/v\d+$", "", dep.name.lower().replace("_", "-"))
            category = NOTABLE_DEPENDENCIES.get(key)
            if category is not None and key not in found:
                found[key] = (dep.name, category)
    return sorted(found.values(), key=lambda item: item[0].lower())


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
