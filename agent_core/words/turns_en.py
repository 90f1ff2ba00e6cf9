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
    }
)
