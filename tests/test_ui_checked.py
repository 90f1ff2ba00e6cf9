"""The "Checked by Repo Analyst" panel as a short summary: the counts, the ✗ and ? items open, each
claim once, the verified ones collapsed, an observation that only repeats its claim left out."""

from __future__ import annotations

from agent_core import events as ev
from agent_core.web.report_view import checked_markdown


def claim(text: str, verdict: str, observed: str | None = None, kind: str = "path") -> ev.CheckedClaim:
    return ev.CheckedClaim(kind=kind, claim=text, verdict=verdict, observed=observed)  # type: ignore[arg-type]


def check(*claims: ev.CheckedClaim) -> ev.ClaimsChecked:
    count = {v: sum(c.verdict == v for c in claims) for v in ("verified", "contradicted", "unchecked")}
    return ev.ClaimsChecked(t=0.0, claims=claims, **count)


def test_doubtful_claims_open_each_once_and_the_verified_collapsed() -> None:
    verified = [
        claim(f"dep{i} ==1.{i}", "verified", f"==1.{i} in requirements.txt", "dependency") for i in range(30)
    ]
    panel = checked_markdown(
        check(
            claim("Primary language: C", "contradicted", "Python", "language"),
            claim("commits: 30", "unchecked", "more than 30", "number"),
            claim("Primary language: C", "contradicted", "Python", "language"),  # said twice in the report
            claim("pyproject.toml", "verified", "pyproject.toml"),
            claim("pyproject.toml", "verified", "pyproject.toml"),
            *verified,
        ),
        [],
        "en",
        finished=True,
    )
    head, _, detail = panel.partition("<details>")
    assert "32 ✓ verified · 2 ✗ contradicted · 1 ? not checkable" in head
    assert head.count("✗ Primary language: C — observed: Python") == 1
    assert "? commits: 30 — observed: more than 30" in head
    assert "dep0" not in head and "pyproject.toml" not in head  # the verified wait behind one line
    assert detail.startswith("<summary>31 verified claims</summary>") and detail.rstrip().endswith(
        "</details>"
    )
    assert detail.count("pyproject.toml") == 1 and "- ✓ pyproject.toml\n" in detail  # no "observed: itself"
    assert "- ✓ dep29 ==1.29 — observed: ==1.29 in requirements.txt" in detail
    assert len(panel.splitlines()) < 45


def test_in_chinese_the_collapsed_line_is_chinese() -> None:
    panel = checked_markdown(check(claim("README.md", "verified", "README.md")), [], "zh", finished=True)
    assert "<summary>1 条已核实的陈述</summary>" in panel
