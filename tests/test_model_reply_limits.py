"""Issue 35, classes 4, 5 and 8: what a model's reply (or a visitor's base URL) can cost is bounded.

* one linear scanner reads JSON in model text (:mod:`agent_core.llm.scan`): no retry at every ``{``, no
  recursion, caps on length, brackets and nesting, and past a cap a sentence for the model, never an
  exception (``RecursionError`` at 1,200 levels was an "internal error" that lost the report);
* one turn of 4,000 tool calls leaves ONE observation past the run's limit, and compaction counts the
  conversation once, not once per observation;
* a base URL with an octal, hexadecimal or integer host, a bad IPv6 form, a bad port or credentials is
  refused when applied, in English and Chinese, and the session keeps its settings (no run is spent).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import events as ev
from agent_core.agent.context import Conversation
from agent_core.clock import SystemClock
from agent_core.errors import ConfigurationError, InvalidArgumentError
from agent_core.llm import ReactFormatError, estimate_messages, parse_react
from agent_core.llm.content_calls import calls_in_content
from agent_core.llm.scan import (
    MAX_BRACKETS,
    MAX_DEPTH,
    MAX_REPLY_CHARS,
    WHOLE,
    first_object,
    json_values,
    loads,
    scan,
)
from agent_core.report.diagram import parse_proposal
from agent_core.settings import Settings
from agent_core.tools.executor import _parse_arguments
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis
from agent_core.web.browser_session import BrowserSession
from testing.emulator.github import GitHubEmulator
from testing.emulator.model_server import ScriptedModelServer, Turn
from testing.linear import growth, repeated

DEEP = '{"a":' * 1200 + "1" + "}" * 1200


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
@pytest.mark.parametrize("openers", ["{[", WHOLE])
@pytest.mark.parametrize("unit", ["{", "[", '{"\\"', "[]", '{"a":', "]}", '"{'])
def test_pairing_the_brackets_of_a_reply_is_linear(unit: str, openers: str) -> None:
    """The pass under every reader (free text, and a whole JSON text for :func:`loads`): 40,000 ``{``
    cost 133 s when each ``{`` was retried to the end."""
    measured = growth(lambda text: scan(text, openers), repeated(unit))
    assert measured.linear(), measured


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("a line of spaces after a label", lambda n: "Thought" + " " * n + "x"),
        ("a line of spaces", lambda n: " " * n + "x\nAction:"),
        ("unclosed think tags", lambda n: "<think>" * (n // 7)),
        ("objects that are no call", lambda n: '{"a": 1} ' * (n // 9)),
        ("brackets", lambda n: "[" * n),
    ],
)
def test_reading_a_text_protocol_reply_is_linear(name: str, make: Any) -> None:
    def read(text: str) -> None:
        with contextlib.suppress(ReactFormatError):
            parse_react(text)

    measured = growth(read, make)
    assert measured.linear(), (name, measured)


@pytest.mark.untraced  # CPU against input size: the tracer's cost is not the code's
def test_the_claim_check_reads_a_report_of_brackets_in_linear_time() -> None:
    """The report a model wrote is read once more, by the claim check (off the loop, but a regex holds
    the GIL): 20,000 '[' cost its link pattern 1.8 CPU-s, every other visitor's page waiting."""
    from agent_core.report.claims import find_claims

    for unit in ("[", "[a](", "[a]", "[a](<"):
        measured = growth(find_claims, repeated(unit))
        assert measured.linear(), (unit, measured)


def test_json_nested_1200_deep_is_an_observation_never_a_recursion_error() -> None:
    with pytest.raises(ReactFormatError, match="nested 1,200 levels deep"):
        parse_react(f"Thought: x\nAction: read_file\nAction Input: {DEEP}")
    with pytest.raises(ReactFormatError, match="nested 1,200 levels deep"):
        parse_react(DEEP)
    assert calls_in_content(f'{{"name": "read_file", "arguments": {DEEP}}}', {"read_file"}) == []
    with pytest.raises(InvalidArgumentError, match="nested 1,200 levels deep"):
        _parse_arguments("[" * 1200 + "]" * 1200)  # a native call's arguments
    assert parse_proposal(f"```json\n{DEEP}\n```") is None
    value, refused = first_object(DEEP)
    assert value is None and refused is not None and f"limit of {MAX_DEPTH}" in refused
    # nothing inside a too-deep value is mined for an object
    assert json_values(DEEP).found == ()


def test_a_reply_past_the_caps_ends_the_turn_with_a_sentence_for_the_model() -> None:
    with pytest.raises(ReactFormatError, match=f"over the limit of {MAX_REPLY_CHARS:,}"):
        parse_react("Final: " + "x" * MAX_REPLY_CHARS)
    with pytest.raises(ReactFormatError, match=f"over the limit of {MAX_BRACKETS:,}"):
        parse_react("{" * 40_000)
    assert json_values("[" * 20_000).refused is not None
    assert calls_in_content("[" * 20_000, {"read_file"}) == []
    with pytest.raises(ValueError, match="over the limit"):
        loads("[" * (MAX_BRACKETS + 1))


def test_the_scanner_still_finds_what_models_write() -> None:
    text = 'Let me look.\n```json\n{"name": "read_file", "arguments": {"path": "a { b"}}\n```'
    calls = calls_in_content(text, {"read_file"})
    assert [(c.tool, json.loads(str(c.arguments))) for c in calls] == [("read_file", {"path": "a { b"})]
    step = parse_react('I will read it. {"action": "read_file", "action_input": {"path": "x"}}')
    assert (step.action, step.action_input, step.thought) == ("read_file", {"path": "x"}, "I will read it.")
    # a span that does not decode is looked into; prose quotes outside brackets are prose
    found = json_values('He said "{ not json {"a": [1, "]"]} }" ok').found
    assert [v for _, _, v in found] == [{"a": [1, "]"]}]
    assert parse_proposal('Here: {"components": [{"path": "src"}]} and {"x": 1}') == {
        "components": [{"path": "src"}]
    }


def test_compaction_counts_the_conversation_once_not_once_per_observation() -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"}]
    for i in range(2_000):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * 400})
    conversation = Conversation(messages=messages)
    counted: list[int] = []

    def estimate(part: Any) -> int:
        counted.append(len(part))
        return estimate_messages(part)

    whole = estimate_messages(conversation.messages)
    done = conversation.compact(budget=whole // 2, estimate=estimate)
    assert done > 1_000
    assert estimate_messages(conversation.messages) <= whole // 2
    assert sum(counted) <= len(conversation.messages) + 2 * done  # once whole, then two messages a note
    assert "read_file observation" in str(conversation.messages[3]["content"])


def _settings(emu: GitHubEmulator, model: ScriptedModelServer, tmp_path: Path, **extra: str) -> Settings:
    env = {
        "GITHUB_API_URL": emu.base_url,
        "CACHE_DIR": str(tmp_path / "cache"),
        "API_KEY": "sk-test",
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": model.base_url,
        "LLM_MODEL": "scripted-model",
        "PREFETCH": "false",
        **extra,
    }
    return Settings.from_env(env, dotenv_path=None)


async def test_a_turn_of_4000_calls_leaves_one_observation_past_the_limit(
    sample_repo: Path, tmp_path: Path
) -> None:
    w = {"owner": "acme", "repo": "widgets"}
    with GitHubEmulator() as emu, ScriptedModelServer() as model:
        emu.add_repo("acme/widgets", sample_repo)
        model.push(
            Turn.calls(*[("get_languages", w)] * 4_000, usage=(100, 10)),
            Turn.final("# acme/widgets\n\nDone.\n", usage=(100, 10)),
            Turn.final("# acme/widgets\n\nDone.\n", usage=(100, 10)),
        )
        settings = _settings(emu, model, tmp_path, MAX_TOOL_CALLS="4")
        services = Services(settings)
        events: list[ev.Event] = []
        try:
            opened = await open_analysis(services, "acme/widgets", settings=settings)
            try:
                async for event in opened.analysis.run(""):
                    events.append(event)
            finally:
                await opened.aclose()
        finally:
            await services.aclose()
        assert isinstance(events[-1], ev.RunFinished), events[-1]
        second = model.chat_requests[1].body["messages"]
        tools = [m for m in second if m["role"] == "tool"]
        asked = [c for m in second if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
        assert len(tools) == len(asked) == 5  # four run, one carries the refusal of the 3,996 others
        assert "3,996 call(s) not run" in tools[-1]["content"]
        notices = [e.message for e in events if isinstance(e, ev.Notice) and "Tool-call limit" in e.message]
        assert notices == ["Tool-call limit (4) reached; 3,996 call(s) skipped."]
        assert sum(isinstance(e, ev.ToolCallStarted) for e in events) == 4


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("https://0177.0.0.1:8443/v1", "0177.0.0.1"),
        ("https://2130706433/v1", "2130706433"),
        ("https://0x7f.0.0.1/v1", "0x7f.0.0.1"),
        ("https://127.1/v1", "127.1"),
        ("https://[fe80::1%25eth0]/v1", "fe80::1%25eth0"),
        ("https://[::1]:99999/v1", "99999"),
        ("https://api.example.com:http/v1", "http"),
        ("https://me:secret@api.example.com/v1", "user name or password"),
        ("https://[::1/v1", "cannot be read"),
    ],
)
def test_a_base_url_of_a_strange_form_is_refused_when_applied_in_both_languages(
    tmp_path: Path, url: str, named: str
) -> None:
    base = Settings.from_env(
        {"SPACE_ID": "someone/space", "CACHE_DIR": str(tmp_path), "API_KEY": "sk-owner"}, dotenv_path=None
    )
    session = BrowserSession(base, clock=SystemClock())
    with pytest.raises(ConfigurationError) as refused:
        session.apply_settings(llm_provider="custom", llm_base_url=url, llm_model="m", api_key="sk-own")
    assert named in str(refused.value)
    zh = refused.value.localized("zh")
    assert zh != str(refused.value) and "模型接口地址" in zh
    assert session.settings is base  # nothing changed: no run can start on it, none is counted
    assert not session.running


def test_ordinary_base_urls_still_pass() -> None:
    for url in ("https://api.deepseek.com/v1", "http://127.0.0.1:11434/v1", "http://[::1]:8080/v1"):
        Settings(llm_base_url=url).validate()
