"""What the command line's trace says, in English (agent_core/top/terminal.py)."""

from __future__ import annotations

from types import MappingProxyType

TERMINAL = MappingProxyType(
    {
        "cli_planner": "offline planner",
        "cli_start": "▶ Analysing {targets} with {model}",
        "cli_scope": "  scope: {label} ({kind})",
        "cli_scope_file": "file",
        "cli_scope_folder": "folder",
        "cli_question": "  question: {question}",
        "cli_estimate": "  estimated cost: ${low:.4f}-{high:.4f} (up to {budget:,} tokens, prices of {as_of}{prices})",
        "cli_report_rule": "── report ──",
        "cli_writing": "✍ writing the report…",
        "cli_turn_rule": "── turn {turn} ──",
        "cli_retry": "   ↻ {tool}: attempt {attempt} failed ({reason}); retrying in {delay:.2f}s",
        "cli_next": "  next: {hint}",
        "cli_diagram": "🗺 diagram of {repo}: {made}, {count} {count!p:component|components}{why}",
        "cli_diagram_model": "proposed by the model",
        "cli_diagram_tree": "built from the tree",
        "cli_attempts": "{count} attempts",
        "cli_breaker": "⚡ breaker {breaker}: {old} → {new} ({reason}{extra})",
        "cli_next_probe": "; next probe in {seconds:.0f}s",
        "cli_degraded": " (degraded)",
        "cli_done": (
            "✔ done{flag}: {turns} {turns!p:turn|turns}, {calls} tool {calls!p:call|calls}, {requests} GitHub "
            "{requests!p:request|requests}, {hits} cache {hits!p:hit|hits}, {tokens} tokens{cost}, {seconds:.1f}s"
        ),
        "cli_cached": " ({count} cached)",
        "cli_prices_of": " (prices of {as_of})",
        "cli_cost_local": "  cost: local: no charge",
        "cli_cost_by_price": "  cost by price: ",
        "cli_bytes": "{count:,} {count!p:byte|bytes}",
        "cli_lines": "lines {start}-{end} of {total}",
        "cli_cut_at": "cut: continue at line {line}",
        "cli_listing": "{files:,} {files!p:file|files}, {dirs:,} {dirs!p:folder|folders}",
        "cli_listing_cut": "cut at 1,000 entries",
        "cli_stars": "{count:,} {count!p:star|stars}",
        "cli_renamed": "renamed from {name}",
        "cli_archived": "archived",
        "cli_commits": "{commits:,} {commits!p:commit|commits} by {authors:,} {authors!p:author|authors}",
        "cli_newest": "newest {day}",
        "cli_tree_files": "{count:,} {count!p:file|files}",
        "cli_tree_own": "{own:,} the project's own ({vendored:,} vendored)",
        "cli_tree_tests": "{tests:,} test {tests!p:file|files} in {packages:,} {packages!p:package|packages}",
        "cli_tree_cut": "GitHub cut this tree: at least {count:,} files",
        "cli_reading": "reading the brief: {total:,} tokens",
        "cli_reading_part": "reading the brief: {done:,} / {total:,} tokens ({share:.0%})",
        "cli_reading_eta": ", about {eta:.0f} s left at {rate:.0f} tokens/s",
        "cli_reading_about": "reading the brief: about {done:,} / {total:,} tokens ({share:.0%}, estimated)",
        "cli_so_far": ", {elapsed:.0f} s so far",
        "cli_writing_unseen": "writing what is shown when done (a tool call): {elapsed:.0f} s so far",
    }
)
