"""The claim check's precision both ways, on repository shapes of several ecosystems (issue 34, item 4).

Each shape is a real git repository built here (a Ruby gem, a PHP package, a .NET solution with a test
project, a Kotlin/Gradle multi-module build, a Python project, a Go module, a Rust crate), served by the
GitHub emulator and read by the real offline planner. A scripted "model report" for it holds true
statements, which must never be marked ✗, and planted falsehoods of the kinds a model makes (a wrong
dependency version, a wrong test framework, an invented path in a fenced block, a wrong licence, a wrong
language, a wrong count), of which at least 90 % must be marked ✗. Each statement is one line of the
report; a planted line is caught when a claim standing in it is contradicted."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.repo import RepoRef
from agent_core.report.claim_finders import find_claims
from agent_core.report.claims import annotate, check_report
from agent_core.settings import Settings
from agent_core.sources.licenses import same_license
from agent_core.tools.results import ToolResult
from testing.analysis import analysis, make_settings
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo

MIT = (
    "MIT License\n\nCopyright (c) 2024 The Authors\n\nPermission is hereby granted, free of charge, to any person "
    "obtaining a copy of this software.\n"
)
APACHE = (
    "                                 Apache License\n                           Version 2.0, January 2004\n"
)


@dataclass(frozen=True)
class Shape:
    name: str
    files: dict[str, str]
    license: str
    true: list[str]  # lines of the report that hold
    planted: list[str]  # lines that each hold one falsehood
    silent: list[str] = field(default_factory=list)  # true lines that hold no checkable claim
    stars: int = 120
    forks: int = 7
    topics: tuple[str, ...] = field(default=())


GEM = Shape(
    "ledger",
    {
        "README.md": "# ledger\n\nLedger keeps double-entry books in Ruby.\n",
        "LICENSE": MIT,
        "Gemfile": 'source "https://rubygems.org"\n\ngemspec\n\ngem "rake", "~> 13.0"\n',
        "ledger.gemspec": (
            'Gem::Specification.new do |spec|\n  spec.name = "ledger"\n  spec.version = "2.1.0"\n'
            '  spec.license = "MIT"\n  spec.add_dependency "bigdecimal", ">= 3.1"\n'
            '  spec.add_development_dependency "rspec", "~> 3.12"\nend\n'
        ),
        "lib/ledger.rb": "module Ledger\n  VERSION = '2.1.0'\nend\n" * 3,
        "lib/ledger/entry.rb": "module Ledger\n  class Entry\n    def amount; end\n  end\nend\n" * 3,
        "spec/ledger_spec.rb": 'require "ledger"\n\nRSpec.describe Ledger do\nend\n',
    },
    "MIT",
    true=[
        "Ledger is written mainly in Ruby.",
        "It has 120 stars and 7 forks.",
        "It is licensed under MIT.",
        "The gem depends on `bigdecimal` (>= 3.1) and uses `rake` ~> 13.0 for its tasks.",
        "It is tested with RSpec 3.12; the code is in `lib/ledger/entry.rb` and the specs in `spec/`.",
        "| Dependency | Version |\n|---|---|\n| rspec | ~> 3.12 |\n| bigdecimal | >= 3.1 |",
        "```bash\nbundle exec rspec spec/ledger_spec.rb\n```",
        "该项目使用 RSpec 进行测试，依赖 `bigdecimal` 3.1。",
        "```\nledger-gem/\n├── lib/\n│   └── ledger/entry.rb\n└── spec/\n```",
    ],
    planted=[
        "It is tested with Minitest.",
        "It depends on `bigdecimal` 2.0.",
        "| Dependency | Version |\n|---|---|\n| rspec | ~> 2.99 |",
        "```bash\n./bin/ledger-import.sh\n```",
        "It is licensed under GPL-3.0.",
        "The primary language is Python.",
        "It has 4,500 stars.",
        "测试框架为 Minitest。",
        "| Gem | Purpose |\n|---|---|\n| `minitest` | the tests |",
        "它依赖 `bigdecimal` 2.0 版本。",
    ],
    silent=["Topics: `react`, `framework`; the CI job `lint` runs `rubocop`."],
    topics=("react", "framework"),
)

PHP = Shape(
    "mailer",
    {
        "README.md": "# mailer\n\nMailer sends e-mail over SMTP.\n",
        "LICENSE": MIT,
        "composer.json": (
            '{"name": "acme/mailer", "license": "MIT", "require": {"php": "^8.1", "symfony/mime": "^6.4"},\n'
            ' "require-dev": {"phpunit/phpunit": "^10.5"}, "autoload": {"psr-4": {"Acme\\\\Mailer\\\\": "src/"}}}\n'
        ),
        "src/Mailer.php": "<?php\nnamespace Acme\\Mailer;\nfinal class Mailer\n{\n    public function send(): void {}\n}\n"
        * 3,
        "tests/MailerTest.php": "<?php\nuse PHPUnit\\Framework\\TestCase;\nfinal class MailerTest extends TestCase {}\n",
        "phpunit.xml.dist": "<phpunit/>\n",
    },
    "MIT",
    true=[
        "Mailer is written in PHP.",
        "It requires `symfony/mime` ^6.4 and is tested with PHPUnit 10.5.",
        "The Composer package `phpunit/phpunit` is a development dependency; `acme/mailer` is the package itself.",
        "The mailer is `src/Mailer.php`; it is MIT licensed.",
    ],
    planted=[
        "It is tested with Pest.",
        "It depends on `symfony/mime` ^5.4.",
        "```\nsrc/\n├── Mailer.php\n└── Transport/SmtpTransport.php\n```",
        "It is released under the Apache License 2.0.",
        "It is written mainly in Go.",
        "It has 9 forks.",
    ],
    silent=[
        "```bash\ncomposer install\nvendor/bin/phpunit --configuration phpunit.xml.dist\n```",
        "Install the tools with `composer require --dev phpunit/phpunit` and run `vendor/bin/phpunit`.",
        "```mermaid\nflowchart LR\n  src/Ghost.php --> tests/GhostTest.php\n```",
        "> The README says: see `docs/quoted.md`.",
    ],
)

DOTNET = Shape(
    "shapes",
    {
        "README.md": "# Shapes\n\nShapes computes areas.\n",
        "LICENSE": APACHE,
        "Shapes.sln": (
            "Microsoft Visual Studio Solution File, Format Version 12.00\n"
            'Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "Shapes", "src\\Shapes\\Shapes.csproj", '
            '"{11111111-1111-1111-1111-111111111111}"\nEndProject\n'
            'Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "Shapes.Tests", '
            '"tests\\Shapes.Tests\\Shapes.Tests.csproj", "{22222222-2222-2222-2222-222222222222}"\nEndProject\n'
        ),
        "src/Shapes/Shapes.csproj": (
            '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>\n'
            '  <ItemGroup><PackageReference Include="Newtonsoft.Json" Version="13.0.3" /></ItemGroup>\n</Project>\n'
        ),
        "src/Shapes/Circle.cs": "namespace Shapes;\npublic class Circle\n{\n    public double Area() => 0;\n}\n"
        * 3,
        "tests/Shapes.Tests/Shapes.Tests.csproj": (
            '<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n    <PackageReference Include="xunit" Version="2.6.2" />\n'
            '    <PackageReference Include="Microsoft.NET.Test.Sdk" Version="17.8.0" />\n  </ItemGroup>\n</Project>\n'
        ),
        "tests/Shapes.Tests/CircleTests.cs": "using Xunit;\npublic class CircleTests { [Fact] public void Area() {} }\n",
    },
    "Apache-2.0",
    true=[
        "Shapes is written mainly in **C#**.",
        "The test project uses xUnit 2.6.2 with `Microsoft.NET.Test.Sdk`; run it with `dotnet test`.",
        "It depends on `Newtonsoft.Json` 13.0.3.",
        "The solution holds 2 .NET projects; it depends on 12 NuGet packages at most.",
        "It is licensed under the Apache License 2.0.",
        "```text\nsrc/Shapes/Circle.cs\ntests/Shapes.Tests/CircleTests.cs\n```",
    ],
    planted=[
        "Tests are written with NUnit.",
        "It is made of 5 .NET projects.",
        "It depends on `Newtonsoft.Json` 12.0.1.",
        "```text\nsrc/Shapes/Square.cs\n```",
        "It is licensed under MIT.",
        "It has 3 forks.",
        "The primary language is **C++**.",
    ],
)

GRADLE = Shape(
    "tiles",
    {
        "README.md": "# tiles\n\nTiles renders map tiles.\n",
        "LICENSE": APACHE,
        "settings.gradle.kts": 'rootProject.name = "tiles"\ninclude(":core")\n',
        "core/build.gradle.kts": (
            'plugins { kotlin("jvm") version "1.9.23" }\n\ndependencies {\n'
            '    implementation("com.squareup.okio:okio:3.9.0")\n'
            '    testImplementation("org.junit.jupiter:junit-jupiter:5.10.2")\n}\n'
        ),
        "core/src/main/kotlin/tiles/Tile.kt": "package tiles\n\nclass Tile {\n    fun render() = Unit\n}\n"
        * 3,
        "core/src/test/kotlin/tiles/TileTest.kt": "package tiles\n\nclass TileTest\n",
        "gradlew": '#!/bin/sh\nexec java -jar gradle/wrapper/gradle-wrapper.jar "$@"\n',
    },
    "Apache-2.0",
    true=[
        "Tiles is written mainly in Kotlin.",
        "The `core` module uses `com.squareup.okio:okio:3.9.0`.",
        "It is tested with JUnit 5 (`org.junit.jupiter:junit-jupiter` 5.10.2).",
        "The tile class is `core/src/main/kotlin/tiles/Tile.kt`.",
    ],
    planted=[
        "Its tests use Spock.",
        "It uses `com.squareup.okio:okio` 2.10.",
        "```bash\n./scripts/release.sh\n```",
        "It is licensed under BSD-3-Clause.",
        "The primary language is Java.",
        "It has 40 stars.",
    ],
    silent=["```bash\n./gradlew test\n```", "Run `./gradlew build` or `dotnet test`; `go test ./...` too."],
)

PYTHON = Shape(
    "shelf",
    {
        "README.md": "# shelf\n\nShelf keeps a catalogue of books. It needs git on the PATH.\n",
        "LICENSE": MIT,
        "pyproject.toml": (
            '[project]\nname = "shelf"\nlicense = "MIT"\ndependencies = ["httpx>=0.27,<1"]\n'
            '[project.optional-dependencies]\ntest = ["pytest>=8"]\n'
        ),
        "src/shelf/__init__.py": "def shelve() -> None:\n    pass\n" * 3,
        "tests/test_shelf.py": "def test_shelf() -> None:\n    pass\n",
    },
    "MIT",
    true=[
        "Shelf is written mainly in Python.",
        "It depends on `httpx>=0.27` and is tested with pytest 8.",
        "```console\n$ python -m pytest tests/test_shelf.py\n```",
        "The package lives in `src/shelf/`.",
        "It requires `git`, which its README names.",
        "The build writes `dist/shelf.whl`; point it at `path/to/catalogue.json`.",
        "The next release requires `python>=3.10`; the library has a rich history of black magic.",
        "```python\nimport shelf\n\nshelf.load('data/catalogue.json')  # a user's file: never ✗\n```",
    ],
    planted=[
        "It requires httpx 0.23.",
        "It depends on `attrs` for its records.",
        "It is built with Rich for its tables.",
        "Its tests run with Jest.",
        "```console\n$ python scripts/seed_catalogue.py\n```",
        "It is licensed under the Apache License 2.0.",
    ],
)

GO = Shape(
    "svc",
    {
        "README.md": "# svc\n\nSvc serves the catalogue.\n",
        "LICENSE": APACHE,
        "go.mod": (
            "module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/stretchr/testify v1.9.0\n"
            "\tgoogle.golang.org/grpc v1.64.0\n)\n"
        ),
        "main.go": "package main\n\nfunc main() {}\n" * 3,
        "main_test.go": 'package main\n\nimport "testing"\n\nfunc TestMain(t *testing.T) {}\n',
    },
    "Apache-2.0",
    true=[
        "It requires `github.com/stretchr/testify` v1.9.0 and `google.golang.org/grpc` v1.64.",
        "The module `example.com/svc` is written in Go.",
    ],
    planted=[
        "It requires `github.com/stretchr/testify` v1.8.4.",
        "Its tests use Ginkgo.",
        "```bash\ngo run ./cmd/seed/main.go\n```",
    ],
    silent=["Run the tests with `go test ./...`."],
)

RUST = Shape(
    "twin",
    {
        "README.md": "# twin\n\nTwin finds duplicate files.\n",
        "LICENSE": MIT,
        "Cargo.toml": (
            '[package]\nname = "twin"\nversion = "0.3.1"\nlicense = "MIT OR Apache-2.0"\n'
            '[dependencies]\nserde = "1.0"\ntokio = { version = "1.37", features = ["fs"] }\n'
        ),
        "src/main.rs": "fn main() {}\n" * 3,
    },
    "MIT",
    true=[
        "Twin is written in Rust and depends on serde 1.0.200 and tokio 1.38.",
        "It is licensed under MIT or Apache-2.0, at your option.",
    ],
    planted=[
        "It is built on tokio 0.2.",
        "It is licensed under GPL-2.0.",
    ],
)

SHAPES = [GEM, PHP, DOTNET, GRADLE, PYTHON, GO, RUST]


async def observed(tmp_path: Path, shape: Shape, where: str) -> tuple[list[ToolResult], RepoRef]:
    """The offline planner's observations of ``shape``: served by the GitHub emulator (whose metadata
    holds the counts) or read as a local repository (whose languages Linguist's rules count)."""
    root = make_repo(tmp_path / where / shape.name, shape.files)
    if where == "local":
        settings = Settings(cache_dir=tmp_path / where / "cache")
        async with analysis(settings, str(root)) as run:
            await run.ask("")
            return list(run.opened.analysis.results), RepoRef(owner="local", name=shape.name)
    with GitHubEmulator() as emu:
        emu.add_repo(
            f"corpus/{shape.name}", root, license=shape.license, description=None, stars=shape.stars,
            forks=shape.forks, topics=shape.topics,
        )  # fmt: skip
        async with analysis(make_settings(emu, tmp_path / where), f"corpus/{shape.name}") as run:
            await run.ask("")
            return list(run.opened.analysis.results), RepoRef(owner="corpus", name=shape.name)


Judged = dict[str, list[tuple[str, str, str | None]]]


def judged(shape: Shape, results: list[ToolResult], ref: RepoRef) -> tuple[Judged, Judged]:
    """Each true and each planted line of the shape's report → the claims checked in it."""
    lines = [(text, "true") for text in shape.true + shape.silent] + [
        (text, "planted") for text in shape.planted
    ]
    report, spans = "", []
    for text, kind in lines:
        spans.append((len(report), len(report) + len(text), text, kind))
        report += text + "\n\n"
    check = check_report(report, (ref,), results)
    true: Judged = {}
    planted: Judged = {}
    for start, end, text, kind in spans:
        claims = [(c.claim, c.verdict, c.observed) for c in check.claims if start <= c.start < end]
        (true if kind == "true" else planted)[text] = claims
    return true, planted


async def both_ways(tmp_path: Path, shape: Shape) -> tuple[Judged, Judged]:
    """The lines' claims as checked over the emulator and over the local repository, together."""
    true: Judged = {}
    planted: Judged = {}
    for where in ("github", "local"):
        results, ref = await observed(tmp_path, shape, where)
        got_true, got_planted = judged(shape, results, ref)
        for mine, got in ((true, got_true), (planted, got_planted)):
            for text, claims in got.items():
                mine.setdefault(text, []).extend(claims)
    return true, planted


async def test_true_statements_hold_and_planted_falsehoods_are_caught(tmp_path: Path) -> None:
    wrongly_marked, missed, caught, planted_total = [], [], 0, 0
    for shape in SHAPES:
        true, planted = await both_ways(tmp_path / shape.name, shape)
        wrongly_marked += [
            (shape.name, t, c) for t, c in true.items() if any(v == "contradicted" for _, v, _ in c)
        ]
        for text, claims in planted.items():
            planted_total += 1
            if any(v == "contradicted" for _, v, _ in claims):
                caught += 1
            else:
                missed.append((shape.name, text, claims))
        unchecked = [t for t, c in true.items() if bool(c) == (t in shape.silent)]
        assert unchecked == []  # every true line was checked, and the silent ones hold no claim

    assert wrongly_marked == []
    assert caught >= 0.9 * planted_total, missed
    print(f"planted caught {caught}/{planted_total}; true lines marked ✗: {len(wrongly_marked)}")


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
async def test_each_shape_verifies_its_dependency_versions_not_by_name_alone(
    tmp_path: Path, shape: Shape
) -> None:
    results, ref = await observed(tmp_path, shape, "github")
    check = check_report("\n\n".join(shape.true), (ref,), results)
    versioned = [
        c for c in check.claims if c.kind == "dependency" and any(ch.isdigit() for ch in c.claim.split()[-1])
    ]
    assert versioned, "each shape's report names a dependency with its version"
    assert all(c.verdict == "verified" and c.observed and "in " in c.observed for c in versioned), [
        (c.claim, c.verdict, c.observed) for c in versioned
    ]


@pytest.mark.parametrize(
    ("report", "verdict", "marked"),
    [
        (
            "It is written mainly in **C#**.",
            "contradicted",
            "It is written mainly in **C#** **[✗ checked: Kotlin]**.",
        ),
        (
            "It is written mainly in C++, with C.",
            "contradicted",
            "It is written mainly in C++ **[✗ checked: Kotlin]**, with C.",
        ),
        (
            "The primary language is *F#*.",
            "contradicted",
            "The primary language is *F#* **[✗ checked: Kotlin]**.",
        ),
        ("It is written mainly in **C#**.", "verified", "It is written mainly in **C#**."),
        ("It is written mainly in C++.", "verified", "It is written mainly in C++."),
        (
            "It depends on `phpunit/phpunit` ^9.",
            "contradicted",
            "It depends on `phpunit/phpunit` ^9 **[✗ checked: Kotlin]**.",
        ),
        ("Uses **React 18**, mostly.", "contradicted", "Uses **React 18** **[✗ checked: Kotlin]**, mostly."),
    ],
)
def test_a_mark_wraps_whole_tokens_and_leaves_the_markdown_intact(
    report: str, verdict: str, marked: str
) -> None:
    found = next(f for f in find_claims(report) if f.kind in ("language", "dependency"))
    check = ev.ClaimsChecked(
        t=0.0,
        claims=(
            ev.CheckedClaim(
                kind=found.kind,
                claim=found.value,
                verdict=verdict,
                observed="Kotlin",
                start=found.start,
                end=found.end,
            ),
        ),  # type: ignore[arg-type]
        key_facts=(),
        verified=0,
        contradicted=0,
        unchecked=0,
    )
    assert report[found.start : found.end] in ("C#", "C++", "F#", "phpunit/phpunit` ^9", "React 18")
    assert annotate(report, check) == marked


def test_a_mark_in_a_fenced_block_stands_at_the_end_of_its_line() -> None:
    report = "Run:\n\n```bash\n./scripts/ghost.sh --fast\n```\n"
    found = find_claims(report)
    assert [(f.kind, f.value) for f in found] == [("path", "./scripts/ghost.sh")]
    claim = ev.CheckedClaim(
        kind="path",
        claim="./scripts/ghost.sh",
        verdict="contradicted",
        observed="not in the repository's tree",
        start=found[0].start,
        end=found[0].end,
    )
    check = ev.ClaimsChecked(t=0.0, claims=(claim,), key_facts=(), verified=0, contradicted=1, unchecked=0)
    assert "./scripts/ghost.sh --fast **[✗ checked: not in the repository's tree]**\n```" in annotate(
        report, check
    )


def test_commands_scoped_names_and_quotes_are_not_paths() -> None:
    report = (
        "Run `vendor/bin/phpunit`, `./gradlew test`, `bundle exec rake`, `dotnet test`, `go test ./...`, `npm run build`.\n"
        "It depends on `@scope/name`, `phpunit/phpunit`, `org.junit.jupiter:junit-jupiter` and `github.com/org/repo/v2`.\n"
        "```sh\nnpm install @acme/ui\ncomposer require phpunit/phpunit\ncurl -o out/x.py https://example.com/a/b.py\n```\n"
        "```mermaid\nflowchart LR\n  src/a.py --> src/b.py\n```\n"
        "> Quoted: see `docs/ghost.md` and docs/other.md.\n"
    )
    found = find_claims(report)
    assert [f for f in found if f.kind == "path"] == []
    assert {f.value for f in found if f.kind == "dependency"} == {
        "@scope/name", "phpunit/phpunit", "org.junit.jupiter:junit-jupiter", "github.com/org/repo/v2",
    }  # fmt: skip


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
async def test_the_writers_own_report_on_each_shape_contradicts_nothing(tmp_path: Path, shape: Shape) -> None:
    """The deterministic writer's report (its tables, fenced blocks and dependency lines now read too)."""
    root = make_repo(tmp_path / shape.name, shape.files)
    with GitHubEmulator() as emu:
        emu.add_repo(f"corpus/{shape.name}", root, license=shape.license, description=None, stars=shape.stars)
        async with analysis(make_settings(emu, tmp_path), f"corpus/{shape.name}") as run:
            events = await run.ask("")
    check = next(e for e in events if isinstance(e, ev.ClaimsChecked))
    assert [(c.claim, c.observed) for c in check.claims if c.verdict == "contradicted"] == []
    assert check.verified >= 3


def test_licence_claims_keep_their_version_and_other_spdx_ids_are_read() -> None:
    written = {
        "It is licensed under LGPL-2.1.": "LGPL-2.1",
        "Licensed under the LGPLv3.": "LGPL-3.0",
        "License: EPL-2.0": "EPL-2.0",
        "It is licensed under CC0.": "CC0-1.0",
        "License: 0BSD": "0BSD",
        "It is licensed under MIT-0.": "MIT-0",
        "MIT licensed; it uses the zlib library.": "MIT",
    }
    for text, value in written.items():
        assert [f.value for f in find_claims(text) if f.kind == "license"] == [value], text
    assert [same_license(c, "LGPL-3.0-or-later") for c in ("LGPL", "LGPL-3.0", "LGPL-2.1", "GPL-3.0")] == [
        True, True, False, False,
    ]  # fmt: skip
    assert [same_license(c, "MIT") for c in ("MIT", "MIT-0", "0BSD")] == [True, False, False]


async def test_a_framework_nobody_declares_is_judged_by_its_config_and_by_what_was_left_unread(
    tmp_path: Path,
) -> None:
    """pytest without a manifest naming it: its conftest.py says it is used; a tox.ini that installs it
    (read or not) leaves its absence unproven; a framework of an ecosystem without any manifest is false."""
    base = {"README.md": "# tally\n", "LICENSE": MIT, "pyproject.toml": '[project]\nname = "tally"\n'}
    base["tally/__init__.py"] = "def count() -> int:\n    return 1\n"
    configured = {**base, "tests/conftest.py": "", "tests/test_tally.py": "def test_count():\n    pass\n"}
    by_tox = {**base, "tox.ini": "[testenv]\ndeps = pytest\ncommands = pytest\n", "tests/test_tally.py": ""}
    report = "It is tested with pytest.\n\nIts tests run with Mocha.\n"
    for name, files, pytest_verdict in (("configured", configured, "verified"), ("tox", by_tox, "unchecked")):
        shape = Shape(name, files, "MIT", true=[], planted=[])
        results, ref = await observed(tmp_path, shape, "github")
        got = {c.claim: (c.verdict, c.observed) for c in check_report(report, (ref,), results).claims}
        assert got["pytest"][0] == pytest_verdict, got
        assert got["Mocha"][0] == "contradicted", got
    assert got["pytest"][1] and "tox.ini" in got["pytest"][1]


def test_dependency_tables_name_their_packages_frameworks_and_versions() -> None:
    report = (
        "| Package | Purpose |\n|---|---|\n| react | UI |\n| `vitest` | tests |\n| src/ui | the UI |\n\n"
        "| Dependency | Version |\n|---|---|\n| `symfony/mime` | ^6.4 |\n| RSpec | 3.12 |\n\n"
        "| Aspect | Value |\n|---|---|\n| Test framework | xUnit |\n| Stars | 12 |\n"
    )
    found = [(f.subject, f.value, f.version) for f in find_claims(report) if f.kind == "dependency"]
    assert found == [
        ("dependency", "react", ""),
        ("framework", "vitest", ""),
        ("module", "src/ui", ""),  # a package or a folder: the verdict looks in the tree first
        ("module", "symfony/mime", "^6.4"),
        ("framework", "RSpec", "3.12"),
        ("framework", "xUnit", ""),
    ]
    assert [(f.value, f.version) for f in find_claims("It uses pandas for 1.5 million rows.")] == [
        ("pandas", "")
    ]
    assert [(f.value, f.version) for f in find_claims("It uses pandas 1.5 million rows.")] == [("pandas", "")]


def test_a_framework_inside_a_command_is_no_framework_claim() -> None:
    """`python -m pytest` runs it (the answer's CI line); `pytest` alone, or in prose, names it."""
    assert [f.value for f in find_claims("CI runs `python -m pytest`, then the tests.")] == []
    assert [f.value for f in find_claims("The tests run with `pytest` and RSpec.")] == ["pytest", "RSpec"]


async def test_a_version_pinned_centrally_checks_the_claimed_one(tmp_path: Path) -> None:
    """Central package management: the projects name `xunit`, Directory.Packages.props its version."""
    files = {**DOTNET.files}
    files["Directory.Packages.props"] = (
        '<Project>\n  <ItemGroup>\n    <PackageVersion Include="xunit" Version="2.6.2" />\n  </ItemGroup>\n</Project>\n'
    )
    files["tests/Shapes.Tests/Shapes.Tests.csproj"] = (
        '<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup><PackageReference Include="xunit" /></ItemGroup>\n</Project>\n'
    )
    results, ref = await observed(
        tmp_path, Shape("pinned", files, "Apache-2.0", true=[], planted=[]), "github"
    )
    report = "It depends on `xunit` 2.6.2.\n\nIt depends on `xunit` 1.0.0.\n"
    got = [(c.claim, c.verdict, c.observed) for c in check_report(report, (ref,), results).claims]
    assert [(claim, verdict) for claim, verdict, _ in got] == [
        ("xunit 2.6.2", "verified"),
        ("xunit 1.0.0", "contradicted"),
    ]
    assert got[1][2] is not None and "2.6.2 in Directory.Packages.props" in got[1][2]


def test_escaped_language_names_and_recommendations_to_add_a_file() -> None:
    """Seen on an offline report of a .NET solution: "Primary language: C\\#" checked as "C", ✗ against
    C#; and on a Rust workspace without a README: "Add a README that ..." checked as a README said to
    exist."""
    found = find_claims("- Primary language: C\\#\n- Mostly C\\+\\+ code.\n| Primary language | C\\# |\n")
    assert [(f.kind, f.value) for f in found] == [("language", "C#"), ("language", "C++"), ("language", "C#")]
    added = find_claims("- Add a README that explains it.\n添加 LICENSE 文件。\nExpand the README.\n")
    assert [(f.value, f.negated) for f in added] == [("README", True), ("LICENSE", True), ("README", False)]


async def test_a_framework_named_in_prose_is_still_contradicted_but_not_one_in_a_readme_command(
    tmp_path: Path,
) -> None:
    """vue's README says it moved from Jest: prose is no evidence Jest runs. A README command that runs
    it (```npx jest```) leaves its absence from the manifests unproven."""
    base = {
        "LICENSE": MIT,
        "package.json": '{"name": "shelf", "devDependencies": {"vitest": "^1.0.0"}}',
        "src/index.js": "export const one = 1;\n",
        "test/index.test.js": "import { test } from 'vitest';\n",
    }
    report = "The tests are written with Jest.\n"
    for readme, verdict in (
        ("# shelf\n\nWe moved our tests from Jest to Vitest.\n", "contradicted"),
        ("# shelf\n\n```sh\nnpx jest\n```\n", "unchecked"),
    ):
        shape = Shape(verdict, {**base, "README.md": readme}, "MIT", true=[], planted=[])
        results, ref = await observed(tmp_path / verdict, shape, "github")
        got = {c.claim: c.verdict for c in check_report(report, (ref,), results).claims}
        assert got["Jest"] == verdict, got


async def test_an_unread_ci_workflow_leaves_a_dotnet_framework_contradicted(tmp_path: Path) -> None:
    """NUnit must be a PackageReference to run: a workflow nobody read cannot bring it in (pip or npx
    can bring pytest or Jest, so there an unread workflow still leaves the claim open)."""
    files = {**DOTNET.files}
    files[".github/workflows/release.yml"] = "on: push\njobs:\n  pack:\n    runs-on: ubuntu-latest\n"
    results, ref = await observed(tmp_path, Shape("ci", files, "Apache-2.0", true=[], planted=[]), "github")
    results = [r for r in results if r.arguments.get("path") != ".github/workflows/release.yml"]
    got = {c.claim: c.verdict for c in check_report("The tests use NUnit.\n", (ref,), results).claims}
    assert got["NUnit"] == "contradicted", got
