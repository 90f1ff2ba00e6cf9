"""The "Checked by Repo Analyst" panel: what the app itself says about a report, outside its Markdown.

Key facts from the observations, the data gaps the run recorded, and the claim check (✓ verified,
✗ contradicted with what was observed, ? not checkable), built from structured events only
(``claims_checked``, ``run_finished.degraded_reasons``). It renders in its own component with its own
style (see the app's CSS for ``#checked``), so neither a model nor a repository can forge it: whatever
text of theirs it quotes (a claim's words) is one escaped line.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core import events as ev
from agent_core.report.checked import (
    VERDICT_MARKS,
    checked_heading,
    checked_summary,
    claim_text,
    fact_label,
    observed_text,
)
from agent_core.web.markdown import one_line
from agent_core.words import t

_MAX_OPEN = 12  # ✗ and ? items shown open
_MAX_DETAIL = 60  # verified items, collapsed


def checked_markdown(
    check: ev.ClaimsChecked | None, reasons: Sequence[str], lang: str, *, finished: bool
) -> str:
    """The panel's Markdown ("" before anything is known): key facts, data gaps, the counts, the ✗ and ?
    items (each claim once), and the verified ones collapsed under one line."""
    if check is None and not reasons:
        return t("checked_pending", lang) if not finished else ""
    out = [f"#### {checked_heading(lang)}"]
    if check is not None and check.key_facts:
        several = len({f.repo for f in check.key_facts}) > 1
        facts = [
            (f"{one_line(f.repo, 40)} · " if several else "")
            + f"{fact_label(f.label, lang)} **{one_line(f.value, 40)}**"
            for f in check.key_facts
        ]
        out.append(" · ".join(facts))
    if reasons:
        out.append(f"**⚠ {t('checked_gaps', lang)}:** " + "; ".join(one_line(r, 160) for r in reasons[:8]))
    if check is None:
        return "\n\n".join(out)
    out.append(f"**{checked_summary(check, lang)}**")
    rows = distinct_claims(check.claims)
    doubtful = sorted((c for c in rows if c.verdict != "verified"), key=lambda c: c.verdict != "contradicted")
    lines = [_row(c, lang) for c in doubtful[:_MAX_OPEN]]
    if len(doubtful) > _MAX_OPEN:
        lines.append(f"- … {len(doubtful) - _MAX_OPEN}")
    if lines:
        out.append("\n".join(lines))
    verified = [c for c in rows if c.verdict == "verified"]
    if verified:
        detail = [_row(c, lang) for c in verified[:_MAX_DETAIL]]
        if len(verified) > _MAX_DETAIL:
            detail.append(f"- … {len(verified) - _MAX_DETAIL}")
        summary = t("checked_verified_detail", lang, count=len(verified))
        # Sanitised Markdown keeps <details>: collapsed until opened, no script involved.
        out.append(f"<details><summary>{summary}</summary>\n\n" + "\n".join(detail) + "\n\n</details>")
    return "\n\n".join(out)


def distinct_claims(claims: Sequence[ev.CheckedClaim]) -> list[ev.CheckedClaim]:
    """Each claim once: the same words with the same verdict (a report repeats a name or a version in
    several sections) are one entry, the first kept."""
    seen: set[tuple[str, str, str | None]] = set()
    out = []
    for claim in claims:
        key = (" ".join(claim.claim.split()).casefold(), claim.verdict, claim.repo)
        if key not in seen:
            seen.add(key)
            out.append(claim)
    return out


def _row(claim: ev.CheckedClaim, lang: str) -> str:
    """One entry: the mark, the claim, and what was observed unless it only repeats the claim."""
    row = f"- {VERDICT_MARKS[claim.verdict]} {one_line(claim_text(claim, lang), 90)}"
    observed = claim.observed
    if observed and claim.kind != "link" and observed.casefold().strip() != claim.claim.casefold().strip():
        row += f" — {t('checked_observed', lang)} {one_line(observed_text(claim, lang) or observed, 90)}"
    return row
