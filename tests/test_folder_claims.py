"""The claim check of a folder URL's report decides what it can (issue 34): a path inside the folder
that is not there, a test of its kept elsewhere that is not there (the check fetches that tree), a
dependency no manifest of the folder or up its path declares, a test framework none of them declares
(the repository's CI read first: it could install one), a language the folder and the repository both
lack; and it holds the folder's own language true. The app's real run over the GitHub emulator, with a
scripted model whose report is the one below."""

from __future__ import annotations

from pathlib import Path

from agent_core import events as ev
from testing.analysis import make_settings, reads_then, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer

MIT = "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n"
FILES = {
    "README.md": "# ledger\n\nLedger keeps double-entry books.\n",
    "LICENSE": MIT,
    "Gemfile": "source 'https://rubygems.org'\n\ngemspec\n\ngem 'rake', '~> 13.0'\ngem 'minitest', '~> 5.20'\n",
    "ledger.gemspec": (
        'Gem::Specification.new do |spec|\n  spec.name = "ledger"\n  spec.version = "1.0.0"\n'
        '  spec.add_dependency "bigdecimal", ">= 3.1"\nend\n'
    ),
    "Rakefile": "require 'rake/testtask'\nRake::TestTask.new(:test)\n",
    ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    steps:\n      - run: bundle exec rake test\n",
    "lib/ledger.rb": "require 'ledger/book'\n",
    "lib/ledger/book.rb": "module Ledger\n  class Book\n    def entries; end\n  end\nend\n" * 4,
    "lib/ledger/entry.rb": "module Ledger\n  class Entry\n    def amount; end\n  end\nend\n" * 4,
    "test/test_helper.rb": "require 'minitest/autorun'\n",
    "test/book_test.rb": "require 'test_helper'\n\nclass BookTest < Minitest::Test\nend\n",
}
TRUE = [
    "- The folder is written mainly in Ruby.",
    "- Its code is in `lib/ledger/book.rb`, tested in `test/book_test.rb`.",
    "- It depends on `bigdecimal`.",
]
PLANTED = {
    "- The entry point is `lib/ledger/hyperdrive.rb`.": "lib/ledger/hyperdrive.rb",
    "- Its tests include `test/quantum_test.rb`.": "test/quantum_test.rb",
    "- It depends on `sequel`.": "sequel",
    "- The tests are written with RSpec.": "RSpec",
    "- The folder is written mainly in Haskell.": "Haskell",
}


async def folder_run(
    tmp_path: Path, name: str, files: dict[str, str], report: str, folder: str
) -> list[ev.Event]:
    """The app's run on ``folder`` of ``corpus/<name>``, the scripted model's report being ``report``."""
    root = make_repo(tmp_path / name, files)
    with (
        GitHubEmulator() as emu,
        ScriptedModelServer(responder=reads_then(report, f"corpus/{name}")) as server,
    ):
        emu.add_repo(f"corpus/{name}", root, license="MIT")
        settings = make_settings(  # a hosted model's report: its ✗ claims stay for the check
            emu, tmp_path / "work", server, prefetch=True, github_token="ghp_owner-token", llm_local=False
        )
        url = f"https://github.com/corpus/{name}/tree/main/{folder}"
        return (await run_once(settings, "What is this folder?", target=url)).events


async def test_a_folder_report_s_claims_are_decided_within_the_folder_and_up_its_path(tmp_path: Path) -> None:
    report = "\n".join(["# ledger: lib/ledger", "", *TRUE, *PLANTED, ""])
    events = await folder_run(tmp_path, "ledger", FILES, report, "lib/ledger")
    checked = next(e for e in events if isinstance(e, ev.ClaimsChecked))
    final = events[-1]
    assert isinstance(final, ev.RunFinished)
    text = final.report
    crosses = [c for c in checked.claims if c.verdict == "contradicted"]
    for line in TRUE:
        at = text.index(line)
        assert not [c for c in crosses if at <= c.start < at + len(line)], (line, crosses)
    for line, focus in PLANTED.items():
        at = text.index(line)
        hit = [c for c in crosses if at <= c.start < at + len(line) and focus.lower() in c.claim.lower()]
        assert hit, (
            line,
            [(c.claim, c.verdict, c.observed) for c in checked.claims if at <= c.start < at + len(line)],
        )


BSD3_HEADER = (
    "// Copyright 2005, Google Inc.\n// All rights reserved.\n//\n// Redistribution and use in source and binary "
    "forms, with or without\n// modification, are permitted provided that the following conditions are met:\n"
    "//     * Neither the name of Google Inc. nor the names of its contributors may be used to endorse\n"
    "#pragma once\nnamespace testing { class Test {}; }\n"
)


async def test_a_vendored_folder_s_licence_is_read_from_its_files_headers(tmp_path: Path) -> None:
    files = {
        "README.md": "# fmtish\n\nFormatting.\n",
        "LICENSE": MIT,
        "CMakeLists.txt": "project(fmtish CXX)\nadd_subdirectory(test)\n",
        "src/format.cc": "int format() { return 0; }\n" * 5,
        "test/CMakeLists.txt": "add_executable(format-test format-test.cc)\n",
        "test/format-test.cc": '#include "gtest/gtest.h"\n',
        "test/gtest/gtest/gtest.h": BSD3_HEADER,
        "test/gtest/gmock-gtest-all.cc": BSD3_HEADER + "void all() {}\n",
    }
    report = "\n".join(
        [
            "# fmtish: test/gtest",
            "",
            "- The repository declares a license: MIT.",
            "- It is licensed under BSD-3-Clause.",
            "- It is released under the GPL-3.0 license.",
            "",
        ]
    )
    events = await folder_run(tmp_path, "fmtish", files, report, "test/gtest")
    checked = next(e for e in events if isinstance(e, ev.ClaimsChecked))
    assert {c.claim: c.verdict for c in checked.claims if c.kind == "license"} == {
        "MIT": "verified",  # the repository's, said as such
        "BSD-3-Clause": "verified",  # googletest's, in its headers
        "GPL-3.0": "contradicted",
    }
