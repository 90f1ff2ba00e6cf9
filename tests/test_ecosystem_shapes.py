"""Every major ecosystem's shape, built from small real parts, analysed offline as the app does: the report
is true (issue 34).

Each shape is a folder of ``tests/fixtures/ecosystems/`` holding real manifests copied from real
repositories (``SOURCES.md`` names each file's repository, commit and cut) and a few real source and test
files, made a git repository here and served by the GitHub emulator under its repository's name (GitHub's
language bar as Linguist counts it, as on GitHub). The report is judged by the truth bench's judge
(:func:`bench.truth_judge.judge_truth`) against facts written here by reading the fixture: no false
statement, no key fact left out (language, licence, packages per ecosystem, test frameworks and folders),
no ✗ of the app's own check. Three shapes also feed a planted-claims report through the real claim check by
the scripted model: every planted falsehood caught, no true statement marked ✗.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.settings import Settings
from bench.realrepos_truth import Truth
from bench.truth import api_license, linguist_languages, score_planted, served_languages
from bench.truth_judge import FolderFacts, Manifests, TruthFile, judge_truth
from bench.truth_planted import planted_report
from testing.analysis import make_settings, reads_then, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ecosystems"


@dataclass(frozen=True)
class Shape:
    key: str  # the fixture folder
    facts: dict[str, Any]  # a truth file (bench/truth schema) written by reading the fixture
    folder: dict[str, Any] | None = None  # one folder URL's facts
    must_say: tuple[str, ...] = ()  # words the whole report holds
    must_not_say: tuple[str, ...] = ("No dependency manifest",)
    lines: tuple[tuple[str, str], ...] = field(default=())  # (a, b): some line of the report holds both


def eco(kind: str, manifests: list[str], tests: int = 0, **more: Any) -> dict[str, Any]:
    return {kind: {"packages": len(manifests), "manifests": manifests, "test_packages": tests, **more}}


SHAPES = (
    Shape(
        "ruby-gems",
        {
            "repo": "sinatra/sinatra", "license": "MIT", "primary_language": "Ruby", "languages": ["Ruby"],
            "ecosystems": eco("rubygems", ["sinatra.gemspec", "rack-protection/rack-protection.gemspec",
                                           "sinatra-contrib/sinatra-contrib.gemspec"]),
            "own_package_names": ["sinatra", "rack-protection", "sinatra-contrib"],
            "dependencies": [
                {"name": "rack", "constraint": ">= 3.0.0, < 4", "manifest": "sinatra.gemspec"},
                {"name": "mustermann", "constraint": "~> 3.0", "manifest": "sinatra.gemspec"},
                {"name": "tilt", "constraint": "~> 2.0", "manifest": "sinatra.gemspec"},
                {"name": "multi_json", "constraint": ">= 0.0.2", "manifest": "sinatra-contrib/sinatra-contrib.gemspec"},
            ],
            "not_dependencies": ["rails", "activesupport"],
            "test_frameworks": ["Minitest", "RSpec"],
            "test_dirs": ["test", "rack-protection/spec", "sinatra-contrib/spec"],
        },
        folder={"path": "sinatra-contrib", "primary_language": "Ruby",
                "manifest": "sinatra-contrib/sinatra-contrib.gemspec", "test_dirs": ["sinatra-contrib/spec"],
                "test_frameworks": ["RSpec"], "license": "MIT"},
    ),
    Shape(
        "dotnet-solution",
        {
            "repo": "App-vNext/Polly", "license": "BSD-3-Clause", "primary_language": "C#", "languages": ["C#"],
            "ecosystems": eco("nuget", ["src/Polly.Core/Polly.Core.csproj", "src/Polly.Testing/Polly.Testing.csproj",
                                        "test/Polly.Core.Tests/Polly.Core.Tests.csproj",
                                        "test/Polly.Testing.Tests/Polly.Testing.Tests.csproj"], tests=2),
            "own_package_names": ["Polly.Core", "Polly.Testing", "Polly.Core.Tests", "Polly.Testing.Tests"],
            "dependencies": [
                {"name": "xunit", "constraint": "2.9.3", "manifest": "Directory.Packages.props"},
                {"name": "Shouldly", "constraint": "4.3.0", "manifest": "Directory.Packages.props"},
                {"name": "Microsoft.Bcl.AsyncInterfaces", "constraint": "6.0.0", "manifest": "Directory.Packages.props"},
            ],
            "not_dependencies": ["Newtonsoft.Json.Schema", "Moq"],
            "test_frameworks": ["xUnit"],
            "test_dirs": ["test/Polly.Core.Tests", "test/Polly.Testing.Tests"],
        },
        folder={"path": "test/Polly.Core.Tests", "primary_language": "C#",
                "manifest": "test/Polly.Core.Tests/Polly.Core.Tests.csproj", "test_dirs": ["test/Polly.Core.Tests"],
                "test_frameworks": ["xUnit"], "license": "BSD-3-Clause"},
        must_say=("C#", "xUnit"),
    ),
    Shape(
        "php-package",
        {
            "repo": "laravel/framework", "license": "MIT", "primary_language": "PHP", "languages": ["PHP"],
            "ecosystems": eco("composer", ["composer.json", "src/Illuminate/Support/composer.json"]),
            "own_package_names": ["laravel/framework", "illuminate/support", "illuminate/auth", "illuminate/bus"],
            "dependencies": [
                {"name": "brick/math", "constraint": "^0.14.2 || ^0.15 || ^0.16 || ^0.17 || ^0.18 || ^0.19",
                 "manifest": "composer.json"},
                {"name": "phpunit/phpunit", "constraint": "^11.5.50 || ^12.5.8 || ^13.0.3", "manifest": "composer.json"},
            ],
            "not_dependencies": ["symfony/yaml", "doctrine/orm"],
            "test_frameworks": ["PHPUnit"],
            "test_dirs": ["tests"],
        },
        must_say=("PHPUnit",),
    ),
    Shape(
        "kotlin-gradle",
        {
            "repo": "square/okhttp", "license": "Apache-2.0", "primary_language": "Kotlin", "languages": ["Kotlin"],
            "ecosystems": eco("gradle", ["okhttp/build.gradle.kts", "okhttp-tls/build.gradle.kts"]),
            "own_package_names": ["okhttp", "okhttp-tls"],
            "dependencies": [
                {"name": "com.squareup.okio:okio", "constraint": "3.18.0", "manifest": "gradle/libs.versions.toml"},
                {"name": "junit:junit", "constraint": "4.13.2", "manifest": "gradle/libs.versions.toml"},
            ],
            "not_dependencies": ["retrofit", "com.google.code.gson:gson"],
            "test_frameworks": ["JUnit 5", "JUnit 4", "kotlin.test"],
            "test_dirs": ["okhttp/src/jvmTest", "okhttp-tls/src/test"],
        },
    ),
    Shape(
        "maven-modules",
        {
            "repo": "google/gson", "license": "Apache-2.0", "primary_language": "Java", "languages": ["Java"],
            "ecosystems": eco("maven", ["gson/pom.xml", "extras/pom.xml"], packages_accepted=[2, 3]),
            "own_package_names": ["gson", "gson-extras", "gson-parent"],
            "dependencies": [{"name": "junit:junit", "constraint": "4.13.2", "manifest": "pom.xml"}],
            "test_frameworks": ["JUnit 4"],
            "test_dirs": ["gson/src/test", "extras/src/test"],
        },
    ),
    Shape(
        "cpp-gtest",
        {
            "repo": "fmtlib/fmt", "license": "MIT", "primary_language": "C++", "languages": ["C++"],
            "ecosystems": eco("cmake", ["CMakeLists.txt"]),
            "own_package_names": ["fmt"],
            "test_frameworks": ["GoogleTest"],
            "test_dirs": ["test"],
            "vendored": ["test/gtest"],
        },
        lines=(("test/gtest", "vendored"),),
    ),
    Shape(
        "rust-workspace",
        {
            "repo": "helix-editor/helix", "license": "MPL-2.0", "primary_language": "Rust", "languages": ["Rust"],
            "ecosystems": eco("cargo", ["helix-parsec/Cargo.toml", "helix-stdx/Cargo.toml"]),
            "own_package_names": ["helix-parsec", "helix-stdx"],
            "dependencies": [
                {"name": "regex", "constraint": "1", "manifest": "Cargo.toml"},
                {"name": "thiserror", "constraint": "2.0", "manifest": "Cargo.toml"},
                {"name": "which", "constraint": "7.0", "manifest": "helix-stdx/Cargo.toml"},
            ],
            "not_dependencies": ["serde_yaml", "clap"],
            "test_dirs": ["helix-stdx/tests"],
        },
    ),
    Shape(
        "ts-monorepo",
        {
            "repo": "vitejs/vite", "license": "MIT", "primary_language": "TypeScript",
            "languages": ["TypeScript", "JavaScript", "HTML"],
            # the project's packages; the playground's are examples (3 counting every workspace member)
            "ecosystems": eco("npm", ["packages/vite/package.json", "packages/create-vite/package.json"],
                              packages_accepted=[2, 3]),
            "own_package_names": ["vite", "create-vite", "@vitejs/test-alias"],
            "test_frameworks": ["Vitest"],
            "test_dirs": ["packages/vite/src/node/__tests__", "packages/create-vite/__tests__",
                          "playground/alias/__tests__"],
            "fixtures": ["packages/vite/src/node/__tests__/fixtures"],
            "examples": ["playground"],
        },
    ),
    Shape(
        "go-work",
        {
            "repo": "etcd-io/etcd", "license": "Apache-2.0", "primary_language": "Go", "languages": ["Go"],
            "ecosystems": eco("go", ["api/go.mod", "client/pkg/go.mod"]),
            "own_package_names": ["go.etcd.io/etcd/api/v3", "go.etcd.io/etcd/client/pkg/v3"],
            "dependencies": [{"name": "github.com/stretchr/testify", "constraint": "v1.11.1", "manifest": "api/go.mod"}],
            "test_frameworks": ["testify"],
            "test_dirs": ["api/version", "client/pkg/types"],
        },
        folder={"path": "api", "primary_language": "Go", "manifest": "api/go.mod", "test_dirs": ["api/version"],
                "test_frameworks": ["testify"], "license": "Apache-2.0"},
    ),
    Shape(
        "python-uv",
        {
            "repo": "pydantic/pydantic-ai", "license": "MIT", "primary_language": "Python", "languages": ["Python"],
            "ecosystems": eco("python", ["pyproject.toml", "pydantic_evals/pyproject.toml",
                                         "pydantic_graph/pyproject.toml"], packages_accepted=[2, 3]),
            "own_package_names": ["pydantic-ai", "pydantic-ai-slim", "pydantic-evals", "pydantic-graph"],
            "dependencies": [{"name": "anyio", "constraint": ">=4.7.0", "manifest": "pydantic_graph/pyproject.toml"}],
            "not_dependencies": ["django", "flask"],
            "test_frameworks": ["pytest"],
            "test_dirs": ["tests"],
        },
        folder={"path": "pydantic_graph", "primary_language": "Python", "manifest": "pydantic_graph/pyproject.toml",
                "test_dirs": ["tests/graph"], "test_frameworks": ["pytest"], "license": "MIT"},
    ),
)  # fmt: skip
PLANTED = ("ruby-gems", "dotnet-solution", "php-package")
# test -> shape -> why it is expected to fail until a feature of issue 34 lands (strict: it must fail)
IN_PROGRESS: dict[str, dict[str, str]] = {
    "planted": {},
}


def cases(test: str, shapes: list[Shape] | tuple[Shape, ...]) -> list[Any]:
    """The shapes as parameters, those of ``IN_PROGRESS[test]`` marked as expected to fail (strictly)."""
    waiting = IN_PROGRESS.get(test, {})
    return [
        pytest.param(
            s,
            id=s.key,
            marks=[pytest.mark.xfail(reason=waiting[s.key], strict=True)] if s.key in waiting else [],
        )
        for s in shapes
    ]


def fixture_files(key: str) -> dict[str, bytes]:
    root = FIXTURES / key
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "SOURCES.md"
    }


def facts_of(shape: Shape) -> TruthFile:
    data = {"commit": "", "default_branch": "main", "shape": shape.key, **shape.facts}
    folders = [shape.folder] if shape.folder else []
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return TruthFile(
        **values,
        folders=tuple(
            FolderFacts(**{k: tuple(v) if isinstance(v, list) else v for k, v in f.items()}) for f in folders
        ),
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("shapes")
    return {s.key: make_repo(root / s.key, fixture_files(s.key), bare=True) for s in SHAPES}


async def analyse(
    facts: TruthFile, git_dir: Path, cache: Path, *, target: str = "", report: str | None = None
) -> list[ev.Event]:
    """The app's run over the served shape: offline, or with a scripted model writing ``report``."""
    truth = Truth.read(git_dir)
    with served_languages(facts.repo, linguist_languages(git_dir, truth)), GitHubEmulator() as emu:
        emu.add_repo(facts.repo, git_dir, license=api_license(facts))
        if report is None:
            settings = Settings(github_api_url=emu.base_url, cache_dir=cache)
            return (await run_once(settings, "", target=target or facts.repo)).events
        with ScriptedModelServer(responder=reads_then(report, facts.repo)) as server:
            # a hosted model's report: its ✗ claims stay for the check (a local one's are set aside)
            settings = make_settings(emu, cache, server, prefetch=True, llm_local=False)
            return (await run_once(settings, "What is this repository?", target=facts.repo)).events


