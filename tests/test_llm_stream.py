"""The stream accumulators (one test per provider quirk) and OpenAIChatModel over real local HTTP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionChunk

import agent_core.llm
from agent_core.errors import ConfigurationError, LLMError
from agent_core.llm import (
    ContentDelta,
    IncompleteStreamError,
    ModelTurn,
    OpenAIChatModel,
    ReasoningDelta,
    StreamPart,
    ToolCallAccumulator,
    ToolCallDelta,
    ToolCallRequest,
    ToolsUnsupportedError,
    TurnAccumulator,
    TurnComplete,
    Usage,
    make_openai_client,
)
from testing.clock import SkippingClock, SkippingLoop
from testing.emulator.model_server import ScriptedModelServer, Turn

SECRET = "sk-test-SECRET"
# How long a test waits for a condition (or lets a turn run) before it fails: far beyond any busy machine's
# delay, and never waited out by a passing test.
PATIENCE = 60.0
# A turn deadline that must fire: it ends a stream nothing else would end. The two tests that use it move
# the event loop's time past it once the server has the request (past_the_deadline).
DEADLINE = 3.0

# ---------------------------------------------------------------------------------------- chunk helpers


def chunk(
    *,
    delta: Mapping[str, Any] | None = None,
    finish: str | None = None,
    usage: Mapping[str, Any] | None = None,
    choices: bool = True,
    lenient: bool = False,
) -> ChatCompletionChunk:
    """One chunk as the SDK would yield it; ``lenient`` builds it without validation, as the SDK does."""
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": dict(delta or {}), "finish_reason": finish}] if choices else [],
    }
    if usage is not None:
        body["usage"] = dict(usage)
    if lenient:
        return ChatCompletionChunk.model_construct(**body)
    return ChatCompletionChunk.model_validate(body)


def call_fragment(
    index: int | None, *, id: str | None = None, name: str | None = None, arguments: str | None = None
) -> dict[str, Any]:
    fragment: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
    return fragment


def feed_all(chunks: Sequence[ChatCompletionChunk]) -> tuple[list[StreamPart], ModelTurn]:
    accumulator = TurnAccumulator()
    parts = [part for c in chunks for part in accumulator.feed(c)]
    return parts, accumulator.finish()


USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}

# ------------------------------------------------------------------------------------ accumulator shapes


def test_public_api_is_pinned() -> None:
    assert sorted(agent_core.llm.__all__) == sorted(
        [
            "DEFAULT_CONTEXT_WINDOW",
            "DEFAULT_PROVIDER",
            "DEFAULT_WALL_SECONDS",
            "LOCAL_TURN_SECONDS",
            "PRESETS",
            "PRESET_HOSTS",
            "Resolver",
            "Sampling",
            "check_visitor_url",
            "guarded_client",
            "system_resolver",
            "ChatModel",
            "ContentDelta",
            "ContextExceededError",
            "Degeneration",
            "IncompleteStreamError",
            "ModelConfig",
            "ModelTurn",
            "PromptProgress",
            "OpenAIChatModel",
            "ProviderPreset",
            "ReactFormatError",
            "ReactStep",
            "ReasoningDelta",
            "RepetitionGuard",
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
            "model_configured",
            "make_openai_client",
            "parse_react",
            "render_tools_prompt",
            "resolve_model_config",
        ]
    )
    assert all(hasattr(agent_core.llm, name) for name in agent_core.llm.__all__)


def test_plain_text_turn_with_usage_chunk_that_has_no_choices() -> None:
    parts, turn = feed_all(
        [
            chunk(delta={"role": "assistant", "content": ""}),
            chunk(delta={"content": "Hel"}),
            chunk(delta={"content": "lo"}),
            chunk(delta={}, finish="stop"),
            chunk(choices=False, usage=USAGE),
        ]
    )
    assert parts == [ContentDelta(text="Hel"), ContentDelta(text="lo")]
    assert turn == ModelTurn(
        content="Hello",
        reasoning="",
        tool_calls=(),
        finish_reason="stop",
        usage=Usage(prompt_tokens=11, completion_tokens=7),
    )


def test_standard_openai_tool_call_fragments() -> None:
    parts, turn = feed_all(
        [
            chunk(
                delta={
                    "role": "assistant",
                    "tool_calls": [call_fragment(0, id="call_a", name="read_file", arguments="")],
                }
            ),
            chunk(delta={"tool_calls": [call_fragment(0, arguments='{"pa')]}),
            chunk(delta={"tool_calls": [call_fragment(0, arguments='th": "README.md"}')]}),
            chunk(delta={}, finish="tool_calls"),
            chunk(choices=False, usage=USAGE),
        ]
    )
    assert parts == [
        ToolCallDelta(index=0, id="call_a", name="read_file", arguments_delta=""),
        ToolCallDelta(index=0, id=None, name=None, arguments_delta='{"pa'),
        ToolCallDelta(index=0, id=None, name=None, arguments_delta='th": "README.md"}'),
    ]
    assert turn.tool_calls == (
        ToolCallRequest(call_id="call_a", tool="read_file", arguments='{"path": "README.md"}'),
    )
    assert turn.finish_reason == "tool_calls"
    assert turn.content == ""


def test_several_calls_interleaved_in_one_chunk() -> None:
    _, turn = feed_all(
        [
            chunk(
                delta={
                    "tool_calls": [
                        call_fragment(0, id="a", name="list_dir", arguments='{"path":'),
                        call_fragment(1, id="b", name="read_file", arguments='{"path":'),
                    ]
                }
            ),
            chunk(
                delta={
                    "tool_calls": [call_fragment(1, arguments=' "x.py"}'), call_fragment(0, arguments=' ""}')]
                }
            ),
            chunk(delta={}, finish="tool_calls"),
        ]
    )
    assert turn.tool_calls == (
        ToolCallRequest(call_id="a", tool="list_dir", arguments='{"path": ""}'),
        ToolCallRequest(call_id="b", tool="read_file", arguments='{"path": "x.py"}'),
    )


def test_calls_are_returned_in_index_order_even_if_they_start_out_of_order() -> None:
    accumulator = ToolCallAccumulator()
    accumulator.feed([call_fragment(1, id="b", name="second", arguments="{}")])
    accumulator.feed([call_fragment(0, id="a", name="first", arguments="{}")])
    assert [call.tool for call in accumulator.result()] == ["first", "second"]


def test_ollama_repeats_role_id_and_name_on_every_delta() -> None:
    repeated = {"role": "assistant", "content": ""}
    parts, turn = feed_all(
        [
            chunk(
                delta={
                    **repeated,
                    "tool_calls": [call_fragment(0, id="call_x", name="calc", arguments='{"a":')],
                }
            ),
            chunk(
                delta={
                    **repeated,
                    "tool_calls": [call_fragment(0, id="call_x", name="calc", arguments=" 1}")],
                }
            ),
            chunk(
                delta={**repeated, "tool_calls": [call_fragment(0, id="call_x", name="calc", arguments="")]}
            ),
            chunk(delta=repeated, finish="stop"),
        ]
    )
    assert turn.tool_calls == (ToolCallRequest(call_id="call_x", tool="calc", arguments='{"a": 1}'),)
    assert turn.content == ""
    assert [p for p in parts if isinstance(p, ToolCallDelta)] == [
        ToolCallDelta(index=0, id="call_x", name="calc", arguments_delta='{"a":'),
        ToolCallDelta(index=0, id=None, name=None, arguments_delta=" 1}"),
    ]
    assert turn.finish_reason == "stop"  # Ollama says stop even with tool calls: callers look at tool_calls


def test_first_non_empty_id_wins() -> None:
    accumulator = ToolCallAccumulator()
    accumulator.feed([call_fragment(0, id="", name="f", arguments="{")])
    accumulator.feed([call_fragment(0, id="real", arguments="}")])
    accumulator.feed([call_fragment(0, id="other")])
    assert accumulator.result() == (ToolCallRequest(call_id="real", tool="f", arguments="{}"),)


def test_missing_index_falls_back_to_id_then_to_the_last_call() -> None:
    _, turn = feed_all(
        [
            chunk(
                lenient=True,
                delta={"tool_calls": [call_fragment(None, id="a", name="first", arguments='{"x"')]},
            ),
            chunk(
                lenient=True,
                delta={"tool_calls": [call_fragment(None, id="b", name="second", arguments="{")]},
            ),
            chunk(lenient=True, delta={"tool_calls": [call_fragment(None, arguments="}")]}),  # continues "b"
            chunk(lenient=True, delta={"tool_calls": [call_fragment(None, id="a", arguments=": 1}")]}),
            chunk(lenient=True, delta={}, finish="tool_calls"),
        ]
    )
    assert turn.tool_calls == (
        ToolCallRequest(call_id="a", tool="first", arguments='{"x": 1}'),
        ToolCallRequest(call_id="b", tool="second", arguments="{}"),
    )


@pytest.mark.parametrize("arguments", [None, "", "  "])
def test_null_or_empty_arguments_become_an_empty_object(arguments: str | None) -> None:
    accumulator = ToolCallAccumulator()
    accumulator.feed([call_fragment(0, id="a", name="list_repos", arguments=arguments)])
    assert accumulator.result() == (ToolCallRequest(call_id="a", tool="list_repos", arguments="{}"),)


def test_calls_without_ids_get_stable_generated_ids() -> None:
    def run() -> tuple[ToolCallRequest, ...]:
        accumulator = ToolCallAccumulator()
        accumulator.feed([call_fragment(0, name="one", arguments="{}"), call_fragment(1, name="two")])
        return accumulator.result()

    assert [call.call_id for call in run()] == ["call_0", "call_1"]
    assert run() == run()


def test_reasoning_content_and_reasoning_fields_are_both_read() -> None:
    parts, turn = feed_all(
        [
            chunk(delta={"role": "assistant", "reasoning_content": "DeepSeek thinks. "}),
            chunk(delta={"reasoning": "Ollama thinks."}),
            chunk(delta={"content": "Done."}, finish="stop"),
        ]
    )
    assert parts == [
        ReasoningDelta(text="DeepSeek thinks. "),
        ReasoningDelta(text="Ollama thinks."),
        ContentDelta(text="Done."),
    ]
    assert turn.reasoning == "DeepSeek thinks. Ollama thinks."


def test_reasoning_sent_under_both_names_is_not_doubled() -> None:
    parts, _ = feed_all([chunk(delta={"reasoning_content": "same", "reasoning": "same"})])
    assert parts == [ReasoningDelta(text="same")]


def test_usage_on_the_last_choice_chunk_and_cached_tokens() -> None:
    deepseek_usage = {**USAGE, "prompt_cache_hit_tokens": 5, "prompt_cache_miss_tokens": 6}
    _, turn = feed_all([chunk(delta={"content": "x"}, finish="stop", usage=deepseek_usage)])
    assert turn.usage == Usage(prompt_tokens=11, completion_tokens=7, cached_prompt_tokens=5)

    openai_usage = {**USAGE, "prompt_tokens_details": {"cached_tokens": 3}}
    _, turn = feed_all(
        [chunk(delta={"content": "x"}, finish="stop"), chunk(choices=False, usage=openai_usage)]
    )
    assert turn.usage == Usage(prompt_tokens=11, completion_tokens=7, cached_prompt_tokens=3)


def test_chunks_with_missing_pieces_are_tolerated(make_model: ModelFactory) -> None:
    odd = [
        ChatCompletionChunk.model_construct(id="x", choices=None),
        ChatCompletionChunk.model_construct(id="x", choices=[{"index": 0, "delta": None}]),
        chunk(lenient=True, delta={"content": None, "tool_calls": None}),
    ]
    parts, turn = feed_all(odd)
    assert parts == []
    assert turn == ModelTurn(content="", reasoning="", tool_calls=(), finish_reason=None, usage=None)


# ------------------------------------------------------------------------------- a raw loopback server

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class RawServer:
    """An HTTP/1.1 server on 127.0.0.1 whose handler writes raw bytes; one request per connection."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[str] = []
        self.disconnected = asyncio.Event()
        self.base_url = ""

    async def on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            self.headers.append(head.decode("latin-1"))
            self.bodies.append(json.loads(await reader.readexactly(length)))
            await self.handler(reader, writer)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            self.disconnected.set()


