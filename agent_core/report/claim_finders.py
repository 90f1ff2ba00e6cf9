"""Finding the checkable claims in a report's text: numbers, licenses, languages, dates, versions,
dependencies, files and links, whether the project is maintained, who is behind it. Plain regular expressions over each line (English and Chinese wordings),
no model: every :class:`Found` says where it stands, so a verdict can be marked in place.

What is *not* found here is not checked: prose judgements ("easy to use") have no observation to hold
them against. The finders err towards missing a claim rather than misreading one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_core.report.claim_activity import activity_claims
from agent_core.report.claim_build import build_claims
from agent_core.report.claim_code import LISTING, fence_language, fenced_paths
from agent_core.report.claim_counts import count_claims
from agent_core.report.claim_drawing import TreeDrawing
from agent_core.report.claim_names import (
    KNOWN_FILES,
    Found,
    Taken,
    is_command,
    is_module_name,
    negated,
    path_like,
)
from agent_core.report.claim_packages import dependency_claims, table_columns, table_row_claims
from agent_core.report.claim_people import people_claims
from agent_core.report.claim_standard import standard_claims
from agent_core.sources.languages import LANGUAGE_NAMES
from agent_core.sources.licenses import LICENSE_FILE

__all__ = ["Found", "find_claims"]

_NUMBER = r"(\d{1,3}(?:[,\u202f]\d{3})+|\d+(?:\.\d+)?)\s*([kKmM](?![a-zA-Z])|千|万)?"
_SUBJECTS = {
    "stars": r"stars?|stargazers|★|星标|颗星|个星",
    "forks": r"forks?|复刻|分叉",
    "open_issues": r"open issues?|issues? open|未解决的问题|开放的问题|未关闭的问题|open issue count",
    "commits": r"commits?|次提交|个提交",
}
_SUBJECT_WORDS = {k: re.compile(v, re.IGNORECASE) for k, v in _SUBJECTS.items()}
_DIGIT = re.compile(r"\d")
# "a total of 30 commits", "30 commits in total": the history's size, not the page fetched
_TOTAL = re.compile(
    r"\b(?:in total|a total of|total of|altogether|overall|all[- ]time)\b|总共|共有|总计", re.IGNORECASE
)
_TOTAL_NEAR = 20  # every number, date and version claim holds one: most lines have none
_RATE = r"(?!\s*(?:per|a|an|each|every|on average)\b|\s*/|\s*每)"  # "1.1 commits per week": a rate, no count
_RATE_BEFORE = re.compile(
    r"(?:每|平均|per|every|each)\s{0,3}(?:周|月|天|日|年|week|month|day|year)?\s{0,3}$", re.I
)
_VALUE_AFTER = {
    k: re.compile(rf"{_NUMBER}\s*\+?\s*(?:GitHub\s+)?(?:{v})(?![A-Za-z]){_RATE}", re.IGNORECASE)
    for k, v in _SUBJECTS.items()
}
_VALUE_BEFORE = {
    k: re.compile(
        rf"(?:{v})(?:\s|\*|_|[:：|=(（]|\bcount\b|\bof\b|数|数量|为|是|有){{1,8}}{_NUMBER}", re.IGNORECASE
    )
    for k, v in _SUBJECTS.items()
    if k != "commits"
}

_LICENSES = (
    ("AGPL-3.0", r"\bAGPL(?:[\s-]*v?3(?:\.0)?)?\b|GNU Affero"),
    ("LGPL-3.0", r"\bLGPL[\s-]*v?3(?:\.0)?\b|GNU Lesser General Public License,? v(?:ersion)?\s*3"),
    ("LGPL-2.1", r"\bLGPL[\s-]*v?2\.1\b|GNU Lesser General Public License,? v(?:ersion)?\s*2\.1"),
    ("LGPL-2.0", r"\bLGPL[\s-]*v?2(?:\.0)?\b"),
    ("LGPL", r"\bLGPL\b|GNU Lesser"),
    ("GPL-3.0", r"\bGPL[\s-]*v?3(?:\.0)?\b|GNU General Public License,? v(?:ersion)?\s*3"),
    ("GPL-2.0", r"\bGPL[\s-]*v?2(?:\.0)?\b|GNU General Public License,? v(?:ersion)?\s*2"),
    ("GPL", r"\bGPL\b|GNU General Public License"),
    ("Apache-2.0", r"\bApache(?:[\s-]+License)?(?:[\s,-]*(?:v(?:ersion)?\s*)?2(?:\.0)?)?\b"),
    ("BSD-3-Clause", r"\bBSD[\s-]*3(?:[\s-]*Clause)?\b|\b3-Clause BSD\b|\b(?:new|modified|revised) BSD\b"),
    ("BSD-2-Clause", r"\bBSD[\s-]*2(?:[\s-]*Clause)?\b|\b2-Clause BSD\b|\bsimplified BSD\b"),
    ("BSD", r"\bBSD\b"),
    ("MPL-2.0", r"\bMPL(?:[\s-]*2(?:\.0)?)?\b|Mozilla Public License"),
    ("MIT-0", r"\bMIT-0\b"),
    ("MIT", r"\bMIT\b"),
    ("EPL-2.0", r"\bEPL[\s-]*v?2(?:\.0)?\b|Eclipse Public License,? v(?:ersion)?\s*2"),
    ("EPL-1.0", r"\bEPL[\s-]*v?1(?:\.0)?\b"),
    ("EPL", r"\bEPL\b|Eclipse Public License"),
    ("EUPL-1.2", r"\bEUPL[\s-]*v?1\.2\b"),
    ("CC0-1.0", r"\bCC0(?:[\s-]*1\.0)?\b"),
    ("0BSD", r"\b0BSD\b"),
    ("Zlib", r"\bZlib\b(?![\s-]*(?:library|compression|stream))"),
    ("WTFPL", r"\bWTFPL\b"),
    ("ISC", r"\bISC\b"),
    ("Unlicense", r"\bUnlicense\b"),
    ("BSL-1.0", r"\bBoost Software License\b"),
)
_CASED_LICENSES = frozenset({"MIT", "MIT-0", "ISC", "BSD", "Zlib", "EPL", "EPL-1.0", "EPL-2.0"})  # words too
_LICENSE_CONTEXT = re.compile(r"licen[cs]|许可|协议|授权", re.IGNORECASE)
# A licence file named in running text (LICENSE-MIT, LICENSE-APACHE-2.0.txt): a path, not a licence claim.
_LICENSE_FILE_WORD = re.compile(r"(?<![\w.-])(?:" + LICENSE_FILE.pattern + r")(?![\w-])", re.IGNORECASE)

# "C#" and "C++" as written, or Markdown-escaped ("C\\#", "C\\+\\+"): one token either way.
_LANGUAGE_ALT = "|".join(
    re.escape(n).replace(r"\#", r"\\?\#").replace(r"\+", r"\\?\+")
    for n in sorted(LANGUAGE_NAMES, key=len, reverse=True)
)
_LANGUAGE = re.compile(
    rf"(?P<primary>primary language|main language|predominantly|mainly|mostly|written (?:mainly |mostly |entirely )?in|"
    rf"implemented in|主要语言|主要使用|主要用|使用的语言|编写语言|编程语言)"
    rf"(?:\s|\*|_|[:：|=]|is|为|是){{0,6}}(?P<lang>{_LANGUAGE_ALT})(?![\w+#]|\\[+#])",
    re.IGNORECASE,
)
_LANGUAGE_ROW = re.compile(
    rf"\|\s*(?:primary )?language\s*\|\s*\**(?P<lang>{_LANGUAGE_ALT})\**\s*\|", re.IGNORECASE
)

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_MON = "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
_DATE = (
    rf"(\d{{4}}-\d{{2}}-\d{{2}}|\d{{4}}-\d{{2}}|(?:{_MONTHS}|{_MON})\.?\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+(?:{_MONTHS}|{_MON})\.?\s+\d{{4}}"
    rf"|(?:{_MONTHS}|{_MON})\.?\s+\d{{4}}|\d{{4}}\s*年\s*\d{{1,2}}\s*月(?:\s*\d{{1,2}}\s*日)?|(?<![\d.])\d{{4}}(?!\d|\.\d))"
)
_DATE_CLAIMS = {
    "created": re.compile(
        rf"(?:created|started|founded|first commit(?:ted)?|initial commit|inception|since|创建|始于|首次提交)[^.\n|]{{0,25}}?{_DATE}",
        re.IGNORECASE,
    ),
    "last_commit": re.compile(
        rf"(?:(?:last|latest|most recent|newest)\s+(?:commit|change|activity|update)|committed on|最近(?:一次)?提交|最新提交|最后(?:一次)?提交)"
        rf"[^.\n|]{{0,25}}?{_DATE}",
        re.IGNORECASE,
    ),
    "last_push": re.compile(
        rf"(?:last\s+push(?:ed)?|pushed\s+(?:on|in)|last\s+updated|updated\s+(?:on|in)|最近推送|最后推送|最近更新)[^.\n|]{{0,25}}?{_DATE}",
        re.IGNORECASE,
    ),
}

_PYTHON_VERSION = re.compile(  # "python", not the end of a package's name (`ptpython>=3.0.23`)
    r"(?<![\w.-])python\s*(?:(?:>=|≥|⩾)\s*|version\s+)?(3\.\d{1,2})\s*(?:\+|or (?:newer|later|higher|above)|及以上|以上)"
    r"|(?:requires|required|needs|supports)\s+python\s*(?:>=|≥)?\s*(3\.\d{1,2})"
    r"|(?<![\w.-])python\s*(?:>=|≥|⩾)\s*(3\.\d{1,2})",
    re.IGNORECASE,
)
_PACKAGE_VERSION = re.compile(
    r"(?:current|latest|newest)\s+(?:release|version)[^\d\n]{0,20}v?(\d+\.\d+(?:\.\d+)?)"
    r"|(?:version|release)\s+(?:is\s+|of\s+)?v?(\d+\.\d+(?:\.\d+)?)\s+(?:is|was)\s+(?:the\s+)?(?:current|latest)"
    r"|(?:at|is)\s+version\s+v?(\d+\.\d+(?:\.\d+)?)|当前版本[^\d\n]{0,6}v?(\d+\.\d+(?:\.\d+)?)|最新版本[^\d\n]{0,6}v?(\d+\.\d+(?:\.\d+)?)",
    re.IGNORECASE,
)

_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
_LINK = re.compile(r"\[([^\[\]\n]*)\]\((<[^<>\n]+>|[^)\s\[]+)\)")  # stops at the next "[": linear
_BARE_URL = re.compile(r"(?<![(<\w])https?://[^\s)>\]]+")
_SHARE = re.compile(r"\s+\d+(?:\.\d+)?%")
_SEPARATOR = re.compile(r"\s*\|?\s*:?-{3,}")


def find_claims(text: str) -> list[Found]:
    """Every claim the finders recognise in ``text``, in order of where it stands. Inside a fenced code
    block only paths are claims (:mod:`~agent_core.report.claim_code`; a tree drawn in a listing, whole
    paths: :mod:`~agent_core.report.claim_drawing`); in a block quote (quoted
    repository text) paths are not; the rows of a dependency table name dependencies."""
    found: list[Found] = []
    position = 0
    fence: tuple[str, str] | None = None  # the open fence's marker and language
    fence_first = False  # the next line is the open fence's first
    drawing: TreeDrawing | None = None  # a listing block's tree drawing, line by line
    header: str | None = None  # the row above, while it may be a table's header
    table: tuple[int, int] | None = None  # a dependency table's name and version columns
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            if fence is None:
                fence, fence_first = (marker, fence_language(stripped)), True
                drawing = TreeDrawing() if fence[1] in LISTING else None
            elif fence[0] == marker:
                fence = None
        elif fence is not None:
            branch = drawing.feed(line, position) if drawing is not None else None
            found += (
                branch if branch is not None else fenced_paths(line, position, fence[1], first=fence_first)
            )
            fence_first = False
        else:
            claims = _line_claims(line, position)  # before a table row's: the line's own name it better
            if not stripped.startswith("|"):
                header = table = None
            elif header is not None and table is None and _SEPARATOR.match(stripped):
                table = table_columns(header)
            elif table is not None:
                claims += table_row_claims(line, position, table)
            else:
                header = line
            quoted = stripped.startswith(">")
            found += [c for c in claims if not (quoted and c.kind == "path")]
        position += len(line)
    found.sort(key=lambda f: (f.start, f.kind))
    return _without_overlaps(found)


def _line_claims(line: str, base: int) -> list[Found]:
    dependencies = list(dependency_claims(line, base))
    taken = {f.start - base for f in dependencies}  # a code span naming a package is no path
    return [
        *_numbers(line, base),
        *count_claims(line, base),
        *_licenses(line, base),
        *_languages(line, base),
        *_dates(line, base),
        *_versions(line, base),
        *dependencies,
        *_paths_and_links(line, base, taken),
        *activity_claims(line, base),
        *build_claims(line, base),
        *standard_claims(line, base),
        *people_claims(line, base),
    ]


def _numbers(line: str, base: int) -> Iterator[Found]:
    if not _DIGIT.search(line):
        return
    for subject in _SUBJECTS:
        if not _SUBJECT_WORDS[subject].search(line):  # both patterns hold the subject's words
            continue
        patterns = [_VALUE_AFTER[subject]] + ([_VALUE_BEFORE[subject]] if subject in _VALUE_BEFORE else [])
        for pattern in patterns:
            for m in pattern.finditer(line):
                if ("." in m.group(1) and not m.group(2)) or _RATE_BEFORE.search(
                    line, max(0, m.start() - 16), m.start()
                ):
                    continue  # "1.1 次提交", "每周 1.1 次提交": a rate, never a count of things
                value = m.group(1) + (m.group(2) or "")
                end = m.start() + len(m.group(0).rstrip())
                near = line[max(0, m.start() - _TOTAL_NEAR) : end + _TOTAL_NEAR]
                said_as = "commits_total" if subject == "commits" and _TOTAL.search(near) else subject
                yield Found(
                    kind="number", subject=said_as, value=value, start=base + m.start(), end=base + end
                )


def _licenses(line: str, base: int) -> Iterator[Found]:
    if not _LICENSE_CONTEXT.search(line):
        return
    taken = Taken(len(line))
    for start, end in _file_name_spans(line):  # a licence named inside a file name or a link is no claim
        taken.add(start, end)
    for spdx, pattern in _LICENSES:
        for m in re.finditer(pattern, line, re.IGNORECASE if spdx not in _CASED_LICENSES else 0):
            if taken.covers(m.start()):
                continue
            taken.add(m.start(), m.end())
            yield _at(base, m, "license", "license", spdx, negated=negated(line, m.start()))


def _file_name_spans(line: str) -> list[tuple[int, int]]:
    """Where ``line`` names files or links: code spans holding a path or a licence file's name, links
    (their text and target), and licence files named in running text."""
    spans = [(m.start(), m.end()) for m in _LINK.finditer(line)]
    spans += [(m.start(), m.end()) for m in _BARE_URL.finditer(line)]
    spans += [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line) if path_like(m.group(1))]
    spans += [(m.start(), m.end()) for m in _LICENSE_FILE_WORD.finditer(line)]
    return spans


def _languages(line: str, base: int) -> Iterator[Found]:
    for pattern in (_LANGUAGE, _LANGUAGE_ROW):
        for m in pattern.finditer(line):
            yield _at(
                base, m, "language", "language", m.group("lang").replace("\\", ""), group="lang", primary=True
            )


def _dates(line: str, base: int) -> Iterator[Found]:
    if not _DIGIT.search(line):
        return
    for subject, pattern in _DATE_CLAIMS.items():
        for m in pattern.finditer(line):
            yield _at(base, m, "date", subject, m.group(1), group=1)


def _versions(line: str, base: int) -> Iterator[Found]:
    if not _DIGIT.search(line):
        return
    for subject, pattern in (("python", _PYTHON_VERSION), ("package", _PACKAGE_VERSION)):
        for m in pattern.finditer(line):
            group = next(i for i in range(1, (m.lastindex or 0) + 1) if m.group(i))
            yield _at(base, m, "version", subject, m.group(group), group=group)


def _paths_and_links(line: str, base: int, taken: set[int]) -> Iterator[Found]:
    spans = Taken(len(line))
    for m in _LINK.finditer(line):
        url = m.group(2).strip("<>")
        spans.add(m.start(), m.end())
        if url.startswith(("http://", "https://")):
            yield _at(base, m, "link", "link", url, group=2)
        elif not url.startswith(("#", "mailto:")) and path_like(url):
            yield _at(base, m, "path", "path", url, negated=negated(line, m.start()))
    for m in _BARE_URL.finditer(line):
        if not spans.covers(m.start()):
            spans.add(m.start(), m.end())
            yield _at(base, m, "link", "link", m.group(0).rstrip(".,;:"))
    for m in _CODE_SPAN.finditer(line):
        if not spans.covers(m.start()):
            spans.add(m.start(), m.end())
            yield from _code_span(line, base, m, taken)
    for m in KNOWN_FILES.finditer(line):
        # "Dockerfile 0.4%" is the language, in a list of languages
        if not _SHARE.match(line, m.end()) and not spans.covers(m.start()):
            yield _at(base, m, "path", "path", m.group(1), negated=negated(line, m.start()))


def _code_span(line: str, base: int, m: re.Match[str], taken: set[int]) -> Iterator[Found]:
    """A file or folder named in a code span is a path; a module, a package or a command is not."""
    text = m.group(1)
    if m.start(1) in taken or is_module_name(text) or is_command(text) or not path_like(text):
        return
    yield _at(base, m, "path", "path", text, negated=negated(line, m.start()))


def _at(
    base: int,
    m: re.Match[str],
    kind: str,
    subject: str,
    value: str,
    *,
    group: int | str = 0,
    negated: bool = False,
    primary: bool = False,
) -> Found:
    """A claim standing where ``m`` (its ``group``) matched in a line that starts at ``base``."""
    return Found(
        kind=kind,
        subject=subject,
        value=value,
        start=base + m.start(group),
        end=base + m.end(group),
        negated=negated,
        primary=primary,
    )


def _without_overlaps(found: list[Found]) -> list[Found]:
    """Drop a claim standing inside another one of the same kind (the second pattern's repeat). ``found``
    is sorted by start: the kept claim of a kind reaching furthest holds any later one held by some kept
    claim, and a later claim can only hold kept ones starting where it starts (one look each, not a scan
    of every kept claim)."""
    kept: list[Found] = []
    furthest: dict[str, Found] = {}
    for claim in found:
        widest = furthest.get(claim.kind)
        if widest is not None and widest.start <= claim.start and claim.end <= widest.end:
            continue
        at = len(kept)
        while at > 0 and kept[at - 1].start == claim.start:
            at -= 1
        kept[at:] = [k for k in kept[at:] if not (k.kind == claim.kind and k.end <= claim.end)]
        kept.append(claim)
        if widest is None or claim.end >= widest.end:
            furthest[claim.kind] = claim
    return kept
