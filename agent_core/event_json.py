"""The event stream as JSON (re-exported by :mod:`agent_core.events`): :func:`event_to_dict` gives one
JSON object with a ``kind`` field spelled as the ``kind`` literal; :func:`event_from_dict` inverts it
(nested values rebuilt as their dataclasses); :func:`dump_events` / :func:`load_events` save a run as
JSON Lines (the trace export, and what replay reads). Ground floor, like the events.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_core import events as ev
from agent_core.cost import CostPart
from agent_core.ledger import coverage_from_dict
from agent_core.repo import RunScope
from agent_core.result_shape import result_shape_from_dict
from agent_core.tree_shape import tree_summary_from_dict
from agent_core.words import said_from_dict


def event_to_dict(event: ev.Event) -> dict[str, Any]:
    """One JSON-ready object; ``kind`` first."""
    data = dataclasses.asdict(event)
    if isinstance(event, ev.ToolCallStarted):
        data["arguments"] = dict(event.arguments)
    return {"kind": data.pop("kind"), **data}


def event_from_dict(data: Mapping[str, Any]) -> ev.Event:
    """Inverse of :func:`event_to_dict`; unknown keys are ignored (forward compatibility)."""
    kind = data.get("kind")
    cls = ev.EVENT_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown event kind: {kind!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    values = {k: v for k, v in data.items() if k in names and k != "kind"}
    if cls is ev.ToolCallFinished and values.get("tree") is not None:
        values["tree"] = tree_summary_from_dict(values["tree"])
    if cls is ev.ToolCallFinished and values.get("shape") is not None:
        values["shape"] = result_shape_from_dict(values["shape"])
    if cls is ev.RunFinished:
        stats = dict(values.get("stats", {}))
        stats["coverage"] = tuple(coverage_from_dict(c) for c in stats.get("coverage", ()))
        parts = tuple(_fields_of(CostPart, p) for p in stats.get("cost_parts", ()))
        values["stats"] = replace(_fields_of(ev.RunStats, stats), cost_parts=parts)
        values["degraded_reasons"] = tuple(values.get("degraded_reasons", ()))
    if cls in (ev.RunFinished, ev.RunFailed) and values.get("diagnosis") is not None:
        values["diagnosis"] = _fields_of(ev.Diagnosis, values["diagnosis"])
    if cls is ev.RunStarted:
        values["targets"] = tuple(values.get("targets", ()))
        values["scopes"] = tuple(_fields_of(RunScope, scope) for scope in values.get("scopes", ()))
        if (estimate := values.get("estimate")) is not None:
            parts = tuple(_fields_of(CostPart, p) for p in estimate.get("parts", ()))
            values["estimate"] = replace(_fields_of(ev.CostEstimate, estimate), parts=parts)
    if cls in (ev.ReasoningDelta, ev.Notice, ev.ClaimsChecked):
        values |= _words_of(values)
    if cls is ev.DraftReviewed:
        for name in ("findings", "corrected", "set_aside"):
            values[name] = tuple(_claim_from_dict(c) for c in values.get(name, ()))
        values["problems"] = tuple(values.get("problems", ()))
    if cls is ev.DiagramDrawn:
        values["components"] = tuple(_fields_of(ev.Component, c) for c in values.get("components", ()))
        values["relations"] = tuple(_fields_of(ev.Relation, r) for r in values.get("relations", ()))
        values["dropped"] = tuple(values.get("dropped", ()))
    return cls(**values)


def _fields_of(cls: type[Any], data: Mapping[str, Any]) -> Any:
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


def _words_of(values: Mapping[str, Any]) -> dict[str, Any]:
    """The nested values of an event that says things as data: a narration's sentences, the claims."""
    if "claims" in values or "key_facts" in values:
        return {
            "claims": tuple(_claim_from_dict(c) for c in values.get("claims", ())),
            "key_facts": tuple(_fields_of(ev.KeyFact, f) for f in values.get("key_facts", ())),
        }
    return {"said": tuple(said_from_dict(s) for s in values.get("said", ()))}


def _claim_from_dict(data: Mapping[str, Any]) -> ev.CheckedClaim:
    claim: ev.CheckedClaim = _fields_of(ev.CheckedClaim, data)
    claim_said = data.get("claim_said")
    return replace(
        claim,
        observed_said=tuple(said_from_dict(s) for s in data.get("observed_said", ())),
        claim_said=said_from_dict(claim_said) if claim_said is not None else None,
    )


def dumps_event(event: ev.Event) -> str:
    return json.dumps(event_to_dict(event), ensure_ascii=False, separators=(",", ":"))


def dump_events(events: Iterable[ev.Event], path: Path) -> None:
    """Save a run as JSON Lines (one event per line)."""
    with path.open("w", encoding="utf-8") as fh:
        for event in events:
            fh.write(dumps_event(event) + "\n")


def load_events(path: Path) -> list[ev.Event]:
    """Load a run saved by :func:`dump_events`."""
    with path.open(encoding="utf-8") as fh:
        return [event_from_dict(json.loads(line)) for line in fh if line.strip()]
