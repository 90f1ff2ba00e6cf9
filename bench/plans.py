"""The scripted analyses every section runs, the repositories they read, and one way to run them.

* :func:`realistic_plan`: repo info + tree, then README + manifest + commits in parallel, then the report.
* :func:`wide_plan`: repo info + tree, then 25 files read 5 at a time over 5 turns, then the report.
* :func:`sample_repo` / :func:`wide_repo`: the git repositories served as ``acme/widgets``.
* :func:`plan_responder`: answers a request with the plan's turn for its position in the conversation
  (stateless, so concurrent sessions can share one model server), with ``usage`` metered from what was
  actually received, like a real API reports it.
* :func:`run_plan`: one full analysis (the real loop, client and SDK) over the emulator and model server.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_core import events as ev
from agent_core.agent.brief import HEADER as BRIEF_HEADER
from agent_core.llm import estimate_messages
from agent_core.llm.tokens import estimate_tokens
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo, sample_python_project
from testing.emulator.model_server import RecordedRequest, Responder, ScriptedModelServer, Turn

REPO = "acme/widgets"
W = {"owner": "acme", "repo": "widgets"}
WIDE_FILES = 25

REPORT = """# acme/widgets

## Overview
`wordstats` counts and ranks the words of a text ([README](https://github.com/acme/widgets/blob/main/README.md)).
It is a small Python package (`src/pkg`) with a command-line entry point and no service components.

## Tech stack
- Python ≥ 3.10, packaged with setuptools ([pyproject.toml](https://github.com/acme/widgets/blob/main/pyproject.toml)).
- Runtime dependencies: `click` and `rich`, pinned in `requirements.txt`.
- Tests with pytest, run by GitHub Actions on every push.

## Activity
Eight commits by three authors between January and February 2024; the latest is "Release 0.2.0".
Development is recent but small; there are no open questions in the history.

## Assessment
A tidy, well-tested utility. Worth adopting for small text-processing jobs; for large corpora, check
its memory use first, since it reads whole files at once.
"""


def realistic_plan(full_name: str = REPO) -> list[Turn]:
    """A typical analysis of ``full_name`` (the sample project under any name): metadata and structure,
    then docs, manifest and activity, then the report (which starts with ``# {full_name}``)."""
    owner, _, name = full_name.partition("/")
    where = {"owner": owner, "repo": name}
    return [
        Turn.calls(
            ("get_repo_info", where), ("get_file_tree", where), reasoning="Metadata and structure first."
        ),
        Turn.calls(
            ("read_file", {**where, "path": "README.md"}),
            ("read_file", {**where, "path": "pyproject.toml"}),
            ("get_commits", {**where, "per_page": 20}),
            reasoning="The README, the manifest and recent activity, all at once.",
        ),
        Turn.final(
            REPORT.replace(REPO, full_name), reasoning="Enough evidence for the report.", usage=(4_800, 650)
        ),
    ]


def wide_files() -> list[str]:
    """The 25 paths the wide plan reads (all present in :func:`wide_repo`)."""
    modules = [f"src/widgets/{name}.py" for name in _MODULES]
    tests = [f"tests/test_{name}.py" for name in _MODULES[:8]]
    return ["README.md", "pyproject.toml", *modules, *tests][:WIDE_FILES]


def wide_plan() -> list[Turn]:
    """An analysis that reads widely: after the tree, 25 files, 5 per turn, then the report."""
    files = wide_files()
    reads = [
        Turn.calls(
            *(("read_file", {**W, "path": path}) for path in files[i : i + 5]),
            reasoning=f"Reading files {i + 1}-{i + 5} of {len(files)}.",
        )
        for i in range(0, len(files), 5)
    ]
    return [
        Turn.calls(("get_repo_info", W), ("get_file_tree", W), reasoning="Metadata and structure first."),
        *reads,
        Turn.final(REPORT, reasoning="Enough evidence for the report.", usage=(61_000, 900)),
    ]


def sample_repo(folder: Path) -> Path:
    return sample_python_project(folder / "widgets")


_VERBS = ["load", "save", "parse", "render", "check", "merge", "split", "count", "rank", "find"]
_NOUNS = ["record", "batch", "token", "window", "frame", "entry", "table", "source", "target", "report"]
_MODULES = [f"{noun}_{layer}" for layer in ("model", "store", "view") for noun in _NOUNS][:24]


def _module_text(name: str, rng: random.Random, size: int) -> str:
    """A plausible Python module of about ``size`` characters (deterministic for a given ``rng``)."""
    lines = [f'"""The {name} layer of widgets: {rng.choice(_VERBS)} and {rng.choice(_VERBS)} data."""', ""]
    lines += [
        "from __future__ import annotations",
        "",
        "import logging",
        "",
        "log = logging.getLogger(__name__)",
    ]
    while sum(len(line) + 1 for line in lines) < size:
        verb, noun, other = rng.choice(_VERBS), rng.choice(_NOUNS), rng.choice(_NOUNS)
        limit = rng.randint(2, 500)
        lines += [
            "",
            "",
            f"def {verb}_{noun}({noun}: dict[str, int], *, limit: int = {limit}) -> list[str]:",
            f'    """{verb.capitalize()} the {noun} into {other} values, at most ``limit`` of them."""',
            "    out: list[str] = []",
            f"    for key, value in sorted({noun}.items()):",
            "        if len(out) >= limit:",
            f'            log.debug("{name}: {verb}_{noun} stopped at %d", limit)',
            "            break",
            f'        out.append(f"{{key}}={{value * {rng.randint(2, 9)}}}")',
            "    return out",
        ]
    return "\n".join(lines) + "\n"


def wide_repo(folder: Path, *, seed: int, file_chars: int = 9_000) -> Path:
    """A Python project with 24 modules and 8 test files of about ``file_chars`` characters each."""
    rng = random.Random(seed)
    files: dict[str, str] = {
        "README.md": "# widgets\n\nA toolkit of small data helpers.\n\n" + "Usage notes. " * 200,
        "pyproject.toml": '[project]\nname = "widgets"\nversion = "1.4.0"\nrequires-python = ">=3.11"\n',
        "LICENSE": "MIT License\n",
    }
    for name in _MODULES:
        files[f"src/widgets/{name}.py"] = _module_text(name, rng, file_chars)
    for name in _MODULES[:8]:
        files[f"tests/test_{name}.py"] = _module_text(f"test_{name}", rng, file_chars)
    return make_repo(folder / "wide-widgets", files)


def plan_responder(turns: Sequence[Turn], *, metered: bool = True) -> Responder:
    """Answer each request with ``turns[n]``, n = assistant messages already in it. ``metered`` replaces
    the scripted usage by the project's own estimate of what the request carried (prompt: the messages
    and, as real APIs count them, the tool schemas) and of the turn's text (completion).

    Like a model that reads before it asks, the plan skips what the evidence brief of its first message
    already answered (with prefetch on): those calls are dropped, and turns left with none."""

    def respond(body: dict[str, Any]) -> Turn:
        messages = list(body.get("messages", []))
        answered: int = sum(m.get("role") == "assistant" for m in messages)
        brief = next((str(m.get("content")) for m in messages if m.get("role") == "user"), "")
        plan = _unanswered(turns, brief)
        turn = plan[min(answered, len(plan) - 1)]  # asked again (for reads, a revision): the same report
        if not metered:
            return turn
        said = turn.content + turn.reasoning + "".join(c.name + c.arguments for c in turn.tool_calls)
        prompt = (
            estimate_messages(messages) + estimate_tokens(json.dumps(body["tools"]))
            if body.get("tools")
            else estimate_messages(messages)
        )
        return replace(turn, usage=(prompt, estimate_tokens(said)))

    return respond


def _unanswered(turns: Sequence[Turn], brief: str) -> list[Turn]:
    """The plan without the calls the brief answered (by tool, and path for files)."""
    if BRIEF_HEADER not in brief:
        return list(turns)
    plan = []
    for turn in turns:
        if not turn.tool_calls:
            plan.append(turn)
            continue
        left = tuple(
            c for c in turn.tool_calls if not _in_brief(c.name, json.loads(c.arguments or "{}"), brief)
        )
        if left:
            plan.append(replace(turn, tool_calls=left))
    return plan


def _in_brief(tool: str, arguments: dict[str, Any], brief: str) -> bool:
    if tool == "read_file":
        return f"----- {arguments.get('path')} (" in brief
    return {
        "get_repo_info": "Repository: ",
        "get_file_tree": "Files: ",
        "get_commits": "Recent commits: ",
    }.get(tool, "\0") in brief


@contextmanager
def widgets(repo: Path, *, latency: float) -> Iterator[GitHubEmulator]:
    """A GitHub emulator serving ``repo`` as ``acme/widgets`` with ``latency`` seconds per request."""
    with GitHubEmulator() as emu:
        emu.add_repo(REPO, repo, description="Count words, fast.", stars=42, topics=["text"])
        emu.latency(latency)
        yield emu


@dataclass(frozen=True)
class PlanRun:
    events: list[ev.Event]
    chat_requests: list[RecordedRequest]

    @property
    def finished(self) -> ev.RunFinished:
        last = self.events[-1]
        assert isinstance(last, ev.RunFinished), last
        return last


async def run_plan(
    emu: GitHubEmulator,
    turns: Sequence[Turn],
    cache: Path,
    *,
    model_latency: float,
    strict: bool = True,
    **settings: Any,
) -> PlanRun:
    """One full analysis of ``acme/widgets`` answered by ``turns``; ``settings`` override Settings fields
    (``cache`` is the persistent HTTP cache: reuse it for a warm run, a new folder for a cold one).
    ``strict``: the run must end as planned (the model's report after exactly ``turns`` turns of the model;
    the app's own evidence turns, the prefetch's, the reads the claim check needs and a draft sent back
    once by the app's judge, are not the plan's)."""
    responder = plan_responder(turns)
    with ScriptedModelServer(responder=responder, default_latency=model_latency) as server:
        run = await run_once(make_settings(emu, cache.parent, server, cache_dir=cache, **settings))
        if server.errors:
            raise RuntimeError(f"the model server saw unexpected requests: {server.errors}")
        done = PlanRun(events=run.events, chat_requests=server.chat_requests)
    model_turns = sum(1 for e in done.events if isinstance(e, ev.TurnStarted) and e.purpose != "prefetch")
    # a draft the app's judge sent back once (a revision, or reads first) costs one turn the plan never had
    sent_back = sum(
        1 for e in done.events if isinstance(e, ev.DraftReviewed) and e.outcome in ("revise", "read_first")
    )
    if strict and (model_turns - sent_back != len(turns) or done.finished.writer != "model"):
        raise RuntimeError(f"the run did not follow its plan: {done.finished.stats}")
    return done
