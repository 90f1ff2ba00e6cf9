"""Evidence first: what every analysis needs, fetched in parallel before the model's first turn.

Two turns of purpose ``prefetch`` ("Gathering the basics"), each with its tool calls nested: first the
overview of every repository (info, the whole tree, recent commits: the registry's ``prefetch``
tools), then what the tree shows is worth reading (the README and the primary manifests,
:func:`~agent_core.agent.planner.basic_reads`). The results land in the toolbox like any call (the
report and the claim check see them; a model asking for them again gets the memo) and go to the model
as one compact brief (:mod:`~agent_core.agent.brief`) in its first message, instead of as many tool
messages. ``PREFETCH=off`` keeps the pure ReAct loop.

The two turns do not count against the model's turn limit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from agent_core import events as ev
from agent_core.agent.brief import write_brief
from agent_core.agent.flow import Result, Step, events_only
from agent_core.agent.offload import off_loop
from agent_core.agent.parallel import PendingCall
from agent_core.agent.planner import PlannedCall, basic_reads
from agent_core.agent.run import Run
from agent_core.repo import RepoRef
from agent_core.sources.models import FileTree
from agent_core.tools.registry import overview_calls

_CHARS_PER_TOKEN = 3.0  # the brief's size is set in characters; ~3.3 per token for English and code


async def gather_basics(run: Run, *, brief_tokens: int) -> Step[str]:
    """The prefetch turns; the result is the brief for the model's first message."""
    scope = run.parts.scope
    first = [
        PlannedCall(tool=tool, arguments=arguments)
        for repo in scope
        for tool, arguments in overview_calls(repo, prefetch=True)
    ]
    names = ", ".join(r.full_name for r in scope)
    thought = (
        f"Gathering the basics of {names}: metadata, the whole file tree and recent commits, all at once."
    )
    async for event in _turn(run, first, thought):
        yield event
    trees = [(repo, _tree(run, repo.key())) for repo in scope]
    reads = [call for repo, tree in trees if tree is not None for call in basic_reads(repo, tree)]
    reads += [_attributes(repo) for repo, tree in trees if tree is not None and _has_attributes(tree)]
    if reads:
        files = ", ".join(sorted({str(c.arguments["path"]) for c in reads}))
        async for event in _turn(run, reads, f"Reading what every analysis needs: {files}."):
            yield event
    budget_chars = int(brief_tokens * _CHARS_PER_TOKEN)
    yield Result(value=await off_loop(write_brief, scope, tuple(run.results()), max_chars=budget_chars))


async def _turn(run: Run, calls: list[PlannedCall], thought: str) -> AsyncIterator[ev.Event]:
    turn = run.next_turn()
    run.state.free_turns += 1
    yield ev.TurnStarted(t=run.t(), turn=turn, purpose="prefetch")
    yield ev.ReasoningDelta(t=run.t(), turn=turn, text=thought)
    yield ev.TurnFinished(t=run.t(), turn=turn, tool_calls=len(calls), finish_reason="tool_calls")
    pending = [
        PendingCall(call_id=f"basics-{turn}-{i}", tool=c.tool, arguments=dict(c.arguments))
        for i, c in enumerate(calls, 1)
    ]
    async for event in events_only(run.tool_turn(pending, feed="none")):
        yield event


def _has_attributes(tree: FileTree) -> bool:
    """A root ``.gitattributes``: its Linguist overrides change what the repository model calls vendored."""
    return any(e.path == ".gitattributes" for e in tree.entries)


def _attributes(repo: RepoRef) -> PlannedCall:
    return PlannedCall(
        tool="read_file", arguments={"owner": repo.owner, "repo": repo.name, "path": ".gitattributes"}
    )


def _tree(run: Run, key: str) -> FileTree | None:
    for result in reversed(run.results()):
        if (
            result.tool == "get_file_tree"
            and result.ok
            and result.repo is not None
            and result.repo.key() == key
            and isinstance(result.value, FileTree)
        ):
            return result.value
    return None
