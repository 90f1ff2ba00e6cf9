"""Small realistic monorepos for folder reports (``/tree/<ref>/<folder>`` URLs), built as real git
repositories with a history: a Go monorepo's package, a Python monorepo whose tests live in the root's
``tests/<pkg>/``, a .NET solution's ``src/Foo`` with ``test/Foo.Tests`` and a Ruby monorepo's gem under
a parent ``Gemfile``. Each has commits that touch the folder and commits that do not, so a report's
activity can be told from the repository's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from testing.emulator.gitrepo import CommitSpec, make_repo

MIT = (
    "MIT License\n\nCopyright (c) 2024 Acme\n\nPermission is hereby granted, free of charge, to any person "
    'obtaining a copy\nof this software and associated documentation files (the "Software"), to deal\n'
    "in the Software without restriction.\n"
)
WORKFLOW = "name: CI\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"

GO = {
    "README.md": "# mono\n\nA Go monorepo of small services.\n",
    "LICENSE": MIT,
    "go.mod": "module example.com/mono\n\ngo 1.22\n\nrequire (\n\tgithub.com/google/uuid v1.6.0\n\tgolang.org/x/sync v0.7.0\n)\n",
    "go.sum": "github.com/google/uuid v1.6.0 h1:abc=\n",
    ".github/workflows/ci.yml": WORKFLOW,
    ".github/workflows/lint.yml": WORKFLOW.replace("CI", "Lint"),
    "cmd/server/main.go": "package main\n\nfunc main() {}\n",
    "internal/store/store.go": "package store\n\n// Store keeps rows.\ntype Store struct{}\n"
    + "// pad\n" * 40,
    "internal/store/store_test.go": 'package store\n\nimport "testing"\n\nfunc TestStore(t *testing.T) {}\n',
    "internal/store/memory.go": "package store\n\n// Memory is an in-memory store.\ntype Memory struct{}\n",
    "internal/store/memory_test.go": 'package store\n\nimport "testing"\n\nfunc TestMemory(t *testing.T) {}\n',
    "internal/store/doc.go": "// Package store keeps the service's rows.\npackage store\n",
    "web/app.py": "print('x')\n" * 200,
}
GO_FOLDER = "internal/store"

PY = {
    "README.md": "# pymono\n\nSeveral Python packages in one repository.\n",
    "LICENSE": MIT,
    "pyproject.toml": '[project]\nname = "pymono-dev"\nversion = "0"\nrequires-python = ">=3.10"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    ".github/workflows/tests.yml": WORKFLOW,
    "packages/a/pyproject.toml": '[project]\nname = "pkg-a"\nversion = "1.0.0"\ndependencies = ["httpx>=0.27"]\n',
    "packages/a/README.md": "# pkg-a\n\nThe A package: talks HTTP.\n",
    "packages/a/src/pkg_a/__init__.py": '"""The A package."""\n\nfrom pkg_a.client import Client\n',
    "packages/a/src/pkg_a/client.py": "class Client:\n    pass\n" * 30,
    "packages/b/pyproject.toml": '[project]\nname = "pkg-b"\nversion = "1.0.0"\n',
    "packages/b/src/pkg_b/__init__.py": "",
    "tests/a/test_client.py": "from pkg_a import Client\n\ndef test_client():\n    assert Client()\n",
    "tests/a/test_more.py": "def test_more():\n    assert True\n",
    "tests/a/conftest.py": "",
    "tests/b/test_b.py": "def test_b():\n    assert True\n",
}
PY_FOLDER = "packages/a"

DOTNET = {
    "README.md": "# Foo\n\nA .NET library.\n",
    "LICENSE": MIT,
    "Foo.sln": "Microsoft Visual Studio Solution File, Format Version 12.00\n",
    "Directory.Build.props": "<Project>\n  <PropertyGroup>\n    <LangVersion>latest</LangVersion>\n  </PropertyGroup>\n</Project>\n",
    ".github/workflows/build.yml": WORKFLOW,
    "src/Foo/Foo.csproj": '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n  <ItemGroup>\n    <PackageReference Include="Newtonsoft.Json" Version="13.0.3" />\n  </ItemGroup>\n</Project>\n',
    "src/Foo/Parser.cs": "namespace Foo;\n\npublic class Parser\n{\n}\n" * 20,
    "src/Foo/Lexer.cs": "namespace Foo;\n\npublic class Lexer\n{\n}\n",
    "test/Foo.Tests/Foo.Tests.csproj": '<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n    <PackageReference Include="xunit" Version="2.9.0" />\n    <ProjectReference Include="..\\..\\src\\Foo\\Foo.csproj" />\n  </ItemGroup>\n</Project>\n',
    "test/Foo.Tests/ParserTests.cs": "namespace Foo.Tests;\n\npublic class ParserTests\n{\n}\n",
    "test/Foo.Tests/LexerTests.cs": "namespace Foo.Tests;\n\npublic class LexerTests\n{\n}\n",
}
DOTNET_FOLDER = "src/Foo"

RUBY = {
    "README.md": "# gems\n\nA monorepo of Ruby gems.\n",
    "LICENSE": MIT,
    "Gemfile": 'source "https://rubygems.org"\n\ngemspec path: "gems/widget"\ngem "rake", "~> 13.0"\ngem "rspec", "~> 3.13"\n',
    ".github/workflows/ci.yml": WORKFLOW,
    "gems/widget/widget.gemspec": 'Gem::Specification.new do |spec|\n  spec.name = "widget"\n  spec.version = "1.0.0"\n  spec.summary = "Buttons and more"\n  spec.add_dependency "concurrent-ruby", "~> 1.2"\n  spec.add_development_dependency "rspec", "~> 3.13"\nend\n',
    "gems/widget/lib/widget.rb": "module Widget\n  VERSION = '1.0'\nend\n" * 10,
    "gems/widget/lib/widget/button.rb": "module Widget\n  class Button\n  end\nend\n",
    "gems/widget/spec/button_spec.rb": "RSpec.describe Widget::Button do\nend\n",
    "gems/widget/spec/spec_helper.rb": "require 'widget'\n",
    "gems/gadget/lib/gadget.rb": "module Gadget\nend\n",
}
RUBY_FOLDER = "gems/widget"

FLAT = {
    "README.md": "# app\n\nOne Python project, its tests in a flat tests/ folder.\n",
    "LICENSE": MIT,
    "pyproject.toml": '[project]\nname = "app"\nversion = "2.0"\n\n[project.optional-dependencies]\ntest = ["pytest>=8"]\n',
    ".ci/run": "#!/bin/sh\npytest\n",
    "src/app/__init__.py": "",
    "src/app/cli.py": "def main():\n    pass\n",
    "src/app/core/__init__.py": '"""The engine."""\n',
    "src/app/core/engine.py": "class Engine:\n    pass\n" * 20,
    "tests/test_engine.py": "def test_engine():\n    assert True\n",
    "tests/test_cli.py": "def test_cli():\n    assert True\n",
}
FLAT_FOLDER = "src/app/core"

CPP = {
    "README.md": "# fmtish\n\nA small C++ formatting library.\n",
    "LICENSE": MIT,
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.8)\nproject(FMTISH CXX)\nadd_subdirectory(test)\n",
    ".github/workflows/linux.yml": WORKFLOW,
    "include/fmtish/format.h": "#pragma once\nnamespace fmtish { int format(); }\n",
    "src/format.cc": "#include <fmtish/format.h>\nint fmtish::format() { return 0; }\n",
    "test/CMakeLists.txt": "add_executable(format-test format-test.cc)\n",
    "test/format-test.cc": "#include <fmtish/format.h>\nint main() { return fmtish::format(); }\n",
    "test/util-test.cc": "int main() { return 0; }\n",
}
CPP_FOLDER = "test"


def build(root: Path, files: Mapping[str, str], folder: str) -> Path:
    """``files`` committed with a history: two commits in ``folder`` and two elsewhere, so commits filtered
    by the folder's path differ from the repository's."""
    inside = sorted(p for p in files if p.startswith(f"{folder}/"))
    outside = {p: t for p, t in files.items() if p not in inside}
    commits = [
        CommitSpec(message="Start the repository", files=outside, date="2024-01-01T10:00:00+00:00"),
        CommitSpec(
            message=f"Add {folder}",
            files={p: files[p] for p in inside},
            author_name="Folder Author",
            date="2024-02-01T10:00:00+00:00",
        ),
        CommitSpec(
            message="Touch the root README",
            files={"README.md": files["README.md"] + "\nMore words.\n"},
            date="2024-03-01T10:00:00+00:00",
        ),
        CommitSpec(
            message=f"Change {folder}",
            files={inside[0]: files[inside[0]] + "\n"},
            author_name="Folder Author",
            date="2024-04-01T10:00:00+00:00",
        ),
        CommitSpec(
            message="Touch the root again",
            files={"README.md": files["README.md"] + "\nEven more words.\n"},
            date="2024-05-01T10:00:00+00:00",
        ),
    ]
    return make_repo(root, {}, commits=commits)
