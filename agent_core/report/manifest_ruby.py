"""Ruby's manifests: ``Gemfile`` and ``*.gemspec``, read line by line (never evaluated).

A ``Gemfile`` names gems with ``gem "name", "constraint", ...``, inside ``group :test do ... end`` blocks
for what only development or tests need; a bare ``gemspec`` line pulls in the gem's own ``.gemspec``. A
gemspec names the gem (``spec.name = "x"``) and its dependencies with ``add_dependency`` /
``add_runtime_dependency`` (runtime) and ``add_development_dependency``. Both are Ruby: what a line
computes at run time (``gem "rack", rack_version``) is read as written, and a name built at run time is
not a name. Linear: one pass over the lines, no regular expression that backtracks. Pure functions.
"""

from __future__ import annotations

import re
from typing import Any

from agent_core.report.manifest_values import Dependency, deps, groups, text

Fields = dict[str, Any]

_MAX_GROUP_DEPTH = 50  # nested blocks deeper than this are read as if flat
_GROUP_NAMES = re.compile(r":(\w{1,40})")
_LITERAL = re.compile(r"%q[<{(\[]([^>})\]\n]{0,300})[>})\]]|\"([^\"\n]{0,300})\"|'([^'\n]{0,300})'")
_CONSTRAINT = re.compile(r"^\s*(?:[<>=!~]{1,2}\s*)?\d[\w.\-]*$")


def parse_gemfile(source: str) -> Fields:
    """``gem`` lines by group: the top level is runtime, each named group apart (``:test``,
    ``:development``, ``:doc``...; a gem in several groups is listed under the first). A Gemfile that
    says ``gemspec`` is a gem's: its runtime dependencies are the gemspec's, its top level is for
    development (Bundler's convention)."""
    runtime: list[Dependency] = []
    of_a_gem = False
    named: dict[str, list[Dependency]] = {}
    stack: list[str | None] = []  # the group each open ``do`` block names (None: another block)
    for raw in source.splitlines():
        line = _code(raw)
        words = line.split()
        if not words:
            continue
        head = words[0]
        if head == "end" and stack:
            stack.pop()
            continue
        if (head == "gemspec" or head.startswith("gemspec(")) and not stack:
            of_a_gem = True
        if head == "gem" or head.startswith("gem("):
            dep = _gem(line[3:])
            if dep is not None:
                group = next((g for g in reversed(stack) if g), None)
                (named.setdefault(group, []) if group else runtime).append(dep)
        if _opens_block(words):
            group = _GROUP_NAMES.findall(line)[0] if head == "group" and _GROUP_NAMES.search(line) else None
            if len(stack) < _MAX_GROUP_DEPTH:
                stack.append(group)
    return {
        "runtime": deps([] if of_a_gem else runtime),
        "dev": deps(runtime if of_a_gem else []),
        "groups": groups(named),
    }


def parse_gemspec(source: str) -> Fields:
    """The gem's name, summary, licence(s) and dependencies, from ``<spec>.<field>`` lines."""
    runtime: list[Dependency] = []
    dev: list[Dependency] = []
    fields: dict[str, list[str]] = {}
    for raw in source.splitlines():
        line = _code(raw).strip()
        dot = line.find(".")
        if dot <= 0 or not line[:dot].isidentifier():
            continue
        rest = line[dot + 1 :]
        method = rest.split("(", 1)[0].split(None, 1)[0] if rest.strip() else ""
        if method in ("add_dependency", "add_runtime_dependency", "add_development_dependency"):
            dep = _gem(rest[len(method) :])
            if dep is not None:
                (dev if method == "add_development_dependency" else runtime).append(dep)
        elif method in ("name", "summary", "description", "license", "licenses", "version"):
            key, _, value = rest.partition("=")
            if key.strip() == method and value:
                # an interpolated literal ("#{s.description}.") is Ruby code, not the gem's words
                fields.setdefault(method, [v for v in _literals(value) if "#{" not in v])
    licenses = fields.get("licenses") or fields.get("license") or []
    version = _first(fields, "version")
    return {
        "runtime": deps(runtime),
        "dev": deps(dev),
        "name": text(_first(fields, "name")),
        "description": text(_first(fields, "summary", "description")),
        "license": " OR ".join(licenses) or None,
        "version": version if version and _CONSTRAINT.match(version) else None,
    }


def _first(fields: dict[str, list[str]], *keys: str) -> str | None:
    """The first literal of the first of ``keys`` that has one."""
    return next((fields[k][0] for k in keys if fields.get(k)), None)


def _gem(arguments: str) -> Dependency | None:
    """``"name", "~> 1.0", ">= 1.0.2", require: false`` → name and the constraints joined by ", "; the
    options (``require:``, ``platforms:``, ``git:``...) are not constraints."""
    literals = _literals(arguments.split(":", 1)[0] if _options_start(arguments) else arguments)
    if not literals or not re.fullmatch(r"[A-Za-z0-9][\w.\-]{0,100}", literals[0]):
        return None
    constraints = [c.strip() for c in literals[1:] if _CONSTRAINT.match(c)]
    return Dependency(name=literals[0], spec=", ".join(constraints)[:60])


def _options_start(arguments: str) -> bool:
    """True when keyword options follow the literals (``, require: false``)."""
    return bool(re.search(r",\s*\w{1,30}:\s", arguments))


def _literals(value: str) -> list[str]:
    """The string literals of a Ruby expression: ``"x"``, ``'x'`` and ``%q<x>``."""
    return [next(g for g in m.groups() if g is not None) for m in _LITERAL.finditer(value)]


def _opens_block(words: list[str]) -> bool:
    """A line that opens a block closed by ``end``: ``... do`` / ``... do |x|``, or a bare
    ``if``/``unless``/``case``/``begin``/``def``/``while``."""
    return "do" in words or words[0] in ("if", "unless", "case", "begin", "def", "while", "until")


def _code(line: str) -> str:
    """The line before a ``#`` comment that is outside a string literal."""
    if "#" not in line:
        return line
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1] != "{"):
            return line[:i]
    return line


__all__ = ["parse_gemfile", "parse_gemspec"]
