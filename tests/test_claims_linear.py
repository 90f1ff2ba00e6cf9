"""The claim check and the report's tree walks are linear in the tree: a check per claim is a lookup,
not a scan of every path (``locate``, ``_declared``), and the diagram's package folders, the Go imports
and the entry points are found in one pass (counted visits of the tree's paths, or CPU-time ratios at
twice the size with generous tolerance; never wall-clock windows)."""

from __future__ import annotations

import dataclasses
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.repo import RepoRef
from agent_core.report import diagram_tree, verdicts
from agent_core.report.claim_finders import Found, find_claims
from agent_core.report.claims import annotate
from agent_core.report.facts import Facts, build_facts, gather
from agent_core.report.relevance import question_files
from agent_core.sources import local, local_facts
from agent_core.sources.models import FileTree, TreeEntry
from agent_core.tools.registry import overview_calls
from agent_core.tools.results import ToolResult
from agent_core.words import said, words_for
from testing.linear import growth, least_cpu, repeated

REPO = RepoRef(owner="acme", name="big")


class Counted(tuple[str, ...]):
    """Paths that count how many of them anyone visits."""

    visits = 0

    def __iter__(self) -> Iterator[str]:
        for path in super().__iter__():
            Counted.visits += 1
            yield path


def entries(n: int, folders: int = 40) -> list[TreeEntry]:
    """``n`` entries: ``folders`` top-level packages of Go sources, tests and a manifest each."""
    made = [TreeEntry(path="README.md", type="file"), TreeEntry(path="go.mod", type="file")]
    per = max(1, n // folders)
    for f in range(folders):
        made += [TreeEntry(path=f"pkg{f}", type="dir"), TreeEntry(path=f"pkg{f}/sub", type="dir")]
        made += [TreeEntry(path=f"pkg{f}/package.json", type="file")]
        made += [TreeEntry(path=f"pkg{f}/sub/m{i}.go", type="file") for i in range(per)]
    return made[:n]


def facts_of(n: int) -> Facts:
    tree = FileTree(ref="main", path="", entries=tuple(entries(n)))
    results = tuple(
        ToolResult(
            call_id=str(i),
            tool=tool,
            arguments=arguments,
            ok=True,
            observation={},
            repo=REPO,
            value=tree if tool == "get_file_tree" else None,
        )
        for i, (tool, arguments) in enumerate(overview_calls(REPO))
    )
    facts = build_facts(gather(REPO, results, words_for("en")))
    return dataclasses.replace(facts, paths=Counted(facts.paths), dirs=Counted(facts.dirs))


def visits(run: object) -> int:
    Counted.visits = 0
    assert callable(run)
    run()
    return Counted.visits


def test_locating_many_paths_visits_the_tree_once() -> None:
    facts = facts_of(4000)
    asked = [f"sub/m{i}.go" for i in range(60)] + ["nowhere/at/all.txt", "README", "PKG3/SUB"]
    found = [verdicts.locate(path, facts) for path in asked]
    assert (
        found[0] == said("observed_places", count=39, first="pkg0/sub/m0.go")  # "39 places, e.g. …"
        and found[-2] == "README.md"
        and found[-1] == "pkg3/sub"
    )
    assert found[-3] is None
    again = visits(lambda: [verdicts.locate(path, facts) for path in asked])
    assert again == 0  # the index is built once per facts
    fresh = facts_of(4000)
    once = visits(lambda: [verdicts.locate(path, fresh) for path in asked])
    assert 0 < once <= 3 * (len(fresh.paths) + len(fresh.dirs))  # not claims × paths


def test_unfound_dependencies_list_the_manifests_once() -> None:
    facts = facts_of(4000)
    claims = [
        Found(kind="dependency", subject="dependency", value=f"dep{i}", start=0, end=1) for i in range(50)
    ]
    spent = visits(lambda: [verdicts._declared(f, False, "web", [], facts) for f in claims])
    assert 0 < spent <= 4 * len(facts.paths)  # the index once, not claims × paths
    assert verdicts._declared(claims[0], False, "web", [], facts)[0] in ("contradicted", "unchecked")


def test_package_folders_are_found_in_one_pass() -> None:
    facts = facts_of(8000)
    spent = visits(lambda: diagram_tree._packages(facts))
    assert diagram_tree._packages(facts)[:2] == ["pkg0", "pkg1"]
    assert 0 < spent <= 4 * (len(facts.paths) + len(facts.dirs))  # not folders × paths


def test_go_imports_are_looked_up_not_scanned() -> None:
    facts = facts_of(4000)
    text = "import (\n" + "".join(f'\t"example.com/x/pkg{i}/sub"\n' for i in range(40)) + ")\n"
    named = list(diagram_tree._imported("main.go", text, facts))
    assert named[:2] == ["pkg0/sub", "pkg1/sub"]
    assert visits(lambda: list(diagram_tree._imported("main.go", text, facts))) <= len(facts.dirs)


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_entry_points_are_linear_in_the_paths() -> None:
    small = [f"bin/t{i}/main.py" for i in range(2000)]
    large = [f"bin/t{i}/main.py" for i in range(8000)]
    asked = "What are the entry points?"
    assert question_files(asked, small)[:1] == ["bin/t0/main.py"]
    ratio = least_cpu(lambda: question_files(asked, large)) / least_cpu(lambda: question_files(asked, small))
    assert ratio <= 8.0, ratio  # 4x the paths: linear gives about 4, quadratic about 16


async def test_a_local_tree_is_parsed_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text("print(1)\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"],
        check=True,
    )
    parsed_on: list[threading.Thread] = []
    real = local_facts.file_tree

    def spy(out: bytes, commit: str, path: str) -> FileTree:
        parsed_on.append(threading.current_thread())
        return real(out, commit, path)

    monkeypatch.setattr(local, "file_tree", spy)  # a folder's tree
    monkeypatch.setattr(local_facts, "file_tree", spy)  # the commit's whole tree
    source = await local.LocalGitSource.open(tmp_path)
    tree = (await source.get_file_tree(source.repo_ref)).value
    assert [e.path for e in tree.entries] == ["src", "src/app.py"]
    assert parsed_on and threading.current_thread() not in parsed_on  # a worker thread, not the loop's


