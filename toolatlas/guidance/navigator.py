"""Dynamic Memory Traversal (paper §3.3): start from the k_r nearest traces, then read what helps.

A navigator picks, one read at a time, among ReadTrace(q), Expand(q), ReadTool(t) and
ReadStrategy(q) until it judges the context sufficient or the read budget B is spent. The
offline navigator scores each possible read by relevance to the task, the confidence of what it
would add, the weight of the edge that leads to it, and novelty (nothing is read twice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from toolatlas.guidance.models import NavigationStep

if TYPE_CHECKING:
    from toolatlas.guidance.atlas import AtlasView

__all__ = ["Navigator", "OfflineNavigator", "Traversal"]


@dataclass
class Traversal:
    """What a walk gathered: read traces, tools and strategies with their relevance, and the trail."""

    task: str
    traces: dict[str, float] = field(default_factory=dict)
    tools: dict[tuple[str, str], float] = field(default_factory=dict)
    strategies: dict[str, float] = field(default_factory=dict)
    trail: list[NavigationStep] = field(default_factory=list)


class Navigator(Protocol):
    """Walks an atlas for a task within a read budget."""

    def walk(self, atlas: AtlasView, task: str, *, servers: set[str] | None, k_r: int, budget: int) -> Traversal: ...


class OfflineNavigator:
    """Scored expansion: relevance × confidence × edge weight, never the same read twice."""

    def __init__(self, *, sufficient_ratio: float = 0.12, direct_tools: int = 4) -> None:
        self.sufficient_ratio = sufficient_ratio
        """Stop once the best remaining read scores below this share of the best first read."""
        self.direct_tools = direct_tools
        """Tools retrieved straight from the task, besides those the traces lead to."""

    def walk(self, atlas: AtlasView, task: str, *, servers: set[str] | None, k_r: int, budget: int) -> Traversal:
        result = Traversal(task=task)
        trace_rel = atlas.trace_relevance(task, servers)
        tool_rel = atlas.tool_relevance(task, servers)
        candidates: dict[tuple[str, str], float] = {}
        for trace_id, score in sorted(trace_rel.items(), key=lambda kv: (-kv[1], kv[0]))[:k_r]:
            candidates[("read_trace", trace_id)] = score
        for key, score in sorted(tool_rel.items(), key=lambda kv: (-kv[1], kv[0]))[: self.direct_tools]:
            candidates[("read_tool", f"{key[0]}/{key[1]}")] = 0.9 * score
        done: set[tuple[str, str]] = set()
        first = max(candidates.values(), default=0.0)
        while candidates and len(result.trail) < budget:
            (operation, target), score = max(candidates.items(), key=lambda kv: (kv[1], kv[0]))
            del candidates[(operation, target)]
            if score < self.sufficient_ratio * first and result.traces and result.tools:
                break  # the context is sufficient: what is left would add little
            done.add((operation, target))
            result.trail.append(NavigationStep(operation=operation, target=target, score=round(score, 4)))
            if operation == "read_trace":
                trace = atlas.traces[target]
                result.traces[target] = trace_rel.get(target, score)
                for similar, weight in trace.similar.items():
                    if similar in atlas.traces and ("expand", target) not in done:
                        candidates[("expand", target)] = max(candidates.get(("expand", target), 0.0), score * weight)
                for tool in trace.tools:
                    key = (trace.server, tool)
                    if key in atlas.tool_nodes and ("read_tool", f"{key[0]}/{key[1]}") not in done:
                        boost = 0.5 * score + 0.5 * tool_rel.get(key, 0.0)
                        slot = ("read_tool", f"{key[0]}/{key[1]}")
                        candidates[slot] = max(candidates.get(slot, 0.0), boost)
                if trace.strategies and ("read_strategy", target) not in done:
                    candidates[("read_strategy", target)] = 0.8 * score
            elif operation == "expand":
                trace = atlas.traces[target]
                for similar, weight in trace.similar.items():
                    if similar in atlas.traces and similar not in result.traces and ("read_trace", similar) not in done:
                        slot = ("read_trace", similar)
                        candidates[slot] = max(candidates.get(slot, 0.0), weight * max(trace_rel.get(similar, 0.0), 0.3 * score))
            elif operation == "read_tool":
                server, tool = target.split("/", 1)
                result.tools[(server, tool)] = max(score, tool_rel.get((server, tool), 0.0))
                for peer, weight in atlas.tool_nodes[(server, tool)].neighbours.items():
                    slot = ("read_tool", f"{server}/{peer}")
                    if (server, peer) in atlas.tool_nodes and slot not in done:
                        candidates[slot] = max(candidates.get(slot, 0.0), score * weight * 0.8)
            elif operation == "read_strategy":
                for strategy_id in atlas.traces[target].strategies:
                    if strategy_id in atlas.strategies:
                        result.strategies[strategy_id] = max(result.strategies.get(strategy_id, 0.0), score)
        return result
