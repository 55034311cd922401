"""Dynamic Memory Traversal (paper §3.3): start from the k_r nearest traces, then read what helps.

A navigator picks, one read at a time, among ReadTrace(q), Expand(q), ReadTool(t) and
ReadStrategy(q) until it judges the context sufficient or the read budget B is spent.

The offline navigator is a scored expansion. It first plans the task (its operations mapped to
tools, :mod:`toolatlas.guidance.plan`): the planned tools carry as much evidence as the best
match, in plan order, so they are read early. Every other tool carries *evidence* that it serves the
task: its own relevance (its documentation and verified vocabulary against the task, routed to
the servers the task is about), half the relevance of a read trace
that used it, and the score of a read tool it composes with times the co-usage edge weight (in
either direction: ``git_add`` → ``git_commit`` pulls ``git_add`` in for a commit task). A read is
worth the evidence it is expected to add: a tool its evidence, a trace its relevance discounted
when the tools it leads to are already read (novelty) or when its runs mostly failed
(confidence), an expansion the trace's score times the similarity edge, a strategy a share of
its trace's score. Nothing is read twice. The walk keeps enough of the budget to read
``min_tools`` tools, and the guidance ranks tools by their final evidence, not by read order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from toolatlas.guidance.models import Guidance, NavigationStep

if TYPE_CHECKING:
    from toolatlas.guidance.atlas import AtlasView
    from toolatlas.guidance.plan import Plan

__all__ = ["AsyncNavigator", "Navigator", "OfflineNavigator", "StaticNavigator", "Traversal"]

ToolKey = tuple[str, str]
Operation = Literal["read_trace", "expand", "read_tool", "read_strategy"]
Target = str | ToolKey
"""A trace id, or the (server, tool) of a tool read."""


@dataclass
class Traversal:
    """What a walk gathered: read traces, tools and strategies with their relevance, and the trail."""

    task: str
    traces: dict[str, float] = field(default_factory=dict)
    tools: dict[tuple[str, str], float] = field(default_factory=dict)
    strategies: dict[str, float] = field(default_factory=dict)
    trail: list[NavigationStep] = field(default_factory=list)
    servers: set[str] | None = None
    """The servers the caller restricted the walk to (None: all)."""
    plan: Plan | None = None
    """The task's plan, when the navigator made one (compression makes it otherwise)."""


class Navigator(Protocol):
    """Walks an atlas for a task within a read budget."""

    name: str
    """What the guidance says gathered it (:attr:`Guidance.navigator`)."""

    def walk(self, atlas: AtlasView, task: str, *, servers: set[str] | None, k_r: int, budget: int) -> Traversal: ...


class AsyncNavigator(Protocol):
    """Walks an atlas and compresses what it read into guidance, awaiting something slow (an LLM)."""

    async def guide(
        self, atlas: AtlasView, task: str, *, servers: set[str] | None, k_r: int, budget: int, max_tokens: int
    ) -> Guidance: ...


UNMATCHED = 0.1
"""The relevance of each tool of the server a task is routed to when no tool's words match the task (a restriction
site named by its enzyme, a motif scan described only as "sites"): weak, but the server's tools rather than none."""


def _best(scores: dict, limit: int) -> list:
    """The ``limit`` highest-scoring keys (ties by key, so walks are deterministic)."""
    return [key for key, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]


class OfflineNavigator:
    """Scored expansion over the atlas graph: relevance, confidence, edge weights and novelty."""

    name = "offline"

    def __init__(self, *, trace_weight: float = 0.5, strategy_weight: float = 0.8, min_tools: int = 5,
                 sufficient_ratio: float = 0.12) -> None:
        self.trace_weight = trace_weight
        """Evidence a read trace gives each tool it used, as a share of the trace's relevance."""
        self.strategy_weight = strategy_weight
        """Worth of reading a trace's strategies, as a share of the trace's score."""
        self.min_tools = min_tools
        """Tools the walk reads at least (when the atlas has candidates): the guidance is about tools."""
        self.sufficient_ratio = sufficient_ratio
        """Once ``min_tools`` are read, stop when the best remaining read scores below this share of the first."""

    def walk(self, atlas: AtlasView, task: str, *, servers: set[str] | None, k_r: int, budget: int) -> Traversal:
        return _Walk(self, atlas, task, servers).run(k_r=k_r, budget=budget)


