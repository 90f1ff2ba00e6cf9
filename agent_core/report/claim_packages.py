"""Finding the dependency claims of a report's line: well-known packages and package-like code spans in a
line about dependencies, Go module paths, scoped npm names, Composer ``vendor/package`` names and Maven
``group:artifact`` coordinates, test frameworks in a line about tests, rows of a dependency table, and
the version or constraint written right after a name ("React 18", "`httpx>=0.27`", "| react | ^18.2 |").

A name in a clause about repository topics or CI jobs is no dependency claim (a topic named ``react``, a
job named ``lint``). Every pattern is matched at a bounded window or over one line without nested
quantifiers; a line's context words are found once. Pure functions, no I/O.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import replace

from agent_core.repomodel.linguist import language_type
from agent_core.report.claim_names import DOTTED_NAME, Found, Taken, is_module_name, negated, path_like
from agent_core.report.frameworks import FRAMEWORKS, framework_of
from agent_core.report.manifests import NOTABLE_DEPENDENCIES
from agent_core.words import words_for

_DEPENDENCY_CONTEXT = re.compile(
    r"depend|require|\buses?\b|\busing\b|built (?:on|with|upon)|powered by|framework|librar|packages?\b|import|"
    r"stack|\bversion|依赖|使用|基于|框架|库|版本",
    re.IGNORECASE,
)
# Clauses about something else that names packages: repository topics, CI jobs and workflow steps.
_OTHER_CONTEXT = re.compile(
    r"\btopics?\b|\btags?\b|\bkeywords?\b|\bjobs?\b|\bworkflows?\b|\bsteps?\b|\bmatrix\b|话题|主题|标签|关键词|作业|工作流",
    re.IGNORECASE,
)
# Words that make a name a dependency claim in so many words, right before it.
_EXPLICIT = re.compile(
    r"(?:\bdepends?\s+(?:up)?on|\bdepending\s+on|\brel(?:y|ies)\s+on|\brequires|依赖于?|需要)\s?[`*]{0,2}$",
    re.IGNORECASE,
)
# Well-known packages named like English words: a claim only right after a word of use ("built with Rich").
_WORDLIKE = frozenset(
    {"next", "rich", "click", "black", "express", "rocket", "hyper", "requests", "trio", "jest"}
)
_RIGHT_AFTER_USE = re.compile(
    r"(?:\buses?|\busing|\bbuilt\s+(?:on|with|upon)|\bpowered\s+by|\bdepends?\s+on|\brequires?|\bwith|"
    r"依赖于?|使用|基于)\s?[`*]{0,2}$",
    re.IGNORECASE,
)
_TEST_CONTEXT = re.compile(r"test|spec|测试", re.IGNORECASE)
# Names listed after "depends on" (the real 1.5B: gson's modules "depend on other libraries such as Guava
# and Jackson"): each a dependency claim, whatever list of known names holds it. Capitalised, one word,
# or a code span ("such as `std::string_view` and `libc++`": neither is one).
_LISTED_NAME = r"(?:[A-Z][\w.+#-]{1,40}|`[^`\n]{1,80}`)"
_DEPENDS_LIST = re.compile(
    r"(?i:\b(?:depends?|depending|rel(?:y|ies|ying))\s+(?:up)?on\s+"
    r"(?:(?:other|external|third[- ]party|several|some|a\s+few|popular|many|various)\s+){0,2}"
    r"(?:(?:libraries|packages|dependencies|modules|gems|crates|projects)\s*,?\s*)?"
    r"(?:(?:such\s+as|like|including|e\.g\.,?)\s+)?)"
    rf"(?P<list>{_LISTED_NAME}(?:\s*(?:,|,?\s+and|,?\s+or)\s+{_LISTED_NAME}){{0,7}})"
)
_LISTED = re.compile(_LISTED_NAME)
# Not a package: a platform, a host, an operating system (a language is known to Linguist).
_PLATFORMS = frozenset(
    {"android", "ios", "linux", "macos", "windows", "github", "gitlab", "jvm", "jdk", "jre", ".net", "posix"}
)
_KNOWN = sorted(
    (n for n in NOTABLE_DEPENDENCIES if "/" not in n and "@" not in n and len(n) > 2), key=len, reverse=True
)
_KNOWN_DEPENDENCY = re.compile(
    r"(?<![\w./@-])(" + "|".join(re.escape(n) for n in _KNOWN) + r")(?![\w/@-]|\.\w)", re.IGNORECASE
)
# Framework names that are also common words, or another ecosystem's standard library (Python's doctest).
_COMMON_WORDS = frozenset({"testing", "catch", "tap", "jupiter", "mini test", "unittest", "doctest"})
_FRAMEWORK_NAMES = sorted(
    {a for fw in FRAMEWORKS if fw.packages for a in fw.aliases if len(a) > 2 and a not in _COMMON_WORDS},
    key=len,
    reverse=True,
)
_FRAMEWORK = re.compile(
    r"(?<![\w./@:-])(" + "|".join(re.escape(n) for n in _FRAMEWORK_NAMES) + r")(?![\w/@:-]|\.\w)",
    re.IGNORECASE,
)

_NOT_PACKAGES = frozenset(
    {"dev", "test", "tests", "docs", "doc", "all", "extra", "extras", "optional", "main", "build"}
)
_PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,40}")  # no dots or slashes: not a file, not a module
_VENDOR_PACKAGE = re.compile(r"[a-z0-9][a-z0-9_.-]{0,60}/[a-z0-9][a-z0-9_-]{0,60}")  # Composer: no extension
_MAVEN = re.compile(r"([a-z][\w-]*(?:\.[\w-]+)*:[A-Za-z][\w.-]*)(?::(v?\d[\w.-]*))?")
_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
_IN_CODE = re.compile(r"([@\w][\w.@/:-]{0,120}?)\s?(@|==|>=|~=|<=|!=|~>|\^|~|=|\s)\s?(.{1,60})")

_OP = r"(?:\^|~>|~=|~|>=|<=|==|=|>|<|!=)"
_VERSION = r"v?\d{1,9}(?:\.(?:\d{1,9}|[xX*]))*(?:-[0-9A-Za-z.]{1,30})?"
CONSTRAINT = rf"(?:{_OP}\s?)?{_VERSION}(?:\s?(?:,\s?|\|\|\s?|\s){_OP}\s?{_VERSION}){{0,4}}"
_CONSTRAINT = re.compile(CONSTRAINT)
_AFTER_NAME = re.compile(
    rf"`?\**(?:\s{{0,3}}[(（:=@]|\s{{0,3}}\|)?\s{{0,3}}`?(?:(?:version|v\.|版本)\s{{0,3}})?(?P<v>{CONSTRAINT})"
    r"(?![\w%]|\.\d|\s{1,3}(?:times?|files?|tests?|packages?|modules?|crates?|projects?|lines?|dependencies|"
    r"stars?|forks?|issues?|commits?|contributors?|members?|million|thousand|years?|months?|days?|hours?|"
    r"seconds?|minutes?|ms|[kmg]i?b|rows?|users?|downloads?)\b|\s{0,3}(?:次|个|行|颗|万|年|月|天))",
    re.IGNORECASE,
)
_WINDOW = 80  # characters after a name looked at for its version


# The writer's labels of quoted repository text, in every language (the words tables say them).
_QUOTE_LABELS = tuple(
    words_for(language)(key, "\0", "\0").split("\0", 1)[0].strip()
    for language in ("en", "zh")
    for key in ("description", "from_readme")
)
_DATED_ENTRY = re.compile(r"\s{0,8}[-*+]\s{1,4}\*{0,2}\d{4}-\d{2}-\d{2}\b")  # "- 2026-08-04 — subject"


class _Context:
    """Where a line speaks of dependencies, of tests, and of topics or jobs, found once per line."""

    def __init__(self, line: str) -> None:
        self._commands = Taken(len(line))  # code spans of several words: `python -m pytest`
        for m in _CODE_SPAN.finditer(line):
            if len(m.group(1).split()) > 1:
                self._commands.add(m.start(), m.end())
        line = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)  # a topic named `framework`: no context
        self.dependency = [m.end() for m in _DEPENDENCY_CONTEXT.finditer(line)]
        self.other = [m.end() for m in _OTHER_CONTEXT.finditer(line)]
        self.test = _TEST_CONTEXT.search(line) is not None

    def in_command(self, at: int) -> bool:
        """``at`` stands inside a code span of several words (a command), not one naming a package."""
        return self._commands.covers(at)

    def about_other(self, at: int) -> bool:
        """A topic or job word stands before ``at``, nearer than any dependency word."""
        other = bisect.bisect_right(self.other, at)
        if other == 0:
            return False
        dependency = bisect.bisect_right(self.dependency, at)
        return dependency == 0 or self.dependency[dependency - 1] < self.other[other - 1]


def version_after(line: str, end: int) -> tuple[str, int]:
    """The version or constraint written right after a name ending at ``end``, and where it ends."""
    m = _AFTER_NAME.match(line, end, min(len(line), end + _WINDOW))
    return (m.group("v").strip(), m.end("v")) if m else ("", end)


def dependency_claims(line: str, base: int) -> Iterator[Found]:
    """Test frameworks (in a line about tests), well-known packages and package-like code spans (in a
    line about dependencies), module paths, scoped names and Maven coordinates (in any code span)."""
    if _DATED_ENTRY.match(line) or line.lstrip().startswith(_QUOTE_LABELS):
        return  # a commit's subject quotes history ("use typescript 7"); a description or README quote, the
        # project's own words ("how to use Pydantic AI"): neither is a claim about its manifests
    context = _Context(line)
    taken: set[int] = set()
    if context.test:
        for m in _FRAMEWORK.finditer(line):
            if not context.about_other(m.start(1)) and not context.in_command(m.start(1)):
                taken.add(m.start(1))
                yield _found(line, base, m.group(1), (m.start(1), m.end(1)), subject="framework")
    if context.dependency:
        for m in _KNOWN_DEPENDENCY.finditer(line):
            if m.group(1).lower() in _WORDLIKE and not _RIGHT_AFTER_USE.search(
                line, max(0, m.start(1) - 30), m.start(1)
            ):
                continue  # "the next release", "a rich history": words, unless named as what is used
            if m.start(1) not in taken and not context.about_other(m.start(1)):
                taken.add(m.start(1))
                yield _found(line, base, m.group(1).lower(), (m.start(1), m.end(1)), subject="dependency")
    yield from _listed(line, base, taken)
    for m in _CODE_SPAN.finditer(line):
        if m.start(1) not in taken and not context.about_other(m.start(1)):
            found = _code_span(line, base, m, bool(context.dependency))
            if found is not None:
                yield found


def _listed(line: str, base: int, taken: set[int]) -> Iterator[Found]:
    """The names listed after "depends on" (each added to ``taken``): no platform, no language."""
    for m in _DEPENDS_LIST.finditer(line):
        for name in _LISTED.finditer(line, m.start("list"), m.end("list")):
            word, at = name.group(0).rstrip("."), name.start()
            if word.startswith("`"):  # a code span: the name inside it
                word, at = word[1:-1].strip(), at + 1
            if at in taken or not word or word.casefold() in _PLATFORMS or language_type(word):
                continue
            taken.add(at)
            span = (at, at + len(word))
            yield replace(_found(line, base, word.lower(), span, subject="dependency"), explicit=True)


def _code_span(line: str, base: int, m: re.Match[str], about_dependencies: bool) -> Found | None:
    text, start = m.group(1), m.start(1)
    name, version = text.strip(), ""
    if (written := _IN_CODE.fullmatch(text)) and _CONSTRAINT.fullmatch(written.group(3).strip()):
        name = written.group(1)  # `httpx>=0.27`, `react@18.2.0`, `tokio 1`
        version = (
            written.group(2).strip() if written.group(2) not in ("@", "=", " ") else ""
        ) + written.group(3).strip()
    if is_module_name(name):
        return _found(line, base, name, (start, start + len(name)), subject="module", version=version)
    if maven := _MAVEN.fullmatch(name):
        return _found(
            line, base, maven.group(1), (start, m.end(1)), subject="module", version=maven.group(2) or version
        )
    if about_dependencies and _VENDOR_PACKAGE.fullmatch(name):
        return _found(line, base, name, (start, start + len(name)), subject="module", version=version)
    if about_dependencies and DOTTED_NAME.fullmatch(name):  # NuGet: `Newtonsoft.Json`
        return _found(line, base, name, (start, start + len(name)), subject="dependency", version=version)
    if path_like(name):
        return None  # `Dockerfile`, `LICENSE`: a file
    if about_dependencies and _PACKAGE_NAME.fullmatch(name) and name.lower() not in _NOT_PACKAGES:
        return _found(
            line, base, name.lower(), (start, start + len(name)), subject="dependency", version=version
        )
    return None


def _found(
    line: str, base: int, name: str, span: tuple[int, int], *, subject: str, version: str = ""
) -> Found:
    start, end = span
    if not version:
        version, after = version_after(line, end)
        end = after if version else end
    return Found(
        kind="dependency",
        subject=subject,
        value=name,
        start=base + start,
        end=base + end,
        negated=negated(line, start),
        version=version,
        explicit=_EXPLICIT.search(line, max(0, start - 40), start) is not None,
    )


# -- dependency tables -------------------------------------------------------------------------------------

_NAME_HEADER = re.compile(r"dependenc|package|librar|crate|\bgems?\b|module|framework|依赖|包|库|框架", re.I)
_PLAIN_NAME_HEADER = re.compile(r"\bname\b|名称", re.I)
_VERSION_HEADER = re.compile(r"version|constraint|requirement|版本|约束", re.I)
_CELL_NAME = re.compile(r"[`*_\[\s]*([@\w][\w.@/:-]{0,120}?)[`*_\]\s]*(?:\([^)]*\))?\s*")


def table_columns(header: str) -> tuple[int, int] | None:
    """The name column and the version column (-1: none) of a dependency table's header row, or None."""
    cells = header.strip().strip("|").split("|")
    name = next((i for i, c in enumerate(cells) if _NAME_HEADER.search(c)), -1)
    version = next((i for i, c in enumerate(cells) if _VERSION_HEADER.search(c) and i != name), -1)
    if name < 0 and version >= 0:
        name = next((i for i, c in enumerate(cells) if _PLAIN_NAME_HEADER.search(c)), -1)
    return (name, version) if name >= 0 else None


