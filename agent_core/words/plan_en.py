"""What the app narrates in the trace before a model or the planner reads anything, in English: the
offline planner's turns and the prefetch's, and how a :class:`~agent_core.words.Said` joins its parts."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

PLAN: Mapping[str, str] = MappingProxyType(
    {
        "said_sentence_sep": " ",
        "said_list_sep": ", ",
        "said_clause_sep": "; ",
        "said_and_sep": " and ",
        "plan_overview": "Starting with an overview of {repos}: metadata, the whole file tree, languages and the {commits} most recent commits, all in parallel.",
        "plan_no_tree": "The file tree of {repo} could not be fetched, so listing its root folder instead.",
        "plan_step": "{parts:and}.",
        "plan_step_in": "{parts:and} in {repo}.",
        "plan_reading": "Reading {groups:clause}",
        "plan_listing_first": "Listing {folders}",
        "plan_listing": "listing {folders}",
        "plan_fetching_first": "Fetching the tests kept in {folders}",
        "plan_fetching": "fetching the tests kept in {folders}",
        "plan_root_folder": "the root folder",
        "plan_read_readme": "{files}",
        "plan_read_manifest": "the manifests {files}",
        "plan_read_module": "the main modules {files}",
        "plan_read_ci": "the CI configuration {files}",
        "plan_read_license": "the license {files}",
        "plan_read_attributes": "the Linguist overrides {files}",
        "plan_read_question": "for {purpose}: {files}",
        "plan_question": "the question",
        "plan_question_about": "the question ({topics})",
        "plan_quoted": "“{word}”",
        "notice_tool_limit": "Tool-call limit ({limit}) reached; {skipped:,} call(s) skipped.",
        "notice_diagram_asking": "Asking the model for the architecture diagram of {repo} (at most {seconds:.0f} s, the run's time left; the tree's diagram is kept if it has not answered by then).",
        "notice_draft_before_reads": "The model began its report before reading files of its own; stopped it at its first heading: its reads come first.",
        "notice_calls_cut": "The model asked for {calls} read(s); stopped it there: its time allows that many now, and it can ask for more after their results.",
        "notice_reads_time_up": "The model's reads are done and its time for reading is up (a local model's report is due within a minute): its next call was set aside and the report asked for.",
        "notice_use_tools": "The model answered before looking at anything; asking it once to use the tools.",
        "notice_cpu_budget": "Stopping exploration: the CPU budget ({seconds:.0f} CPU-s of repository processing) was spent. The report is written from what was gathered.",
        "prefetch_overview": "Gathering the basics of {repos}: metadata, the whole file tree and recent commits, all at once.",
        "prefetch_lookup": "Looking up the path for the repository's licence and CI: {folders}.",
        "prefetch_lookup_manifest": "Looking up the path for the nearest manifest, the repository's licence and CI: {folders}.",
        "prefetch_basics": "Reading what every analysis needs: {files}.",
    }
)
