"""Binary detection, decoding and paging of file contents (agent_core.sources.content)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_core.errors import InvalidArgumentError
from agent_core.sources.content import (
    SAMPLE_BYTES,
    check_page_args,
    decode_text,
    looks_binary,
    page_file,
    split_lines,
)

BOM = b"\xef\xbb\xbf"


def numbered(n: int) -> bytes:
    """n lines "line 0001\\n"... (10 characters each)."""
    return "".join(f"line {i:04d}\n" for i in range(1, n + 1)).encode()


# -- looks_binary / decode_text ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "binary"),
    [
        (b"", False),
        (b"plain ascii\n", False),
        ("héllo wörld, 日本語\n".encode(), False),
        (BOM + b"with a BOM\n", False),
        (b"abc\x00def", True),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", True),
        (b"latin-1 caf\xe9 au lait", True),
        (b"\xff\xfeu\x00t\x00f\x00", True),  # UTF-16 with BOM: NUL bytes
        ("ends in a cut sequence 日".encode()[:-1], True),  # the whole file is here: really invalid
    ],
)
def test_looks_binary(data: bytes, binary: bool) -> None:
    assert looks_binary(data) is binary


def test_nul_after_the_sample_is_not_inspected() -> None:
    assert looks_binary(b"a" * SAMPLE_BYTES + b"\x00") is False
    assert looks_binary(b"a" * (SAMPLE_BYTES - 1) + b"\x00") is True


def test_multibyte_sequence_cut_by_the_sample_boundary_is_text() -> None:
    char = "日".encode()  # 3 bytes
    data = b"a" * (SAMPLE_BYTES - 1) + char + b"tail"
    assert data[:SAMPLE_BYTES].endswith(char[:1])
    assert looks_binary(data) is False


def test_invalid_byte_at_the_sample_boundary_is_binary() -> None:
    data = b"a" * (SAMPLE_BYTES - 1) + b"\xff" + b"tail"
    assert looks_binary(data) is True


def test_decode_text_strips_bom_and_replaces_late_invalid_bytes() -> None:
    assert decode_text(BOM + "ok ü".encode()) == "ok ü"
    assert decode_text(b"ok \xe9") == "ok \ufffd"


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("\n", ["\n"]),
        ("a", ["a"]),
        ("a\nb", ["a\n", "b"]),
        ("a\nb\n", ["a\n", "b\n"]),
        ("a\r\nb\r\n", ["a\r\n", "b\r\n"]),
        ("a\n\n", ["a\n", "\n"]),
    ],
)
def test_split_lines(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines


# -- page_file --------------------------------------------------------------------------------------


def test_small_file_is_shown_whole_without_note() -> None:
    page = page_file(path="a.py", data=b"x = 1\ny = 2\n", sha="abc", ref="main")
    assert page.kind == "file"
    assert page.text == "x = 1\ny = 2\n"
    assert (page.start_line, page.end_line, page.total_lines) == (1, 2, 2)
    assert (page.truncated, page.omitted_chars, page.next_offset, page.note) == (False, 0, None, None)
    assert (page.sha, page.ref, page.size) == ("abc", "main", 12)


def test_binary_file_is_not_shown() -> None:
    data = b"\x00\x01" * 600
    page = page_file(path="img.bin", data=data, sha="s1")
    assert page.kind == "binary"
    assert page.text is None
    assert page.size == 1200
    assert page.note == "binary file, 1,200 bytes; content not shown"
    assert page.sha == "s1"


def test_first_page_cut_by_max_chars_on_a_line_boundary() -> None:
    data = numbered(1000)  # 10,000 characters
    page = page_file(path="big.txt", data=data, max_chars=995)
    assert (page.start_line, page.end_line, page.total_lines) == (1, 99, 1000)
    assert page.text == data[:990].decode()
    assert page.truncated is True
    assert page.omitted_chars == 10_000 - 990
    assert page.next_offset == 100
    assert page.note == (
        "showing lines 1-99 of 1,000; 9,010 characters left out; "
        "call read_file with start_line=100 to continue"
    )


def test_continuation_via_next_offset_reaches_the_end_and_covers_every_line_once() -> None:
    data = numbered(1000)
    seen: list[str] = []
    start: int | None = 1
    pages = 0
    while start is not None:
        page = page_file(path="big.txt", data=data, start_line=start, max_chars=3000)
        assert page.text is not None
        seen.append(page.text)
        start = page.next_offset
        pages += 1
    assert "".join(seen) == data.decode()
    assert pages == 4  # 300 lines of 10 characters per page
    assert page.truncated is False
    assert page.omitted_chars == 0
    assert page.note == "showing lines 901-1000 of 1,000; end of file"


def test_max_lines_limits_the_page_and_omitted_chars_counts_the_rest_of_the_file() -> None:
    data = numbered(50)
    page = page_file(path="f", data=data, start_line=11, max_lines=5)
    assert page.text == "".join(f"line {i:04d}\n" for i in range(11, 16))
    assert (page.start_line, page.end_line, page.next_offset) == (11, 15, 16)
    # Characters after line 15 only: lines 1-10 were skipped on purpose.
    assert page.omitted_chars == 35 * 10
    assert page.truncated is True


def test_start_line_beyond_the_end_is_an_empty_page_with_a_note() -> None:
    page = page_file(path="f", data=numbered(3), start_line=10)
    assert page.kind == "file"
    assert page.text == ""
    assert page.total_lines == 3
    assert page.next_offset is None
    assert page.note == "the file has only 3 lines; start_line=10 is past the end"


def test_empty_file() -> None:
    page = page_file(path="empty", data=b"")
    assert (page.kind, page.text, page.total_lines, page.size, page.note) == ("file", "", 0, 0, "empty file")


def test_single_huge_line_is_cut_mid_line() -> None:
    data = b"x" * 10_000 + b"\nsecond line\n"
    page = page_file(path="min.js", data=data, max_chars=500)
    assert page.text == "x" * 500
    assert (page.start_line, page.end_line, page.next_offset) == (1, 1, 2)
    assert page.omitted_chars == (10_001 - 500) + len("second line\n")
    assert page.note is not None
    assert page.note.startswith("showing the first 500 of 10,001 characters of line 1 of 2;")


def test_huge_last_line_has_no_continuation_but_says_what_was_left_out() -> None:
    page = page_file(path="min.js", data=b"y" * 1000, max_chars=200)
    assert page.text == "y" * 200
    assert page.next_offset is None
    assert page.truncated is True
    assert page.omitted_chars == 800


def test_cjk_text_is_counted_in_characters_not_bytes() -> None:
    line = "日本語のテキスト\n"  # 9 characters, 25 bytes
    data = (line * 100).encode()
    page = page_file(path="ja.md", data=data, max_chars=200)
    assert page.end_line == 22  # 22 * 9 = 198 <= 200 < 207
    assert page.text == line * 22
    assert page.omitted_chars == 78 * 9
    assert page.size == len(data)


def test_bom_is_not_part_of_the_text() -> None:
    page = page_file(path="bom.txt", data=BOM + b"hello\n")
    assert page.text == "hello\n"
    assert page.size == 9


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"start_line": 0}, "start_line must be 1 or more, not 0"),
        ({"max_lines": 0}, "max_lines must be 1 or more, not 0"),
        ({"max_chars": 199}, "max_chars must be at least 200, not 199"),
    ],
)
def test_invalid_paging_arguments(kwargs: dict[str, int], message: str) -> None:
    args: dict[str, Any] = {"start_line": 1, "max_lines": None, "max_chars": 6000} | kwargs
    with pytest.raises(InvalidArgumentError, match=message):
        page_file(path="f", data=b"x\n", **args)
    with pytest.raises(InvalidArgumentError, match=message):
        check_page_args(**args)


@given(
    text=st.text(alphabet=st.sampled_from("ab日\n"), max_size=400),
    start_line=st.integers(min_value=1, max_value=60),
    max_lines=st.none() | st.integers(min_value=1, max_value=30),
    max_chars=st.integers(min_value=200, max_value=400),
)
def test_page_arithmetic_is_consistent(
    text: str, start_line: int, max_lines: int | None, max_chars: int
) -> None:
    page = page_file(
        path="f", data=text.encode(), start_line=start_line, max_lines=max_lines, max_chars=max_chars
    )
    lines = split_lines(text)
    assert page.text is not None
    assert len(page.text) <= max_chars
    rest = "".join(lines[start_line - 1 :])
    assert rest.startswith(page.text)
    assert page.omitted_chars == len(rest) - len(page.text)
    assert page.truncated == (page.omitted_chars > 0)
    if page.next_offset is not None:
        assert page.end_line is not None
        assert page.next_offset == page.end_line + 1 <= len(lines)
