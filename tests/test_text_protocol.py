"""The text ReAct protocol: the prompt it renders and the tolerant parser."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_core.errors import UpstreamError
from agent_core.llm import ReactFormatError, ReactStep, format_observation, parse_react, render_tools_prompt
from agent_core.llm.content_calls import calls_in_content
from agent_core.llm.scan import WHOLE, loads, scan

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read one file\n   of the repository.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {"type": "function", "function": {"name": "list_dir", "description": "List a directory."}},
]


def action(name: str, arguments: dict[str, Any], thought: str | None = None) -> ReactStep:
    return ReactStep(thought=thought, action=name, action_input=arguments, final=None)


def final(text: str, thought: str | None = None) -> ReactStep:
    return ReactStep(thought=thought, action=None, action_input=None, final=text)


README = {"path": "README.md"}

PARSE_CASES: list[tuple[str, str, ReactStep]] = [
    (
        "plain",
        'Thought: look at the readme\nAction: read_file\nAction Input: {"path": "README.md"}',
        action("read_file", README, "look at the readme"),
    ),
    (
        "lower case labels, multi-line input",
        'thought: hm\naction: read_file\naction input: {\n  "path": "README.md"\n}\n',
        action("read_file", README, "hm"),
    ),
    (
        "bold labels",
        '**Thought:** hm\n**Action:** read_file\n**Action Input**: {"path": "README.md"}',
        action("read_file", README, "hm"),
    ),
    (
        "fenced json input",
        'Thought: t\nAction: `read_file`\nAction Input:\n```json\n{"path": "README.md"}\n```',
        action("read_file", README, "t"),
    ),
    (
        "trailing prose after the json",
        'Action: read_file\nAction Input: {"path": "README.md"} because it explains {everything}.',
        action("read_file", README),
    ),
    (
        "nested braces and escaped quotes inside strings",
        'Action: search_code\nAction Input: {"q": "def f(): {\\"a\\": \'}\'}", "opts": {"n": 1}} trailing }',
        action("search_code", {"q": "def f(): {\"a\": '}'}", "opts": {"n": 1}}),
    ),
    (
        "invented observation is dropped",
        'Action: read_file\nAction Input: {"path": "README.md"}\nObservation: made up\nFinal: too early',
        action("read_file", README),
    ),
    (
        "arguments on the action line",
        'Thought: t\nAction: read_file({"path": "README.md"})',
        action("read_file", README, "t"),
    ),
    ("no input means no arguments", "Action: list_dir", action("list_dir", {})),
    ("input none", "Action: list_dir\nAction Input: None", action("list_dir", {})),
    (
        "preamble becomes the thought",
        'I should read it.\nAction: read_file\nAction Input: {"path": "README.md"}',
        action("read_file", README, "I should read it."),
    ),
    (
        "think block is ignored",
        '<think>Action: nope</think>\nAction: read_file\nAction Input: {"path": "README.md"}',
        action("read_file", README),
    ),
    (
        "bare json action/action_input",
        '{"action": "read_file", "action_input": {"path": "README.md"}}',
        action("read_file", README),
    ),
    (
        "fenced bare json name/arguments as a string",
        'Sure!\n```json\n{"name": "read_file", "arguments": "{\\"path\\": \\"README.md\\"}"}\n```',
        action("read_file", README, "Sure!"),
    ),
    (
        "bare json function wrapper",
        '{"function": {"name": "read_file", "arguments": {"path": "README.md"}}}',
        action("read_file", README),
    ),
    (
        "json on the action line",
        'Thought: t\nAction: {"action": "read_file", "action_input": {"path": "README.md"}}',
        action("read_file", README, "t"),
    ),
    (
        "final",
        "Thought: done\nFinal: # Report\n\nAction: items in the report are kept.\n",
        final("# Report\n\nAction: items in the report are kept.", "done"),
    ),
    ("final answer alias", "Final Answer: **all good**", final("**all good**")),
    ("final answer in bold", "**Final Answer:** all good", final("all good")),
    (
        "langchain style final as an action",
        'Action: Final Answer\nAction Input: "the report"',
        final("the report"),
    ),
    (
        "bare json final",
        '{"action": "Final Answer", "action_input": "# Report"}',
        final("# Report"),
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [case[1:] for case in PARSE_CASES], ids=[c[0] for c in PARSE_CASES]
)
def test_parse_react(text: str, expected: ReactStep) -> None:
    assert parse_react(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I think the repository is fine.", "no 'Action:'"),
        ("", "no 'Action:'"),
        ("Action: read_file\nAction Input: README.md please", "not a JSON object"),
        ('Action: read_file\nAction Input: {"path": "README.md"', "not a JSON object"),
        ("Action: ???", "does not name a tool"),
        ("Final:", "empty"),
        ('{"unrelated": {"json": true}}', "no 'Action:'"),
    ],
)
def test_unreadable_replies_raise_a_message_for_the_model(text: str, reason: str) -> None:
    with pytest.raises(ReactFormatError) as caught:
        parse_react(text)
    message = str(caught.value)
    assert reason in message
    assert "Action Input:" in message
    assert "Final:" in message
    assert isinstance(caught.value, UpstreamError)


def test_render_tools_prompt_describes_tools_and_format() -> None:
    prompt = render_tools_prompt(TOOLS)
    assert "- read_file: Read one file of the repository." in prompt
    assert '"required": ["path"]' in prompt
    assert "- list_dir: List a directory." in prompt
    for label in ("Thought:", "Action:", "Action Input:", "Final:", "Observation:"):
        assert label in prompt
    assert "one action per reply" in prompt.lower()


def test_format_observation_starts_with_the_label() -> None:
    message = format_observation("read_file", "# Title")
    assert message.startswith("Observation:")
    assert "read_file" in message
    assert message.endswith("# Title")


def test_the_format_round_trips_through_the_parser() -> None:
    # What the prompt shows must be what the parser reads.
    reply = 'Thought: x\nAction: list_dir\nAction Input: {"path": "src"}'
    assert parse_react(reply) == action("list_dir", {"path": "src"}, "x")


# Every spelling of a call as a JSON object that small models write: both readers (the text protocol, and
# calls a model wrote as content beside native tools) go through the one reader in llm/scan.py.
SPELLINGS: list[tuple[str, dict[str, Any]]] = [
    ('{"name": "read_file", "arguments": {"path": "a.py"}}', {"path": "a.py"}),
    ('{"action": "read_file", "action_input": {"path": "a.py"}}', {"path": "a.py"}),
    ('{"function": "read_file", "parameters": {"path": "a.py"}}', {"path": "a.py"}),
    ('{"function": {"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}}', {"path": "a.py"}),
    ('{"tool": "read_file", "args": "\\"{\\\\\\"path\\\\\\": \\\\\\"a.py\\\\\\"}\\""}', {"path": "a.py"}),
    ('{"tool_name": "read_file", "input": "null"}', {}),
    ('{"name": "read_file"}', {}),
]


@pytest.mark.parametrize(("text", "arguments"), SPELLINGS, ids=[t[:24] for t, _ in SPELLINGS])
def test_both_readers_read_every_spelling_of_a_call_alike(text: str, arguments: dict[str, Any]) -> None:
    assert parse_react(text) == action("read_file", arguments)
    (call,) = calls_in_content(text, {"read_file"})
    assert (call.tool, json.loads(call.arguments)) == ("read_file", arguments)


@pytest.mark.parametrize(
    "text", ['{"name": "read_file", "arguments": [1]}', '{"name": "read_file", "args": "x"}']
)
def test_both_readers_refuse_arguments_that_are_no_object(text: str) -> None:
    assert calls_in_content(text, {"read_file"}) == []
    with pytest.raises(ReactFormatError):
        parse_react(text)


def test_a_whole_json_text_is_measured_by_the_same_pass_strings_skipped() -> None:
    quoted = '"' + "[" * 500 + '"'  # one string: no nesting at all
    assert scan(quoted, WHOLE).deepest == 0 and loads(quoted) == "[" * 500
    assert scan(quoted).deepest == 500  # in free text a quote outside brackets is prose
    assert scan('{"a": [[1]], "b": "}}"}', WHOLE).deepest == 3
