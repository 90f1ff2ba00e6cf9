"""The degeneration guard: notices, while a reply streams, that the model has started looping.

Small local models fall into loops: the same line sixty times, a list that never ends, one phrase
repeated inside a line ("Static-Static-Static-…"). :class:`RepetitionGuard` reads the reply as it
arrives and says where to cut it (:class:`Degeneration`): at the first repeat of

* a line (16+ letters or digits) seen ``line_repeats`` times;
* a line of the same shape (the same words around different names, numbers or links) seen
  ``similar_repeats`` times;
* a block of ``block_lines`` or more lines (each 16+ letters or digits, blank lines aside) written a
  second time right as it was (a whole section said twice: a loop that a line count would let through
  twice more);
* a phrase of 1 to 4 words repeated back to back (at least 8 times and 24 words);

or after ``max_list_items`` items of one list. The text before the cut keeps one copy of what repeated.

Each character is looked at a bounded number of times and memory is bounded (at most ``max_tracked``
distinct lines are remembered, and only the first ``_LINE_CHARS`` characters of a line), so a hostile or
broken stream costs linear work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["Degeneration", "RepetitionGuard"]

DegenerationKind = Literal[
    "repeated_line", "similar_lines", "repeated_phrase", "runaway_list", "repeated_block"
]

_LINE_CHARS = 2000  # of a line, what is compared (a longer line is judged by its start)
_PERIODS = (1, 2, 3, 4)  # phrase lengths, in words
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,4}[.)])\s+")
_NAMES = re.compile(r"\*\*[^*]*\*\*|`[^`]*`|\[[^\]]*\]\([^)]*\)|\[[^\]]*\]|\d+")


@dataclass(frozen=True, kw_only=True)
class Degeneration:
    """Where a reply degenerated: the text from ``offset`` (characters of the reply) on is cut; that is
    on line ``line`` (1-based). ``sample``: what repeated (model output: untrusted, at most 80 chars)."""

    kind: DegenerationKind
    offset: int
    line: int
    sample: str


class _Seen:
    """How often a line (by key) was seen, and where it was first repeated."""

    __slots__ = ("count", "line", "offset")

    def __init__(self) -> None:
        self.count = 0
        self.offset = -1
        self.line = 0


class RepetitionGuard:
    """Feed it a reply's text as it streams; it answers the first :class:`Degeneration`, then keeps
    answering the same one (see the module docstring for the rules)."""

    def __init__(
        self,
        *,
        line_repeats: int = 3,
        similar_repeats: int = 4,
        min_phrase_repeats: int = 8,
        min_phrase_words: int = 24,
        max_list_items: int = 50,
        min_line_chars: int = 16,
        max_tracked: int = 4096,
        block_lines: int = 3,
    ) -> None:
        self._settings = {
            "line_repeats": line_repeats,
            "similar_repeats": similar_repeats,
            "min_phrase_repeats": min_phrase_repeats,
            "min_phrase_words": min_phrase_words,
            "max_list_items": max_list_items,
            "min_line_chars": min_line_chars,
            "max_tracked": max_tracked,
            "block_lines": block_lines,
        }
        self._line_repeats = line_repeats
        self._similar_repeats = similar_repeats
        self._phrase_needed = {n: max(min_phrase_repeats, -(-min_phrase_words // n)) for n in _PERIODS}
        self._max_list_items = max_list_items
        self._min_line_chars = min_line_chars
        self._max_tracked = max_tracked
        self.found: Degeneration | None = None
        self._offset = 0  # characters consumed
        self._line_no = 1
        self._line_start = 0
        self._line: list[str] = []
        self._line_len = 0
        self._lines: dict[str, _Seen] = {}
        self._shapes: dict[str, _Seen] = {}
        self._list_items = 0
        self._block = _Blocks(block_lines, max_tracked)
        # phrases: the last words, and for each period the run of words equal to the one n before
        self._word: list[str] = []
        self._word_start = 0
        self._words: list[str] = []
        self._runs = dict.fromkeys(_PERIODS, 0)
        self._run_starts = dict.fromkeys(_PERIODS, 0)

    def fresh(self) -> RepetitionGuard:
        """A guard with the same rules that has seen nothing (the reply starts over)."""
        return RepetitionGuard(**self._settings)

    def feed(self, text: str) -> Degeneration | None:
        """Consume the next piece of the reply; the degeneration found so far, if any."""
        for char in text:
            if self.found is not None:
                break
            self._char(char)
            self._offset += 1
        return self.found

    def finish(self) -> Degeneration | None:
        """The reply ended: judge its last line too."""
        if self.found is None:
            self._end_word()
            if self.found is None and self._line_len:
                self._end_line()
        return self.found

    # -- one character -------------------------------------------------------------------------------

    def _char(self, char: str) -> None:
        if char.isalnum() or char == "_":
            if not self._word:
                self._word_start = self._offset
            if len(self._word) < 64:
                self._word.append(char.lower())
        else:
            self._end_word()
        if char == "\n":
            self._end_line()
            self._line_no += 1
            self._line_start = self._offset + 1
        else:
            if self._line_len < _LINE_CHARS:
                self._line.append(char)
            self._line_len += 1

    def _end_word(self) -> None:
        if not self._word or self.found is not None:
            return
        word = "".join(self._word)
        self._word = []
        words = self._words
        words.append(word)
        if len(words) > max(_PERIODS) + 1:
            del words[0]
        for n in _PERIODS:
            if len(words) > n and words[-1] == words[-1 - n]:
                if self._runs[n] == 0:
                    self._run_starts[n] = self._word_start  # the second copy of the phrase starts here
                self._runs[n] += 1
                if self._runs[n] >= n * (self._phrase_needed[n] - 1):
                    self._cut("repeated_phrase", self._run_starts[n], self._line_no, word)
                    return
            else:
                self._runs[n] = 0

    # -- one line ------------------------------------------------------------------------------------

    def _end_line(self) -> None:
        line = "".join(self._line)
        self._line, self._line_len = [], 0
        if self.found is not None or not line.strip():
            return
        if _LIST_ITEM.match(line):
            self._list_items += 1
            if self._list_items > self._max_list_items:
                self._cut("runaway_list", self._line_start, self._line_no, line)
                return
        elif not line[:1].isspace():
            self._list_items = 0
        normal = " ".join(line.split()).lower()
        if _letters(normal) >= self._min_line_chars:
            self._count(self._lines, normal, self._line_repeats, "repeated_line", line)
            if self.found is None and (start := self._block.add(normal, self._line_start, self._line_no)):
                self._cut("repeated_block", start[0], start[1], line)
        shape = " ".join(_NAMES.sub(" ", normal).split())
        if self.found is None and _letters(shape) >= self._min_line_chars + 4:
            self._count(self._shapes, shape, self._similar_repeats, "similar_lines", line)

    def _count(self, seen: dict[str, _Seen], key: str, limit: int, kind: DegenerationKind, line: str) -> None:
        entry = seen.get(key)
        if entry is None:
            if len(seen) >= self._max_tracked:
                return
            entry = seen[key] = _Seen()
        entry.count += 1
        if entry.count == 2:
            entry.offset, entry.line = self._line_start, self._line_no
        if entry.count >= limit:
            self._cut(kind, entry.offset, entry.line, line)

    def _cut(self, kind: DegenerationKind, offset: int, line: int, sample: str) -> None:
        self.found = Degeneration(kind=kind, offset=offset, line=line, sample=sample.strip()[:80])


class _Blocks:
    """The substantive lines so far, in order: whether the last ``size`` of them repeat, line for line, a
    run of as many that ended earlier (without overlapping it). Each line is compared with its latest
    earlier copy only, ``size`` lines at most: constant work per line; at most ``limit`` lines kept."""

    __slots__ = ("_at", "_keys", "_limit", "_size", "_starts")

    def __init__(self, size: int, limit: int) -> None:
        self._size, self._limit = size, limit
        self._keys: list[str] = []
        self._starts: list[tuple[int, int]] = []  # (offset, line number) of each
        self._at: dict[str, int] = {}  # a line's latest index

    def add(self, key: str, offset: int, line_no: int) -> tuple[int, int] | None:
        """Record a line; the (offset, line number) of the second copy's first line when a block repeats."""
        if len(self._keys) >= self._limit:
            return None
        index, earlier = len(self._keys), self._at.get(key)
        self._keys.append(key)
        self._starts.append((offset, line_no))
        self._at[key] = index
        size = self._size
        if earlier is None or index - earlier < size or earlier + 1 < size:
            return None
        keys = self._keys
        if all(keys[index - k] == keys[earlier - k] for k in range(1, size)):
            return self._starts[index - size + 1]
        return None


def _letters(text: str) -> int:
    return sum(c.isalnum() for c in text)
