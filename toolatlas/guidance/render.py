"""Compressing a traversal into typed guidance within a token budget, and the text rendering."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolatlas.graph.models import EntryKind, StrategyNode, TraceNode
from toolatlas.guidance.models import (
    BoundaryNote,
    CompositionNote,
    Guidance,
    StrategyGuidance,
    ToolGuidance,
    TraceExemplar,
    UseNote,
)

if TYPE_CHECKING:
    from toolatlas.guidance.atlas import AtlasView
    from toolatlas.guidance.navigator import Traversal

__all__ = ["compress", "fit", "render_text", "strategy_guidance", "tool_guidance", "trace_exemplar"]

USES, BOUNDARIES, COMPOSITIONS = 3, 3, 2
"""Items per tool before the token budget trims further."""


def tool_guidance(view: AtlasView, key: tuple[str, str], *, task: str, relevance: float) -> ToolGuidance:
    server, tool = key
    node = view.tool_nodes[key]
    affordances = [e for e in view.entries_of(server, tool, EntryKind.AFFORDANCE) if not e.signature.startswith("tolerates:")]
    boundaries = view.entries_of(server, tool, EntryKind.BOUNDARY)
    if task and len(boundaries) > BOUNDARIES:  # the boundaries most relevant to this task first, then the best supported
        scores = view.boundary_indexes[key].scores(task)
        order = sorted(range(len(boundaries)), key=lambda i: (-scores.get(i, 0.0), -boundaries[i].support, boundaries[i].id))
        boundaries = [boundaries[i] for i in order]
    compositions = sorted(view.entries_of(server, tool, EntryKind.CO_USAGE), key=lambda e: (-(e.weight or 0), e.id))
    return ToolGuidance(
        server=server,
        tool=tool,
        purpose=_purpose(node.description),
        relevance=round(relevance, 4),
        when=[
            UseNote(text=e.text, example_arguments=e.example_arguments, entry_id=e.id, support=e.support,
                    confidence=e.confidence, evidence=e.probe_ids[:3])
            for e in affordances[:USES]
        ],
        when_not=[
            BoundaryNote(condition=e.condition or "", error=_first_line(e.evidence[0].excerpt if e.evidence else e.error_signature or ""),
                         outcome=e.outcome.value if e.outcome else "", reported_as_success=e.reported_as_success,
                         entry_id=e.id, support=e.support, confidence=e.confidence, evidence=e.probe_ids[:3])
            for e in boundaries[:BOUNDARIES]
        ],
        compositions=[
            CompositionNote(peer=e.peer or "", relation=e.relation.value if e.relation else "data", text=e.text,
                            weight=e.weight or 0.0, entry_id=e.id, evidence=e.probe_ids[:3])
            for e in compositions[:COMPOSITIONS]
        ],
    )


def strategy_guidance(strategy: StrategyNode) -> StrategyGuidance:
    return StrategyGuidance(id=strategy.id, server=strategy.server, title=strategy.title, when=strategy.when,
                            steps=strategy.plan, pitfalls=strategy.pitfalls[:3], traces=strategy.traces[:5])


def trace_exemplar(trace: TraceNode) -> TraceExemplar:
    return TraceExemplar(id=trace.id, server=trace.server, task=trace.task,
                         steps=[(s.tool, s.rationale) for s in trace.steps], tips=trace.tips[:4],
                         resolved=trace.resolved, runs=trace.runs)


def compress(view: AtlasView, walk: Traversal, *, max_tokens: int) -> Guidance:
    """Everything the walk read, most relevant first, trimmed to the token budget."""
    tools = [
        tool_guidance(view, key, task=walk.task, relevance=score)
        for key, score in sorted(walk.tools.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    strategies = [
        strategy_guidance(view.strategies[s]) for s, _ in sorted(walk.strategies.items(), key=lambda kv: (-kv[1], kv[0]))
    ][:2]
    exemplars = [
        trace_exemplar(view.traces[t]) for t, _ in sorted(walk.traces.items(), key=lambda kv: (-kv[1], kv[0]))
    ][:2]
    guidance = Guidance(task=walk.task, tools=tools, strategies=strategies, exemplars=exemplars, trail=walk.trail)
    return fit(guidance, max_tokens)


def _tokens(guidance: Guidance) -> int:
    return len(render_text(guidance)) // 4 + 1


def fit(guidance: Guidance, max_tokens: int) -> Guidance:
    """Drop the least useful items until the text rendering fits: extra exemplars, compositions,
    extra uses, strategies beyond one, then whole tools from the least relevant."""
    trims = [
        lambda g: g.model_copy(update={"exemplars": g.exemplars[:-1]}) if len(g.exemplars) > 1 else None,
        lambda g: _per_tool(g, "compositions", 0),
        lambda g: _per_tool(g, "when", 1),
        lambda g: g.model_copy(update={"strategies": g.strategies[:-1]}) if len(g.strategies) > 1 else None,
        lambda g: _per_tool(g, "when_not", 2),
        lambda g: g.model_copy(update={"exemplars": []}) if g.exemplars else None,
        lambda g: g.model_copy(update={"tools": g.tools[:-1]}) if len(g.tools) > 1 else None,
    ]
    tokens = _tokens(guidance)
    for trim in trims:
        while tokens > max_tokens:
            smaller = trim(guidance)
            if smaller is None:
                break
            guidance, tokens = smaller, _tokens(smaller)
    return guidance.model_copy(update={"tokens": tokens})


def _per_tool(guidance: Guidance, field: str, keep: int) -> Guidance | None:
    """Trim ``field`` of the least relevant tool that still has more than ``keep`` items."""
    for index in range(len(guidance.tools) - 1, -1, -1):
        items = getattr(guidance.tools[index], field)
        if len(items) > keep:
            tools = list(guidance.tools)
            tools[index] = tools[index].model_copy(update={field: items[:-1]})
            return guidance.model_copy(update={"tools": tools})
    return None


def render_text(guidance: Guidance) -> str:
    lines = [f"Guidance for: {guidance.task}"]
    for tool in guidance.tools:
        lines.append(f"\n## {tool.server}.{tool.tool}" + (f" — {tool.purpose}" if tool.purpose else ""))
        for use in tool.when:
            lines.append(f"- use: {use.text} [{use.entry_id[:8]}]")
        for boundary in tool.when_not:
            hidden = " (reported as success)" if boundary.reported_as_success else ""
            lines.append(f"- avoid: when {boundary.condition} → {boundary.outcome}{hidden}: “{boundary.error[:160]}” "
                         f"[{boundary.entry_id[:8]}]")
        for composition in tool.compositions:
            lines.append(f"- with `{composition.peer}` ({composition.relation}, w={composition.weight:.2f}): "
                         f"{composition.text} [{composition.entry_id[:8]}]")
    for strategy in guidance.strategies:
        lines.append(f"\n## Strategy: {strategy.title} (when {strategy.when})")
        lines += [f"{i}. {step}" for i, step in enumerate(strategy.steps, 1)]
        lines += [f"- pitfall: {p}" for p in strategy.pitfalls]
    for trace in guidance.exemplars:
        lines.append(f"\n## Example: {trace.task} ({trace.resolved}/{trace.runs} resolved)")
        lines += [f"{i}. `{tool}` — {why}" for i, (tool, why) in enumerate(trace.steps, 1)]
        lines += [f"- tip: {tip}" for tip in trace.tips]
    return "\n".join(lines)


def _first_line(text: str, limit: int = 240) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line[:limit]


def _purpose(description: str) -> str:
    text = " ".join(description.split())
    cut = text.find(". ")
    return (text[: cut + 1] if 0 < cut < 160 else text[:160]).strip()
