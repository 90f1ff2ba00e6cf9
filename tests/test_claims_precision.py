"""The claim check's precision: true statements stay true, seeded false ones are still caught.

Licences are held as SPDX expressions ("MIT OR Apache-2.0" makes "MIT" true), licence file names are
paths, module and package names are dependencies. Over a small corpus of real git repositories built
here (a dual-licensed Rust project, a Go module with ``vendor/``, a JavaScript workspace, a Python
project with documentation requirements, a Maven multi-module project), read by the real offline
planner through the local source and the GitHub emulator; the deterministic writer's own report never
contradicts itself (issue 19)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.repo import RepoRef
from agent_core.report.claim_finders import find_claims
from agent_core.report.claim_names import path_like
from agent_core.report.claims import check_report
from agent_core.settings import Settings
from agent_core.sources.licenses import combine, same_license, spdx
from agent_core.tools.results import ToolResult
from agent_core.words import words_for
from testing.analysis import analysis, make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo

MIT = (
    "MIT License\n\nCopyright (c) 2024 The Authors\n\nPermission is hereby granted, free of charge, to any person "
    "obtaining a copy of this software.\n"
)
APACHE = (
    "                                 Apache License\n                           Version 2.0, January 2004\n"
)
BSD3 = (
    "BSD 3-Clause License\n\nRedistribution and use in source and binary forms, with or without modification, "
    "are permitted provided that the following conditions are met: ... Neither the name of the copyright "
    "holder nor the names of its contributors may be used to endorse or promote products.\n"
)
CI = "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n"

Files = dict[str, str | bytes]

RUST_DUAL: Files = {
    "README.md": (
        "# twin\n\nTwin finds pairs of files that hold the same bytes.\n\n## License\n\n"
        "Licensed under either of the Apache License, Version 2.0 or the MIT license, at your option.\n"
    ),
    "Cargo.toml": (
        '[package]\nname = "twin"\nversion = "0.3.1"\ndescription = "Find duplicate files."\n'
        'license = "MIT OR Apache-2.0"\n[workspace]\nmembers = ["crates/hash"]\n'
        '[dependencies]\nserde_json = "1"\nclap = { version = "4", features = ["derive"] }\n'
        '[dev-dependencies]\ntempfile = "3"\n'
    ),
    "LICENSE-MIT": MIT,
    "LICENSE-APACHE": APACHE,
    "src/main.rs": "fn main() {}\n",
    "crates/hash/Cargo.toml": '[package]\nname = "twin-hash"\nlicense.workspace = true\n',
    "crates/hash/src/lib.rs": "pub fn hash() {}\n",
    "tests/cli.rs": "#[test]\nfn runs() {}\n",
    ".github/workflows/ci.yml": CI,
}

GO_VENDORED: Files = {
    "README.md": "# svc\n\nSvc serves the catalogue over gRPC.\n",
    "go.mod": (
        "module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/stretchr/testify v1.9.0\n"
        "\tgoogle.golang.org/grpc v1.64.0\n\tgithub.com/davecgh/go-spew v1.1.1 // indirect\n)\n"
    ),
    "LICENSE": APACHE,
    "main.go": "package main\n\nfunc main() {}\n",
    "main_test.go": 'package main\n\nimport "testing"\n\nfunc TestMain(t *testing.T) {}\n',
    "vendor/modules.txt": "# github.com/stretchr/testify v1.9.0\n",
    "vendor/github.com/stretchr/testify/assert/assert.go": "package assert\n",
    "vendor/google.golang.org/grpc/server.go": "package grpc\n",
    ".github/workflows/ci.yml": CI,
}

JS_WORKSPACE: Files = {
    "README.md": "# acme\n\nAcme's user interface packages, in one workspace.\n",
    "package.json": (
        '{"name": "acme-root", "private": true, "license": "MIT", "workspaces": ["packages/*"],\n'
        ' "devDependencies": {"@typescript-eslint/parser": "^8.0.0", "typescript": "^5.4.0", "vitest": "^2.0.0"}}\n'
    ),
    "LICENSE": MIT,
    "packages/ui/package.json": '{"name": "@acme/ui", "dependencies": {"react": "^18.2.0"}}\n',
    "packages/ui/src/index.ts": "export const ui = 1;\n",
    "packages/ui/src/index.test.ts": "test('ui', () => {});\n",
    ".github/workflows/ci.yml": CI,
}

PYTHON_DOCS: Files = {
    "README.md": "# shelf\n\nShelf keeps a catalogue of books.\n",
    "pyproject.toml": '[project]\nname = "shelf"\ndescription = "A book catalogue."\ndependencies = ["httpx>=0.27"]\n',
    "requirements.txt": "httpx>=0.27\n",
    "docs/requirements.txt": "sphinx>=7\nfuro\n",
    "docs/index.md": "# Shelf\n",
    "LICENSE": BSD3,
    "src/shelf/__init__.py": "",
    "tests/test_shelf.py": "def test_shelf() -> None:\n    pass\n",
    ".github/workflows/ci.yml": CI,
}

JAVA_MODULES: Files = {
    "README.md": "# kit\n\nKit is a toolkit of HTTP adapters.\n",
    "pom.xml": (
        '<?xml version="1.0"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <artifactId>kit</artifactId>\n'
        "  <modules>\n    <module>core</module>\n    <module>adapters</module>\n  </modules>\n</project>\n"
    ),
    "LICENSE": APACHE,
    "core/pom.xml": "<project><artifactId>kit-core</artifactId></project>\n",
    "core/src/main/java/kit/Core.java": "package kit;\nclass Core {}\n",
    "core/src/test/java/kit/CoreTest.java": "package kit;\nclass CoreTest {}\n",
    "adapters/pom.xml": "<project><artifactId>kit-adapters</artifactId></project>\n",
}

UNLICENSE = "This is free and unencumbered software released into the public domain.\n"
RUST_COPYING: Files = {
    "README.md": "# seek\n\nSeek searches text fast.\n\nDual-licensed under MIT or the UNLICENSE.\n",
    "Cargo.toml": '[package]\nname = "seek"\nlicense = "Unlicense OR MIT"\n[dependencies]\nregex = "1"\n',
    "COPYING": "This project is dual-licensed under the Unlicense and MIT licenses.\n",
    "LICENSE-MIT": MIT,
    "UNLICENSE": UNLICENSE,
    "src/main.rs": "fn main() {}\n",
}

# name, files, what GitHub's API says of its licence: for a dual licence GitHub names one of them (or says
# NOASSERTION), and the report must not then call the other one false
CORPUS = [
    ("twin", RUST_DUAL, "Apache-2.0"),
    ("seek", RUST_COPYING, "Unlicense"),
    ("svc", GO_VENDORED, "Apache-2.0"),
    ("acme", JS_WORKSPACE, "MIT"),
    ("shelf", PYTHON_DOCS, "BSD-3-Clause"),
    ("kit", JAVA_MODULES, "Apache-2.0"),
]


async def offline_run(
    tmp_path: Path, name: str, files: Files, license: str, where: str
) -> tuple[list[ev.Event], list[ToolResult], RepoRef]:
    """The offline planner's whole run over ``files`` as a local repository or through the emulator."""
    root = make_repo(tmp_path / name, files)
    with GitHubEmulator() as emu:
        emu.add_repo(f"corpus/{name}", root, license=license, description=None)
        if where == "github":
            settings, target, ref = (
                make_settings(emu, tmp_path),
                f"corpus/{name}",
                RepoRef(owner="corpus", name=name),
            )
        else:
            settings, target, ref = (
                Settings(cache_dir=tmp_path / "cache"),
                str(root),
                RepoRef(owner="local", name=name),
            )
        async with analysis(settings, target) as run:
            events = await run.ask("")
            return events, list(run.opened.analysis.results), ref


