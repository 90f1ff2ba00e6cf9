"""What the architecture diagram says in English: where it comes from, its roles and its arrows."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

DIAGRAM: Mapping[str, str] = MappingProxyType(
    {
        "diagram_drawn_by_tree": "Drawn by the app from the tree and the imports of the files read",
        "diagram_drawn_by_model": "Proposed by the model, every path checked against the tree",
        "diagram_at_commit": ", at commit {}",
        "diagram_none": "No diagram: the repository's tree was not read.",
        "diagram_package": "package",
        "diagram_entry": "entry point",
        "diagram_imports": "imports",
        "diagram_tests": "tests",
        "diagram_runs": "runs",
        "diagram_documents": "documents",
        "diagram_uses": "uses",
        "diagram_starts": "starts",
        "diagram_part_of": "part of",
        "diagram_cut": "partly listed (tree cut)",
        "notice_diagram_waiting": "Still waiting for the model's architecture diagram of {repo}: {seconds:,} s so far.",
    }
)
