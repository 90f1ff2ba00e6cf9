"""agent_core: a hand-written ReAct agent that analyses GitHub repositories, with resilient tools.

The public API, re-exported explicitly (pinned by ``tests/test_public_api.py``):

- run an analysis: :func:`analyze` (the report), :func:`stream_analysis` (the events),
  :func:`run_agent` (the original command-line agent's entry point), :func:`open_analysis` +
  :class:`Services` (sessions with follow-up questions, as the browser app uses them);
- configure: :class:`Settings`;
- consume: the event types of :mod:`agent_core.events` and :func:`load_events` / :func:`dump_events`;
- errors: :mod:`agent_core.errors`.
"""

from agent_core.agent.accounting import RunLimits
from agent_core.agent.analysis import Analysis
from agent_core.errors import (
    AgentCoreError,
    ConfigurationError,
    InvalidTargetError,
    LLMError,
    UpstreamError,
    UserInputError,
)
from agent_core.event_json import dump_events, event_from_dict, event_to_dict, load_events
from agent_core.events import (
    BreakerChanged,
    CheckedClaim,
    ClaimsChecked,
    Component,
    CostEstimate,
    Diagnosis,
    DiagramDrawn,
    DraftReviewed,
    Event,
    KeyFact,
    Notice,
    RateLimitUpdated,
    ReasoningDelta,
    Relation,
    RunFailed,
    RunFinished,
    RunStarted,
    RunStats,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolRetry,
    TurnFinished,
    TurnProgress,
    TurnStarted,
)
from agent_core.ledger import Coverage
from agent_core.settings import Settings
from agent_core.top.api import analyze, run_agent, stream_analysis
from agent_core.top.services import Services
from agent_core.top.wiring import OpenedAnalysis, open_analysis

__all__ = [
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
