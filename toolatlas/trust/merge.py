"""Atlases of the same servers from several builders, merged field by field (``toolatlas merge``).

Typed artifacts merge per field, with disagreements kept as a typed conflict log rather than voted
away (the typed federated artifacts of ``papers/001``). Each input is first checked like any loaded
export (:mod:`.integrity`: what its evidence does not support is quarantined), then:

- **the same entry** (same content-derived id) from several builders is one entry: support,
  contradictions and transitions add up, evidence is pooled (the first and the latest items kept),
  first/last verification span all of them, confidence is the support-weighted mean; the
  **provenance** records the support each builder contributed;
- a **claim field** the builders state differently (condition, error signature, outcome, effect,
  determinism, idempotence, peer, relation) is a ``field`` conflict — but for a summary entry, whose
  condition and error shape aggregate the examples each builder tried; one builder serving an entry
  that another set aside (stale, contradicted, retired, quarantined) is a ``status`` conflict; a name
  a build made up for its probes (``first_bf4a``) is no claim: conditions that differ only by such names
  agree;
- **the same call** an affordance of one builder shows working and a boundary of another shows
  failing is an ``outcome`` conflict on both entries;
- a tool seen at **different interfaces** (schema hashes) is a ``schema`` conflict on its entries,
  a server built from **different releases, set-ups or snapshots** a ``fingerprint`` conflict (builds
  of one server with another seed or method differ in how they probed, not in what);
- traces and strategies of the same id add their runs and support; coverage rows are kept.

Nothing is dropped: every input entry is in the output (count them). An entry with an open conflict
is not served from the merged atlas unless asked for (``guide --with-conflicts``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from toolatlas.export import AtlasExport, Conflict, MergeLog, ServerExport, ToolExport
from toolatlas.graph.families import OR_WHEN
from toolatlas.graph.models import MAX_EVIDENCE, Entry, EntryKind, EntryStatus, StrategyNode, TraceNode
from toolatlas.models import canonical_json, utcnow
from toolatlas.probing.text import run_specific_masked
from toolatlas.trust.integrity import admit

__all__ = ["CLAIM_FIELDS", "merge_atlases"]

CLAIM_FIELDS = ("condition", "error_signature", "outcome", "effect", "deterministic", "idempotent",
                "reported_as_success", "peer", "relation")
"""Fields of an entry that state what is true: builders that disagree on one have a conflict."""

_SERVER_PARTS = ("runtime", "transport", "snapshot", "tools")
"""The parts of a fingerprint that say which server was probed (the others say how: version, method)."""
_AGGREGATES = frozenset({"condition", "error_signature"})
"""Fields a summary entry aggregates over its members (examples tried, a shape): not claims to compare."""

_KINDS = {EntryKind.AFFORDANCE: "affordances", EntryKind.BOUNDARY: "boundaries", EntryKind.CO_USAGE: "co_usage"}


def merge_atlases(inputs: Sequence[tuple[str, AtlasExport]]) -> AtlasExport:
    """Merge ``(builder, export)`` pairs into one export with its :class:`MergeLog`."""
    if len({builder for builder, _ in inputs}) != len(inputs):
        raise ValueError("every builder of a merge needs a name of its own")
    admitted = [(builder, admit(export)[0]) for builder, export in inputs]
    conflicts: list[Conflict] = []
    provenance: dict[str, dict[str, int]] = defaultdict(dict)
    servers = []
    for name in sorted({server.name for _b, export in admitted for server in export.servers}):
        held = [(builder, server) for builder, export in admitted for server in export.servers if server.name == name]
        servers.append(_merge_server(name, held, conflicts, provenance))
    entries_in = sum(len(_entries(tool)) for _b, export in admitted for server in export.servers for tool in server.tools)
    first = admitted[0][1]
    return AtlasExport(
        catalogue=first.catalogue,
        generated_at=utcnow(),
        servers=servers,
        traces=_merge_traces([t for _b, export in admitted for t in export.traces]),
        strategies=_merge_strategies([s for _b, export in admitted for s in export.strategies]),
        coverage=[row for _b, export in admitted for row in export.coverage],
        merge=MergeLog(builders=[builder for builder, _ in admitted], provenance=dict(provenance),
                       conflicts=conflicts, entries_in=entries_in),
    )


def _entries(tool: ToolExport) -> list[Entry]:
    return [*tool.affordances, *tool.boundaries, *tool.co_usage]


def _merge_server(name: str, held: list[tuple[str, ServerExport]], conflicts: list[Conflict],
                  provenance: dict[str, dict[str, int]]) -> ServerExport:
    prints = {builder: server.fingerprint for builder, server in held if server.fingerprint is not None}
    servers = {builder: p.model_dump(mode="json", include=set(_SERVER_PARTS)) for builder, p in prints.items()}
    if len({canonical_json(p) for p in servers.values()}) > 1:  # another server, not another way to probe it
        conflicts.append(Conflict(kind="fingerprint", server=name, values=servers))
    versions: dict[tuple[str, str], list[tuple[str, ToolExport]]] = defaultdict(list)
    for builder, server in held:
        for tool in server.tools:
            versions[(tool.name, tool.schema_hash)].append((builder, tool))
    tools = [_merge_tool(name, copies, conflicts, provenance) for _key, copies in sorted(versions.items())]
    for tool_name in sorted({tool for tool, _h in versions}):
        hashes = {builder: schema for (tool, schema), copies in versions.items() if tool == tool_name
                  for builder, _t in copies}
        if len(set(hashes.values())) > 1:
            concerned = [e.id for tool in tools if tool.name == tool_name for e in _entries(tool)]
            conflicts.append(Conflict(kind="schema", server=name, tool=tool_name, entries=concerned, values=hashes))
    _outcome_conflicts(name, tools, conflicts, provenance)
    statuses = {server.status for _b, server in held}
    return ServerExport(
        name=name,
        status="ok" if statuses == {"ok"} else "failed",
        fingerprint=next(iter(prints.values()), None),
        built_at=max((s.built_at for _b, s in held if s.built_at), default=None),
        verified_at=max((s.verified_at for _b, s in held if s.verified_at), default=None),
        description=next((s.description for _b, s in held if s.description), ""),
        instructions=next((s.instructions for _b, s in held if s.instructions), ""),
        lexicon=sorted({word for _b, s in held for word in s.lexicon}),
        tools=tools,
    )


def _merge_tool(server: str, copies: list[tuple[str, ToolExport]], conflicts: list[Conflict],
                provenance: dict[str, dict[str, int]]) -> ToolExport:
    first = copies[0][1]
    exercised = sorted({a for _b, t in copies for a in t.arguments_exercised})
    total = sorted({a for _b, t in copies for a in t.arguments_total})
    outcomes: dict[str, int] = defaultdict(int)
    neighbours: dict[str, float] = {}
    for _b, tool in copies:
        for key, count in tool.outcomes.items():
            outcomes[key] += count
        for peer, weight in tool.neighbours.items():
            neighbours[peer] = max(neighbours.get(peer, 0.0), weight)
    by_id: dict[str, list[tuple[str, Entry]]] = defaultdict(list)
    for builder, tool in copies:
        for entry in _entries(tool):
            by_id[entry.id].append((builder, entry))
    merged: dict[EntryKind, list[Entry]] = {kind: [] for kind in EntryKind}
    for entry_id, held in by_id.items():
        entry = _merge_entry(held)
        merged[entry.kind].append(entry)
        provenance[entry_id] = {builder: e.support for builder, e in held}
        conflicts.extend(_field_conflicts(server, held))
    return first.model_copy(update={
        "probes": sum(t.probes for _b, t in copies),
        "outcomes": dict(outcomes),
        "arguments_exercised": exercised,
        "arguments_total": total,
        "argument_coverage": round(len(exercised) / len(total), 4) if total else 1.0,
        "neighbours": neighbours,
        **{_KINDS[kind]: sorted(entries, key=lambda e: (-e.support, e.text)) for kind, entries in merged.items()},
    })


def _merge_entry(held: list[tuple[str, Entry]]) -> Entry:
    entries = [entry for _b, entry in held]
    first = entries[0]
    if len(entries) == 1:
        return first
    support = sum(e.support for e in entries)
    evidence, seen = [], set()
    for item in (item for e in entries for item in e.evidence):
        key = (item.probe_id, item.step)
        if key not in seen:
            seen.add(key)
            evidence.append(item)
    if len(evidence) > MAX_EVIDENCE:  # the first ones that verified it, then the latest
        evidence = [*evidence[: MAX_EVIDENCE - 1], evidence[-1]]
    statuses = {e.status for e in entries}
    return first.model_copy(update={
        "support": support,
        "contradictions": sum(e.contradictions for e in entries),
        "transitions": sum(e.transitions for e in entries),
        "confidence": round(sum(e.confidence * e.support for e in entries) / support, 4) if support else first.confidence,
        "evidence": evidence,
        "probe_ids": sorted({p for e in entries for p in e.probe_ids}),
        "summarises": sorted({member for e in entries for member in e.summarises}),
        "first_verified": min(e.first_verified for e in entries),
        "last_verified": max(e.last_verified for e in entries),
        # served only when a builder serves it; a builder that set it aside makes a status conflict
        "status": EntryStatus.ACTIVE if EntryStatus.ACTIVE in statuses else first.status,
    })


def _field_conflicts(server: str, held: list[tuple[str, Entry]]) -> list[Conflict]:
    """Disagreements on an entry some builder serves (one nobody serves has nothing to withhold)."""
    if len(held) < 2 or all(entry.status is not EntryStatus.ACTIVE for _b, entry in held):
        return []
    first = held[0][1]
    found = []
    for field in CLAIM_FIELDS:
        if first.summarises and field in _AGGREGATES:
            continue
        values = {builder: _plain(getattr(entry, field)) for builder, entry in held}
        if field == "condition" and any(OR_WHEN in str(v) for v in values.values()):
            continue  # the misuses one answer met, in the order a build met them: a list, not a claim to compare
        if len({canonical_json(_seedless(v)) for v in values.values()}) > 1:
            found.append(Conflict(kind="field", server=server, tool=first.tool, entries=[first.id], field=field,
                                  values=values))
    statuses = {builder: entry.status.value for builder, entry in held}
    if len(set(statuses.values())) > 1 and "active" in statuses.values():
        found.append(Conflict(kind="status", server=server, tool=first.tool, entries=[first.id], field="status",
                              values=statuses))
    return found


def _seedless(value: Any) -> Any:
    """A claim as every seed states it: a condition that quotes a name one build made up (``first_bf4a``)
    says the same as another build's with its own (``first_76b2``)."""
    return run_specific_masked(value) if isinstance(value, str) else value


