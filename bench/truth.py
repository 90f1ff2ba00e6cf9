"""Section: the truth bench. Reports on real repositories of every major ecosystem, held against truth
files written by reading each repository (``bench/truth/OWNER+NAME.json``, see :mod:`bench.truth_judge`),
and the app's claim check fed planted falsehoods (:mod:`bench.truth_planted`).

For every truth file whose repository is fetched (a git directory ``DIR/OWNER+NAME/repo``, by default
under ``/work/.mirror``; absent: skipped with the reason printed), the repository is served by the GitHub
emulator and analysed as the app does with no key, for the whole repository and for each of the file's
``folders`` as a ``/tree/<ref>/<path>`` URL. Per run: statements judged, FALSE statements, missing key
facts, and claims the app's check marked ✗ that are true. Per repository and per folder URL: a planted-claims report
(true statements and planted falsehoods) is the scripted model's report, and the app's real claim check
(``ClaimsChecked``) is read: falsehoods caught (✗ on the false words) of those planted, and true
statements marked ✗. ::

    python -m bench --only truth --markdown --out /tmp/truth.json
    python -m bench --only truth --mirror /path/to/mirrors --repos rails/rails,dotnet/efcore
    BENCH_REPORTS=/tmp/reports python -m bench --only truth   # keep each report, its verdicts, the planted check
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import enry

from agent_core import events as ev
from agent_core.settings import Settings
from bench.config import BenchConfig
from bench.realrepos_truth import Truth, _read_blobs
from bench.table import Metric, Section
from bench.truth_judge import FolderFacts, Manifests, TruthFile, check_errors, judge_truth
from bench.truth_planted import PlantedReport, folder_planted_report, planted_report
from testing.analysis import make_settings, reads_then, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.github_payloads import RepoPayloads
from testing.emulator.gitrepo import TreeItem
from testing.emulator.model_server import ScriptedModelServer

MIRROR = Path("/work/.mirror")
TRUTH_DIR = Path(__file__).resolve().parent / "truth"


@dataclass(frozen=True)
class Row:
    repo: str
    target: str  # "whole" or the folder
    judged: int
    false: int
    missing: tuple[str, ...]
    check_wrong: tuple[str, ...]
    wall_s: float
    writer: str
    false_statements: tuple[str, ...]
    caught: int | None = None  # planted falsehoods marked ✗ (every row: the repository and each folder URL)
    planted: int | None = None
    planted_true_wrong: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()  # planted falsehoods the check let through
    planted_categories: tuple[str, ...] = ()
    note: str = ""

    def cells(self) -> dict[str, str]:
        return {
            "repository": self.repo,
            "target": self.target,
            "judged": str(self.judged),
            "false": str(self.false),
            "missing key facts": str(len(self.missing)),
            "check ✗ on true": str(len(self.check_wrong)),
            "planted caught": "—" if self.planted is None else f"{self.caught}/{self.planted}",
            "planted: ✗ on true": "—" if self.planted is None else str(len(self.planted_true_wrong)),
            "wall s": f"{self.wall_s:.1f}",
        }


def git_dir_of(mirror: Path, repo: str) -> Path | None:
    """The fetched git directory of ``repo`` under ``mirror`` (bare, or a clone's ``.git``), or None."""
    base = mirror / repo.replace("/", "+") / "repo"
    for candidate in (base, base / ".git"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def truth_files(folder: Path, wanted: tuple[str, ...]) -> tuple[list[TruthFile], list[str]]:
    files: list[TruthFile] = []
    problems: list[str] = []
    for path in sorted(folder.glob("*.json")):
        try:
            facts = TruthFile.load(path)
        except (ValueError, TypeError) as exc:
            problems.append(f"{path.name}: skipped, not a readable truth file ({exc})")
            continue
        if not wanted or facts.repo in wanted:
            files.append(facts)
    return files, problems


def _git(git_dir: Path, *args: str) -> str:
    import subprocess

    done = subprocess.run(["git", "-C", str(git_dir), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


BENCH_TOKEN = "ghp_bench-owner-token"  # any token: the emulator gives it the authenticated window


def api_license(facts: TruthFile) -> str | None:
    """What GitHub's API says of the licence: one SPDX id, or NOASSERTION for an expression."""
    text = facts.license.strip()
    if not text:
        return None
    return text if " " not in text else "NOASSERTION"


# -- what GitHub's language bar says: Linguist's byte counts (go-enry), served by the emulator in the
#    place of its own extension map, which knows 16 extensions (no C#, Kotlin, PHP; ".h" always C)

_MAX_SNIFF = 8192  # bytes of an ambiguous file Linguist's heuristics read
_MAX_SNIFFED = 20_000  # ambiguous files read per repository; past it, the usual reading of the extension
_USUAL = ("C++", "Rust", "C#", "PHP", "Objective-C", "Perl", "TypeScript", "C")


def linguist_languages(git_dir: Path, truth: Truth) -> dict[str, int]:
    """Bytes per language as GitHub counts them: Linguist's programming and markup languages, vendored
    and documentation files left out, a file whose name fits several languages (``.rs``: Rust or
    RenderScript; ``.h``: C or C++) decided by its content as Linguist does."""
    totals: dict[str, int] = {}
    sniff: list[str] = []
    for path, size in truth.files.items():
        if enry.is_vendor(path) or enry.is_documentation(path) or enry.is_dot_file(path):
            continue
        name = path.rsplit("/", 1)[-1]
        candidates = enry.get_languages(name, b"")
        if len(candidates) == 1 and not name.lower().endswith(".h"):
            _add(totals, candidates[0], size)
        elif candidates:
            sniff.append(path)
    texts = _read_blobs(git_dir, "HEAD", sniff[:_MAX_SNIFFED])
    for path in sniff:
        name = path.rsplit("/", 1)[-1]
        if path in texts:
            language = enry.get_language(name, texts[path][:_MAX_SNIFF].encode())
        else:
            candidates = enry.get_languages(name, b"")
            language = next((c for c in _USUAL if c in candidates), candidates[0])
        _add(totals, language, truth.files[path])
    return dict(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))


def _add(totals: dict[str, int], language: str, size: int) -> None:
    if language and enry.get_language_type(language) in ("programming", "markup"):
        totals[language] = totals.get(language, 0) + size


@contextmanager
def served_languages(full_name: str, languages: dict[str, int]) -> Iterator[None]:
    """The emulator answers ``languages`` (and the repository's ``language``) of ``full_name`` with
    ``languages`` while the block runs; every other repository as before."""
    kept = RepoPayloads.__dict__["languages"]  # the staticmethod itself: put back as it was
    original = RepoPayloads.languages

    def languages_of(self: RepoPayloads, blobs: Sequence[TreeItem]) -> dict[str, int]:
        if self.repo.full_name == full_name:
            return dict(languages)
        return original(blobs)

    RepoPayloads.languages = languages_of  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        RepoPayloads.languages = kept  # type: ignore[method-assign]


async def _offline(facts: TruthFile, git_dir: Path, target: str, cache: Path) -> list[ev.Event]:
    with GitHubEmulator() as emu:
        emu.add_repo(facts.repo, git_dir, license=api_license(facts))
        settings = Settings(github_api_url=emu.base_url, cache_dir=cache, github_read_timeout=120.0)
        run = await run_once(settings, "", target=target, turn_timeout=600.0)
        return run.events


async def _scripted(
    facts: TruthFile, git_dir: Path, report: str, work: Path, target: str = ""
) -> list[ev.Event]:
    """The app's run with a scripted model whose report turn returns ``report`` (evidence gathered first;
    one call of the model's own before it, as the app asks of a report: :func:`testing.analysis.reads_then`)."""
    with GitHubEmulator() as emu, ScriptedModelServer(responder=reads_then(report, facts.repo)) as server:
        emu.add_repo(facts.repo, git_dir, license=api_license(facts))
        # an owner's install with a GitHub token (5,000 requests an hour), as the README advises: the check
        # may read every manifest of a monorepo (a quarter of the rate limit left, at most)
        # a hosted model's report: every planted claim reaches the check (a local one's ✗ are set aside)
        settings = make_settings(
            emu,
            work,
            server,
            prefetch=True,
            github_read_timeout=120.0,
            github_token=BENCH_TOKEN,
            llm_local=False,
        )
        run = await run_once(
            settings, "What is this repository?", target=target or facts.repo, turn_timeout=600.0
        )
        return run.events


def _report_of(events: list[ev.Event]) -> tuple[str, str]:
    last = events[-1] if events else None
    if isinstance(last, ev.RunFinished):
        return last.report, last.writer
    return "", f"failed: {getattr(last, 'message', '')}"


def _check(events: list[ev.Event]) -> ev.ClaimsChecked | None:
    return next((e for e in events if isinstance(e, ev.ClaimsChecked)), None)


def measure_run(
    facts: TruthFile,
    git_dir: Path,
    truth: Truth,
    folder: FolderFacts | None,
    *,
    branch: str,
    work: Path,
    manifests: Manifests,
    linguist: dict[str, int],
) -> tuple[Row, str, list[dict[str, object]]]:
    target = _target(facts, folder, branch)
    stem = _stem(facts.repo, folder.path if folder else "")
    started = time.monotonic()
    events = asyncio.run(_offline(facts, git_dir, target, work / "cache" / stem))
    wall = time.monotonic() - started
    report, writer = _report_of(events)
    scoped = (
        Truth(files=truth.files, dirs=truth.dirs, texts=truth.texts, scope=folder.path.strip("/"))
        if folder
        else truth
    )
    judgement = judge_truth(report, facts, scoped, folder, manifests=manifests, linguist=linguist)
    check = _check(events)
    wrong = check_errors(check.claims if check else (), judgement, scoped, facts.repo)
    row = Row(
        repo=facts.repo,
        target=folder.path if folder else "whole",
        judged=judgement.judged,
        false=len(judgement.false),
        missing=judgement.missing,
        check_wrong=tuple(wrong),
        wall_s=wall,
        writer=writer,
        false_statements=tuple(f"{s.kind}: {s.text}" for s in judgement.false),
    )
    verdicts = [dataclasses.asdict(s) for s in judgement.statements]
    return row, report, verdicts


@dataclass(frozen=True)
class PlantedResult:
    caught: int
    planted: int
    true_wrong: tuple[str, ...]
    missed: tuple[str, ...]
    report: str
    claims: tuple[ev.CheckedClaim, ...]
    categories: tuple[str, ...] = ()  # the category of each planted falsehood


def score_planted(planted: PlantedReport, report: str, claims: tuple[ev.CheckedClaim, ...]) -> PlantedResult:
    """Which planted falsehoods the check marked ✗ (a ✗ over their false words), which true statements
    it marked ✗ (a ✗ anywhere on their line). Statements are found in order in the checked report."""
    crosses = [c for c in claims if c.verdict == "contradicted"]
    cursor = 0
    caught = 0
    missed: list[str] = []
    true_wrong: list[str] = []
    for statement in planted.statements:
        at = _find_line(report, statement.text, cursor)
        if at < 0:
            if not statement.true:
                missed.append(f"{statement.category}: {statement.text} (not in the checked report)")
            continue
        cursor = at + len(statement.text)
        if statement.true:
            hits = [c for c in crosses if c.start >= 0 and c.start < cursor and at < c.end]
            true_wrong += [f"{statement.category}: {c.kind} {c.claim!r} in {statement.text!r}" for c in hits]
            continue
        focus = at + statement.text.index(statement.focus)
        end = focus + len(statement.focus)
        if any(
            (c.start >= 0 and c.start < end and focus < c.end)
            or (c.start < 0 and statement.focus.lower() in c.claim.lower())
            for c in crosses
        ):
            caught += 1
        else:
            missed.append(f"{statement.category}: {statement.text}")
    planted_n = sum(not s.true for s in planted.statements)
    categories = tuple(s.category for s in planted.statements if not s.true)
    return PlantedResult(caught, planted_n, tuple(true_wrong), tuple(missed), report, claims, categories)


def _find_line(report: str, line: str, cursor: int) -> int:
    """Where ``line`` stands as a whole line of ``report`` at or after ``cursor`` (-1: not there)."""
    at = cursor
    while True:
        at = report.find(line, at)
        if at < 0:
            return -1
        before = at == 0 or report[at - 1] == "\n"
        after = at + len(line) == len(report) or report[at + len(line)] == "\n"
        if before and after:
            return at
        at += 1


def measure_planted(
    facts: TruthFile,
    git_dir: Path,
    truth: Truth,
    work: Path,
    *,
    folder: FolderFacts | None = None,
    branch: str = "",
) -> PlantedResult:
    """The planted-claims report of the repository, or of one folder URL, through the app's claim check."""
    planted = (
        planted_report(facts, truth)
        if folder is None
        else folder_planted_report(facts, folder, truth, lambda word: _names(git_dir, folder.path, word))
    )
    target = _target(facts, folder, branch)
    where = work / "planted" / _stem(facts.repo, folder.path if folder else "")
    events = asyncio.run(_scripted(facts, git_dir, planted.text, where, target))
    report, _writer = _report_of(events)
    check = _check(events)
    return score_planted(planted, report, check.claims if check else ())


def _names(git_dir: Path, folder: str, word: str) -> bool:
    """Whether a file of ``folder`` names ``word`` (``active_support`` for activesupport), by git grep."""
    spelled = {word, word.replace("-", "_"), word.rsplit("/", 1)[-1].rsplit(":", 1)[-1]}
    for text in spelled:
        found = subprocess.run(
            [
                "git",
                "--git-dir",
                str(git_dir),
                "grep",
                "-q",
                "-i",
                "-F",
                text,
                "HEAD",
                "--",
                folder.strip("/"),
            ],
            check=False,
            capture_output=True,
        )
        if found.returncode == 0:
            return True
    return False


def _target(facts: TruthFile, folder: FolderFacts | None, branch: str) -> str:
    if folder is None:
        return facts.repo
    return f"https://github.com/{facts.repo}/tree/{branch}/{folder.path.strip('/')}"


def _stem(repo: str, folder: str) -> str:
    return repo.replace("/", "_") + (f"--{folder.strip('/').replace('/', '_')}" if folder else "")


def measure_repo(facts: TruthFile, git_dir: Path, work: Path) -> list[Row]:
    head = _git(git_dir, "rev-parse", "HEAD")
    branch = _git(git_dir, "symbolic-ref", "--short", "HEAD")
    note = (
        ""
        if not facts.commit or facts.commit == head
        else f"truth file read {facts.commit[:12]}, served {head[:12]}"
    )
    truth = Truth.read(git_dir)
    manifests = Manifests.read(git_dir, truth)
    linguist = linguist_languages(git_dir, truth)
    with served_languages(facts.repo, linguist):
        return _measure_runs(facts, git_dir, truth, manifests, linguist, branch=branch, note=note, work=work)


def _measure_runs(
    facts: TruthFile,
    git_dir: Path,
    truth: Truth,
    manifests: Manifests,
    linguist: dict[str, int],
    *,
    branch: str,
    note: str,
    work: Path,
) -> list[Row]:
    reports = os.environ.get("BENCH_REPORTS")
    rows: list[Row] = []
    for folder in (None, *facts.folders):
        row, report, verdicts = measure_run(
            facts, git_dir, truth, folder, branch=branch, work=work, manifests=manifests, linguist=linguist
        )
        planted = measure_planted(facts, git_dir, truth, work, folder=folder, branch=branch)
        row = dataclasses.replace(
            row,
            caught=planted.caught,
            planted=planted.planted,
            planted_true_wrong=planted.true_wrong,
            missed=planted.missed,
            planted_categories=planted.categories,
            note=note if folder is None else "",
        )
        if reports:
            _keep_planted(Path(reports), _stem(facts.repo, folder.path if folder else ""), planted)
        rows.append(row)
        if reports:
            _keep(Path(reports), _stem(facts.repo, folder.path if folder else ""), row, report, verdicts)
    return rows


def _keep(folder: Path, stem: str, row: Row, report: str, verdicts: list[dict[str, object]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.md").write_text(report, encoding="utf-8")
    document = {"missing": row.missing, "check_wrong": row.check_wrong, "statements": verdicts}
    (folder / f"{stem}.verdicts.json").write_text(
        json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8"
    )


def _keep_planted(folder: Path, stem: str, planted: PlantedResult) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stem += ".planted"
    (folder / f"{stem}.md").write_text(planted.report, encoding="utf-8")
    document = {
        "caught": planted.caught,
        "planted": planted.planted,
        "missed": planted.missed,
        "true_marked_wrong": planted.true_wrong,
        "claims": [dataclasses.asdict(c) for c in planted.claims],
    }
    (folder / f"{stem}.json").write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")


def measure(config: BenchConfig, workdir: Path, *, truth_dir: Path | None = None) -> Section:
    workdir.mkdir(parents=True, exist_ok=True)
    mirror = Path(config.mirror) if config.mirror else MIRROR
    files, skipped = truth_files(truth_dir or TRUTH_DIR, config.repos)
    rows: list[Row] = []
    for facts in files:
        git_dir = git_dir_of(mirror, facts.repo)
        if git_dir is None:
            skipped.append(
                f"{facts.repo}: skipped, no git repository at {mirror / facts.repo.replace('/', '+')}/repo"
            )
            continue
        rows += measure_repo(facts, git_dir, workdir)
    if not rows:
        reason = f"no repository with a truth file is on this machine (truth files in {truth_dir or TRUTH_DIR}, mirror {mirror})"
        return Section(key="truth", title="Truth bench", notes=skipped, skipped=reason)
    return section(rows, skipped, mirror)


def _by_category(rows: list[Row]) -> list[Metric]:
    """Planted falsehoods caught per category, over every repository."""
    planted: dict[str, int] = {}
    missed: dict[str, int] = {}
    for row in rows:
        for category in row.planted_categories:
            planted[category] = planted.get(category, 0) + 1
        for line in row.missed:
            category = line.split(":", 1)[0]
            missed[category] = missed.get(category, 0) + 1
    return [
        Metric(name=f"planted, caught: {c}", value=f"{n - missed.get(c, 0)}/{n}", target="≥ 90%",
               met=n - missed.get(c, 0) >= 0.9 * n)
        for c, n in planted.items()
    ]  # fmt: skip


def section(rows: list[Row], skipped: list[str], mirror: Path) -> Section:
    planted = [r for r in rows if r.planted is not None]
    caught = sum(r.caught or 0 for r in planted)
    total = sum(r.planted or 0 for r in planted)
    ratio = caught / total if total else 0.0
    low = [r for r in planted if r.planted and (r.caught or 0) < 0.9 * r.planted]
    metrics = [
        Metric(
            name=f"{r.repo} · {r.target}",
            value=f"{r.false} false / {r.judged} judged",
            target="0 false",
            met=r.false == 0,
            note=f"missing: {', '.join(r.missing) or 'none'}; check ✗ on true: {len(r.check_wrong)}; "
            f"{r.wall_s:.1f} s; writer {r.writer}",
        )
        for r in rows
    ]
    metrics += [
        Metric(name="false statements, all reports", value=sum(r.false for r in rows), target="0",
               met=sum(r.false for r in rows) == 0),
        Metric(name="key facts missing, all reports", value=sum(len(r.missing) for r in rows), target="0",
               met=not any(r.missing for r in rows)),
        Metric(name="claim check ✗ on true statements (app's reports)", value=sum(len(r.check_wrong) for r in rows),
               target="0", met=not any(r.check_wrong for r in rows)),
        Metric(name="planted falsehoods caught", value=f"{caught}/{total} ({100 * ratio:.0f}%)",
               target="≥ 90% on every repository", met=bool(total) and not low),
        Metric(name="planted reports: ✗ on true statements", value=sum(len(r.planted_true_wrong) for r in planted),
               target="0", met=not any(r.planted_true_wrong for r in planted)),
    ]  # fmt: skip
    metrics += _by_category(planted)
    notes = [
        f"repositories from {mirror}; truth files in bench/truth/; offline planner (no key) for the reports; "
        "the scripted model's report turn, with a GitHub token, for the planted claims; GitHub read timeout 120 s",
        *skipped,
    ]
    for r in rows:
        where = f"{r.repo} · {r.target}"
        notes += [f"{where}: {r.note}"] if r.note else []
        notes += [f"{where}: FALSE {s}" for s in r.false_statements[:15]]
        notes += [f"{where}: missing {m}" for m in r.missing]
        notes += [f"{where}: check ✗ on true {c}" for c in r.check_wrong]
        notes += [f"{where}: planted, not caught: {m}" for m in r.missed]
        notes += [f"{where}: planted, ✗ on true: {m}" for m in r.planted_true_wrong]
    return Section(
        key="truth", title="Truth bench", metrics=metrics, notes=notes, table=[r.cells() for r in rows]
    )
