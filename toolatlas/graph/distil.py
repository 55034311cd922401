"""Round-end distillation: strategy nodes from recurring compositions, semantic edges between traces.

A strategy is written only when a composition was witnessed at least ``min_support`` times; it
links the traces that show it and lists, as pitfalls, the best-supported boundaries of its tools.
"""

from __future__ import annotations

import re
from collections import defaultdict

from toolatlas.graph.families import is_schema_validation
from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, StrategyNode, TraceNode
from toolatlas.graph.state import ServerGraph
from toolatlas.models import Effect, stable_id

__all__ = ["distil_strategies", "link_similar_traces"]

_TOKEN = re.compile(r"[a-z0-9]+")


def _pitfalls(graph: ServerGraph, tools: list[str], limit: int = 3) -> list[str]:
    """The best-supported boundaries the atlas serves for ``tools``, schema validation left out: the schema says it,
    its violations are served by one summary whose sentence changes as violations join it, and a pitfall quoting a
    violation no served entry says any more is dropped by a load check."""
    boundaries = [e for t in tools for e in graph.entries_of(t, EntryKind.BOUNDARY, served=True)
                  if not is_schema_validation(e)]
    boundaries.sort(key=lambda e: (-e.support, e.id))
    return [e.text for e in boundaries[:limit]]


def _discovers(graph: ServerGraph, tool: str) -> bool:
    """A tool fit to start a plan with: declared read-only, or never seen to change anything."""
    spec = graph.specs.get(tool)
    if spec is not None and spec.annotations.read_only is not None:
        return spec.annotations.read_only
    return not any(e.effect is Effect.MUTATING for e in graph.entries_of(tool, EntryKind.AFFORDANCE))


def _traces_with(graph: ServerGraph, first: str, then: str) -> list[TraceNode]:
    found = []
    for trace in graph.traces.values():
        tools = [s.tool for s in trace.steps]
        if first in tools and then in tools[tools.index(first) + (0 if first == then else 1) :]:
            found.append(trace)
    return sorted(found, key=lambda t: t.id)


def distil_strategies(graph: ServerGraph, round_: int, *, min_support: int = 2) -> list[str]:
    """Write (or refresh) strategy nodes; returns the ids of new ones."""
    co_usage = [e for e in graph.entries.values() if e.kind is EntryKind.CO_USAGE and e.transitions >= min_support]
    data_by_source: dict[str, list[Entry]] = defaultdict(list)
    candidates: list[tuple[str, str, list[str], list[str], str, str, int]] = []
    for entry in sorted(co_usage, key=lambda e: e.id):
        assert entry.peer is not None
        if entry.relation is CoUsageRelation.DATA:
            if entry.peer != entry.tool and _discovers(graph, entry.tool):
                data_by_source[entry.tool].append(entry)
        elif entry.relation is CoUsageRelation.STATE:
            candidates.append((
                f"Confirm what `{entry.tool}` changed by reading it back with `{entry.peer}`",
                f"after changing something with `{entry.tool}` that later steps rely on",
                [f"Make the change with `{entry.tool}`.", f"Call `{entry.peer}` and check the change is visible before going on."],
                [entry.tool, entry.peer],
                entry.tool,
                entry.peer,
                entry.transitions,
            ))
        elif entry.relation is CoUsageRelation.RETRY:
            common = _pitfalls(graph, [entry.tool], limit=1)
            seen = f" (most often: {common[0]})" if common else ""
            candidates.append((
                f"Recover from a failed `{entry.tool}` call",
                f"`{entry.tool}` returned an error",
                [
                    f"Read the error `{entry.tool}` returned{seen}.",
                    f"Change the argument the error names and call `{entry.peer}` again; its affordances show calls that work.",
                ],
                [entry.tool, entry.peer],
                entry.tool,
                entry.peer,
                entry.transitions,
            ))
    for source, entries in sorted(data_by_source.items()):
        targets = sorted({e.peer for e in entries if e.peer})
        names = ", ".join(f"`{t}`" for t in targets)
        candidates.append((
            f"Discover with `{source}` before calling {names}",
            f"you need names, paths or ids for {names} and do not know them exactly",
            [f"Call `{source}` to see what exists.", f"Use values from its output as arguments of {names}; never guess them."],
            [source, *targets],
            source,
            targets[0],
            sum(e.transitions for e in entries),
        ))
    new: list[str] = []
    for title, when, plan, tools, first, then, support in candidates:
        strategy_id = stable_id("strategy", graph.server, title)
        traces = _traces_with(graph, first, then)
        existing = graph.strategies.get(strategy_id)
        strategy = StrategyNode(
            id=strategy_id,
            server=graph.server,
            title=title,
            when=when,
            plan=plan,
            pitfalls=_pitfalls(graph, tools),
            tools=tools,
            traces=[t.id for t in traces][:20],
            support=support,
            round_found=existing.round_found if existing else round_,
        )
        if existing is None:
            new.append(strategy_id)
        if existing is None or existing.model_dump(exclude={"last_verified"}) != strategy.model_dump(exclude={"last_verified"}):
            graph.put_strategy(strategy)
        for trace in traces:
            if strategy_id not in trace.strategies:
                graph.put_trace(trace.model_copy(update={"strategies": [*trace.strategies, strategy_id]}))
    return new


def _tokens(trace: TraceNode) -> set[str]:
    text = " ".join([trace.task, *(f"{s.tool} {s.rationale}" for s in trace.steps)]).lower()
    return set(_TOKEN.findall(text.replace("_", " ")))


def link_similar_traces(graph: ServerGraph, *, k: int = 3, threshold: float = 0.25) -> None:
    """Semantic edges: each trace links its ``k`` most similar traces (Jaccard over words) above ``threshold``."""
    traces = sorted(graph.traces.values(), key=lambda t: t.id)
    tokens = {t.id: _tokens(t) for t in traces}
    for trace in traces:
        scores = []
        for other in traces:
            if other.id == trace.id:
                continue
            a, b = tokens[trace.id], tokens[other.id]
            similarity = len(a & b) / len(a | b) if a | b else 0.0
            if similarity >= threshold:
                scores.append((round(similarity, 3), other.id))
        similar = {other: score for score, other in sorted(scores, key=lambda s: (-s[0], s[1]))[:k]}
        if similar != trace.similar:
            graph.put_trace(trace.model_copy(update={"similar": similar}))
