"""Evidence first: what every analysis needs, fetched in parallel before the model's first turn.

Two turns of purpose ``prefetch`` ("Gathering the basics"), each with its tool calls nested: first the
overview of every repository (info, the whole tree, recent commits: the registry's ``prefetch``
tools), then what the tree shows is worth reading (the README and the primary manifests,
:func:`~agent_core.agent.planner.basic_reads`). A scoped run (a ``/tree/`` or ``/blob/`` URL) reads its
folder's README, manifest and main modules at the scope's ref and the file a ``/blob/`` URL named; one more
turn lists at most 4 folders up its path, the root among them (the repository's licence and CI files, what
the claim check may find outside the folder), and, when the folder has no manifest, the nearest one up its
path is read. The results land in the toolbox like any call (the
report and the claim check see them; a model asking for them again gets the memo) and go to the model
as one compact brief (:mod:`~agent_core.agent.brief`) in its first message, instead of as many tool
messages. ``PREFETCH=off`` keeps the pure ReAct loop.

The two turns do not count against the model's turn limit.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent_core import events as ev
from agent_core.agent.accounting import Added
from agent_core.agent.brief import Brief, brief_of
from agent_core.agent.flow import Flow, Result, Step, events_only
from agent_core.agent.folder_plan import main_modules
from agent_core.agent.pace import CHARS_PER_TOKEN
from agent_core.agent.planner import basic_reads
from agent_core.agent.run import Run
from agent_core.offload import off_loop
from agent_core.repo import RepoRef
from agent_core.sources.models import DirListing, FileTree
from agent_core.tool_call import ToolCallRequest
from agent_core.tools.observe import notable_role
from agent_core.tools.registry import GET_FILE_TREE, LIST_DIRECTORY, READ_FILE, overview_calls
from agent_core.words import Said, said, say


async def gather_basics(run: Run, *, brief_tokens: int) -> Step[Brief]:
    """The prefetch turns; the result is the brief for the model's first message."""
    scope = run.parts.scope
    first = [
        ToolCallRequest(tool=tool, arguments=arguments)
        for repo in scope
        for tool, arguments in overview_calls(repo, prefetch=True)
    ]
    thought = said("prefetch_overview", repos=[r.full_name for r in scope])
    async for event in evidence_turn(run, first, thought):
        yield event
    trees = [(repo, tree) for repo in scope if (tree := _tree(run, repo.key())) is not None]
    reads = [call for repo, tree in trees for call in scoped_reads(repo, tree)]
    folders = [(repo, tree) for repo, tree in trees if tree.path]
    unfounded = [(repo, tree) for repo, tree in folders if not _has_manifest(reads, repo)]
    if folders:  # a folder's run: what is up its path (the root's licence and CI, the nearest manifest)
        lists = [call for repo, tree in folders for call in _ancestor_listings(repo, tree.path)]
        named = [f"{c.args['path'] or '/'}" for c in lists]
        lookup = said("prefetch_lookup_manifest" if unfounded else "prefetch_lookup", folders=named)
        async for event in evidence_turn(run, lists, lookup):
            yield event
        reads += [call for repo, tree in unfounded for call in _nearest_manifest(run, repo, tree.path)]
    reads += [_attributes(repo) for repo, tree in trees if _has_attributes(tree)]
    if reads:
        files = sorted({str(c.args["path"]) for c in reads})
        async for event in evidence_turn(run, reads, said("prefetch_basics", files=files)):
            yield event
    budget_chars = int(brief_tokens * CHARS_PER_TOKEN)  # its size is set in characters
    yield Result(value=await off_loop(brief_of, scope, tuple(run.results()), max_chars=budget_chars))


