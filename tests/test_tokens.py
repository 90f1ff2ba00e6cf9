"""Offline token estimates: CJK-aware, and never the characters/4 rule."""

from __future__ import annotations

import math
from typing import Any

import pytest

from agent_core.llm import estimate_messages, estimate_tokens
from agent_core.llm.tokens import MESSAGE_OVERHEAD_TOKENS

ENGLISH = (
    "The agent reads the repository through the GitHub REST API, retries transient failures with "
    "jittered backoff, and opens a circuit breaker when a tool keeps failing."
)
CHINESE = "这个代理通过接口读取仓库内容并在失败时重试以及打开断路器保护后续调用"  # 34 Han characters


def within(estimate: int, reference: float, tolerance: float = 0.10) -> bool:
    return abs(estimate - reference) <= tolerance * reference


def test_empty_and_tiny_texts() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("中") == 1


def test_english_is_about_point_three_tokens_per_char() -> None:
    estimate = estimate_tokens(ENGLISH)
    assert within(estimate, 0.3 * len(ENGLISH))
    assert estimate > len(ENGLISH) / 4  # characters/4 is low on English


def test_chinese_is_about_point_six_tokens_per_char_and_far_above_chars_over_four() -> None:
    assert len(CHINESE) == 34
    estimate = estimate_tokens(CHINESE)
    assert within(estimate, 0.6 * 34)
    assert estimate > 2 * (len(CHINESE) / 4)


@pytest.mark.parametrize(
    ("text", "per_char"),
    [
        ("ひらがなとカタカナ", 0.6),  # Hiragana + Katakana
        ("한국어텍스트", 0.6),  # Hangul
        ("ＡＢＣ１２３", 0.6),  # fullwidth forms
        ("éàüößçñ", 0.5),  # other non-ASCII
    ],
)
def test_other_scripts(text: str, per_char: float) -> None:
    assert estimate_tokens(text) == math.ceil(per_char * len(text))


def test_mixed_text_adds_up_and_rounds_up() -> None:
    text = "README 说明"  # 7 ASCII (incl. space) + 2 Han
    assert estimate_tokens(text) == math.ceil(7 * 0.3 + 2 * 0.6)


def test_estimate_messages_counts_content_reasoning_and_tool_calls() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": ENGLISH},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": CHINESE,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "file body"}]},
    ]
    expected = (
        3 * MESSAGE_OVERHEAD_TOKENS
        + estimate_tokens(ENGLISH)
        + estimate_tokens(CHINESE)
        + estimate_tokens("read_file")
        + estimate_tokens("{}")
        + estimate_tokens("file body")
    )
    assert estimate_messages(messages) == expected
    assert estimate_messages([]) == 0
