"""Manifests read whole for parsing, while the model's page stays cut; what each format declares.

The whole-file reads go through the real sources (a local git repository, and GitHub's API emulated over
one) and the real offline run; the formats are parsed from text written here."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.repo import RepoRef
from agent_core.report.manifests import (
    group_kind,
    notable_dependencies,
    parse_manifest,
    read_manifests,
    requirements_kind,
)
from agent_core.report.writer import written
from agent_core.settings import Settings
from agent_core.sources.local import LocalGitSource
from agent_core.sources.manifest_files import PARSE_MAX_BYTES
from agent_core.sources.models import FileContent
from agent_core.tools.results import ToolResult
from testing.analysis import analysis, make_settings
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.linear import least_cpu

MONO = RepoRef(owner="local", name="mono")


def big_package_json(packages: int = 80) -> str:
    """A 7 KB package.json: scripts and devDependencies, then 80 workspace packages listed one by one
    (the last ones past the model's 6,000-character page)."""
    data = {
        "name": "@acme/monorepo",
        "private": True,
        "license": "MIT",
        "scripts": {f"task-{i}": f"node scripts/task-{i}.js --flag" for i in range(40)},
        "devDependencies": {
            "typescript": "^5.4.0",
            "@typescript-eslint/parser": "^8.0.0",
            "vitest": "^2.0.0",
        },
        "workspaces": [
            f"packages/feature-number-{i:03d}-with-a-longer-package-name" for i in range(packages)
        ],
    }
    return json.dumps(data, indent=2) + "\n"


def go_mod(lines: int) -> str:
    """A go.mod whose one require block has ``lines`` lines; every sixth is direct, the rest indirect."""
    out = ["module example.com/svc", "", "go 1.22.3", "", "require ("]
    for i in range(lines):
        mark = "" if i % 6 == 0 else " // indirect"
        out.append(f"\tgithub.com/org{i:03d}/module-with-a-name v1.{i}.0{mark}")
    out += [
        ")",
        "",
        "replace github.com/org000/module-with-a-name => ../fork",
        "",
        "exclude (",
        "\tx.io/y v1.0.0",
        ")",
    ]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------ whole-file reads


async def test_a_7kb_package_json_is_parsed_whole_while_the_model_sees_a_cut_page(tmp_path: Path) -> None:
    text = big_package_json()
    assert 6_500 < len(text) < 8_000
    root = make_repo(tmp_path / "mono", {"README.md": "# mono\n", "package.json": text})
    source = await LocalGitSource.open(root)

    content = (await source.read_file(MONO, "package.json", max_chars=6000)).value

    assert content.truncated and content.text is not None and len(content.text) <= 6000  # the model's page
    assert content.whole_text == text and not content.whole_cut  # the parser's text, from the same read
    observation = json.dumps(content.to_observation())
    assert "whole_text" not in observation and "packages/feature-number-079" not in observation
    (manifest,) = read_manifests({"package.json": content})
    assert (manifest.status, manifest.partial, len(manifest.workspaces)) == ("parsed", False, 80)
    assert manifest.workspaces[-1] == "packages/feature-number-079-with-a-longer-package-name"
    assert manifest.dependency_groups()["development"] == (
        "typescript",
        "@typescript-eslint/parser",
        "vitest",
    )


@pytest.mark.parametrize("where", ["local", "github"])
async def test_the_offline_report_names_every_workspace_of_a_cut_package_json(
    tmp_path: Path, where: str
) -> None:
    root = make_repo(
        tmp_path / "mono", {"README.md": "# mono\n\nA monorepo.\n", "package.json": big_package_json()}
    )
    with GitHubEmulator() as emu:
        emu.add_repo("acme/mono", root, license="MIT")
        if where == "github":
            settings, target = make_settings(emu, tmp_path), "acme/mono"
        else:
            settings, target = Settings(cache_dir=tmp_path / "cache"), str(root)
        async with analysis(settings, target) as run:
            events = await run.ask("")
            results = run.opened.analysis.results

    read = next(r for r in results if r.tool == "read_file" and r.arguments["path"] == "package.json")
    assert len(read.observation["text"]) <= 6000 and "whole_text" not in read.observation
    finished = next(e for e in events if isinstance(e, ev.ToolCallFinished) and e.call_id == read.call_id)
    assert finished.http_requests == (
        1 if where == "github" else 0
    )  # one read served the page and the parser
    report = events[-1].report if isinstance(events[-1], ev.RunFinished) else ""
    assert "workspace members (80)" in report
    assert "could not be parsed" not in report


async def test_a_manifest_past_the_parse_cap_is_parsed_from_its_beginning_and_said_cut(
    tmp_path: Path,
) -> None:
    lines = [f"package-number-{i}==1.0.{i}\n" for i in range(PARSE_MAX_BYTES // 20)]
    root = make_repo(tmp_path / "big", {"requirements.txt": "".join(lines)})
    source = await LocalGitSource.open(root)

    content = (await source.read_file(MONO, "requirements.txt", max_chars=6000)).value

    assert content.whole_cut and content.whole_text is not None
    assert len(content.whole_text.encode()) <= PARSE_MAX_BYTES and content.whole_text.endswith("\n")
    (manifest,) = read_manifests({"requirements.txt": content})
    assert manifest.partial and 0 < len(manifest.runtime) < len(lines)


async def test_every_go_mod_read_is_listed_in_the_report(tmp_path: Path) -> None:
    paths = [
        "go.mod",
        "api/go.mod",
        "tools/gen/go.mod",
        "exporters/otlp/trace/go.mod",
        "internal/x/y/z/go.mod",
    ]
    files: dict[str, str | bytes] = {p: f"module example.com/m{i}\n\ngo 1.22\n" for i, p in enumerate(paths)}
    root = make_repo(tmp_path / "multi", {**files, "README.md": "# multi\n"})
    source = await LocalGitSource.open(root)
    results = [read_result(p, (await source.read_file(MONO, p, max_chars=6000)).value) for p in paths]

    report = written(scope=[MONO], question="", results=results).markdown()

    for i, path in enumerate(paths):
        assert f"`{path}`: module `example.com/m{i}` (Go 1.22)" in report


def read_result(path: str, value: FileContent) -> ToolResult:
    return ToolResult(
        call_id=f"read:{path}",
        tool="read_file",
        arguments={"owner": MONO.owner, "repo": MONO.name, "path": path},
        ok=True,
        observation={},
        value=value,
        repo=MONO,
        source="local",
    )


# ------------------------------------------------------------------------------------------ the formats


def test_a_264_line_go_require_block_counts_direct_and_indirect_exactly() -> None:
    text = go_mod(264)
    assert text.count("\n\tgithub.com/") == 264
    text += (
        "require example.com/single v1.0.0\nrequire example.com/lonely v0.1.0 // indirect; kept for tools\n"
    )
    text += "tool (\n\tgolang.org/x/tools/cmd/stringer\n)\n"

    manifest = parse_manifest("go.mod", text)

    assert (manifest.name, manifest.go_version) == ("example.com/svc", "1.22.3")
    assert (len(manifest.runtime), manifest.indirect) == (44 + 1, 220 + 1)
    assert manifest.runtime[-1].text() == "example.com/single v1.0.0"
    assert "example.com/lonely" in manifest.dependency_groups()["indirect"]
    assert not {"x.io/y", "golang.org/x/tools/cmd/stringer"} & {d.name for d in manifest.all_dependencies()}


def test_package_json_workspaces_in_both_forms_and_pnpm_packages() -> None:
    array = parse_manifest("package.json", '{"workspaces": ["packages/*", "apps/*"], "license": "MIT"}')
    yarn = parse_manifest("package.json", '{"workspaces": {"packages": ["packages/*"], "nohoist": ["**/x"]}}')
    pnpm = parse_manifest(
        "pnpm-workspace.yaml",
        "# the packages\npackages:\n  - 'packages/*'\n  - \"apps/**\"  # apps\ncatalog:\n  a: 1\n",
    )
    flow = parse_manifest("pnpm-workspace.yaml", "packages: ['a/*', b]\n")
    deps = parse_manifest(
        "package.json",
        '{"dependencies": {"react": "^18"}, "devDependencies": {"jest": "^29"},'
        ' "peerDependencies": {"react-dom": "^18"}, "optionalDependencies": {"fsevents": "^2"}}',
    )

    assert (array.workspaces, array.license) == (("packages/*", "apps/*"), "MIT")
    assert yarn.workspaces == ("packages/*",)
    assert (pnpm.workspaces, flow.workspaces) == (("packages/*", "apps/**"), ("a/*", "b"))
    assert dict(deps.dependency_groups()) == {
        "runtime": ("react",),
        "development": ("jest",),
        "optional": ("fsevents",),
        "peer": ("react-dom",),
    }


def test_cargo_workspace_members_and_dependency_tables_apart() -> None:
    text = (
        '[package]\nname = "rg"\nlicense = "Unlicense OR MIT"\n'
        '[workspace]\nmembers = ["crates/core", "crates/cli"]\nexclude = ["crates/fuzz"]\n'
        '[dependencies]\nserde_json = "1"\n[target.\'cfg(unix)\'.dependencies]\nlibc = "0.2"\n'
        '[dev-dependencies]\nwalkdir = "2"\n[build-dependencies]\ncc = "1"\n'
    )

    manifest = parse_manifest("Cargo.toml", text)

    assert (manifest.workspaces, manifest.workspace_exclude) == (
        ("crates/core", "crates/cli"),
        ("crates/fuzz",),
    )
    assert (manifest.name, manifest.license) == ("rg", "Unlicense OR MIT")
    assert dict(manifest.dependency_groups()) == {
        "runtime": ("serde_json", "libc"),
        "development": ("walkdir",),
        "build": ("cc",),
    }


def test_pyproject_groups_are_kept_apart_by_what_they_are_for() -> None:
    text = (
        '[project]\nname = "shop"\nlicense = {text = "BSD-3-Clause"}\ndependencies = ["httpx"]\n'
        '[project.optional-dependencies]\nsocks = ["pysocks"]\ndocs = ["sphinx"]\n'
        '[dependency-groups]\ndev = ["pytest"]\n'
        '[tool.poetry.group.lint.dependencies]\nruff = "*"\n'
        '[tool.uv.workspace]\nmembers = ["packages/*"]\n'
    )

    manifest = parse_manifest("pyproject.toml", text)

    assert dict(manifest.dependency_groups()) == {
        "runtime": ("httpx",),
        "development": ("pytest", "ruff"),
        "documentation": ("sphinx",),
        "optional": ("pysocks",),
    }
    assert (manifest.license, manifest.workspaces) == ("BSD-3-Clause", ("packages/*",))
    assert [group_kind(n) for n in ("test", "typing", "doc", "extra", "peerDependencies")] == [
        "development",
        "development",
        "documentation",
        "optional",
        "peer",
    ]


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("requirements.txt", "runtime"),
        ("requirements/base.txt", "runtime"),
        ("docs/requirements.txt", "documentation"),
        ("doc/requirements.txt", "documentation"),
        ("requirements-docs.txt", "documentation"),
        ("doc-requirements.txt", "documentation"),
        ("requirements/docs.txt", "documentation"),
        ("requirements-dev.txt", "development"),
        ("test-requirements.txt", "development"),
        ("requirements/test.txt", "development"),
        ("tests/requirements.txt", "development"),
    ],
)
def test_requirements_files_are_classified_by_name_and_folder(path: str, kind: str) -> None:
    assert requirements_kind(path) == kind
    manifest = parse_manifest(path, "sphinx>=7\n")
    assert bool(manifest.runtime) == (kind == "runtime")


def test_documentation_requirements_are_never_called_runtime_dependencies(tmp_path: Path) -> None:
    files = {"requirements.txt": "httpx\n", "docs/requirements.txt": "sphinx>=7\nfuro\n"}
    results = [read_result(p, text_content(p, t)) for p, t in files.items()]

    report = written(scope=[MONO], question="", results=results).markdown()

    docs_line = next(line for line in report.splitlines() if "`docs/requirements.txt`" in line)
    assert "documentation dependencies (2): `sphinx>=7`, `furo`" in docs_line
    assert "runtime" not in docs_line
    assert "- `requirements.txt`: runtime dependencies (1): `httpx`" in report
    chinese = written(scope=[MONO], question="", results=results, language="zh").markdown()
    assert "- `docs/requirements.txt`：文档依赖（2）：`sphinx>=7`、`furo`" in chinese


def text_content(path: str, text: str) -> FileContent:
    lines = text.count("\n")
    return FileContent(
        path=path, kind="file", size=len(text), text=text, start_line=1, end_line=lines, total_lines=lines
    )


def test_maven_modules_and_gradle_includes_are_workspace_members() -> None:
    pom = (
        '<?xml version="1.0"?><project xmlns="http://maven.apache.org/POM/4.0.0"><artifactId>parent</artifactId>'
        "<modules><module>core</module><module>retrofit-adapters/rxjava</module></modules>"
        "<dependencies><dependency><groupId>com.squareup.okhttp3</groupId><artifactId>okhttp</artifactId>"
        "</dependency><dependency><groupId>junit</groupId><artifactId>junit</artifactId><scope>test</scope>"
        "</dependency></dependencies></project>"
    )
    groovy = "rootProject.name = 'retrofit'\ninclude ':retrofit'\ninclude ':retrofit-adapters:rxjava', ':samples'\n"
    kotlin = 'include(":app")\ninclude(\n  ":lib:core",\n)\nincludeBuild("build-logic")\n// include(":old")\n'

    maven = parse_manifest("pom.xml", pom)
    assert maven.workspaces == ("core", "retrofit-adapters/rxjava")
    assert dict(maven.dependency_groups()) == {
        "runtime": ("com.squareup.okhttp3:okhttp",),
        "development": ("junit:junit",),
    }
    assert parse_manifest("settings.gradle", groovy).workspaces == (
        "retrofit",
        "retrofit-adapters/rxjava",
        "samples",
    )
    # an include over several lines names its projects too; includeBuild and comments do not
    assert parse_manifest("settings.gradle.kts", kotlin).workspaces == ("app", "lib/core")
    assert parse_manifest("pom.xml", '<!DOCTYPE x [<!ENTITY a "b">]><project/>').status == "invalid"


# ---------------------------------------------------------------------------------- bounded work


def _cpu(parse: Callable[[], Any]) -> float:
    """The least CPU time of three runs (this thread's clock, not the wall clock)."""
    return max(least_cpu(parse, repeat=3), 1e-6)


@pytest.mark.parametrize(
    ("path", "unit"),
    [
        ("go.mod", "require (\n" + "\tmod" + "/" * 60 + " v" + "//" * 30 + " indirect\n"),
        ("go.mod", "require " + "a " * 70 + "// indirect" * 10 + "\n"),
        ("package.json", None),
        ("requirements.txt", "a" + "-" * 120 + "!\n"),
        ("pnpm-workspace.yaml", "packages:\n" + "  - " + "'" * 100 + "\n"),
        ("settings.gradle", "include " + "'a'," * 40 + "\n"),
    ],
)
def test_hostile_manifests_parse_in_linear_time(path: str, unit: str | None) -> None:
    """A quarter of the cap and the whole cap of adversarial text: the CPU time grows about 4 times (a
    quadratic parser would take 16)."""

    def hostile(size: int) -> str:
        if unit is None:  # a flat JSON object with very many keys and long strings
            item = '"k' + "\\u0041" * 30 + '": "' + "x" * 40 + '",'
            return "{" + item * (size // len(item)) + '"end": 1}'
        return unit * (size // len(unit))

    small, large = hostile(PARSE_MAX_BYTES // 4), hostile(PARSE_MAX_BYTES)
    ratio = _cpu(lambda: parse_manifest(path, large)) / _cpu(lambda: parse_manifest(path, small))
    assert ratio < 10, ratio


def test_json_or_toml_nested_thousands_deep_is_invalid_not_a_crash() -> None:
    assert parse_manifest("package.json", "[" * 100_000).detail == "nested too deeply to be a manifest"
    assert parse_manifest("Cargo.toml", "a = " + "[" * 100_000).status == "invalid"


def test_indirect_requirements_are_counted_but_not_called_notable() -> None:
    text = "module example.com/x\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n"
    text += "\tgithub.com/stretchr/testify v1.9.0 // indirect\n)\n"

    manifest = parse_manifest("go.mod", text)

    assert notable_dependencies([manifest]) == [("github.com/spf13/cobra", "cli")]
    assert "github.com/stretchr/testify" in {d.name for d in manifest.all_dependencies()}


def test_a_direct_reference_names_its_package() -> None:
    """``name @ git+https://…`` (PEP 508) is a requirement like any other: scrapy's docs requirements
    were counted 69 where the file names 72."""
    text = "sphinx>=7\nsphinx-rtd-theme @ git+https://github.com/x/y@main\nfoo[extra] @ https://e.x/f.whl\n"
    text += "-r base.txt\nhttps://example.com/bare.whl\n./local/pkg\n"
    manifest = parse_manifest("docs/requirements.txt", text)
    assert manifest.dependency_groups() == {"documentation": ("sphinx", "sphinx-rtd-theme", "foo")}
