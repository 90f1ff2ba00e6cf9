"""The curated public API is pinned: changing it is a deliberate act.

Besides the list of names: each is the object of its home module (not a copy), nothing public is imported
into the package without being exported, the events are exactly the stream's union, the functions and
non-event classes say what they do, and the entry points' parameters are pinned.
"""

from __future__ import annotations

import importlib
import inspect
import types
from typing import get_args

import agent_core
from agent_core import events as ev


def test_public_api_is_pinned() -> None:
    assert sorted(agent_core.__all__) == sorted(
        [
            "AgentCoreError",
            "Analysis",
            "BreakerChanged",
            "CheckedClaim",
            "ClaimsChecked",
            "Component",
            "ConfigurationError",
            "CostEstimate",
            "Coverage",
            "Diagnosis",
            "DiagramDrawn",
            "DraftReviewed",
            "Event",
            "InvalidTargetError",
            "KeyFact",
            "LLMError",
            "Notice",
            "OpenedAnalysis",
            "RateLimitUpdated",
            "ReasoningDelta",
            "Relation",
            "RunFailed",
            "RunFinished",
            "RunLimits",
            "RunStarted",
            "RunStats",
            "Services",
            "Settings",
            "TextDelta",
            "ToolCallFinished",
            "ToolCallStarted",
            "ToolRetry",
            "TurnFinished",
            "TurnProgress",
            "TurnStarted",
            "UpstreamError",
            "UserInputError",
            "analyze",
            "dump_events",
            "event_from_dict",
            "event_to_dict",
            "load_events",
            "open_analysis",
            "run_agent",
            "stream_analysis",
        ]
    )
    assert len(set(agent_core.__all__)) == len(agent_core.__all__)


def test_every_exported_name_is_the_object_of_its_home_module() -> None:
    for name in agent_core.__all__:
        value = getattr(agent_core, name)
        if isinstance(value, types.UnionType):  # the Event alias
            continue
        assert value.__module__.startswith("agent_core."), name
        assert getattr(importlib.import_module(value.__module__), name) is value, name


def test_nothing_public_is_imported_without_being_exported() -> None:
    public = {
        name
        for name, value in vars(agent_core).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(agent_core.__all__)


def test_the_exported_events_are_the_stream_union() -> None:
    union = set(get_args(agent_core.Event))
    assert union == set(get_args(ev.Event))
    exported = {getattr(agent_core, name) for name in agent_core.__all__}
    assert union <= exported  # a new event kind is exported with the stream


def test_functions_and_classes_other_than_events_say_what_they_do() -> None:
    for name in agent_core.__all__:
        value = getattr(agent_core, name)
        if isinstance(value, types.UnionType) or value.__module__ == ev.__name__:
            continue  # events and their parts are documented by their module (agent_core.events)
        doc = (vars(value).get("__doc__") if isinstance(value, type) else value.__doc__) or ""
        assert doc.strip() and not doc.startswith(f"{name}("), name  # its own, not a dataclass repr


def _parameters(function: object) -> list[str]:
    assert callable(function)
    return [f"{p.kind.name}:{p.name}" for p in inspect.signature(function).parameters.values()]


def test_the_entry_points_parameters_are_pinned() -> None:
    assert _parameters(agent_core.analyze) == [
        "POSITIONAL_OR_KEYWORD:target",
        "POSITIONAL_OR_KEYWORD:question",
        "KEYWORD_ONLY:settings",
    ]
    assert _parameters(agent_core.stream_analysis) == [
        "POSITIONAL_OR_KEYWORD:target",
        "POSITIONAL_OR_KEYWORD:question",
        "KEYWORD_ONLY:settings",
        "KEYWORD_ONLY:services",
    ]
    assert _parameters(agent_core.run_agent) == [
        "POSITIONAL_OR_KEYWORD:llm",
        "POSITIONAL_OR_KEYWORD:http",
        "POSITIONAL_OR_KEYWORD:query",
        "KEYWORD_ONLY:model",
    ]
    assert _parameters(agent_core.dump_events) == [
        "POSITIONAL_OR_KEYWORD:events",
        "POSITIONAL_OR_KEYWORD:path",
    ]
    assert _parameters(agent_core.load_events) == ["POSITIONAL_OR_KEYWORD:path"]
    assert inspect.isasyncgenfunction(agent_core.stream_analysis)
    assert inspect.iscoroutinefunction(agent_core.analyze)
    assert inspect.iscoroutinefunction(agent_core.run_agent)


def test_every_event_kind_is_exported_and_round_trips() -> None:
    from agent_core.events import EVENT_TYPES

    assert set(EVENT_TYPES) == {
        "run_started",
        "turn_started",
        "reasoning_delta",
        "text_delta",
        "turn_finished",
        "turn_progress",
        "tool_call_started",
        "tool_retry",
        "tool_call_finished",
        "breaker_changed",
        "rate_limit",
        "notice",
        "claims_checked",
        "draft_reviewed",
        "diagram",
        "run_finished",
        "run_failed",
    }
