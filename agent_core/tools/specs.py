"""The repository tools: names, OpenAI function-calling schemas, argument checking, and what each runs.

The four names and parameters of the original command-line agent are kept (``get_repo_info``,
``list_directory``, ``read_file``, ``get_commits``); ``get_file_tree`` and ``get_languages`` give an
analyst the most for the fewest requests. Arguments are checked here, before anything is requested:
a model's mistake becomes an observation that says exactly what was wrong.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agent_core.cost import CallCost
from agent_core.errors import InvalidArgumentError
from agent_core.repo import RepoRef, normalize_path, validate_owner, validate_repo_name
from agent_core.sources.base import RepoSource, Sourced
from agent_core.tools.observe import summarise_tree

_OWNER = {"type": "string", "description": "Repository owner (user or organisation), e.g. 'pallets'."}
_REPO = {"type": "string", "description": "Repository name, e.g. 'flask'."}


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """A checked call: the repository, and the remaining arguments with their types fixed."""

    tool: str
    repo: RepoRef
    args: Mapping[str, Any]

    def memo_key(self) -> str:
        items = ",".join(f"{k}={self.args[k]!r}" for k in sorted(self.args))
        return f"{self.tool}:{self.repo.key()}:{items}"


@dataclass(frozen=True, kw_only=True)
class ToolOutput:
    """What a tool's runner returns: the source's typed value, its observation, and the call's cost."""

    value: Any
    observation: dict[str, Any]
    cost: CallCost


Runner = Callable[[RepoSource, ToolCall, "ToolLimits"], Awaitable[ToolOutput]]


def _output(sourced: Sourced[Any], observation: dict[str, Any] | None = None) -> ToolOutput:
    value = sourced.value
    return ToolOutput(
        value=value,
        observation=value.to_observation() if observation is None else observation,
        cost=sourced.cost,
    )


@dataclass(frozen=True, kw_only=True)
class ToolLimits:
    read_file_max_chars: int = 6000
    tree_max_entries: int = 200


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    name: str
    description: str
    properties: Mapping[str, Mapping[str, Any]]
    required: tuple[str, ...]
    run: Runner

    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": {k: dict(v) for k, v in self.properties.items()},
                    "required": list(self.required),
                    "additionalProperties": False,
                },
            },
        }

    def check(self, arguments: Mapping[str, Any]) -> ToolCall:
        """Validate against the schema and our own rules; raise InvalidArgumentError with a clear message."""
        unknown = sorted(set(arguments) - set(self.properties))
        if unknown:
            raise InvalidArgumentError(
                f"{self.name} does not take {', '.join(unknown)}; its parameters are {', '.join(self.properties)}"
            )
        missing = [name for name in self.required if arguments.get(name) in (None, "")]
        if missing:
            raise InvalidArgumentError(f"{self.name} needs {', '.join(missing)}")
        values: dict[str, Any] = {}
        for name, prop in self.properties.items():
            if name in arguments and arguments[name] is not None:
                values[name] = _coerce(self.name, name, prop, arguments[name])
        repo = RepoRef(owner=validate_owner(values.pop("owner")), name=validate_repo_name(values.pop("repo")))
        if "path" in values or "path" in self.properties:
            values["path"] = normalize_path(values.get("path"))
        return ToolCall(tool=self.name, repo=repo, args=values)


def _coerce(tool: str, name: str, prop: Mapping[str, Any], value: Any) -> Any:
    kind = prop.get("type")
    if kind == "string":
        if not isinstance(value, str):
            raise InvalidArgumentError(f"{tool}: '{name}' must be a string")
        return value.strip()
    if kind == "integer":
        if isinstance(value, bool):
            raise InvalidArgumentError(f"{tool}: '{name}' must be an integer")
        try:
            number = int(value)
        except (TypeError, ValueError, OverflowError) as exc:  # OverflowError: 1e999 parses as inf
            raise InvalidArgumentError(f"{tool}: '{name}' must be an integer") from exc
        low, high = prop.get("minimum"), prop.get("maximum")
        if (low is not None and number < low) or (high is not None and number > high):
            raise InvalidArgumentError(f"{tool}: '{name}' must be between {low} and {high}")
        return number
    return value


async def _repo_info(source: RepoSource, call: ToolCall, limits: ToolLimits) -> ToolOutput:
    return _output(await source.get_repo_info(call.repo))