class _Walk:
    """The state of one traversal: evidence per tool, the candidate reads, and what was read."""

    def __init__(self, navigator: OfflineNavigator, atlas: AtlasView, task: str, servers: set[str] | None) -> None:
        self.nav, self.atlas, self.servers = navigator, atlas, servers
        plan = atlas.plan(task, servers)
        self.result = Traversal(task=task, servers=servers, plan=plan)
        self.tool_rel = dict(plan.relevance) if servers else atlas.routed(plan.relevance, plan.route)
        if not self.tool_rel:  # no tool's words match, yet the task is about a server: its tools, all alike
            weights = plan.weights or dict.fromkeys(plan.servers, 1.0)
            top = max(weights.values(), default=0.0)
            about = {server for server, weight in weights.items() if weight >= top > 0}
            if len(about) < len(atlas.servers) or len(atlas.servers) == 1:  # not every server: nothing matched
                self.tool_rel = {key: UNMATCHED for key in atlas.tool_keys if key[0] in about}
        planned = plan.tools
        for rank, key in enumerate(planned):  # planned tools as strong as the best match, in plan order
            self.tool_rel[key] = 1.0 - 0.01 * rank
        self.trace_rel = atlas.trace_relevance(task, servers)
        self.evidence: dict[ToolKey, float] = dict(self.tool_rel)
        self.trace_score: dict[str, float] = {}
        self.candidates: dict[tuple[Operation, Target], float] = {}
        self.done: set[tuple[Operation, Target]] = set()

    # -- the loop -----------------------------------------------------------------------------------

    def run(self, *, k_r: int, budget: int) -> Traversal:
        for trace_id in _best(self.trace_rel, k_r):
            self._offer_trace(trace_id, self.trace_rel[trace_id])
        for key in _best(self.tool_rel, budget):
            self._offer(("read_tool", key), self.evidence[key])
        first = None
        while self.candidates and len(self.result.trail) < budget:
            (operation, target), value = self._pick(budget - len(self.result.trail))
            first = value if first is None else first
            if value < self.nav.sufficient_ratio * first and len(self.result.tools) >= self.nav.min_tools:
                break  # the context is sufficient: what is left would add little
            del self.candidates[(operation, target)]
            self.done.add((operation, target))
            shown = f"{target[0]}/{target[1]}" if operation == "read_tool" else str(target)
            self.result.trail.append(NavigationStep(operation=operation, target=shown, score=round(value, 4)))
            self._read(operation, target)
        self.result.tools = {key: round(self.evidence[key], 4) for key in self.result.tools}
        return self.result

    def _read(self, operation: Operation, target: Target) -> None:
        if isinstance(target, tuple):
            self._read_tool(target)
        else:
            {"read_trace": self._read_trace, "expand": self._expand, "read_strategy": self._read_strategy}[operation](target)

    def _pick(self, remaining: int) -> tuple[tuple[Operation, Target], float]:
        """The most valuable candidate read; only tool reads once the rest of the budget is needed for them."""
        pool = self.candidates
        if remaining <= self.nav.min_tools - len(self.result.tools):
            pool = {slot: s for slot, s in self.candidates.items() if slot[0] == "read_tool"} or pool
        return max(((slot, self._value(slot, score)) for slot, score in pool.items()), key=lambda kv: (kv[1], kv[0]))

    def _value(self, slot: tuple[Operation, Target], score: float) -> float:
        if slot[0] != "read_trace":
            return score
        trace = self.atlas.traces[str(slot[1])]  # a read_trace slot's target is a trace id
        tools = {(trace.server, tool) for tool in trace.tools}
        novelty = sum(1 for key in tools if key not in self.result.tools) / len(tools) if tools else 0.0
        confidence = trace.resolved / trace.runs if trace.runs else 0.0
        return score * (0.5 + 0.5 * novelty) * (0.75 + 0.25 * confidence)

    def _offer(self, slot: tuple[Operation, Target], score: float) -> None:
        if slot not in self.done:
            self.candidates[slot] = max(self.candidates.get(slot, 0.0), score)

    def _offer_trace(self, trace_id: str, score: float) -> None:
        if trace_id in self.atlas.traces and trace_id not in self.result.traces:
            self.trace_score[trace_id] = max(self.trace_score.get(trace_id, 0.0), score)
            self._offer(("read_trace", trace_id), score)

    def _support(self, key: ToolKey, score: float) -> None:
        """New evidence for a tool; an unread tool becomes (or stays) a candidate read at its evidence."""
        if key not in self.atlas.tool_nodes or (self.servers is not None and key[0] not in self.servers):
            return
        self.evidence[key] = max(self.evidence.get(key, 0.0), score)
        if key not in self.result.tools:
            self._offer(("read_tool", key), self.evidence[key])

    # -- the four operations ----------------------------------------------------------------------

    def _read_trace(self, trace_id: str) -> None:
        trace = self.atlas.traces[trace_id]
        score = self.trace_score.get(trace_id, 0.0)
        self.result.traces[trace_id] = self.trace_rel.get(trace_id, score)
        for tool in trace.tools:
            self._support((trace.server, tool), self.nav.trace_weight * score)
        similar = [weight for other, weight in trace.similar.items() if other in self.atlas.traces]
        if similar:
            self._offer(("expand", trace_id), score * max(similar))
        if any(strategy in self.atlas.strategies for strategy in trace.strategies):
            self._offer(("read_strategy", trace_id), self.nav.strategy_weight * score)

    def _expand(self, trace_id: str) -> None:
        score = self.trace_score.get(trace_id, 0.0)
        for similar, weight in self.atlas.traces[trace_id].similar.items():
            trace = self.atlas.traces.get(similar)
            if trace is not None and (self.servers is None or trace.server in self.servers):
                # a neighbour is worth its own relevance, or at least a share of the trace it was reached from
                self._offer_trace(similar, weight * max(self.trace_rel.get(similar, 0.0), 0.3 * score))

    def _read_tool(self, key: ToolKey) -> None:
        score = self.evidence.get(key, 0.0)
        self.result.tools[key] = score
        for peer, weight in self.atlas.co_usage(key).items():
            self._support(peer, score * weight)

    def _read_strategy(self, trace_id: str) -> None:
        for strategy_id in self.atlas.traces[trace_id].strategies:
            if strategy_id in self.atlas.strategies:
                score = self.trace_score.get(trace_id, 0.0)
                self.result.strategies[strategy_id] = max(self.result.strategies.get(strategy_id, 0.0), score)


class StaticNavigator:
    """No traversal (an ablation): the ``budget`` tools most lexically relevant to the task, read directly.

    Tools are still retrieved by their atlas text (description, verified uses and limits, argument
    values that worked), but no trace, strategy or co-usage edge is followed.
    """

    name = "static"

    def walk(self, atlas: AtlasView, task: str, *, servers: set[str] | None, k_r: int, budget: int) -> Traversal:
        result = Traversal(task=task, servers=servers)
        relevance = atlas.tool_relevance(task, servers)
        for key in _best(relevance, budget):
            result.tools[key] = relevance[key]
            result.trail.append(NavigationStep(operation="read_tool", target=f"{key[0]}/{key[1]}",
                                               score=round(relevance[key], 4)))
        return result
