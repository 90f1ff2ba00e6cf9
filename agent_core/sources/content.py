"""Turning raw file bytes into what the model reads: binary detection, decoding and paging.

Shared by every repository source (GitHub and local git), so a file reads the same wherever it
comes from. Pure functions, no I/O.

Paging contract (:func:`page_file`): lines are counted by ``"\\n"`` only (``"\\r\\n"`` endings keep
their ``"\\r"``); a page starts at ``start_line`` (1-based), holds at most ``max_lines`` lines and at
most ``max_chars`` characters (Python characters, so one CJK character counts once), cut on a line
boundary whenever at least one whole line fits. A single line longer than ``max_chars`` is cut
mid-line; the rest of that line cannot be paged to, so ``next_offset`` then points at the following
line. ``omitted_chars`` counts every character of the file after the shown part (lines before
``start_line`` were skipped on purpose and are not counted), so the model always knows how much is left.
"""

from __future__ import annotations

import codecs
from dataclasses import replace

from agent_core.errors import InvalidArgumentError
from agent_core.sources.manifest_files import PARSE_MAX_BYTES, is_parsed_manifest
from agent_core.sources.models import FileContent

#: Bytes inspected by :func:`looks_binary` (git's own heuristic looks at the first 8,000 bytes).
SAMPLE_BYTES = 8192
#: Smallest ``max_chars`` accepted: below this a page is too small to be useful.
MIN_MAX_CHARS = 200
#: Bytes of one file a source reads (``MAX_FILE_BYTES``); the rest is not downloaded nor read.
DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024

_BOM = codecs.BOM_UTF8


def looks_binary(data: bytes) -> bool:
    """True when ``data`` should not be shown as text.

    Binary means a NUL byte in the first :data:`SAMPLE_BYTES`, or a sample that is not UTF-8. A
    leading UTF-8 BOM is allowed, and a multi-byte sequence cut by the end of the sample still counts
    as text (the sample boundary is arbitrary). Only the sample is checked: invalid bytes further on
    are replaced by :func:`decode_text`.
    """
    sample = data[:SAMPLE_BYTES]
    if b"\x00" in sample:
        return True
    if sample.startswith(_BOM):
        sample = sample[len(_BOM) :]
    whole = len(data) <= SAMPLE_BYTES
    try:
        # ``final=False`` buffers an incomplete trailing sequence instead of failing on it.
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=whole)
    except UnicodeDecodeError:
        return True
    return False


def decode_text(data: bytes) -> str:
    """Decode UTF-8 text, dropping a leading BOM. Call :func:`looks_binary` first.

    Invalid bytes past the inspected sample become U+FFFD rather than failing the whole read.
    """
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    return data.decode("utf-8", errors="replace")


