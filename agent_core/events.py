"""The event stream: the one contract between the agent core and everything that shows a run.

A run is an async generator of these frozen, keyword-only dataclasses, consumed alike by the browser app,
the terminal CLI, the JSON trace export, replay and the tests (``match`` on the type, ``assert_never``).
Every event carries ``t``: seconds since the run started. Streamed items have stable ids so a UI can
update one item in place: turn_started(turn) -> reasoning_delta* / text_delta* -> turn_finished(turn);
tool_call_started(call_id) -> tool_retry* -> tool_call_finished(call_id). A run ends with exactly one
``run_finished`` (a report exists, maybe degraded) or ``run_failed`` (no report at all); a report is
preceded by ``claims_checked`` (the app's own check of the report's claims against the observations)
and one ``diagram`` per repository (the architecture graph, every path checked; each consumer compiles
it to Mermaid). :func:`event_to_dict` / :func:`event_from_dict` map an event to one JSON object with a
``kind`` field and back; :func:`dump_events` / :func:`load_events` save a run as JSON Lines (all in
:mod:`agent_core.event_json`, which imports this module: never the other way round).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, get_args

from agent_core.cost import CostPart
from agent_core.ledger import Coverage
from agent_core.repo import RunScope
from agent_core.result_shape import ResultShape
from agent_core.tree_shape import TreeSummary
from agent_core.words import Said

Mode = Literal["model", "planner"]


@dataclass(frozen=True, kw_only=True)
class RunStats:
    turns: int = 0
    tool_calls: int = 0
    github_requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0  # of prompt_tokens, served from the provider's prompt cache
    cost_parts: tuple[CostPart, ...] = ()  # the cost at each price (cached input, input, output)
    cost_usd: float | None = None  # at the high end of the model's price (None: price unknown)
    cost_low_usd: float | None = None  # at the low end (DeepSeek off-peak); equal where one price
    prices_as_of: str | None = None  # the date of the price table's prices used
    local: bool = False  # the model ran on a server of the user's own: no charge
    elapsed_s: float = 0.0
    rate_limit_remaining: int | None = None
    rate_limit_reset: float | None = None  # UTC epoch seconds
    claims_verified: int = 0
    claims_contradicted: int = 0
    claims_unchecked: int = 0
    coverage: tuple[Coverage, ...] = ()  # what was read of each repository (agent_core.ledger)


@dataclass(frozen=True, kw_only=True)
class CostEstimate:
    """What a run may cost, told before it starts, at the model's dated prices
    (:data:`agent_core.llm.prices.PRICE_TABLE`): from ``low_usd`` (its first request alone, at the low
    price) to ``high_usd`` (its whole token budget, ``budget_tokens``, at the high price)."""

    low_usd: float
    high_usd: float
    budget_tokens: int
    prices_as_of: str
    source: str
    parts: tuple[CostPart, ...] = ()  # the high end by price: its input (none cached), its output
    local: bool = False  # a server of the user's own: no charge


@dataclass(frozen=True, kw_only=True)
class RunStarted:
    kind: Literal["run_started"] = "run_started"
    t: float
    run_id: str
    targets: tuple[str, ...]
    question: str
    model: str  # model name, or "offline planner"
    mode: Mode
    follow_up: bool = False
    estimate: CostEstimate | None = None  # None: no model, or its price is unknown
    scopes: tuple[RunScope, ...] = ()  # the folders or files that /tree/ and /blob/ URLs pointed at


@dataclass(frozen=True, kw_only=True)
class TurnStarted:
    kind: Literal["turn_started"] = "turn_started"
    t: float
    turn: int
    purpose: Literal["explore", "report", "prefetch", "revise"] = "explore"
    """``prefetch``: the evidence gathered before the model's first turn (no model involved); ``revise``: a
    local model correcting sentences of its report (its text streams as reasoning: the report stays)."""


@dataclass(frozen=True, kw_only=True)
class ReasoningDelta:
    """A model's reasoning as it streams, or the app's narration of a turn it planned (the planner's, the
    prefetch's): then ``said`` holds its sentences as data, said in each consumer's language, and
    ``text`` is them in English."""

    kind: Literal["reasoning_delta"] = "reasoning_delta"
    t: float
    turn: int
    text: str
    said: tuple[Said, ...] = ()


@dataclass(frozen=True, kw_only=True)
class TextDelta:
    """Assistant text as it streams. In the turn that ends the run this is the report streaming."""

    kind: Literal["text_delta"] = "text_delta"
    t: float
    turn: int
    text: str


@dataclass(frozen=True, kw_only=True)
class TurnFinished:
    kind: Literal["turn_finished"] = "turn_finished"
    t: float
    turn: int
    tool_calls: int  # how many tool calls the turn asked for (0: its text is an answer)
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_prompt_tokens: int | None = None  # of prompt_tokens, served from the provider's prompt cache
    duration_s: float = 0.0
    first_token_s: float | None = None  # from the request to the first token (None: no token came)


@dataclass(frozen=True, kw_only=True)
class TurnProgress:  # a slow model reading its prompt, as the server reports it (llama.cpp: return_progress)
    kind: Literal["turn_progress"] = "turn_progress"
    t: float
    turn: int
    done: int  # of ``total`` prompt tokens, read at ``tokens_per_s`` (None: no rate yet)
    total: int
    tokens_per_s: float | None = None
    elapsed_s: float | None = None  # since the request (a heartbeat after 10 s of silence: agent/progress)
    estimated: bool = False  # ``done``/``total`` are the app's estimate (the server said nothing for 10 s)
    writing: bool = False  # past its first token: writing what is not shown as it comes (a tool call)


@dataclass(frozen=True, kw_only=True)
class ToolCallStarted:
    kind: Literal["tool_call_started"] = "tool_call_started"
    t: float
    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    turn: int


@dataclass(frozen=True, kw_only=True)
class ToolRetry:
    kind: Literal["tool_retry"] = "tool_retry"
    t: float
    call_id: str
    tool: str
    attempt: int  # the attempt that failed (1-based)
    delay_s: float
    reason: str


@dataclass(frozen=True, kw_only=True)
class ToolCallFinished:
    kind: Literal["tool_call_finished"] = "tool_call_finished"
    t: float
    call_id: str
    tool: str
    turn: int
    ok: bool
    preview: str  # the observation as JSON text (cut for display)
    duration_s: float
    http_requests: int = 0
    attempts: int = 1
    from_cache: bool = False  # served by the HTTP cache (304/fresh) or the run's memo
    memo: bool = False  # an identical call earlier in this run answered it
    stale: bool = False  # breaker open / retries exhausted: last good cached answer served
    stale_age_s: float | None = None
    degraded: bool = False  # no data: a structured degraded result was returned
    error: str | None = None
    cause: str | None = None  # why it failed, as a key (agent_core.diagnosis.CAUSES), when known
    tree: TreeSummary | None = None  # a get_file_tree result's shape (None: another tool, or an old trace)
    shape: ResultShape | None = None  # any other result's (None: a tree, a failure, or an old trace)


@dataclass(frozen=True, kw_only=True)
class BreakerChanged:
    kind: Literal["breaker_changed"] = "breaker_changed"
    t: float
    breaker: str  # the name for people ("github:read_file"); consumers read the parts below
    old: str
    new: str
    reason: str
    failures: int = 0
    retry_after_s: float = 0.0
    source: str = ""  # "github", "local", "model" ("" in a trace recorded before the parts were carried)
    subject: str = ""  # the tool or the model endpoint ("" for the source as a whole)


@dataclass(frozen=True, kw_only=True)
class RateLimitUpdated:
    kind: Literal["rate_limit"] = "rate_limit"
    t: float
    limit: int
    remaining: int
    reset_at: float  # UTC epoch seconds
    resource: str
    authenticated: bool


@dataclass(frozen=True, kw_only=True)
class Notice:
    """Something a person watching should know (a limit reached, a protocol switch, a fallback).
    ``said``: the message as data, when the app's words say it (each consumer in its language)."""

    kind: Literal["notice"] = "notice"
    t: float
    level: Literal["info", "warning"]
    message: str
    said: tuple[Said, ...] = ()


Verdict = Literal["verified", "contradicted", "unchecked"]


@dataclass(frozen=True, kw_only=True)
class CheckedClaim:
    """One checkable claim of a report, held against the observations by the app (never by the model)."""

    kind: str  # number, license, language, date, version, dependency, path, link, activity, person
    claim: str  # the report's own words (cut), untrusted text
    verdict: Verdict
    observed: str | None = None  # what the observations show (for a link: its permalink), in English
    observed_said: tuple[Said, ...] = ()  # the same as data, when the app's words say it (else: observed)
    claim_said: Said | None = None  # how the app names a claim it labels ("last push: …"; else: claim)
    repo: str | None = None
    start: int = -1  # where the claim stands in the report (character offsets; -1: nowhere in particular)
    end: int = -1


@dataclass(frozen=True, kw_only=True)
class KeyFact:
    """A fact the app shows from the observations, whatever the report says (stars, license...)."""

    repo: str
    label: str  # stars, forks, open_issues, license, language, default_branch, last_commit
    value: str


@dataclass(frozen=True, kw_only=True)
class ClaimsChecked:
    """The claim check of the run's report, and the key facts, just before ``run_finished``."""

    kind: Literal["claims_checked"] = "claims_checked"
    t: float
    claims: tuple[CheckedClaim, ...] = ()
    key_facts: tuple[KeyFact, ...] = ()
    verified: int = 0
    contradicted: int = 0
    unchecked: int = 0


DraftOutcome = Literal["revise", "read_first", "accepted", "trimmed", "replaced"]


@dataclass(frozen=True, kw_only=True)
class DraftReviewed:
    """The app's judgement of a model's draft report before anyone sees it as the report
    (:mod:`agent_core.agent.draft_review`): sent back once to ``revise`` it (``findings``: its ✗ claims,
    given to the model) or to ``read_first`` (no read of its own), ``accepted`` after a revision
    (``corrected``: the earlier draft's ✗ claims this one no longer makes), ``trimmed`` (taken without a
    revision; ``set_aside``: a local model's sentences left out, :mod:`agent_core.agent.set_aside`, after a
    revision too), or ``replaced`` by the deterministic writer's report (``kept``: the model's grounded sentences quoted in it). ``problems``:
    tool_call, echo, repeated_block, from_memory, no_reads, contradicted, missing_paths."""

    kind: Literal["draft_reviewed"] = "draft_reviewed"
    t: float
    turn: int  # the turn that wrote the draft
    outcome: DraftOutcome
    problems: tuple[str, ...] = ()
    findings: tuple[CheckedClaim, ...] = ()
    corrected: tuple[CheckedClaim, ...] = ()
    kept: int = 0
    set_aside: tuple[CheckedClaim, ...] = ()  # a local model's sentences the check cannot stand behind


@dataclass(frozen=True, kw_only=True)
class Component:
    """A box of the architecture diagram: a folder or file of the analysed tree and what it is for."""

    name: str
    path: str  # a folder or file that exists in the analysed tree
    role: str


@dataclass(frozen=True, kw_only=True)
class Relation:
    """An arrow of the architecture diagram, between two components named by their paths."""

    source: str
    target: str
    label: str = ""


@dataclass(frozen=True, kw_only=True)
class DiagramDrawn:
    """The architecture diagram of one repository, as validated data (never as Mermaid text): every
    component's path is in the tree. ``source``: "model" (its proposal, checked) or "tree" (built by the
    app from the tree and the imports of the files read). ``attempts`` model calls were made (0: none),
    ``dropped`` are the proposed paths that are not in the tree, ``note`` says why the model's proposal
    was not used; the tokens are the proposal's (already in the run's stats)."""

    kind: Literal["diagram"] = "diagram"
    t: float
    repo: str
    source: Literal["model", "tree"]
    components: tuple[Component, ...] = ()
    relations: tuple[Relation, ...] = ()
    commit: str | None = None  # the analysed commit: components link to tree/<commit>/<path>
    link_base: str | None = None  # https://github.com/OWNER/REPO, None for a local repository
    root: str = ""  # a scoped run's folder: component paths are relative to it
    attempts: int = 0
    dropped: tuple[str, ...] = ()
    note: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    language: Literal["en", "zh"] = "en"  # the report's, which names and roles are in


@dataclass(frozen=True, kw_only=True)
class Diagnosis:
    """Why a run failed or lost data: a cause key (:data:`agent_core.diagnosis.CAUSES`), the service it
    concerns, its host and, for rate limits, when the limit resets (UTC epoch seconds).
    :func:`agent_core.diagnosis.explain` says it in words, with the next step."""

    cause: str
    source: Literal["github", "local", "model"]
    host: str | None = None
    reset_at: float | None = None
    repo: str | None = None  # owner/name, when the failure concerns one repository


@dataclass(frozen=True, kw_only=True)
class RunFinished:
    kind: Literal["run_finished"] = "run_finished"
    t: float
    report: str
    degraded: bool
    degraded_reasons: tuple[str, ...] = ()
    writer: Literal["model", "planner", "fallback"] = "model"
    stats: RunStats = field(default_factory=RunStats)
    diagnosis: Diagnosis | None = None  # the failure behind ``degraded`` (a model that failed, GitHub...)


@dataclass(frozen=True, kw_only=True)
class RunFailed:
    kind: Literal["run_failed"] = "run_failed"
    t: float
    message: str
    hint: str | None = None
    diagnosis: Diagnosis | None = None  # the cause in a form every consumer can say in its language


Event: TypeAlias = (
    RunStarted
    | TurnStarted
    | ReasoningDelta
    | TextDelta
    | TurnFinished
    | TurnProgress
    | ToolCallStarted
    | ToolRetry
    | ToolCallFinished
    | BreakerChanged
    | RateLimitUpdated
    | Notice
    | ClaimsChecked
    | DraftReviewed
    | DiagramDrawn
    | RunFinished
    | RunFailed
)

EVENT_TYPES: Mapping[str, type[Event]] = {cls.kind: cls for cls in get_args(Event)}
