"""What the app says about a model turn it cut or stopped, and what it says to the model, in English."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

TURNS: Mapping[str, str] = MappingProxyType(
    {
        "check_reads_thought": "Reading the manifests the report's claims rest on: {files}{more}.",
        "turn_cut": "the model started repeating itself at line {line}; the rest was cut",
        "turn_partial": "partial report: the model was stopped before it finished (the run's time limit, or its stream stopped); the sections it did not reach were written by the app from the observations",
        "turn_completed": "*The model was stopped before it finished; the sections below were written by the app from the observations.*",
        "to_model_beyond_brief": "The brief above holds only the basics (metadata, the file tree, the README and the manifests). If the request needs anything else (a function, a setting, how something works), first call read_file on the files the tree suggests, then answer from what you read and cite those files.",
        "to_model_report_request": "Exploration has stopped ({reason}). Write the final report now from the observations you already have, without calling tools; state clearly what could not be examined.",
        "to_model_use_tools": "You have not called any tool yet, so nothing in that answer was checked. Call the tools first (for example get_repo_info and get_file_tree) and write the report from what they return.",
        "to_model_call_example": "To read a file, reply with only this JSON (the path taken from the tree above): {call}",
        "to_model_call_path": "<a path from the tree>",
        "brief_cut": "Brief cut to {tokens:,} tokens (the whole first request about {first:,}) to start within a minute at {speed:,.0f} tokens/s ({how}): {what}",
        "brief_speed_measured": "measured",
        "brief_speed_assumed": "assumed until measured",
        "brief_shortened": "{files} shortened",
        "brief_left_out": "{files} left out",
        "brief_read_hint": "the model can read them with read_file.",
        "brief_list_sep": ", ",
        "brief_part_sep": "; ",
        "to_model_draft_tool_call": "Your reply was only JSON: a tool call written as text is not run and is not a report. To read, call one of the tools you were given ({tools}) the way tools are called; to answer, write the report in Markdown.",
        "to_model_draft_echo": "Your reply copied {copied} of its {lines} lines from the messages above: that is not a report. Write the report in your own words, from what the tools returned.",
        "to_model_draft_repeated_block": "Your reply repeated the same lines. Write each section once.",
        "to_model_draft_from_memory": "You have not read any file yourself, and your draft names files, links or dependencies this repository does not have. Call read_file on the files you want to write about first, then write the report only from what the tools returned.",
        "to_model_draft_no_reads": "Before this becomes the report: you have not read any file yourself, and the brief leaves out the source code, the tests and the CI files. Plan 2 to 4 reads the report needs (a key source file, a test, a CI workflow), call read_file on them, then write the report and cite what you read.",
        "to_model_draft_suggested": "Files worth reading, from the tree: {paths}.",
        "to_model_draft_close_reads": "Reply now with read_file calls only (2 to 4 of these files), no report: for example read_file with {example}. Write the report after their results.",
        "to_model_draft_contradicted": "The app checked your draft against what the tools returned; some statements are wrong.",
        "to_model_draft_missing_paths": "Some files your draft cites are not in the repository's tree.",
        "to_model_draft_findings": "What the check found:",
        "to_model_draft_wrong": '- "{claim}": the observations show {observed}',
        "to_model_draft_missing": '- "{claim}": not in the repository',
        "to_model_draft_close": "Correct or remove these, cite only files that exist, and reply with the whole revised report (or call tools first if you need to read something).",
        "to_model_draft_close_plain": "Reply with the whole report (or call tools first if you need to read something).",
        "model_reason_repeats": "the model repeated tool calls it had already made, three turns in a row",
        "draft_revise": "The app checked the model's draft ({problems}) and sent it back once for revision",
        "draft_read_first": "The model wrote a report without reading any file itself; it is asked once to read first",
        "draft_accepted": "After its revision: {corrected} statement(s) corrected, {left} still marked wrong by the check",
        "draft_corrected": "corrected",
        "draft_still_wrong": "still wrong",
        "draft_replaced": "The model's reply could not be the report ({problems}); the app wrote it from the observations, keeping {kept} of the model's sentences the check verified",
        "draft_problem_tool_call": "a tool call written as text",
        "draft_problem_echo": "a copy of its prompt",
        "draft_problem_repeated_block": "repeated lines",
        "draft_problem_from_memory": "written from memory",
        "draft_problem_no_reads": "no file read by the model",
        "draft_problem_contradicted": "claims the check marks wrong",
        "draft_problem_missing_paths": "files not in the repository",
        "draft_replaced_reason": "the model's reply was not a usable report ({problems})",
        "draft_kept_heading": "Sentences of the model's draft that the claim check verified",
        "draft_kept_note": "*Quoted from the model's reply, which was not used as the report; each holds a claim the app checked against the observations.*",
    }
)
