"""Lock files read: the version each package resolved to, so a claimed version can be held against what is
installed as well as against what a manifest allows (:func:`resolved_versions`).

Read: ``package-lock.json`` (``packages`` and the older ``dependencies``), ``Cargo.lock``, ``poetry.lock``,
``uv.lock`` and ``pdm.lock`` (``[[package]]`` tables), ``composer.lock`` (``packages`` and
``packages-dev``), ``Gemfile.lock`` (its ``specs:`` lines) and ``go.sum``. A lock file is repository
content: parsed by the standard library's parsers or line by line, at most :data:`_MAX_PACKAGES` entries,
a file that does not parse is skipped. Pure functions, no I/O.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

from agent_core.sources.models import FileContent

_MAX_PACKAGES = 20_000
_GEM_SPEC = re.compile(r"^    ([A-Za-z0-9_.-]+) \(([0-9][^)\s]*)\)$")  # four spaces: a resolved gem
LOCK_FILES = frozenset(
    {"package-lock.json", "cargo.lock", "poetry.lock", "uv.lock", "pdm.lock", "composer.lock", "gemfile.lock"}
    | {"go.sum"}
)


def is_lock_file(path: str) -> bool:
    return path.rsplit("/", 1)[-1].lower() in LOCK_FILES


def resolved_versions(files: Mapping[str, FileContent]) -> dict[str, list[tuple[str, str]]]:
    """Lower-cased package name → ``(version, lock file path)`` for every lock file among ``files``."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path, content in sorted(files.items()):
        if not is_lock_file(path):
            continue
        text = content.whole_text if content.whole_text is not None else content.text
        if not text:
            continue
        try:
            pairs = list(_read(path.rsplit("/", 1)[-1].lower(), text))
        except (ValueError, RecursionError):  # JSON/TOML errors are ValueErrors
            continue
        for name, version in pairs[:_MAX_PACKAGES]:
            if name and version:
                found.setdefault(name.lower(), []).append((version, path))
    return found


def _read(name: str, text: str) -> Iterable[tuple[str, str]]:
    if name == "package-lock.json":
        return _package_lock(text)
    if name == "composer.lock":
        data = _table(json.loads(text))
        entries = [*_list(data.get("packages")), *_list(data.get("packages-dev"))]
        return (_name_version(entry) for entry in entries)
    if name == "gemfile.lock":
        return ((m.group(1), m.group(2)) for line in text.splitlines() if (m := _GEM_SPEC.match(line)))
    if name == "go.sum":  # "module version[/go.mod] hash"
        rows = (line.split() for line in text.splitlines())
        return ((w[0], w[1].removesuffix("/go.mod")) for w in rows if len(w) == 3)
    return (_name_version(entry) for entry in _list(tomllib.loads(text).get("package")))  # [[package]]


def _package_lock(text: str) -> Iterable[tuple[str, str]]:
    data = _table(json.loads(text))
    for key, entry in _table(data.get("packages")).items():
        if key:  # "" is the project itself
            yield key.rpartition("node_modules/")[2], str(_table(entry).get("version", ""))
    for key, entry in _table(data.get("dependencies")).items():
        yield key, str(_table(entry).get("version", ""))


def _name_version(entry: Any) -> tuple[str, str]:
    table = _table(entry)
    return str(table.get("name", "")), str(table.get("version", ""))


def _table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
