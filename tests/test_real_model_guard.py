"""The stream's guard and the stall deadline against a real model: Qwen2.5-Coder-0.5B-Instruct behind
llama.cpp's server, temperature 0 and a fixed seed, through the real client.

A model told to repeat a line does what looping models do by accident: the guard must stop the turn at
the first repeat and close the stream (the server stops writing). The stall deadline must fail a turn
whose server says nothing for longer than it (the prompt is read silently, without ``return_progress``),
and never a turn whose tokens keep coming.

``.ci/run`` installs the model and sets ``REQUIRE_LOCAL_LLM=1``, so in CI a missing model fails; elsewhere
the tests are skipped with the reason.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from agent_core.errors import LLMError
from agent_core.llm import ModelTurn, OpenAIChatModel, TurnComplete, make_openai_client
from testing.llm import LocalModel

pytestmark = pytest.mark.slow
SEED = {"seed": 7}
LINE = "- **Flask-StaticFiles-URL**: A tool for generating URLs for static files."


@pytest.fixture
def small_model(small_local_model: LocalModel) -> LocalModel:
    return small_local_model  # one server for every real-model test (tests/conftest.py)


async def one_turn(
    model: LocalModel,
    prompt: str | list[dict[str, str]],
    *,
    stall: float,
    max_tokens: int,
    extra: dict[str, object] | None = None,
) -> AsyncIterator[ModelTurn]:
    client = make_openai_client(base_url=model.base_url, api_key=model.key, max_retries=0, timeout=600)
    try:
        chat = OpenAIChatModel(
            client,
            model=model.name,
            turn_timeout=stall,
            max_tokens=max_tokens,
            temperature=0.0,
            extra_body={**SEED, **(extra or {})},
        )
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        async for part in chat.stream_turn(messages, tools=None):
            if isinstance(part, TurnComplete):
                yield part.turn
    finally:
        await client.close()


async def test_a_real_model_that_loops_is_cut_at_its_first_repeat(small_model: LocalModel) -> None:
    # Told once, the 0.5B writes the line once; shown its own list so far, it goes on the same way.
    prompt = [
        {"role": "user", "content": f"Write this Markdown line 40 times, one per line:\n{LINE}"},
        {"role": "assistant", "content": f"{LINE}\n{LINE}"},
        {"role": "user", "content": "Continue: the same line, 38 more times, nothing else."},
    ]
    started = time.monotonic()
    turns = [t async for t in one_turn(small_model, prompt, stall=600, max_tokens=160)]
    (turn,) = turns
    assert turn.degeneration is not None, turn.content
    assert turn.finish_reason == "repetition"
    assert turn.content.count("generating URLs") <= 1
    print(
        f"\nreal model looped; cut at line {turn.degeneration.line} after {time.monotonic() - started:.0f} s"
    )


async def test_a_real_model_still_writing_is_never_stopped_by_the_stall_deadline(
    small_model: LocalModel,
) -> None:
    started = time.monotonic()
    turns = [
        t
        async for t in one_turn(
            small_model, "Count from 1 to 200, comma-separated.", stall=20.0, max_tokens=60
        )
    ]
    (turn,) = turns
    assert turn.finish_reason in ("length", "stop")
    assert turn.degeneration is None  # counting is not looping
    print(f"\nreal model wrote {len(turn.content)} characters in {time.monotonic() - started:.0f} s")


# Last of the real-model tests: the server goes on reading the abandoned prompt (one ~5 s batch) after the
# client gave up, and a model test after it waited for that (11 s instead of 6).
async def test_a_real_model_reading_silently_past_the_stall_deadline_fails(small_model: LocalModel) -> None:
    # ~1,400 prompt tokens (the window is 4,096): seconds of silent reading on a CPU, far over one second.
    prompt = "Summarise in one word: " + " ".join(f"item{i} is fine." for i in range(200))
    with pytest.raises(LLMError, match="nothing arrived for 1s"):
        _ = [t async for t in one_turn(small_model, prompt, stall=1.0, max_tokens=8)]
