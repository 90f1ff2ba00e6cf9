"""The model layer: one streamed turn over any OpenAI-compatible endpoint, provider presets, a text
ReAct protocol for endpoints without tool calling, and offline token estimates."""

from .endpoint_guard import Resolver, check_visitor_url, guarded_client, system_resolver
from .model import (
    ChatModel,
    IncompleteStreamError,
    OpenAIChatModel,
    ToolsUnsupportedError,
    make_openai_client,
)
from .providers import (
    DEFAULT_PROVIDER,
    PRESET_HOSTS,
    PRESETS,
    ModelConfig,
    ProviderPreset,
    estimate_cost,
    infer_provider,
    model_configured,
    resolve_model_config,
)
from .stream import (
    ContentDelta,
    ModelTurn,
    ReasoningDelta,
    StreamPart,
    ToolCallAccumulator,
    ToolCallDelta,
    ToolCallRequest,
    TurnAccumulator,
    TurnComplete,
    Usage,
)
from .text_protocol import ReactFormatError, ReactStep, format_observation, parse_react, render_tools_prompt
from .tokens import estimate_messages, estimate_tokens

__all__ = [
    "DEFAULT_PROVIDER",
    "PRESETS",
    "PRESET_HOSTS",
    "ChatModel",
    "ContentDelta",
    "IncompleteStreamError",
    "ModelConfig",
    "ModelTurn",
    "OpenAIChatModel",
    "ProviderPreset",
    "ReactFormatError",
    "ReactStep",
    "ReasoningDelta",
    "Resolver",
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
