"""Claims naming the project's build system, held against the build files of the tree
(:mod:`agent_core.report.claim_build`): the real 1.5B called Gradle fmt's build tool, and fmt builds with
CMake (``CMakeLists.txt`` at the root; Gradle's one file is ``support/build.gradle``, for Android). And
the C++ standard the root build file asks for (:mod:`agent_core.report.claim_standard`): the 1.5B wrote
fmt "is designed for C++17 and later", and fmt asks for ``cxx_std_11``. Over the emulator, on
repositories of those shapes and on a monorepo with no build file at its root."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.repo import RepoRef
from agent_core.report.claim_build import build_claims
from agent_core.report.claim_standard import asked_standards, standard_claims
from agent_core.report.claims import check_report
from agent_core.settings import Settings
from agent_core.tools.results import ToolResult
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.linear import growth

CMAKE = """cmake_minimum_required(VERSION 3.8)
project(fmt CXX)
if (cxx_std_11 IN_LIST CMAKE_CXX_COMPILE_FEATURES)
  target_compile_features(fmt PUBLIC cxx_std_11)  # inside an `if`: still what its users need
endif ()
function(add_module_library name)
  target_compile_features(${name} PUBLIC cxx_std_20)
endfunction()
if (FMT_TEST)
  set(CMAKE_CXX_STANDARD 17)  # a test's: no need of the project
endif ()
"""
NATIVE = {
    "CMakeLists.txt": CMAKE,
    "src/format.cc": "int main() { return 0; }\n",
    "support/build.gradle": "apply plugin: 'com.android.library'\n",
    "README.md": "# fmt\n\nA formatting library.\n",
}
MONOREPO = {
    "android/build.gradle": "apply plugin: 'com.android.application'\n",
    "web/package.json": '{"name": "web"}\n',
    "README.md": "# app\n\nAn app for two platforms.\n",
}


async def _observed(tmp_path: Path, name: str, files: dict[str, str]) -> list[ToolResult]:
    with GitHubEmulator() as emu:
        emu.add_repo(f"acme/{name}", make_repo(tmp_path / name, files), license="MIT")
        settings = Settings(github_api_url=emu.base_url, cache_dir=tmp_path / "cache", prefetch=True)
        run = await run_once(settings, "", target=f"acme/{name}")
        return list(run.opened.analysis.results)


def _verdicts(report: str, name: str, results: list[ToolResult]) -> list[tuple[str, str, str | None]]:
    check = check_report(report, (RepoRef(owner="acme", name=name),), results)
    return [(c.claim, c.verdict, c.observed) for c in check.claims if c.kind == "build"]


async def test_the_build_system_is_the_one_whose_files_stand_at_the_root(tmp_path: Path) -> None:
    observed = await _observed(tmp_path, "native", NATIVE)
    report = (
        "The project is built with CMake.\n"
        "- **Gradle**: Build tool used for building the project.\n"
        "It uses Maven as its build tool.\n"
        "It is built with Make.\n"  # CMake generates Makefiles: never ✗ beside it
        "项目使用 CMake 构建。\n"
    )
    assert _verdicts(report, "native", observed) == [
        ("CMake", "verified", "CMakeLists.txt at the root"),
        (
            "Gradle",
            "contradicted",
            "its files only below the root (support/build.gradle); the root builds with CMake (CMakeLists.txt)",
        ),
        (
            "Maven",
            "contradicted",
            "no Maven build file in the tree; the root builds with CMake (CMakeLists.txt)",
        ),
        ("Make", "unchecked", None),
        ("CMake", "verified", "CMakeLists.txt at the root"),
    ]


async def test_a_root_with_no_build_file_says_nothing_of_a_parts_build(tmp_path: Path) -> None:
    observed = await _observed(tmp_path, "app", MONOREPO)
    verdicts = _verdicts(
        "The project is built with Gradle. It uses Bazel as its build tool.\n", "app", observed
    )
    assert verdicts == [
        ("Gradle", "unchecked", None),
        ("Bazel", "contradicted", "no Bazel build file in the tree"),
    ]


async def test_the_cxx_standard_is_the_least_the_root_build_file_asks_of_every_user(tmp_path: Path) -> None:
    observed = await _observed(tmp_path, "native", NATIVE)
    report = (
        "The library is designed for C++17 and later.\n"
        "It requires C++11.\n"
        "It needs a C++20 compiler.\n"
        "It supports C++20 modules.\n"  # no minimum: no claim
        "项目至少需要 C++11。\n"
    )
    check = check_report(report, (RepoRef(owner="acme", name="native"),), observed)
    wanted = "the build file CMakeLists.txt asks for C++11"
    assert [(c.claim, c.verdict, c.observed) for c in check.claims if c.kind == "standard"] == [
        ("C++17", "contradicted", wanted),
        ("C++11", "verified", wanted),
        ("C++20", "contradicted", wanted),
        ("C++11", "verified", wanted),
    ]
    only_if = {
        "CMakeLists.txt": "if (NEW)\n  set(CMAKE_CXX_STANDARD 20)\nelse ()\n  set(CMAKE_CXX_STANDARD 11)\nendif ()\n"
    }
    observed = await _observed(tmp_path / "2", "spd", {**only_if, "README.md": "# spd\n"})
    check = check_report("It requires C++11.\n", (RepoRef(owner="acme", name="spd"),), observed)
    assert [(c.verdict, c.observed) for c in check.claims if c.kind == "standard"] == [("unchecked", None)]


@pytest.mark.parametrize(
    "line",
    [
        "fmt can also be built with Bazel.",  # an alternative, true or not, says nothing of its own build
        "Gradle is used to build the Android library.",  # a part's build
        "The project is not built with Make.",
        "This helps make build tools faster.",  # the verb
        "Support for the Meson build system is planned.",
    ],
)
def test_a_hedged_narrowed_or_negated_build_claim_is_not_one(line: str) -> None:
    assert list(build_claims(line, 0)) == []


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_finding_build_claims_is_linear_in_the_line() -> None:
    for make in (
        lambda n: "built with CMake " * (n // 17),
        lambda n: "**" * (n // 2) + "Gradle build tool",
        lambda n: "Gradle " * (n // 7) + "build system",
    ):
        measured = growth(lambda text: list(build_claims(text, 0)), make, start=5_000, factor=4)
        assert measured.linear(), str(measured)
    for make in (lambda n: "requires C++17 " * (n // 15), lambda n: "C++" * (n // 3) + "11 or later"):
        measured = growth(lambda text: list(standard_claims(text, 0)), make, start=5_000, factor=4)
        assert measured.linear(), str(measured)
    for make in (
        lambda n: "if (A)\n" * (n // 7),
        lambda n: "target_compile_features(x PUBLIC " * (n // 34) + "cxx_std_11)",
        lambda n: "target_compile_features(" + "x PUBLIC " * (n // 9),  # no ")", no standard
    ):
        measured = growth(asked_standards, make, start=5_000, factor=4)
        assert measured.linear(), str(measured)
