"""The model layer: one streamed turn over any OpenAI-compatible endpoint, provider presets, a text
ReAct protocol for endpoints without tool calling, and offline token estimates."""

from .model import (
    ChatModel,
    IncompleteStreamError,
    OpenAIChatModel,
    ToolsUnsupportedError,
    make_openai_client,
)
from .providers import (
    DEFAULT_PROVIDER,
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
    "StreamPart",
    "ToolCallAccumulator",
    "ToolCallDelta",
    "ToolCallRequest",
    "ToolsUnsupportedError",
    "TurnAccumulator",
    "TurnComplete",
    "Usage",
    "estimate_cost",
    "estimate_messages",
    "estimate_tokens",
    "format_observation",
    "infer_provider",
    "make_openai_client",
    "model_configured",
    "parse_react",
    "render_tools_prompt",
    "resolve_model_config",
]
