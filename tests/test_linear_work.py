"""Every renderer and parser of the page does linear work, on any input (issue 20, attacks 1 and 2).

Adversarial strings (brackets, backticks, asterisks, nested links, long lines, CJK; the known attacks of
:data:`testing.linear.ATTACKS` and hypothesis's own mixtures of :data:`testing.linear.TOKENS`) of growing
size go to each of them; the CPU time (this thread's, :func:`testing.linear.least_cpu`) at four times the size must stay within
twice the linear growth (quadratic work is four times over). ``[`` repeated 8,000 times once cost the
first frame 4.4 CPU-s.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_core import events as ev
from agent_core.clock import SystemClock
from agent_core.event_json import event_to_dict
from agent_core.report.inert import code, inline, plain
from agent_core.settings import Settings
from agent_core.web.browser_session import BrowserSession
from agent_core.web.links import spans_of
from agent_core.web.markdown import MarkdownStream, one_line, safe_markdown
from agent_core.web.render import TraceView
from agent_core.web.replay import parse_recording
from testing.linear import ATTACKS, TOKENS, growth, repeated

# CPU time against input size: measured without the coverage tracer (tests/conftest.py).
pytestmark = pytest.mark.untraced


def streamed(text: str) -> None:
    stream = MarkdownStream()
    for start in range(0, len(text), 4096):
        stream.feed(text[start : start + 4096])
        stream.value()


def status_line(text: str) -> None:
    session = BrowserSession(Settings(), clock=SystemClock())
    session.replaying = text[:200]
    session.observe(ev.RunStarted(t=0, run_id="r", targets=("a/b",), question=text, model=text, mode="model"))
    session.status_line()


def a_run(text: str) -> list[ev.Event]:
    """One run with ``text`` in every text field a trace has."""
    component = ev.Component(name=text[:500], path="src", role=text[:500])
    return [
        ev.RunStarted(t=0, run_id="r", targets=("a/b",), question=text, model=text, mode="model"),
        ev.TurnStarted(t=0, turn=1),
        ev.ReasoningDelta(t=0, turn=1, text=text),
        ev.TurnFinished(t=0, turn=1, tool_calls=1),
        ev.ToolCallStarted(t=0, call_id="c1", tool="read_file", arguments={"path": text}, turn=1),
        ev.ToolRetry(t=0, call_id="c1", tool="read_file", attempt=1, delay_s=0.1, reason=text),
        ev.ToolCallFinished(
            t=0, call_id="c1", tool="read_file", turn=1, ok=False, preview=text, duration_s=0, error=text
        ),
        ev.BreakerChanged(t=0, breaker=text[:300], old="closed", new="open", reason=text),
        ev.Notice(t=0, level="warning", message=text),
        ev.TurnStarted(t=0, turn=2, purpose="report"),
        ev.TextDelta(t=0, turn=2, text=text),
        ev.TurnFinished(t=0, turn=2, tool_calls=0),
        ev.ClaimsChecked(
            t=0,
            claims=(ev.CheckedClaim(kind="path", claim=text, verdict="unchecked", start=0, end=len(text)),),
        ),
        ev.DiagramDrawn(
            t=0,
            repo="a/b",
            source="tree",
            components=(component,),
            relations=(ev.Relation(source="src", target="src", label=text[:100]),),
            commit="c" * 40,
            link_base=text[:300],
        ),
        ev.RunFinished(t=0, report=text, degraded=True, degraded_reasons=(text,)),
    ]


def trace(text: str) -> None:
    view = TraceView(request=text)
    for event in a_run(text):
        view.apply(event)
    view.messages()
    view.report.markdown()
    view.report.checked_markdown()
    view.stats.markdown()
    view.report.export_text()


def replay_loading(text: str) -> None:
    parse_recording("\n".join(json.dumps(event_to_dict(e)) for e in a_run(text)))


RENDERERS: dict[str, Callable[[str], object]] = {
    "safe_markdown": safe_markdown,
    "streamed Markdown": streamed,
    "one_line": one_line,
    "code spans": spans_of,
    "status line": status_line,
    "trace, report, checked panel, diagrams": trace,
    "replay loading": replay_loading,
    "report/inert plain": plain,
    "report/inert code": code,
    "report/inert inline": inline,
}


@pytest.mark.parametrize("attack", list(ATTACKS))
@pytest.mark.parametrize("renderer", list(RENDERERS))
def test_known_attacks_cost_linear_work(renderer: str, attack: str) -> None:
    measured = growth(RENDERERS[renderer], repeated(ATTACKS[attack]))
    print(f"{renderer} / {attack}: {measured}")
    assert measured.linear(), f"{renderer} / {attack}: {measured}"


units = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=8).map("".join)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unit=units, renderer=st.sampled_from(sorted(RENDERERS)))
@example(unit="[", renderer="safe_markdown")
@example(unit="[a](<x [a](x(", renderer="safe_markdown")
def test_any_mixture_costs_linear_work(unit: str, renderer: str) -> None:
    measured = growth(RENDERERS[renderer], repeated(unit), cap=1 << 17)
    assert measured.linear(), f"{renderer} / {unit!r}: {measured}"


def cut_tree_preview(n: int) -> str:
    """A ``get_file_tree`` preview that makes a mender join its whole bracket stack at every comma."""
    return '{"files":1,,' + "[" * (n // 2) + "," * (n // 2)


def tree_call(preview: str) -> None:
    """The trace item of a ``get_file_tree`` call whose result (from an uploaded trace) is ``preview``."""
    view = TraceView()
    for event in (
        ev.RunStarted(t=0, run_id="r", targets=("a/b",), question="", model="m", mode="model"),
        ev.TurnStarted(t=0, turn=1),
        ev.TurnFinished(t=0, turn=1, tool_calls=1),
        ev.ToolCallStarted(t=0, call_id="c1", tool="get_file_tree", arguments={}, turn=1),
        ev.ToolCallFinished(
            t=0, call_id="c1", tool="get_file_tree", turn=1, ok=True, preview=preview, duration_s=0
        ),
    ):
        view.apply(event)
    view.messages()


def test_a_forged_tree_preview_costs_linear_work() -> None:
    """Attack 2: a 200 KB upload of this preview froze the app for ~130 s (issue 20). Nothing parses
    preview text once the event carries the tree's typed summary (branch repo-model)."""
    measured = growth(tree_call, cut_tree_preview)
    print(f"tree preview: {measured}")
    assert measured.linear(), measured


def _pairs(text: str) -> int:
    """Quadratic work: every pair of characters of a prefix."""
    n, total = len(text) // 16, 0
    for i in range(n):
        for _ in range(i):
            total += 1
    return total


def _characters(text: str) -> int:
    return sum(1 for c in text if c == "[")


def test_the_meter_tells_quadratic_work_from_linear_work() -> None:
    """The meter every test above relies on: quadratic work fails it and linear work passes."""
    quadratic = growth(_pairs, repeated("["))
    assert not quadratic.linear(), quadratic
    linear = growth(_characters, repeated("["))
    assert linear.linear(), linear
