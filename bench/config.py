"""What a benchmark run is configured with, and the machine it ran on."""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any


@dataclass(frozen=True, kw_only=True)
class BenchConfig:
    """Knobs shared by every section. Defaults are the issue's: 100 ms per GitHub request, 300 ms to
    the first token of each model turn, a fixed seed."""

    github_latency: float = 0.1
    model_latency: float = 0.3
    seed: int = 0
    runs: int = 3  # repetitions of timed plans; medians are reported
    sessions: int = 20  # simultaneous analyses in the concurrency section
    quick: bool = False
    # the real-model section: an endpoint (default: the local llama.cpp server started for it)
    llm_url: str | None = None
    llm_model: str | None = None
    llm_key: str | None = None
    llm_size: str = "1.5b"
    llm_max_tokens: int = 768
    repos: tuple[str, ...] = ()
    # the real-repositories section: a folder of fetched repositories, DIR/OWNER+NAME/repo (bare git)
    mirror: str | None = None
    # the concurrency section: another checkout of the app, measured side by side with this one
    baseline: str | None = None

    def quickened(self) -> BenchConfig:
        """Small latencies and counts: checks that every section runs, not what it measures."""
        return replace(self, github_latency=0.02, model_latency=0.05, runs=1, sessions=4, quick=True)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["llm_key"] = "***" if self.llm_key else None  # a key never reaches the results file
        return data


def machine() -> dict[str, Any]:
    """The machine the numbers came from (absolute times only mean something next to this)."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor()
    memory_gib = 0.0
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        memory_gib = round(pages * page_size / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "cpu": cpu or "unknown",
        "cores": os.cpu_count(),
        "memory_gib": memory_gib,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }
