"""The claim check as the app says it: worded once, for the page's panel, the export and the CLI.

Each consumer lays the check out in its own medium (the page's "Checked by Repo Analyst" panel, the
export's appendix, the terminal's lines) and escapes quoted text its own way; the heading, the verdict
marks, a key fact's label and the summary line of counts come from here, so the three never disagree.
Only numbers and the app's own words go into these texts, never a claim's or a repository's; a claim as
the app names it and what was observed are said here too, in the consumer's language, from the structure
the check put in the event (:func:`claim_text`, :func:`observed_text`), never re-parsed from its English.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from agent_core import events as ev
from agent_core.words import Said, say, t, words_for

VERDICT_MARKS: Mapping[str, str] = MappingProxyType({"verified": "✓", "contradicted": "✗", "unchecked": "?"})


def checked_heading(language: str) -> str:
    """The panel's and the appendix's heading: who checked (the app), not the model."""
    return f"✔ {t('checked_title', language)}"


def checked_summary(check: ev.ClaimsChecked, language: str) -> str:
    """One line: what was held against the observations and how many claims held, failed or could not be checked."""
    counts = t(
        "checked_counts",
        language,
        verified=check.verified,
        contradicted=check.contradicted,
        unchecked=check.unchecked,
    )
    return t("checked_summary", language, claims=t("checked_claims", language), counts=counts)


def fact_label(label: str, language: str) -> str:
    """A key fact's label (``stars``, ``license`` ...) in words; an unknown label as itself."""
    words = words_for(language)
    return words(f"fact_{label}") if words.has(f"fact_{label}") else label


def claim_text(claim: ev.CheckedClaim, language: str) -> str:
    """The claim as the app names it ("last push: 2024-02-26" / "最后推送：2024-02-26"), or the report's
    own words when the app added none."""
    return say(claim.claim_said, language) if claim.claim_said is not None else claim.claim


def observed_text(claim: ev.CheckedClaim, language: str) -> str | None:
    """What was observed, in ``language`` when the app's words say it; a value of the repository's (a
    number, a path, a permalink) as it is."""
    return clauses(claim.observed_said, language) if claim.observed_said else claim.observed


def clauses(said: Sequence[Said], language: str) -> str:
    """Several observations of one claim, as one text ("a in x; b in y")."""
    return t("said_clause_sep", language).join(say(one, language) for one in said)
