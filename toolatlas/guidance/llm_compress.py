"""LLM compression of a traversal into typed guidance (paper §3.3, the final step).

The candidates are what the walk read, built exactly as the offline compression builds them
(:func:`~toolatlas.guidance.render.tool_guidance` and friends): every use, boundary and
composition carries its entry id. The compressor keeps what helps the task and may reword it
for the task, but every item it writes must name the id of a candidate of the same kind and
tool; an item without one (invented) is dropped and counted. Exact errors, example arguments,
support and evidence are always taken from the atlas, never from the LLM. The result is the same
:class:`~toolatlas.guidance.models.Guidance` the offline path returns, fitted to the token budget.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from toolatlas.guidance.models import Guidance, StrategyGuidance, ToolGuidance, TraceExemplar
from toolatlas.guidance.render import fit, strategy_guidance, tool_guidance, trace_exemplar

if TYPE_CHECKING:
    from toolatlas.guidance.atlas import AtlasView
    from toolatlas.guidance.navigator import Traversal

__all__ = ["CompressionAnswer", "candidates", "candidates_json", "compressed_guidance"]


class _Answer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class CompressedNote(_Answer):
    entry_id: str | None = Field(description="the id of the candidate item this note keeps")
    text: str = Field(description="the item, worded for the task")


class CompressedTool(_Answer):
    tool: str = Field(description="server/tool of a read tool")
    when: list[CompressedNote]
    when_not: list[CompressedNote]
    compositions: list[CompressedNote]


class CompressedStrategy(_Answer):
    strategy_id: str | None
    steps: list[str]


class CompressionAnswer(_Answer):
    tools: list[CompressedTool]
    strategies: list[CompressedStrategy]
    exemplars: list[str] = Field(description="ids of read traces worth showing as examples")


def candidates(view: AtlasView, walk: Traversal) -> Guidance:
    """Everything the walk read, as typed guidance (no token budget): the compressor's choices."""
    tools = [
        tool_guidance(view, key, task=walk.task, relevance=score)
        for key, score in sorted(walk.tools.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    strategies = [strategy_guidance(view.strategies[s]) for s in walk.strategies if s in view.strategies]
    exemplars = [trace_exemplar(view.traces[t]) for t in walk.traces if t in view.traces]
    return Guidance(task=walk.task, tools=tools, strategies=strategies, exemplars=exemplars, trail=walk.trail)


def candidates_json(guidance: Guidance) -> str:
    """The candidates as the compressor reads them: ids, texts, exact errors."""
    tools = [
        {
            "tool": f"{t.server}/{t.tool}",
            "purpose": t.purpose,
            "uses": [{"id": u.entry_id, "text": u.text, "example": u.example_arguments} for u in t.when],
            "boundaries": [{"id": b.entry_id, "condition": b.condition, "error": b.error} for b in t.when_not],
            "compositions": [{"id": c.entry_id, "peer": c.peer, "relation": c.relation, "text": c.text}
                             for c in t.compositions],
        }
        for t in guidance.tools
    ]
    strategies = [{"id": s.id, "title": s.title, "when": s.when, "steps": s.steps, "pitfalls": s.pitfalls}
                  for s in guidance.strategies]
    traces = [{"id": t.id, "task": t.task, "steps": t.steps, "tips": t.tips, "resolved": f"{t.resolved}/{t.runs}"}
              for t in guidance.exemplars]
    return json.dumps({"tools": tools, "strategies": strategies, "traces": traces}, ensure_ascii=False, indent=1)


def _tool_key(name: str, tools: dict[str, ToolGuidance]) -> str | None:
    """``server/tool`` as written, or a bare tool name that only one candidate has."""
    if name in tools:
        return name
    matches = [key for key in tools if key.split("/", 1)[1] == name]
    return matches[0] if len(matches) == 1 else None


def _keep(notes: list[CompressedNote], pool: dict[str, Any], field: str, where: str, dropped: list[str]) -> list[Any]:
    """The candidates ``notes`` name by id, with their text reworded; the rest counted in ``dropped``."""
    kept: dict[str, Any] = {}
    for note in notes:
        candidate = pool.get(note.entry_id or "")
        if not note.entry_id:
            dropped.append(f"{where}: no entry id ({note.text[:60]!r})")
        elif candidate is None:
            dropped.append(f"{where}: {note.entry_id} is not one of its read items")
        elif note.entry_id not in kept:
            text = " ".join(note.text.split())
            kept[note.entry_id] = candidate.model_copy(update={field: text}) if text else candidate
    return list(kept.values())


def compressed_guidance(
    answer: CompressionAnswer, pool: Guidance, *, max_tokens: int, dropped: list[str]
) -> Guidance:
    """Typed guidance from the compressor's answer, every item tied to a read entry; fitted to ``max_tokens``."""
    tools_by_key = {f"{t.server}/{t.tool}": t for t in pool.tools}
    tools: list[ToolGuidance] = []
    for chosen in answer.tools:
        key = _tool_key(chosen.tool, tools_by_key)
        if key is None:
            dropped.append(f"tool {chosen.tool}: not read")
            continue
        if any(f"{t.server}/{t.tool}" == key for t in tools):
            continue
        base = tools_by_key[key]
        tools.append(base.model_copy(update={
            "when": _keep(chosen.when, {u.entry_id: u for u in base.when}, "text", f"{key} use", dropped),
            "when_not": _keep(chosen.when_not, {b.entry_id: b for b in base.when_not}, "condition",
                              f"{key} boundary", dropped),
            "compositions": _keep(chosen.compositions, {c.entry_id: c for c in base.compositions}, "text",
                                  f"{key} composition", dropped),
        }))
    strategies_by_id = {s.id: s for s in pool.strategies}
    strategies: list[StrategyGuidance] = []
    for chosen_strategy in answer.strategies:
        strategy = strategies_by_id.get(chosen_strategy.strategy_id or "")
        if strategy is None:
            dropped.append(f"strategy {chosen_strategy.strategy_id!r}: not read")
        elif all(s.id != strategy.id for s in strategies):
            steps = [" ".join(s.split()) for s in chosen_strategy.steps if s.strip()]
            strategies.append(strategy.model_copy(update={"steps": steps or strategy.steps}))
    exemplars_by_id = {t.id: t for t in pool.exemplars}
    exemplars: list[TraceExemplar] = []
    for trace_id in dict.fromkeys(answer.exemplars):
        if trace_id in exemplars_by_id:
            exemplars.append(exemplars_by_id[trace_id])
        else:
            dropped.append(f"exemplar {trace_id!r}: not read")
    guidance = Guidance(task=pool.task, tools=tools, strategies=strategies, exemplars=exemplars, trail=pool.trail)
    return fit(guidance, max_tokens)
