"""When the offline planner stops trying: every failure so far is a broken connection (DNS, TLS, the
network), so more calls to the same service would fail the same way. (What it reads for a question:
:mod:`~agent_core.report.relevance`.)"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.tools.results import ToolResult

CONNECTIVITY_CAUSES = frozenset({"dns", "tls", "network"})


def offline(results: Sequence[ToolResult]) -> bool:
    """Whether something failed and every failure so far is a broken connection (DNS, TLS, network)."""
    failures = [r for r in results if not r.ok]
    return bool(failures) and all(r.cause in CONNECTIVITY_CAUSES for r in failures)
