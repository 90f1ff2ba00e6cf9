"""What every label and sentence of the deterministic report is: the :class:`Words` table, one per language.

The tables themselves are :data:`agent_core.report.words_en.EN` and :data:`agent_core.report.words_zh.ZH`
(:func:`words_for` picks one). Field names say where a text appears; ``{}`` fields are
:meth:`str.format` templates, filled by :mod:`agent_core.report.sections` and
:mod:`agent_core.report.facts`. A new text is one more field, which every table must then fill; a new
language is one more ``Words(...)`` value. Section titles are not here: they live with their renderers
in :mod:`agent_core.report.sections`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Language = Literal["en", "zh"]


@dataclass(frozen=True, kw_only=True)
class Words:
    """Every label and sentence of a report, in one language. ``{}`` fields are format templates."""

    language: Language  # which language this table is (texts kept elsewhere, e.g. the diagram's, follow it)
    data_sources: str
    title_one: str
    title_many: str
    unknown: str
    none: str
    yes: str
    no: str
    more: str  # " and {n} more", appended to a list
    sep: str  # list separator
    semi: str  # separator of clauses
    colon: str
    paren: str  # " ({})"
    files: tuple[str, str]  # one, several
    not_examined: str
    question: str
    warning: str
    stale_item: str
    degraded_item: str
    # overview
    description: str
    from_manifest: str  # after a description taken from a manifest
    from_readme: str
    stars: str
    forks: str
    open_issues: str
    license: str
    default_branch: str
    created: str
    last_push: str
    topics: str
    homepage: str
    primary_language: str
    renamed: str
    archived: str
    is_fork: str
    no_info: str
    # tech stack
    languages: str
    no_languages: str
    manifests: str
    manifest_line: str
    runtime_deps: str
    dev_deps: str
    docs_deps: str
    groups: str
    group_kinds: Mapping[str, str]  # GroupKind → what it is for
    module: str
    workspaces: str
    build_backend: str
    indirect: str
    no_deps: str
    unparsed: str
    invalid: str
    partial: str
    unread_manifests: str
    no_manifests: str
    notable: str
    tooling: str
    categories: Mapping[str, str]
    # structure
    counts: str
    top_dir: str
    top_files: str
    notable_files: str
    roles: Mapping[str, str]
    truncated: str
    tree_cut: str  # {} top-level folders, {} listing requests
    at_least: str  # "at least {}" before a files phrase
    tree_cut_notice: str  # the trace's notice: {repo}, {} top-level folders, {} requests
    scope_folder: str  # {path}, {ref}, {repo}: a /tree/ URL's scope
    scope_file: str  # {path}, {ref}, {repo}: a /blob/ URL's scope
    file_size: str  # {path}, {lines phrase}, {bytes}: the scoped file
    line_counts: tuple[str, str]  # "{:,} line", "{:,} lines"
    file_says: str  # {}: its own summary line
    file_defines: str  # {}: the names it defines
    file_not_text: str  # {path}, {kind}
    empty_repo: str
    no_tree: str
    root_only: str
    listing: str
    # activity
    last_commit: str
    first_commit: str
    sample: str
    span: str
    cadence: str
    same_day: str
    authors: str
    has_more: str
    latest: str
    no_commits: str
    commits_failed: str
    # strengths / risks / recommendations
    s_ci: str
    s_runner: str
    s_tests: str
    s_test_files: str
    s_license: str
    s_license_file: str
    s_readme: str
    s_docs: str
    s_activity: str
    s_contributors: str
    no_strengths: str
    r_no_license: str
    r_no_ci: str
    r_no_tests: str
    r_single_author: str
    r_archived: str
    r_no_readme: str
    r_short_readme: str
    r_large_files: str
    r_unchecked: str
    r_data: str
    r_empty: str
    no_risks: str
    recommend: Mapping[str, str]
    no_recommendations: str
    checks: Mapping[str, str]
    # the Answer section (agent_core.report.answer)
    a_read: str
    a_listed: str
    a_beyond: str
    a_nothing: str
    a_no_tree: str
    a_tests: str
    a_tests_dir: str
    a_test_files: str
    a_no_tests: str
    a_tests_unknown: str
    a_framework: str
    a_declared: str
    a_seen: str
    a_framework_unknown: str
    a_ci: str
    a_runs: str
    a_ran: str
    a_runner: str
    a_no_ci: str
    a_ci_unknown: str
    a_cli: str
    a_script: str
    a_parses: str
    a_options: str
    a_no_entry: str
    a_matches: str
    a_no_match: str
    a_defines: str
    a_test_count: str
    a_partial: str
    a_test_role: str
    # comparison and sources
    side_by_side: str
    table_rows: tuple[str, ...]
    aspect: str
    yes_which: str
    mark_ok: str
    mark_failed: str
    mark_stale: str
    mark_degraded: str
    mark_memo: str
    no_calls: str
    # why the model did not write the report (the fallback's note)
    fallback_note: str  # {reason}, {count}
    model_reasons: Mapping[str, str]  # by LLMError.kind (and "open", "no_tools", "unknown")
