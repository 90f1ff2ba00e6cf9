"""The live breaker table: rows from breaker snapshots (the live board, or a recording's events)."""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from typing import Any

from agent_core.resilience import BreakerSnapshot, BreakerState
from agent_core.web.markdown import flat_text
from agent_core.words import t

SOURCE_ORDER: Mapping[str, int] = types.MappingProxyType({"github": 0, "local": 1, "model": 2})
"""The table's groups, in order: GitHub's tools, a local repository's tools, the model endpoint."""
TICK_SECONDS = 1.0
"""How often the live table re-renders while a breaker counts down (the page's ``gr.Timer``)."""
BREAKER_COLUMNS = ("col_breaker", "col_state", "col_failures", "col_last_error", "col_next_probe")
STATE_STYLES: Mapping[str, str] = types.MappingProxyType(
    {
        "CLOSED": "background-color: #dcfce7; color: #166534; font-weight: 600",
        "HALF_OPEN": "background-color: #fef9c3; color: #854d0e; font-weight: 600",
        "OPEN": "background-color: #fee2e2; color: #991b1b; font-weight: 600",
    }
)


def breaker_table(snapshots: Iterable[BreakerSnapshot], *, lang: str = "en") -> list[list[Any]]:
    """Rows ``[name, STATE, failures, last error, next probe]`` for the live table.

    ``next probe`` is whole seconds while OPEN ("due" once the timer ran out: the next call probes),
    empty otherwise.
    """
    rows: list[list[Any]] = []
    for snap in sorted(snapshots, key=lambda s: SOURCE_ORDER.get(s.source, len(SOURCE_ORDER))):
        state = str(snap.state).upper()
        if snap.state is BreakerState.OPEN:
            probe = f"{snap.retry_after:.0f} s" if snap.retry_after >= 0.5 else t("probe_due", lang)
        else:
            probe = ""
        rows.append(
            [
                breaker_label(snap.source, snap.subject, snap.name, lang),
                state,
                snap.failures,
                flat_text(snap.last_error or "", 100),
                probe,
            ]
        )
    return rows


def breaker_value(snapshots: Iterable[BreakerSnapshot], lang: str = "en") -> dict[str, Any]:
    """The live table as ``gr.Dataframe`` takes it ready-made (headers, rows, per-cell display and
    style): the same cells and colours as a pandas Styler of :data:`STATE_STYLES`, without the Styler
    render Gradio would run on every frame (15% of the app's busy CPU, measured with py-spy)."""
    rows = breaker_table(snapshots, lang=lang)
    return {
        "headers": breaker_columns(lang),
        "data": rows,
        "metadata": {
            # the state as the page's language says it; the cell keeps its name (its style's key)
            "display_value": [
                [t(f"breaker_state_{cell}", lang) if i == 1 else str(cell) for i, cell in enumerate(row)]
                for row in rows
            ],
            "styling": [["", STATE_STYLES.get(str(row[1]), ""), "", "", ""] for row in rows],
        },
    }


def breaker_label(source: str, subject: str, name: str, lang: str = "en") -> str:
    """("github", "read_file") → "GitHub · read_file", ("model", "api.deepseek.com") → "model ·
    api.deepseek.com", from the breaker's parts (never by splitting its ``name``); a breaker without
    a known source (built by hand, or in a trace recorded before the parts were carried) shows its name."""
    if source not in SOURCE_ORDER:
        return name
    return f"{t(f'source_{source}', lang)} · {subject}" if subject else t(f"source_{source}", lang)


def breaker_columns(lang: str = "en") -> list[str]:
    return [t(key, lang) for key in BREAKER_COLUMNS]


def needs_ticking(snapshots: Iterable[BreakerSnapshot]) -> bool:
    """True while the table changes by itself: a breaker HALF_OPEN or OPEN and counting down.

    An OPEN breaker whose probe is due shows "due" until a call arrives, so it needs no ticking.
    """
    return any(
        s.state is BreakerState.HALF_OPEN or (s.state is BreakerState.OPEN and s.retry_after > 0)
        for s in snapshots
    )
