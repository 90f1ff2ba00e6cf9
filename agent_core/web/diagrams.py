"""A run's architecture diagrams as the page shows them: the Mermaid the app compiled from the
``diagram`` events (the only Mermaid that may render, see :func:`agent_core.web.markdown.safe_markdown`),
and the section appended to a model's report (a written report has the diagrams in it already)."""

from __future__ import annotations

from agent_core import events as ev
from agent_core.report.diagram import compile_mermaid, graph_of
from agent_core.report.export import diagram_section


class RunDiagrams:
    """The diagrams of one run, in the order they came. One per :class:`~agent_core.web.render.TraceView`."""

    def __init__(self) -> None:
        self.events: list[ev.DiagramDrawn] = []
        self.mermaid: list[str] = []  # compiled by the app from the events' graphs

    def add(self, event: ev.DiagramDrawn) -> None:
        self.events.append(event)
        self.mermaid.append(compile_mermaid(graph_of(event)))

    def appended(self, result: ev.RunFinished | ev.RunFailed | None) -> list[ev.DiagramDrawn]:
        """The diagrams the app appends to the report: a model's (a written report has them in it)."""
        return self.events if isinstance(result, ev.RunFinished) and result.writer == "model" else []

    def with_section(self, report: str, result: ev.RunFinished | ev.RunFailed | None) -> str:
        """``report`` with the diagram section appended when the app appends one."""
        language = self.events[0].language if self.events else "en"
        section = diagram_section(self.appended(result), language)
        return f"{report.rstrip()}\n\n{section}" if section else report
