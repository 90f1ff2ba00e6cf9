"""The app's public API, which is also its MCP server: the six repository tools and ``analyze``.

Each method is registered with ``gr.api``: its name becomes the tool name, its type hints the input
schema and its docstring (with ``Args:``) the description an MCP client shows its model. A tool call
opens a short-lived analysis scope for the named repository (fresh breakers, the shared HTTP pool and
cache), runs the one tool through the same retry / breaker / fallback layers as the agent, and closes
it. Errors reach the client as ``gr.Error`` with our own message (never a traceback).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import gradio as gr

from agent_core import events as ev
from agent_core.agent.session import Services, open_analysis
from agent_core.errors import AgentCoreError
from agent_core.settings import Settings
from agent_core.ui.budget import RunBudget
from agent_core.ui.i18n import t


def client_key(request: gr.Request | None) -> str:
    """Whom the hosted budget counts: the first X-Forwarded-For address, the client IP, or the session."""
    if request is None:
        return "anonymous"
    headers = getattr(request, "headers", None)
    forwarded = headers.get("x-forwarded-for") if headers else None
    if forwarded:
        return "ip:" + str(forwarded).split(",")[0].strip()
    host = getattr(getattr(request, "client", None), "host", None)
    return f"ip:{host}" if host else f"session:{getattr(request, 'session_hash', None)}"


class RepositoryApi:
    """The public functions, bound to the process's services, settings and run budget.

    In hosted mode strangers pay with the owner's GitHub quota, so the tools are budgeted too: per visitor
    and sliding hour, as many tool calls as their runs could make (``RUNS_PER_HOUR × MAX_TOOL_CALLS``).
    """

    def __init__(self, services: Services, settings: Settings, budget: RunBudget) -> None:
        self._services = services
        self._settings = settings
        self._budget = budget
        self._tool_budget = RunBudget(budget.runs_per_hour * settings.max_tool_calls)
        # A tool scope needs no model: without keys open_analysis builds none.
        self._tool_settings = settings.with_overrides(api_key=None, hf_token=None, llm_provider=None)

    def functions(self) -> list[Callable[..., Any]]:
        return [
            self.get_repo_info,
            self.get_file_tree,
            self.list_directory,
            self.read_file,
            self.get_commits,
            self.get_languages,
            self.analyze,
        ]

    def _spend(self, budget: RunBudget, request: gr.Request | None, message: str) -> None:
        """Count one use for the visitor in hosted mode; ``gr.Error`` with ``message`` when over budget."""
        if not self._settings.hosted:
            return
        decision = budget.try_start(client_key(request))
        if not decision.allowed:
            raise gr.Error(t(message, limit=budget.runs_per_hour, minutes=decision.retry_after_minutes))

    async def _call(
        self, tool: str, repository: str, request: gr.Request | None, **arguments: Any
    ) -> dict[str, Any]:
        self._spend(self._tool_budget, request, "tool_budget_exceeded")
        try:
            opened = await open_analysis(self._services, repository, settings=self._tool_settings)
        except AgentCoreError as exc:
            raise gr.Error(str(exc)) from exc
        try:
            ref = opened.analysis.scope[0]
            given = {k: v for k, v in arguments.items() if v not in (None, "")}
            result = await opened.analysis.toolbox.execute(
                "mcp-1", tool, {"owner": ref.owner, "repo": ref.name} | given
            )
            return result.observation
        finally:
            await opened.aclose()

    async def get_repo_info(self, repository: str, request: gr.Request | None = None) -> dict[str, Any]:
        """Metadata of a GitHub repository: description, default branch, stars, forks, license, topics,
        dates, whether it is archived, and its current name if it was renamed.

        Args:
            repository: A GitHub repository as "owner/repo" or "https://github.com/owner/repo".
        """
        return await self._call("get_repo_info", repository, request)

    async def get_file_tree(
        self, repository: str, path: str = "", max_entries: int = 200, request: gr.Request | None = None
    ) -> dict[str, Any]:
        """The whole file tree of a repository in one request: counts, top-level entries, the largest
        folders, notable files (README, license, manifests, CI) and a bounded list of paths.

        Args:
            repository: A GitHub repository as "owner/repo" or "https://github.com/owner/repo".
            path: Optional sub-directory to restrict the tree to; empty for the whole repository.
            max_entries: How many file paths to list (10 to 1000).
        """
        return await self._call("get_file_tree", repository, request, path=path, max_entries=max_entries)

    async def list_directory(
        self, repository: str, path: str = "", request: gr.Request | None = None
    ) -> dict[str, Any]:
        """The entries (name, type, size) of one directory of a repository.

        Args:
            repository: A GitHub repository as "owner/repo" or "https://github.com/owner/repo".
            path: Directory path relative to the root, e.g. "src"; empty for the root.
        """
        return await self._call("list_directory", repository, request, path=path)

    async def read_file(
        self,
        repository: str,
        path: str,
        start_line: int = 1,
        max_lines: int = 400,
        request: gr.Request | None = None,
    ) -> dict[str, Any]:
        """The text of one file of a repository, a page at a time; a long file says where to continue.

        Args:
            repository: A GitHub repository as "owner/repo" or "https://github.com/owner/repo".
            path: File path relative to the root, e.g. "README.md".
            start_line: First line to return (1-based).
            max_lines: At most this many lines (1 to 5000).
        """
        return await self._call(
            "read_file", repository, request, path=path, start_line=start_line, max_lines=max_lines
        )

    async def get_commits(
        self, repository: str, per_page: int = 20, request: gr.Request | None = None
    ) -> dict[str, Any]:
        """Recent commits of a repository (date, author, first line of the message), newest first.

        Args:
            repository: A GitHub repository as "owner/repo" or "https://github.com/owner/repo".
            per_page: How many recent commits (1 to 100).
        """
        return await self._call("get_commits", repository, request, per_page=per_page)

    async def get_languages(self, repository: str, request: gr.Request | None = None) -> dict[str, Any]:
        """Bytes of code per programming language in a repository, with percentages.

        Args:
            repository: A GitHub repository as "owner/repo" or "https://github.com/owner/repo".
        """
        return await self._call("get_languages", repository, request)

    async def analyze(self, repository: str, question: str = "", request: gr.Request | None = None) -> str:
        """Analyse one or more GitHub repositories with the agent and return a Markdown report
        (overview, tech stack, architecture, activity, strengths, risks, recommendations).

        Args:
            repository: One repository ("owner/repo" or a GitHub URL), or several separated by spaces
                for a comparison.
            question: Optional focus for the report, e.g. "How is it tested?". A Chinese question gets a
                Chinese report.
        """
        self._spend(self._budget, request, "budget_exceeded")
        try:
            opened = await open_analysis(self._services, repository, question)
        except AgentCoreError as exc:
            raise gr.Error(str(exc)) from exc
        try:
            async with contextlib.aclosing(opened.analysis.run(question)) as events:
                async for event in events:
                    if isinstance(event, ev.RunFinished):
                        return event.report
                    if isinstance(event, ev.RunFailed):
                        raise gr.Error(event.message + (f" ({event.hint})" if event.hint else ""))
        finally:
            await opened.aclose()
        raise gr.Error("the analysis ended without a result")
