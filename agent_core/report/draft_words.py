"""What the page and the terminal say about a ``draft_reviewed`` event: one line, and the claims it
names (the model's words, untrusted: each consumer renders them inert)."""

from __future__ import annotations

from agent_core import events as ev
from agent_core.words import t


def draft_line(event: ev.DraftReviewed, lang: str) -> str:
    """The event in one sentence: sent back (and why), asked to read, accepted after a revision (what it
    corrected), taken with sentences set aside, or replaced by the app's report (keeping how many of its
    sentences)."""
    unfit = [p for p in event.problems if p in ("tool_call", "echo", "repeated_block", "from_memory")]
    problems = t("brief_list_sep", lang).join(t(f"draft_problem_{p}", lang) for p in unfit or event.problems)
    match event.outcome:
        case "revise":
            return t("draft_revise", lang, problems=problems)
        case "read_first":
            return t("draft_read_first", lang)
        case "accepted":
            line = t("draft_accepted", lang, corrected=len(event.corrected), left=len(event.findings))
            return line + (
                t("draft_and_set_aside", lang, count=len(event.set_aside)) if event.set_aside else ""
            )
        case "trimmed":
            return t("draft_trimmed", lang, count=len(event.set_aside))
        case "replaced":
            return t("draft_replaced", lang, problems=problems, kept=event.kept)


def draft_claims(event: ev.DraftReviewed, lang: str) -> list[tuple[str, str, str | None]]:
    """The claims the event names, as (mark, claim, observed): corrected ones, then those still ✗ (or
    still declared nowhere: ?), then the sentences set aside."""
    corrected = [("✓", t("draft_corrected", lang), c) for c in event.corrected]
    wrong = [
        ("✗", t("draft_still_wrong", lang), c)
        if c.verdict == "contradicted"
        else ("?", t("draft_unconfirmed", lang), c)
        for c in event.findings
    ]
    aside = [("✂", t("draft_aside", lang), c) for c in event.set_aside]
    return [(f"{mark} {label}", c.claim, c.observed) for mark, label, c in (*corrected, *wrong, *aside)]