def split_lines(text: str) -> list[str]:
    """Lines of ``text``, each keeping its ``"\\n"``; a final newline does not start a new line."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def page_file(
    *,
    path: str,
    data: bytes,
    start_line: int = 1,
    max_lines: int | None = None,
    max_chars: int = 6000,
    sha: str | None = None,
    ref: str | None = None,
    size: int | None = None,
) -> FileContent:
    """One page of a file, as described in the module docstring.

    ``data`` may be only the beginning of the file (a source reads at most ``MAX_FILE_BYTES``): ``size``
    is then the whole file's size, the page is taken from what was read, and the note says what was cut.
    For a manifest (:func:`~agent_core.sources.manifest_files.is_parsed_manifest`) the same bytes also
    give ``whole_text``, the file from its first line up to ``PARSE_MAX_BYTES``, for the report's parsers.
    Raises :class:`InvalidArgumentError` unless ``start_line >= 1``, ``max_lines >= 1`` (or None)
    and ``max_chars >= MIN_MAX_CHARS``.
    """
    check_page_args(start_line=start_line, max_lines=max_lines, max_chars=max_chars)
    read = len(data)
    size = max(read, size or 0)
    page = _page(
        path=path,
        data=data,
        start_line=start_line,
        max_lines=max_lines,
        max_chars=max_chars,
        size=size,
        sha=sha,
        ref=ref,
    )
    if page.kind == "file" and is_parsed_manifest(path):
        whole_text, whole_cut = _whole(data, size)
        page = replace(page, whole_text=whole_text, whole_cut=whole_cut)
    if read >= size or page.kind != "file":
        return page
    cut = f"the file has {size:,} bytes and only the first {read:,} were read (MAX_FILE_BYTES)"
    return replace(page, truncated=True, note=f"{cut}; {page.note}" if page.note else cut)


def _whole(data: bytes, size: int) -> tuple[str, bool]:
    """``whole_text`` and ``whole_cut`` of a manifest: its first ``PARSE_MAX_BYTES``, ending on a whole
    line when cut (a line cut in the middle would parse as something it is not)."""
    kept = data[:PARSE_MAX_BYTES]
    cut = len(kept) < size
    if cut and b"\n" in kept:
        kept = kept[: kept.rindex(b"\n") + 1]
    return decode_text(kept), cut


def _page(
    *,
    path: str,
    data: bytes,
    start_line: int,
    max_lines: int | None,
    max_chars: int,
    size: int,
    sha: str | None,
    ref: str | None,
) -> FileContent:
    if looks_binary(data):
        return FileContent(
            path=path,
            kind="binary",
            size=size,
            sha=sha,
            ref=ref,
            note=f"binary file, {size:,} bytes; content not shown",
        )
    lines = split_lines(decode_text(data))
    total = len(lines)
    if start_line > total:
        past_end = (
            "empty file"
            if total == 0
            else f"the file has only {_count(total, 'line')}; start_line={start_line} is past the end"
        )
        return FileContent(
            path=path, kind="file", size=size, text="", total_lines=total, sha=sha, ref=ref, note=past_end
        )

    first = start_line - 1
    stop = total if max_lines is None else min(total, first + max_lines)
    shown, cut_line = _take(lines[first:stop], max_chars)
    end_line = start_line + len(shown) - 1
    shown_chars = sum(len(line) for line in shown)
    omitted = sum(len(line) for line in lines[first:]) - shown_chars
    next_offset = end_line + 1 if end_line < total else None
    note = _page_note(
        start_line=start_line,
        end_line=end_line,
        total=total,
        omitted=omitted,
        next_offset=next_offset,
        cut=(shown_chars, len(lines[first])) if cut_line else None,
    )
    return FileContent(
        path=path,
        kind="file",
        size=size,
        text="".join(shown),
        start_line=start_line,
        end_line=end_line,
        total_lines=total,
        truncated=omitted > 0,
        omitted_chars=omitted,
        next_offset=next_offset,
        sha=sha,
        ref=ref,
        note=note,
    )


def check_page_args(*, start_line: int, max_lines: int | None, max_chars: int) -> None:
    """Raise :class:`InvalidArgumentError` for paging arguments :func:`page_file` would refuse.

    Lets a source reject bad arguments before fetching anything.
    """
    if start_line < 1:
        raise InvalidArgumentError(f"start_line must be 1 or more, not {start_line}")
    if max_lines is not None and max_lines < 1:
        raise InvalidArgumentError(f"max_lines must be 1 or more, not {max_lines}")
    if max_chars < MIN_MAX_CHARS:
        raise InvalidArgumentError(f"max_chars must be at least {MIN_MAX_CHARS}, not {max_chars}")


def _take(lines: list[str], max_chars: int) -> tuple[list[str], bool]:
    """Whole lines while they fit in ``max_chars``; if not even the first fits, a cut first line.

    Returns the lines and whether the (only) line was cut.
    """
    shown: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) > max_chars:
            if not shown:
                return [line[:max_chars]], True
            break
        shown.append(line)
        used += len(line)
    return shown, False


def _page_note(
    *,
    start_line: int,
    end_line: int,
    total: int,
    omitted: int,
    next_offset: int | None,
    cut: tuple[int, int] | None,
) -> str | None:
    """The one-line explanation the model reads; None when the whole file is shown.

    ``cut`` is ``(characters shown, length of the line)`` when a single line was cut mid-line.
    """
    if start_line == 1 and omitted == 0:
        return None
    if cut is not None:
        shown, length = cut
        head = f"showing the first {shown:,} of {length:,} characters of line {start_line} of {total:,}"
    else:
        head = f"showing lines {start_line}-{end_line} of {total:,}"
    parts = [head]
    if omitted:
        parts.append(f"{_count(omitted, 'character')} left out")
    if next_offset is not None:
        parts.append(f"call read_file with start_line={next_offset} to continue")
    elif not omitted:
        parts.append("end of file")
    return "; ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"
