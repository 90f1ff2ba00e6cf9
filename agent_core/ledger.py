"""The coverage ledger's value: how much of a repository a run read (ground floor, like the events).

:class:`Coverage` travels on :class:`~agent_core.events.RunStats` (``coverage``, one per repository);
:mod:`agent_core.report.coverage` computes it from the run's observations and the repository model and
words it in English and Chinese; the page, the export and the CLI read these fields, never the line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Coverage:
    """What a run looked at in one repository, against the project's own files (neither vendored nor
    generated, by the repository model). ``own_files``/``own_bytes`` are None when no tree was read;
    when ``truncated`` (the server cut the tree) they are lower bounds."""

    repo: str
    files_read: int
    bytes_read: int  # of the files' text as read (a cut read counts what was received)
    own_files: int | None
    own_bytes: int | None
    folders_listed: int
    top_folders: int = 0  # top-level folders of the tree
    unvisited: tuple[str, ...] = ()  # top-level folders nothing was read or listed in
    truncated: bool = False
    limits: tuple[str, ...] = ()  # caps the repository model met (repomodel.attributes: gitattributes_*)


def coverage_from_dict(data: Mapping[str, Any]) -> Coverage:
    """Inverse of ``dataclasses.asdict`` (a replayed trace); unknown keys are ignored."""
    names = {f.name for f in dataclasses.fields(Coverage)}
    values = {k: v for k, v in data.items() if k in names}
    values["unvisited"] = tuple(values.get("unvisited", ()))
    values["limits"] = tuple(values.get("limits", ()))
    return Coverage(**values)
