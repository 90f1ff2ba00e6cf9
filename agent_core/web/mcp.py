"""The app's public API, which is also its MCP server: the repository tools and ``analyze``.

Each function is registered with ``gr.api``: its name becomes the tool name, its signature and type
hints the input schema and its docstring (with ``Args:``) the description an MCP client shows its
model. The tool functions are made from the tool registry (:func:`tool_function`), so a new tool is an
MCP tool too, with no code here. A tool call
opens a short-lived analysis scope for the named repository (fresh breakers, the shared HTTP pool and
cache), runs the one tool through the same retry / breaker / fallback layers as the agent, and closes
it. Errors reach the client as ``gr.Error`` with our own message (never a traceback).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import gradio as gr

from agent_core import events as ev
from agent_core.errors import AgentCoreError
from agent_core.github.client import REQUESTS_SEEN
from agent_core.settings import Settings
from agent_core.tools.registry import REQUIRED, TOOLS, ToolSpec
from agent_core.top.payer import Payer
from agent_core.top.services import Services
from agent_core.top.wiring import OpenedAnalysis, open_analysis, uses_model
from agent_core.web.budget import SpaceBudget, visitor_key
from agent_core.web.limits import too_long


def client_key(request: gr.Request | None) -> str:
    """Whom the hosted budget counts (see :func:`agent_core.web.budget.visitor_key`)."""
    if request is None:
        return "anonymous"
    host = getattr(getattr(request, "client", None), "host", None)
    return visitor_key(getattr(request, "headers", None), host, getattr(request, "session_hash", None))


class RepositoryApi:
    """The public functions, bound to the process's services, settings and the hosted budget.

    In hosted mode strangers pay with the owner's GitHub quota, so the tools are budgeted too: per visitor
    and sliding hour, as many tool calls as their runs could make (``RUNS_PER_HOUR × MAX_TOOL_CALLS``),
    and every GitHub request they cause draws from the Space's hourly allowance.
    """

    def __init__(self, services: Services, settings: Settings, budget: SpaceBudget) -> None:
        self._services = services
        self._settings = settings
        self._budget = budget
        # A tool scope needs no model: without keys open_analysis builds none.
        self._tool_settings = settings.with_overrides(api_key=None, hf_token=None, llm_provider=None)

    def functions(self) -> list[Callable[..., Any]]:
        """One function per tool of the registry, then ``analyze``."""
        return [*(tool_function(spec, self._call) for spec in TOOLS), self.analyze]

    async def _call(
        self, tool: str, repository: str, request: gr.Request | None, **arguments: Any
    ) -> dict[str, Any]:
        refused = too_long("en", ("target", repository), *(("argument", v) for v in arguments.values()))
        key = client_key(request)
        refused = refused or self._budget.use_tool(key)
        if refused:
            raise gr.Error(refused)
        spent: list[int] = []
        seen = REQUESTS_SEEN.set(spent)  # every request this call makes, in every task it starts
        try:
            opened = await self._open(repository, settings=self._tool_settings)
            try:
                ref = opened.analysis.scope[0]
                given = {k: v for k, v in arguments.items() if v not in (None, "")}
                result = await opened.analysis.toolbox.execute(
                    "mcp-1", tool, {"owner": ref.owner, "repo": ref.name} | given
                )
                return result.observation
            finally:
                await opened.aclose()
        finally:
            REQUESTS_SEEN.reset(seen)
            self._charge(key, sum(spent))

    async def _open(self, repository: str, question: str = "", **options: Any) -> OpenedAnalysis:
        """An analysis of ``repository``; a target or setting it refuses reaches the client as ``gr.Error``."""
        try:
            return await open_analysis(self._services, repository, question, **options)
        except AgentCoreError as exc:
            raise gr.Error(str(exc)) from exc

    def _charge(self, key: str, requests: int) -> None:
        """A tool call is counted by what it cost GitHub: one was counted at the door, every further
        request made (the repository's check, a scope's resolution, the tool's own) counts too, so a
        call that spends 4 requests uses 4 of the visitor's hourly calls, failed calls included."""
        for _ in range(requests - 1):
            if self._budget.use_tool(key) is not None:
                break  # the visitor's hour is spent: the next call is refused at the door

    async def analyze(self, repository: str, question: str = "", request: gr.Request | None = None) -> str:
        """Analyse one or more GitHub repositories with the agent and return a Markdown report
        (overview, tech stack, architecture, activity, strengths, risks, recommendations).

        Args:
            repository: One repository ("owner/repo" or a GitHub URL), or several separated by spaces
                for a comparison.
            question: Optional focus for the report, e.g. "How is it tested?". A Chinese question gets a
                Chinese report.
        """
        refused = too_long("en", ("target", repository), ("question", question))
        if refused is not None:
            raise gr.Error(refused)
        payer = Payer(owner_model=uses_model(self._settings), owner_github=True)
        admission = self._budget.admit(client_key(request), payer)
        if isinstance(admission, str):
            raise gr.Error(admission)
        used = 0
        try:
            opened = await self._open(repository, question)
            try:
                run = opened.analysis.run(question, max_total_tokens=admission.tokens)
                async with contextlib.aclosing(run) as events:
                    async for event in events:
                        if isinstance(event, ev.TurnFinished):
                            used += (event.prompt_tokens or 0) + (event.completion_tokens or 0)
                        elif isinstance(event, ev.RunFinished):
                            return event.report
                        elif isinstance(event, ev.RunFailed):
                            raise gr.Error(event.message + (f" ({event.hint})" if event.hint else ""))
            finally:
                await opened.aclose()
        finally:
            self._budget.release(admission, tokens_used=used)
        raise gr.Error("the analysis ended without a result")


def tool_function(
    spec: ToolSpec, call: Callable[..., Awaitable[dict[str, Any]]]
) -> Callable[..., Awaitable[dict[str, Any]]]:
    """An async function for ``gr.api`` made from ``spec``: ``repository``, then the spec's parameters
    (with their MCP defaults), then the ``gr.Request`` Gradio fills in; named and documented like the tool."""
    parameters = [inspect.Parameter("repository", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str)]
    for param in spec.params:
        default = inspect.Parameter.empty if param.mcp_default is REQUIRED else param.mcp_default
        parameters.append(
            inspect.Parameter(
                param.name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=default,
                annotation=param.python_type,
            )
        )
    parameters.append(
        inspect.Parameter(
            "request", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=gr.Request | None
        )
    )
    signature = inspect.Signature(parameters, return_annotation=dict[str, Any])

    async def tool(*args: Any, **kwargs: Any) -> dict[str, Any]:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        request, repository = values.pop("request"), values.pop("repository")
        return await call(spec.name, repository, request, **values)

    tool.__name__ = tool.__qualname__ = spec.name
    tool.__doc__ = spec.mcp_doc()
    tool.__signature__ = signature  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": dict[str, Any]}
    return tool
