"""Workspace globs (npm/yarn/pnpm ``workspaces``) matched against folders in linear work.

A folder's state — for each glob, the set of pattern positions it can stand at, as bits — comes from its
parent's state and its own name, once per folder (memoised); each (pattern segment, folder name) pair is
matched once with :func:`fnmatch.fnmatchcase`. ``**`` stands for any number of segments (none included),
``!glob`` excludes, the last glob that matches decides, as npm's workspaces do. At most
:data:`MAX_GLOBS` globs of at most :data:`MAX_GLOB_LENGTH` characters. Pure, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

MAX_GLOBS = 200
MAX_GLOB_LENGTH = 300


class Globs:
    """Workspace globs, matched against folders in linear work: a folder's state (per glob, the set of
    pattern positions it can stand at, as bits) comes from its parent's and its own name, once per folder;
    each (pattern segment, folder name) pair is matched once."""

    def __init__(self, globs: Sequence[str]) -> None:
        self._globs: list[tuple[bool, tuple[str, ...]]] = []
        for glob in globs[:MAX_GLOBS]:
            if len(glob) > MAX_GLOB_LENGTH:
                continue
            negated = glob.startswith("!")
            self._globs.append((negated, _segments(glob[1:] if negated else glob)))
        start = tuple(_close(pattern, 1) for _negated, pattern in self._globs)
        self._states: dict[str, tuple[int, ...]] = {"": start}
        self._fits: dict[tuple[str, str], bool] = {}
        self._steps: dict[tuple[int, int, str], int] = {}

    def member(self, folder: str) -> bool:
        """True when ``folder`` (relative to the workspace root) is named by the globs (the last glob
        that matches decides, so ``!glob`` after a glob excludes)."""
        if not folder or not self._globs:
            return False
        states = self._state(folder)
        member = False
        for (negated, pattern), state in zip(self._globs, states, strict=True):
            if state >> len(pattern) & 1:
                member = not negated
        return member

    def _state(self, folder: str) -> tuple[int, ...]:
        missing: list[str] = []
        at = folder
        while at not in self._states:  # walk up to the nearest folder already known
            missing.append(at)
            at = at.rpartition("/")[0]
        state = self._states[at]
        for path in reversed(missing):
            state = self._step(state, path.rpartition("/")[2])
            self._states[path] = state
        return state

    def _step(self, states: tuple[int, ...], name: str) -> tuple[int, ...]:
        """Each glob's state after taking the folder ``name`` (a state seen before with the same name
        is looked up: deep trees repeat them)."""
        steps = self._steps
        if len(steps) > 200_000:
            steps.clear()
        out = []
        for index, state in enumerate(states):
            key = (index, state, name)
            after = steps.get(key)
            if after is None:
                after = steps[key] = self._advance(self._globs[index][1], state, name)
            out.append(after)
        return tuple(out)

    def _advance(self, pattern: tuple[str, ...], state: int, name: str) -> int:
        after = 0
        for i, segment in enumerate(pattern):
            if not state >> i & 1:
                continue
            if segment == "**":
                after |= 1 << i  # ** takes this folder and stays
            elif self._fit(segment, name):
                after |= 1 << (i + 1)
        return _close(pattern, after)

    def _fit(self, segment: str, name: str) -> bool:
        key = (segment, name)
        found = self._fits.get(key)
        if found is None:
            if len(self._fits) > 200_000:
                self._fits.clear()
            found = self._fits[key] = fnmatchcase(name, segment)
        return found


def _close(pattern: Sequence[str], state: int) -> int:
    """Add the positions after each ``**`` reachable without taking a folder (``**`` may be empty)."""
    for i, segment in enumerate(pattern):
        if segment == "**" and state >> i & 1:
            state |= 1 << (i + 1)
    return state


def workspace_member(folder: str, globs: Sequence[str]) -> bool:
    """True when ``folder`` (relative to the workspace root) is named by ``globs`` (one folder; many
    folders share one :class:`Globs`)."""
    return Globs(globs).member(folder)


def _segments(glob: str) -> tuple[str, ...]:
    """The glob's segments, ``./`` and repeated ``**`` dropped."""
    out: list[str] = []
    for part in glob.strip().strip("/").split("/"):
        if part not in ("", ".") and not (part == "**" and out and out[-1] == "**"):
            out.append(part)
    return tuple(out)
