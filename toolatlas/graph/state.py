"""The in-memory graph of one server during a build: what the inducer merges into and the
proposer reads. One writer per server (the inducer), so no locking."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import Field

from toolatlas.graph.families import SCHEMA_SUMMARY
from toolatlas.graph.lexicon import Lexicon
from toolatlas.graph.models import Entry, EntryKind, EntryStatus, ServerNode, StrategyNode, ToolNode, TraceNode
from toolatlas.models import Frozen, ToolSpec, utcnow

__all__ = ["RoundCoverage", "ServerGraph", "argument_keys"]


def argument_keys(spec: ToolSpec) -> list[str]:
    """Every schema property of a tool, plus ``prop=member`` for enum members and booleans."""
    keys: list[str] = []
    for name, schema in spec.properties.items():
        keys.append(name)
        schema = schema if isinstance(schema, dict) else {}
        for member in schema.get("enum", []) or []:
            keys.append(f"{name}={member}")
        if schema.get("type") == "boolean":
            keys.extend([f"{name}=true", f"{name}=false"])
    return keys


class RoundCoverage(Frozen):
    """The coverage report of one server after one round."""

    server: str
    round: int
    stage: str = "offline"
    """``offline`` (probes from the offline engine), ``bootstrap`` or ``exploration`` (the LLM method's
    agent rollouts: then ``probes`` counts rollouts and ``resolved`` those the task verifier passed)."""
    probes: int = 0
    resolved: int = 0
    tasks: int = 0
    """LLM rounds: tasks kept (vetted, and chain tasks replayed) and run."""
    tasks_rejected: int = 0
    """LLM rounds: proposed tasks dropped (vacuous or crashing verifier, names a tool, failed replay…)."""
    llm_tokens: int = 0
    """LLM rounds: prompt + completion tokens this round spent (every role)."""
    tools: int = 0
    tools_with_affordance: int = 0
    tools_with_boundary: int = 0
    argument_coverage: float = 0.0
    """Share of all schema properties and enum members some verified call has exercised."""
    co_usage_pairs: int = 0
    boundary_families: int = 0
    """Distinct (tool, triggering condition kind) pairs verified to fail: breadth of boundary knowledge."""
    covered_keys: int = 0
    """Distinct exploration keys exercised so far (arguments, mutations, compositions, replays)."""
    entries: int = 0
    new_entries: int = 0
    reinforced_entries: int = 0
    traces: int = 0
    strategies: int = 0
    outcome_mix: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    status: str = "ok"
    detail: str = ""


class ServerGraph:
    """Tool nodes, entries, traces and strategies of one server, plus the counts behind edge weights."""

    def __init__(self, server: str, tools: Iterable[ToolSpec]) -> None:
        self.server = server
        self.specs: dict[str, ToolSpec] = {t.name: t for t in tools}
        self.tools: dict[str, ToolNode] = {
            t.name: ToolNode(
                id=ToolNode.make_id(server, t.name, t.schema_hash),
                server=server,
                tool=t.name,
                schema_hash=t.schema_hash,
                description=t.description,
                input_schema=t.input_schema,
                output_schema=t.output_schema,
                annotations=t.annotations,
                arguments_total=argument_keys(t),
            )
            for t in self.specs.values()
        }
        self.entries: dict[str, Entry] = {}
        self.traces: dict[str, TraceNode] = {}
        self.strategies: dict[str, StrategyNode] = {}
        self.transition_opportunities: Counter[str] = Counter()
        self.covered: set[str] = set()
        """Coverage keys some probe has exercised (``tool:prop``, ``tool:mutation:arg``, ``pair:a>b``...)."""
        self.references: dict[str, frozenset[str]] = {}
        """Per tool, the arguments that name objects of the state (paths, branches, entities, tables…):
        the only ones a served condition speaks of. A tool not listed: every argument."""
        self.dirty: set[tuple[str, str]] = {("tools", node.id) for node in self.tools.values()}
        """(layer, id) records changed since the last persist: at first every tool node, so that a tool
        no probe has reached yet (or ever reaches) is in the atlas all the same."""
        self._stale_out: list[Entry | ToolNode] = []
        """Records of an outdated interface or of a tool that is gone, marked on load: persisted once,
        not kept in the graph."""
        self.node: ServerNode | None = None
        """The server itself: the fingerprint of the build of its knowledge."""
        self.lexicon = Lexicon()
        """The words its answers said (kept on :attr:`node` when the graph is persisted)."""

    # -- reading ----------------------------------------------------------------------------

    def entries_of(
        self, tool: str, kind: EntryKind | None = None, *, active_only: bool = True, served: bool = False
    ) -> list[Entry]:
        """A tool's entries as the build works with them: active ones, schema-only boundaries one by one
        (summarised, they are still what exploration knows) and not their summary. ``served``: what the
        atlas serves instead (active entries: the summary, not its members); ``active_only=False``: all."""
        node = self.tools.get(tool)
        if node is None:
            return []
        ids = {
            EntryKind.AFFORDANCE: node.affordances,
            EntryKind.BOUNDARY: node.boundaries,
            EntryKind.CO_USAGE: node.co_usage,
        }
        kinds = [kind] if kind else list(EntryKind)
        found = [self.entries[i] for k in kinds for i in ids[k] if i in self.entries]
        if not active_only:
            return found
        if served:
            return [e for e in found if e.status is EntryStatus.ACTIVE]
        return [e for e in found if (e.status is EntryStatus.ACTIVE and e.family != SCHEMA_SUMMARY)
                or e.status is EntryStatus.SUMMARISED]

    def coverage(self, round_: int) -> RoundCoverage:
        nodes = list(self.tools.values())
        total = sum(len(n.arguments_total) for n in nodes)
        exercised = sum(len(n.arguments_exercised) for n in nodes)
        pairs = {(e.tool, e.peer) for e in self.entries.values() if e.kind is EntryKind.CO_USAGE}
        return RoundCoverage(
            server=self.server,
            round=round_,
            tools=len(nodes),
            tools_with_affordance=sum(1 for n in nodes if n.affordances),
            tools_with_boundary=sum(1 for n in nodes if n.boundaries),
            argument_coverage=round(exercised / total, 4) if total else 1.0,
            co_usage_pairs=len(pairs),
            boundary_families=len(
                {(e.tool, e.error_signature) for e in self.entries.values() if e.kind is EntryKind.BOUNDARY}
            ),
            covered_keys=len(self.covered),
            entries=len(self.entries),
            traces=len(self.traces),
            strategies=len(self.strategies),
        )

    # -- writing (inducer only) ---------------------------------------------------------------

    def put_entry(self, entry: Entry) -> None:
        self.entries[entry.id] = entry
        node = self.tools[entry.tool]
        field = {EntryKind.AFFORDANCE: "affordances", EntryKind.BOUNDARY: "boundaries", EntryKind.CO_USAGE: "co_usage"}[
            entry.kind
        ]
        ids = getattr(node, field)
        if entry.id not in ids:
            self.put_tool(node.model_copy(update={field: [*ids, entry.id]}))
        self.dirty.add(("entries", entry.id))

    def put_server(self, node: ServerNode) -> None:
        self.node = node
        self.dirty.add(("servers", node.id))

    def put_tool(self, node: ToolNode) -> None:
        self.tools[node.tool] = node
        self.dirty.add(("tools", node.id))

    def put_trace(self, trace: TraceNode) -> None:
        self.traces[trace.id] = trace
        self.dirty.add(("traces", trace.id))

    def put_strategy(self, strategy: StrategyNode) -> None:
        self.strategies[strategy.id] = strategy
        self.dirty.add(("strategies", strategy.id))

    def load(self, records: dict[str, list]) -> int:
        """Start from what a previous build stored for this server; returns how many entries it set aside.

        Records of a tool whose interface (schema hash) changed since are kept but marked ``stale``:
        they describe a tool that no longer exists in that form; those of a tool the server no longer
        lists are marked ``retired``. So are affordances stored one per effect
        (``uses:<shape>|<effect>``) marked stale: a use is one entry whose effects carry their
        conditions, and the build re-observes it as such.
        """
        for server in records.get("servers", []):
            self.lexicon.update(dict.fromkeys(server.lexicon, 1))
        live = {node.id for node in self.tools.values()}
        for node in records.get("tools", []):
            if node.id in live:
                self.tools[node.tool] = node.model_copy(update={"description": self.specs[node.tool].description})
                self.covered.update(node.covered)
                self.transition_opportunities[node.tool] = node.transitions_out
            elif node.status is EntryStatus.ACTIVE:
                status, _reason = self._outdated(node.tool)
                self._stale_out.append(node.model_copy(update={"status": status}))
        current = {(n.tool, n.schema_hash) for n in self.tools.values()}
        stale = 0
        for entry in records.get("entries", []):
            superseded = entry.kind is EntryKind.AFFORDANCE and entry.signature.startswith("uses:") and "|" in entry.signature
            if superseded and entry.status is EntryStatus.ACTIVE:  # one entry per effect: now one per use
                entry = self._set_aside(entry, EntryStatus.STALE, "stored one per effect; the build keeps one per use")
                stale += 1
            if (entry.tool, entry.schema_hash) not in current and entry.status is EntryStatus.ACTIVE:
                entry = self._set_aside(entry, *self._outdated(entry.tool))
                stale += 1
            if (entry.tool, entry.schema_hash) in current:
                self.entries[entry.id] = entry
            elif ("entries", entry.id) in self.dirty:
                self._stale_out.append(entry)
        for trace in records.get("traces", []):
            self.traces[trace.id] = trace
        for strategy in records.get("strategies", []):
            self.strategies[strategy.id] = strategy
        return stale

    def _outdated(self, tool: str) -> tuple[EntryStatus, str]:
        """The status of a stored record whose tool is not live in that form, and why."""
        if tool in self.specs:
            return EntryStatus.STALE, "the tool's interface (its schema) changed"
        return EntryStatus.RETIRED, "the server no longer lists the tool"

    def _set_aside(self, entry: Entry, status: EntryStatus, reason: str) -> Entry:
        self.dirty.add(("entries", entry.id))
        return entry.model_copy(update={"status": status, "status_reason": reason, "status_changed": utcnow()})

    def take_dirty(self) -> dict[str, list]:
        """The records changed since the last call, by layer (and forget them)."""
        for node in list(self.tools.values()):
            covered = sorted(k for k in self.covered if k.startswith(f"{node.tool}:"))
            opportunities = self.transition_opportunities[node.tool]
            if covered != node.covered or opportunities != node.transitions_out:
                self.put_tool(node.model_copy(update={"covered": covered, "transitions_out": opportunities}))
        if self.node is not None and self.node.lexicon != (words := self.lexicon.words()):
            self.put_server(self.node.model_copy(update={"lexicon": words}))
        layers: dict[str, list] = {"servers": [], "tools": [], "entries": [], "traces": [], "strategies": []}
        by_id: dict[str, dict[str, Any]] = {
            "servers": {self.node.id: self.node} if self.node is not None else {},
            "tools": {n.id: n for n in self.tools.values()},
            "entries": self.entries,
            "traces": self.traces,
            "strategies": self.strategies,
        }
        for layer, record_id in sorted(self.dirty):
            record = by_id[layer].get(record_id)
            if record is not None:
                layers[layer].append(record)
        for record in self._stale_out:
            layers["tools" if isinstance(record, ToolNode) else "entries"].append(record)
        self._stale_out = []
        self.dirty.clear()
        return layers