async def test_local_languages_are_counted_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    (tmp_path / "app.py").write_text("print(1)\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"],
        check=True,
    )
    counted_on: list[threading.Thread] = []
    real = local_facts.tree_languages

    def spy(tree: FileTree, *, gitattributes: str | None = None) -> dict[str, int]:
        counted_on.append(threading.current_thread())
        return real(tree, gitattributes=gitattributes)

    monkeypatch.setattr(local_facts, "tree_languages", spy)
    source = await local.LocalGitSource.open(tmp_path)
    found = (await source.get_languages(source.repo_ref)).value
    assert "Python" in found.bytes_by_language
    assert counted_on and threading.current_thread() not in counted_on  # a worker thread, not the loop's


# Inputs that could make the dependency, version, table and fenced-path finders quadratic.
FINDER_ATTACKS = {
    "spaces after a name": lambda n: "It uses react" + " " * n + "x",
    "constraints after a name": repeated("uses `httpx` >=1, "),
    "version separators": lambda n: "uses react 1" + " ||" * (n // 3),
    "table pipes": lambda n: "| Package | Version |\n|---|---|\n" + "| react | ^1 " * (n // 12),
    "table rows": repeated("| `react` | ^18.2.0 |\n"),
    "fenced paths": lambda n: "```bash\n" + "./a/b.py " * (n // 9) + "\n```",
    "listing tokens": lambda n: "```\n" + "src/a.py:" * (n // 9) + "\n```",
    "code spans in a test line": repeated("tested with `RSpec` `a/b` "),
    "topic words": repeated("topics jobs uses `react` "),
    "backtick runs in code": repeated("`a@`"),
    "counts without units": repeated("1 Ruby "),
    "counts": repeated("made of 3 gems, "),
    "dependency words": repeated("depends on `x` "),
    "names after a list's word": lambda n: "Its authors include " + "Ada " * (n // 4),
    "list words": repeated("authors authors include "),
    "names after by": repeated("created by Ada Lovelace Grace Hopper "),
    "upkeep words": repeated("not actively maintained, "),
    "a deep drawn branch": lambda n: "```\n" + "│   " * (n // 4) + "├── a.py\n```",
    "drawn branches": lambda n: "```\n" + "├── a/\n│   └── b.py\n" * (n // 20) + "```",
    "a drawing's lead alone": lambda n: "```\n" + "│ " * (n // 2) + "x\n```",
    "clauses before upkeep": lambda n: "may " * (n // 4) + "unmaintained",
}


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
@pytest.mark.parametrize("attack", FINDER_ATTACKS, ids=list(FINDER_ATTACKS))
def test_the_claim_finders_are_linear_on_hostile_lines(attack: str) -> None:
    measured = growth(find_claims, FINDER_ATTACKS[attack], start=2000, cap=1 << 17)
    assert measured.linear(), f"{attack}: {measured}"


def _marked(report: str) -> str:
    """``report`` with every claim the finders see marked contradicted (the most marks a report gets)."""
    claims = tuple(
        ev.CheckedClaim(
            kind=f.kind, claim=f.value, verdict="contradicted", observed="x", start=f.start, end=f.end
        )
        for f in find_claims(report)
    )
    return annotate(
        report,
        ev.ClaimsChecked(
            t=0.0, claims=claims, key_facts=(), verified=0, contradicted=len(claims), unchecked=0
        ),
    )


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
@pytest.mark.parametrize(
    "unit",
    ["uses `src/a.py` and **C#** [t](x) ", "It has 3 stars. ", "`a/b.py`" * 3 + "\n"],
    ids=["line", "lines", "spans"],
)
def test_marking_every_claim_is_linear(unit: str) -> None:
    assert "✗ checked" in _marked(unit * 3)
    measured = growth(_marked, repeated(unit), start=2000, cap=1 << 17)
    assert measured.linear(), str(measured)


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_checking_claims_about_two_repositories_is_linear() -> None:
    """Which repository a claim is about (the last one named before it) is looked up, not found by
    rescanning the report before each claim: that was quadratic with two repositories in scope."""
    from agent_core.report.claims import check_report

    scope = (RepoRef(owner="acme", name="widgets"), RepoRef(owner="acme", name="gadgets"))

    def check(report: str) -> object:
        return check_report(report, scope, [])

    assert check("acme/widgets has 3 stars. acme/gadgets has 4 stars. ").claims  # type: ignore[attr-defined]
    measured = growth(check, repeated("acme/widgets: It has 3 stars. "), start=2000, cap=1 << 17)
    assert measured.linear(), str(measured)
