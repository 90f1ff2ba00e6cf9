"""The benchmark's result model and its three renderings: a terminal table, Markdown, JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Metric:
    """One measured figure. ``target`` is the issue's target in words (``"≤ 1.05"``); ``met`` says
    whether this run reached it (``None`` when there is no target)."""

    name: str
    value: float | int | str
    unit: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""

    def shown(self) -> str:
        if isinstance(self.value, float):
            text = f"{self.value:.3f}" if abs(self.value) < 10 else f"{self.value:.1f}"
        else:
            text = str(self.value)
        return f"{text} {self.unit}".strip()


@dataclass(frozen=True, kw_only=True)
class Section:
    key: str
    title: str
    metrics: list[Metric] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0  # how long measuring took
    table: list[dict[str, str]] = field(default_factory=list)  # a section's own rows (same keys in each)
    skipped: str = ""  # why nothing was measured (a prerequisite is missing); "" when it ran


def _verdict(metric: Metric) -> str:
    return {True: "yes", False: "NO", None: ""}[metric.met]


def render_text(sections: list[Section]) -> str:
    rows = [("section", "metric", "value", "target", "met")]
    for section in sections:
        for metric in section.metrics:
            rows.append((section.key, metric.name, metric.shown(), metric.target, _verdict(metric)))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    for section in sections:
        if section.skipped:
            lines.append(f"  [{section.key}] skipped: {section.skipped}")
        lines.extend(f"  [{section.key}] {note}" for note in section.notes)
    for section in sections:
        if section.table:
            lines += ["", f"[{section.key}]", *_aligned(section.table)]
    return "\n".join(line.rstrip() for line in lines)


def _aligned(table: list[dict[str, str]]) -> list[str]:
    rows = [list(table[0])] + [list(row.values()) for row in table]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return lines


def render_markdown(sections: list[Section]) -> str:
    lines = ["| section | metric | value | target | met |", "|---|---|---|---|---|"]
    for section in sections:
        for metric in section.metrics:
            cells = [section.title, metric.name, metric.shown(), metric.target, _verdict(metric)]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    for section in sections:
        if section.table:
            lines += ["", f"**{section.title}**", ""]
            lines += ["| " + " | ".join(section.table[0]) + " |", "|" + "---|" * len(section.table[0])]
            lines += [
                "| " + " | ".join(c.replace("|", "\\|") for c in row.values()) + " |" for row in section.table
            ]
    return "\n".join(lines)


def write_json(
    path: Path, sections: list[Section], *, config: dict[str, Any], machine: dict[str, Any]
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"config": config, "machine": machine, "sections": [asdict(section) for section in sections]}
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
