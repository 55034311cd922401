"""Choosing what to probe next: graph-driven capability exploration, and the uniform baseline.

Graph-driven (paper §3.2): each round starts from the least-explored tool, grows a local subgraph
of K related tools along co-usage edges, and spends the per-tool budget on the candidate probes
that would cover the most not-yet-covered ground (arguments, enum members, mutation kinds,
compositions), boundary and affordance directions alike. The uniform baseline samples the same
number of probes uniformly from every candidate of every tool — the comparison of Appendix C.3.
The LinUCB bandit over (tool, direction) arms (``"linucb"``) lives in :mod:`toolatlas.pipeline.bandit`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Protocol

from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.offline.mutations import SEMANTIC_FAMILIES
from toolatlas.probing.models import Direction, Probe

__all__ = ["Frontier", "GraphFrontier", "UniformFrontier", "frontier_for", "priority"]


class Frontier(Protocol):
    """Chooses a round's target tools and probes from the candidates the proposer offers."""

    def targets(self, graph: ServerGraph, size: int, rng: random.Random) -> list[str]: ...

    def choose(
        self,
        graph: ServerGraph,
        candidates: Mapping[str, Sequence[Probe]],
        *,
        boundary_per_tool: int,
        affordance_per_tool: int,
        budget: int,
        rng: random.Random,
    ) -> list[Probe]: ...

    def observe(self, graph: ServerGraph, probe: Probe, reward: float) -> None:
        """Feedback after a probe was induced: ``reward`` is the new verified knowledge it produced."""
        ...

    def state(self) -> dict:
        """What a checkpoint must keep to resume this frontier exactly (JSON-serialisable)."""
        ...

    def restore(self, state: dict) -> None:
        """Resume from :meth:`state`."""
        ...


class _Stateless:
    """Frontiers that learn nothing between rounds beyond what the graph holds."""

    def observe(self, graph: ServerGraph, probe: Probe, reward: float) -> None:
        return None

    def state(self) -> dict:
        return {}

    def restore(self, state: dict) -> None:
        return None


def grow_subgraph(graph: ServerGraph, ranked: Sequence[str], size: int) -> list[str]:
    """A local subgraph of ``size`` tools (paper §3.2): the first of ``ranked``, then its co-usage
    neighbours (strongest edges first, either direction), breadth first; filled up by ``ranked``."""
    if not ranked:
        return []
    chosen = [ranked[0]]
    frontier = [ranked[0]]
    while frontier and len(chosen) < size:
        current = frontier.pop(0)
        reverse = {t: w for t in sorted(graph.tools) for p, w in graph.tools[t].neighbours.items() if p == current}
        linked = sorted({**reverse, **graph.tools[current].neighbours}.items(), key=lambda item: (-item[1], item[0]))
        for peer, _weight in linked:
            if peer in graph.tools and peer not in chosen and len(chosen) < size:
                chosen.append(peer)
                frontier.append(peer)
    chosen += [t for t in ranked if t not in chosen][: max(0, size - len(chosen))]
    return chosen


def novelty(graph: ServerGraph, probe: Probe) -> int:
    return sum(1 for key in probe.coverage_keys if key not in graph.covered)


def priority(probe: Probe) -> int:
    """1 for a boundary probe of a semantic family (a path escaping the root, a missing reference,
    a no-match edit, a constraint…), 0 otherwise: among equally novel candidates, misuse an agent
    cannot read off the JSON Schema is probed before what the schema already states."""
    return int(any(step.mutation in SEMANTIC_FAMILIES for step in probe.steps))


class GraphFrontier(_Stateless):
    """Under-explored tools first, their co-usage neighbourhood next, the most novel probes in it."""

    def exploration_debt(self, graph: ServerGraph, tool: str) -> float:
        node = graph.tools[tool]
        entries = len(node.affordances) + len(node.boundaries) + len(node.co_usage)
        open_keys = len(node.arguments_total) - len(node.arguments_exercised)
        return (0 if node.affordances else 3) + (0 if node.boundaries else 3) + open_keys - 0.2 * entries

    def targets(self, graph: ServerGraph, size: int, rng: random.Random) -> list[str]:
        ranked = sorted(graph.tools, key=lambda t: (-self.exploration_debt(graph, t), rng.random()))
        return grow_subgraph(graph, ranked, size)

    def choose(
        self,
        graph: ServerGraph,
        candidates: Mapping[str, Sequence[Probe]],
        *,
        boundary_per_tool: int,
        affordance_per_tool: int,
        budget: int,
        rng: random.Random,
    ) -> list[Probe]:
        chosen: list[Probe] = []
        for tool, probes in candidates.items():
            node = graph.tools.get(tool)
            no_boundary = node is not None and not graph.entries_of(tool, EntryKind.BOUNDARY)
            for direction, quota in ((Direction.BOUNDARY, boundary_per_tool), (Direction.AFFORDANCE, affordance_per_tool)):
                pool = [p for p in probes if _lane(p) is direction]
                scored = sorted(
                    pool,
                    key=lambda p: (
                        -(novelty(graph, p) + (0.5 if direction is Direction.BOUNDARY and no_boundary else 0)
                          + (priority(p) if novelty(graph, p) else 0)),
                        rng.random(),
                    ),
                )
                fresh = [p for p in scored if novelty(graph, p) > 0]
                chosen.extend((fresh or scored)[:quota])
            replays = [p for p in probes if p.direction is Direction.REPLAY and novelty(graph, p) > 0]
            chosen.extend(replays[:1])
        if len(chosen) < budget:  # spend what the quotas left on the most novel remaining candidates
            taken = {p.id for p in chosen}
            rest = [p for tool in candidates for p in candidates[tool] if p.id not in taken and novelty(graph, p) > 0]
            rest.sort(key=lambda p: (-novelty(graph, p), rng.random()))
            chosen.extend(rest[: budget - len(chosen)])
        return chosen[:budget]


class UniformFrontier(_Stateless):
    """The baseline: the same number of probes, sampled uniformly from every tool's candidates."""

    def targets(self, graph: ServerGraph, size: int, rng: random.Random) -> list[str]:
        return sorted(graph.tools)

    def choose(
        self,
        graph: ServerGraph,
        candidates: Mapping[str, Sequence[Probe]],
        *,
        boundary_per_tool: int,
        affordance_per_tool: int,
        budget: int,
        rng: random.Random,
    ) -> list[Probe]:
        everything = [p for tool in sorted(candidates) for p in candidates[tool]]
        return rng.sample(everything, min(budget, len(everything)))


def _lane(probe: Probe) -> Direction:
    """Replays and seeds count against the affordance lane; boundaries against the boundary lane."""
    return Direction.BOUNDARY if probe.direction is Direction.BOUNDARY else Direction.AFFORDANCE


def frontier_for(name: str) -> Frontier:
    match name:
        case "graph":
            return GraphFrontier()
        case "uniform":
            return UniformFrontier()
        case "linucb":
            from toolatlas.pipeline.bandit import LinUCBFrontier

            return LinUCBFrontier()
    raise ValueError(f"unknown frontier {name!r}: expected 'graph', 'uniform' or 'linucb'")