def finished(events: list[ev.Event]) -> str:
    last = events[-1]
    assert isinstance(last, ev.RunFinished), last
    return last.report


def crosses(events: list[ev.Event]) -> list[str]:
    check = next(e for e in events if isinstance(e, ev.ClaimsChecked))
    return [
        f"{c.kind}: {c.claim} (observed {c.observed})" for c in check.claims if c.verdict == "contradicted"
    ]


@pytest.mark.parametrize("shape", cases("offline", SHAPES))
async def test_the_offline_report_of_every_ecosystem_shape_is_true(
    shape: Shape, built: dict[str, Path], tmp_path: Path
) -> None:
    facts, git_dir = facts_of(shape), built[shape.key]
    events = await analyse(facts, git_dir, tmp_path / "cache")
    report = finished(events)
    truth = Truth.read(git_dir)
    linguist = linguist_languages(git_dir, truth)
    judged = judge_truth(report, facts, truth, manifests=Manifests.read(git_dir, truth), linguist=linguist)
    assert [f"{s.kind}: {s.text}" for s in judged.false] == []
    assert judged.missing == ()
    assert crosses(events) == []
    shown = report.replace("\\", "")  # Markdown's escapes (``C\\#``) as the page shows them
    assert [w for w in shape.must_say if w not in shown] == []
    assert [w for w in shape.must_not_say if w in report] == []
    for a, b in shape.lines:
        assert any(a in line and b in line for line in report.splitlines()), (a, b)


