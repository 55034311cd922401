"""The atlas as one versioned JSON document (``toolatlas export``).

Schema ``toolatlas.atlas/v1``: servers → tools → affordances / boundaries / co_usage, each entry
with its ``text``, typed fields and ``evidence`` [{arguments, outcome, excerpt}]; traces;
strategies; coverage per round. ``toolatlas export --schema`` prints the JSON Schema generated
from these models. Compatible additions keep ``v1``; anything that removes or changes a field
bumps the version.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from toolatlas.graph.models import (
    Entry,
    EntryKind,
    EntryStatus,
    Fingerprint,
    ServerNode,
    StrategyNode,
    ToolNode,
    TraceNode,
)
from toolatlas.graph.state import RoundCoverage
from toolatlas.models import Frozen, utcnow

__all__ = ["SCHEMA_VERSION", "AtlasExport", "Conflict", "MergeLog", "ServerExport", "ToolExport", "assemble"]

SCHEMA_VERSION = "toolatlas.atlas/v1"


class ToolExport(Frozen):
    """One tool with its three entry sets."""

    name: str
    schema_hash: str
    description: str = ""
    input_schema: dict = Field(default_factory=dict)
    annotations: dict = Field(default_factory=dict)
    probes: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)
    argument_coverage: float = 0.0
    arguments_exercised: list[str] = Field(default_factory=list)
    arguments_total: list[str] = Field(default_factory=list)
    neighbours: dict[str, float] = Field(default_factory=dict)
    affordances: list[Entry] = Field(default_factory=list)
    boundaries: list[Entry] = Field(default_factory=list)
    co_usage: list[Entry] = Field(default_factory=list)


class ServerExport(Frozen):
    name: str
    status: str = "ok"
    fingerprint: Fingerprint | None = None
    """What identifies the build of this server's knowledge (release, start-up, snapshot, tools, method)."""
    built_at: datetime | None = None
    verified_at: datetime | None = None
    """When ``toolatlas verify`` last replayed entries of this server."""
    description: str = ""
    """What the catalogue says the server is for."""
    instructions: str = ""
    """What the server says of itself when a client connects (the MCP ``instructions``)."""
    lexicon: list[str] = Field(default_factory=list)
    """The words its answers said during builds (a routing aid, :mod:`toolatlas.graph.lexicon`)."""
    tools: list[ToolExport] = Field(default_factory=list)

    def node(self) -> ServerNode | None:
        """The server's node as a store holds it (None without a fingerprint: nothing identifies its build)."""
        if self.fingerprint is None:
            return None
        return ServerNode(id=ServerNode.make_id(self.name), server=self.name, fingerprint=self.fingerprint,
                          built_at=self.built_at or utcnow(), verified_at=self.verified_at,
                          description=self.description, instructions=self.instructions, lexicon=self.lexicon)


class Conflict(Frozen):
    """One disagreement between the builders of a merged atlas, kept rather than resolved."""

    kind: str
    """``field`` (the same entry, a claim field differs), ``status`` (one builder serves it, another set
    it aside), ``outcome`` (the same call verified to work by one builder and to fail by another),
    ``schema`` (one tool at different interfaces) or ``fingerprint`` (a server built from different
    releases or set-ups)."""
    server: str
    tool: str | None = None
    entries: list[str] = Field(default_factory=list)
    """The entries the disagreement concerns: not served from a merged atlas unless asked for."""
    field: str | None = None
    values: dict[str, Any] = Field(default_factory=dict)
    """Builder → what it says."""