async def _list_directory(source: RepoSource, call: ToolCall, limits: ToolLimits) -> ToolOutput:
    return _output(await source.list_directory(call.repo, call.args.get("path", "")))


async def _read_file(source: RepoSource, call: ToolCall, limits: ToolLimits) -> ToolOutput:
    sourced = await source.read_file(
        call.repo,
        call.args["path"],
        start_line=call.args.get("start_line", 1),
        max_lines=call.args.get("max_lines"),
        max_chars=limits.read_file_max_chars,
    )
    return _output(sourced)


async def _get_commits(source: RepoSource, call: ToolCall, limits: ToolLimits) -> ToolOutput:
    return _output(await source.get_commits(call.repo, call.args.get("per_page", 20)))


async def _file_tree(source: RepoSource, call: ToolCall, limits: ToolLimits) -> ToolOutput:
    sourced = await source.get_file_tree(call.repo, call.args.get("path", ""))
    max_entries = call.args.get("max_entries", limits.tree_max_entries)
    return _output(sourced, summarise_tree(sourced.value, max_entries=max_entries))


async def _languages(source: RepoSource, call: ToolCall, limits: ToolLimits) -> ToolOutput:
    return _output(await source.get_languages(call.repo))


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_repo_info",
        description=(
            "Repository metadata: description, default branch, primary language, license, topics, stars, "
            "forks, open issues, creation and last push dates. Call it first for each repository."
        ),
        properties={"owner": _OWNER, "repo": _REPO},
        required=("owner", "repo"),
        run=_repo_info,
    ),
    ToolSpec(
        name="get_file_tree",
        description=(
            "The whole file tree in ONE request: file/dir counts, top-level entries with file counts, the "
            "largest subdirectories, notable files (README, license, manifests, CI, Dockerfile) and a "
            "bounded list of paths. Prefer it over many list_directory calls to understand the structure."
        ),
        properties={
            "owner": _OWNER,
            "repo": _REPO,
            "path": {"type": "string", "description": "Optional sub-directory to restrict the tree to."},
            "max_entries": {
                "type": "integer",
                "minimum": 10,
                "maximum": 1000,
                "description": "How many file paths to list (default 200).",
            },
        },
        required=("owner", "repo"),
        run=_file_tree,
    ),
    ToolSpec(
        name="list_directory",
        description=(
            "The entries of one directory (name, type, size). Use it to look inside a specific folder; "
            "path '' or omitted is the repository root."
        ),
        properties={
            "owner": _OWNER,
            "repo": _REPO,
            "path": {"type": "string", "description": "Directory path relative to the root, e.g. 'src'."},
        },
        required=("owner", "repo"),
        run=_list_directory,
    ),
    ToolSpec(
        name="read_file",
        description=(
            "The text of one file, a page at a time (long files are cut with a note saying how much was left "
            "out and the start_line to continue from). Use it for README, manifests (pyproject.toml, "
            "package.json, Cargo.toml, go.mod...), CI configuration and key source files. Binary files are "
            "reported as binary with their size."
        ),
        properties={
            "owner": _OWNER,
            "repo": _REPO,
            "path": {"type": "string", "description": "File path relative to the root, e.g. 'README.md'."},
            "start_line": {"type": "integer", "minimum": 1, "description": "First line to show (default 1)."},
            "max_lines": {
                "type": "integer",
                "minimum": 1,
                "maximum": 5000,
                "description": "At most this many lines.",
            },
        },
        required=("owner", "repo", "path"),
        run=_read_file,
    ),
    ToolSpec(
        name="get_commits",
        description=(
            "Recent commits (date, author, first line of the message), newest first. Use it to judge "
            "development activity and who maintains the project."
        ),
        properties={
            "owner": _OWNER,
            "repo": _REPO,
            "per_page": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "How many recent commits (default 20, max 100).",
            },
        },
        required=("owner", "repo"),
        run=_get_commits,
    ),
    ToolSpec(
        name="get_languages",
        description="Bytes of code per programming language, with percentages.",
        properties={"owner": _OWNER, "repo": _REPO},
        required=("owner", "repo"),
        run=_languages,
    ),
)

SPECS_BY_NAME: Mapping[str, ToolSpec] = {spec.name: spec for spec in TOOL_SPECS}


def tool_schemas() -> list[dict[str, Any]]:
    return [spec.schema() for spec in TOOL_SPECS]
