"""Strategy aggregation (paper §3.1, Tool-Strategy Graph): groups of related traces → strategy nodes.

Traces are grouped when they are semantically linked (the similarity edges
:func:`~toolatlas.graph.distil.link_similar_traces` writes) or share a tool-use pattern (the same
consecutive tool pair). For each group of at least two traces the aggregator writes recurring
orchestration principles: title, when, plan, pitfalls, tools and the traces that show it. In
code, a strategy is kept only if it cites at least two traces of the graph and every tool it
lists is used by a cited trace. Strategies are keyed by their title as the offline distiller
keys them, and link their traces both ways.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise

from toolatlas.graph.distil import link_similar_traces
from toolatlas.graph.models import EntryStatus, StrategyNode, TraceNode
from toolatlas.graph.state import ServerGraph
from toolatlas.induction.asking import ask
from toolatlas.induction.models import ProposedStrategy, ReportBuilder, StrategyAnswer
from toolatlas.induction.render import tool_lines, trace_block
from toolatlas.llm import LlmClient
from toolatlas.models import stable_id, utcnow

__all__ = ["MAX_GROUP", "apply_strategies", "ask_strategies", "strategy_id", "trace_groups"]

PROMPT = "strategy_aggregator"
MAX_GROUP = 8
"""Traces of one group shown to the aggregator (most resolved runs first)."""
MAX_TRACES = 20


def strategy_id(server: str, title: str) -> str:
    """As the offline distiller derives it: one strategy per title (case and spacing aside)."""
    return stable_id("strategy", server, " ".join(title.split()))


def _pairs(trace: TraceNode) -> set[tuple[str, str]]:
    tools = [s.tool for s in trace.steps]
    return {(a, b) for a, b in pairwise(tools) if a != b}


def trace_groups(graph: ServerGraph, *, max_group: int = MAX_GROUP) -> list[list[TraceNode]]:
    """Groups (of two or more) of related active traces, largest evidence first."""
    link_similar_traces(graph)
    traces = sorted((t for t in graph.traces.values() if t.status is EntryStatus.ACTIVE and t.steps), key=lambda t: t.id)
    parent = {t.id: t.id for t in traces}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    by_pair: dict[tuple[str, str], str] = {}
    for trace in traces:
        links = [other for other in trace.similar if other in parent]
        for pair in _pairs(trace):
            links.append(by_pair.setdefault(pair, trace.id))
        for other in links:
            parent[root(other)] = root(trace.id)
    groups: dict[str, list[TraceNode]] = {}
    for trace in traces:
        groups.setdefault(root(trace.id), []).append(trace)
    chosen = [
        sorted(group, key=lambda t: (-t.resolved, -t.runs, t.id))[:max_group]
        for group in groups.values()
        if len(group) >= 2
    ]
    return sorted(chosen, key=lambda g: (-sum(t.resolved for t in g), g[0].id))


async def ask_strategies(
    llm: LlmClient, group: list[TraceNode], graph: ServerGraph, report: ReportBuilder
) -> StrategyAnswer | None:
    tools = sorted({tool for trace in group for tool in trace.tools})
    known = "\n".join(f"- {s.title} (when {s.when})" for s in sorted(graph.strategies.values(), key=lambda s: s.id))
    return await ask(
        llm,
        PROMPT,
        StrategyAnswer,
        report,
        server=graph.server,
        tools=tool_lines(graph, tools),
        traces="\n\n".join(trace_block(t) for t in group),
        known=known or "(none yet)",
    )


def apply_strategies(answer: StrategyAnswer, graph: ServerGraph, report: ReportBuilder, round_: int) -> None:
    """Keep the strategies whose citations hold; upsert them and link their traces."""
    for proposed in answer.strategies:
        strategy = _checked(proposed, graph, report, round_)
        if strategy is not None:
            _write(graph, strategy, report)


def _checked(proposed: ProposedStrategy, graph: ServerGraph, report: ReportBuilder, round_: int) -> StrategyNode | None:
    title = " ".join(proposed.title.split())
    unknown = [t for t in proposed.traces if t not in graph.traces]
    if unknown:
        report.drop("strategy", "unknown_trace", title, ", ".join(unknown))
    traces = list(dict.fromkeys(t for t in proposed.traces if t in graph.traces))
    if len(traces) < 2:
        report.drop("strategy", "too_few_traces", title, f"cites {len(traces)} trace(s) of the graph; two are needed")
        return None
    used = {tool for t in traces for tool in graph.traces[t].tools}
    tools = list(dict.fromkeys(proposed.tools)) or sorted(used)
    stray = [tool for tool in tools if tool not in used]
    if stray:
        report.drop("strategy", "tool_not_in_traces", title, f"no cited trace uses {', '.join(stray)}")
        return None
    plan = _lines(proposed.plan)
    if not title or not plan:
        report.drop("strategy", "missing_field", title, "a strategy needs a title and a plan")
        return None
    return StrategyNode(
        id=strategy_id(graph.server, title),
        server=graph.server,
        title=title,
        when=" ".join(proposed.when.split()),
        plan=plan,
        pitfalls=_lines(proposed.pitfalls),
        tools=tools,
        traces=traces[:MAX_TRACES],
        support=len(traces),
        round_found=round_,
    )


def _lines(items: Iterable[str]) -> list[str]:
    return [text for item in items if (text := re.sub(r"\s+", " ", item).strip())]


def _write(graph: ServerGraph, strategy: StrategyNode, report: ReportBuilder) -> None:
    existing = graph.strategies.get(strategy.id)
    if existing is not None:
        traces = list(dict.fromkeys([*existing.traces, *strategy.traces]))[:MAX_TRACES]
        strategy = strategy.model_copy(
            update={"traces": traces, "support": len(traces), "round_found": existing.round_found, "last_verified": utcnow()}
        )
        report.updated_strategies.append(strategy.id)
    else:
        report.new_strategies.append(strategy.id)
    graph.put_strategy(strategy)
    for trace_id in strategy.traces:
        trace = graph.traces.get(trace_id)
        if trace is not None and strategy.id not in trace.strategies:
            graph.put_trace(trace.model_copy(update={"strategies": [*trace.strategies, strategy.id]}))
