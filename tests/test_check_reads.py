"""The check reads what it needs: a model's report that makes dependency, version or test-framework
claims gets, before its claim check, one more turn reading the manifests those claims rest on that the
run had not read (:mod:`agent_core.agent.check_reads`).

A Ruby monorepo of three gems (a gemspec at the root, two in folders), served by the GitHub emulator; the
scripted model's report holds true statements and planted falsehoods. The prefetch reads the root's
manifests only, so a wrong version of a dependency only a nested gemspec declares and a test framework no
manifest declares stay "?" without the extra reads, and are ✗ with them; the true statements are never
✗. A report with no such claim makes no extra request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.agent import draft_review, endings
from agent_core.agent.check_reads import MAX_READS, claim_reads
from agent_core.repo import RepoRef
from agent_core.report.claim_finders import find_claims
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools.registry import GET_FILE_TREE, READ_FILE
from agent_core.tools.results import ToolResult
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn

MIT = "MIT License\n\nCopyright (c) 2024 The Authors\n\nPermission is hereby granted, free of charge.\n"


def _gemspec(name: str, *lines: str) -> str:
    body = "".join(f"  {line}\n" for line in lines)
    return f'Gem::Specification.new do |spec|\n  spec.name = "{name}"\n  spec.version = "1.4.0"\n{body}end\n'


MONOREPO = {
    "README.md": "# abacus\n\nAbacus counts beads, in three gems.\n",
    "LICENSE": MIT,
    "Gemfile": 'source "https://rubygems.org"\n\ngemspec\n\ngem "rake", "~> 13.0"\n',
    "Rakefile": 'require "rake/testtask"\n\nRake::TestTask.new(:test)\n',
    "abacus.gemspec": _gemspec(
        "abacus",
        'spec.add_dependency "abacus-core", "1.4.0"',
        'spec.add_development_dependency "minitest", "~> 5.20"',
    ),
    "lib/abacus.rb": "module Abacus\n  def self.count(beads) = beads.size\nend\n" * 3,
    "test/test_abacus.rb": 'require "minitest/autorun"\n\nclass TestAbacus < Minitest::Test\nend\n',
    "abacus-core/Gemfile": 'source "https://rubygems.org"\n\ngemspec\n',
    "abacus-core/abacus-core.gemspec": _gemspec("abacus-core", 'spec.add_dependency "bigdecimal", ">= 3.1"'),
    "abacus-core/lib/abacus/core.rb": "module Abacus\n  module Core\n  end\nend\n" * 3,
    "abacus-web/Gemfile": 'source "https://rubygems.org"\n\ngemspec\n',
    "abacus-web/abacus-web.gemspec": _gemspec("abacus-web", 'spec.add_dependency "rack", "~> 3.0"'),
    "abacus-web/lib/abacus/web.rb": "module Abacus\n  module Web\n  end\nend\n" * 3,
}
TRUE = [
    "The core gem depends on `bigdecimal` (>= 3.1).",
    "The web gem depends on `rack` 3.0.",
    "It is tested with Minitest.",
]
PLANTED = {
    "It depends on `rack` 1.0.0.": "rack 1.0.0",  # declared only in abacus-web/abacus-web.gemspec
    "The tests are written with RSpec.": "RSpec",  # declared by no manifest
}
REPORT = "# abacus\n\n" + "\n\n".join([*TRUE, *PLANTED]) + "\n"


async def _run(tmp_path: Path, report: str) -> tuple[list[ev.Event], list[str]]:
    root = make_repo(tmp_path / "abacus", MONOREPO)
    with GitHubEmulator() as emu, ScriptedModelServer(responder=lambda _body: Turn.final(report)) as server:
        emu.add_repo("acme/abacus", root, license="MIT")
        settings = make_settings(emu, tmp_path / "cache", server, prefetch=True, llm_local=False)
        run = await run_once(settings, "What is this repository?", target="acme/abacus")
        return run.events, emu.request_paths()


def _verdicts(events: list[ev.Event]) -> dict[str, str]:
    check = next(e for e in events if isinstance(e, ev.ClaimsChecked))
    return {c.claim: c.verdict for c in check.claims}


def _check_turns(events: list[ev.Event]) -> list[str]:
    return [
        e.text for e in events if isinstance(e, ev.ReasoningDelta) and "the report's claims rest on" in e.text
    ]


async def _no_reads(_run: object, _report: str) -> AsyncIterator[ev.Event]:
    return
    yield  # an async generator that yields nothing


async def test_the_check_reads_the_nested_manifests_its_claims_rest_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    after, requests = await _run(tmp_path / "after", REPORT)
    got = _verdicts(after)
    assert got["rack 1.0.0"] == "contradicted", got
    assert got["RSpec"] == "contradicted", got
    assert got["bigdecimal >= 3.1"] == "verified" and got["Minitest"] == "verified", got
    assert got["rack 3.0"] == "verified", got  # the true statements hold, and nothing else is ✗
    assert {claim for claim, verdict in got.items() if verdict == "contradicted"} == set(PLANTED.values())
    assert len(_check_turns(after)) == 1 and "abacus-web/abacus-web.gemspec" in _check_turns(after)[0]
    assert any(p.endswith("abacus-web/abacus-web.gemspec") for p in requests), requests
    assert isinstance(after[-1], ev.RunFinished) and after[-1].writer == "model"

    monkeypatch.setattr(endings, "read_for_check", _no_reads)  # as before: the check reads nothing more
    monkeypatch.setattr(draft_review, "read_for_check", _no_reads)  # nor does the draft's review
    before, _ = await _run(tmp_path / "before", REPORT)
    was = _verdicts(before)
    assert was["rack 1.0.0"] == "unchecked" and was["RSpec"] == "unchecked", was
    assert not _check_turns(before)


async def test_a_report_without_dependency_claims_makes_no_extra_request(tmp_path: Path) -> None:
    plain = "# abacus\n\nAbacus counts beads; its code is in `lib/abacus.rb`.\n"
    events, requests = await _run(tmp_path, plain)
    assert not _check_turns(events)
    assert not [p for p in requests if "abacus-web" in p or "abacus-core" in p], requests
    assert isinstance(events[-1], ev.RunFinished)


def _tree_result(repo: RepoRef, paths: list[str]) -> ToolResult:
    tree = FileTree(ref="main", path="", entries=tuple(TreeEntry(path=p, type="file") for p in paths))
    return ToolResult(
        call_id="t", tool=GET_FILE_TREE, arguments={}, ok=True, observation={}, value=tree, repo=repo
    )


def test_the_reads_are_capped_skip_what_was_read_and_need_a_claim() -> None:
    repo = RepoRef(owner="acme", name="gems")
    paths = [
        "Gemfile",
        "gems.gemspec",
        *(f"g{i}/g{i}.gemspec" for i in range(MAX_READS + 16)),
        "vendor/x/x.gemspec",
    ]
    read = ToolResult(
        call_id="r", tool=READ_FILE, arguments={"path": "Gemfile"}, ok=True, observation={}, repo=repo
    )
    results = [_tree_result(repo, paths), read]
    calls = claim_reads(find_claims("It depends on `rack` 1.0.0.\n"), (repo,), results)
    picked = [str(c.args["path"]) for c in calls]
    assert len(picked) == MAX_READS and picked[0] == "gems.gemspec"
    assert "Gemfile" not in picked and not any(p.startswith("vendor/") for p in picked)
    assert claim_reads(find_claims("Abacus counts beads.\n"), (repo,), results) == []


def test_the_check_takes_at_most_a_share_of_the_rate_limit_left() -> None:
    """The check's reads do not wait on the model's tool-call limit, but a quarter of what GitHub's rate
    limit has left bounds them (60 an hour unauthenticated: 15 at most), and a local repository's none."""
    from agent_core.agent.check_reads import RATE_SHARE, allowance
    from agent_core.github.ratelimit import RateLimit

    def limit(remaining: int) -> RateLimit:
        return RateLimit(
            limit=60, remaining=remaining, used=None, reset_at=0.0, resource="core", authenticated=False
        )

    assert allowance(None, 2) == 2 * MAX_READS
    assert allowance(limit(60), 1) == 60 // RATE_SHARE == 15
    assert allowance(limit(0), 1) == 0
    assert allowance(limit(100_000), 1) == MAX_READS


def test_a_licence_claim_reads_every_licence_file_at_the_root() -> None:
    repo = RepoRef(owner="acme", name="docs")
    paths = ["LICENSE", "LICENSE-CODE", "docs/LICENSE", "README.md"]
    read = ToolResult(
        call_id="r", tool=READ_FILE, arguments={"path": "LICENSE"}, ok=True, observation={}, repo=repo
    )
    calls = claim_reads(
        find_claims("It is released under the GPL-3.0 license.\n"), (repo,), [_tree_result(repo, paths), read]
    )
    assert [str(c.args["path"]) for c in calls] == ["LICENSE-CODE"]