FOLDERS = [s for s in SHAPES if s.folder]


@pytest.mark.parametrize("shape", cases("folder", FOLDERS))
async def test_a_folder_report_speaks_for_its_folder(
    shape: Shape, built: dict[str, Path], tmp_path: Path
) -> None:
    """A ``/tree/<ref>/<folder>`` URL: the folder's manifest (or the nearest parent's), its tests wherever
    the ecosystem keeps them, never "no dependency manifest" nor "no tests" when they exist."""
    facts, git_dir = facts_of(shape), built[shape.key]
    folder = facts.folders[0]
    target = f"https://github.com/{facts.repo}/tree/main/{folder.path}"
    events = await analyse(facts, git_dir, tmp_path / "cache", target=target)
    report = finished(events)
    truth = Truth.read(git_dir)
    scoped = Truth(files=truth.files, dirs=truth.dirs, texts=truth.texts, scope=folder.path)
    judged = judge_truth(report, facts, scoped, folder, manifests=Manifests.read(git_dir, truth))
    assert [f"{s.kind}: {s.text}" for s in judged.false] == []
    assert judged.missing == ()
    assert crosses(events) == []
    assert "No dependency manifest" not in report and "No tests folder" not in report


PLANTED_SHAPES = [s for s in SHAPES if s.key in PLANTED]


@pytest.mark.parametrize("shape", cases("planted", PLANTED_SHAPES))
async def test_the_claim_check_catches_every_planted_falsehood_and_no_true_statement(
    shape: Shape, built: dict[str, Path], tmp_path: Path
) -> None:
    """A scripted model's report of true statements (versions as their manifests constrain them, package
    names such as ``laravel/framework``, commands such as ``vendor/bin/phpunit``) and planted falsehoods
    (a version outside its constraint, an undeclared test framework, invented paths in a fenced block and
    in inline code, a wrong licence, language and package count, a name declared nowhere)."""
    facts, git_dir = facts_of(shape), built[shape.key]
    planted = planted_report(facts, Truth.read(git_dir))
    events = await analyse(facts, git_dir, tmp_path, report=planted.text)
    check = next(e for e in events if isinstance(e, ev.ClaimsChecked))
    scored = score_planted(planted, finished(events), check.claims)
    assert scored.true_wrong == ()
    assert scored.missed == ()
    assert scored.caught == scored.planted >= 9
