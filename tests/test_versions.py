"""Version constraints read in each ecosystem's syntax, and lock files read for the versions they resolved
(report/versions.py, report/locks.py): what the claim check holds a claimed version against."""

from __future__ import annotations

import json

import pytest

from agent_core.report.locks import resolved_versions
from agent_core.report.manifest_values import spec_text
from agent_core.report.versions import compatible, constraint_span, ecosystem_of
from agent_core.sources.models import FileContent

CASES = [
    # npm: caret, tilde, x-ranges, ||, hyphen ranges
    ("18", "^18.2.0", "npm", True),
    ("17", "^18.2.0", "npm", False),
    ("18.3.1", "^18.2.0", "npm", True),
    ("19.0", "^18.2.0", "npm", False),
    ("0.3", "^0.2.3", "npm", False),
    ("0.2.9", "^0.2.3", "npm", True),
    ("1.5", "~1.2.3", "npm", False),
    ("1.2.9", "~1.2.3", "npm", True),
    ("2.0", "1.x || >=2.5.0 || 5.0.0 - 7.2.3", "npm", False),
    ("6", "1.x || >=2.5.0 || 5.0.0 - 7.2.3", "npm", True),
    ("^18.2", "^18.2.0", "npm", True),
    ("^17.0", "^18.2.0", "npm", False),
    # PEP 440
    ("0.27", ">=0.27", "pypi", True),
    ("0.26", ">=0.27", "pypi", False),
    ("1.9", "~=1.4", "pypi", True),
    ("2.0", "~=1.4", "pypi", False),
    ("1.4.2", ">=1.4,!=1.4.2", "pypi", False),
    ("1.4.3", ">=1.4,!=1.4.2", "pypi", True),
    ("1.3", "==1.3.*", "pypi", True),
    ("0.28", ">=0.27,<1", "pypi", True),
    ("1.0", ">=0.27,<1", "pypi", False),
    # Cargo: a bare version is a caret requirement
    ("4.5", "4", "cargo", True),
    ("5", "4", "cargo", False),
    ("1.0.3", "=1.0.2", "cargo", False),
    ("0.2", "1.37", "cargo", False),
    # RubyGems
    ("7.1", "~> 7.0", "rubygems", True),
    ("8.0", "~> 7.0", "rubygems", False),
    ("7.0.9", "~> 7.0.4", "rubygems", True),
    ("7.1", "~> 7.0.4", "rubygems", False),
    ("3.13", "~> 3.12, >= 3.12.1", "rubygems", True),
    # Composer
    ("10.5", "^9.6 || ^10.0", "composer", True),
    ("11", "^9.6 || ^10.0", "composer", False),
    ("1.9", "~1.2", "composer", True),
    ("2.0", "~1.2", "composer", False),
    ("5.4", "*", "composer", True),
    ("6.4", "^6.4@stable", "composer", True),
    # Maven, Gradle, NuGet: exact versions and interval ranges
    ("5.10.0", "5.10.0", "maven", True),
    ("5.9", "5.10.0", "maven", False),
    ("1.5", "[1.0,2.0)", "maven", True),
    ("2.0", "[1.0,2.0)", "maven", False),
    ("3.0", "[1.0,)", "maven", True),
    ("3.1", "3.+", "maven", True),
    ("2.4.2", "2.4.2", "nuget", True),
    ("2.9", "2.4.2", "nuget", False),
    # Go modules
    ("v1.9.0", "v1.9.0", "go", True),
    ("1.9", "v1.9.0", "go", True),
    ("v1.8.4", "v1.9.0", "go", False),
    ("v2.0.0", "v2.0.0+incompatible", "go", True),
    ("v0.0.0", "v0.0.0-20230101120000-abcdef123456", "go", True),
    # what cannot be read is not checkable
    ("1.2", "git+https://example.com/x.git", "npm", None),
    ("1.2", "${junit.version}", "maven", None),
    ("1.2", "workspace:*", "npm", None),
]


