"""The claim check reaches a verdict on big, many-manifest repositories (issue 34): its own reads are not
held to the model's tool-call limit, several licence files are all read and recognised (Creative Commons
beside MIT), dependencies a Hatch hook fills in are dependencies, and a framework is "named" by a file only
under its own name (``ginkgolinter`` or a Go ``/v2`` suffix is not Ginkgo; ``@jest/core``'s ``core`` is not
Jest). Each check runs the real claim check over tool results shaped as the tools return them."""

from __future__ import annotations

from agent_core.repo import RepoRef
from agent_core.report.claims import check_report
from agent_core.report.manifests import parse_manifest
from agent_core.sources.licenses import detect_license
from agent_core.sources.models import FileContent, FileTree, RepoInfo, TreeEntry
from agent_core.tools.registry import GET_FILE_TREE, GET_REPO_INFO, READ_FILE
from agent_core.tools.results import ToolResult

REPO = RepoRef(owner="acme", name="agents")
MIT = "MIT License\n\nCopyright (c) Acme\n\nPermission is hereby granted, free of charge, to any person\n"
CC_BY = (
    'Attribution 4.0 International\n\n=====\n\nCreative Commons Corporation ("Creative Commons") is not a '
    "law firm and does not provide legal services.\n"
)


def results(files: dict[str, str], *, extra: tuple[str, ...] = ()) -> list[ToolResult]:
    paths = sorted({*files, *extra})
    dirs = sorted({p.rsplit("/", i)[0] for p in paths for i in range(1, p.count("/") + 1)})
    entries = (
        *(TreeEntry(path=d, type="dir") for d in dirs),
        *(TreeEntry(path=p, type="file", size=50) for p in paths),
    )
    made = [
        ToolResult(
            call_id="i", tool=GET_REPO_INFO, arguments={}, ok=True, observation={}, repo=REPO, value=_info()
        ),
        ToolResult(
            call_id="t",
            tool=GET_FILE_TREE,
            arguments={},
            ok=True,
            observation={},
            repo=REPO,
            value=FileTree(ref="main", path="", entries=entries),
        ),
    ]
    made += [
        ToolResult(
            call_id=f"r{i}",
            tool=READ_FILE,
            arguments={"owner": REPO.owner, "repo": REPO.name, "path": path},
            ok=True,
            observation={},
            repo=REPO,
            value=FileContent(path=path, kind="file", size=len(text), text=text),
        )
        for i, (path, text) in enumerate(sorted(files.items()))
    ]
    return made


def _info() -> RepoInfo:
    return RepoInfo(
        full_name=REPO.full_name, description="Agents.", default_branch="main", language="Python", license=None,
        stars=1, forks=0, open_issues=0, topics=(), created_at=None, pushed_at=None, archived=False,
        homepage=None, size_kb=1, html_url="https://github.com/acme/agents",
    )  # fmt: skip


def verdicts(report: str, found: list[ToolResult]) -> dict[str, str]:
    return {c.claim: c.verdict for c in check_report(report, (REPO,), found).claims}


def test_creative_commons_and_other_licences_are_recognised() -> None:
    assert detect_license(CC_BY) == "CC-BY-4.0"
    assert detect_license("Attribution-ShareAlike 4.0 International\nCreative Commons\n") == "CC-BY-SA-4.0"
    assert detect_license("Boost Software License - Version 1.0 - August 17th, 2003\n") == "BSL-1.0"


def test_a_licence_outside_every_licence_file_is_contradicted_and_each_file_s_licence_holds() -> None:
    files = {"LICENSE": CC_BY, "LICENSE-CODE": MIT, "README.md": "# agents\n"}
    said = verdicts(
        "- It is released under the GPL-3.0 license.\n- The code is under the MIT license.\n", results(files)
    )
    assert said == {"GPL-3.0": "contradicted", "MIT": "verified"}
    # one licence file not read: another licence may stand in it, so nothing is ✗
    partial = {"LICENSE": CC_BY, "README.md": "# agents\n"}
    assert verdicts(
        "- It is released under the GPL-3.0 license.\n", results(partial, extra=("LICENSE-CODE",))
    ) == {"GPL-3.0": "unchecked"}


def test_dependencies_a_hatch_hook_fills_in_are_declared() -> None:
    pyproject = (
        '[project]\nname = "slim"\ndynamic = ["version", "dependencies", "optional-dependencies"]\n\n'
        '[tool.hatch.metadata.hooks.uv-dynamic-versioning]\ndependencies = ["httpx2>=2.7", "anyio>=4.7.0"]\n\n'
        '[tool.hatch.metadata.hooks.uv-dynamic-versioning.optional-dependencies]\nopenai = ["openai>=3.0.0"]\n'
    )
    manifest = parse_manifest("slim/pyproject.toml", pyproject)
    assert [(d.name, d.spec) for d in manifest.all_dependencies()][:2] == [
        ("httpx2", ">=2.7"),
        ("anyio", ">=4.7.0"),
    ]
    files = {"slim/pyproject.toml": pyproject, "pyproject.toml": '[project]\nname = "root"\n'}
    said = verdicts("- It depends on `httpx2` 1.0.0.\n- It depends on `anyio` >=4.7.0.\n", results(files))
    assert said == {"httpx2 1.0.0": "contradicted", "anyio >=4.7.0": "verified"}


def test_a_framework_is_named_by_its_own_name_not_by_a_part_of_a_longer_one() -> None:
    gomod = (
        "module example.com/agents\n\ngo 1.22\n\nrequire (\n\tgithub.com/stretchr/testify v1.9.0\n"
        "\tgithub.com/cespare/xxhash/v2 v2.3.0\n\tgithub.com/nunnatsa/ginkgolinter v0.16.0 // indirect\n)\n"
    )
    files = {"go.mod": gomod, "agents_test.go": 'package agents\n\nimport "testing"\n'}
    said = verdicts("- The tests are written with Ginkgo.\n", results(files))
    assert said == {"Ginkgo": "contradicted"}
    package = '{"name": "web", "devDependencies": {"vitest": "^2.0.0", "@acme/core": "1.0.0"}}'
    files = {"package.json": package, "src/core.test.ts": "import { test } from 'vitest'\n"}
    assert verdicts("- The tests are written with Jest.\n", results(files)) == {"Jest": "contradicted"}
