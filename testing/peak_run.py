"""One analysis in a process of its own, to read what it cost the process: ``python -m testing.peak_run``.

The app's own path (settings from the environment, as an operator gives them; ``open_analysis`` with a
browser session's breakers; every event folded into the session's trace, report and status, as the page
renders them), then one JSON line on stdout: the process's peak resident memory (``VmHWM``), its CPU
time, how the run ended and the notes of its tool results. Used by the hosted-mode security suite to measure
hostile repositories without the test process's own memory in the figure.

    python -m testing.peak_run acme/huge "question"
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
from pathlib import Path

from agent_core import events as ev
from agent_core.settings import Settings
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis
from agent_core.web.browser_session import BrowserSession


def peak_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(target: str, question: str) -> dict[str, object]:
    settings = Settings.from_env(dotenv_path=None)
    services = Services(settings)
    session = BrowserSession(settings, clock=services.clock)
    session.start_view(keep_history=False, request=target)
    end: ev.Event | None = None
    notes: list[str] = []
    try:
        opened = await open_analysis(services, target, question, settings=settings, breakers=session.breakers)
        try:
            async for event in opened.analysis.run(question):
                session.observe(event)
                session.messages()  # a frame, as the page would render it
                end = event
            notes = [str(r.observation.get("note") or "") for r in opened.analysis.results]
        finally:
            await opened.aclose()
    finally:
        await services.aclose()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "finished": isinstance(end, ev.RunFinished),
        "notes": notes,
    }


def main() -> None:
    target, question = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    print(json.dumps(asyncio.run(run(target, question))))


if __name__ == "__main__":
    main()