def table_row_claims(line: str, base: int, columns: tuple[int, int]) -> Iterator[Found]:
    """The dependency a row of a dependency table names, with the version its version column gives."""
    bars = [i for i, c in enumerate(line) if c == "|"]
    if len(bars) < 2 or line[: bars[0]].strip():
        return
    cells = [(bars[i] + 1, bars[i + 1]) for i in range(len(bars) - 1)]
    name_col, version_col = columns
    if name_col >= len(cells):
        return
    start, end = cells[name_col]
    m = _CELL_NAME.fullmatch(line, start, end)
    if m is None or (
        path_like(m.group(1)) and not is_module_name(m.group(1)) and not _VENDOR_PACKAGE.fullmatch(m.group(1))
    ):
        return
    name = m.group(1)
    version = ""
    if 0 <= version_col < len(cells):
        written = line[cells[version_col][0] : cells[version_col][1]].strip().strip("`*")
        version = written if _CONSTRAINT.fullmatch(written) else ""
    subject = "module" if ("/" in name or ":" in name) else "dependency"
    if (framework := framework_of(name)) is not None and framework.packages:
        subject = "framework"  # a test framework in the table: checked as one
    if subject != "module" and (not _PACKAGE_NAME.fullmatch(name) or name.lower() in _NOT_PACKAGES):
        return
    yield Found(
        kind="dependency",
        subject=subject,
        value=name if subject != "dependency" else name.lower(),
        start=base + m.start(1),
        end=base + m.end(1),
        version=version or "",
    )
