"""The project's description when GitHub gives none (a local checkout, a repository without one): the
root manifest's, else the one of a top-level folder named as the repository; never a module's. gson's
deterministic report said "Google Gson grab bag of utilities, type adapters, etc." (``extras/pom.xml``,
read first in path order) where its root ``pom.xml`` says "Gson JSON library"."""

from __future__ import annotations

from pathlib import Path

from agent_core.settings import Settings
from testing.analysis import run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo


def _pom(artifact: str, description: str, modules: tuple[str, ...] = ()) -> str:
    listed = "".join(f"<module>{m}</module>" for m in modules)
    return (
        '<?xml version="1.0"?>\n<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>'
        f"<artifactId>{artifact}</artifactId><version>1.0</version><description>{description}</description>"
        f"<modules>{listed}</modules></project>\n"
    )


async def _report(tmp_path: Path, name: str, files: dict[str, str]) -> str:
    with GitHubEmulator() as emu:
        emu.add_repo(f"acme/{name}", make_repo(tmp_path / name, files), license="MIT", description=None)
        settings = Settings(github_api_url=emu.base_url, cache_dir=tmp_path / "cache", prefetch=True)
        run = await run_once(settings, "", target=f"acme/{name}")
        return run.finished.report


async def test_the_root_manifest_describes_the_project_not_a_module(tmp_path: Path) -> None:
    files = {
        "pom.xml": _pom("beans-parent", "Beans JSON library", ("beans", "extras")),
        "beans/pom.xml": _pom("beans", "The core of beans"),
        "extras/pom.xml": _pom("beans-extras", "Grab bag of utilities"),
        "beans/src/main/java/com/acme/Beans.java": "package com.acme; class Beans {}\n",
    }
    report = await _report(tmp_path, "beans", files)
    assert "**Description:** Beans JSON library (from [`pom.xml`]" in report
    assert "Grab bag" not in report


async def test_without_a_root_manifest_the_folder_named_as_the_repository_describes_it(
    tmp_path: Path,
) -> None:
    files = {
        "beans/pom.xml": _pom("beans", "The core of beans"),
        "extras/pom.xml": _pom("beans-extras", "Grab bag of utilities"),
    }
    report = await _report(tmp_path, "beans", files)
    assert "**Description:** The core of beans (from [`beans/pom.xml`]" in report
    only_modules = {"extras/pom.xml": _pom("beans-extras", "Grab bag of utilities")}
    assert "**Description:** unknown" in await _report(tmp_path / "2", "beans", only_modules)
