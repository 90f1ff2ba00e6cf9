"""Names listed after "depends on" are dependency claims, whatever list of known names holds them, and a
Maven dependency answers to its artifact's name. The real 1.5B wrote that gson's modules "depend on
other libraries such as Guava and Jackson": Guava is ``com.google.guava:guava`` in ``gson/pom.xml``,
Jackson is declared nowhere; neither was found as a claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.repo import RepoRef
from agent_core.report.claim_finders import find_claims
from agent_core.report.claims import check_report
from agent_core.settings import Settings
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.linear import growth

POM = (
    '<?xml version="1.0"?>\n<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>'
    "<artifactId>{artifact}</artifactId><version>1.0</version>{body}</project>\n"
)
GUAVA = (
    "<dependencies><dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId>"
    "<version>33.6.0-jre</version></dependency></dependencies>"
)
FILES = {
    "pom.xml": POM.format(artifact="beans-parent", body="<modules><module>beans</module></modules>"),
    "beans/pom.xml": POM.format(artifact="beans", body=GUAVA),
    "beans/src/main/java/com/acme/Beans.java": "package com.acme;\nclass Beans {}\n",
}


async def test_listed_names_are_held_against_the_manifests_a_maven_artifact_by_its_name(
    tmp_path: Path,
) -> None:
    with GitHubEmulator() as emu:
        emu.add_repo("acme/beans", make_repo(tmp_path / "beans", FILES), license="MIT")
        settings = Settings(github_api_url=emu.base_url, cache_dir=tmp_path / "cache", prefetch=True)
        results = list((await run_once(settings, "", target="acme/beans")).opened.analysis.results)
    report = "Some of the modules depend on other libraries such as Guava and Jackson.\n"
    check = check_report(report, (RepoRef(owner="acme", name="beans"),), results)
    verdicts = {c.claim: (c.verdict, c.observed) for c in check.claims if c.kind == "dependency"}
    assert verdicts == {
        "guava": ("verified", "declared in beans/pom.xml"),
        "jackson": ("contradicted", "not among the dependencies in beans/pom.xml, pom.xml"),
    }


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("It depends on Guava, Truth and Jackson.", ["guava", "truth", "jackson"]),
        ("Sinatra relies on Rack, Tilt, and Mustermann.", ["rack", "tilt", "mustermann"]),
        (  # the real 1.5B on fmt: code spans, whatever they hold, listed as dependencies
            "It depends on several external libraries such as `std::string_view` and `libc++`.",
            ["std::string_view", "libc++"],
        ),
        ("It depends on Java 8 and Linux.", []),  # a language and a platform are no packages
        ("It depends on the user's configuration.", []),  # no name
        ("Depending on Windows or macOS, paths differ.", []),
    ],
)
def test_the_names_listed_after_depends_on_are_found(line: str, names: list[str]) -> None:
    found = [f.value for f in find_claims(line) if f.kind == "dependency"]
    assert found == names


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_finding_listed_names_is_linear_in_the_line() -> None:
    for make in (
        lambda n: "depends on " + "Alpha, " * (n // 7),
        lambda n: "depends on such as " * (n // 19),
        lambda n: "relies on " + "A" * n,
    ):
        measured = growth(find_claims, make, start=5_000, factor=4)
        assert measured.linear(), str(measured)