async def evidence_turn(run: Run, calls: list[ToolCallRequest], thought: Said, *, allowance: int = 0) -> Flow:
    """One turn of purpose ``prefetch``: ``thought``, then ``calls`` run like any (memo, cache, retries),
    their results kept for the report and the claim check, fed to no model (not counted as a turn)."""
    turn = run.next_turn()
    yield Added(free_turns=1)
    yield ev.TurnStarted(t=run.t(), turn=turn, purpose="prefetch")
    yield ev.ReasoningDelta(t=run.t(), turn=turn, text=say(thought, "en"), said=(thought,))
    yield ev.TurnFinished(t=run.t(), turn=turn, tool_calls=len(calls), finish_reason="tool_calls")
    pending = [replace(c, call_id=f"basics-{turn}-{i}") for i, c in enumerate(calls, 1)]
    async for event in events_only(run.tool_turn(pending, feed="none", allowance=allowance)):
        yield event


def scoped_reads(repo: RepoRef, tree: FileTree) -> list[ToolCallRequest]:
    """The basic reads of a tree; of a scoped run's folder as if it were the root (its README, its own
    manifests), and first the file a ``/blob/`` URL named."""
    focus = [ToolCallRequest(tool=READ_FILE, arguments=_at(repo, tree.focus))] if tree.focus else []
    if not tree.path:
        return [*focus, *basic_reads(repo, tree)]
    base = f"{tree.path}/"
    inner = replace(
        tree,
        path="",
        entries=tuple(
            replace(e, path=e.path.removeprefix(base)) for e in tree.entries if e.path.startswith(base)
        ),
    )
    calls = [
        ToolCallRequest(tool=c.tool, arguments={**c.args, "path": base + str(c.args["path"])})
        for c in basic_reads(repo, inner)
    ]
    # its main modules too: a folder of code alone (a Go package) is never briefed from 0 of its files
    calls += [
        ToolCallRequest(tool=READ_FILE, arguments=_at(repo, base + p)) for p in main_modules(tree, base)
    ]
    return [*focus, *(c for c in calls if c.args["path"] != tree.focus)]


def _at(repo: RepoRef, path: str) -> dict[str, Any]:
    return {"owner": repo.owner, "repo": repo.name, "path": path}


def _has_manifest(calls: list[ToolCallRequest], repo: RepoRef) -> bool:
    return any(
        c.args.get("owner") == repo.owner
        and c.args.get("repo") == repo.name
        and notable_role(str(c.args.get("path"))) == "manifest"
        for c in calls
    )


_MAX_ANCESTORS = 4  # folders listed up the path (closest first), the root always among them


def _ancestor_listings(repo: RepoRef, path: str) -> list[ToolCallRequest]:
    parts = path.split("/")[:-1]
    ancestors = [*["/".join(parts[:i]) for i in range(len(parts), 0, -1)][: _MAX_ANCESTORS - 1], ""]
    return [ToolCallRequest(tool=LIST_DIRECTORY, arguments=_at(repo, folder)) for folder in ancestors]


def _nearest_manifest(run: Run, repo: RepoRef, path: str) -> list[ToolCallRequest]:
    """A read of the manifest in the closest folder above ``path`` that has one (none found: no read)."""
    listings = {
        r.value.path: r.value
        for r in run.results()
        if r.ok and isinstance(r.value, DirListing) and r.repo is not None and r.repo.key() == repo.key()
    }
    for call in _ancestor_listings(repo, path):
        listing = listings.get(str(call.args["path"]))
        found = (
            sorted(e.path for e in listing.entries if e.type == "file" and notable_role(e.name) == "manifest")
            if listing
            else []
        )
        if found:
            return [ToolCallRequest(tool=READ_FILE, arguments=_at(repo, found[0]))]
    return []


def _has_attributes(tree: FileTree) -> bool:
    """A root ``.gitattributes``: its Linguist overrides change what the repository model calls vendored."""
    return any(e.path == ".gitattributes" for e in tree.entries)


def _attributes(repo: RepoRef) -> ToolCallRequest:
    return ToolCallRequest(
        tool=READ_FILE, arguments={"owner": repo.owner, "repo": repo.name, "path": ".gitattributes"}
    )


def _tree(run: Run, key: str) -> FileTree | None:
    for result in reversed(run.results()):
        if (
            result.tool == GET_FILE_TREE
            and result.ok
            and result.repo is not None
            and result.repo.key() == key
            and isinstance(result.value, FileTree)
        ):
            return result.value
    return None
