"""Reading what the model replied, as real models reply: a report, tool calls, or a call written as text.

:func:`native_step` reads a native tool-calling reply. Its ``tool_calls`` are the calls; when there
are none, a call written in ``content`` (bare or fenced JSON, ``<tool_call>`` tags, any of the usual
key spellings: :func:`agent_core.llm.content_calls.calls_in_content`) is run too, and recorded in the
conversation as the tool call it meant to be, so the next turn reads a well-formed exchange.

:func:`react_step` reads a text-protocol reply. Only its first ``Action`` runs; what follows it (an
invented ``Observation:``, more actions, a premature ``Final:``) is dropped, and the conversation keeps
only the parsed thought and action. ``Final:`` ends the run only when no action was parsed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent_core.agent.run import Run
from agent_core.llm import ModelTurn, ReactFormatError, ToolCallRequest, format_observation, parse_react
from agent_core.llm.content_calls import calls_in_content
from agent_core.tools.registry import TOOL_NAMES
from agent_core.words import t


@dataclass(frozen=True, kw_only=True)
class Step:
    """What one reply means: a report, or calls to run (and a note for the people watching)."""

    report: str | None = None
    calls: list[ToolCallRequest] = field(default_factory=list)
    notice: str | None = None
    dropped: int = 0  # calls past the run's tool-call limit left out of the conversation


def native_step(run: Run, turn: ModelTurn) -> Step:
    conversation = run.parts.conversation
    calls = list(turn.tool_calls)
    notice = None
    if not calls:
        calls = calls_in_content(turn.content, TOOL_NAMES, id_prefix=f"text-{run.turn}")
        if calls:
            notice = (
                f"The model wrote {len(calls)} tool call(s) as text instead of calling them; running them."
            )
    if not calls:
        report = _unfenced(turn.content.strip()) or None
        if report is not None:
            conversation.add({"role": "assistant", "content": turn.content})
            return Step(report=report)
        # Told nothing, a model at temperature 0 replies nothing again: the real 1.5B answered a failed
        # read with one end-of-text token, 8 turns running, until the turn limit.
        conversation.add({"role": "user", "content": t("to_model_empty_reply", run.language)})
        return Step(notice="The model's reply was empty; asking it for the report (or a read).")
    # Past the run's tool-call limit one call is kept, to carry the one observation that says so: 4,000
    # calls in a reply are not 4,000 observations (each one re-counted the conversation).
    kept = run.calls_left() + 1
    dropped = max(0, len(calls) - kept)
    calls = calls[:kept]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": (turn.content or None) if turn.tool_calls else None,
        "tool_calls": [_wire_call(c) for c in calls],
    }
    if turn.reasoning:
        # DeepSeek thinking mode: an assistant message that carried tool calls must keep its
        # reasoning_content in every later request, or the API answers 400.
        message["reasoning_content"] = turn.reasoning
    conversation.add(message)
    return Step(calls=list(calls), notice=notice, dropped=dropped)


def react_step(run: Run, turn: ModelTurn) -> Step:
    conversation = run.parts.conversation
    try:
        step = parse_react(turn.content)
    except ReactFormatError as exc:
        conversation.add({"role": "assistant", "content": turn.content})
        conversation.add({"role": "user", "content": format_observation("format", exc.message)})
        return Step()
    if step.action is not None:
        arguments = step.action_input or {}
        kept = [f"Thought: {step.thought}"] if step.thought else []
        kept += [f"Action: {step.action}", f"Action Input: {json.dumps(arguments, ensure_ascii=False)}"]
        conversation.add({"role": "assistant", "content": "\n".join(kept)})
        return Step(
            calls=[ToolCallRequest(call_id=f"react-{run.turn}", tool=step.action, arguments=arguments)]
        )
    conversation.add({"role": "assistant", "content": turn.content})
    final = (step.final or "").strip()
    return Step(report=final or None)


def _wire_call(call: ToolCallRequest) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments))
    return {"id": call.call_id, "type": "function", "function": {"name": call.tool, "arguments": arguments}}


def _unfenced(text: str) -> str:
    """A report wrapped whole in one code fence, unwrapped: the real 1.5B fenced its google/gson report,
    which the page would show as one block of code."""
    if not (text.startswith("```") and text.endswith("```")) or text.count("```") != 2:
        return text
    inner = text[3:-3].partition("\n")[2].strip()
    return inner if inner.startswith("#") else text
