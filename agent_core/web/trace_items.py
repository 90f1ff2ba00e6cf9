"""The items of the trace as they are built: a step per turn, a call per tool call, notes; the badges
and the preview a finished call shows; and the pointer to the report that ends a run's trace. Each
becomes one Gradio message (``to_message``); its text is already safe Markdown (see
:mod:`agent_core.web.markdown`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core import events as ev
from agent_core.tools.registry import GET_FILE_TREE
from agent_core.web.markdown import MarkdownStream, fenced, format_age, one_line
from agent_core.web.tree_preview import tree_preview
from agent_core.words import t

Message = dict[str, Any]
Status = Literal["pending", "done"]
ReportState = Literal["live", "done", "partial"]


def short_args(arguments: Mapping[str, Any], *, with_repo: bool = False) -> str:
    """``README.md`` for ``read_file(owner, repo, path="README.md")``; the repository when nothing else."""
    rest = ", ".join(
        str(v) for k, v in arguments.items() if k not in ("owner", "repo") and v not in (None, "")
    )
    repo = "/".join(str(arguments[k]) for k in ("owner", "repo") if arguments.get(k))
    if not rest:
        return repo
    return f"{repo} · {rest}" if with_repo and repo else rest


@dataclass(kw_only=True)
class Item:
    """One trace message under construction."""

    id: str | None = None
    parent_id: str | None = None
    title: str | None = None
    status: Status | None = None
    started: float = 0.0
    duration: float | None = None
    log: list[str] = field(default_factory=list)
    body: str = ""  # already safe markdown

    def content(self) -> str:
        return self.body

    def close(self, at: float, *, note: str | None = None) -> None:
        if self.status == "pending":
            self.status = "done"
            self.duration = max(0.0, at - self.started)
            if note:
                self.log.append(note)

    def to_message(self) -> Message:
        metadata: dict[str, Any] = {}
        if self.title is not None:
            metadata["title"] = self.title
        if self.id is not None:
            metadata["id"] = self.id
        if self.parent_id is not None:
            metadata["parent_id"] = self.parent_id
        if self.status is not None:
            metadata["status"] = self.status
        if self.duration is not None:
            metadata["duration"] = round(self.duration, 2)
        if self.log:
            metadata["log"] = " · ".join(self.log)
        message: Message = {"role": "assistant", "content": self.content()}
        if metadata:
            message["metadata"] = metadata
        return message


@dataclass(kw_only=True)
class Step(Item):
    """A model turn: its reasoning and notes (the model's text in a turn that called tools), each
    rendered as it streams at a cost per frame proportional to what was added (:class:`MarkdownStream`)."""

    turn: int
    reasoning: MarkdownStream = field(default_factory=MarkdownStream)
    notes: MarkdownStream = field(default_factory=MarkdownStream)
    turn_finished: bool = False
    open_calls: set[str] = field(default_factory=set)
    progress: str | None = None  # how far a slow model is in reading its prompt, until the turn ends

    def content(self) -> str:
        return "\n\n".join(p for p in (self.reasoning.value(), self.notes.value()) if p)

    def to_message(self) -> Message:
        message = super().to_message()
        if self.progress is not None and not self.turn_finished:
            message.setdefault("metadata", {})["log"] = self.progress
        return message


@dataclass(kw_only=True)
class Call(Item):
    arguments: Mapping[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    preview: str | None = None  # already fenced: fencing scans the whole text, once is enough

    def content(self) -> str:
        parts = list(self.lines)
        if self.preview is not None:
            parts.append(self.preview)
        elif self.arguments:
            parts.append(fenced(json.dumps(dict(self.arguments), ensure_ascii=False)))
        return "\n\n".join(parts)


def call_badges(event: ev.ToolCallFinished, lang: str = "en") -> list[str]:
    """``["2 attempts", "cache", "STALE 12 min", "DEGRADED"]`` — what a finished call's title shows."""
    badges: list[str] = []
    if event.attempts > 1:
        badges.append(t("badge_attempts", lang, count=event.attempts))
    if event.memo:
        badges.append(t("badge_memo", lang))
    elif event.from_cache:
        badges.append(t("badge_cache", lang))
    if event.stale:
        badges.append(t("badge_stale", lang, age=format_age(event.stale_age_s)))
    if event.degraded:
        badges.append(t("badge_degraded", lang))
    elif not event.ok:
        badges.append(t("badge_error", lang))
    return badges


def call_preview(event: ev.ToolCallFinished, lang: str = "en") -> str:
    """What a finished call shows: a file tree as a short summary (:mod:`~agent_core.web.tree_preview`),
    any other result as its fenced preview."""
    if event.tool == GET_FILE_TREE and event.ok:
        return tree_preview(event, lang)
    return fenced(event.preview)


def report_pointer(state: ReportState, lang: str = "en") -> Message:
    """The trace's last word on the report: where to read it. The report itself is on the page once, in
    the report panel; the trace says it is being written, was written, or stopped part-way."""
    return {"role": "assistant", "content": t(f"report_pointer_{state}", lang)}


def diagram_item(event: ev.DiagramDrawn, lang: str) -> Item:
    """What happened to a report's diagram: the model's (its calls) or the tree's (and why), dropped paths."""
    count = len(event.components)
    if event.source == "model":
        title = t("diagram_model", lang, components=count, attempts=event.attempts)
    else:
        title = t("diagram_tree", lang, components=count)
    # Never empty: Gradio marks an item with no content busy (aria-busy) for as long as it is shown.
    lines = [one_line(", ".join(c.path for c in event.components), 300) or "—"]
    if event.note:
        lines.append(one_line(event.note, 300))
    if event.dropped:
        lines.append(one_line(t("diagram_dropped", lang, paths=", ".join(event.dropped)), 300))
    return Item(title=one_line(title, 160), body="\n\n".join(lines))


def scope_items(event: ev.RunStarted, lang: str) -> list[Item]:
    """What the run's /tree/ or /blob/ URLs narrowed it to, one line each (none for whole repositories)."""
    keys = {"blob": "scope_file", "tree": "scope_folder"}
    return [
        Item(
            title=one_line(t(keys[s.kind], lang, where=s.label()), 160),
            status="done",
            body=one_line(s.label(), 160),
        )
        for s in event.scopes
    ]
