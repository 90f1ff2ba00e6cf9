"""The architecture diagram: a small graph of components and relations, every path checked against the
tree, compiled to Mermaid by the app itself so that it always renders and carries nothing executable.

::

    Graph: components (name, path, role) and relations (source -> target, label)
      ├─ built from the tree and the imports of the files read        diagram_tree.tree_graph
      └─ proposed by the model as JSON, its paths checked here         check_proposal (agent.diagram_call)
    ─▶ at most MAX_NODES: the least connected merged into a parent folder's node, or dropped   cap
    ─▶ Mermaid, with node ids of the app's own and labels from a safe alphabet          compile_mermaid
    ─▶ the report's section: the diagram, then one Markdown link per component          diagram_block

Why Markdown links under the diagram rather than Mermaid ``click`` lines: Gradio 6.31 runs Mermaid with
``securityLevel: "antiscript"`` (its frontend bundle says so), which keeps ``click`` enabled and lets
HTML through labels; a click target becomes an ``<a>`` inside the SVG, past Gradio's Markdown sanitiser
and our own link checks (:mod:`agent_core.web.links`). A list of links works in every viewer (the page,
the ``.md`` export, GitHub, a terminal), goes through the same checks as every other link and is usable
with a keyboard and a screen reader. So the compiled text has no ``click``, no ``%%`` directive, no HTML
and no style: only ``flowchart LR``, nodes ``nN["label"]`` and edges ``nA -->|"label"| nB``.

The app shows a Mermaid block only when it is exactly one it compiled (:func:`compile_mermaid` of a
``diagram`` event, see :func:`agent_core.web.markdown.safe_markdown`); any other is shown as code.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import quote

from agent_core import events as ev
from agent_core.events import Component, Relation
from agent_core.llm.scan import first_object
from agent_core.report.inert import code, plain
from agent_core.report.phrases import shorten
from agent_core.words import Words

__all__ = [
    "MAX_NODES",
    "Component",
    "Graph",
    "Proposal",
    "Relation",
    "cap",
    "check_proposal",
    "compile_mermaid",
    "diagram_block",
    "graph_of",
    "mermaid_label",
    "parse_proposal",
]

MAX_NODES = 12
_NAME_MAX, _ROLE_MAX, _EDGE_MAX = 40, 80, 24
_SAFE = frozenset(" ._-/,:+@")  # besides letters and digits (any script): nothing Mermaid or HTML reads


@dataclass(frozen=True, kw_only=True)
class Graph:
    """The diagram of one repository. Relations name components by path; ``commit`` and ``link_base``
    (``https://github.com/OWNER/REPO``) make the links permalinks, None for a local repository."""

    repo: str
    source: Literal["model", "tree"]
    components: tuple[Component, ...]
    relations: tuple[Relation, ...] = ()
    commit: str | None = None
    link_base: str | None = None
    root: str = ""  # a scoped run's folder, which component paths are relative to

    def url(self, component: Component) -> str | None:
        """The component's folder (or file) at the analysed commit, or None when there is no permalink."""
        if self.link_base is None or self.commit is None:
            return None
        path = f"{self.root}/{component.path}" if self.root else component.path
        return f"{self.link_base}/tree/{self.commit}/{quote(path, safe='/')}"


_LINK_BASE = re.compile(r"https://github\.com/[A-Za-z0-9-]+/[A-Za-z0-9._-]+")
_COMMIT = re.compile(r"[0-9a-f]{7,40}")


def graph_of(event: ev.DiagramDrawn) -> Graph:
    """The graph a ``diagram`` event carries (capped again: an event may come from a recording, whose
    links must lead to a GitHub repository at a commit: any other ``link_base`` or ``commit`` is dropped)."""
    linked = bool(
        event.link_base
        and event.commit
        and _LINK_BASE.fullmatch(event.link_base)
        and _COMMIT.fullmatch(event.commit)
    )
    graph = Graph(
        repo=event.repo,
        source=event.source,
        components=event.components,
        relations=event.relations,
        commit=event.commit,
        link_base=event.link_base if linked else None,
        root=event.root,
    )
    return cap(graph)


# -- Mermaid ------------------------------------------------------------------------------------------


def mermaid_label(text: str, limit: int = _NAME_MAX) -> str:
    """``text`` as the inside of a quoted Mermaid label: one line, cut to ``limit``; letters and digits
    of any script and `` ._-/,:+@`` as they are, every other printable character as Mermaid's numeric
    entity (``#34;`` for ``"``), control and format characters dropped. So no quote, bracket, backtick,
    ``;``, ``%%``, ``#`` or ``<`` of the text can reach Mermaid's parser or the SVG's HTML."""
    flat = shorten(" ".join(text.split()), limit)
    out = []
    for char in flat:
        if char.isalnum() or char in _SAFE:
            out.append(char)
        elif unicodedata.category(char)[0] not in "CZ":
            out.append(f"#{ord(char)};")
    return "".join(out).strip()


def compile_mermaid(graph: Graph) -> str:
    """The Mermaid text of ``graph`` (its components in order as ``n1``, ``n2``...), "" when it has none."""
    if not graph.components:
        return ""
    ids = {c.path: f"n{i}" for i, c in enumerate(graph.components, 1)}
    lines = ["flowchart LR"]
    lines += [f'  {ids[c.path]}["{mermaid_label(c.name) or "?"}"]' for c in graph.components]
    for r in graph.relations:
        if r.source in ids and r.target in ids:
            label = mermaid_label(r.label, _EDGE_MAX)
            arrow = f'-->|"{label}"|' if label else "-->"
            lines.append(f"  {ids[r.source]} {arrow} {ids[r.target]}")
    return "\n".join(lines)


# -- the report's section ---------------------------------------------------------------------------------


def diagram_block(graph: Graph, words: Words) -> list[str]:
    """The diagram as Markdown lines: the Mermaid block, one line per component (its name, a link to its
    folder at the analysed commit, its role) and where the diagram comes from."""
    if not graph.components:
        return [words("diagram_none")]
    lines = ["```mermaid", compile_mermaid(graph), "```", ""]
    for c in graph.components:
        url = graph.url(c)
        where = f"[{code(c.path)}]({url})" if url else code(c.path)
        role = f" — {plain(c.role, limit=_ROLE_MAX)}" if c.role.strip() else ""
        lines.append(f"- **{plain(c.name, limit=_NAME_MAX)}** — {where}{role}")
    origin = words("diagram_drawn_by_model") if graph.source == "model" else words("diagram_drawn_by_tree")
    commit = words("diagram_at_commit", code(graph.commit[:12])) if graph.commit else ""
    return [*lines, "", f"*{origin}{commit}.*"]


# -- the node cap -----------------------------------------------------------------------------------------


def cap(graph: Graph, limit: int = MAX_NODES) -> Graph:
    """``graph`` with at most ``limit`` components: while there are more, the least connected one (the
    deepest, then the last listed, first) merges into the component of a folder holding it (its arrows
    move there) or, with none, is dropped with its arrows. Self-arrows and repeats are dropped, and every
    node is drawn once under a name of its own (:func:`_unique`)."""
    components = _unique(graph.components)
    relations = _tidy(graph.relations, {c.path for c in components})
    while len(components) > limit:
        degree = Counter(p for r in relations for p in (r.source, r.target))
        position = {c.path: i for i, c in enumerate(components)}
        victim = min(components, key=lambda c: (degree[c.path], -c.path.count("/"), -position[c.path]))
        components.remove(victim)
        parent = _parent(victim.path, [c.path for c in components])
        moved = [
            replace(
                r,
                source=parent if r.source == victim.path else r.source,
                target=parent if r.target == victim.path else r.target,
            )
            for r in relations
        ]
        relations = _tidy(moved, {c.path for c in components})
    return replace(graph, components=tuple(components), relations=tuple(relations))


def _unique(components: Sequence[Component]) -> list[Component]:
    """Each path once (the first listing wins), and names told apart: two components both called ``src``
    (``packages/a/src``, ``packages/b/src``) are named by as many trailing path segments as make them
    differ (``a/src``, ``b/src``)."""
    by_path: dict[str, Component] = {}
    for component in components:
        by_path.setdefault(component.path, component)
    kept = list(by_path.values())
    groups: dict[str, list[int]] = {}
    for i, component in enumerate(kept):
        groups.setdefault(component.name.casefold(), []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        parts = {i: kept[i].path.split("/") for i in members}
        left, depth = set(members), 1
        while left and depth <= max(len(p) for p in parts.values()):
            suffixes = Counter("/".join(parts[i][-depth:]) for i in members)
            for i in sorted(left):
                suffix = "/".join(parts[i][-depth:])
                if suffixes[suffix] == 1 or depth >= len(parts[i]):
                    if depth > 1:
                        kept[i] = replace(kept[i], name=suffix)
                    left.discard(i)
            depth += 1
    return kept


def _parent(path: str, candidates: Sequence[str]) -> str:
    holders = [c for c in candidates if path.startswith(c.rstrip("/") + "/")]
    return max(holders, key=len, default="")


def _tidy(relations: Sequence[Relation], known: Collection[str]) -> list[Relation]:
    seen: set[tuple[str, str]] = set()
    out = []
    for r in relations:
        pair = (r.source, r.target)
        if r.source in known and r.target in known and r.source != r.target and pair not in seen:
            seen.add(pair)
            out.append(r)
    return out


# -- a model's proposal -----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Proposal:
    """What a model proposed, checked: the components whose paths are in the tree, the relations between
    them, and every problem found (said back to the model when it gets a second try)."""

    components: tuple[Component, ...] = ()
    relations: tuple[Relation, ...] = ()
    dropped: tuple[str, ...] = ()  # proposed paths that are not in the tree
    errors: tuple[str, ...] = ()


def parse_proposal(text: str) -> Any:
    """The first JSON object in a reply (in a code fence or around prose), or None: the one linear,
    capped scanner of model text (:func:`agent_core.llm.scan.first_object`)."""
    return first_object(text)[0]


def check_proposal(value: Any, paths: Collection[str], dirs: Collection[str]) -> Proposal:
    """A proposal (parsed JSON) held against the tree's files ``paths`` and folders ``dirs``: a component
    whose path is in neither is dropped (case and ``./`` or a trailing ``/`` forgiven), so is a relation
    whose end is not a component kept."""
    if not isinstance(value, dict) or not isinstance(value.get("components"), list):
        return Proposal(errors=('the reply is not a JSON object with a "components" list',))
    known = {p.lower(): p for p in (*paths, *dirs)}
    components: dict[str, Component] = {}
    dropped: list[str] = []
    for item in value["components"]:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        wanted = item["path"].strip().removeprefix("./").strip("/")
        path = known.get(wanted.lower())
        if path is None:
            dropped.append(wanted or item["path"])
            continue
        name = str(item.get("name") or path.rsplit("/", 1)[-1]).strip()
        components.setdefault(path, Component(name=name, path=path, role=str(item.get("role") or "")))
    by_name = {c.name.lower(): c.path for c in components.values()}  # a component named, or its path
    by_name.update({path.lower(): path for path in components})
    relations = []
    for item in value.get("relations") or ():
        if not isinstance(item, dict):
            continue
        ends = [_end(item, keys, by_name) for keys in (("from", "source"), ("to", "target"))]
        if ends[0] and ends[1]:
            relations.append(Relation(source=ends[0], target=ends[1], label=str(item.get("label") or "")))
    errors = [f"not in the tree: {', '.join(repr(p) for p in dropped)}"] if dropped else []
    if len(components) < 2:
        errors.append("fewer than two components have a path that is in the tree")
    return Proposal(
        components=tuple(components.values()),
        relations=tuple(_tidy(relations, components)),
        dropped=tuple(dropped),
        errors=tuple(errors),
    )


def _end(item: Mapping[str, Any], keys: tuple[str, str], by_name: Mapping[str, str]) -> str | None:
    """A relation's end: a component's path (case forgiven) or name; the lookup built once per proposal."""
    raw = next((item[k] for k in keys if isinstance(item.get(k), str)), "")
    return by_name.get(raw.strip().removeprefix("./").strip("/").lower())
