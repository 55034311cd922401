"""The atlas graph as typed models: tool nodes with affordance, boundary and co-usage entries,
trace nodes, and strategy nodes (DESIGN §2).

Ids are content-derived (:func:`toolatlas.models.stable_id`), so a second build of the same catalogue upserts the
same records and adds support instead of duplicating them. Every entry keeps the verbatim
evidence that verified it.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from toolatlas.models import Effect, Frozen, OutcomeClass, ToolAnnotations, stable_id, utcnow

__all__ = [
    "MAX_EVIDENCE",
    "CoUsageRelation",
    "EffectObservation",
    "Entry",
    "EntryKind",
    "EntryStatus",
    "Evidence",
    "Fingerprint",
    "ServerNode",
    "StrategyNode",
    "ToolNode",
    "TraceNode",
    "TraceStep",
    "confidence",
]

MAX_EVIDENCE = 5
"""Evidence items kept verbatim per entry (the first ones that verified it, then the latest)."""


class EntryKind(StrEnum):
    AFFORDANCE = "affordance"
    BOUNDARY = "boundary"
    CO_USAGE = "co_usage"


class EntryStatus(StrEnum):
    """Where a record stands; only ``active`` is ever served."""

    ACTIVE = "active"
    """Verified, and its evidence replayed the last time it was checked."""
    STALE = "stale"
    """Its tool's interface changed since it was verified, or later observations of the build outweigh it."""
    SUMMARISED = "summarised"
    """Kept as evidence of a summary entry that is served in its place (see :attr:`Entry.summarises`)."""
    CONTRADICTED = "contradicted"
    """A replay of its evidence (``toolatlas verify``) showed something else; the new observation is kept."""
    RETIRED = "retired"
    """Its tool is gone from the server."""
    QUARANTINED = "quarantined"
    """It failed an integrity check (:mod:`toolatlas.trust.integrity`)."""


class CoUsageRelation(StrEnum):
    DATA = "data"
    """A value in one tool's output is used as another tool's input."""
    STATE = "state"
    """A mutation made by one tool is observed by another."""
    RETRY = "retry"
    """A failed call is followed by a corrected call that succeeds."""


class EffectObservation(Frozen):
    """One effect a use of a tool had, under the pre-state condition it was observed in."""

    effect: Effect
    condition: str = ""
    """What the arguments named in the state before the call (:mod:`toolatlas.probing.conditions`);
    "" when nothing is known (a stateless environment)."""
    change: str = ""
    """What the call changed, in the first observation of this effect under this condition."""
    support: int = 1


class Evidence(Frozen):
    """One verified observation behind an entry: the call as made and what came back."""

    probe_id: str
    step: int = 0
    """Position of the call in its probe (0: called on the snapshot as it is)."""
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    outcome: OutcomeClass
    excerpt: str = ""
    state_change: str = ""
    condition: str = ""
    """The pre-state condition the call was made under."""
    prefix: list[dict[str, Any]] = Field(default_factory=list)
    """The calls made before this one in its probe (``{"tool", "arguments"}``, and the ``marker`` a write left
    and the steps a read ``observes`` or ``loses``, where set): what a replay repeats first."""
    marker: str | None = None
    """A distinctive value this call wrote, which the reads in :attr:`after` looked for."""
    after: list[dict[str, Any]] = Field(default_factory=list)
    """The reads after this call that showed what it did (as :attr:`prefix` keeps calls; step indices of its
    probe): a write that replaced an earlier one is proven only by them, so a replay makes them too."""
    round: int = 0


class Entry(Frozen):
    """One item of a tool node's affordance, boundary or co-usage set."""

    id: str
    kind: EntryKind
    server: str
    tool: str
    schema_hash: str
    signature: str
    """What makes two findings the same entry (normalised error, argument shape, peer + relation)."""
    text: str
    """One human sentence: what a maintainer would write in the tool's docs."""
    when: str | None = None
    when_not: str | None = None
    condition: str | None = None
    error_signature: str | None = None
    example_arguments: dict[str, Any] | None = None
    outcome: OutcomeClass | None = None
    effect: Effect | None = None
    """Affordances: the effect of every observation, or ``mutating`` when some observations changed
    state and others did not (then :attr:`effects` says under which conditions)."""
    effects: list[EffectObservation] = Field(default_factory=list)
    """Affordances: each effect observed with its pre-state condition (most supported first)."""
    summarises: list[str] = Field(default_factory=list)
    """A summary entry: the ids of the entries it stands for (kept in the atlas, not served)."""
    deterministic: bool | None = None
    idempotent: bool | None = None
    reported_as_success: bool = False
    """A boundary the server reports with ``isError: false`` (the error is only in the text)."""
    family: str | None = None
    """The family of the mutation that provoked the finding (``wrong_type``, ``path_escape``…; see
    :mod:`toolatlas.graph.families`); None for a call nobody broke on purpose."""
    peer: str | None = None
    relation: CoUsageRelation | None = None
    transitions: int = 0
    """Co-usage: witnessed transitions tool → peer of this relation (N_ij)."""
    weight: float | None = None
    """Co-usage: N_ij / N_i over witnessed transitions from this tool."""
    arguments_exercised: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    probe_ids: list[str] = Field(default_factory=list)
    support: int = 1
    contradictions: int = 0
    confidence: float = 0.5
    round_found: int = 0
    first_verified: datetime = Field(default_factory=utcnow)
    last_verified: datetime = Field(default_factory=utcnow)
    status: EntryStatus = EntryStatus.ACTIVE
    status_reason: str = ""
    """Why the status is what it is, when something other than a build set it (a refresh, a replay)."""
    status_changed: datetime | None = None
    """When :attr:`status` was last set by a refresh or a replay (None: as the build left it)."""

    @staticmethod
    def make_id(server: str, tool: str, schema_hash: str, kind: EntryKind, signature: str) -> str:
        return stable_id("entry", server, tool, schema_hash, kind.value, signature)


