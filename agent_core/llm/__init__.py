"""The model layer: one streamed turn over any OpenAI-compatible endpoint, provider presets, a text
ReAct protocol for endpoints without tool calling, and offline token estimates."""

from agent_core.tool_call import ToolCallRequest

from .degeneration import Degeneration, RepetitionGuard
from .endpoint_guard import Resolver, check_visitor_url, guarded_client, system_resolver
from .model import (
    ChatModel,
    ContextExceededError,
    IncompleteStreamError,
    OpenAIChatModel,
    Sampling,
    ToolsUnsupportedError,
    make_openai_client,
)
from .parts import (
    ContentDelta,
    ModelTurn,
    PromptProgress,
    ReasoningDelta,
    StreamPart,
    ToolCallDelta,
    TurnComplete,
    Usage,
)
from .providers import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_PROVIDER,
    DEFAULT_WALL_SECONDS,
    LOCAL_TURN_SECONDS,
    PRESET_HOSTS,
    PRESETS,
    ModelConfig,
    ProviderPreset,
    estimate_cost,
    infer_provider,
    model_configured,
    resolve_model_config,
)
from .stream import ToolCallAccumulator, TurnAccumulator
from .text_protocol import ReactFormatError, ReactStep, format_observation, parse_react, render_tools_prompt
from .tokens import estimate_messages, estimate_tokens

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_PROVIDER",
    "DEFAULT_WALL_SECONDS",
    "LOCAL_TURN_SECONDS",
    "PRESETS",
    "PRESET_HOSTS",
    "ChatModel",
    "ContentDelta",
    "ContextExceededError",
    "Degeneration",
    "IncompleteStreamError",
    "ModelConfig",
    "ModelTurn",
    "OpenAIChatModel",
    "PromptProgress",
    "ProviderPreset",
    "ReactFormatError",
    "ReactStep",
    "ReasoningDelta",
    "RepetitionGuard",
    "Resolver",
    "Sampling",
    "StreamPart",
    "ToolCallAccumulator",
    "ToolCallDelta",
    "ToolCallRequest",
    "ToolsUnsupportedError",
    "TurnAccumulator",
    "TurnComplete",
    "Usage",
    "check_visitor_url",
    "estimate_cost",
    "estimate_messages",
    "estimate_tokens",
    "format_observation",
    "guarded_client",
    "infer_provider",
    "make_openai_client",
    "model_configured",
    "parse_react",
    "render_tools_prompt",
    "resolve_model_config",
    "system_resolver",
]
