"""The one scanner for JSON a model writes: tool calls in text, tool arguments and diagram proposals.

A model's reply is hostile input (any model can emit 40,000 ``{``, and a visitor may point the app at
an endpoint of their own), so every reader of it goes through here, and here the work is linear:

* :func:`json_values` finds the outermost JSON objects or arrays in free text in ONE left-to-right
  pass: brackets are paired with a stack (strings skipped by one non-backtracking regex), then each
  paired span is decoded once, outermost first; a span that does not decode is looked into, never
  re-scanned from each ``{`` to the end of the text.
* Nesting is measured while pairing, before anything is decoded: a span nested deeper than
  :data:`MAX_DEPTH` is never handed to :mod:`json` (whose decoder recurses and would raise
  ``RecursionError`` at about 1,000 levels). So a span is decoded only if at most :data:`MAX_DEPTH`
  levels deep, and a character lies in at most that many decoded spans: the decoding is linear too.
* :func:`loads` decodes a whole text (a native call's arguments) under the same caps, raising
  :class:`JSONLimitError` (a ``ValueError``) with a sentence for the model, never ``RecursionError``;
  its nesting is measured by the same pass (:func:`scan` with ``openers=WHOLE``).
* :func:`written_call` reads a tool call out of a JSON object in any spelling models write one
  (``{"name", "arguments"}``, ``{"action", "action_input"}``, ``{"function": {...}}``, the arguments as
  an object or a JSON string): the one reader for the text protocol and for calls written as content.

Texts longer than :data:`MAX_REPLY_CHARS` are not scanned at all; callers say so to the model.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EMPTY_ARGUMENTS",
    "MAX_BRACKETS",
    "MAX_DEPTH",
    "MAX_REPLY_CHARS",
    "WHOLE",
    "JSONLimitError",
    "Scan",
    "Values",
    "call_arguments",
    "first_object",
    "json_values",
    "loads",
    "loads_or_none",
    "over_caps",
    "scan",
    "written_call",
]

MAX_REPLY_CHARS = 200_000
"""A model reply longer than this is not read for tool calls, actions or a diagram (a report is about
10-40k characters; a turn is capped by the request's ``max_tokens`` anyway)."""
MAX_DEPTH = 32
"""Levels of nesting a JSON value of a model may have (a tool call is 3 levels deep, a diagram 3)."""
MAX_BRACKETS = 5_000
"""Brackets a reply may open and still be read for JSON (a diagram of 40 components opens about 100)."""

_OPEN = {"{": "}", "[": "]"}
# Inside brackets: a whole JSON string (escapes included; possessive, so a string never backtracks), an
# unterminated one (it runs to the end), or a bracket. Outside brackets only an opener matters.
_INSIDE = re.compile(r'"(?:[^"\\]|\\.)*+(?P<closed>")?|[{}\[\]]', re.DOTALL)
WHOLE = "json"
"""``openers`` for a text that is one JSON value: outside brackets too, a quote opens a string."""
_OUTSIDE = {"{[": re.compile(r"[{\[]"), "{": re.compile(r"\{"), "[": re.compile(r"\["), WHOLE: _INSIDE}


class JSONLimitError(ValueError):
    """A JSON text over the scanner's caps (too long, or nested too deep); its message is for the model."""


@dataclass(frozen=True, kw_only=True)
class Scan:
    """What one pass over a text found: each paired bracket span ``start -> (end, height)`` (``end`` just
    past the closer; height 1 for a span holding no brackets), and the deepest nesting seen."""

    spans: dict[int, tuple[int, int]]
    deepest: int


def scan(text: str, openers: str = "{[") -> Scan:
    """Pair the brackets of ``text`` in one pass (see the module docstring); outside any bracket only
    ``openers`` open one, and quotes there are prose (unless ``openers`` is :data:`WHOLE`)."""
    outside = _OUTSIDE[openers]
    spans: dict[int, tuple[int, int]] = {}
    stack: list[list[Any]] = []  # [start, closer, height of what it holds]
    deepest, position, end = 0, 0, len(text)
    while position < end:
        match = (_INSIDE if stack else outside).search(text, position)
        if match is None:
            break
        position = match.end()
        char = match.group()[0]
        if char == '"':
            if match.group("closed") is None:
                break  # an unterminated string runs to the end: nothing after it closes
        elif char in _OPEN:
            stack.append([match.start(), _OPEN[char], 0])
            deepest = max(deepest, len(stack))
        elif stack and char == stack[-1][1]:
            start, _closer, held = stack.pop()
            spans[start] = (position, held + 1)
            if stack:
                stack[-1][2] = max(stack[-1][2], held + 1)
        # a closer that closes nothing open (or the wrong kind) is text
    return Scan(spans=spans, deepest=deepest)


@dataclass(frozen=True, kw_only=True)
class Values:
    """The JSON values found in a text, and why some of it was not read (None when all of it was)."""

    found: tuple[tuple[int, int, Any], ...] = ()
    refused: str | None = None


def over_caps(text: str, *, what: str = "reply", max_chars: int = MAX_REPLY_CHARS) -> str | None:
    """Why ``text`` is not scanned at all (too long, too many brackets), in words for the model; None
    when it may be. Two C-speed counts: what is refused costs nothing in Python."""
    if len(text) > max_chars:
        return f"the {what} is {len(text):,} characters long, over the limit of {max_chars:,}"
    brackets = text.count("{") + text.count("[")
    if brackets > MAX_BRACKETS:
        return f"the {what} opens {brackets:,} brackets, over the limit of {MAX_BRACKETS:,}"
    return None


def json_values(text: str, openers: str = "{[") -> Values:
    """Each outermost JSON object or array in ``text`` that decodes, as ``(start, end, value)``, left to
    right; a span that does not decode is looked into, one nested deeper than :data:`MAX_DEPTH` is
    skipped whole (and named in ``refused``). Linear, bounded by the caps; never raises."""
    refused = over_caps(text)
    if refused is not None:
        return Values(refused=refused)
    spans = scan(text, openers).spans
    found: list[tuple[int, int, Any]] = []
    past = deepest = 0
    for start in sorted(spans):
        if start < past:
            continue
        end, height = spans[start]
        if height > MAX_DEPTH:
            deepest, past = max(deepest, height), end
            continue
        value = _parsed(text[start:end])
        if isinstance(value, dict | list):
            found.append((start, end, value))
            past = end
    too_deep = f"a JSON value is nested {deepest:,} levels deep, over the limit of {MAX_DEPTH}"
    return Values(found=tuple(found), refused=too_deep if deepest else None)


def first_object(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The first JSON object in ``text`` (in a code fence or around prose: a diagram proposal), and why
    the text was not read when it was not (over a cap)."""
    values = json_values(text, "{")
    return next((v for _, _, v in values.found if isinstance(v, dict)), None), values.refused


def loads(text: str, *, max_chars: int = MAX_REPLY_CHARS) -> Any:
    """``json.loads`` under the caps: :class:`JSONLimitError` when ``text`` is longer than ``max_chars``,
    opens more than :data:`MAX_BRACKETS` or is nested deeper than :data:`MAX_DEPTH`;
    ``json.JSONDecodeError`` when it is no JSON."""
    refused = over_caps(text, what="JSON", max_chars=max_chars)
    if refused is None and (deepest := scan(text, WHOLE).deepest) > MAX_DEPTH:
        refused = f"the JSON is nested {deepest:,} levels deep, over the limit of {MAX_DEPTH}"
    if refused is not None:
        raise JSONLimitError(refused)
    try:
        return json.loads(text)
    except RecursionError as exc:  # not reachable under MAX_DEPTH; a cap is not a crash either way
        raise JSONLimitError(f"the JSON is nested over the limit of {MAX_DEPTH} levels") from exc


def loads_or_none(text: str) -> Any:
    """:func:`loads`, or None when the text is no JSON or over a cap."""
    try:
        return loads(text)
    except ValueError:
        return None


# The keys a call's name and its arguments go by, as models spell them (first found wins).
_NAME_KEYS = ("name", "function", "action", "tool", "tool_name")
_ARGUMENT_KEYS = ("arguments", "action_input", "parameters", "input", "args")
EMPTY_ARGUMENTS = frozenset({"", "none", "null", "n/a", "{}"})
"""Arguments written as text that mean none (lower-cased, stripped)."""


def written_call(value: Any) -> tuple[str, Any, dict[str, Any]] | None:
    """The tool call a JSON object names, whichever spelling a model chose: ``(name, raw arguments,
    fields)``: the name stripped (``""`` when it names none), the arguments as written (None when it gives
    none; read them with :func:`call_arguments`), the object's fields with its ``function`` wrappers taken
    off. None when ``value`` is no object."""
    if not isinstance(value, dict):
        return None
    while isinstance(
        function := value.get("function"), dict
    ):  # {"function": {"name": ..., "arguments": ...}}
        value = function
    name = next((value[key].strip() for key in _NAME_KEYS if isinstance(value.get(key), str)), "")
    return name, next((value[key] for key in _ARGUMENT_KEYS if key in value), None), value


def call_arguments(raw: Any) -> dict[str, Any] | None:
    """A call's arguments as an object: an object as is, nothing or an empty word as ``{}``, a JSON string
    decoded (OpenAI's wire form; once more when a model encoded it twice); None for anything else."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        if raw.strip().lower() in EMPTY_ARGUMENTS:
            return {}
        raw = loads_or_none(raw)
        if isinstance(raw, str):  # double-encoded (once: a model does not encode thrice)
            raw = loads_or_none(raw)
    return raw if isinstance(raw, dict) else None


def _parsed(text: str) -> Any:
    """A span whose nesting :func:`scan` measured: decoded as is (None when it is no JSON)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
