"""From whole event sequences to the messages, report, stats and breaker rows the page shows."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.resilience import BreakerSnapshot, BreakerState
from agent_core.web.breakers import breaker_columns, breaker_table, needs_ticking
from agent_core.web.markdown import fenced, safe_markdown
from agent_core.web.render import TraceView, report_pane
from agent_core.web.trace_items import call_badges, short_args
from agent_core.words import t

XSS_IMG = '<img src=x onerror="window.__xss=1">'
XSS_SCRIPT = "<script>window.__xss=2</script>"


def _view(events: Iterable[ev.Event], **options: Any) -> TraceView:
    view = TraceView(**options)
    for event in events:
        view.apply(event)
    return view


def _started(*targets: str, question: str = "", follow_up: bool = False) -> ev.RunStarted:
    return ev.RunStarted(
        t=0.0,
        run_id="r1",
        targets=targets or ("pallets/flask",),
        question=question,
        model="scripted-model",
        mode="model",
        follow_up=follow_up,
    )


def _call(call_id: str, tool: str, t: float, turn: int = 1, **arguments: Any) -> ev.ToolCallStarted:
    args = {"owner": "pallets", "repo": "flask", **arguments}
    return ev.ToolCallStarted(t=t, call_id=call_id, tool=tool, arguments=args, turn=turn)


def _done(call_id: str, tool: str, t: float, turn: int = 1, **fields: Any) -> ev.ToolCallFinished:
    values: dict[str, Any] = {"ok": True, "preview": '{"ok": true}', "duration_s": 0.25} | fields
    return ev.ToolCallFinished(t=t, call_id=call_id, tool=tool, turn=turn, **values)


def _meta(message: dict[str, Any]) -> dict[str, Any]:
    return dict(message.get("metadata") or {})


def _by_id(messages: list[dict[str, Any]], item_id: str) -> dict[str, Any]:
    return next(m for m in messages if _meta(m).get("id") == item_id)


def _pending(messages: list[dict[str, Any]]) -> list[str]:
    return [_meta(m).get("title", "") for m in messages if _meta(m).get("status") == "pending"]


# A model run: one exploring turn with two calls (one retried, its breaker opening, then served stale),
# then the answer turn.
MODEL_RUN: list[ev.Event] = [
    _started(question="How is it built?"),
    ev.TurnStarted(t=0.01, turn=1),
    ev.ReasoningDelta(t=0.02, turn=1, text="Start with the "),
    ev.ReasoningDelta(t=0.03, turn=1, text="README."),
    ev.TurnFinished(t=0.05, turn=1, tool_calls=2, prompt_tokens=1200, completion_tokens=40, duration_s=0.04),
    _call("call_1", "read_file", 0.06, path="README.md"),
    _call("call_2", "get_commits", 0.06, per_page=30),
    ev.ToolRetry(t=0.10, call_id="call_2", tool="get_commits", attempt=1, delay_s=0.2, reason="HTTP 503"),
    _done("call_1", "read_file", 0.12, attempts=1, http_requests=1, from_cache=True),
    ev.BreakerChanged(
        t=0.40,
        breaker="get_commits",
        old="closed",
        new="open",
        reason="3 consecutive failures: HTTP 503",
        failures=3,
        retry_after_s=30.0,
    ),
    _done(
        "call_2",
        "get_commits",
        0.41,
        attempts=3,
        http_requests=3,
        stale=True,
        stale_age_s=720,
        error="HTTP 503",
    ),
    ev.RateLimitUpdated(
        t=0.42, limit=60, remaining=51, reset_at=1_700_003_600, resource="core", authenticated=False
    ),
    ev.TurnStarted(t=0.50, turn=2),
    ev.ReasoningDelta(t=0.51, turn=2, text="I have enough."),
    ev.TextDelta(t=0.52, turn=2, text="# Flask\n\n"),
    ev.TextDelta(t=0.53, turn=2, text="A micro framework."),
    ev.TurnFinished(t=0.60, turn=2, tool_calls=0, prompt_tokens=2000, completion_tokens=300, duration_s=0.1),
    ev.RunFinished(
        t=0.61,
        report="# Flask\n\nA micro framework.",
        degraded=True,
        degraded_reasons=("get_commits: served from cache",),
        stats=ev.RunStats(
            turns=2,
            tool_calls=2,
            github_requests=4,
            cache_hits=1,
            prompt_tokens=3200,
            completion_tokens=340,
            cost_usd=0.00104,
            elapsed_s=0.61,
            rate_limit_remaining=51,
            rate_limit_reset=1_700_003_600,
        ),
    ),
]


def test_a_whole_model_run_renders_as_nested_steps_with_a_pointer_to_the_report_last() -> None:
    messages = _view(MODEL_RUN).messages()
    assert messages[0] == {"role": "user", "content": "**pallets/flask**\n\nHow is it built?"}

    step = _by_id(messages, "turn-1")
    assert _meta(step)["title"] == "🧠 Step 1 · 1,200 in / 40 out tokens · model 0.0 s"
    assert _meta(step)["status"] == "done"
    assert step["content"] == "Start with the README."
    assert _meta(step)["duration"] == 0.40  # from the turn's start until its last call finished

    readme = _by_id(messages, "call_1")
    assert _meta(readme) | {} == {
        "id": "call_1",
        "parent_id": "turn-1",
        "title": "🔧 read_file · README.md",
        "status": "done",
        "duration": 0.25,
        "log": "cache",
    }
    assert readme["content"] == '```json\n{"ok": true}\n```'

    commits = _by_id(messages, "call_2")
    assert _meta(commits)["parent_id"] == "turn-1"
    assert _meta(commits)["title"] == "🔧 get_commits · 30"
    assert _meta(commits)["log"] == "3 attempts · STALE 12 min"
    assert "↻ attempt 1 failed (HTTP 503); retrying in 0.20s" in commits["content"]

    breaker = next(m for m in messages if "breaker" in _meta(m).get("title", ""))
    assert _meta(breaker)["parent_id"] == "turn-1"
    assert _meta(breaker)["title"] == (
        "⚡ get_commits breaker: closed → open (3 consecutive failures: HTTP 503)"
    )
    # Nesting needs the parent (with id and title) to come earlier in the list.
    ids = [_meta(m).get("id") for m in messages]
    assert ids.index("turn-1") < ids.index("call_1") < ids.index("call_2")

    assert _by_id(messages, "turn-2")["content"] == "I have enough."
    # The report is on the page once, in the report panel: the trace points to it.
    assert messages[-1] == {"role": "assistant", "content": "📄 Report written — see the report panel."}
    assert not any("A micro framework." in str(m["content"]) for m in messages)
    archived = _view(MODEL_RUN).messages(with_answer=True)  # an earlier run of a conversation
    assert archived[-1] == {"role": "assistant", "content": "# Flask\n\nA micro framework."}
    assert _pending(messages) == []
    statuses = {_meta(m).get("status") for m in messages}
    assert statuses <= {"pending", "done", None}


def test_mid_run_items_are_pending_and_the_trace_says_the_report_streams() -> None:
    view = _view(MODEL_RUN[:7])
    messages = view.messages()
    step = "🧠 Step 1 · 1,200 in / 40 out tokens · model 0.0 s"  # its turn finished: its calls run
    assert _pending(messages) == [step, "🔧 read_file · README.md", "🔧 get_commits · 30"]
    assert not view.finished
    # pending calls show their arguments until a result arrives
    assert '"path": "README.md"' in _by_id(messages, "call_1")["content"]

    view = _view(MODEL_RUN[:16])
    messages = view.messages()
    assert messages[-1]["content"] == "✍️ Writing the report — it streams into the report panel."
    assert view.report.markdown() == "# Flask\n\nA micro framework."
    assert view.report.text() == "# Flask\n\nA micro framework."
    assert _meta(_by_id(messages, "turn-1"))["status"] == "done"
    assert _meta(_by_id(messages, "turn-2"))["status"] == "pending"


def test_text_of_a_turn_that_calls_tools_moves_into_its_step() -> None:
    view = _view(
        [
            _started(),
            ev.TurnStarted(t=0.1, turn=1),
            ev.TextDelta(t=0.2, turn=1, text="Let me look at the tree."),
        ]
    )
    assert view.report.text() == "Let me look at the tree."  # could still be the answer
    assert view.messages()[-1]["content"].startswith("✍️")
    view.apply(ev.TurnFinished(t=0.3, turn=1, tool_calls=1))
    messages = view.messages()
    assert _by_id(messages, "turn-1")["content"] == "Let me look at the tree."
    assert view.report.text() == ""
    assert messages[-1]["metadata"]["id"] == "turn-1"


def test_planner_report_turn_streams_into_the_answer() -> None:
    view = _view(
        [
            ev.RunStarted(
                t=0, run_id="p", targets=("a/b", "c/d"), question="", model="offline planner", mode="planner"
            ),
            ev.TurnStarted(t=0.01, turn=1),
            ev.ReasoningDelta(t=0.01, turn=1, text="Overview of both."),
            ev.TurnFinished(t=0.01, turn=1, tool_calls=1),
            ev.ToolCallStarted(
                t=0.02,
                call_id="plan-1-1",
                tool="read_file",
                arguments={"owner": "a", "repo": "b", "path": "x.py"},
                turn=1,
            ),
            _done("plan-1-1", "read_file", 0.03, ok=False, degraded=True, error="breaker open"),
            ev.TurnStarted(t=0.05, turn=2, purpose="report"),
            ev.TextDelta(t=0.05, turn=2, text="# Report\n\n"),
        ]
    )
    messages = view.messages()
    assert messages[0]["content"] == "**a/b**, **c/d**"
    call = _by_id(messages, "plan-1-1")
    assert _meta(call)["title"] == "🔧 read_file · a/b · x.py"  # comparisons name the repository
    assert _meta(call)["log"] == "DEGRADED"
    assert "**error:** breaker open" in call["content"]
    assert not any(_meta(m).get("id") == "turn-2" for m in messages)  # no empty step for the report
    assert messages[-1]["content"].startswith("✍️")
    assert view.report.markdown() == "# Report"
    assert [row[1] for row in view.stats.rows()][6] == "$0"  # the planner costs nothing


def test_mark_stopped_leaves_nothing_pending_and_keeps_the_partial_report() -> None:
    view = _view([*MODEL_RUN[:7], ev.TextDelta(t=0.2, turn=1, text="Partial findings")])
    view.mark_stopped()
    messages = view.messages()
    assert view.finished
    assert view.stopped
    assert _pending(messages) == []
    assert "stopped" in _meta(_by_id(messages, "call_1"))["log"]
    assert messages[-1]["metadata"]["title"] == "⏹ Stopped"
    assert messages[-2]["content"].startswith("📄 The report stopped part-way")
    assert view.messages(with_answer=True)[-2] == {"role": "assistant", "content": "Partial findings"}
    assert view.report.text() == "Partial findings"
    view.mark_stopped()  # idempotent
    assert len(view.messages()) == len(messages)


def test_mark_stopped_after_the_end_changes_nothing() -> None:
    view = _view(MODEL_RUN)
    before = view.messages()
    view.mark_stopped()
    assert view.messages() == before
    assert not view.stopped


def test_notices_nest_in_a_running_step_else_stand_alone() -> None:
    view = _view([*MODEL_RUN[:3], ev.Notice(t=0.04, level="warning", message="Switched to text protocol")])
    notice = view.messages()[-1]
    assert _meta(notice)["parent_id"] == "turn-1"
    assert _meta(notice)["title"] == "⚠️ Switched to text protocol"
    view = _view([*MODEL_RUN, ev.Notice(t=1, level="info", message="late")])
    assert "parent_id" not in _meta(view.messages()[-2])


def test_run_failed_is_shown_and_finishes_the_view() -> None:
    view = _view(
        [
            _started(),
            ev.TurnStarted(t=0.1, turn=1),
            ev.RunFailed(t=0.2, message="No report", hint="try later"),
        ]
    )
    messages = view.messages()
    assert view.finished
    # Said once: the report pane explains a failure with no report; the trace points there.
    assert messages[-1] == {"role": "assistant", "content": t("report_pointer_failed", "en")}
    assert report_pane(view, "en").count("No report") == 1 and "try later" in report_pane(view, "en")
    assert _pending(messages) == []


def test_follow_up_runs_show_the_question_as_the_request() -> None:
    view = _view([_started(question="And the tests?", follow_up=True)])
    assert view.messages() == [{"role": "user", "content": "And the tests?"}]


# -- untrusted content stays inert ------------------------------------------------------------------


def test_html_in_reasoning_reports_and_titles_is_escaped() -> None:
    view = _view(
        [
            _started(question=XSS_SCRIPT),
            ev.TurnStarted(t=0.1, turn=1),
            ev.ReasoningDelta(t=0.1, turn=1, text=f"The README says {XSS_IMG}"),
            ev.TurnFinished(t=0.2, turn=1, tool_calls=1),
            _call("c1", "read_file", 0.2, path=XSS_SCRIPT),
            ev.Notice(t=0.3, level="warning", message=XSS_IMG),
            ev.RunFinished(
                t=1, report=f"# Report\n\n{XSS_IMG}\n\n{XSS_SCRIPT}\n\n`<b>code</b>`", degraded=False
            ),
        ]
    )
    for message in view.messages():
        text = message["content"] + " ".join(str(v) for v in _meta(message).values())
        text = re.sub(r"`[^`]*`", "", text)  # code spans are rendered as text by Markdown
        text = re.sub(r"```json\n.*?\n```", "", text, flags=re.S)  # so are fences
        assert "<img" not in text, message
        assert "<script" not in text, message
    report = view.report.markdown()
    assert "&lt;img src=x onerror=" in report
    assert "&lt;script>" in report
    assert "`<b>code</b>`" in report  # code spans are left alone (they render as text)
    assert view.report.text().count("<img") == 1  # the export keeps the raw report


def test_previews_are_fenced_even_when_they_contain_fences() -> None:
    preview = '{"content": "```html\\n<script>alert(1)</script>\\n```\\n````"}'
    view = _view(
        [
            _started(),
            _call("c1", "read_file", 0.1, path="a.md"),
            _done("c1", "read_file", 0.2, preview=preview),
        ]
    )
    content = _by_id(view.messages(), "c1")["content"]
    assert content.startswith("`````json\n")
    assert content.endswith("\n`````")
    assert preview in content


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[x](javascript:alert(1))", "[x](#unsafe-javascript:alert(1))"),
        ("[x]( JavaScript:alert(1))", "[x]( #unsafe-JavaScript:alert(1))"),
        # Not a link at all (a tab in the destination): the bracket is escaped, the scheme neutralised too.
        ("[x](java\tscript:alert(1))", "\\[x](#unsafe-java\tscript:alert(1))"),
        ("[x](vbscript:msgbox)", "[x](#unsafe-vbscript:msgbox)"),
        ("[d](data:text/html;base64,PHNjcmlwdD4=)", "[d](#unsafe-data:text/html;base64,PHNjcmlwdD4=)"),
        # Reference definitions never form: the bracket is escaped, so the line is plain text.
        ("[r]: javascript:alert(1)", "\\[r]: javascript:alert(1)"),
        ("[`a`](javascript:1)", "[`a`](#unsafe-javascript:1)"),
        ("[ok](https://example.com/javascript:x)", "[ok](https://example.com/javascript:x)"),
        ("prose may say javascript: or data: freely", "prose may say javascript: or data: freely"),
        ("`[x](javascript:1)` in code stays code", "`[x](javascript:1)` in code stays code"),
    ],
)
def test_safe_markdown_neutralises_script_and_data_links(text: str, expected: str) -> None:
    assert safe_markdown(text) == expected


def test_safe_markdown_cases() -> None:
    assert safe_markdown("a <b> c") == "a &lt;b> c"
    assert safe_markdown("```html\n<b>x</b>\n```\n<i>") == "```html\n<b>x</b>\n```\n&lt;i>"
    # an unclosed fence (still streaming) keeps everything after it as code
    assert safe_markdown("```\n<b>") == "```\n<b>"
    # a longer closing fence closes; a shorter one does not
    assert safe_markdown("````\n```\n<b>\n````\n<b>") == "````\n```\n<b>\n````\n&lt;b>"
    # a backtick fence whose info string has a backtick is not a fence in CommonMark
    assert safe_markdown("``` a`b\n<b>") == "``` a`b\n&lt;b>"
    assert safe_markdown("x `<b>` y <b> ``a`<i>`` `<s>") == "x `<b>` y &lt;b> ``a`<i>`` `&lt;s>"
    assert safe_markdown("\\`<img>`") == "\\`&lt;img>`"  # an escaped backtick opens no code span
    assert fenced("plain") == "```json\nplain\n```"


# -- badges, stats, breakers ---------------------------------------------------------------------


def test_badges() -> None:
    def badges(**fields: Any) -> list[str]:
        return call_badges(_done("c", "t", 0, **fields))

    assert badges() == []
    assert badges(attempts=2, from_cache=True, stale=True, stale_age_s=720, ok=False, degraded=True) == [
        "2 attempts",
        "cache",
        "STALE 12 min",
        "DEGRADED",
    ]
    assert badges(memo=True, from_cache=True) == ["memo"]
    assert badges(ok=False, error="not found") == ["error"]
    assert badges(stale=True, stale_age_s=None) == ["STALE ?"]
    assert badges(stale=True, stale_age_s=3 * 86400) == ["STALE 3 d"]


def test_short_args() -> None:
    assert short_args({"owner": "o", "repo": "r"}) == "o/r"
    assert short_args({"owner": "o", "repo": "r", "path": "src", "depth": 2}) == "src, 2"
    assert short_args({"owner": "o", "repo": "r", "path": ""}, with_repo=True) == "o/r"


def test_stats_live_and_final() -> None:
    live = _view(MODEL_RUN[:12])
    rows = dict(live.stats.rows())
    assert rows == {
        "Turns": "1",
        "Tool calls": "2",
        "GitHub requests": "4",
        "Cache hits": "1",
        "Rate limit left": "51 (reset 23:13 UTC)",
        "Tokens in / out": "1,200 / 40",
        "Cost": "unknown (no price known for this model)",
        "Elapsed": "0.4 s",
    }
    final = dict(_view(MODEL_RUN).stats.rows())
    assert final["Turns"] == "2"
    assert final["Tokens in / out"] == "3,200 / 340"
    assert final["Cost"] == "$0.0010"
    assert final["Elapsed"] == "0.6 s"
    markdown = _view(MODEL_RUN).stats.markdown()
    assert "- **Tool calls:** 2" in markdown
    zh = dict(_view(MODEL_RUN, lang="zh").stats.rows())
    assert zh["工具调用"] == "2"


def test_breaker_table_rows() -> None:
    snapshots = [
        BreakerSnapshot(
            name="model:api.deepseek.com",
            source="model",
            subject="api.deepseek.com",
            state=BreakerState.OPEN,
            failures=3,
            last_error="x\ny",
            retry_after=0.0,
        ),
        BreakerSnapshot(
            name="local:read_file",
            source="local",
            subject="read_file",
            state=BreakerState.HALF_OPEN,
            failures=3,
            last_error="t",
            retry_after=0,
        ),
        BreakerSnapshot(
            name="github:read_file",
            source="github",
            subject="read_file",
            state=BreakerState.CLOSED,
            failures=0,
            last_error=None,
            retry_after=0,
        ),
        BreakerSnapshot(
            name="github:get_commits",
            source="github",
            subject="get_commits",
            state=BreakerState.OPEN,
            failures=3,
            last_error="HTTP 503",
            retry_after=12.4,
        ),
    ]
    assert breaker_table(snapshots) == [  # grouped: GitHub's tools, the local tools, the model
        ["GitHub · read_file", "CLOSED", 0, "", ""],
        ["GitHub · get_commits", "OPEN", 3, "HTTP 503", "12 s"],
        ["local · read_file", "HALF_OPEN", 3, "t", ""],
        ["model · api.deepseek.com", "OPEN", 3, "x y", "due"],
    ]
    assert breaker_table(snapshots[1:2], lang="zh")[0][0] == "本地 · read_file"
    assert breaker_columns() == ["breaker", "state", "failures", "last error", "next probe"]
    by_hand = replace(snapshots[2], source="", subject="")  # or from a trace older than the parts
    assert breaker_table([by_hand])[0][0] == "github:read_file"  # shown as named, never split
    assert needs_ticking(snapshots[3:4])  # OPEN, counting down
    assert not needs_ticking(snapshots[0:1])  # OPEN, probe due: waits for a call
    assert needs_ticking(snapshots[3:])  # HALF_OPEN
    assert not needs_ticking(snapshots[:1])


def test_breaker_snapshots_from_events_count_down_and_keep_the_last_error() -> None:
    view = _view(MODEL_RUN[:10])
    (snap,) = view.stats.breaker_snapshots(at=10.40)
    assert (snap.name, snap.state, snap.failures, snap.retry_after) == ("get_commits", "open", 3, 20.0)
    view.apply(ev.BreakerChanged(t=31, breaker="get_commits", old="open", new="half_open", reason="probing"))
    view.apply(
        ev.BreakerChanged(t=31.2, breaker="get_commits", old="half_open", new="closed", reason="probe ok")
    )
    (snap,) = view.stats.breaker_snapshots()
    assert snap.state is BreakerState.CLOSED
    assert snap.last_error == "probing"
    assert snap.retry_after == 0.0
