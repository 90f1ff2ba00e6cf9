"""The scripted model server, checked against the real ``openai`` SDK over loopback HTTP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionChunk

from testing.clock import HeldWaits
from testing.emulator.model_server import NO_TURN_MESSAGE, ScriptedModelServer, ToolCallSpec, Turn

MESSAGES: list[Any] = [{"role": "user", "content": "Analyse octocat/hello-world"}]
# How long a test waits for a condition before it fails: far beyond any busy-machine delay, and never
# waited out by a passing test (conditions are checked as they change).
PATIENCE = 60.0


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as srv:
        yield srv


@pytest.fixture
async def client(server: ScriptedModelServer) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0) as sdk:
        yield sdk


async def stream_all(
    client: openai.AsyncOpenAI, messages: list[Any] = MESSAGES, **options: Any
) -> list[ChatCompletionChunk]:
    stream = await client.chat.completions.create(
        model="deepseek-flash",
        messages=messages,
        stream=True,
        stream_options={"include_usage": True},
        **options,
    )
    async with stream:
        return [chunk async for chunk in stream]


def accumulate_tool_calls(chunks: list[ChatCompletionChunk]) -> list[dict[str, str]]:
    """Key by index (falling back to id), first id wins, name set once, arguments concatenated."""
    calls: dict[int | str, dict[str, str]] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for fragment in choice.delta.tool_calls or []:
                index = getattr(fragment, "index", None)
                key = index if index is not None else fragment.id
                assert key is not None
                slot = calls.setdefault(key, {"id": "", "name": "", "arguments": ""})
                slot["id"] = slot["id"] or fragment.id or ""
                if fragment.function is not None:
                    slot["name"] = slot["name"] or fragment.function.name or ""
                    slot["arguments"] += fragment.function.arguments or ""
    return list(calls.values())


def text_of(chunks: list[ChatCompletionChunk]) -> str:
    return "".join(c.delta.content or "" for chunk in chunks for c in chunk.choices)


def finish_reasons(chunks: list[ChatCompletionChunk]) -> list[str]:
    return [c.finish_reason for chunk in chunks for c in chunk.choices if c.finish_reason is not None]


async def test_content_streams_in_several_chunks_and_usage_comes_last(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    text = "The repository is small and tidy."
    server.push(Turn.final(text, chunk_size=6, usage=(120, 9), cache_hit_tokens=100))

    chunks = await stream_all(client)

    pieces = [c.delta.content for chunk in chunks for c in chunk.choices if c.delta.content]
    assert len(pieces) == 6
    assert "".join(pieces) == text
    assert finish_reasons(chunks) == ["stop"]
    assert {(chunk.id, chunk.model, chunk.object) for chunk in chunks} == {
        ("chatcmpl-scripted-1", "deepseek-flash", "chat.completion.chunk")
    }
    *body, last = chunks
    assert all(chunk.choices and chunk.usage is None for chunk in body)
    assert last.choices == []
    assert last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens, last.usage.total_tokens) == (120, 9, 129)
    assert last.usage.model_extra == {"prompt_cache_hit_tokens": 100, "prompt_cache_miss_tokens": 20}
    server.assert_exhausted()


async def test_usage_chunk_only_when_requested(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    server.push(Turn.final("ok", usage=(1, 1)))

    stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    async with stream:
        chunks = [chunk async for chunk in stream]

    assert all(chunk.choices for chunk in chunks)
    assert all(chunk.usage is None for chunk in chunks)


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_arrives_as_an_extra_delta_field(
    server: ScriptedModelServer, client: openai.AsyncOpenAI, field: Any
) -> None:
    server.push(Turn(reasoning="Look at the README first.", content="Done.", reasoning_field=field))

    chunks = await stream_all(client)

    extras = [c.delta.model_extra or {} for chunk in chunks for c in chunk.choices]
    reasoning = [extra[field] for extra in extras if field in extra]
    assert len(reasoning) > 1
    assert "".join(reasoning) == "Look at the README first."
    other = {"reasoning_content", "reasoning"} - {field}
    assert not any(other & extra.keys() for extra in extras)
    assert text_of(chunks) == "Done."


TWO_CALLS = (
    ToolCallSpec("get_repo_info", '{"owner": "octocat", "repo": "hello-world"}'),
    ToolCallSpec("list_files", '{"path": "src", "broken": ', id="call_fixed"),
)


@pytest.mark.parametrize(
    "shape",
    [{}, {"interleave": True}, {"ollama_style": True}, {"ollama_style": True, "omit_index": True}],
    ids=["openai", "interleaved", "ollama", "ollama-no-index"],
)
async def test_tool_call_fragments_reassemble_per_call(
    server: ScriptedModelServer, client: openai.AsyncOpenAI, shape: dict[str, Any]
) -> None:
    server.push(Turn(tool_calls=TWO_CALLS, chunk_size=5, **shape))

    chunks = await stream_all(client)

    assert accumulate_tool_calls(chunks) == [
        {"id": "call_1", "name": "get_repo_info", "arguments": TWO_CALLS[0].arguments},
        {"id": "call_fixed", "name": "list_files", "arguments": TWO_CALLS[1].arguments},
    ]
    assert finish_reasons(chunks) == ["tool_calls"]
    fragments = [f for chunk in chunks for c in chunk.choices for f in c.delta.tool_calls or []]
    names = [f.function.name for f in fragments if f.function is not None and f.function.name]
    roles = [c.delta.role for chunk in chunks for c in chunk.choices if c.delta.role]
    if shape.get("ollama_style"):
        # The quirk clients must survive: naive concatenation would give "get_repo_infoget_repo_info…".
        assert len(names) == len(fragments) > 2
        assert len(roles) == len(chunks)  # on every chunk (no usage was scripted)
    else:
        assert names == ["get_repo_info", "list_files"]
        assert roles == ["assistant"]
    several_calls_in_one_chunk = any(
        len(c.delta.tool_calls or []) > 1 for chunk in chunks for c in chunk.choices
    )
    assert several_calls_in_one_chunk == bool(shape.get("interleave"))
    if shape.get("omit_index"):
        assert all(getattr(f, "index", None) is None for f in fragments)


async def test_non_streaming_request_gets_the_turn_in_one_body(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    server.push(
        Turn.calls(("get_repo_info", {"owner": "o", "repo": "r"}), reasoning="Need metadata.", usage=(50, 7)),
        Turn.final("Final answer."),
    )

    first = await client.chat.completions.create(model="m", messages=MESSAGES)
    second = await client.chat.completions.create(model="m", messages=MESSAGES)

    message = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert message.content is None
    assert (message.model_extra or {})["reasoning_content"] == "Need metadata."
    assert message.tool_calls is not None
    (call,) = message.tool_calls
    assert call.type == "function"
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (
        "call_1",
        "get_repo_info",
        {"owner": "o", "repo": "r"},
    )
    assert first.usage is not None
    assert first.usage.prompt_tokens == 50
    assert (second.choices[0].message.content, second.choices[0].finish_reason) == ("Final answer.", "stop")
    server.assert_exhausted()


@pytest.mark.parametrize(
    ("turn", "error_type"),
    [
        (Turn.error(500), openai.InternalServerError),
        (Turn.error(401, "Authentication Fails"), openai.AuthenticationError),
        (Turn.error(402, "Insufficient Balance"), openai.APIStatusError),
        (Turn.error(400, "registry.ollama.ai/library/gemma does not support tools"), openai.BadRequestError),
    ],
)
async def test_error_status_maps_to_the_sdk_exception(
    server: ScriptedModelServer,
    client: openai.AsyncOpenAI,
    turn: Turn,
    error_type: type[openai.APIStatusError],
) -> None:
    server.push(turn)

    with pytest.raises(error_type) as caught:
        await stream_all(client)

    assert caught.value.status_code == turn.status
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["message"] == (turn.error_message or caught.value.response.reason_phrase)


async def test_rate_limit_carries_retry_after_and_the_sdk_honours_it(server: ScriptedModelServer) -> None:
    server.push(
        Turn.error(429, "slow down", retry_after=2), Turn.error(429, retry_after=0.1), Turn.final("ok")
    )

    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0) as sdk:
        with pytest.raises(openai.RateLimitError) as caught:
            await sdk.chat.completions.create(model="m", messages=MESSAGES)
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=1) as sdk:
        answer = await sdk.chat.completions.create(model="m", messages=MESSAGES)

    assert caught.value.response.headers["retry-after"] == "2"
    assert answer.choices[0].message.content == "ok"
    retried, succeeded = server.chat_requests[1:]
    assert succeeded.received_at - retried.received_at >= 0.1
    server.assert_exhausted()


async def test_disconnect_mid_stream_raises_connection_error(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    server.push(Turn.final("a fairly long answer that never finishes", chunk_size=4, disconnect_after=3))
    received: list[ChatCompletionChunk] = []

    stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)

    async def consume() -> None:
        async with stream:
            async for chunk in stream:
                received.append(chunk)

    with pytest.raises(openai.APIConnectionError):
        await consume()

    assert len(received) == 3
    assert finish_reasons(received) == []


async def test_stream_without_done_ends_silently_without_finish_reason(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    server.push(Turn.final("half an answer", no_done=True, usage=(5, 5)))

    chunks = await stream_all(client)

    assert text_of(chunks) == "half an answer"
    assert finish_reasons(chunks) == []
    assert all(chunk.usage is None for chunk in chunks)


async def test_wire_format_is_sse_with_comments_and_done(server: ScriptedModelServer) -> None:
    server.push(Turn.final("hi", keepalive_comments=2))
    request = {"model": "m", "messages": MESSAGES, "stream": True}

    async with httpx.AsyncClient(base_url=server.base_url) as raw:
        response = await raw.post("/chat/completions", json=request)

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["transfer-encoding"] == "chunked"
    events = response.text.split("\n\n")
    assert events[:2] == [": keep-alive", ": keep-alive"]
    assert events[-2:] == ["data: [DONE]", ""]
    payloads = [json.loads(event.removeprefix("data: ")) for event in events[2:-2]]
    assert [p["choices"][0]["delta"] for p in payloads] == [
        {"role": "assistant", "content": ""},
        {"content": "hi"},
        {},
    ]
    assert payloads[-1]["choices"][0]["finish_reason"] == "stop"
    assert server.requests[0].authorization is None


async def test_non_streaming_disconnect_raises_connection_error(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    server.push(Turn.final("cut in half", disconnect_after=0))

    with pytest.raises(openai.APIConnectionError):
        await client.chat.completions.create(model="m", messages=MESSAGES)


async def test_empty_stream_has_only_a_stop(server: ScriptedModelServer, client: openai.AsyncOpenAI) -> None:
    server.push(Turn(empty=True, keepalive_comments=3))

    chunks = await stream_all(client)

    assert len(chunks) == 1
    assert chunks[0].choices[0].delta.content is None
    assert finish_reasons(chunks) == ["stop"]


async def test_hang_is_cut_by_a_client_deadline(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    server.push(Turn(content="never sent", hang=True))

    stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    async with stream:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await anext(aiter(stream))

    await wait_until(lambda: server.in_flight == 0)  # the server noticed the client hang up


async def test_stop_does_not_wait_for_a_hung_response(server: ScriptedModelServer) -> None:
    server.push(Turn(content="never sent", hang=True, latency=0))

    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0) as sdk:
        stream = await sdk.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        # The client keeps its connection open until stop() returns: a stop() that waited for the client
        # would never return, and the (generous) bound below would fail the test.
        await asyncio.wait_for(asyncio.to_thread(server.stop), PATIENCE)
        with pytest.raises(openai.APIConnectionError):
            async with stream:
                await anext(aiter(stream))


async def test_chunks_are_flushed_as_they_are_sent(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    held = server.waits = HeldWaits()
    server.push(Turn.final("0123456789abcdefghij", chunk_size=4, delay_per_chunk=0.05))
    chunks: list[ChatCompletionChunk] = []

    stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    async with stream, asyncio.timeout(PATIENCE):
        async for chunk in stream:
            chunks.append(chunk)
            # The server is held in the pause before its next event, and cannot go on until released:
            # this one reached the client on its own. A buffering server would never get here.
            assert await asyncio.to_thread(held.wait_held, 1)
            held.release()

    # role + 5 content + finish chunks, each with a pause after it (the last one before [DONE]).
    assert len(chunks) == 7
    assert text_of(chunks) == "0123456789abcdefghij"
    assert held.requested == [0.05] * 7


async def test_latency_and_concurrency_are_observable(server: ScriptedModelServer) -> None:
    held = server.waits = HeldWaits()
    server.default_latency = 0.2
    server.push(Turn.final("a"), Turn.final("b"), Turn.final("c", latency=0))

    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0) as sdk:
        both = asyncio.gather(*(stream_all(sdk) for _ in range(2)))
        assert await asyncio.to_thread(held.wait_held, 2)  # both wait out their latency at the same time
        assert not both.done()  # and neither is answered before its latency is over
        assert server.in_flight == 2
        assert not server.wait_idle(0)  # busy: the wait for idleness is not over
        held.open()
        answers = await both
        assert await asyncio.to_thread(server.wait_idle, PATIENCE)  # ends as the last response does
        third = await stream_all(sdk)

    assert sorted("".join(c.delta.content or "" for ch in a for c in ch.choices) for a in answers) == [
        "a",
        "b",
    ]
    assert text_of(third) == "c"
    assert held.requested == [0.2, 0.2]  # the default latency twice; the third turn's 0 never waited
    assert server.max_in_flight == 2
    assert server.in_flight == 0
    assert {r.authorization for r in server.requests} == {"Bearer sk-local"}
    assert all(r.has_authorization and r.body and r.body["stream"] is True for r in server.requests)


async def test_responder_answers_until_a_tool_result_is_present(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    def responder(request: dict[str, Any]) -> Turn:
        if any(message["role"] == "tool" for message in request["messages"]):
            return Turn.final("The repo has 42 stars.")
        return Turn.calls(("get_repo_info", {"owner": "octocat", "repo": "hello-world"}))

    server.responder = responder
    first = await stream_all(client)
    (call,) = accumulate_tool_calls(first)
    history = [
        *MESSAGES,
        {"role": "assistant", "tool_calls": [{"id": call["id"], "type": "function", "function": call}]},
        {"role": "tool", "tool_call_id": call["id"], "content": '{"stars": 42}'},
    ]
    second = await stream_all(client, history)

    assert text_of(second) == "The repo has 42 stars."
    assert [len(r.messages) for r in server.chat_requests] == [1, 3]
    server.assert_exhausted()


async def test_model_list_and_request_records(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    models = await client.models.list()

    assert [model.id for model in models.data] == ["scripted-model"]
    (request,) = server.requests
    assert (request.method, request.path, request.body, request.authorization) == (
        "GET",
        "/v1/models",
        None,
        "Bearer test",
    )
    server.assert_exhausted()


async def test_assert_exhausted_reports_a_leftover_turn(server: ScriptedModelServer) -> None:
    server.push(Turn.final("never asked for"))

    with pytest.raises(AssertionError, match=r"1 scripted turn\(s\) never requested"):
        server.assert_exhausted()


async def test_unexpected_request_gets_500_and_fails_assert_exhausted(
    server: ScriptedModelServer, client: openai.AsyncOpenAI
) -> None:
    server.push(Turn.final("the only turn"))
    await stream_all(client)

    with pytest.raises(openai.InternalServerError) as caught:
        await stream_all(client)

    assert caught.value.body == {"message": NO_TURN_MESSAGE, "type": "server_error"}
    assert server.errors == [f"chat request #2: {NO_TURN_MESSAGE}"]
    with pytest.raises(AssertionError, match="no turn left"):
        server.assert_exhausted()


async def wait_until(condition: Any, timeout: float = PATIENCE) -> None:
    """Poll observable server state; the server runs on its own threads."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)