class MergeLog(Frozen):
    """How a merged atlas came to be: its builders, who contributed what, and where they disagree."""

    builders: list[str]
    provenance: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Entry id → builder → the support that builder contributed."""
    conflicts: list[Conflict] = Field(default_factory=list)
    entries_in: int = 0
    """Entries over all inputs (an entry several builders hold counts once per builder)."""

    @property
    def conflicted(self) -> set[str]:
        """Ids of the entries some conflict concerns."""
        return {entry for conflict in self.conflicts for entry in conflict.entries}


class AtlasExport(Frozen):
    """The whole atlas of a catalogue."""

    schema_version: str = Field(SCHEMA_VERSION, alias="schema")
    catalogue: str
    generated_at: datetime = Field(default_factory=utcnow)
    servers: list[ServerExport] = Field(default_factory=list)
    traces: list[TraceNode] = Field(default_factory=list)
    strategies: list[StrategyNode] = Field(default_factory=list)
    coverage: list[RoundCoverage] = Field(default_factory=list)
    signature: dict[str, str] | None = None
    """Set by ``export --sign``: algorithm, key fingerprint and value (:mod:`toolatlas.trust.signing`)."""
    merge: MergeLog | None = None
    """Set by ``toolatlas merge``: the builders, the provenance of each entry and the conflict log."""

    model_config = Frozen.model_config | {"populate_by_name": True}


def _order(entries: list[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (-e.support, e.text))


def assemble(
    catalogue: str,
    tools: list[ToolNode],
    entries: list[Entry],
    traces: list[TraceNode],
    strategies: list[StrategyNode],
    coverage: list[RoundCoverage],
    *,
    server_status: dict[str, str] | None = None,
    nodes: list[ServerNode] | None = None,
    everything: bool = True,
) -> AtlasExport:
    """Group flat graph records into the export document (servers and tools sorted by name).

    Without ``everything``, only what may be served travels: active entries (and the summarised
    ones standing behind an active summary), active tool nodes, traces and strategies."""
    if not everything:
        kept = (EntryStatus.ACTIVE, EntryStatus.SUMMARISED)
        entries = [e for e in entries if e.status in kept]
        tools = [t for t in tools if t.status is EntryStatus.ACTIVE]
        traces = [t for t in traces if t.status is EntryStatus.ACTIVE]
        strategies = [s for s in strategies if s.status is EntryStatus.ACTIVE]
    by_tool: dict[tuple[str, str, str], dict[EntryKind, list[Entry]]] = {}
    for entry in entries:
        by_tool.setdefault((entry.server, entry.tool, entry.schema_hash), {k: [] for k in EntryKind})[entry.kind].append(entry)
    servers: dict[str, list[ToolExport]] = {}
    for node in sorted(tools, key=lambda n: (n.server, n.tool)):
        found = by_tool.get((node.server, node.tool, node.schema_hash), {k: [] for k in EntryKind})
        servers.setdefault(node.server, []).append(
            ToolExport(
                name=node.tool,
                schema_hash=node.schema_hash,
                description=node.description,
                input_schema=node.input_schema,
                annotations=node.annotations.model_dump(exclude_none=True),
                probes=node.probes,
                outcomes=node.outcomes,
                argument_coverage=round(node.argument_coverage, 4),
                arguments_exercised=node.arguments_exercised,
                arguments_total=node.arguments_total,
                neighbours=node.neighbours,
                affordances=_order(found[EntryKind.AFFORDANCE]),
                boundaries=_order(found[EntryKind.BOUNDARY]),
                co_usage=_order(found[EntryKind.CO_USAGE]),
            )
        )
    status = server_status or {}
    node_of = {node.server: node for node in nodes or []}
    names = sorted(set(servers) | set(status))
    return AtlasExport(
        catalogue=catalogue,
        servers=[
            ServerExport(
                name=n, status=status.get(n, "ok"), tools=servers.get(n, []),
                fingerprint=node_of[n].fingerprint if n in node_of else None,
                built_at=node_of[n].built_at if n in node_of else None,
                verified_at=node_of[n].verified_at if n in node_of else None,
                description=node_of[n].description if n in node_of else "",
                instructions=node_of[n].instructions if n in node_of else "",
                lexicon=node_of[n].lexicon if n in node_of else [],
            )
            for n in names
        ],
        traces=sorted(traces, key=lambda t: (t.server, t.task, t.id)),
        strategies=sorted(strategies, key=lambda s: (s.server, -s.support, s.title)),
        coverage=sorted(coverage, key=lambda c: (c.server, c.round)),
    )
