"""Is a function's work linear in its input? CPU time (this thread's, never the wall clock) at a
size and at ``factor`` times that size.

Linear work grows by about ``factor``, quadratic by ``factor`` squared; :func:`growth` starts small and
doubles the size until one call costs at least ``floor`` CPU seconds (below that the timer's resolution
and the machine's noise decide). It then times that size, the fastest of ``repeat`` calls (the search
times the fastest of two calls: it only picks the size), and the big one: the fastest of ``repeat``
calls, or the first that is already within linear growth (:data:`TOLERANCE`), since a faster call could
not change that verdict (the big size's calls were 12 of a linear function's 17 calls' time). The
adversarial inputs that once made a renderer quadratic are in :data:`ATTACKS`;
``tests/test_linear_work.py`` feeds them (and hypothesis's own mixtures of :data:`TOKENS`) to every
renderer and parser of the page.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

# The pieces of Markdown and JSON that scanners trip over, and text of other scripts.
TOKENS = (
    "[", "]", "(", ")", "![", "`", "``", "*", "_", "<", ">", "\\", " ", "\t", "[a](", "](x)", "](",
    "[`a`](https://evil.example/a/b.py)", '"', "'", "~~~", "```", "mermaid", "文档", "中", "http://x/",
    "{", "}", ",", ":", "#", "|", "-", "a",
)  # fmt: skip

# name -> the repeated unit of an input that was (or could be) quadratic
ATTACKS = {
    "brackets": "[",
    "images": "![",
    "unclosed link targets": "[a](x(",
    "balanced link targets": "[a](x()",
    "angle targets": "[a](<x",
    "open titles": '[a](b "',
    "paren titles": "[a](b (",
    "nested links": "[[a](b)",
    "backtick runs": "`a``b",
    "lone backticks": "x`",
    "asterisks": "*_",
    "mermaid after fences": "```mermaid",
    "CJK": "文档[中](",
}


# How far over linear growth work may grow and still pass: quadratic is ``factor`` times linear (4 at the
# default factor), so 2.5 leaves room for a busy machine's noise and still tells the two apart.
TOLERANCE = 2.5


@dataclass(frozen=True, kw_only=True)
class Growth:
    size: int
    factor: int
    small_s: float
    big_s: float

    @property
    def ratio(self) -> float:
        return self.big_s / max(self.small_s, 1e-9)

    def linear(self) -> bool:
        """Within :data:`TOLERANCE` times linear growth."""
        return (self.small_s < 0.001 and self.big_s < 0.05) or self.ratio < self.factor * TOLERANCE

    def __str__(self) -> str:
        return (
            f"{self.size:,} -> {self.size * self.factor:,} chars: {self.small_s * 1000:.1f} -> "
            f"{self.big_s * 1000:.1f} CPU-ms (x{self.ratio:.1f}, linear x{self.factor})"
        )


def least_cpu(run: Callable[[], object], *, repeat: int = 5, enough: float = 0.0) -> float:
    """The fastest of ``repeat`` calls of ``run``, in CPU seconds of this thread (the process clock would
    also count threads an earlier test left running), with the collector off (a collection lands in
    whichever call allocates past its threshold); or the first call under ``enough`` seconds."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        best = float("inf")
        for _ in range(repeat):
            start = time.thread_time()
            run()
            best = min(best, time.thread_time() - start)
            if best < enough:
                break
        return best
    finally:
        if enabled:
            gc.enable()


def cpu_seconds(fn: Callable[[str], object], text: str, *, repeat: int = 5, enough: float = 0.0) -> float:
    """The fastest of ``repeat`` calls ``fn(text)``, or the first under ``enough``, in CPU seconds
    (:func:`least_cpu`)."""
    return least_cpu(lambda: fn(text), repeat=repeat, enough=enough)


def growth(
    fn: Callable[[str], object],
    make: Callable[[int], str],
    *,
    start: int = 1000,
    factor: int = 4,
    floor: float = 0.02,
    cap: int = 1 << 18,
    repeat: int = 3,
) -> Growth:
    """How ``fn``'s CPU time grows from ``make(n)`` to ``make(n * factor)`` (see the module docstring)."""
    n, probe = start, 2  # a probe is the fastest of two calls: a first call's one-off cost stops no search
    small = cpu_seconds(fn, make(n), repeat=probe)
    while small < floor and n * factor * 2 <= cap:
        n *= 2
        small = cpu_seconds(fn, make(n), repeat=probe)
    if repeat > probe:  # the size found: the fastest of ``repeat`` calls, counting the probe's
        small = min(small, cpu_seconds(fn, make(n), repeat=repeat - probe))
    big = cpu_seconds(fn, make(n * factor), repeat=repeat, enough=small * factor * TOLERANCE)
    return Growth(size=n, factor=factor, small_s=small, big_s=big)


def repeated(unit: str) -> Callable[[int], str]:
    """``unit`` repeated to ``n`` characters (at least once)."""
    return lambda n: unit * max(1, n // max(1, len(unit)))
