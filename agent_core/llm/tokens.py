"""Offline token estimates, for budgeting a request before it is sent.

Why not ``len(text) / 4``: that rule was fitted to English BPE vocabularies. Measured against real
tokenizers it is about 16% low on English prose and code, and about 2.6x low on Chinese, where one Han
character is often a token or more. Underestimating means overflowing the context window.

Why not a real tokenizer: ``tiktoken`` downloads its BPE files on first use (no internet here), and every
provider tokenizes differently anyway. We use DeepSeek's published rule of thumb instead, which came
within 7% of real counts on our samples:

* ~0.3 tokens per ASCII character (English text, code, JSON);
* ~0.6 tokens per CJK character (Han, Hiragana, Katakana, Hangul, CJK punctuation, fullwidth forms);
* ~0.5 tokens per other non-ASCII character (accented Latin, Cyrillic, emoji...).

Prefer the ``usage`` the API reports after a turn; these estimates are only for before sending.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["MESSAGE_OVERHEAD_TOKENS", "estimate_messages", "estimate_tokens", "written_tokens"]

_ASCII_TOKENS_PER_CHAR = 0.3
_CJK_TOKENS_PER_CHAR = 0.6
_OTHER_TOKENS_PER_CHAR = 0.5

MESSAGE_OVERHEAD_TOKENS = 4
"""Role markers and separators that every chat message costs on top of its text."""

_CJK = re.compile(
    "["
    "\u1100-\u11ff"  # Hangul Jamo
    "\u2e80-\u2fdf"  # CJK radicals, Kangxi radicals
    "\u3000-\u303f"  # CJK symbols and punctuation
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK unified ideographs extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff00-\uffef"  # halfwidth and fullwidth forms
    "\U00020000-\U0003134f"  # CJK extensions B-H
    "]"
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def estimate_tokens(text: str) -> int:
    """Estimated token count of ``text``: 0 for ``""``, at least 1 otherwise, rounded up."""
    if not text:
        return 0
    if text.isascii():
        return max(1, math.ceil(len(text) * _ASCII_TOKENS_PER_CHAR))
    non_ascii = len(_NON_ASCII.findall(text))
    cjk = len(_CJK.findall(text))
    ascii_chars = len(text) - non_ascii
    estimate = (
        ascii_chars * _ASCII_TOKENS_PER_CHAR
        + cjk * _CJK_TOKENS_PER_CHAR
        + (non_ascii - cjk) * _OTHER_TOKENS_PER_CHAR
    )
    return max(1, math.ceil(estimate))


def written_tokens(piece: str) -> int:
    """Tokens of one streamed piece of a reply: its estimate, and at least one (a server streams whole
    tokens, one or more a chunk), so a reply cut short is counted from its pieces."""
    return max(1, estimate_tokens(piece))


def estimate_messages(messages: Sequence[Mapping[str, Any]]) -> int:
    """Estimated prompt tokens of chat ``messages`` (OpenAI wire format, as dicts).

    Counts ``content`` (a string or a list of ``{"type": "text", "text": ...}`` parts),
    ``reasoning_content`` (DeepSeek wants it sent back after tool calls), tool-call names and arguments,
    plus :data:`MESSAGE_OVERHEAD_TOKENS` per message. Tool schemas sent alongside are not included.
    """
    total = 0
    for message in messages:
        total += MESSAGE_OVERHEAD_TOKENS
        total += sum(estimate_tokens(text) for text in _message_texts(message))
    return total


def _message_texts(message: Mapping[str, Any]) -> list[str]:
    content = message.get("content")
    parts = content if isinstance(content, list) else [{"text": content}]
    candidates = [part.get("text") for part in parts if isinstance(part, Mapping)]
    candidates.append(message.get("reasoning_content"))
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            candidates += [function.get("name"), function.get("arguments")]
    return [text for text in candidates if isinstance(text, str)]
