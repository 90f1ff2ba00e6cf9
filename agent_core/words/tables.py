"""Every area's table joined into one per language; a key said by two areas is refused at import.

An area is one module per language (``page_en.py`` + ``page_zh.py``, ``report_en.py`` + ``report_zh.py``, ...):
one concept each, so a module stays readable and two engineers adding words rarely touch the same file.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from agent_core.words import (
    checked_en,
    checked_zh,
    coverage_en,
    coverage_zh,
    diagnosis_en,
    diagnosis_zh,
    diagram_en,
    diagram_zh,
    folder_en,
    folder_zh,
    page_en,
    page_zh,
    plan_en,
    plan_zh,
    repomodel_en,
    repomodel_zh,
    report_en,
    report_zh,
    terminal_en,
    terminal_zh,
    turns_en,
    turns_zh,
)

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = ("en", "zh")

# One line per language, the areas in the same order: page, claim check, report, repository
# model, diagram, diagnosis, coverage, model turns, folder reports, the command line's trace, the
# narration of planned turns.
AREAS: Mapping[Language, tuple[Mapping[str, str], ...]] = MappingProxyType(
    {
        "en": (
            page_en.PAGE,
            checked_en.CHECKED,
            report_en.REPORT,
            repomodel_en.REPOMODEL,
            diagram_en.DIAGRAM,
            diagnosis_en.DIAGNOSIS,
            coverage_en.COVERAGE,
            turns_en.TURNS,
            folder_en.FOLDER,
            terminal_en.TERMINAL,
            plan_en.PLAN,
        ),
        "zh": (
            page_zh.PAGE,
            checked_zh.CHECKED,
            report_zh.REPORT,
            repomodel_zh.REPOMODEL,
            diagram_zh.DIAGRAM,
            diagnosis_zh.DIAGNOSIS,
            coverage_zh.COVERAGE,
            turns_zh.TURNS,
            folder_zh.FOLDER,
            terminal_zh.TERMINAL,
            plan_zh.PLAN,
        ),
    }
)


def joined(areas: tuple[Mapping[str, str], ...]) -> Mapping[str, str]:
    """The areas as one table; a key two areas both say is an error (one would silently hide the other)."""
    table: dict[str, str] = {}
    for area in areas:
        if twice := table.keys() & area.keys():
            raise ValueError(f"words said by two areas: {sorted(twice)}")
        table.update(area)
    return MappingProxyType(table)


TABLES: Mapping[Language, Mapping[str, str]] = MappingProxyType(
    {language: joined(AREAS[language]) for language in LANGUAGES}
)