class ToolNode(Frozen):
    """A tool of one server at one interface version, with its entry sets and statistics."""

    id: str
    server: str
    tool: str
    schema_hash: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations = ToolAnnotations()
    affordances: list[str] = Field(default_factory=list)
    boundaries: list[str] = Field(default_factory=list)
    co_usage: list[str] = Field(default_factory=list)
    neighbours: dict[str, float] = Field(default_factory=dict)
    """Peer tool → strongest co-usage weight (adjacency of the capability graph)."""
    traces: list[str] = Field(default_factory=list)
    probes: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)
    arguments_exercised: list[str] = Field(default_factory=list)
    """Schema properties (and ``prop=enum member``) some verified call has used."""
    arguments_total: list[str] = Field(default_factory=list)
    covered: list[str] = Field(default_factory=list)
    """Exploration coverage keys of this tool (arguments, mutations, compositions tried)."""
    transitions_out: int = 0
    """N_i: witnessed opportunities for a transition from this tool (the co-usage weight denominator)."""
    status: EntryStatus = EntryStatus.ACTIVE

    @staticmethod
    def make_id(server: str, tool: str, schema_hash: str) -> str:
        return stable_id("tool", server, tool, schema_hash)

    @property
    def argument_coverage(self) -> float:
        return len(self.arguments_exercised) / len(self.arguments_total) if self.arguments_total else 1.0


class TraceStep(Frozen):
    tool: str
    rationale: str


class TraceNode(Frozen):
    """An agent-neutral trace: a task, the (tool, rationale) steps that solve it, and tips."""

    id: str
    server: str
    task: str
    steps: list[TraceStep]
    tips: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    runs: int = 0
    resolved: int = 0
    failed: int = 0
    similar: dict[str, float] = Field(default_factory=dict)
    """Semantic edges: similar trace id → similarity."""
    strategies: list[str] = Field(default_factory=list)
    probe_ids: list[str] = Field(default_factory=list)
    round_found: int = 0
    last_verified: datetime = Field(default_factory=utcnow)
    status: EntryStatus = EntryStatus.ACTIVE

    @property
    def success_rate(self) -> float:
        return self.resolved / self.runs if self.runs else 0.0


class StrategyNode(Frozen):
    """A recurring orchestration principle distilled from several traces."""

    id: str
    server: str
    title: str
    when: str
    plan: list[str]
    pitfalls: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    traces: list[str] = Field(default_factory=list)
    support: int = 0
    round_found: int = 0
    last_verified: datetime = Field(default_factory=utcnow)
    status: EntryStatus = EntryStatus.ACTIVE


class Fingerprint(Frozen):
    """What identifies the build of a server's knowledge: when any part differs, some of what the atlas
    says of that server may no longer hold (:mod:`toolatlas.lifecycle.fingerprint` computes it)."""

    runtime: str
    """The installed server: ``npm <package>@<version>``, ``pypi <package>==<version> [+ requirements]``
    or ``command``."""
    transport: str
    """A digest of how the server is started (command, arguments, environment, limits, network)."""
    snapshot: str
    """The content hash of the environment's starting state ("" for a server without state)."""
    tools: dict[str, str]
    """Tool name → schema hash, as the server listed them."""
    toolatlas: str
    """The ToolAtlas version that built the knowledge."""
    method: str
    """A digest of the build settings (method knobs, budgets, seed)."""

    def changes(self, other: Fingerprint) -> list[str]:
        """What differs from ``other``, in words (empty when nothing does)."""
        found = [f"{name} {getattr(self, name)!r} → {getattr(other, name)!r}"
                 for name in ("runtime", "transport", "snapshot", "toolatlas", "method")
                 if getattr(self, name) != getattr(other, name)]
        for tool in sorted(set(self.tools) | set(other.tools)):
            before, after = self.tools.get(tool), other.tools.get(tool)
            if before is None:
                found.append(f"tool {tool} added")
            elif after is None:
                found.append(f"tool {tool} removed")
            elif before != after:
                found.append(f"tool {tool} changed its schema ({before} → {after})")
        return found


class ServerNode(Frozen):
    """One server of the atlas: the fingerprint of the build its knowledge comes from, and what routes a
    task to it besides its tools — what the catalogue and the server itself say it is for, and its lexicon."""

    id: str
    server: str
    fingerprint: Fingerprint
    built_at: datetime = Field(default_factory=utcnow)
    """When the knowledge was last built or refreshed."""
    verified_at: datetime | None = None
    """When ``toolatlas verify`` last replayed entries of this server."""
    description: str = ""
    """What the catalogue says the server is for."""
    instructions: str = ""
    """What the server says of itself when a client connects (the MCP ``instructions``)."""
    lexicon: list[str] = Field(default_factory=list)
    """The words its answers said during builds, beyond the evidence's excerpts (:mod:`toolatlas.graph.lexicon`):
    a routing aid, never served as a claim."""

    @staticmethod
    def make_id(server: str) -> str:
        return stable_id("server", server)


def confidence(support: int, contradictions: int = 0) -> float:
    """Laplace-smoothed share of confirmations: 1 observation → 0.67, 4 → 0.83, 20 → 0.95."""
    return round((support + 1) / (support + contradictions + 2), 3)
