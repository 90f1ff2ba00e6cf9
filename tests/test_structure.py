"""Consumers read structure, never display text (STYLE.md principle 18), pinned from the code itself.

Read with ``ast`` like tests/test_layering.py: a tool's name written as a string outside the registry, a
preview parsed back, a breaker name split apart, each fails here.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from agent_core import events as ev
from agent_core.agent.sink import EventSink
from agent_core.errors import InvalidTargetError
from agent_core.event_json import event_from_dict, event_to_dict
from agent_core.llm import resolve_model_config
from agent_core.repo import Renames, RepoRef
from agent_core.resilience import BreakerBoard, BreakerConfig, BreakerName
from agent_core.settings import Settings
from agent_core.sources.targets import MAX_TARGETS
from agent_core.tool_call import ToolCallRequest
from agent_core.tools.failures import breaker_key
from agent_core.tools.registry import READ_FILE, TOOL_NAMES
from agent_core.top.payer import model_label
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis, resolve_targets
from testing.analysis import make_settings
from testing.clock import FakeClock
from testing.github import GitHubEmulator
from testing.sourcescan import nodes, parsed
from tests.test_layering import ROOT, module_name, python_files


def string_constants(path: Path) -> list[tuple[int, str]]:
    tree = parsed(path)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def tool_name_literals(paths: list[Path], root: Path = ROOT) -> list[str]:
    return [
        f"{module_name(path, root)}:{line} {value!r}"
        for path in paths
        for line, value in string_constants(path)
        if value in TOOL_NAMES
    ]


def test_tool_names_are_written_only_in_the_registry() -> None:
    outside = [p for p in python_files("agent_core") if module_name(p) != "agent_core.tools.registry"]
    assert tool_name_literals(outside) == []


_PARSERS = {"loads", "split", "rsplit", "partition", "rpartition", "search", "match", "fullmatch", "findall"}
_PARSERS |= {"finditer", "sub", "startswith", "removeprefix", "index", "find"}
_CONSUMERS = ("agent_core/web", "agent_core/top", "agent_core/report", "agent_core/agent", "bench")


def _reads(node: ast.AST, attrs: set[str]) -> bool:
    return any(
        (isinstance(n, ast.Attribute) and n.attr in attrs) or (isinstance(n, ast.Name) and n.id in attrs)
        for n in ast.walk(node)
    )


def parsed_fields(paths: list[Path], fields: set[str], root: Path = ROOT) -> list[str]:
    """Every call that parses ``x.<field>``: ``json.loads(x.preview)``, ``x.breaker.partition(":")``, a
    regex over it... (a field only passed on, shown, measured or compared is fine)."""
    found = []
    for path in paths:
        for node in nodes(path):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr not in _PARSERS:
                continue
            if _reads(node.func.value, fields) or any(_reads(arg, fields) for arg in node.args):
                found.append(f"{module_name(path, root)}:{node.lineno} {ast.unparse(node)[:80]}")
    return found


def test_no_consumer_parses_a_preview_or_splits_a_breaker_name() -> None:
    fields = {"preview", "breaker"}
    assert parsed_fields(python_files(*_CONSUMERS), fields) == []
    breaker_names = {"name"}  # a snapshot's or a change's name: read .source / .subject instead
    web_breakers = [p for p in python_files("agent_core/web", "agent_core/top") if "breaker" in p.read_text()]
    assert [f for f in parsed_fields(web_breakers, breaker_names) if "partition" in f or "split" in f] == []


def test_the_parse_check_sees_json_loads_and_a_split(tmp_path: Path) -> None:
    folder = tmp_path / "agent_core"
    folder.mkdir()
    probe = folder / "probe.py"
    probe.write_text(
        "data = json.loads(event.preview)\n"
        "tool = event.breaker.partition(':')[2]\n"
        "shown = fenced(event.preview)\n"
        "size = len(event.preview)\n"
    )
    assert parsed_fields([probe], {"preview", "breaker"}, root=tmp_path) == [
        "agent_core.probe:1 json.loads(event.preview)",
        "agent_core.probe:2 event.breaker.partition(':')",
    ]


def test_the_tool_name_check_sees_a_literal(tmp_path: Path) -> None:
    folder = tmp_path / "agent_core"
    folder.mkdir()
    (folder / "probe.py").write_text('if call.tool == "read_file":\n    """read_file in prose"""\n')
    assert tool_name_literals([folder / "probe.py"], root=tmp_path) == ["agent_core.probe:1 'read_file'"]


# -- breaker names: built in one place, never split ------------------------------------------------------


async def test_a_breaker_name_is_built_once_and_its_parts_travel_to_the_event() -> None:
    clock = FakeClock()
    board = BreakerBoard(config=BreakerConfig(failure_threshold=1, open_seconds=5.0), clock=clock)
    sink = EventSink(clock=clock, breakers=board)
    name = breaker_key("github", READ_FILE)
    assert str(name) == "github:read_file"
    assert str(BreakerName(source="model")) == "model"
    permit = board.get(name).acquire()
    permit.failure("HTTP 503")
    (snapshot,) = board.snapshot()
    assert (snapshot.name, snapshot.source, snapshot.subject) == ("github:read_file", "github", "read_file")
    event = await sink.get()
    assert isinstance(event, ev.BreakerChanged)
    assert (event.breaker, event.source, event.subject, event.new) == (
        "github:read_file",
        "github",
        "read_file",
        "open",
    )
    assert event_from_dict(event_to_dict(event)) == event
    old = {k: v for k, v in event_to_dict(event).items() if k not in ("source", "subject")}
    assert event_from_dict(old) == replace(event, source="", subject="")  # an older trace still loads


# -- parsed values travel parsed -----------------------------------------------------------------------


async def test_open_analysis_opens_parsed_targets_as_they_are(
    emulator: GitHubEmulator, tmp_path: Path
) -> None:
    services = Services(make_settings(emulator, tmp_path))
    try:
        parsed = resolve_targets(services, "acme/widgets", "")
        opened = await open_analysis(services, parsed, "how does it compare with acme/gadgets?")
        assert [r.full_name for r in opened.analysis.scope] == ["acme/widgets"]  # the question: not again
        await opened.aclose()
        with pytest.raises(InvalidTargetError):
            await open_analysis(services, [])
        with pytest.raises(InvalidTargetError):
            await open_analysis(services, parsed * (MAX_TARGETS + 1))
    finally:
        await services.aclose()


def test_the_model_configuration_is_assembled_from_settings_in_one_method() -> None:
    settings = Settings(
        llm_provider="custom", llm_base_url="http://127.0.0.1:9/v1", llm_model="m", api_key="k"
    )
    assert settings.model_config() == {
        "provider": "custom",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "m",
        "api_key": "k",
        "hf_token": None,
    }
    assert settings.model_config(keys=False)["api_key"] is None
    assert resolve_model_config(**settings.model_config()).base_url == "http://127.0.0.1:9/v1"
    sites = [
        f"{module_name(path)}:{node.lineno}"
        for path in python_files("agent_core")
        for node in nodes(path)
        if isinstance(node, ast.Call)
        and any(isinstance(k.value, ast.Attribute) and k.value.attr == "llm_provider" for k in node.keywords)
        and "resolve_model_config" in ast.unparse(node.func)
    ]
    assert sites == []
    assert model_label(settings) == (
        "m",
        "Custom OpenAI-compatible endpoint",
    )  # the parts, never "m via Custom" split again


def test_one_map_of_renamed_repositories_answers_every_question_about_a_rename() -> None:
    renames = Renames()
    typed = RepoRef(owner="Acme", name="Widgets")
    assert not renames.learn_name(typed, "acme/widgets")  # the same name, other case: no rename
    assert renames.current(typed) is typed and renames.typed("acme/gadgets") == "acme/gadgets"
    assert renames.learn_name(typed, "acme/Gadgets")
    assert renames.current(typed) == RepoRef(owner="acme", name="Gadgets")
    assert renames.typed("ACME/gadgets") == "acme/widgets"  # the new name reads the repository typed
    assert renames.id_path(typed) is None
    renames.learn_id_path("ACME/widgets", "/repositories/7")
    assert renames.id_path(typed) == "/repositories/7"


def test_a_tool_call_has_one_type() -> None:
    """Classes holding a call's arguments: the one request type, the event (whose field names recorded
    traces keep), the result and the page's item; no ``PendingCall``/``PlannedCall`` with renamed fields."""
    holders = [
        f"{module_name(path)}.{node.name}"
        for path in python_files("agent_core")
        for node in nodes(path)
        if isinstance(node, ast.ClassDef)
        and {"arguments"}
        <= {t.target.id for t in node.body if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name)}
    ]
    assert holders == [
        "agent_core.events.ToolCallStarted",  # the event
        "agent_core.tool_call.ToolCallRequest",  # the call
        "agent_core.tools.results.ToolResult",  # what a call produced
        "agent_core.web.trace_items.Call",  # the page's item showing it
    ]
    call = ToolCallRequest(tool=READ_FILE, arguments='{"path": "a"}', call_id="c")
    assert call.args == {"path": "a"}
    assert ToolCallRequest(tool=READ_FILE, arguments="{oops").args == {}
