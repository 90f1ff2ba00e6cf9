"""Issue 37 item 1, as the real 1.5B needs it: the model is given files to read by their paths.

The real Qwen2.5-Coder-1.5B, told "a key source file, a test, the CI configuration", wrote its report
from the brief, and again after being asked once for reads (fmtlib/fmt: 0 tool calls of its own). Here,
over the scripted model server and the GitHub emulator: the brief names files from the tree worth
reading (source, a test, a CI workflow), and the one request for reads names them with a call to copy;
a model that copies that call (as the small models do, as JSON in its text) has it run as its own read.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from agent_core import events as ev
from agent_core.agent.brief import suggested_reads
from agent_core.agent.draft_checks import review, without_requests
from agent_core.agent.progress import StreamCut
from agent_core.llm.content_calls import calls_in_content
from agent_core.repo import RepoRef
from agent_core.report.facts import build_facts, gather
from agent_core.sources.models import FileTree, RepoInfo, TreeEntry
from agent_core.tools.registry import TOOL_NAMES
from agent_core.tools.results import ToolResult
from agent_core.words import t, words_for
from testing.analysis import make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import JSONDict, ScriptedModelServer, Turn

REPORT = (
    "# acme/widgets\n\nacme/widgets has 42 stars and is written in Python.\n\n"
    "The words are counted in `src/pkg/core.py`.\n"
)
EXAMPLE = re.compile(r"read_file with (\{.*?\})\.")


def _copies_the_example(body: JSONDict) -> Turn:
    """A small model: writes its report from the brief; told to read, writes the example call as fenced
    JSON in its text (no native call); after a read, the report again."""
    messages = body["messages"]
    if any(m.get("role") == "tool" for m in messages):
        return Turn.final(REPORT)
    found = EXAMPLE.search(str(messages[-1].get("content", ""))) if messages[-1]["role"] == "user" else None
    if found and len(messages) > 2:
        call = {"name": "read_file", "arguments": json.loads(found.group(1))}
        return Turn.final(f"```json\n{json.dumps(call)}\n```")
    return Turn.final(REPORT)


async def test_the_brief_and_the_request_for_reads_name_files_from_the_tree(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer(responder=_copies_the_example) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        brief = str(server.chat_requests[0].messages[1]["content"])
        asked = str(server.chat_requests[1].messages[-1]["content"])
        sent = server.chat_requests[1].messages
    # the draft from the brief is not in the request for reads (the real 1.5B wrote it again after them,
    # and a note in its place became its report)
    assert [m["role"] for m in sent] == ["system", "user", "user"]
    named = brief.split("Files worth reading first (paths for read_file): ", 1)[1].split(".\n", 1)[0]
    assert named.split(", ") == ["src/pkg/core.py", "tests/test_core.py", ".github/workflows/ci.yml"]
    assert "Files worth reading, from the tree: src/pkg/core.py, tests/test_core.py" in asked
    (reviewed,) = run.of(ev.DraftReviewed)
    assert reviewed.outcome == "read_first"
    reads = [e for e in run.of(ev.ToolCallStarted) if not e.call_id.startswith("basics-")]
    assert [(e.tool, e.arguments["path"]) for e in reads] == [("read_file", "src/pkg/core.py")]
    finished = [e for e in run.of(ev.ToolCallFinished) if e.call_id == reads[0].call_id]
    assert finished[0].ok
    assert run.finished.writer == "model" and run.finished.report == REPORT.strip()


def _suggested(entries: list[tuple[str, int]], language: str | None) -> tuple[str, ...]:
    repo = RepoRef(owner="o", name="r")
    tree = FileTree(
        ref="HEAD", path="", entries=tuple(TreeEntry(path=p, type="file", size=s) for p, s in entries)
    )
    info = RepoInfo(
        full_name="o/r", description=None, default_branch="main", html_url=None, language=language
    )
    results = [
        ToolResult(
            call_id="1", tool="get_repo_info", arguments={}, ok=True, observation={}, value=info, repo=repo
        ),
        ToolResult(
            call_id="2", tool="get_file_tree", arguments={}, ok=True, observation={}, value=tree, repo=repo
        ),
    ]
    return suggested_reads(build_facts(gather(repo, results, words_for("en"))))


def test_the_files_suggested_are_the_primary_languages_source_a_test_and_a_workflow() -> None:
    """fmtlib/fmt's shape: a C++ project whose headers read as C by their name, a Python helper of its
    docs tooling that is an entry point by name; a workflow folder holding a non-workflow file."""
    entries = [
        ("support/python/handler/__init__.py", 9_000),
        ("include/fmt/format.h", 150_000),
        ("include/fmt/base.h", 110_000),
        ("src/os.cc", 12_000),
        ("test/format-test.cc", 100_000),
        ("test/gtest/gtest.h", 900_000),
        ("test/unit/deep/x-test.cc", 200_000),
        (".github/workflows/CODEOWNERS", 100),
        (".github/workflows/linux.yml", 2_000),
        ("CMakeLists.txt", 5_000),
    ]
    assert _suggested(entries, "C++") == (
        "include/fmt/format.h",
        "include/fmt/base.h",
        "test/format-test.cc",
        ".github/workflows/linux.yml",
    )
    assert _suggested([("README.md", 10)], "C++") == ()  # no code: nothing to suggest


async def test_a_local_model_that_read_one_file_is_asked_once_for_more(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B read include/fmt/format.h and wrote of fmt's tests and CI: a local model after the
    brief is asked once for more reads, named by path without the file it read."""
    turns = [
        Turn.calls(("read_file", {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"})),
        Turn.final(REPORT),
        Turn.calls(("read_file", {"owner": "acme", "repo": "widgets", "path": "tests/test_core.py"})),
        Turn.final(REPORT),
    ]
    with ScriptedModelServer(turns) as server:  # on loopback: a local endpoint
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        asked = str(server.chat_requests[2].messages[-1]["content"])
        server.assert_exhausted()
    (reviewed,) = run.of(ev.DraftReviewed)
    assert reviewed.outcome == "read_first" and reviewed.problems == ("few_reads",)
    assert "you have read only 1 file(s) yourself" in asked
    assert "Files worth reading, from the tree: tests/test_core.py, .github/workflows/ci.yml." in asked
    assert run.finished.writer == "model" and run.finished.report == REPORT.strip()


async def test_one_read_is_enough_without_a_brief(emulator: GitHubEmulator, tmp_path: Path) -> None:
    turns = [
        Turn.calls(("read_file", {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"})),
        Turn.final(REPORT),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=False))
        server.assert_exhausted()
    assert not run.of(ev.DraftReviewed) and run.finished.writer == "model"


async def test_an_empty_reply_is_answered_so_the_next_request_is_not_the_same(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B answered a failed read with one end-of-text token; sent the same request again (its
    one retry, then every turn to the limit) it answered the same. Told, it can write the report."""
    missing = {"owner": "acme", "repo": "widgets", "path": "src/pkg/missing.py"}
    core = {**missing, "path": "src/pkg/core.py"}
    turns = [
        Turn.calls(("read_file", core)),
        Turn.calls(("read_file", missing)),
        Turn.final(""),
        Turn.final(""),
        Turn.final(REPORT),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        server.assert_exhausted()
        last = server.chat_requests[-1].messages[-1]
    assert last == {"role": "user", "content": t("to_model_empty_reply", "en")}
    assert any("reply was empty" in n.message for n in run.of(ev.Notice))
    assert run.finished.writer == "model" and run.finished.report == REPORT.strip()


def test_a_call_followed_by_an_invented_tool_response_is_the_call() -> None:
    """The real 1.5B's last reply on fmtlib/fmt: a call, then the template's result tag and a file it had
    read before (cut at 768 tokens); it was taken as the report."""
    call = {"name": "read_file", "arguments": {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"}}
    invented = (
        '<tool_response>\n{"path":"tests/test_core.py","kind":"file","text":"# tests\\n' + "x = 1\\n" * 200
    )
    reply = f"{json.dumps(call)}\n{invented}"
    (found,) = calls_in_content(reply, TOOL_NAMES)
    assert found.tool == "read_file" and json.loads(str(found.arguments))["path"] == "src/pkg/core.py"
    assert calls_in_content(f"# Report\n\n{invented}", TOOL_NAMES) == []
    judged = review(f"# Report\n\nIt counts words.\n{invented}", sent=[], own_calls=2, scope=(), results=())
    assert "tool_call" in judged.problems and judged.unfit


async def test_a_report_wrapped_whole_in_a_fence_is_unwrapped(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B's google/gson report was one ``` block: shown as code on the page, not as a report."""
    read = {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"}
    turns = [Turn.calls(("read_file", read)), Turn.final(f"```\n{REPORT}```")]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server))
        server.assert_exhausted()
    assert run.finished.report == REPORT.strip()


def test_a_tool_named_in_words_is_the_tool() -> None:
    """The real 0.5B on fmtlib/fmt wrote {"name": "Read File", ...} twice running; both were judged a
    bare JSON reply and the deterministic report replaced them."""
    reply = '```json\n{"name": "Read File", "arguments": {"owner": "o", "repo": "r", "path": "a.py"}}\n```'
    (found,) = calls_in_content(reply, TOOL_NAMES)
    assert found.tool == "read_file"
    assert calls_in_content('{"name": "Read Everything", "arguments": {}}', TOOL_NAMES) == []


# -- time earned: a local model's report begins within a minute -------------------------------------

BIG = "".join(f"def step_{i}(x):\n    return x + {i}\n\n" for i in range(2000))  # ~70,000 characters


def _measured(turn: Turn) -> Turn:
    """``turn`` with the server's prompt progress: 3,000 fresh tokens in 75 s, 40 tokens/s."""
    return replace(turn, prompt_progress=((0, 3000, 0), (3000, 3000, 75_000)), usage=(3000, 20))


async def test_a_local_models_reads_are_cut_to_its_share_of_the_minute(tmp_path: Path) -> None:
    """At 40 prompt tokens/s a 70,000-character file is 30 minutes of reading for the real 1.5B on two
    cores: each observation it asked for gets its share of the time left before its report is due (at
    most 15 s of reading: 600 tokens), said so in the observation; the trace keeps the whole result."""
    repo = make_repo(tmp_path / "big", {"README.md": "# big\n\nSteps.\n", "src/steps.py": BIG})
    steps = {"owner": "acme", "repo": "big", "path": "src/steps.py"}
    readme = {**steps, "path": "README.md"}
    turns = [
        _measured(Turn.calls(("read_file", steps))),
        Turn.calls(("read_file", readme)),
        Turn.final(REPORT),
    ]
    with GitHubEmulator() as emu, ScriptedModelServer(turns) as server:  # on loopback: a local endpoint
        emu.add_repo("acme/big", repo)
        run = await run_once(make_settings(emu, tmp_path, server, prefetch=False), target="acme/big")
        server.assert_exhausted()
        seen = [m for m in server.chat_requests[1].messages if m["role"] == "tool"]
    (observation,) = seen
    assert (
        len(observation["content"]) <= 600 * 3 + 100
        and "observation cut for the model" in observation["content"]
    )
    assert "def step_0(x)" in observation["content"]  # the file's head
    finished = next(e for e in run.of(ev.ToolCallFinished) if e.tool == "read_file")
    assert finished.ok and "more characters" in finished.preview  # the page shows its own preview
    assert run.finished.writer == "model"


async def test_a_report_begun_before_the_reads_is_stopped_at_its_heading(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B read one file, then wrote a whole draft (380 tokens, 78 s on two cores) only to have
    it sent back for reads: a local model's report begun before its reads are in is stopped at its first
    heading, and it is asked for the reads at once."""
    core = {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"}
    test = {**core, "path": "tests/test_core.py"}
    long_draft = "# acme/widgets\n\n" + "The words are counted, one by one, with care. " * 200
    turns = [
        Turn.calls(("read_file", core)),
        Turn.final(long_draft, chunk_size=4),
        Turn.calls(("read_file", test)),
        Turn.final(REPORT),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        server.assert_exhausted()
        sent = server.chat_requests[2].messages
    second = sorted({e.turn for e in run.of(ev.TextDelta)})[0]
    written = "".join(e.text for e in run.of(ev.TextDelta) if e.turn == second)
    assert written.startswith("# ") and len(written) < 40  # stopped at the heading, not 9,000 characters
    assert any("stopped it at its first heading" in n.message for n in run.of(ev.Notice))
    (reviewed,) = run.of(ev.DraftReviewed)
    assert reviewed.outcome == "read_first" and reviewed.problems == ("few_reads",)
    assert not any("one by one" in str(m.get("content")) for m in sent)  # the cut draft is not sent back
    assert run.finished.writer == "model" and run.finished.report == REPORT.strip()


def test_a_report_starts_at_a_heading_not_at_a_call_and_calls_are_counted_whole() -> None:
    def first_cut(pieces: list[str], **rules: object) -> tuple[int, str] | None:
        cut = StreamCut(**rules)  # type: ignore[arg-type]
        return next(((i, r) for i, piece in enumerate(pieces) if (r := cut(piece)) is not None), None)

    assert first_cut(["I will read it.\n", "#", "# Over", "view"]) == (2, "cut_report")
    assert first_cut(['```json\n{"name": "read_file"}\n```\n', "# Overview"]) is None  # a call first
    assert first_cut(["#include <x>\n", "a # b"]) is None  # a C include, a hash mid-line
    assert first_cut(["####### seven"]) is None
    assert first_cut(["# Overview"], report=False) is None
    call = '{"name": "read_file", "arguments": {"path": "a}{\\"b.py"}}'  # braces and a quote in a string
    assert first_cut([call[:20], call[20:], "\n", call], calls=2) == (3, "cut_calls")
    assert first_cut([call, "\n", call[:-1]], calls=2) is None  # the second call is not complete yet
    assert first_cut([call], calls=1, report=True) == (0, "cut_calls")
    assert first_cut(["```json\n", call], calls=1) == (1, "cut_calls")
    assert first_cut(["``` \n\n", call], calls=1) == (1, "cut_calls")
    assert first_cut(["GITHUB_TOKEN=${GITHUB_TOKEN}", call], calls=1) is None  # a report's braces
    assert first_cut(["I will read it: ", call], calls=1) is None
    assert first_cut(["```json\n", "{", '"name"'], calls=0) == (1, "cut_time")  # no call allowed
    assert first_cut(["# Report\n", call], calls=0, report=False) is None
    asked: list[bool] = []

    def over() -> bool:
        asked.append(True)
        return True

    late = first_cut(["```json\n", call], calls=1, over=over)
    assert late == (1, "cut_time") and asked == [True]  # asked as the call opens, once
    assert first_cut([call], calls=1, over=lambda: False) == (0, "cut_calls")


async def test_a_local_models_calls_stop_once_its_due_reads_are_asked(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B wrote eight calls in one reply (381 tokens: 43 s on two cores) and read each in a
    sliver: once the two reads due are asked for, its reply stops; it can ask for more afterwards."""
    paths = ["src/pkg/core.py", "tests/test_core.py", ".github/workflows/ci.yml", "README.md", "LICENSE"]
    written = "\n".join(
        json.dumps({"name": "read_file", "arguments": {"owner": "acme", "repo": "widgets", "path": p}})
        for p in paths
    )
    turns = [Turn.final(f"```json\n{written}\n```", chunk_size=5), Turn.final(REPORT)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        server.assert_exhausted()
    own = [e.arguments["path"] for e in run.of(ev.ToolCallStarted) if not e.call_id.startswith("basics-")]
    assert own == paths[:2]
    assert any("asked for 2 read(s); stopped it there" in n.message for n in run.of(ev.Notice))
    assert run.finished.writer == "model" and not run.of(ev.DraftReviewed)


async def test_calls_then_a_tool_result_the_model_wrote_itself_are_never_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B's revision on fmtlib/fmt: five calls it had made already, then a file tree copied from
    an observation (ending in the app's own "observation cut" note), accepted as its report."""
    core = {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"}
    test = {**core, "path": "tests/test_core.py"}
    calls = "\n".join(json.dumps({"name": "read_file", "arguments": a}) for a in (core, test))
    copied = '{"name": "read_file", "arguments": {"path": "/","files":9, "top_level": [' + "x" * 500
    copied += "… [observation cut for the model: 4,691 more characters not shown]\n```\nobj['report']\n```"
    judged = review(f"{calls}\n{copied}", sent=[], own_calls=2, scope=(), results=())
    assert "tool_call" in judged.problems and judged.unfit  # never the report, whoever wrote it
    # Asked to correct its wrong sentences, a local model that writes calls instead is stopped at the
    # first one as it streams: nothing of it is spliced in, and the wrong sentence is set aside.
    turns = [
        Turn.calls(("read_file", core), ("read_file", test)),
        Turn.final(REPORT + "\nIt depends on `leftpad-native`; see `docs/missing.md`.\n"),
        Turn.final(f"{calls}\n{copied}"),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        server.assert_exhausted()
    revising = [e.turn for e in run.of(ev.TurnStarted) if e.purpose == "revise"]
    cut = [e for e in run.of(ev.TurnFinished) if e.turn in revising]
    assert [e.finish_reason for e in cut] == ["cut_time"]
    sent_back, accepted = run.of(ev.DraftReviewed)
    assert (sent_back.outcome, accepted.outcome) == ("revise", "accepted")
    assert [c.claim for c in accepted.set_aside] == ["It depends on `leftpad-native`; see `docs/missing.md`."]
    report = run.finished.report or ""
    assert run.finished.writer == "model" and report.startswith(REPORT.strip())
    assert "leftpad" not in report and "read_file" not in report


async def test_a_local_model_is_stopped_before_a_tool_response_it_would_invent(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    with ScriptedModelServer([Turn.final(REPORT)]) as server:
        await run_once(make_settings(emulator, tmp_path, server))
        body = server.chat_requests[0].body or {}
    assert body.get("stop") == ["<tool_response>"]  # a server of the user's own (on loopback)


async def test_a_local_models_dependencies_declared_nowhere_are_given_back_with_its_wrong_claims(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B wrote that fmt "depends on `fmt`, `mock-allocator` and `util`": the repository
    itself and names of its own code. In a revision its ✗ claims ask for, a local model is also told of
    its dependencies no manifest read declares, and of the repository's own name in a list of them (not ✗
    for the reader); alone they ask for none (a revision cost the real 1.5B 74 s, and it kept the name):
    the sentence naming them is set aside."""
    core = {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"}
    test = {**core, "path": "tests/test_core.py"}
    deps = "\n## Tech stack\n\nIt depends on `click`, `widgets` and `wordcounter-native`.\n"
    draft = REPORT + deps + "Its guide is `docs/missing.md`.\n"
    turns = [
        Turn.calls(("read_file", core), ("read_file", test)),
        Turn.final(draft),
        Turn.final("1. It depends on `click` (pyproject.toml).\n2. DROP\n"),  # one line per sentence
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        server.assert_exhausted()
        asked = str(server.chat_requests[2].messages[-1]["content"])
    revise, accepted = run.of(ev.DraftReviewed)
    assert revise.outcome == "revise" and {"missing_paths", "unconfirmed"} <= set(revise.problems)
    named = {c.claim for c in revise.findings}
    assert named == {"docs/missing.md", "widgets", "wordcounter-native"}  # click is declared: no finding
    assert "widgets is the repository itself, not one of its dependencies" in asked
    # listed after "depends on" with every manifest read: declared nowhere is ✗, not only unconfirmed
    assert "; the observations show not among the dependencies in pyproject.toml" in asked
    assert '2. "Its guide is `docs/missing.md`.": docs/missing.md is not in the repository' in asked
    assert accepted.outcome == "accepted" and {c.claim for c in accepted.corrected} == named
    assert "It depends on `click` (pyproject.toml).\n" in (run.finished.report or "")
    checked = run.of(ev.ClaimsChecked)[-1]
    assert not any(c.verdict == "contradicted" for c in checked.claims)

    kept = "1. It depends on `click`, `widgets` and `wordcounter-native`.\n2. DROP\n"  # its names kept
    again = [Turn.calls(("read_file", core), ("read_file", test)), Turn.final(draft), Turn.final(kept)]
    with ScriptedModelServer(again) as server:
        run = await run_once(make_settings(emulator, tmp_path / "again", server, prefetch=True))
        server.assert_exhausted()
    accepted = run.of(ev.DraftReviewed)[-1]  # what is set aside is not said corrected
    assert [c.claim for c in accepted.corrected] == ["docs/missing.md"]
    assert [c.claim for c in accepted.set_aside] == [
        "It depends on `click`, `widgets` and `wordcounter-native`."
    ]

    listed = "\n## Tech stack\n\nIts dependencies are `click`, `widgets` and `wordcounter-native`.\n"
    alone = [Turn.calls(("read_file", core), ("read_file", test)), Turn.final(REPORT + listed)]
    with ScriptedModelServer(alone) as server:
        run = await run_once(make_settings(emulator, tmp_path / "alone", server, prefetch=True))
        server.assert_exhausted()
    (trimmed,) = run.of(ev.DraftReviewed)  # no revision of their own: the sentence is set aside
    assert trimmed.outcome == "trimmed" and trimmed.problems == () and run.finished.writer == "model"
    assert [c.claim for c in trimmed.set_aside] == [
        "Its dependencies are `click`, `widgets` and `wordcounter-native`."
    ]
    assert "wordcounter-native" not in (run.finished.report or "") and REPORT.strip() in (
        run.finished.report or ""
    )


async def test_a_local_model_asking_again_for_what_it_read_is_told_to_write_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B read two files, asked for each again, then replied empty: three turns before its
    report. Its reads done, a turn of repeats gets the results and one line: write the report now."""
    core = {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"}
    test = {**core, "path": "tests/test_core.py"}
    turns = [
        Turn.calls(("read_file", core), ("read_file", test)),
        Turn.calls(("read_file", core)),
        Turn.final(REPORT),
    ]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        server.assert_exhausted()
        last = server.chat_requests[2].messages
    assert last[-2]["role"] == "tool" and '"repeat": true' in last[-2]["content"]
    assert last[-1] == {"role": "user", "content": t("to_model_report_now", "en")}
    assert run.finished.writer == "model" and run.finished.report == REPORT.strip()


async def test_a_local_models_call_past_its_time_for_reading_is_set_aside_for_the_report(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B, its two reads done at 50 s, asked for two more and replied empty once: its report
    began at 68 s. Once its reads are done and one more would bring its report past the minute, a call
    it begins is stopped at its first brace, and it is told once to write the report."""

    def written(*paths: str) -> str:
        calls = (
            {"name": "read_file", "arguments": {"owner": "acme", "repo": "widgets", "path": p}} for p in paths
        )
        return "\n".join(json.dumps(c) for c in calls)

    # 3,000 fresh tokens in 750 s: 4 tokens/s, so a read of 300 tokens alone takes 75 s
    slow = Turn.final(
        written("src/pkg/core.py", "tests/test_core.py"),
        prompt_progress=((0, 3000, 0), (3000, 3000, 750_000)),
        usage=(3000, 20),
    )
    turns = [slow, Turn.final(written("README.md"), chunk_size=3), Turn.final(REPORT)]
    with ScriptedModelServer(turns) as server:
        run = await run_once(make_settings(emulator, tmp_path, server, prefetch=True))
        server.assert_exhausted()
        last = server.chat_requests[2].messages
    own = [e.arguments["path"] for e in run.of(ev.ToolCallStarted) if not e.call_id.startswith("basics-")]
    assert own == ["src/pkg/core.py", "tests/test_core.py"]  # README.md was set aside, never read
    assert last[-1] == {"role": "user", "content": t("to_model_time_up", "en")}
    assert not any("README.md" in str(m.get("content")) for m in last[-2:])
    assert any("its time for reading is up" in n.message for n in run.of(ev.Notice))
    assert run.finished.writer == "model" and run.finished.report == REPORT.strip()


async def test_a_small_windows_reads_share_the_room_it_has_left(tmp_path: Path) -> None:
    """A 4,096-token server: two whole reads (1,000 tokens each, the window's cap for one) beside the
    brief would push the first out of the conversation before the report is written; each gets its share
    of the room left, and both stay."""
    repo = make_repo(
        tmp_path / "big",
        {
            "README.md": "# big\n\nSteps.\n\n" + "Steps explained. " * 400,
            "src/steps.py": BIG,
            "src/more.py": BIG,
        },
    )
    steps = {"owner": "acme", "repo": "big", "path": "src/steps.py"}
    more = {**steps, "path": "src/more.py"}
    report = "# acme/big\n\nThe steps are defined in `src/steps.py`.\n"
    turns = [Turn.calls(("read_file", steps), ("read_file", more)), Turn.final(report)]
    with GitHubEmulator() as emu, ScriptedModelServer(turns) as server:
        emu.add_repo("acme/big", repo)
        settings = make_settings(emu, tmp_path, server, prefetch=True, llm_context_window=4096)
        run = await run_once(settings, target="acme/big")
        server.assert_exhausted()
        sent = server.chat_requests[1].messages
    observations = [m["content"] for m in sent if m["role"] == "tool"]
    assert len(observations) == 2 and all("def step_0(x)" in o for o in observations)  # both stay whole
    assert not any("compacted to save context" in str(m.get("content")) for m in sent)
    assert sum(len(o) for o in observations) < 2 * 3413  # less than two reads at the window's cap
    assert run.finished.writer == "model"


async def test_a_revision_loses_the_lines_it_copied_from_the_apps_request(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    """The real 1.5B ended its revised fmt report with the request's closing sentence: lines of the app's
    own requests are never part of the report (a model that writes its report again: a hosted one; a
    local one answers one line per sentence, :mod:`agent_core.agent.corrections`)."""
    core = {"owner": "acme", "repo": "widgets", "path": "src/pkg/core.py"}
    test = {**core, "path": "tests/test_core.py"}
    close = t("to_model_draft_close", "en")
    turns = [
        Turn.calls(("read_file", core), ("read_file", test)),
        Turn.final(REPORT + "\nIts guide is `docs/missing.md`.\n"),
        Turn.final(f"{REPORT}\n{close}\n"),
    ]
    with ScriptedModelServer(turns) as server:
        settings = make_settings(emulator, tmp_path, server, prefetch=True, llm_local=False)
        run = await run_once(settings)
        server.assert_exhausted()
    assert [r.outcome for r in run.of(ev.DraftReviewed)] == ["revise", "accepted"]
    assert run.finished.writer == "model" and run.finished.report == REPORT.strip()
    assert not any(c.verdict == "contradicted" for c in run.of(ev.ClaimsChecked)[-1].claims)


def test_only_the_apps_requests_are_taken_out_of_a_draft_not_what_the_tools_returned() -> None:
    quoted = "Count words in text, fast and with care."
    messages = [
        {"role": "user", "content": f"Observation: {quoted}"},  # the text protocol's tool result
        {"role": "tool", "content": quoted},
        {"role": "user", "content": '- "docs/missing.md": not in the repository'},
    ]
    draft = f"# acme/widgets\n\n{quoted}\n- `docs/missing.md`: not in the repository\n"
    assert without_requests(draft, messages) == f"# acme/widgets\n\n{quoted}"
    assert without_requests(REPORT, messages) is REPORT  # nothing copied: the draft as it came