def claims_checked(events: list[ev.Event]) -> ev.ClaimsChecked:
    return next(e for e in events if isinstance(e, ev.ClaimsChecked))


def verdicts(report: str, results: list[ToolResult], ref: RepoRef) -> dict[str, tuple[str, str | None]]:
    return {c.claim: (c.verdict, c.observed) for c in check_report(report, (ref,), results).claims}


# ------------------------------------------------------------------ the writer never contradicts itself


@pytest.mark.parametrize("where", ["local", "github"])
@pytest.mark.parametrize(("name", "files", "license"), CORPUS, ids=[c[0] for c in CORPUS])
async def test_the_deterministic_writers_report_has_no_contradicted_claim(
    tmp_path: Path, name: str, files: Files, license: str, where: str
) -> None:
    events, _results, _ref = await offline_run(tmp_path, name, files, license, where)

    check = claims_checked(events)
    assert isinstance(events[-1], ev.RunFinished)
    contradicted = [(c.claim, c.observed) for c in check.claims if c.verdict == "contradicted"]
    assert contradicted == []
    assert check.verified >= 3  # the report did make checkable claims, and they held


async def test_the_dual_licensed_report_says_the_expression_and_checks_it(tmp_path: Path) -> None:
    events, _results, _ref = await offline_run(tmp_path, "twin", RUST_DUAL, "NOASSERTION", "github")

    report = events[-1].report if isinstance(events[-1], ev.RunFinished) else ""
    assert "- License: MIT OR Apache-2.0" in report
    assert "NOASSERTION" not in report  # GitHub's word for "more than one", never shown as a licence
    check = claims_checked(events)
    assert {c.claim for c in check.claims if c.kind == "license" and c.verdict == "verified"} >= {
        "MIT",
        "Apache-2.0",
    }