@pytest.mark.parametrize(("claimed", "declared", "ecosystem", "expected"), CASES)
def test_a_claimed_version_meets_the_declared_constraint_or_not(
    claimed: str, declared: str, ecosystem: str, expected: bool | None
) -> None:
    assert compatible(claimed, [(declared, ecosystem)]) is expected


def test_any_declaration_that_holds_the_version_is_enough() -> None:
    assert compatible("2.0", [("^1.2", "npm"), ("^2.0", "npm")]) is True
    assert compatible("3.0", [("^1.2", "npm"), ("^2.0", "npm")]) is False
    assert compatible("3.0", [("^1.2", "npm"), ("github:x/y", "npm")]) is False  # one readable is enough


def test_ecosystems_by_file_name() -> None:
    names = ["package.json", "Cargo.toml", "composer.json", "ledger.gemspec", "Gemfile", "go.mod"]
    names += [
        "src/App/App.csproj",
        "core/build.gradle.kts",
        "pom.xml",
        "pyproject.toml",
        "requirements-dev.txt",
    ]
    assert [ecosystem_of(n) for n in names] == [
        "npm", "cargo", "composer", "rubygems", "rubygems", "go", "nuget", "maven", "maven", "pypi", "pypi",
    ]  # fmt: skip


def test_constraints_past_the_caps_are_not_read() -> None:
    """A constraint read in part could allow what the whole does not (``^0.14 || ^0.15`` cut to
    ``^0.14 || ^0``) or refuse what it allows (its 17th alternative): past a cap it is not checkable."""
    assert constraint_span("^1 || " * 10_000, "npm") is None
    assert constraint_span("1" * 100_000, "npm") is None
    assert constraint_span("^0.14.2 || ^0.15 || ^0.16 || ^0.17 || ^0", "composer") is not None
    assert constraint_span(" || ".join(f"^{n}" for n in range(1, 18)), "npm") is None  # 17 alternatives
    assert constraint_span(" || ".join(f"^{n}" for n in range(1, 17)), "npm") is not None
    assert constraint_span(spec_text("^0.14.2 || " * 20), "composer") is None  # cut when read: "…"


def content(path: str, text: str) -> FileContent:
    return FileContent(path=path, kind="file", size=len(text), text=text)


def test_lock_files_give_the_resolved_versions() -> None:
    files = {
        "package-lock.json": content(
            "package-lock.json",
            json.dumps({"packages": {"": {"name": "app"}, "node_modules/react": {"version": "18.3.1"}}}),
        ),
        "Cargo.lock": content("Cargo.lock", '[[package]]\nname = "serde"\nversion = "1.0.203"\n'),
        "poetry.lock": content("poetry.lock", '[[package]]\nname = "httpx"\nversion = "0.27.0"\n'),
        "composer.lock": content(
            "composer.lock", json.dumps({"packages-dev": [{"name": "phpunit/phpunit", "version": "10.5.20"}]})
        ),
        "Gemfile.lock": content(
            "Gemfile.lock", "GEM\n  specs:\n    rspec (3.13.0)\n      rspec-core (~> 3.13.0)\n"
        ),
        "go.sum": content(
            "go.sum",
            "github.com/stretchr/testify v1.9.0 h1:x=\ngithub.com/stretchr/testify v1.9.0/go.mod h1:y=\n",
        ),
        "broken/package-lock.json": content("broken/package-lock.json", "{not json"),
    }
    found = resolved_versions(files)
    assert found["react"] == [("18.3.1", "package-lock.json")]
    assert found["serde"] == [("1.0.203", "Cargo.lock")]
    assert found["httpx"] == [("0.27.0", "poetry.lock")]
    assert found["phpunit/phpunit"] == [("10.5.20", "composer.lock")]
    assert found["rspec"] == [("3.13.0", "Gemfile.lock")]  # a resolved gem, not its requirement below
    assert "rspec-core" not in found
    assert found["github.com/stretchr/testify"][0] == ("v1.9.0", "go.sum")
    assert compatible("18.3", [(v, "go") for v, _ in found["react"]]) is True
    assert compatible("18.2", [(v, "go") for v, _ in found["react"]]) is False
