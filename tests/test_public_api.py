"""The curated public API is pinned: changing it is a deliberate act."""

from __future__ import annotations

import agent_core


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
    for name in agent_core.__all__:
        assert hasattr(agent_core, name), name


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
        "diagram",
        "run_finished",
        "run_failed",
    }
