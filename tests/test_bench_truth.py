"""The truth bench (``python -m bench --only truth``): its judge holds a report against a hand-written truth
file first, its planted-claims reports are scored by where the app's check puts its ✗, and the section
runs end to end on a small repository made here with a tiny truth file (CI cannot fetch the real ones)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from bench.config import BenchConfig
from bench.realrepos_truth import Truth
from bench.truth import measure, score_planted
from bench.truth_judge import TruthFile, counts_without_own, judge_truth, states
from bench.truth_planted import outside_version, planted_report
from testing.emulator.github_payloads import RepoPayloads
from testing.emulator.gitrepo import make_repo

ROOT = Path(__file__).resolve().parents[1]
MIT = "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n"
GEMSPEC = (
    "Gem::Specification.new do |s|\n  s.name = {name!r}\n  s.version = '1.0.0'\n  s.license = 'MIT'\n"
    "{deps}end\n"
)
FILES = {
    "LICENSE": MIT,
    "README.md": "# kit\n\nA pair of gems.\n",
    "Gemfile": 'source "https://rubygems.org"\ngemspec path: "alpha"\ngemspec path: "beta"\ngem "rake", "~> 13.0"\n',
    "alpha/alpha.gemspec": GEMSPEC.format(
        name="alpha",
        deps="  s.add_dependency 'rack', '>= 2.2.4'\n  s.add_development_dependency 'minitest', '~> 5.20'\n",
    ),
    "alpha/lib/alpha.rb": "module Alpha\n  def self.run; end\nend\n",
    "alpha/test/alpha_test.rb": "require 'minitest/autorun'\nclass AlphaTest < Minitest::Test\nend\n",
    "beta/beta.gemspec": GEMSPEC.format(name="beta", deps="  s.add_dependency 'concurrent-ruby', '~> 1.3'\n"),
    "beta/lib/beta.rb": "module Beta\nend\n",
    "beta/test/beta_test.rb": "require 'minitest/autorun'\nclass BetaTest < Minitest::Test\nend\n",
    ".github/workflows/ci.yml": "on: push\n",
}


def truth_file(**changes: Any) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "repo": "acme/kit",
        "commit": "",
        "default_branch": "main",
        "shape": "Ruby monorepo of 2 gems",
        "license": "MIT",
        "primary_language": "Ruby",
        "languages": ["Ruby"],
        "ecosystems": {
            "rubygems": {"packages": 2, "manifests": ["alpha/alpha.gemspec", "beta/beta.gemspec"], "test_packages": 0}
        },
        "own_package_names": ["alpha", "beta"],
        "dependencies": [
            {"name": "rack", "constraint": ">= 2.2.4", "manifest": "alpha/alpha.gemspec", "kind": "runtime"},
            {"name": "concurrent-ruby", "constraint": "~> 1.3", "manifest": "beta/beta.gemspec", "kind": "runtime"},
        ],
        "not_dependencies": ["nokogiri"],
        "test_frameworks": ["Minitest"],
        "test_dirs": ["alpha/test", "beta/test"],
        "vendored": [],
        "ci": ["GitHub Actions"],
        "files": len(FILES),
        "folders": [
            {"path": "alpha", "why": "a gem", "files": 3, "primary_language": "Ruby",
             "manifest": "alpha/alpha.gemspec", "manifest_is_parent": False, "test_dirs": ["alpha/test"],
             "test_frameworks": ["Minitest"], "license": "MIT"}
        ],
        "key_facts": ["Ruby", "MIT", "2 gems", "Minitest"],
    }  # fmt: skip
    return facts | changes


def write_truth(folder: Path, facts: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (facts["repo"].replace("/", "+") + ".json")
    path.write_text(json.dumps(facts), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("truth") / "kit", FILES)


def load(tmp_path: Path, **changes: Any) -> TruthFile:
    return TruthFile.load(write_truth(tmp_path / "truth", truth_file(**changes)))


def test_outside_version_is_outside_every_reading_of_the_constraint() -> None:
    assert outside_version(">= 2.2.4") == "1.0.0"
    assert outside_version("~> 1.3") == "0.9.0"
    assert outside_version(">= 3.0.0, < 4") == "2.0.0"
    assert outside_version("^0.9.1") == "0.8.0"
    assert outside_version("v0.14.0") == "v0.13.0"
    assert outside_version("[1.0,2.0)") == "0.9.0"
    assert outside_version("< 2") == "12.0.0"
    assert outside_version(">= 0.0.2") == "0.0.1"
    for unversioned in ("*", "workspace:*", "${project.version}", "", "catalog:", "0.0.1"):
        assert outside_version(unversioned) is None


def test_the_truth_file_decides_first_and_the_computed_truth_the_rest(tmp_path: Path, kit: Path) -> None:
    facts = load(tmp_path)
    truth = Truth.read(kit)
    report = (
        "- Primary language: Ruby\n"  # true
        "- Primary language: Python\n"  # false: the file's primary language
        "- License: MIT\n- The license is GPL-3.0.\n"  # true, false
        "- The repository defines 2 gems; npm 5 packages.\n"  # true; false (no npm package at all)
        "- The tests use Minitest and RSpec.\n"  # true, false
        "- Runtime dependencies: `rack >= 2.2.4`, `nokogiri 1.16`.\n"  # true, false (declared nowhere)
        "- Dependencies: `alpha`.\n"  # false: the project's own gem called a dependency
        "- `beta` is one of the project's own packages.\n"  # no dependency statement
        "- Folders like `alpha` hold more features or dependencies.\n"  # the folder, no dependency
        "- Tests: 1 `*_test.rb` files in `alpha/test/`.\n"  # true (a pattern counted in the tree)
        "- Tests: 7 `*_test.rb` files.\n"  # false
        "- No dependency manifest was found.\n"  # false: gemspecs
        "- `alpha/lib/` — vendored.\n"  # false: the file lists no vendored folder
        "- `src/missing.rb` is the entry point.\n"  # false: the computed tree
    )
    judged = judge_truth(report, facts, truth)
    false = sorted((s.kind, s.text) for s in judged.false)
    assert false == [
        ("dependency", "alpha"),
        ("dependency", "nokogiri"),
        ("ecosystem count", "npm 5"),
        ("framework", "RSpec"),
        ("language", "Python"),
        ("license", "GPL"),
        ("manifest", "No dependency manifest"),
        ("path", "src/missing.rb"),
        ("tests", "- Tests: 7 `*_test.rb` files."),
        ("vendored", "alpha/lib/"),
    ]
    true = {(s.kind, s.text) for s in judged.statements if s.verdict}
    assert {
        ("language", "Ruby"),
        ("license", "MIT"),
        ("ecosystem count", "2 gems"),
        ("framework", "Minitest"),
        ("dependency", "rack"),
        ("tests", "- Tests: 1 `*_test.rb` files in `alpha/test/`."),
    } <= true
    assert judged.missing == ()  # language, licence, 2 gems, Minitest, a test folder, the key facts


def test_missing_key_facts_come_from_the_truth_file(tmp_path: Path, kit: Path) -> None:
    facts = load(tmp_path, key_facts=["Ruby", "depends on rack >= 2.2.4", "2 gems"])
    judged = judge_truth(
        "# acme/kit\n\nIt is written in Ruby. It depends on `rack` 2.2.4 or newer.\n", facts, Truth.read(kit)
    )
    assert judged.missing == (
        "licence: MIT",
        "packages: 2 gems",
        "test framework: Minitest",
        "test folders",
        "key fact: 2 gems",
    )
    assert states("- Packages: rubygems 2 (gemspecs)", "2 gems")  # the number beside its noun's ecosystem
    assert not states("2 folders; gems are used", "2 gems")
    folder = judge_truth(
        "# alpha\n\nRuby. License: MIT. Tests in `alpha/test/`.\n",
        facts,
        Truth.read(kit, scope="alpha"),
        facts.folders[0],
    )
    assert folder.missing == ("test framework: Minitest",)  # the folder's facts, no repository-wide count


def test_planted_falsehoods_are_caught_only_by_a_cross_over_their_false_words(
    tmp_path: Path, kit: Path
) -> None:
    facts = load(tmp_path)
    planted = planted_report(facts, Truth.read(kit))
    text = planted.text
    kinds = [s.category for s in planted.statements if not s.true]
    assert kinds == [
        "wrong version",
        "wrong version",
        "wrong test framework",
        "invented path (inline)",
        "wrong licence",
        "wrong primary language",
        "wrong package count",
        "not a dependency",
        "invented path (fenced)",
        "invented path (fenced)",
    ]
    assert (
        "- It depends on `rack` version 1.0.0.\n" in text
        and "- `concurrent-ruby` 0.9.0 is required.\n" in text
    )
    assert "```text\nalpha/alpha.gemspec\nbeta/beta.gemspec\nalpha/test/\nalpha/flux_capacitor.rb\n" in text

    def cross(word: str, nth: int = 0, kind: str = "path") -> ev.CheckedClaim:
        at = -1
        for _ in range(nth + 1):
            at = text.index(word, at + 1)
        return ev.CheckedClaim(kind=kind, claim=word, verdict="contradicted", start=at, end=at + len(word))

    claims = (
        cross("1.0.0", kind="version"),  # caught
        cross("flux_capacitor"),  # caught (inside the fenced block)
        cross("rack"),  # over the true "depends on `rack` (>= 2.2.4)": a true statement marked wrong
        ev.CheckedClaim(kind="license", claim="GPL-3.0", verdict="contradicted"),  # nowhere: by its words
        ev.CheckedClaim(kind="language", claim="Python", verdict="verified", start=0, end=1),  # not a cross
    )
    scored = score_planted(planted, text, claims)
    assert (scored.caught, scored.planted) == (3, 10)
    assert scored.true_wrong == ("dependency: path 'rack' in '- It depends on `rack` (>= 2.2.4).'",)
    assert (
        len(scored.missed) == 7
        and scored.missed[0] == "wrong version: - `concurrent-ruby` 0.9.0 is required."
    )
    # a report the app changed: a statement it no longer holds is never counted caught
    assert score_planted(planted, "# nothing\n", claims).caught == 0


def test_the_section_runs_on_a_tiny_truth_file_and_its_figures_are_measured(tmp_path: Path) -> None:
    """acme/kit served from a mirror folder and judged by a truth file that says its primary language is
    Python where every file is Ruby: the app's "Primary language: Ruby" is then counted false, and the
    planted report's falsehoods are counted from the app's real check (some caught: a licence, a path)."""
    mirror = tmp_path / "mirror"
    make_repo(mirror / "acme+kit" / "repo", FILES, bare=True)
    truth = tmp_path / "truth"
    misjudged = truth_file(primary_language="Python", languages=["Python"], folders=[])
    write_truth(truth, misjudged)
    write_truth(truth, truth_file(repo="acme/absent"))
    config = replace(BenchConfig().quickened(), mirror=str(mirror))
    section = measure(config, tmp_path / "work", truth_dir=truth)
    # the emulator is as it was: its languages a static method again (the next test's emulator answers)
    assert isinstance(RepoPayloads.__dict__["languages"], staticmethod)
    assert [(row["repository"], row["target"]) for row in section.table] == [("acme/kit", "whole")]
    row = section.table[0]
    assert int(row["judged"]) > 10
    assert int(row["false"]) >= 1
    assert "acme/kit · whole: FALSE language: Ruby" in section.notes
    caught, planted = (int(x) for x in row["planted caught"].split("/"))
    facts = TruthFile.load(write_truth(tmp_path / "again", misjudged))
    expected = planted_report(facts, Truth.read(mirror / "acme+kit" / "repo"))
    assert planted == sum(not s.true for s in expected.statements)
    assert caught >= 2  # at least the wrong licence (GPL-3.0) and the invented path in inline code
    assert any(n.startswith("acme/absent: skipped, no git repository at") for n in section.notes)
    metrics = {m.name: m for m in section.metrics}
    assert metrics["false statements, all reports"].met is False
    assert metrics["planted falsehoods caught"].value.startswith(f"{caught}/{planted} (")
    by_category = {
        m.name.removeprefix("planted, caught: "): m.value for m in section.metrics if "caught: " in m.name
    }
    assert by_category["wrong version"].endswith("/2") and by_category["invented path (fenced)"].endswith(
        "/2"
    )
    assert by_category["wrong licence"] == by_category["invented path (inline)"] == "1/1"
    assert sum(int(v.split("/")[0]) for v in by_category.values()) == caught


@pytest.mark.slow
def test_the_command_line_runs_the_truth_section_and_says_why_it_skipped(tmp_path: Path) -> None:
    out = tmp_path / "truth.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--only", "truth", "--mirror", str(tmp_path / "none"),
         "--repos", "rails/rails", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    document = json.loads(out.read_text(encoding="utf-8"))
    (section,) = document["sections"]
    assert section["key"] == "truth" and section["skipped"].startswith("no repository with a truth file")
    if (ROOT / "bench" / "truth" / "rails+rails.json").is_file():
        assert "rails/rails: skipped, no git repository at" in done.stdout


def test_dependency_counts_leave_out_the_repository_s_own_packages_and_local_paths() -> None:
    own = {"tokio", "tokio-util"}
    cargo = '[dependencies]\ntokio = { path = "../tokio" }\nbytes = "1"\nslab = "0.4"\n[dev-dependencies]\ntokio-util = "0.7"\nfutures = "0.3"\n'
    # each group and all, as written (3, 2, 5) and without the own crates (2, 1, 3)
    assert counts_without_own("tokio-stream/Cargo.toml", cargo, own) == {1, 2, 3, 5}
    gomod = "module go.etcd.io/etcd/server/v3\n\nrequire (\n\tgo.etcd.io/etcd/api/v3 v3.6.0\n\tgo.uber.org/zap v1.27.0\n\tgolang.org/x/net v0.30.0 // indirect\n)\n"
    assert counts_without_own("server/go.mod", gomod, {"go.etcd.io/etcd/api/v3"}) == {1, 2, 3}
    package = (
        '{"dependencies": {"vue": "^3", "aliased": "file:./dir"}, "devDependencies": {"@x/y": "workspace:*"}}'
    )
    assert counts_without_own("playground/a/package.json", package, set()) == {1, 0}
    pyproject = '[project]\ndependencies = ["pydantic-graph==1.0", "anyio>=4.7.0", "httpx[http2]>=0.27"]\n'
    assert counts_without_own("pyproject.toml", pyproject, {"pydantic-graph"}) == {2, 3}
    assert 4 not in counts_without_own("pyproject.toml", pyproject, set())


def test_a_folder_is_vendored_by_the_truth_file_or_by_linguist_never_for_test_data(tmp_path: Path) -> None:
    files = {
        "gradle/wrapper/gradle-wrapper.properties": "distributionUrl=x\n",
        "test/fixtures/app/node_modules/left-pad/index.js": "module.exports = 1\n",
        "src/main.js": "export {}\n",
        "third/lib.c": "int x;\n",
    }
    truth = Truth.read(make_repo(tmp_path / "v", files))
    facts = load(tmp_path, fixtures=["test/fixtures"], test_dirs=["test"], vendored=["third"], folders=[])
    report = "- Vendored: `gradle/wrapper/`, `third/`, `test/`, `src/`.\n"
    verdicts = [
        (s.text, s.verdict) for s in judge_truth(report, facts, truth).statements if s.kind == "vendored"
    ]
    assert verdicts == [("gradle/wrapper/", True), ("third/", True), ("test/", False), ("src/", False)]


def test_a_folder_reports_repository_licence_is_judged_as_the_repositorys() -> None:
    """fmt's test/gtest holds googletest (BSD-3-Clause); its report says the repository's MIT in the block
    "Of the repository … as a whole" and as "The repository declares a license": both true."""
    from bench.realrepos_judge import Statement
    from bench.truth_judge import _licence, _Line, license_keys

    class Facts:
        license = "MIT"

    class Scope:
        licence = license_keys("BSD-3-Clause")
        folder = object()

    mit = Statement("license", "MIT", 0, 3, None)
    at = _Line("- License: MIT", "- License: MIT", Facts(), Scope(), None, None)  # type: ignore[arg-type]
    assert _licence(mit, at) is False  # said of the folder: false
    assert _licence(mit, _Line(at.raw, at.line, at.facts, at.scope, None, None, True)) is True  # type: ignore[arg-type]
