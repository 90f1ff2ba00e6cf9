"""A text ReAct protocol for models and servers without native tool calling.

The system prompt gets :func:`render_tools_prompt`; each model reply is read with :func:`parse_react`;
each tool result goes back as a user message built by :func:`format_observation`. The parser is
deliberately tolerant, because small models drift from any format: labels in any case or in bold,
``Final Answer:`` for ``Final:``, the input as a fenced ```json block or followed by prose, or a bare
JSON object (``{"action": ..., "action_input": ...}`` or ``{"name": ..., "arguments": ...}``). A reply
it cannot read raises :class:`ReactFormatError`, whose message restates the format for the model.
Every read is linear (:mod:`agent_core.llm.scan` finds the JSON; the label pattern never backtracks) and
a reply past the scanner's caps gets that error too, naming the cap: the turn ends with an observation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_core.errors import UpstreamError
from agent_core.llm.scan import (
    EMPTY_ARGUMENTS,
    MAX_REPLY_CHARS,
    call_arguments,
    first_object,
    json_values,
    loads_or_none,
    written_call,
)

__all__ = ["ReactFormatError", "ReactStep", "format_observation", "parse_react", "render_tools_prompt"]

_FORMAT = """\
Thought: <your reasoning about what to do next>
Action: <one tool name>
Action Input: <the tool arguments as one JSON object, e.g. {"path": "README.md"}>"""

_FINAL_FORMAT = "Final: <your complete report in Markdown>"


@dataclass(frozen=True, kw_only=True)
class ReactStep:
    """One parsed reply: exactly one of ``action`` (with ``action_input``) or ``final`` is set."""

    thought: str | None
    action: str | None
    action_input: dict[str, Any] | None
    final: str | None


class ReactFormatError(UpstreamError):
    """The model's reply follows neither the action nor the final format.

    The message is written for the model: the agent loop sends it back as an observation.
    """


def render_tools_prompt(tools: Sequence[Mapping[str, Any]]) -> str:
    """Instructions to append to the system prompt, for tools in OpenAI ``tools`` format."""
    lines = [
        "You can use the following tools:",
        "",
    ]
    for tool in tools:
        function = tool.get("function", tool)
        name = function.get("name", "")
        description = " ".join(str(function.get("description", "")).split())
        parameters = json.dumps(function.get("parameters", {}), ensure_ascii=False, sort_keys=True)
        lines += [f"- {name}: {description}", f"  parameters (JSON Schema): {parameters}"]
    lines += [
        "",
        "To use a tool, reply in exactly this format and then stop:",
        "",
        _FORMAT,
        "",
        "Use one action per reply. Do not write the observation yourself: the tool result comes back in "
        "the next user message, starting with 'Observation:'.",
        "When you have enough information, reply instead with:",
        "",
        _FINAL_FORMAT,
    ]
    return "\n".join(lines)


def format_observation(tool: str, observation: str) -> str:
    """The user message that carries a tool result back to the model."""
    return f"Observation: (result of {tool})\n{observation}"


# A label at the start of a line, optionally in bold (**Action:** or **Action**:) or a heading. Every
# repeat is possessive (``*+``): a run of blanks is taken once and never given back, so a line of 10,000
# spaces costs one pass (with plain ``*`` the two runs of blanks side by side tried every split of it).
_LABEL = re.compile(
    r"^[ \t>#]*+(?P<bold>\*\*|__)?[ \t]*+"
    r"(?P<label>thought|action[ \t_-]*+input|action|final[ \t_-]*+answer|final|observation)"
    r"[ \t]*+(?:\*\*|__)?[ \t]*+:(?(bold)(?:\*\*|__)?)[ \t]*+",
    re.IGNORECASE | re.MULTILINE,
)
_FENCE_OPEN = re.compile(r"```[A-Za-z]*\s*$")
_TOOL_NAME = re.compile(r"[A-Za-z_][\w.\-]*")
_FINAL_NAMES = frozenset({"final", "final answer", "final_answer", "finish"})


def parse_react(text: str) -> ReactStep:
    """Read one model reply. Raises ReactFormatError when it holds neither a usable action nor a final,
    or is longer than the scanner reads (:data:`agent_core.llm.scan.MAX_REPLY_CHARS`)."""
    if len(text) > MAX_REPLY_CHARS:
        raise _format_error(
            f"the reply is {len(text):,} characters long, over the limit of {MAX_REPLY_CHARS:,}"
        )
    text = _without_think(text).strip()
    sections = _sections(text)
    thought = sections.get("thought") or _preamble(text)
    if "action" in sections:
        return _labelled_step(sections["action"], sections.get("action input"), thought)
    if "final" in sections:
        if not sections["final"]:
            raise _format_error("the Final: label is empty")
        return ReactStep(thought=thought, action=None, action_input=None, final=sections["final"])
    step = _json_step(text, thought)
    if step is None:
        raise _format_error("no 'Action:' with an 'Action Input:', and no 'Final:' was found")
    return step


def _without_think(text: str) -> str:
    """``text`` without its ``<think>...</think>`` blocks, in one pass (an unclosed one is kept: with a
    lazy regex each unclosed ``<think>`` scanned to the end)."""
    lowered, out, position = text.lower(), [], 0
    while (start := lowered.find("<think>", position)) != -1:
        end = lowered.find("</think>", start)
        if end == -1:
            break
        out.append(text[position:start])
        position = end + len("</think>")
    out.append(text[position:])
    return "".join(out)


def _sections(text: str) -> dict[str, str]:
    """Label -> text up to the next label; the first occurrence of each label wins.

    ``Final:`` runs to the end of the reply (a Markdown report may contain anything), unless an action
    came first. Anything after an ``Observation:`` label is dropped: the model invented it.
    """
    matches = list(_LABEL.finditer(text))
    sections: dict[str, str] = {}
    for position, match in enumerate(matches):
        label = _normalise_label(match.group("label"))
        if label == "observation":
            break
        if label == "final" and "action" not in sections:
            sections["final"] = text[match.end() :].strip()
            break
        end = matches[position + 1].start() if position + 1 < len(matches) else len(text)
        sections.setdefault(label, text[match.end() : end].strip())
    return sections


def _normalise_label(label: str) -> str:
    words = re.sub(r"[ \t_-]+", " ", label.lower())
    return "final" if words == "final answer" else words


def _preamble(text: str) -> str | None:
    """Free text before the first label, used as the thought when no ``Thought:`` is given."""
    first = _LABEL.search(text)
    preamble = (text[: first.start()] if first else "").strip()
    return preamble or None


def _labelled_step(action: str, action_input: str | None, thought: str | None) -> ReactStep:
    if action.startswith("{"):  # Action: {"action": ..., "action_input": ...}
        step = _json_step(action, thought)
        if step is not None:
            return step
    label = action.strip("`*'\" \t").lower()
    if label in _FINAL_NAMES:  # Action: Final Answer / Action Input: <the report>
        report = (action_input or "").strip()
        decoded = loads_or_none(report)
        final = decoded if isinstance(decoded, str) else report
        if not final:
            raise _format_error("the Final: label is empty")
        return ReactStep(thought=thought, action=None, action_input=None, final=final)
    name, arguments = _labelled_action(action, action_input)
    return ReactStep(thought=thought, action=name, action_input=arguments, final=None)


def _labelled_action(action: str, action_input: str | None) -> tuple[str, dict[str, Any]]:
    match = _TOOL_NAME.search(action)
    if match is None:
        raise _format_error("the Action: line does not name a tool")
    name = match.group(0)
    # Without an Action Input, accept arguments on the Action line itself: read_file({"path": "x"}).
    source = action_input if action_input is not None else action[match.end() :]
    if source.strip().strip("`").lower() in EMPTY_ARGUMENTS:
        return name, {}
    arguments, refused = first_object(source)
    if arguments is None:
        raise _format_error(refused or f"the Action Input for {name!r} is not a JSON object")
    return name, arguments


def _json_step(text: str, thought: str | None) -> ReactStep | None:
    """A reply given as a bare (possibly fenced) JSON object instead of labels."""
    values = json_values(text, "{")
    for start, _end, obj in values.found:
        step = _step_from_object(obj, thought)
        if step is not None:
            if thought is None:  # the text before the object, once (not once per object tried)
                preamble = _FENCE_OPEN.sub("", text[:start]).strip()
                step = replace(step, thought=preamble or None)
            return step
    if values.refused is not None:
        raise _format_error(values.refused)
    return None


def _step_from_object(obj: dict[str, Any], thought: str | None) -> ReactStep | None:
    name, raw, fields = written_call(obj) or ("", None, {})
    for holder in (obj, fields):  # {"final": ...}, or inside a {"function": ...} wrapper
        if isinstance(final := holder.get("final"), str) and final.strip():
            return ReactStep(thought=thought, action=None, action_input=None, final=final.strip())
    if not name:
        return None
    if name.lower() in _FINAL_NAMES:  # {"action": "Final Answer", "action_input": "<report>"}
        if not raw:
            return None
        final = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
        return ReactStep(thought=thought, action=None, action_input=None, final=final.strip())
    arguments = call_arguments(raw)
    if arguments is None:
        return None
    return ReactStep(thought=thought, action=name, action_input=arguments, final=None)


def _format_error(reason: str) -> ReactFormatError:
    return ReactFormatError(
        f"Your reply could not be read: {reason}. To use a tool, reply with exactly:\n"
        f"{_FORMAT}\n"
        f"or, when you are done, reply with:\n"
        f"{_FINAL_FORMAT}"
    )
