"""The scripted model's prompt cache, billed the way DeepSeek bills its context cache.

DeepSeek caches every request's prompt on disk; a later request whose prompt starts with the same bytes
is served that prefix from the cache and reports it as ``usage.prompt_cache_hit_tokens`` (the rest as
``prompt_cache_miss_tokens``), in whole storage units of 64 tokens. Only a prefix counts: the same text
after one changed byte is a miss. :class:`PromptCache` does the same for the scripted server:

* the prompt is what a chat template makes of the request: the system message, then the tool list,
  then every other message in order (:func:`render_prompt`); tokens are its characters / 4;
* the hit of a request is its longest common prefix with any earlier request's prompt (of the same
  server), cut to 64-token units; the request's prompt is then stored for the requests after it, from
  ``ready_after`` seconds on (the model has read it: two requests sent at once do not share what
  neither had stored).

So a test or the benchmark can read, from the usage the app received, how much of each prompt a
provider's cache would have served, and any byte that changes early in the prompt shows as a miss.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from testing.emulator.model_wire import JSONDict, Turn

CHARS_PER_TOKEN = 4
UNIT_TOKENS = 64  # DeepSeek's cache storage unit


def render_prompt(body: Mapping[str, Any]) -> str:
    """The prompt a request becomes: the leading system message, the tools, the other messages."""
    messages: Sequence[Mapping[str, Any]] = body.get("messages") or []
    lead = 1 if messages and messages[0].get("role") == "system" else 0
    tools = body.get("tools")
    said = [_message(m) for m in messages[:lead]]
    said += (
        [f"<tools>{json.dumps(tools, ensure_ascii=False, separators=(',', ':'))}</tools>\n"] if tools else []
    )
    said += [_message(m) for m in messages[lead:]]
    return "".join(said)


def tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class PromptCache:
    """The prompts this server has seen, and what a new request hits of them (module docstring)."""

    def __init__(self, *, ready_after: float = 0.0) -> None:
        self._prompts: list[tuple[float, str]] = []  # (when it is stored, the prompt)
        self._ready_after = ready_after
        self._lock = threading.Lock()

    def hit_tokens(self, prompt: str) -> int:
        """Tokens of ``prompt`` served from the cache (whole 64-token units), then remember it."""
        now = time.monotonic()
        with self._lock:
            stored = [seen for ready, seen in self._prompts if ready <= now]
            shared = max((_shared(prompt, seen) for seen in stored), default=0)
            self._prompts.append((now + self._ready_after, prompt))
        return (shared // CHARS_PER_TOKEN) // UNIT_TOKENS * UNIT_TOKENS

    def metered(self, body: JSONDict, turn: Turn) -> Turn:
        """``turn`` with the usage the server counted: the prompt's tokens, the cached part of them, and
        the reply's (the scripted completion count when the turn has one)."""
        if turn.status is not None:
            return turn
        prompt = render_prompt(body)
        said = turn.content + turn.reasoning + "".join(c.name + c.arguments for c in turn.tool_calls)
        completion = turn.usage[1] if turn.usage is not None else tokens(said)
        prompt_tokens = tokens(prompt)
        hit = min(self.hit_tokens(prompt), prompt_tokens)
        return replace(turn, usage=(prompt_tokens, completion), cache_hit_tokens=hit)


def _message(message: Mapping[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"


def _shared(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (a binary search over slices)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
