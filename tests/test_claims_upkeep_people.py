"""Claims about a project's upkeep ("not actively maintained") and the people behind it ("created by
DHH"): the kinds the real 1.5B got wrong that the check could not see. Held against the sample
repository's real commits (8, by Ada Lovelace, ghopper and Linus Example, January to 26 February
2024; LICENSE: "Copyright (c) 2024 Ada Lovelace") over the emulator; a local model's sentences holding
what the check cannot stand behind are set aside.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.agent.described import unsupported_descriptions
from agent_core.agent.set_aside import set_aside, unsupported
from agent_core.repo import RepoRef
from agent_core.report.claim_finders import find_claims
from agent_core.report.claim_people import people_claims
from agent_core.report.claims import Named, check_report, names_observed
from agent_core.settings import Settings
from agent_core.tools.results import ToolResult
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator
from testing.linear import growth, repeated

WIDGETS = RepoRef(owner="acme", name="widgets")
MARCH_2024 = datetime(2024, 3, 1, tzinfo=UTC)  # 8 commits in the six months before
MARCH_2025 = datetime(2025, 3, 1, tzinfo=UTC)  # the newest a year old: neither
MARCH_2027 = datetime(2027, 3, 1, tzinfo=UTC)  # three years without a commit


@pytest.fixture
async def observed(emulator: GitHubEmulator, tmp_path: Path) -> list[ToolResult]:
    run = await run_once(Settings(github_api_url=emulator.base_url, cache_dir=tmp_path / "cache"), "")
    return run.opened.analysis.results


def _verdicts(
    report: str, results: list[ToolResult], now: datetime | None
) -> dict[str, tuple[str, str | None]]:
    check = check_report(report, (WIDGETS,), results, now=now)
    return {c.claim: (c.verdict, c.observed) for c in check.claims if c.kind in ("activity", "person")}


def test_upkeep_is_judged_only_when_the_commits_leave_no_doubt(observed: list[ToolResult]) -> None:
    report = "The project is not actively maintained. Another view: it is actively maintained.\n"
    soon = _verdicts(report, observed, MARCH_2024)
    assert soon["is not actively maintained"] == (
        "contradicted",
        "8 commits in the six months before the analysis, the latest on 2024-02-26",
    )
    assert soon["actively maintained"][0] == "verified"
    later = _verdicts(report, observed, MARCH_2025)
    assert {v for v, _ in later.values()} == {"unchecked"}  # a year: maintained or not, nothing says
    stale = _verdicts(report, observed, MARCH_2027)
    assert stale["is not actively maintained"] == ("verified", "the latest commit on 2024-02-26")
    assert stale["actively maintained"][0] == "contradicted"
    assert {v for v, _ in _verdicts(report, observed, None).values()} == {"unchecked"}  # no day: no verdict


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (
            "fmt has not been actively maintained for some time.",
            [("inactive", "has not been actively maintained")],
        ),
        ("It is no longer maintained.", [("inactive", "no longer maintained")]),
        ("Lack of recent activity worries users.", [("inactive", "Lack of recent activity")]),
        ("This indicates that the project is actively maintained.", [("active", "actively maintained")]),
        ("It is under active development.", [("active", "under active development")]),
        ("该项目不再维护。", [("inactive", "不再维护")]),
        ("The project may become unmaintained.", []),  # a hedge claims nothing
        ("If it is abandoned, fork it.", []),
        ("It is not abandoned.", []),  # "not abandoned" claims no neglect
        ("A tidy, well-maintained project.", []),  # a judgement of quality, not of upkeep
    ],
)
def test_upkeep_claims_are_found_as_written(line: str, found: list[tuple[str, str]]) -> None:
    assert [(f.subject, f.value) for f in find_claims(line) if f.kind == "activity"] == found


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("It was created in 2007 by DHH (David Heinemeier Hansson).", [("by", "DHH")]),
        (
            "Created by Blake Mizerany, it is maintained by the Sinatra team.",
            [("by", "Blake Mizerany"), ("by", "Sinatra")],
        ),
        (
            "It has contributions from several authors, including Marcono1234 and Éamonn McManus.",
            [("listed", "Marcono1234"), ("listed", "Éamonn McManus")],
        ),
        ("由 Blake Mizerany 于 2007 年创建。", [("by", "Blake Mizerany")]),
        ("It is maintained by him, and by the community.", []),  # no name
        ("Its checks are run by GitHub Actions.", []),
    ],
)
def test_names_said_to_be_behind_a_project_are_found(line: str, names: list[tuple[str, str]]) -> None:
    assert [(f.subject, f.value) for f in people_claims(line, 0)] == names


def test_a_name_is_verified_only_when_something_read_holds_it(observed: list[ToolResult]) -> None:
    report = (
        "acme/widgets was created by Ada Lovelace. Its authors include Linus Example and Alan Turing. "
        "It was written by Lovelace Ada.\n"
    )
    got = _verdicts(report, observed, MARCH_2024)
    assert got["Ada Lovelace"] == ("verified", "named in what the tools read")  # LICENSE, commits
    assert got["Linus Example"][0] == "verified"  # a commit's author
    assert got["Alan Turing"] == ("unchecked", "named in nothing the tools read")  # never ✗: not read
    assert got["Lovelace Ada"][0] == "unchecked"  # both words read, never in this order


def test_a_local_draft_loses_the_sentences_the_check_cannot_stand_behind(observed: list[ToolResult]) -> None:
    draft = (
        "# acme/widgets\n\n"
        "## Overview\n\n"
        "acme/widgets counts words. It was created in 2019 by Alan Turing. It is written in Python.\n\n"
        "- It is not actively maintained. Its tests run on CI.\n"
        "- It was made by Ada Lovelace.\n"
    )
    check = check_report(draft, (WIDGETS,), observed, now=MARCH_2024)
    kept, aside = set_aside(draft, unsupported(draft, check, (WIDGETS,), observed))
    assert kept == (
        "# acme/widgets\n\n## Overview\n\nacme/widgets counts words. It is written in Python.\n\n"
        "- Its tests run on CI.\n- It was made by Ada Lovelace.\n"
    )
    assert [(c.kind, c.verdict, c.claim) for c in aside] == [
        ("date", "contradicted", "It was created in 2019 by Alan Turing."),
        ("activity", "contradicted", "It is not actively maintained."),
    ]
    assert check_report(kept, (WIDGETS,), observed, now=MARCH_2024).contradicted == 0


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_setting_aside_is_linear() -> None:
    unit = "It was made by Ada. It is small.\n"

    def aside(text: str) -> object:
        at = text.find("Ada")
        claims = []
        while at >= 0:
            claims.append(
                ev.CheckedClaim(kind="person", claim="Ada", verdict="unchecked", start=at, end=at + 3)
            )
            at = text.find("Ada", at + 1)
        return set_aside(text, claims)

    measured = growth(aside, repeated(unit), start=2000, cap=1 << 17)
    assert measured.linear(), str(measured)


def test_a_dependency_is_described_only_in_words_read_near_its_name() -> None:
    """The real 1.5B's Sinatra tech stack: Mustermann, said to be a templating engine (it matches route
    patterns); Tilt, described as what it is."""
    read = [
        "s.add_dependency 'mustermann', '~> 3.0'\ns.add_dependency 'tilt', '~> 2.0'",
        "Sinatra uses Mustermann for route patterns: pattern matching of paths.",
        "Templates are rendered by Tilt, a template engine for many formats (Haml, Slim, ERB).",
    ]
    draft = (
        "## Tech stack\n\n"
        "- **Mustermann**: A templating engine that allows developers to create dynamic HTML pages.\n"
        "- **Tilt**: A template engine that supports multiple formats such as ERB, HAML and Slim.\n"
        "- `rack`: the web server interface.\n"  # not declared here: not judged
        "- **Mustermann**: route pattern matching.\n"
    )
    named = Named(declared=frozenset({"mustermann", "tilt"}), folders=frozenset(), untested=frozenset())
    found = unsupported_descriptions(draft, named, read, key=str.lower)
    assert [(c.claim, c.observed) for c in found] == [("Mustermann", "nothing read says this of Mustermann")]
    kept, aside = set_aside(draft, found)
    assert kept == (
        "## Tech stack\n\n"
        "- **Mustermann**\n"  # the dependency stays, what the model said it is goes
        "- **Tilt**: A template engine that supports multiple formats such as ERB, HAML and Slim.\n"
        "- `rack`: the web server interface.\n"
        "- **Mustermann**: route pattern matching.\n"
    )
    assert [(c.kind, c.claim) for c in aside] == [
        (
            "description",
            "**Mustermann**: A templating engine that allows developers to create dynamic HTML pages.",
        )
    ]


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_looking_for_what_is_said_near_names_is_linear() -> None:
    def judge(text: str) -> object:
        named = Named(declared=frozenset({"tilt"}), folders=frozenset(), untested=frozenset())
        return unsupported_descriptions("- **tilt**: a template engine\n" * 40, named, [text], key=str.lower)

    measured = growth(judge, repeated("tilt-x tiltx tilt "), start=2000, cap=1 << 17)
    assert measured.linear(), str(measured)


def test_a_folder_said_to_hold_tests_is_held_against_the_tree() -> None:
    """The real 1.5B: fmt's "`support/` directory contains support files for build systems and testing";
    the whole tree shows no test file in support/."""
    draft = (
        "- `support/` directory contains support files for build systems and testing.\n"
        "- `support/`: build scripts.\n"
        "- `test/`: the unit tests.\n"
    )
    untested = frozenset({"support", "doc"})
    named = Named(declared=frozenset({"support"}), folders=untested | {"test"}, untested=untested)
    found = unsupported_descriptions(draft, named, [], key=str.lower)
    assert [(c.claim, c.observed) for c in found] == [("support", "no test file in support/")]
    kept, aside = set_aside(draft, found)
    assert kept == "- `support/`\n- `support/`: build scripts.\n- `test/`: the unit tests.\n"
    assert aside[0].claim == "`support/` directory contains support files for build systems and testing."


async def test_the_names_observed_are_the_manifests_and_the_trees(observed: list[ToolResult]) -> None:
    named = names_observed((WIDGETS,), observed)
    assert named.untested == {"src", "docs", "assets", ".github"}
    assert named.folders == {"src", "docs", "assets", ".github", "tests"}
    assert "click" in named.declared


DRAWN = """Its layout:

```
widgets/
├── src/
│   └── pkg/
│       └── core.py
├── src/
│   └── core.py
├── docs/
│   └── tests/
│       └── deep.py
└── tests/
    └── core.py
```

It is written in Python.
"""


def test_a_drawn_tree_names_whole_paths_and_a_branch_out_of_place_is_wrong(
    observed: list[ToolResult],
) -> None:
    """The real 1.5B drew gson's metrics/ and proto/ inside gson/: each name exists somewhere, the path
    it drew does not. A branch is its parents' path and its name; a drawing that leaves levels out
    (src/ then core.py) is not wrong; a branch under a wrong one is not judged again."""
    drawn = [f.value for f in find_claims(DRAWN) if f.kind == "path"]
    assert drawn == [
        "src",
        "src/pkg",
        "src/pkg/core.py",
        "src",
        "src/core.py",
        "docs",
        "docs/tests",
        "docs/tests/deep.py",
        "tests",
        "tests/core.py",
    ]
    check = check_report(DRAWN, (WIDGETS,), observed)
    got = {(c.claim, c.verdict, c.observed) for c in check.claims if c.kind == "path"}
    assert ("src/core.py", "verified", "src/pkg/core.py") in got  # a level left out
    assert ("docs/tests", "contradicted", "not in docs/") in got
    assert ("tests/core.py", "contradicted", "not in tests/") in got
    assert {c.claim for c in check.claims if c.verdict == "contradicted"} == {"docs/tests", "tests/core.py"}
    kept, aside = set_aside(DRAWN, unsupported(DRAWN, check, (WIDGETS,), observed))
    assert kept == "Its layout:\n\nIt is written in Python.\n"  # the drawing goes whole
    assert len(aside) == 1 and aside[0].claim.startswith("``` widgets/ ├── src/")


def test_a_page_of_commits_is_no_total() -> None:
    """The real 1.5B: "there are currently 30 commits in total" from a page of 30 with more behind it."""
    from tests.test_report import github_results

    report = (
        "The page shows 6 commits from January to March.\nIt has 6 commits in total.\n总共有 6 次提交。\n"
    )
    checked = check_report(report, (RepoRef(owner="octo", name="demo"),), github_results())  # 6, more exist
    said = [(c.claim, c.verdict, c.observed) for c in checked.claims]
    assert said == [
        ("commits: 6", "unchecked", "more than 6"),
        ("commits in total: 6", "contradicted", "more than 6"),
        ("commits in total: 6", "contradicted", "more than 6"),
    ]


def test_a_branch_drawn_under_a_file_is_not_in_it(observed: list[ToolResult]) -> None:
    drawn = "```\n├── README.md\n│   └── usage.md\n└── docs/\n```\n"
    check = check_report(drawn, (WIDGETS,), observed)
    assert [(c.claim, c.verdict, c.observed) for c in check.claims if c.verdict == "contradicted"] == [
        ("README.md/usage.md", "contradicted", "not in README.md")
    ]


def test_a_sentence_wrapped_over_lines_goes_whole_and_the_repository_beside_a_dependency_stays(
    observed: list[ToolResult],
) -> None:
    """The page's own scripted report lost "`wordstats` counts and ranks the words of a text: a small
    Python library with a `click` command" (its first line: the repository named beside a dependency, read
    as listed among them) and kept the wrapped sentence's tail, "line (`wordstats top README.md`)"."""
    draft = (
        "## Overview\n"
        "`widgets` counts words: a small library with a `click` command\n"
        "line. It was created by Alan Turing in\n"
        "2019 as a toy. It is written in Python.\n"
    )
    check = check_report(draft, (WIDGETS,), observed, now=MARCH_2024)
    kept, aside = set_aside(draft, unsupported(draft, check, (WIDGETS,), observed))
    assert kept == (
        "## Overview\n`widgets` counts words: a small library with a `click` command\nline. It is written in Python.\n"
    )
    assert [c.claim for c in aside] == ["It was created by Alan Turing in 2019 as a toy."]
