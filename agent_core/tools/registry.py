"""The ONE list of tools: names, parameters, what each runs, and everything derived from them.

Each :class:`ToolSpec` says once what a tool is: the model's description, its parameters (a
:class:`Param` each, beside the ``owner``/``repo`` every tool takes), the source method it runs, the
words an MCP client shows, and whether the overview (the offline planner's first turn, and the
evidence gathered before a model's first turn) calls it, with which arguments. Everything else derives
from :data:`TOOLS`: the OpenAI ``tools`` schemas, argument checking, the MCP tool functions, the rows of
the breaker table, the chaos dropdown and the planner's first turn. Adding a tool is one spec here plus
its source methods.

The four names and parameters of the original command-line agent are kept (``get_repo_info``,
``list_directory``, ``read_file``, ``get_commits``); ``get_file_tree`` and ``get_languages`` give an
analyst the most for the fewest requests. Arguments are checked here, before anything is requested: a
model's mistake becomes an observation that says exactly what was wrong.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from agent_core.cost import CallCost
from agent_core.errors import InvalidArgumentError
from agent_core.offload import off_loop
from agent_core.repo import RepoRef, normalize_path, validate_owner, validate_repo_name
from agent_core.sources.base import RepoSource, Sourced
from agent_core.tools.observe import summarise_tree

# The tools' names: every other module uses these constants, never the strings (tests/test_structure.py).
GET_REPO_INFO: Final = "get_repo_info"
GET_FILE_TREE: Final = "get_file_tree"
LIST_DIRECTORY: Final = "list_directory"
READ_FILE: Final = "read_file"
GET_COMMITS: Final = "get_commits"
GET_LANGUAGES: Final = "get_languages"

REQUIRED: Final = object()
"""A parameter an MCP client must give (no default)."""

_OWNER = {"type": "string", "description": "Repository owner (user or organisation), e.g. 'pallets'."}
_REPO = {"type": "string", "description": "Repository name, e.g. 'flask'."}
REPOSITORY_DOC = 'A GitHub repository as "owner/repo" or "https://github.com/owner/repo".'


@dataclass(frozen=True, kw_only=True)
class Param:
    """One parameter besides ``owner``/``repo``: its JSON Schema for the model, its words for MCP."""

    name: str
    kind: Literal["string", "integer"]
    description: str  # what the model reads
    mcp_doc: str  # what an MCP client's model reads (``Args:``)
    mcp_default: Any = REQUIRED  # the MCP function's default; the model's omission means the source default
    required: bool = False
    minimum: int | None = None
    maximum: int | None = None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "description": self.description}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out

    @property
    def python_type(self) -> type:
        return int if self.kind == "integer" else str


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
class ToolLimits:
    """Limits the runners apply (from Settings, through the wiring)."""

    read_file_max_chars: int
    tree_max_entries: int


@dataclass(frozen=True, kw_only=True)
class ToolOutput:
    """What a tool's runner returns: the source's typed value, its observation, and the call's cost."""

    value: Any
    observation: dict[str, Any]
    cost: CallCost


Runner = Callable[[RepoSource, ToolCall, ToolLimits], Awaitable[ToolOutput]]


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    name: str
    description: str
    mcp_summary: str
    params: tuple[Param, ...]
    run: Runner
    overview: Mapping[str, Any] | None = None
    """Arguments (besides owner/repo) when the overview calls this tool; None when it does not."""
    prefetch: bool = False
    """Part of the evidence gathered before a model's first turn (with the ``overview`` arguments)."""

    @property
    def properties(self) -> dict[str, Mapping[str, Any]]:
        return {"owner": _OWNER, "repo": _REPO, **{p.name: p.schema() for p in self.params}}

    @property
    def required(self) -> tuple[str, ...]:
        return ("owner", "repo", *(p.name for p in self.params if p.required))

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

    def mcp_doc(self) -> str:
        """The MCP function's docstring: the summary and an ``Args:`` section."""
        lines = [self.mcp_summary, "", "Args:", f"    repository: {REPOSITORY_DOC}"]
        lines += [f"    {p.name}: {p.mcp_doc}" for p in self.params]
        return "\n".join(lines)

    def check(self, arguments: Mapping[str, Any]) -> ToolCall:
        """Validate against the schema and our own rules; raise InvalidArgumentError with a clear message."""
        properties = self.properties
        unknown = sorted(set(arguments) - set(properties))
        if unknown:
            raise InvalidArgumentError(
                f"{self.name} does not take {', '.join(unknown)}; its parameters are {', '.join(properties)}"
            )
        missing = [name for name in self.required if arguments.get(name) in (None, "")]
        if missing:
            raise InvalidArgumentError(f"{self.name} needs {', '.join(missing)}")
        values: dict[str, Any] = {}
        for name, prop in properties.items():
            if name in arguments and arguments[name] is not None:
                values[name] = _coerce(self.name, name, prop, arguments[name])
        repo = RepoRef(owner=validate_owner(values.pop("owner")), name=validate_repo_name(values.pop("repo")))
        if "path" in properties:
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


def _output(sourced: Sourced[Any], observation: dict[str, Any] | None = None) -> ToolOutput:
    value = sourced.value
    return ToolOutput(
        value=value,
        observation=value.to_observation() if observation is None else observation,
        cost=sourced.cost,
    )