def _plain(value: Any) -> Any:
    return value.value if hasattr(value, "value") else value


def _outcome_conflicts(server: str, tools: list[ToolExport], conflicts: list[Conflict],
                       provenance: dict[str, dict[str, int]]) -> None:
    """The same call, under the same recorded condition, shown working by a served affordance and
    failing by a served boundary that other builders hold (a build that saw both itself has already
    weighed them against each other)."""
    for tool in tools:
        calls: dict[str, dict[EntryKind, list[str]]] = defaultdict(lambda: defaultdict(list))
        for entry in (*tool.affordances, *tool.boundaries):
            if entry.status is not EntryStatus.ACTIVE:
                continue
            for item in entry.evidence:
                if item.tool == tool.name:
                    key = canonical_json([item.arguments, item.prefix, item.condition])
                    calls[key][entry.kind].append(entry.id)
        for key, kinds in calls.items():
            works, fails = kinds.get(EntryKind.AFFORDANCE, []), kinds.get(EntryKind.BOUNDARY, [])
            builders = [{b for entry in ids for b in provenance.get(entry, {})} for ids in (works, fails)]
            if works and fails and len(builders[0] | builders[1]) > 1:
                conflicts.append(Conflict(kind="outcome", server=server, tool=tool.name,
                                          entries=sorted({*works, *fails}),
                                          values={"works": sorted(set(works)), "fails": sorted(set(fails)),
                                                  "call": key}))


def _merge_traces(traces: list[TraceNode]) -> list[TraceNode]:
    merged: dict[str, TraceNode] = {}
    for trace in traces:
        kept = merged.get(trace.id)
        merged[trace.id] = trace if kept is None else kept.model_copy(update={
            "runs": kept.runs + trace.runs, "resolved": kept.resolved + trace.resolved,
            "failed": kept.failed + trace.failed, "tips": list(dict.fromkeys([*kept.tips, *trace.tips])),
            "probe_ids": sorted({*kept.probe_ids, *trace.probe_ids}),
        })
    return sorted(merged.values(), key=lambda t: (t.server, t.task, t.id))


def _merge_strategies(strategies: list[StrategyNode]) -> list[StrategyNode]:
    merged: dict[str, StrategyNode] = {}
    for strategy in strategies:
        kept = merged.get(strategy.id)
        merged[strategy.id] = strategy if kept is None else kept.model_copy(update={
            "support": kept.support + strategy.support, "traces": sorted({*kept.traces, *strategy.traces}),
        })
    return sorted(merged.values(), key=lambda s: (s.server, -s.support, s.title))