# ------------------------------------------------------------------------------------- licences


@pytest.mark.parametrize("where", ["local", "github"])
async def test_either_licence_of_a_dual_licence_is_true_and_another_is_false(
    tmp_path: Path, where: str
) -> None:
    _events, results, ref = await offline_run(tmp_path, "twin", RUST_DUAL, "NOASSERTION", where)
    report = (
        "It is licensed under MIT.\n"
        "It is available under the MIT or Apache 2.0 licenses, at your option.\n"
        "Its license is Apache-2.0.\n"
        "It is licensed under GPL-3.0.\n"
    )

    got = verdicts(report, results, ref)

    assert got["MIT"] == ("verified", "MIT OR Apache-2.0")
    assert got["Apache-2.0"] == ("verified", "MIT OR Apache-2.0")
    assert got["GPL-3.0"] == ("contradicted", "MIT OR Apache-2.0")  # the seeded false claim, still caught
    marks = [c for c in check_report(report, (ref,), results).claims if c.kind == "license"]
    assert [c.verdict for c in marks] == ["verified", "verified", "verified", "verified", "contradicted"]


def test_licence_file_names_are_paths_not_licence_claims() -> None:
    text = (
        "The licence texts are in `LICENSE-MIT.txt` and `LICENSE-APACHE`, and LICENSE-MIT is short.\n"
        "See [the licence](LICENSE-APACHE-2.0.txt) and [on GitHub](https://github.com/o/r/blob/main/LICENSE-MIT).\n"
        "It is MIT licensed.\n"
    )

    found = find_claims(text)

    assert [(f.kind, f.value) for f in found if f.kind == "license"] == [("license", "MIT")]
    assert text[found[-1].start : found[-1].end] == "MIT"
    assert {f.value for f in found if f.kind == "path"} >= {"LICENSE-MIT.txt", "LICENSE-APACHE"}


async def test_a_licence_file_named_beside_the_other_licence_is_no_contradiction(tmp_path: Path) -> None:
    """Issue 19: "✗ MIT — observed: Apache-2.0" on a report that named `LICENSE-MIT`."""
    _events, results, ref = await offline_run(tmp_path, "twin", RUST_DUAL, "Apache-2.0", "github")

    got = verdicts("A license file is present: `LICENSE-APACHE`, `LICENSE-MIT`.", results, ref)

    assert got == {
        "LICENSE-APACHE": ("verified", "LICENSE-APACHE"),
        "LICENSE-MIT": ("verified", "LICENSE-MIT"),
    }


