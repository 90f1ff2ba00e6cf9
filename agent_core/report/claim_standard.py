"""Claims of the C++ standard a project needs ("designed for C++17 and later", "requires C++14", "至少
C++17"), held against what its root build file asks the compiler for.

The real 1.5B wrote that fmt "is designed for C++17 and later": fmt's ``CMakeLists.txt`` asks for
``cxx_std_11`` (``target_compile_features(fmt PUBLIC cxx_std_11)``). The build file's smallest standard
(``cxx_std_NN``, ``CMAKE_CXX_STANDARD NN``, Meson's ``cpp_std=c++NN``) is what the project needs: a
claim of another minimum is ✗, of the same ✓; with no build file read that names one, not checkable. Only
a minimum is a claim ("C++20 modules are supported" says nothing of what it needs). Patterns are fixed
and bounded (linear in the line and in the build file).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_core.report.claim_names import Found
from agent_core.report.facts import Facts
from agent_core.report.verdicts import Outcome
from agent_core.words import said

_STD = r"C\+\+\s?(\d{2})"
_CLAIMS = re.compile(
    rf"(?i:\b(?:requires?|requiring|needs?|designed\s+for|written\s+(?:in|for)|targets?|at\s+least|minimum(?:\s+of)?)"
    rf"\s+(?:the\s+)?(?:a\s+)?(?:compiler\s+(?:with|supporting)\s+)?){_STD}(?!\s*modules?\b)"
    rf"|{_STD}(?i:\s*(?:standard\s+)?(?:(?:or|and)\s+(?:later|newer|above|higher)|\+(?!\+)))"
    rf"|(?:至少|最低|需要)\s*{_STD}|{_STD}\s*(?:或|及)(?:更高|以上)"
)
# What the project's own targets need, wherever it stands (fmt's is inside an `if`, a module library's in a
# function): a standard its users are asked for too. Each call read up to its ")" (at most _CALL_CHARS).
_FEATURES = re.compile(r"target_compile_features\s*\(", re.I)
_VISIBLE = re.compile(r"\b(?:PUBLIC|INTERFACE)\b", re.I)
_CXX_STD = re.compile(r"\bcxx_std_(\d{2})\b", re.I)
_CALL_CHARS = 600
# Set for the whole build: only outside any `if`, function or macro (a test's or an option's is no need).
_SET_STD = re.compile(r"\bset\s*\(\s*CMAKE_CXX_STANDARD\s+(\d{2})\b|\bCXX_STANDARD\s+(\d{2})\b", re.I)
_MESON_STD = re.compile(r"cpp_std\s*=\s*'?c\+\+(\d{2})", re.I)
_OPENS = re.compile(r"^\s*(?:if|function|macro|foreach|while)\s*\(", re.I)
_CLOSES = re.compile(r"^\s*(?:endif|endfunction|endmacro|endforeach|endwhile)\s*\(", re.I)
_BUILD_FILES = ("CMakeLists.txt", "meson.build")
_MAX_CHARS = 400_000  # of a build file looked at


def standard_claims(line: str, base: int) -> Iterator[Found]:
    """The minimum C++ standard claims of one line (kind ``standard``, value "C++NN")."""
    for m in _CLAIMS.finditer(line):
        std = next(g for g in m.groups() if g)
        start = m.start() + m.group(0).upper().find("C++")
        end = line.find(std, start) + len(std)
        yield Found(kind="standard", subject="c++", value=f"C++{std}", start=base + start, end=base + end)


def standard(found: Found, facts: Facts) -> Outcome:
    """``found`` against the smallest standard the root build file asks for (see the module)."""
    for name in _BUILD_FILES:
        content = facts.evidence.files.get(name)
        text = (content.whole_text if content is not None and content.whole_text is not None else None) or (
            content.text if content is not None else None
        )
        if not text:
            continue
        asked = asked_standards(text[:_MAX_CHARS])
        if not asked:
            continue
        least = _least(asked)
        observed = said("observed_cxx_standard", standard=f"C++{least:02d}", file=name)
        claimed = int(found.value.removeprefix("C++"))
        return ("verified" if _rank(claimed) == _rank(least) else "contradicted"), observed
    return "unchecked", None


def _rank(two_digits: int) -> int:
    """A standard's order (98 came before 03, 11 and after)."""
    return two_digits - 100 if two_digits >= 90 else two_digits


def _least(asked: list[int]) -> int:
    return min(asked, key=_rank)


def asked_standards(text: str) -> list[int]:
    """The standards a build file asks for as the project's own needs (see the patterns), in one pass."""
    asked = []
    for call in _FEATURES.finditer(text):
        end = text.find(")", call.end(), call.end() + _CALL_CHARS)
        args = text[call.end() : end if end >= 0 else call.end() + _CALL_CHARS]
        if _VISIBLE.search(args):
            asked += [int(m.group(1)) for m in _CXX_STD.finditer(args)]
    asked += [int(m.group(1)) for m in _MESON_STD.finditer(text)]
    depth = 0
    for line in text.splitlines():
        code = line.split("#", 1)[0]
        if _CLOSES.match(code):
            depth = max(0, depth - 1)
        elif _OPENS.match(code):
            depth += 1
        elif depth == 0:
            asked += [int(next(g for g in m.groups() if g)) for m in _SET_STD.finditer(code)]
    return asked
