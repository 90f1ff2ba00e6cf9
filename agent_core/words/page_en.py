"""What the browser page says in English: buttons, headings, status texts, table columns, trace items."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

PAGE: Mapping[str, str] = MappingProxyType(
    {
        "title": "Repo Analyst",
        "subtitle": "Paste a repository and watch an agent analyse it step by step, then check its report. No key needed: press Analyze to try the example.",
        "first_question": "How is this project tested?",
        "target_label": "Repository URL(s), owner/repo, or a local path",
        "target_label_hosted": "Repository URL(s) or owner/repo",
        "target_placeholder": "https://github.com/pallets/flask",
        "question_label": "Question (optional)",
        "question_placeholder": "What is the architecture? Is it well maintained?",
        "analyze": "Analyze",
        "stop": "Stop",
        "examples": "Examples",
        "trace": "Trace",
        "report": "Report",
        "report_empty": "*The report appears here as it is written.*",
        "diagram_model": "🗺 Architecture diagram proposed by the model ({components} {components!p:component|components}, {attempts} {attempts!p:call|calls})",
        "diagram_tree": "🗺 Architecture diagram built from the tree ({components} {components!p:component|components})",
        "diagram_dropped": "Paths not in the tree, dropped: {paths}",
        "download_report": "Download report.md",
        "download_trace": "Download trace.jsonl",
        "breakers": "Circuit breakers",
        "stats": "Run stats",
        "followup_label": "Follow-up question",
        "followup_placeholder": "Ask more about the same repository (available after a report)",
        "ask": "Ask",
        "chaos": "Chaos mode (this session only)",
        "chaos_enabled": "Inject faults (GitHub and local reads)",
        "chaos_fault_rate": "Fault rate (503s and timeouts)",
        "chaos_burst": "Trigger a 429 burst",
        "chaos_down": "Force a tool down",
        "chaos_none": "(none)",
        "chaos_note": (
            "Faults are injected where each tool call reaches its source (GitHub or a local repository), "
            "inside the retries and the circuit breaker, exactly where real failures happen."
        ),
        "chaos_off": "chaos: off",
        "chaos_armed": " ({count} rate-limited calls armed)",
        "chaos_on": "chaos: **on** · fault rate {rate}",
        "chaos_down_now": "`{tool}` forced down",
        "chaos_burst_next": "next {count} {count!p:call|calls} rate-limited",
        "chaos_injected": "{count} {count!p:fault|faults} injected so far",
        "replay": "Replay a recorded run",
        "replay_choice": "Bundled recording",
        "replay_upload": "…or upload a trace (.jsonl)",
        "replay_speed": "Speed",
        "replay_button": "Replay",
        "export": "Export",
        "settings": "Settings",
        "provider": "Model provider",
        "model": "Model",
        "base_url": "Base URL",
        "api_key": "API key (kept in this browser session only)",
        "github_token": "GitHub token (kept in this browser session only)",
        "max_turns": "Max turns",
        "report_language": "Report language",
        "ui_language": "Interface language",
        "apply_settings": "Apply settings",
        "settings_applied": "Settings applied to this session.",
        "status_model": "model: {model} via {provider}",
        "status_planner": "offline planner (no API key)",
        "status_gh_auth": "GitHub: authenticated",
        "status_gh_anon": "GitHub: unauthenticated (60 requests/hour)",
        "status_gh_remaining": "{remaining} {remaining!p:request|requests} left, resets {reset}",
        "status_space_warning": "⚠️ no GitHub token on this Space: the shared 60 requests/hour run out fast",
        "status_running": "Running…",
        "scope_folder": "📁 Scope: {where} (the tree, reads and report are about this folder)",
        "scope_file": "📄 Scope: {where} (the report is about this file, read with its folder)",
        "status_done": "Done.",
        "status_degraded": "Done (degraded: some data could not be read).",
        "status_failed_see_report": "Failed — why, and what to do next, are in the report panel.",
        "report_pointer_failed": "❌ No report — why, and what to do next, are in the report panel.",
        "status_failed": "Failed: {message}",
        "status_stopped": "Stopped.",
        "status_replaying": "Replaying…",
        "status_replay_mode": "▶ replay of {name} (recorded with {model})",
        "status_replayed": "Replay finished.",
        "status_no_followup": "Run an analysis first: follow-ups continue its conversation.",
        "replay_budget_exceeded": "You have used your {limit} replays for this hour; try again in {minutes} min.",
        "replay_cpu_stopped": "The replay stopped: it used the {seconds} s of server time a replay may use.",
        "followup_payer_changed": "The settings changed who pays: run a new analysis, then ask again.",
        "budget_exceeded": (
            "This session has used its {limit} {limit!p:run|runs} for this hour; try again in {minutes} min."
        ),
        "tool_budget_exceeded": (
            "This visitor has used its {limit} tool calls for this hour; try again in {minutes} min."
        ),
        "run_in_progress": (
            "You already have an analysis running on this Space: wait for it to finish (or press Stop), "
            "then start the next one."
        ),
        "space_busy": "This Space is serving too many visitors right now; try again in {minutes} min.",
        "space_runs_exhausted": (
            "This Space has used its analyses for this hour; try again in {minutes} min, or paste your "
            "own API key and GitHub token in Settings."
        ),
        "space_tokens_exhausted": (
            "This Space has used its model tokens for this hour; try again in {minutes} min, or paste your "
            "own API key in Settings."
        ),
        "allowance": "left this hour: ",
        "allowance_visitor": "{runs} of your runs",
        "allowance_space_runs": "Space {runs} runs",
        "allowance_space_tokens": "{tokens} model tokens",
        "allowance_space_github": "{requests} GitHub requests",
        "stopped": "⏹ Stopped",
        "stopped_log": "stopped",
        "col_breaker": "breaker",
        "col_state": "state",
        "col_failures": "failures",
        "col_last_error": "last error",
        "col_next_probe": "next probe",
        "probe_due": "due",
        "source_github": "GitHub",
        "source_local": "local",
        "source_model": "model",
        "breaker_line": "⚡ {name} breaker: {old} → {new} ({reason})",
        "breaker_detail": "consecutive failures: {failures}",
        "breaker_next_probe": " · next probe in {seconds:.0f} s",
        "stat_turns": "Turns",
        "stat_tool_calls": "Tool calls",
        "stat_github_requests": "GitHub requests",
        "stat_cache_hits": "Cache hits",
        "stat_rate_limit": "Rate limit left",
        "stat_tokens": "Tokens in / out",
        "stat_cost": "Cost",
        "stat_elapsed": "Elapsed",
        "stat_coverage": "Coverage",
        "stat_unknown": "—",
        "cost_estimate": "estimate {low} – {high} (up to its budget of {budget:,} tokens)",
        "cost_unknown": "unknown (no price known for this model)",
        "cost_prices": "prices of {date}",
        "step_usage": "{tokens_in:,} in / {tokens_out:,} out tokens · model {seconds:.1f} s",
        "step_speed": "{rate:.1f} tokens/s · first token after {first:.0f} s",
        "reading_prompt": "reading the brief: {total:,} tokens",
        "reading_progress": "reading the brief: {done:,} / {total:,} tokens ({share:.0%})",
        "reading_eta": "about {eta:.0f} s left at {rate:.0f} tokens/s",
        "step_usage_cached": "{tokens_in:,} in ({cached:,} cached) / {tokens_out:,} out tokens · model {seconds:.1f} s",
        "stat_tokens_cached": "{tokens_in:,} ({cached:,} cached) / {tokens_out:,}",
        "stat_cost_parts": "Cost by price",
        "cost_part": "{what} {tokens:,} × {price}/M = {cost}",
        "cost_part_price": "{what} {price}/M",
        "cost_what_cached_input": "cached input",
        "cost_what_input": "input",
        "cost_what_output": "output",
        "step": "Step",
        "report_step": "Writing the report",
        "report_pointer_live": "✍️ Writing the report — it streams into the report panel.",
        "report_pointer_done": "📄 Report written — see the report panel.",
        "report_pointer_partial": "📄 The report stopped part-way — what was written is in the report panel.",
        "tree_counts": "files: {files:,} · folders: {dirs:,}",
        "tree_own": "the project's own: {own:,} · vendored: {vendored:,} ({where}) · generated: {generated:,}",
        "tree_tests": "tests: {files:,} {files!p:file|files} in {packages:,} {packages!p:package|packages} ({conventions})",
        "tree_no_tests": "tests: none found by the usual conventions",
        "tree_top_files": "top-level files: {count}",
        "tree_more_folders": "+{count} more",
        "tree_cut": "GitHub cut this tree: at least {files:,} files (every count is a lower bound)",
        "tree_plain": "file tree ({size:,} bytes of result)",
        "tree_role_tests": "tests",
        "tree_role_docs": "docs",
        "tree_role_examples": "examples",
        "tree_role_vendored": "vendored",
        "tree_role_generated": "generated",
        "tree_role_build": "build",
        "tree_role_ci": "CI",
        "export_box": "Downloads",
        "retry_line": "↻ attempt {attempt} failed ({reason}); retrying in {delay:.2f}s",
        "failed": "❌ {message}",
        "analyzing": "Analyzing…",
        "run_busy": (
            "An analysis is already running in this session: press Stop first, then start the next one."
        ),
        "report_stopped_empty": "*Stopped before the report was written.*",
        "status_model_failed": (
            "Done, but the model failed: {why} The deterministic writer wrote the report from the data "
            "gathered."
        ),
        "model_failed_unknown": "it could not finish the report.",
        "status_missing_github": "Done, but some GitHub data is missing: {why}",
        "status_missing_local": "Done, but some data of the local repository is missing: {why}",
        "failed_heading": "The analysis failed",
        "next_step": "Next step:",
        "failed_next_unknown": "Try again; the server log has the details.",
        "settings_bad_url": (
            "Not applied: the base URL must start with http:// or https:// and name a host (got “{url}”)."
        ),
        "settings_bad_provider": "Not applied: unknown model provider “{name}”.",
        "settings_no_model": "Not applied: choose or type a model name.",
        "url_syntax": "the model base URL cannot be read as an http(s) URL with a host",
        "url_port": "the model base URL's port “{port}” is not a number from 1 to 65535",
        "url_credentials": (
            "the model base URL carries a user name or password: paste the key into the key field instead"
        ),
        "url_numeric_host": (
            "the model base URL's host “{host}” is a numeric address in a non-standard form (octal, "
            "hexadecimal, one integer or a short form): write an IPv4 address as four decimal numbers, "
            "or use a host name"
        ),
        "url_ipv6": "the model base URL's IPv6 address “{host}” is not valid (a zone such as %eth0 is not allowed)",
        "url_host": (
            "the model base URL's host “{host}” is not a valid host name (letters, digits and hyphens; "
            "write an international name in its xn-- form)"
        ),
        "url_https": "a model base URL on this Space must be an https URL",
        "url_local": "the model base URL names a local host “{host}”",
        "url_not_public": (
            "the model base URL's host “{host}” is not a public address (loopback, private, link-local, "
            "reserved, or one of those inside an IPv6 address)"
        ),
        "url_hint": "use an https URL on the public internet, or one of the provider presets",
        "settings_refused": "Not applied: {message}",
        "example_target": "Repository",
        "example_question": "Question",
        "limit_name_target": "The repository field",
        "limit_name_question": "The question",
        "limit_name_followup": "The follow-up question",
        "limit_name_setting": "A settings field",
        "limit_name_argument": "A tool argument",
        "limit_name_upload_name": "The uploaded file's name",
        "limit_too_long": "{name} is too long ({size} characters; at most {limit}).",
        "example_question_renamed": "Was this repository renamed or moved?",
        "example_question_cli": "How is the CLI structured?",
        "example_question_compare": "Compare their architecture and maintenance.",
        "example_question_architecture": "What is the architecture? Is it well maintained?",
    }
)