async def test_gpl_on_an_mit_repository_is_still_contradicted(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    run = await run_once(Settings(github_api_url=emulator.base_url, cache_dir=tmp_path / "cache"), "")
    results = run.opened.analysis.results

    got = verdicts(
        "acme/widgets is licensed under GPL-3.0; not MIT. BSD too.",
        results,
        RepoRef(owner="acme", name="widgets"),
    )

    assert got["GPL-3.0"] == ("contradicted", "MIT")
    assert got["no MIT"] == ("contradicted", "MIT")
    assert got["BSD"] == ("contradicted", "MIT")


# ------------------------------------------------------------------------ modules are dependencies


@pytest.mark.parametrize("where", ["local", "github"])
async def test_go_module_paths_are_dependencies_not_missing_paths(tmp_path: Path, where: str) -> None:
    _events, results, ref = await offline_run(tmp_path, "svc", GO_VENDORED, "Apache-2.0", where)
    report = (
        "The module `example.com/svc` depends on `github.com/stretchr/testify` and `google.golang.org/grpc`,\n"
        "asserts with `github.com/stretchr/testify/assert`, and uses `github.com/davecgh/go-spew`.\n"
        "It is built on `github.com/gin-gonic/gin`.\n"
    )

    check = check_report(report, (ref,), results)
    got = {c.claim: (c.verdict, c.observed) for c in check.claims}

    assert got["github.com/stretchr/testify"] == ("verified", "declared in go.mod")
    assert got["google.golang.org/grpc"] == ("verified", "declared in go.mod")
    assert got["github.com/stretchr/testify/assert"] == ("verified", "declared in go.mod")
    assert got["github.com/davecgh/go-spew"] == ("verified", "declared in go.mod")  # an indirect requirement
    assert got["github.com/gin-gonic/gin"][0] == "contradicted"  # the seeded false one
    assert "example.com/svc" not in got  # the module itself
    assert all(c.kind != "path" for c in check.claims)
    assert all(c.observed != "not in the repository's tree" for c in check.claims)


async def test_scoped_npm_names_are_dependencies_not_missing_paths(tmp_path: Path) -> None:
    _events, results, ref = await offline_run(tmp_path, "acme", JS_WORKSPACE, "MIT", "local")
    report = "Linted with `@typescript-eslint/parser`; the UI is `@acme/ui`; it also uses `@babel/core`.\n"

    check = check_report(report, (ref,), results)
    got = {c.claim: (c.verdict, c.observed) for c in check.claims}

    assert got["@typescript-eslint/parser"] == ("verified", "declared in package.json")
    assert got["@babel/core"][0] == "unchecked"  # not declared, and not a well-known runtime dependency
    assert all(c.kind == "dependency" and c.verdict != "contradicted" for c in check.claims)


async def test_crate_names_are_checked_as_dependencies(tmp_path: Path) -> None:
    _events, results, ref = await offline_run(tmp_path, "twin", RUST_DUAL, "NOASSERTION", "local")

    got = verdicts("It depends on `serde_json` and `clap`, and is built with `tokio`.", results, ref)

    assert got["serde_json"] == ("verified", "declared in Cargo.toml")
    assert got["clap"] == ("verified", "declared in Cargo.toml")
    # Declared by neither manifest, and both were read (the member's too): a runtime crate not there.
    assert got["tokio"] == (
        "contradicted",
        "not among the dependencies in Cargo.toml, crates/hash/Cargo.toml",
    )


def test_an_extras_name_and_a_package_ending_in_python_are_not_claims_about_them() -> None:
    """Seen on a real project's offline report: the extra `httpx` (holding httpx2) marked an undeclared
    httpx, and `ptpython>=3.0.23` read as "Python 3.0"."""
    found = find_claims(
        "dependency groups: `httpx` (optional: `httpx2>=2.0.0`), `ptpython` (`ptpython>=3.0.23`)"
    )
    assert [f.kind for f in found if f.kind == "version"] == []
    assert [
        f.value for f in find_claims("It needs Python>=3.10 and python 3.11+.") if f.kind == "version"
    ] == [
        "3.10",
        "3.11",
    ]


async def test_an_extras_name_is_not_an_undeclared_dependency(tmp_path: Path) -> None:
    files: Files = {
        "pyproject.toml": '[project]\nname = "crawl"\ndependencies = ["lxml"]\n'
        '[project.optional-dependencies]\nhttpx = ["httpx2>=2.0.0"]\n',
        "README.md": "# crawl\n",
    }
    _events, results, ref = await offline_run(tmp_path, "crawl", files, "MIT", "local")

    got = verdicts("It depends on `lxml`; the `httpx` extra installs httpx2.", results, ref)

    assert got == {"lxml": ("verified", "declared in pyproject.toml")}


def test_a_language_named_like_a_file_in_a_list_of_languages_is_not_a_path() -> None:
    """Seen on a real Go repository's offline report: "Dockerfile 0.0%" marked missing from the tree."""
    found = find_claims(
        "**Languages:** Go 100.0%, Makefile 0.0%, Dockerfile 0.0%\nBuilt from the Dockerfile.\n"
    )

    assert [(f.kind, f.value) for f in found] == [("path", "Dockerfile")]
    assert found[0].start > 60  # the one in the sentence, not the language


def test_licence_statements_read_as_spdx_expressions_and_combine() -> None:
    assert spdx("MIT/Apache-2.0") == (
        "MIT OR Apache-2.0",
        frozenset({"MIT", "Apache-2.0"}),
    )  # Cargo's old form
    assert spdx("Apache-2.0 WITH LLVM-exception") == (
        "Apache-2.0 WITH LLVM-exception",
        frozenset({"Apache-2.0"}),
    )
    assert [spdx(s) for s in ("NOASSERTION", "Other", "a licence of our own", "MIT " * 100)] == [None] * 4
    found = combine([("LICENSE-MIT", "MIT"), ("Cargo.toml", "MIT OR Apache-2.0"), ("README", None)])
    assert found is not None
    assert (found.expression, found.sources) == ("MIT OR Apache-2.0", ("LICENSE-MIT", "Cargo.toml"))
    files_only = combine([("LICENSE-MIT", "MIT"), ("LICENSE-APACHE", "Apache-2.0")])
    assert files_only is not None and files_only.keys == {"MIT", "Apache-2.0"}
    assert [same_license(c, "GPL-3.0-or-later") for c in ("GPL", "GPL-3.0", "GPL-2.0", "LGPL", "MIT")] == [
        True,
        True,
        False,
        False,
        False,
    ]


def test_a_test_convention_named_in_the_report_is_no_path_claim() -> None:
    """`_test.go` labels a convention and the no-tests line names conventions: neither claims a file."""
    assert not path_like("_test.go") and not path_like("*_test.go")
    assert path_like("pkg/a_test.go") and path_like("_config.yml")
    for words in (words_for("en"), words_for("zh")):
        no_tests = words("model_no_tests")
        assert not [span for span in re.findall(r"`([^`]+)`", no_tests) if path_like(span)]


def test_a_commit_subject_names_no_dependency() -> None:
    """A dated entry of the activity list quotes a commit's subject: "use typescript 7" is history, not a
    claim about today's manifests (it was checked ✗ against the `typescript` pinned now)."""
    from agent_core.report.claim_finders import find_claims

    entry = "- 2026-08-04 — chore: use typescript 7 for typechecking (\\#12601) — StyleShit\n"
    assert [f for f in find_claims(entry) if f.kind == "dependency"] == []
    claim = "- The project uses typescript 7 for typechecking.\n"
    assert [(f.value, f.version) for f in find_claims(claim) if f.kind == "dependency"] == [
        ("typescript", "7")
    ]


def test_a_rate_of_commits_in_chinese_or_english_is_no_count() -> None:
    """ "样本期间每周 1.1 次提交" (1.1 commits a week) was checked as a count of 1.1 commits: ✗ on every
    Chinese report made without a key."""
    from agent_core.report.claim_finders import find_claims

    def counts(text: str) -> list[str]:
        return [f.value for f in find_claims(text) if f.kind == "number"]

    assert counts("- 平均节奏：样本期间每周 1.1 次提交\n") == []
    assert counts("- on average 3 commits per week\n") == []
    assert counts("- 共 30 次提交\n") == ["30"] and counts("- 1.2k commits\n") == ["1.2k"]


def test_a_quoted_description_or_readme_names_no_dependency() -> None:
    """The report's description and README quote are the project's own words: "how to use Pydantic AI"
    (pydantic-ai's examples/pyproject.toml) was checked ✗ as a dependency on `pydantic`."""
    from agent_core.report.claim_finders import find_claims

    for line in (
        "**Description:** Examples of how to use Pydantic AI and what it can do.\n",
        "**From the README** ([`README.md`](x)): Build apps that use Pydantic AI.\n",
        "**简介：** Examples of how to use Pydantic AI.\n",
    ):
        assert [f for f in find_claims(line) if f.kind == "dependency"] == [], line
    assert [f.value for f in find_claims("- It uses pydantic.\n") if f.kind == "dependency"] == ["pydantic"]
