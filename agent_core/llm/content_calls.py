"""Tool calls a model wrote as text instead of calling them: found, so they are run, never reported.

Small local models offered native ``tools`` often answer with the call in ``content`` and
``finish_reason: "stop"`` (seen from Qwen2.5-Coder behind llama.cpp): a bare JSON object, a fenced
```json block, Qwen's ``<tool_call>...</tool_call>`` tags, one of several key spellings
(``{"name", "arguments"}``, ``{"function": "read_file", "arguments"}``,
``{"function": {"name", "arguments"}}``, ``{"name", "parameters"}``), or a JSON list of them.

:func:`calls_in_content` returns those calls when the reply *is* a call: every object found names a
known tool, and what is left around them is not a report (short, no heading). A report that merely
quotes such an object in an example is left alone. The JSON is found by the one scanner of model
text (:mod:`agent_core.llm.scan`): linear, and a reply over its caps is not a call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from agent_core.llm.scan import call_arguments, json_values, written_call
from agent_core.tool_call import ToolCallRequest

_WRAPPERS = re.compile(r"</?tool_call>|```[A-Za-z]*|```", re.IGNORECASE)
_SPACED = re.compile(r"[\s-]+")
_INVENTED = re.compile(r"<tool_response>", re.IGNORECASE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s", re.MULTILINE)
_MAX_PROSE = 400  # characters of text around the calls that still read as a preamble, not a report


def calls_in_content(
    text: str, tools: Collection[str], *, id_prefix: str = "content"
) -> list[ToolCallRequest]:
    """The tool calls written in ``text`` (see the module docstring), or [] when it is not a call. What
    follows a ``<tool_response>`` tag is the model inventing the result (the real 1.5B wrote a call, then
    the tag and 700 tokens of a file it had read before): left out, as the text protocol's invented
    ``Observation:`` is."""
    text = _INVENTED.split(text, maxsplit=1)[0]
    found: list[ToolCallRequest] = []
    spans: list[tuple[int, int]] = []
    for start, end, value in json_values(text).found:  # linear, capped: llm/scan.py
        calls = [_call(item, tools) for item in (value if isinstance(value, list) else [value])]
        if not calls or any(call is None for call in calls):
            continue
        spans.append((start, end))
        found.extend(call for call in calls if call is not None)
    if not found:
        return []
    prose = _WRAPPERS.sub("", _without(text, spans)).strip()
    if len(prose) > _MAX_PROSE or _HEADING.search(prose):
        return []
    return [
        ToolCallRequest(call_id=f"{id_prefix}-{i}", tool=c.tool, arguments=c.arguments)
        for i, c in enumerate(found)
    ]


def _call(item: Any, tools: Collection[str]) -> ToolCallRequest | None:
    """A call from one object, when it names a known tool and carries object arguments (or none)."""
    name, raw, _fields = written_call(item) or ("", None, {})
    if name not in tools:  # the real 0.5B wrote "Read File" for read_file, twice running
        name = _SPACED.sub("_", name.strip()).lower()
    arguments = call_arguments(raw) if name in tools else None
    if arguments is None:
        return None
    return ToolCallRequest(tool=name, arguments=json.dumps(arguments, ensure_ascii=False))


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    out, last = [], 0
    for start, end in spans:
        out.append(text[last:start])
        last = end
    out.append(text[last:])
    return "".join(out)