@asynccontextmanager
async def serve(handler: Handler) -> AsyncIterator[RawServer]:
    raw = RawServer(handler)
    server = await asyncio.start_server(raw.on_connection, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    raw.base_url = f"http://127.0.0.1:{port}/v1"
    async with server:
        yield raw


def respond(status: int, body: Mapping[str, Any] | str, headers: Mapping[str, str] | None = None) -> Handler:
    payload = (body if isinstance(body, str) else json.dumps(body)).encode()

    async def handler(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        writer.write(
            f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
            f"Connection: close\r\n{extra}\r\n".encode()
            + payload
        )

    return handler


def sse(*events: Mapping[str, Any] | str) -> bytes:
    return b"".join(
        f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n".encode() for event in events
    )


def wire_chunk(delta: Mapping[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": dict(delta), "finish_reason": finish}],
    }


USAGE_CHUNK = {
    "id": "c",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "m",
    "choices": [],
    "usage": USAGE,
}


def stream_response(body: bytes, *, chunked: bool = False, cut: bool = False, hold: bool = False) -> Handler:
    """An SSE response; ``cut`` drops the connection in the middle of a chunked body, ``hold`` keeps it
    open (sending nothing more) until the client goes away."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        encoding = "Transfer-Encoding: chunked\r\n" if chunked else ""
        head = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n{encoding}Connection: close\r\n\r\n"
        writer.write(head.encode())
        writer.write(f"{len(body):x}\r\n".encode() + body + b"\r\n" if chunked else body)
        await writer.drain()
        while hold and await reader.read(1024):
            pass
        if chunked and not cut:
            writer.write(b"0\r\n\r\n")

    return handler


ModelFactory = Callable[..., OpenAIChatModel]


@pytest.fixture
async def make_model() -> AsyncIterator[ModelFactory]:
    """Builds models on fresh SDK clients, and closes every client after the test."""
    clients: list[openai.AsyncOpenAI] = []

    def factory(base_url: str, *, max_retries: int = 0, turn_timeout: float = PATIENCE) -> OpenAIChatModel:
        client = make_openai_client(
            base_url=base_url, api_key=SECRET, max_retries=max_retries, timeout=PATIENCE
        )
        clients.append(client)
        return OpenAIChatModel(client, model="test-model", turn_timeout=turn_timeout, max_tokens=1024)

    yield factory
    for client in clients:
        await client.close()


async def collect(
    model: OpenAIChatModel, tools: Sequence[Mapping[str, Any]] | None = None
) -> list[StreamPart]:
    return [part async for part in model.stream_turn([{"role": "user", "content": "hi"}], tools=tools)]


async def collect_into(parts: list[StreamPart], model: OpenAIChatModel) -> None:
    """Like :func:`collect`, keeping what arrived before an error."""
    async for part in model.stream_turn([{"role": "user", "content": "hi"}], tools=None):
        parts.append(part)


TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]

# ------------------------------------------------------------------------------- OpenAIChatModel: happy


async def test_text_turn_over_real_sse_and_the_request_it_sends(make_model: ModelFactory) -> None:
    body = sse(
        wire_chunk({"role": "assistant", "content": "Hi"}),
        wire_chunk({"content": "!"}, "stop"),
        USAGE_CHUNK,
        "[DONE]",
    )
    async with serve(stream_response(body)) as server:
        parts = await collect(make_model(server.base_url))
    assert parts == [
        ContentDelta(text="Hi"),
        ContentDelta(text="!"),
        TurnComplete(
            turn=ModelTurn(
                content="Hi!",
                reasoning="",
                tool_calls=(),
                finish_reason="stop",
                usage=Usage(prompt_tokens=11, completion_tokens=7),
            )
        ),
    ]
    (sent,) = server.bodies
    assert sent["model"] == "test-model"
    assert sent["stream"] is True
    assert sent["stream_options"] == {"include_usage": True}
    assert "tools" not in sent
    assert "tool_choice" not in sent
    assert f"Bearer {SECRET}" in server.headers[0]


async def test_tool_turn_sends_tools_with_auto_choice(make_model: ModelFactory) -> None:
    body = sse(
        wire_chunk(
            {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "read_file", "arguments": "{}"}}]}
        ),
        wire_chunk({}, "tool_calls"),
        "[DONE]",
    )
    async with serve(stream_response(body, chunked=True)) as server:
        parts = await collect(make_model(server.base_url), tools=TOOLS)
    final = parts[-1]
    assert isinstance(final, TurnComplete)
    assert final.turn.tool_calls == (ToolCallRequest(call_id="c1", tool="read_file", arguments="{}"),)
    assert server.bodies[0]["tools"] == TOOLS
    assert server.bodies[0]["tool_choice"] == "auto"


async def test_the_sdk_retries_a_429_before_the_stream_starts(make_model: ModelFactory) -> None:
    answers = [
        respond(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "1"}),
        stream_response(sse(wire_chunk({"content": "ok"}, "stop"), "[DONE]")),
    ]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await answers.pop(0)(reader, writer)

    async with serve(handler) as server:
        parts = await collect(make_model(server.base_url, max_retries=2))
    assert parts[0] == ContentDelta(text="ok")
    assert len(server.bodies) == 2


# ------------------------------------------------------------------------------- OpenAIChatModel: errors


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (
            401,
            {"error": {"message": f"Incorrect API key provided: {SECRET}"}},
            "rejected the key (check API_KEY)",
        ),
        (402, {"error": {"message": "Insufficient Balance"}}, "no balance on the model account"),
        (404, {"error": {"message": "The model does not exist"}}, "model not found: test-model"),
        (429, {"error": {"message": "Rate limit reached"}}, "rate limiting"),
        (500, {"error": {"message": "boom"}}, "failed with 500: boom"),
        (
            400,
            {"error": {"message": f"bad header Authorization: Bearer {SECRET}"}},
            "rejected the request (400)",
        ),
        (400, "plain text error with sk-otherkey123456", "rejected the request (400)"),
    ],
)
async def test_http_errors_become_readable_llm_errors(
    status: int, body: Any, expected: str, make_model: ModelFactory
) -> None:
    async with serve(respond(status, body)) as server:
        with pytest.raises(LLMError) as caught:
            await collect(make_model(server.base_url), tools=TOOLS)
    error = caught.value
    assert type(error) is LLMError
    assert error.status == status
    assert expected in str(error)
    assert SECRET not in str(error)
    assert "sk-otherkey" not in str(error)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (
            400,
            {
                "error": {
                    "message": "registry.ollama.ai/library/gemma2:2b does not support tools",
                    "type": "api_error",
                }
            },
        ),
        (400, {"error": "registry.ollama.ai/library/gemma2:2b does not support tools"}),
        (
            400,
            {
                "object": "error",
                "message": '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser'
                " to be set",
                "type": "BadRequestError",
                "code": 400,
            },
        ),
        (
            500,
            {"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}},
        ),
    ],
)
async def test_tools_rejections_become_tools_unsupported(
    status: int, body: Any, make_model: ModelFactory
) -> None:
    async with serve(respond(status, body)) as server:
        with pytest.raises(ToolsUnsupportedError) as caught:
            await collect(make_model(server.base_url), tools=TOOLS)
    assert caught.value.status == status
    assert "does not support tool calling" in str(caught.value)


async def test_unreachable_endpoint(make_model: ModelFactory) -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(LLMError, match="unreachable") as caught:
        await collect(make_model(f"http://127.0.0.1:{port}/v1"))
    assert caught.value.status is None


async def test_mid_stream_disconnect_yields_what_arrived_then_breaks_off(make_model: ModelFactory) -> None:
    body = sse(wire_chunk({"content": "partial"}))
    async with serve(stream_response(body, chunked=True, cut=True)) as server:
        parts: list[StreamPart] = []
        with pytest.raises(LLMError, match="stream broke off") as caught:
            await collect_into(parts, make_model(server.base_url))
    assert parts == [ContentDelta(text="partial")]
    # A stream that broke off is an incomplete turn: the loop retries it once.
    assert isinstance(caught.value, IncompleteStreamError)


async def test_stream_without_done_raises_incomplete_after_the_parts(make_model: ModelFactory) -> None:
    body = sse(wire_chunk({"content": "half an ans"}))  # then a clean EOF: no finish reason, no [DONE]
    async with serve(stream_response(body)) as server:
        parts: list[StreamPart] = []
        with pytest.raises(IncompleteStreamError):
            await collect_into(parts, make_model(server.base_url))
    assert parts == [ContentDelta(text="half an ans")]


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        (
            (wire_chunk({"content": "a"}), {"error": {"message": f"overloaded {SECRET}"}}),
            "mid-stream: overloaded",
        ),
        (("{not json",), "not JSON"),
    ],
)
async def test_bad_events_in_the_stream(
    events: tuple[Any, ...], expected: str, make_model: ModelFactory
) -> None:
    async with serve(stream_response(sse(*events))) as server:
        with pytest.raises(LLMError, match=expected) as caught:
            await collect(make_model(server.base_url))
    assert SECRET not in str(caught.value)


def in_skipping_time(body: Callable[[SkippingClock], Awaitable[None]]) -> None:
    """Run ``body`` on an event loop whose time the test moves (:class:`testing.clock.SkippingLoop`)."""
    clock = SkippingClock()
    with asyncio.Runner(loop_factory=lambda: SkippingLoop(clock)) as runner:
        runner.run(body(clock))


async def past_the_deadline(
    base_url: str, clock: SkippingClock, requested: Callable[[], bool]
) -> asyncio.Task[list[StreamPart]]:
    """One turn with a :data:`DEADLINE` nothing else can end: once the server has the request, the loop's
    time moves a quarter second at a time until the turn ends. Nothing waits on the wall clock."""
    client = make_openai_client(base_url=base_url, api_key=SECRET, max_retries=0, timeout=PATIENCE)
    try:
        model = OpenAIChatModel(client, model="test-model", turn_timeout=DEADLINE, max_tokens=1024)
        task = asyncio.create_task(collect(model))
        skipped = 0.0
        while not task.done() and skipped < 4 * DEADLINE:  # then it never ends: cancelled, the test fails
            await asyncio.sleep(0.005)
            if requested():
                clock.skip(0.25)
                skipped += 0.25
        task.cancel()  # a no-op on an ended turn
        await asyncio.wait((task,))
        return task
    finally:
        await client.close()


def test_keep_alive_comments_cannot_stretch_a_turn_past_its_deadline() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await stream_response(sse(wire_chunk({"content": "thinking"})))(reader, writer)
        while True:  # comments reset the SDK's read timeout; only our deadline can end this
            await asyncio.sleep(0.02)
            writer.write(b": keep-alive\n\n")
            await writer.drain()  # raises once the client has gone

    async def body(clock: SkippingClock) -> None:
        async with serve(handler) as server:
            turn = await past_the_deadline(server.base_url, clock, lambda: bool(server.bodies))
            with pytest.raises(LLMError, match=f"nothing arrived for {DEADLINE:g}s"):  # ours, not the SDK's
                turn.result()
            await asyncio.wait_for(server.disconnected.wait(), PATIENCE)  # the connection was released

    in_skipping_time(body)


def test_a_hung_stream_ends_at_the_deadline() -> None:
    async def body(clock: SkippingClock) -> None:
        with ScriptedModelServer([Turn(hang=True)]) as server:
            turn = await past_the_deadline(server.base_url, clock, lambda: bool(server.chat_requests))
            with pytest.raises(LLMError, match=f"nothing arrived for {DEADLINE:g}s") as caught:
                turn.result()
            server.assert_exhausted()
        assert SECRET not in str(caught.value)

    in_skipping_time(body)


async def test_cancellation_passes_through_and_releases_the_connection(make_model: ModelFactory) -> None:
    first_part = asyncio.Event()
    async with serve(stream_response(sse(wire_chunk({"content": "a"})), hold=True)) as server:
        model = make_model(server.base_url)

        async def consume() -> None:
            async for _ in model.stream_turn([{"role": "user", "content": "hi"}], tools=None):
                first_part.set()

        task = asyncio.create_task(consume())
        await first_part.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.wait_for(server.disconnected.wait(), PATIENCE)


async def test_leaving_early_releases_the_connection(make_model: ModelFactory) -> None:
    async with serve(stream_response(sse(wire_chunk({"content": "a"})), hold=True)) as server:
        stream = make_model(server.base_url).stream_turn([{"role": "user", "content": "hi"}], tools=None)
        assert await anext(stream) == ContentDelta(text="a")
        await stream.aclose()  # type: ignore[attr-defined]
        await asyncio.wait_for(server.disconnected.wait(), PATIENCE)


def test_make_openai_client_timeouts_and_empty_key() -> None:
    client = make_openai_client(base_url="http://127.0.0.1:1/v1", api_key=SECRET, max_retries=3, timeout=30.0)
    assert client.max_retries == 3
    assert client.timeout.connect == 10.0  # type: ignore[union-attr]
    assert client.timeout.read == 30.0  # type: ignore[union-attr]
    with pytest.raises(ConfigurationError):
        make_openai_client(base_url="http://127.0.0.1:1/v1", api_key="")


def test_sdk_exceptions_used_for_mapping_exist() -> None:
    # The mapping relies on this hierarchy; an SDK upgrade that changes it must fail loudly here.
    assert issubclass(openai.APITimeoutError, openai.APIConnectionError)
    assert issubclass(openai.InternalServerError, openai.APIStatusError)


# ------------------------------------------------------------------- end to end through the emulator


QUIRKS = [
    pytest.param(
        Turn.calls(("read_file", {"path": "README.md"}), usage=(30, 9), cache_hit_tokens=10), id="standard"
    ),
    pytest.param(
        Turn.calls(
            ("read_file", {"path": "README.md"}), ("list_dir", {"path": "src"}), interleave=True, chunk_size=4
        ),
        id="interleaved",
    ),
    pytest.param(
        Turn.calls(
            ("read_file", {"path": "README.md"}),
            ("list_dir", {"path": "src"}),
            ollama_style=True,
            reasoning="hmm",
            reasoning_field="reasoning",
            finish_reason="stop",
        ),
        id="ollama",
    ),
    pytest.param(
        Turn.calls(("read_file", {"path": "README.md"}), ("list_dir", {"path": "src"}), omit_index=True),
        id="missing-index",
    ),
]


@pytest.mark.parametrize("turn", QUIRKS)
async def test_provider_quirks_end_to_end(turn: Turn, make_model: ModelFactory) -> None:
    with ScriptedModelServer([turn]) as server:
        parts = await collect(make_model(server.base_url), tools=TOOLS)
        server.assert_exhausted()
    final = parts[-1]
    assert isinstance(final, TurnComplete)
    names = [call.tool for call in final.turn.tool_calls]
    assert names == [spec.name for spec in turn.tool_calls]
    for call, spec in zip(final.turn.tool_calls, turn.tool_calls, strict=True):
        assert json.loads(call.arguments) == json.loads(spec.arguments)
        assert call.call_id.startswith("call_")
    assert final.turn.reasoning == turn.reasoning
    if turn.usage is not None:
        assert final.turn.usage == Usage(prompt_tokens=30, completion_tokens=9, cached_prompt_tokens=10)
    assert server.chat_requests[0].body is not None
    assert server.chat_requests[0].body["tool_choice"] == "auto"


@pytest.mark.parametrize(
    ("turn", "error", "match", "turn_timeout"),
    [
        pytest.param(
            Turn(content="a long answer", disconnect_after=2),
            LLMError,
            "broke off",
            PATIENCE,
            id="disconnect",
        ),
        pytest.param(
            Turn(content="a long answer", no_done=True),
            IncompleteStreamError,
            "ended",
            PATIENCE,
            id="no-done",
        ),
        pytest.param(Turn.error(402, "Insufficient Balance"), LLMError, "no balance", PATIENCE, id="402"),
    ],
)
async def test_failures_end_to_end(
    turn: Turn, error: type[LLMError], match: str, turn_timeout: float, make_model: ModelFactory
) -> None:
    with ScriptedModelServer([turn]) as server:
        with pytest.raises(error, match=match) as caught:
            await collect(make_model(server.base_url, turn_timeout=turn_timeout))
        server.assert_exhausted()
    assert SECRET not in str(caught.value)
