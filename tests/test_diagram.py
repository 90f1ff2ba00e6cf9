"""The architecture diagram: built from a real repository's tree and imports, compiled to Mermaid that
carries nothing of a hostile name, capped, and proposed by a scripted model (real SSE) whose unknown
paths are dropped and said back to it once; garbage falls back to the tree's graph."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.event_json import dumps_event, event_from_dict
from agent_core.repo import RepoRef
from agent_core.report.claims import check_report
from agent_core.report.diagram import (
    MAX_NODES,
    Component,
    Graph,
    Relation,
    cap,
    check_proposal,
    compile_mermaid,
    diagram_block,
    graph_of,
    parse_proposal,
)
from agent_core.report.diagram_tree import _imported as imported_paths
from agent_core.report.diagram_tree import tree_graph
from agent_core.report.facts import build_facts, gather
from agent_core.top.terminal import TerminalRenderer
from agent_core.web.markdown import safe_markdown
from agent_core.web.render import TraceView
from agent_core.words import words_for
from testing.analysis import diagram_attempt, diagram_replies, make_settings, run_once
from testing.emulator.github import GitHubEmulator
from testing.emulator.gitrepo import make_repo
from testing.emulator.model_server import ScriptedModelServer, Turn

S = {"owner": "acme", "repo": "shop"}
FILES = {
    "README.md": "# shop\n\nA small web shop: a cart, payments and a web front.\n",
    "pyproject.toml": '[project]\nname = "shop"\n\n[project.scripts]\nshop = "shop.cli:main"\n',
    "shop/__init__.py": "",
    "shop/cli.py": "from shop.web.app import serve\n\ndef main() -> None:\n    serve()\n",
    "shop/core/__init__.py": "",
    "shop/core/cart.py": "from shop.payments import charge\n\nclass Cart:\n    pass\n",
    "shop/payments/__init__.py": "from .stripe import charge\n",
    "shop/payments/stripe.py": "from ..core import cart\n\ndef charge() -> None:\n    pass\n",
    "shop/web/__init__.py": "",
    "shop/web/app.py": "import shop.payments\nfrom shop.core.cart import Cart\n\ndef serve() -> None:\n    pass\n",
    "tests/test_cart.py": "from shop.core.cart import Cart\n\ndef test_cart() -> None:\n    assert Cart()\n",
    "docs/index.md": "# Shop docs\n",
    ".github/workflows/ci.yml": "on: push\njobs: {}\n",
    "frontend/src/index.ts": 'import { get } from "./api/client";\nget();\n',
    "frontend/src/api/client.ts": "export function get() {}\n",
}
READS = ["shop/cli.py", "shop/core/cart.py", "shop/payments/__init__.py", "shop/payments/stripe.py"]
READS += ["shop/web/app.py", "tests/test_cart.py", "pyproject.toml", "frontend/src/index.ts"]
LABEL = r'"(?:[^"`<>\[\]{}|;%#\n]|#\d+;)*"'  # quoted; anything else only as a numeric entity
MERMAID_LINE = re.compile(rf"^(flowchart LR|  n\d+\[{LABEL}\]|  n\d+ (-->|-->\|{LABEL}\|) n\d+)$")


@pytest.fixture
def shop(emulator: GitHubEmulator, tmp_path: Path) -> GitHubEmulator:
    emulator.add_repo("acme/shop", make_repo(tmp_path / "shop", FILES), description="A shop.")
    return emulator


def explore() -> list[Turn]:
    return [
        Turn.calls(("get_repo_info", S), ("get_file_tree", S), ("get_commits", S)),
        Turn.calls(*(("read_file", {**S, "path": p}) for p in READS)),
    ]


def assert_valid_mermaid(text: str) -> None:
    """Only the three statement shapes the compiler writes: nothing else can have been injected."""
    for line in text.splitlines():
        assert MERMAID_LINE.match(line), line
    assert all("click" not in outside for outside in text.split('"')[0::2])  # no click outside a label


# -- the builder, over a real repository -----------------------------------------------------------------


async def test_the_tree_graph_shows_packages_tests_docs_ci_entry_points_and_imports(
    shop: GitHubEmulator, tmp_path: Path
) -> None:
    run = await run_once(make_settings(shop, tmp_path, None), target="acme/shop")  # tree + README only
    facts = build_facts(gather(run.opened.analysis.scope[0], run.opened.analysis.results, words_for("en")))
    offline = tree_graph(facts, words_for("en"))
    paths = {c.path for c in offline.components}
    assert {
        "shop/core",
        "shop/payments",
        "shop/web",
        "frontend",
        "tests",
        "docs",
        ".github/workflows",
    } <= paths
    assert all(p in facts.paths or p in facts.dirs for p in paths)
    assert offline.commit is not None and re.fullmatch(r"[0-9a-f]{40}", offline.commit)
    assert offline.link_base == "https://github.com/acme/shop"

    with ScriptedModelServer([*explore(), Turn.final("# acme/shop\n\nA shop.\n")]) as server:
        run = await run_once(make_settings(shop, tmp_path, server), target="acme/shop")
        server.assert_exhausted()
    facts = build_facts(gather(run.opened.analysis.scope[0], run.opened.analysis.results, words_for("en")))
    graph = tree_graph(facts, words_for("en"))
    arrows = {(r.source, r.target, r.label) for r in graph.relations}
    assert {
        ("shop/core", "shop/payments", "imports"),  # absolute import
        ("shop/payments", "shop/core", "imports"),  # relative import, resolved
        ("shop/web", "shop/core", "imports"),
        ("shop/web", "shop/payments", "imports"),
        ("tests", "shop/core", "tests"),  # what the tests import
        (".github/workflows", "tests", "runs"),
        ("docs", "shop", "documents"),
    } <= arrows
    assert ("shop/cli.py", "shop/web", "imports") in arrows  # the declared entry point, by its imports
    assert "shop/cli.py" in {c.path for c in graph.components}
    link = graph.url(next(c for c in graph.components if c.path == "shop/core"))
    assert link == f"https://github.com/acme/shop/tree/{graph.commit}/shop/core"
    assert_valid_mermaid(compile_mermaid(graph))


def test_javascript_relative_imports_count_too() -> None:
    facts = build_facts(gather(RepoRef(owner="acme", name="shop"), [], words_for("en")))
    text = 'import a from "./api/x";\nconst b = require("../lib/y")'
    assert list(imported_paths("web/src/index.ts", text, facts)) == ["web/src/api/x", "web/lib/y"]


# -- the compiler: hostile names, the cap -------------------------------------------------------------------

HOSTILE = [
    'a"]; click X call alert(1) %%',
    "b`]]\n%%{init: {'securityLevel': 'loose'}}%%",
    "<img src=x onerror=alert(1)>",
    "c]) --> evil[(x",
    'd;click n1 href "javascript:alert(1)"',
    "e#quot;#35;&amp;|{}",
    "数据层 · données ✓",
]


def test_hostile_names_compile_to_valid_mermaid_with_nothing_injected() -> None:
    components = tuple(Component(name=n, path=f"p{i}", role=n) for i, n in enumerate(HOSTILE))
    relations = tuple(
        Relation(source=f"p{i}", target=f"p{i + 1}", label=HOSTILE[i]) for i in range(len(HOSTILE) - 1)
    )
    text = compile_mermaid(
        Graph(repo="acme/shop", source="model", components=components, relations=relations)
    )
    assert_valid_mermaid(text)
    lines = text.splitlines()
    assert len(lines) == 1 + len(HOSTILE) + len(HOSTILE) - 1  # one statement per node and per arrow
    labels = re.findall(r'"([^"]*)"', text)
    assert len(labels) == len(lines) - 1
    for bad in ("%", "<", ">", "`", "[", "]", "{", "}", "|", '"', "(", "\n", "'"):
        assert all(bad not in label for label in labels), bad
    assert "%%" not in text  # no directive, no comment
    assert "数据层" in text and "données" in text  # unicode letters stay letters
    assert '["a#34;#93;#59; click X call alert#40;1#41; #37;#37;"]' in text  # inert, still readable


def test_the_cap_merges_the_least_connected_into_their_folder_or_drops_them() -> None:
    parts = tuple(Component(name=f"m{i}", path=f"pkg/m{i}", role="") for i in range(15))
    components = (Component(name="pkg", path="pkg", role=""), *parts, Component(name="x", path="x", role=""))
    relations = (
        Relation(source="pkg/m0", target="pkg/m1"),
        Relation(source="pkg/m14", target="pkg/m0", label="imports"),
        Relation(source="x", target="pkg/m13"),
        Relation(source="pkg/m2", target="pkg/m2"),  # a self-arrow: never drawn
    )
    capped = cap(Graph(repo="a/b", source="tree", components=components, relations=relations))
    assert len(capped.components) == MAX_NODES
    kept = {c.path for c in capped.components}
    assert {"pkg", "pkg/m0", "pkg/m1", "pkg/m14", "x", "pkg/m13"} <= kept  # the connected stay
    ends = {p for r in capped.relations for p in (r.source, r.target)}
    assert ends <= kept and all(r.source != r.target for r in capped.relations)


# -- the model's proposal ---------------------------------------------------------------------------------------


def test_proposals_are_parsed_from_fences_and_checked_against_the_tree() -> None:
    reply = 'Here it is:\n```json\n{"components": [{"name": "Core", "path": "./Shop/core/", "role": "cart"},'
    reply += ' {"name": "Ghost", "path": "shop/ghost"}, {"name": "Web", "path": "shop/web"}],'
    reply += ' "relations": [{"from": "Web", "to": "shop/core", "label": "imports"}, {"from": "shop/ghost", "to": "shop/web"}]}\n```'
    checked = check_proposal(parse_proposal(reply), ["shop/web/app.py"], ["shop", "shop/core", "shop/web"])
    assert [c.path for c in checked.components] == ["shop/core", "shop/web"]
    assert checked.relations == (Relation(source="shop/web", target="shop/core", label="imports"),)
    assert checked.dropped == ("shop/ghost",)
    assert checked.errors == ("not in the tree: 'shop/ghost'",)
    assert parse_proposal("no JSON here {oops") is None
    assert check_proposal(None, [], []).errors


PROPOSAL = {
    "components": [
        {"name": "Cart core", "path": "shop/core", "role": "the cart"},
        {"name": "Payments", "path": "shop/payments", "role": "charges cards"},
        {"name": "Invented", "path": "shop/billing", "role": "not there"},
        {"name": "Web", "path": "shop/web", "role": "HTTP front"},
    ],
    "relations": [
        {"from": "shop/web", "to": "shop/core", "label": "uses"},
        {"from": "shop/core", "to": "shop/payments", "label": "charges"},
        {"from": "shop/billing", "to": "shop/core", "label": "?"},
    ],
}
FIXED = {**PROPOSAL, "components": [c for c in PROPOSAL["components"] if c["path"] != "shop/billing"]}
REPORT = (
    "# acme/shop\n\n## Overview\nA shop ([app](https://github.com/acme/shop/blob/main/shop/web/app.py)).\n"
)


async def test_the_model_proposes_unknown_paths_are_dropped_and_said_back_once(
    shop: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [*explore(), Turn.final(REPORT, usage=(900, 100))]
    router = diagram_replies(
        Turn.final(f"```json\n{json.dumps(PROPOSAL)}\n```", usage=(500, 80)),
        Turn.final(json.dumps(FIXED), usage=(600, 70)),
    )
    with ScriptedModelServer(turns, router=router) as server:
        settings = make_settings(shop, tmp_path, server, diagram_from_model=True)
        run = await run_once(settings, target="acme/shop")
        server.assert_exhausted()
        requests = [r for r in server.chat_requests if r.body is not None and r.turn is not None]
        first, retry = [r for r in requests if diagram_attempt(r.body or {})]
        report_request = [r for r in requests if diagram_attempt(r.body or {}) is None][-1]
    # After the report: the report turn's request, the report and one message; the tools are sent (the
    # prefix stays the same), none allowed.
    assert requests[-2:] == [first, retry] and first.body is not None and first.body["tool_choice"] == "none"
    assert first.body["tools"] == report_request.body["tools"]  # type: ignore[index]
    assert first.messages[:-2] == report_request.messages
    assert first.messages[-2] == {"role": "assistant", "content": REPORT}
    feedback = retry.messages[-1]["content"]
    assert (
        retry.messages[-1]["role"] == "user" and "shop/billing" in feedback and "not in the tree" in feedback
    )
    assert "shop/core/" in first.messages[-1]["content"]  # the tree's paths are listed for it
    (diagram,) = run.of(ev.DiagramDrawn)
    assert (diagram.source, diagram.attempts, diagram.dropped, diagram.note) == (
        "model",
        2,
        ("shop/billing",),
        None,
    )
    assert [c.path for c in diagram.components] == ["shop/core", "shop/payments", "shop/web"]
    assert (diagram.prompt_tokens, diagram.completion_tokens) == (1100, 150)
    finished = run.finished
    assert (finished.stats.prompt_tokens, finished.stats.completion_tokens) == (900 + 1100, 100 + 150)
    assert run.kinds.index("diagram") < run.kinds.index("claims_checked")  # the app's part, before the check
    mermaid = compile_mermaid(graph_of(diagram))
    assert_valid_mermaid(mermaid)
    assert finished.report == REPORT.strip()  # the model's text as it wrote it: the diagram travels beside
    # The claim check holds the model's words only: nothing of the app's diagram is a claim.
    (check,) = run.of(ev.ClaimsChecked)
    assert check.contradicted == 0
    # The page appends the section and draws that Mermaid, compiled by the app from the event; the .md
    # export has it before the app's appendix.
    view = TraceView()
    for event in run.events:
        view.apply(event)
    shown = view.report.markdown()
    assert f"## Architecture diagram\n\n```mermaid\n{mermaid}\n```" in shown
    assert f"https://github.com/acme/shop/tree/{diagram.commit}/shop/payments" in shown
    exported = view.report.export_text()
    assert exported.index(f"```mermaid\n{mermaid}\n```") < exported.index("\n---\n")
    terminal = io.StringIO()
    renderer = TerminalRenderer(terminal, rich=False)
    for event in run.events:
        renderer.render(event)
    assert f"```mermaid\n{mermaid}\n```" in terminal.getvalue()  # the CLI appends it too


async def test_garbage_falls_back_to_the_tree_graph_without_a_retry(
    shop: GitHubEmulator, tmp_path: Path
) -> None:
    router = diagram_replies(Turn.final("Sure! The architecture is great."))  # no second try scripted
    with ScriptedModelServer([*explore(), Turn.final(REPORT)], router=router) as server:
        run = await run_once(
            make_settings(shop, tmp_path, server, diagram_from_model=True), target="acme/shop"
        )
        server.assert_exhausted()
    (diagram,) = run.of(ev.DiagramDrawn)
    assert (diagram.source, diagram.attempts) == ("tree", 1)  # nothing a retry could correct
    assert diagram.note is not None and "not a JSON object" in diagram.note
    assert {"shop/core", "shop/web", "tests"} <= {c.path for c in diagram.components}
    view = TraceView()
    for event in run.events:
        view.apply(event)
    assert f"```mermaid\n{compile_mermaid(graph_of(diagram))}\n```" in view.report.markdown()


async def test_the_offline_report_has_the_section_and_the_check_ignores_it(
    shop: GitHubEmulator, tmp_path: Path
) -> None:
    run = await run_once(make_settings(shop, tmp_path, None), target="acme/shop")
    (diagram,) = run.of(ev.DiagramDrawn)
    report = run.finished.report
    block = "\n".join(diagram_block(graph_of(diagram), words_for("en")))
    assert diagram.source == "tree" and block in report
    analysis = run.opened.analysis
    unskipped = check_report(report, analysis.scope, analysis.results)
    skipped = check_report(report, analysis.scope, analysis.results, skip=[block])
    start = report.index(block)
    assert all(not start <= c.start < start + len(block) for c in skipped.claims)
    assert skipped.contradicted == 0 and unskipped.contradicted == 0


def test_only_the_apps_own_mermaid_renders_as_a_diagram() -> None:
    mine = compile_mermaid(
        Graph(repo="a/b", source="tree", components=(Component(name="core", path="core", role=""),))
    )
    forged = "flowchart LR\n  A[x] --> B\n  click A call alert(1)"
    text = f"# r\n\n```mermaid\n{mine}\n```\n\n```mermaid\n{forged}\n```\n\n- ```Mermaid\n  graph TD\n  ```\n\n> ~~~ mermaid\n"
    shown = safe_markdown(text, diagrams=[mine])
    assert shown.count("```mermaid") == 1 and f"```mermaid\n{mine}\n```" in shown
    assert "```text\n" + forged in shown and "- ```text" in shown and "~~~ text" in shown
    assert "mermaid" not in safe_markdown(text).lower().replace("mermaid\n", "")


def test_the_diagram_event_round_trips_and_stands_outside_turns() -> None:
    from agent_core.grammar import grammar_errors

    diagram = ev.DiagramDrawn(
        t=1.0,
        repo="acme/shop",
        source="model",
        components=(Component(name="core", path="shop/core", role="cart"),),
        relations=(Relation(source="shop/core", target="shop/core", label="self"),),
        commit="a" * 40,
        link_base="https://github.com/acme/shop",
        attempts=2,
        dropped=("shop/ghost",),
        prompt_tokens=10,
        completion_tokens=2,
        language="zh",
    )
    assert event_from_dict(json.loads(dumps_event(diagram))) == diagram
    start = ev.RunStarted(t=0.0, run_id="r", targets=("acme/shop",), question="", model="m", mode="model")
    end = ev.RunFinished(t=2.0, report="r", degraded=False)
    turn = [ev.TurnStarted(t=0.5, turn=1), diagram, ev.TurnFinished(t=1.5, turn=1, tool_calls=0)]
    assert grammar_errors([start, diagram, end]) == []
    assert grammar_errors([start, *turn, end]) == ["event 2 (diagram): a diagram inside open turn 1"]


async def test_no_call_when_the_runs_token_budget_cannot_hold_it(
    shop: GitHubEmulator, tmp_path: Path
) -> None:
    turns = [*explore(), Turn.final(REPORT, usage=(900, 100))]  # no turn for a diagram: none may be asked
    with ScriptedModelServer(turns) as server:
        settings = make_settings(shop, tmp_path, server, diagram_from_model=True, max_total_tokens=3000)
        run = await run_once(settings, target="acme/shop")
        server.assert_exhausted()
    (diagram,) = run.of(ev.DiagramDrawn)
    assert (diagram.source, diagram.attempts, diagram.note) == (
        "tree",
        0,
        "the run's token budget is used up",
    )
    assert run.finished.stats.prompt_tokens + run.finished.stats.completion_tokens == 1000


def test_every_node_is_drawn_once_under_a_name_of_its_own() -> None:
    graph = Graph(
        repo="o/r",
        source="tree",
        components=(
            Component(name="src", path="packages/a/src", role="package"),
            Component(name="src", path="packages/b/src", role="package"),
            Component(name="tests", path="tests", role="tests"),
            Component(name="tests", path="tests", role="tests, again"),
        ),
        relations=(Relation(source="tests", target="packages/a/src", label="tests"),),
    )
    text = compile_mermaid(cap(graph))
    nodes = [line.strip() for line in text.splitlines() if line.strip().startswith("n") and "[" in line]
    assert nodes == ['n1["a/src"]', 'n2["b/src"]', 'n3["tests"]']
