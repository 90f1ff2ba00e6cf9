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
from agent_core.report.checked import VERDICT_MARKS, checked_heading, checked_summary, fact_label
from agent_core.web.markdown import one_line
from agent_core.words import t

_MAX_ROWS = 40


def checked_markdown(
    check: ev.ClaimsChecked | None, reasons: Sequence[str], lang: str, *, finished: bool
) -> str:
    """The panel's Markdown ("" before anything is known)."""
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
    if check is not None:
        out.append(f"**{checked_summary(check, lang)}**")
        rows = sorted(check.claims, key=lambda c: ("contradicted", "unchecked", "verified").index(c.verdict))
        lines = [
            f"- {VERDICT_MARKS[c.verdict]} {one_line(c.claim, 90)}"
            + (
                f" — {t('checked_observed', lang)} {one_line(c.observed, 90)}"
                if c.observed and c.kind != "link"
                else ""
            )
            for c in rows[:_MAX_ROWS]
        ]
        if len(rows) > _MAX_ROWS:
            lines.append(f"- … {len(rows) - _MAX_ROWS}")
        if lines:
            out.append("\n".join(lines))
    return "\n\n".join(out)
