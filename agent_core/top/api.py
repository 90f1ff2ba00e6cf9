"""The library entry points: ``analyze`` (the report), ``stream_analysis`` (the events), ``run_agent``.

``run_agent(llm, http, query)`` keeps the calling convention of the original command-line agent's
module: an ``AsyncOpenAI`` client, an HTTP client and a query naming the repository.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncGenerator

import httpx
import openai

from agent_core import events as ev
from agent_core.agent.prompts import detect_language
from agent_core.errors import AgentCoreError, InvalidTargetError
from agent_core.llm import OpenAIChatModel, resolve_model_config
from agent_core.report.export import full_report
from agent_core.settings import Settings
from agent_core.sources.mentions import find_local_path, find_repo_mentions
from agent_core.sources.targets import Target
from agent_core.top.services import Services
from agent_core.top.wiring import open_analysis, sampling, turn_timeout
from agent_core.words import Language


async def stream_analysis(
    target: str, question: str = "", *, settings: Settings | None = None, services: Services | None = None
) -> AsyncGenerator[ev.Event, None]:
    """Yield the events of one analysis; ends with ``run_finished`` or ``run_failed``.

    Bad input (a mistyped URL, a disabled local path) is reported as ``run_failed`` with a clear message,
    not raised, so every consumer handles one shape.
    """
    owned = services is None
    services = services or Services(settings or Settings.from_env())
    try:
        try:
            opened = await open_analysis(services, target, question, settings=settings)
        except AgentCoreError as exc:
            yield ev.RunFailed(t=0.0, message=exc.message, hint=exc.hint)
            return
        try:
            async for event in opened.analysis.run(question):
                yield event
        finally:
            await opened.aclose()
    finally:
        if owned:
            await services.aclose()


async def analyze(target: str, question: str = "", *, settings: Settings | None = None) -> str:
    """The report for ``target`` (a GitHub URL, ``owner/repo`` or, when allowed, a local path), with the
    app's appendix: the key facts, the data gaps and the claim check (:func:`agent_core.report.export.full_report`).

    Raises :class:`AgentCoreError` when no report at all could be produced.
    """
    # aclosing: leaving the loop early must still run the generator's cleanup (close the HTTP pools) now.
    check: ev.ClaimsChecked | None = None
    diagrams: list[ev.DiagramDrawn] = []
    async with contextlib.aclosing(stream_analysis(target, question, settings=settings)) as events:
        async for event in events:
            if isinstance(event, ev.ClaimsChecked):
                check = event
            if isinstance(event, ev.DiagramDrawn):
                diagrams.append(event)
            if isinstance(event, ev.RunFinished):
                language: Language = detect_language(question, (settings or Settings()).report_language)
                appended = diagrams if event.writer == "model" else ()  # a written report has them in it
                return full_report(
                    event.report,
                    check,
                    event.degraded_reasons,
                    language,
                    diagrams=appended,
                    coverage=event.stats.coverage,
                )
            if isinstance(event, ev.RunFailed):
                raise AgentCoreError(event.message, hint=event.hint)
    raise AgentCoreError("the analysis ended without a result")


async def run_agent(
    llm: openai.AsyncOpenAI, http: httpx.AsyncClient, query: str, *, model: str | None = None
) -> str:
    """Compatibility entry point: analyse the repository named in ``query`` and return the report.

    ``llm`` is used as the model client (its base URL picks the provider preset; the model is ``model``, else
    ``LLM_MODEL`` as the app reads it); a local path in ``query`` (``/srv/repo``, ``./app``) is analysed
    locally when local paths are allowed, never taken for ``owner/repo``; ``http`` is accepted
    for compatibility — GitHub requests go through our own resilient client, whose base URL and token
    come from the settings (``http.base_url`` is used as the GitHub API URL when it is set).
    """
    settings = Settings.from_env()
    base = str(http.base_url).rstrip("/")
    if base:
        settings = settings.with_overrides(github_api_url=base)
    local = find_local_path(query)
    targets: str | list[Target] = (
        local if local is not None else find_repo_mentions(query)
    )  # a local path is opened as text (allowed or refused by the settings); mentions are parsed already
    if not targets:
        match = re.search(r"[\w.-]+/[\w.-]+", query)
        if match is None:
            raise InvalidTargetError("the query names no repository (expected owner/repo or a GitHub URL)")
        targets = match.group(0)  # text, parsed once by open_analysis
    config = resolve_model_config(
        provider=None,
        base_url=str(llm.base_url),
        model=model or settings.llm_model,
        api_key=llm.api_key,
        hf_token=None,
    )
    chat = OpenAIChatModel(
        llm,
        model=config.model,
        turn_timeout=turn_timeout(settings, config),
        max_tokens=settings.llm_max_tokens,
        temperature=settings.llm_temperature,
        sampling=sampling(settings, config),
        extra_body=config.extra_body,
    )
    services = Services(settings)
    try:
        opened = await open_analysis(
            services, targets, query, settings=settings, model=chat, model_config=config
        )
        report: str | None = None
        failure: ev.RunFailed | None = None
        async for event in opened.analysis.run(query):
            if isinstance(event, ev.RunFinished):
                report = event.report
            elif isinstance(event, ev.RunFailed):
                failure = event
        if report is None:
            raise AgentCoreError(
                failure.message if failure else "no report", hint=failure.hint if failure else None
            )
        return report
    finally:
        await services.aclose()
