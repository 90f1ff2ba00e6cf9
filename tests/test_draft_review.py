"""Issue 37, items 1-3: a model's draft is judged before it becomes the report.

Real small models (Qwen2.5-Coder 0.5B/1.5B) wrote straight from the brief, echoed their prompt, repeated
a block twice, wrote a tool call as their whole reply: each became the report. Here, against the real
loop over the scripted model server and the GitHub emulator: an echo, a bare tool call, a report from
memory are sent back ONCE, then replaced by the deterministic report (which quotes the draft's verified
sentences and says so); a block written twice is cut by the stream's guard; a draft with ✗ claims or
missing paths is given its findings once, the revision streams, and ``draft_reviewed`` says what it
corrected; a report with no read of the model's own is asked once for reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.agent.draft_checks import review
from agent_core.agent.echo import sent_lines
from agent_core.event_json import event_from_dict, event_to_dict
from agent_core.llm.degeneration import RepetitionGuard
from agent_core.repo import RepoRef
from agent_core.report.draft_words import draft_line
from agent_core.web.render import TraceView
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import JSONDict, ScriptedModelServer, Turn
from testing.linear import growth

W = {"owner": "acme", "repo": "widgets"}
SCOPE = (RepoRef(owner="acme", name="widgets"),)
BARE_CALL = '```json\n{"name": "acme/widgets", "arguments": {"path": "README.md"}}\n```'
FROM_MEMORY = (
    "# acme/widgets\n\nacme/widgets has 42 stars and is written in Python.\n\n"
    "Its entry point is `src/app/main.go`, configured by `package.json`.\n"
)
WRONG = (
    "# acme/widgets\n\nacme/widgets has 7 stars and is written in Python.\n\n"
    "The words are counted in `src/pkg/missing.py`.\n"
)
RIGHT = (
    "# acme/widgets\n\nacme/widgets has 42 stars and is written in Python.\n\n"
    "The words are counted in `src/pkg/core.py`.\n"
)


def _brief_echo(body: JSONDict) -> Turn:
    """A reply that is the brief it was sent, line for line (205 of 205 lines, as the 0.5B did)."""
    return Turn.final(str(body["messages"][1]["content"]))


# -- the four replies that are never the report -----------------------------------------------------


async def test_an_echo_of_the_brief_is_sent_back_once_then_replaced(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer(responder=_brief_echo) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        asked = server.chat_requests[1].messages[-1]["content"]
        assert len(server.chat_requests) == 2
    reviewed = run.of(ev.DraftReviewed)
    assert [r.outcome for r in reviewed] == ["revise", "replaced"]
    assert "echo" in reviewed[0].problems and "echo" in reviewed[1].problems
    assert "copied" in asked and "lines from the messages above" in asked
    done = run.finished
    assert done.writer == "fallback" and done.degraded
    assert any("a copy of its prompt" in r for r in done.degraded_reasons)
    assert "Evidence the tools gathered" not in done.report
    assert reviewed[1].kept == 0  # copied lines are not the model's sentences


def _template_echo(body: JSONDict) -> Turn:
    """The real 0.5B's last reply on pallets/click: the chat template's tools section, then the brief."""
    tools = "\n".join(json.dumps(tool) for tool in body.get("tools") or ())
    brief = str(body["messages"][1]["content"]).split("## acme/widgets", 1)[1].splitlines()[:5]
    return Turn.final(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        f"You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{tools}\n"
        "</tools>\n\n## acme/widgets\n" + "\n".join(brief)
    )


async def test_an_echo_of_the_templates_tools_and_the_brief_is_never_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer(responder=_template_echo) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        assert len(server.chat_requests) == 2
    assert [(r.outcome, "echo" in r.problems) for r in run.of(ev.DraftReviewed)] == [
        ("revise", True),
        ("replaced", True),
    ]
    assert run.finished.writer == "fallback" and "<tools>" not in run.finished.report


async def test_a_tool_call_written_as_the_whole_reply_is_never_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer([Turn.final(BARE_CALL), Turn.final(BARE_CALL)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        asked = server.chat_requests[1].messages[-1]["content"]
        server.assert_exhausted()
    assert all(e.call_id.startswith("basics-") for e in run.of(ev.ToolCallStarted))  # the prefetch's only
    assert "only JSON" in asked and "read_file" in asked
    reviewed = run.of(ev.DraftReviewed)
    assert [(r.outcome, r.problems[0]) for r in reviewed] == [
        ("revise", "tool_call"),
        ("replaced", "tool_call"),
    ]
    done = run.finished
    assert done.writer == "fallback" and '"arguments"' not in done.report
    assert any("a tool call written as text" in r for r in done.degraded_reasons)


async def test_a_block_written_twice_is_cut_at_its_second_copy(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    block = (
        "## Overview\nacme/widgets counts the words of a text and ranks them.\n"
        "It is written in Python and licensed under the MIT licence.\n"
        "The command line entry point is built with click for the terminal.\n"
    )
    turns = [
        Turn.calls(("get_repo_info", W)),
        Turn.final(f"# acme/widgets\n\n{block}\n{block}", chunk_size=16),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        server.assert_exhausted()
    done = run.finished
    assert done.report.count("ranks them") == 1 and done.writer == "model"
    assert [e.finish_reason for e in run.of(ev.TurnFinished)][-1] == "repetition"
    assert any("repeating itself" in r for r in done.degraded_reasons)


def test_the_guard_needs_a_block_of_three_lines_and_leaves_real_documents_alone() -> None:
    lines = [
        "The loop reads the model's reply as it arrives.",
        "Each tool call runs under a retry with backoff.",
        "Breakers open after repeated failures of a source.",
    ]
    three = "\n".join(lines) + "\n"
    guard = RepetitionGuard()
    guard.feed(f"# T\n\n{three}\n{three}")
    assert guard.finish() is not None and guard.found is not None
    assert (guard.found.kind, guard.found.line) == ("repeated_block", 7)
    two = "\n".join(lines[:2]) + "\n"
    guard = RepetitionGuard()
    guard.feed(f"{two}\n{two}")  # two lines said twice: a summary restated, not a loop
    assert guard.finish() is None
    root = Path(__file__).resolve().parents[1]
    for name in ("README.md", "docs/ARCHITECTURE.md", "docs/HOW_IT_WORKS.md"):
        guard = RepetitionGuard()
        guard.feed((root / name).read_text(encoding="utf-8"))
        assert guard.finish() is None, name


async def test_a_report_from_memory_is_sent_back_then_replaced_keeping_its_verified_sentences(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer([Turn.final(FROM_MEMORY), Turn.final(FROM_MEMORY)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        asked = server.chat_requests[1].messages[-1]["content"]
        server.assert_exhausted()
    first, last = run.of(ev.DraftReviewed)
    assert first.outcome == "revise" and "from_memory" in first.problems
    assert {c.claim for c in first.findings} >= {"src/app/main.go", "package.json"}
    assert "not read any file yourself" in asked and "src/app/main.go" in asked  # the findings given back
    assert last.outcome == "replaced" and last.kept == 1
    done = run.finished
    assert done.writer == "fallback"
    kept = done.report.split("## Sentences of the model's draft that the claim check verified", 1)[1]
    assert "42 stars" in kept and "main.go" not in kept and "Quoted from the model's reply" in kept


async def test_the_report_asked_for_at_a_limit_is_judged_with_no_turn_left_to_revise_it(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [Turn.calls(("get_repo_info", W)), Turn.calls(("get_file_tree", W)), Turn.final(BARE_CALL)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, max_turns=2))
        server.assert_exhausted()  # no revision: the limit was reached
    (replaced,) = run.of(ev.DraftReviewed)
    assert replaced.outcome == "replaced" and replaced.problems[0] == "tool_call"
    assert run.finished.writer == "fallback" and '"arguments"' not in run.finished.report


async def test_the_same_call_written_again_and_again_stops_exploring_after_three_turns(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The 0.5B on pallets/click wrote the same get_repo_info call as text 12 turns running (13 turns,
    930 s, until the turn limit): three turns of nothing new end the exploration."""
    call = '{"name": "get_repo_info", "arguments": {"owner": "acme", "repo": "widgets"}}'
    with ScriptedModelServer([*[Turn.final(call)] * 4, Turn.final(RIGHT)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        asked = server.chat_requests[-1].messages[-1]["content"]
        server.assert_exhausted()
    assert len(run.of(ev.ToolCallStarted)) == 4
    assert "repeated tool calls it had already made" in asked  # the report is asked for, saying why
    assert run.finished.writer == "model" and run.finished.report == RIGHT.strip()


# -- the self-check: findings given back once, the revision streamed ---------------------------------


async def test_contradicted_claims_and_missing_paths_are_given_back_once_and_the_corrections_shown(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [
        Turn.calls(("get_repo_info", W), ("get_file_tree", W)),
        Turn.final(WRONG),
        Turn.final(RIGHT, chunk_size=12),
    ]
    with ScriptedModelServer(turns) as server:  # a hosted model writes its report again
        run = await run_once(make_settings(emulator, tmp_path, server, llm_local=False))
        asked = server.chat_requests[2].messages[-1]["content"]
        server.assert_exhausted()
    assert (
        "stars: 7" in asked
        and "42" in asked
        and "src/pkg/missing.py" in asked
        and "not in the repository" in asked
    )
    sent_back, accepted = run.of(ev.DraftReviewed)
    assert sent_back.outcome == "revise" and {"contradicted", "missing_paths"} <= set(sent_back.problems)
    assert {c.claim for c in sent_back.findings} == {"stars: 7", "src/pkg/missing.py"}
    assert accepted.outcome == "accepted" and accepted.findings == ()
    assert {c.claim for c in accepted.corrected} == {"stars: 7", "src/pkg/missing.py"}
    revision = [e.text for e in run.of(ev.TextDelta) if e.turn == accepted.turn]
    assert len(revision) > 3 and "".join(revision).strip() == RIGHT.strip()  # streamed
    done = run.finished
    assert done.writer == "model" and done.report == RIGHT.strip() and done.stats.claims_contradicted == 0
    # the page and the round trip read the same event
    assert event_from_dict(event_to_dict(accepted)) == accepted
    view = TraceView()
    for event in run.events:
        view.apply(event)
    shown = str(view.messages())
    assert draft_line(accepted, "en") in shown and "src/pkg/missing.py" in shown
    assert "2 statement(s) corrected, 0 still marked wrong" in draft_line(accepted, "en")
    assert "更正了 2 处" in draft_line(accepted, "zh")


async def test_a_local_revision_that_keeps_a_wrong_claim_has_its_sentences_set_aside(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """A local model's revision that keeps its ✗ claims: the sentences holding them are set aside
    (:mod:`agent_core.agent.set_aside`), each listed in the trace, and the report says so (a hosted
    model's stay, marked where they stand: :func:`agent_core.report.claims.annotate`)."""
    turns = [Turn.calls(("get_repo_info", W), ("get_file_tree", W)), Turn.final(WRONG), Turn.final(WRONG)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        server.assert_exhausted()  # one revision, never two
    accepted = run.of(ev.DraftReviewed)[-1]
    assert accepted.outcome == "accepted" and accepted.corrected == () and accepted.findings == ()
    assert [c.claim for c in accepted.set_aside] == [
        "acme/widgets has 7 stars and is written in Python.",
        "The words are counted in `src/pkg/missing.py`.",
    ]
    assert run.finished.writer == "model" and run.finished.stats.claims_contradicted == 0
    report = run.finished.report or ""
    assert "7 stars" not in report and "missing.py" not in report
    assert "set aside 2 statement(s)" in report and "; 2 statement(s) set aside" in draft_line(accepted, "en")
    assert "另有 2 处说法被搁置" in draft_line(accepted, "zh")


async def test_a_local_model_corrects_its_wrong_sentences_in_place_and_the_draft_stays_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """A local model is given its wrong sentences back, numbered, and replies one line each (the real
    1.5B took ~70 s to write a whole report again, and the report's first word came at 95-145 s): the
    lines take the sentences' places, the draft that streamed as the report stays the report, and the
    correction streams into the trace (as reasoning), not into the report pane."""
    draft = (
        "# acme/widgets\n\n"
        "- acme/widgets has 7 stars and is written in Python.\n"
        "- The words are counted in `src/pkg/missing.py`.\n"
        "- It has a README.\n"
    )
    fixes = "1. acme/widgets has 42 stars and is written in Python.\n2. DROP\n"
    turns = [Turn.calls(("get_repo_info", W), ("get_file_tree", W)), Turn.final(draft), Turn.final(fixes)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        asked = server.chat_requests[2].messages[-1]["content"]
        server.assert_exhausted()
    assert '1. "acme/widgets has 7 stars and is written in Python.": the observations show' in asked
    assert '2. "The words are counted in `src/pkg/missing.py`.": src/pkg/missing.py is not in' in asked
    assert "DROP" in asked
    sent_back, accepted = run.of(ev.DraftReviewed)
    assert sent_back.outcome == "revise" and accepted.outcome == "accepted"
    assert {c.claim for c in accepted.corrected} == {"stars: 7", "src/pkg/missing.py"}
    assert accepted.set_aside == ()
    assert run.finished.report == (
        "# acme/widgets\n\n- acme/widgets has 42 stars and is written in Python.\n- It has a README."
    )
    revising = [e for e in run.of(ev.TurnStarted) if e.purpose == "revise"]
    assert [e.turn for e in revising] == [accepted.turn]
    assert not [e for e in run.of(ev.TextDelta) if e.turn == accepted.turn]  # the pane keeps the draft
    assert "DROP" in "".join(e.text for e in run.of(ev.ReasoningDelta) if e.turn == accepted.turn)
    view = TraceView()
    for event in run.events:
        view.apply(event)
    assert "Correcting its report" in str(view.messages())


async def test_a_local_draft_wrong_only_in_a_drawn_tree_is_taken_without_a_revision(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B redrew gson's tree for 88 s when its branches were given back, and drew it wrong
    again: a tree is no sentence to correct. The block is set aside whole, and no turn is spent."""
    tree = "```\nwidgets/\n├── src/\n│   └── pkg/\n│       └── missing.py\n```\n"
    turns = [Turn.calls(("get_repo_info", W), ("get_file_tree", W)), Turn.final(f"{RIGHT}\n{tree}")]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        server.assert_exhausted()
    (trimmed,) = run.of(ev.DraftReviewed)
    assert trimmed.outcome == "trimmed" and len(trimmed.set_aside) == 1
    assert "missing.py" in trimmed.set_aside[0].claim
    report = run.finished.report or ""
    assert report.startswith(RIGHT.strip()) and "missing.py" not in report and "├──" not in report


# -- the model explores: a report with no read of its own is asked once for reads --------------------


async def test_a_report_from_the_brief_alone_is_asked_once_for_reads(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [
        Turn.final(RIGHT),
        Turn.calls(("read_file", {**W, "path": "src/pkg/core.py"})),
        Turn.final(RIGHT),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        asked = server.chat_requests[1].messages[-1]["content"]
        server.assert_exhausted()
    assert "Plan 2 to 4 reads" in asked
    (reviewed,) = run.of(ev.DraftReviewed)
    assert reviewed.outcome == "read_first" and reviewed.problems == ("no_reads",)
    assert [e.tool for e in run.of(ev.ToolCallStarted)][-1] == "read_file"
    assert run.finished.writer == "model" and not run.finished.degraded


async def test_a_model_that_will_not_read_keeps_a_grounded_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer([Turn.final(RIGHT), Turn.final(RIGHT)]) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        server.assert_exhausted()
    assert [r.outcome for r in run.of(ev.DraftReviewed)] == ["read_first"]
    assert run.finished.writer == "model" and run.finished.report == RIGHT.strip()


# -- the judgement itself ------------------------------------------------------------------------------


def test_a_revision_repeating_its_own_draft_or_quoting_a_tool_result_is_not_an_echo() -> None:
    sent = [
        {"role": "system", "content": "You are an analyst."},
        {"role": "assistant", "content": RIGHT},
        {"role": "tool", "tool_call_id": "1", "content": RIGHT},
    ]
    assert "acme/widgets has 42 stars and is written in python." not in sent_lines(sent)
    assert "acme/widgets has 42 stars and is written in python." in sent_lines(
        [{"role": "user", "content": RIGHT}]
    )
    found = review(RIGHT, sent=sent, own_calls=1, scope=SCOPE, results=())
    assert found.problems == () and not found.unfit


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_judging_a_draft_is_linear_in_its_size() -> None:
    def judged(text: str) -> None:
        review(text, sent=[{"role": "user", "content": text}], own_calls=0, scope=SCOPE, results=())

    for make in (
        lambda n: "{" * n,
        lambda n: "".join(f"A line that is long enough, number {i}.\n" for i in range(n // 40)),
        lambda n: "```json\n" + '{"a": [' * (n // 8),
    ):
        measured = growth(judged, make, start=5_000, factor=4)
        assert measured.linear(), str(measured)


# -- what the model is given to explore: the brief's scope, the plan, one worked example ---------------

BADGES = "".join(
    f"[![{name}](https://img.shields.io/badge/{name}-passing-green.svg)](https://example.com/{name})\n"
    for name in (
        "build",
        "coverage",
        "pypi",
        "python",
        "license",
        "docs",
        "chat",
        "downloads",
        "style",
        "security",
    )
)
BADGED = {
    "README.md": f'<p align="center"><img src="logo.png" width="200"></p>\n\n{BADGES}\n# beads\n\n'
    "Beads counts the beads of an abacus and prints the total for each rod.\n\n"
    "```python\nimport beads\n```\n\nIt reads the rods from a file or from standard input, one rod a line.\n",
    "pyproject.toml": '[project]\nname = "beads"\nversion = "1.0"\n',
    "src/beads/count.py": "def count(rod):\n    return len(rod)\n",
    "tests/test_count.py": "def test_count():\n    assert True\n",
    ".github/workflows/ci.yml": "on: push\njobs: {}\n",
}


async def test_the_brief_quotes_the_readmes_prose_and_says_what_it_did_not_read(tmp_path: Path) -> None:
    assert len(BADGES) > 900  # the README: 1,151 characters of badges before any prose
    root = make_repo(tmp_path / "beads", BADGED)
    with GitHubEmulator() as emu, ScriptedModelServer([Turn.final(RIGHT)] * 2) as server:
        emu.add_repo("acme/beads", root, license="MIT")
        settings = make_settings(emu, tmp_path / "cache", server, prefetch=True, tool_protocol="text")
        await run_once(settings, "", target="acme/beads")
        system, brief = (m["content"] for m in server.chat_requests[0].messages[:2])
    readme = brief.split("----- README.md", 1)[1].split("----- end of README.md", 1)[0]
    assert "Beads counts the beads of an abacus" in readme and "one rod a line" in readme
    assert "shields.io" not in readme and "<img" not in readme and "import beads" not in readme
    assert "This brief covers:" in brief and "README.md" in brief.split("This brief covers:", 1)[1]
    unread = brief.split("Not read yet: ", 1)[1].split("\n", 1)[0]
    assert "src/" in unread and "tests/" in unread and ".github/workflows/ci.yml" in unread
    assert "Open questions only reads can answer" in brief
    assert "plan your reads" in system
    assert "do not ask for those again" in system and "Start with get_repo_info" not in system
    example = system.split("Example of one step", 1)[1]
    assert "Action: read_file" in example and '"owner": "acme", "repo": "beads"' in example
