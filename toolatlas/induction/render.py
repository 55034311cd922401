"""What the inducer prompts show of the graph: tools, a tool's known entries, traces."""

from __future__ import annotations

from collections.abc import Iterable

from toolatlas.graph.models import Entry, EntryKind, TraceNode
from toolatlas.graph.state import ServerGraph
from toolatlas.induction.rollouts import compact

__all__ = ["entry_lines", "tool_lines", "tool_spec", "trace_block"]

MAX_ENTRIES_SHOWN = 12
"""Known entries of one tool shown to the capability aggregator (best supported first)."""


def tool_lines(graph: ServerGraph, names: Iterable[str] | None = None) -> str:
    """``- `name`: purpose`` for the server's tools (or the ``names`` among them)."""
    chosen = sorted(graph.specs) if names is None else [n for n in names if n in graph.specs]
    return "\n".join(f"- `{n}`: {graph.specs[n].purpose}" for n in chosen) or "(no tools)"


def tool_spec(graph: ServerGraph, tool: str) -> str:
    """A tool as its server declares it: description, input schema, declared behaviour."""
    spec = graph.specs[tool]
    hints = spec.annotations.model_dump(exclude_none=True)
    lines = [f"`{tool}`: {' '.join(spec.description.split()) or '(no description)'}",
             f"input schema: {compact(spec.input_schema, 1200)}"]
    if hints:
        lines.append(f"declared behaviour: {compact(hints, 300)}")
    return "\n".join(lines)


def _entry_line(entry: Entry) -> str:
    extra = {
        EntryKind.AFFORDANCE: f"when: {entry.when}" if entry.when else "",
        EntryKind.BOUNDARY: f"error: {entry.error_signature}" if entry.error_signature else "",
        EntryKind.CO_USAGE: f"with `{entry.peer}` ({entry.relation.value if entry.relation else '?'})",
    }[entry.kind]
    return f"- {entry.kind.value} (support {entry.support}): {entry.text}" + (f" [{extra}]" if extra else "")


def entry_lines(graph: ServerGraph, tool: str) -> str:
    """What the graph already holds about ``tool`` (offline and earlier LLM entries)."""
    entries = sorted(graph.entries_of(tool), key=lambda e: (-e.support, e.id))[:MAX_ENTRIES_SHOWN]
    return "\n".join(_entry_line(e) for e in entries) or "(nothing verified yet)"


def trace_block(trace: TraceNode) -> str:
    steps = "\n".join(f"  {i}. `{s.tool}` — {s.rationale}" for i, s in enumerate(trace.steps, 1)) or "  (no steps)"
    tips = "\n".join(f"  - {tip}" for tip in trace.tips[:6])
    head = f"### trace {trace.id} ({trace.resolved}/{trace.runs} runs resolved)\ntask: {compact(trace.task, 300)}"
    return f"{head}\nsteps:\n{steps}" + (f"\ntips:\n{tips}" if tips else "")