# -- what each tool runs ----------------------------------------------------------------------------------


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
    # A worker thread: summarising a 100,000-entry tree on the event loop would stall every other request.
    return _output(sourced, await off_loop(summarise_tree, sourced.value, max_entries=max_entries))


async def _languages(source: RepoSource, call: ToolCall, limits: ToolLimits) -> ToolOutput:
    return _output(await source.get_languages(call.repo))


# -- the list -------------------------------------------------------------------------------------------

COMMITS_IN_OVERVIEW = 30

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name=GET_REPO_INFO,
        description=(
            "Repository metadata: description, default branch, primary language, license, topics, stars, "
            "forks, open issues, creation and last push dates. Call it first for each repository."
        ),
        mcp_summary=(
            "Metadata of a GitHub repository: description, default branch, stars, forks, license, topics,\n"
            "dates, whether it is archived, and its current name if it was renamed."
        ),
        params=(),
        run=_repo_info,
        overview={},
        prefetch=True,
    ),
    ToolSpec(
        name=GET_FILE_TREE,
        description=(
            "The whole file tree in ONE request: file/dir counts, top-level entries with file counts, the "
            "largest subdirectories, notable files (README, license, manifests, CI, Dockerfile) and a "
            "bounded list of paths. Prefer it over many list_directory calls to understand the structure."
        ),
        mcp_summary=(
            "The whole file tree of a repository in one request: counts, top-level entries, the largest\n"
            "folders, notable files (README, license, manifests, CI) and a bounded list of paths."
        ),
        params=(
            Param(
                name="path",
                kind="string",
                description="Optional sub-directory to restrict the tree to.",
                mcp_doc="Optional sub-directory to restrict the tree to; empty for the whole repository.",
                mcp_default="",
            ),
            Param(
                name="max_entries",
                kind="integer",
                minimum=10,
                maximum=1000,
                description="How many file paths to list (default 200).",
                mcp_doc="How many file paths to list (10 to 1000).",
                mcp_default=200,
            ),
        ),
        run=_file_tree,
        overview={},
        prefetch=True,
    ),
    ToolSpec(
        name=LIST_DIRECTORY,
        description=(
            "The entries of one directory (name, type, size). Use it to look inside a specific folder; "
            "path '' or omitted is the repository root."
        ),
        mcp_summary="The entries (name, type, size) of one directory of a repository.",
        params=(
            Param(
                name="path",
                kind="string",
                description="Directory path relative to the root, e.g. 'src'.",
                mcp_doc='Directory path relative to the root, e.g. "src"; empty for the root.',
                mcp_default="",
            ),
        ),
        run=_list_directory,
    ),
    ToolSpec(
        name=READ_FILE,
        description=(
            "The text of one file, a page at a time (long files are cut with a note saying how much was left "
            "out and the start_line to continue from). Use it for README, manifests (pyproject.toml, "
            "package.json, Cargo.toml, go.mod...), CI configuration and key source files. Binary files are "
            "reported as binary with their size."
        ),
        mcp_summary="The text of one file of a repository, a page at a time; a long file says where to continue.",
        params=(
            Param(
                name="path",
                kind="string",
                required=True,
                description="File path relative to the root, e.g. 'README.md'.",
                mcp_doc='File path relative to the root, e.g. "README.md".',
            ),
            Param(
                name="start_line",
                kind="integer",
                minimum=1,
                description="First line to show (default 1).",
                mcp_doc="First line to return (1-based).",
                mcp_default=1,
            ),
            Param(
                name="max_lines",
                kind="integer",
                minimum=1,
                maximum=5000,
                description="At most this many lines.",
                mcp_doc="At most this many lines (1 to 5000).",
                mcp_default=400,
            ),
        ),
        run=_read_file,
    ),
    ToolSpec(
        name=GET_COMMITS,
        description=(
            "Recent commits (date, author, first line of the message), newest first. Use it to judge "
            "development activity and who maintains the project."
        ),
        mcp_summary="Recent commits of a repository (date, author, first line of the message), newest first.",
        params=(
            Param(
                name="per_page",
                kind="integer",
                minimum=1,
                maximum=100,
                description="How many recent commits (default 20, max 100).",
                mcp_doc="How many recent commits (1 to 100).",
                mcp_default=20,
            ),
        ),
        run=_get_commits,
        overview={"per_page": COMMITS_IN_OVERVIEW},
        prefetch=True,
    ),
    ToolSpec(
        name=GET_LANGUAGES,
        description="Bytes of code per programming language, with percentages.",
        mcp_summary="Bytes of code per programming language in a repository, with percentages.",
        params=(),
        run=_languages,
        overview={},
    ),
)

BY_NAME: Mapping[str, ToolSpec] = {spec.name: spec for spec in TOOLS}
TOOL_NAMES: tuple[str, ...] = tuple(spec.name for spec in TOOLS)


def tool_schemas() -> list[dict[str, Any]]:
    """The OpenAI ``tools`` list for every tool."""
    return [spec.schema() for spec in TOOLS]


def overview_calls(repo: RepoRef, *, prefetch: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """The overview of one repository, as (tool, arguments) pairs, in registry order; with ``prefetch``
    only the tools the evidence gathered before a model's first turn includes."""
    return [
        (spec.name, {"owner": repo.owner, "repo": repo.name, **spec.overview})
        for spec in TOOLS
        if spec.overview is not None and (spec.prefetch or not prefetch)
    ]
