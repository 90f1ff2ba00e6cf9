"""What the app says about a report's claims, in English: the "Checked by Repo Analyst" panel, export and CLI."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

CHECKED: Mapping[str, str] = MappingProxyType(
    {
        "checked_title": "Checked by Repo Analyst, not by the model",
        "checked_pending": "*The key facts and the claim check appear here when the report is done.*",
        "checked_facts": "Key facts, from the tools' observations",
        "checked_gaps": "Data gaps",
        "checked_claims": "Claims held against the observations",
        "checked_counts": "{verified} ✓ verified · {contradicted} ✗ contradicted · {unchecked} ? not checkable",
        "checked_summary": "{claims}: {counts}",
        "checked_verified_detail": "{count} verified {count!p:claim|claims}",
        "checked_observed": "observed:",
        "checked_none": "No checkable claims were found.",
        "checked_head": "| | claim | observed |",
        "fact_stars": "Stars",
        "fact_forks": "Forks",
        "fact_open_issues": "Open issues",
        "fact_license": "License",
        "fact_language": "Primary language",
        "fact_default_branch": "Default branch",
        "fact_last_commit": "Last commit",
    }
)
