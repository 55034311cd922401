"""Capability aggregation (paper §3.1, Tool-Capability Graph): a tool's calls → typed entries.

For each tool a task's rollouts called, the aggregator sees the tool as declared, what the graph
already holds about it (offline entries included) and the rollouts with the tool's calls marked,
and writes affordance / boundary / co-usage entries with typed fields and the calls they rest on.
Each entry passes :func:`~toolatlas.induction.citations.check_entry` or is dropped with its
reason. A kept entry is merged the way the offline inducer merges (same signatures, so the same
finding from both is one entry): affordances by argument shape, boundaries by the normalised
error of the cited call, co-usage by peer and relation. Evidence is the cited calls, verbatim;
support grows only by rollouts the entry does not cite yet, so re-induction adds nothing twice.
"""

from __future__ import annotations

import asyncio

from toolatlas.graph.inducer import argument_shape, merge_entry, record_transition
from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, Evidence
from toolatlas.graph.state import ServerGraph
from toolatlas.induction.asking import ask
from toolatlas.induction.citations import Checked, check_entry
from toolatlas.induction.models import CapabilityAnswer, ProposedEntry, ReportBuilder
from toolatlas.induction.render import entry_lines, tool_lines, tool_spec
from toolatlas.induction.rollouts import TaskRollouts
from toolatlas.llm import LlmClient
from toolatlas.models import Effect
from toolatlas.probing.text import error_signature

__all__ = ["aggregate_capabilities", "apply_capabilities", "build_entry"]

PROMPT = "capability_aggregator"
FILLABLE = ("when", "when_not", "condition", "error_signature", "example_arguments")
"""Typed fields an LLM entry fills on a matching entry that lacks them (it never overwrites)."""


async def aggregate_capabilities(
    llm: LlmClient, rollouts: TaskRollouts, graph: ServerGraph, report: ReportBuilder
) -> None:
    """Ask about every tool the rollouts called (concurrently), then merge what checks out, tool by tool."""
    tools = [t for t in rollouts.tools_called() if t in graph.tools]
    answers = await asyncio.gather(*(_ask(llm, tool, rollouts, graph, report) for tool in tools))
    for tool, answer in zip(tools, answers, strict=True):
        if answer is not None:
            apply_capabilities(answer, tool, rollouts, graph, report)


async def _ask(
    llm: LlmClient, tool: str, rollouts: TaskRollouts, graph: ServerGraph, report: ReportBuilder
) -> CapabilityAnswer | None:
    with_tool = [r for r in rollouts.ids if any(c.tool == tool for c in rollouts.sequences[r])]
    return await ask(
        llm,
        PROMPT,
        CapabilityAnswer,
        report,
        server=graph.server,
        tool=tool,
        tool_spec=tool_spec(graph, tool),
        known=entry_lines(graph, tool),
        tools=tool_lines(graph),
        task=rollouts.task.text,
        rollouts=rollouts.render(with_tool, mark=tool),
    )


def apply_capabilities(
    answer: CapabilityAnswer, tool: str, rollouts: TaskRollouts, graph: ServerGraph, report: ReportBuilder
) -> None:
    """Check every proposed entry of ``tool`` against its citations; merge the ones that hold."""
    for proposed in answer.entries:
        checked = check_entry(proposed, tool, rollouts, graph.specs)
        if not checked.ok:
            report.drop("entry", checked.reason or "unsupported", f"{tool} {proposed.kind}", checked.detail)
            continue
        entry, evidence = build_entry(proposed, tool, checked, graph, round_=rollouts.task.round)
        _write(graph, entry, evidence, report)


def build_entry(
    proposed: ProposedEntry, tool: str, checked: Checked, graph: ServerGraph, *, round_: int = 0
) -> tuple[Entry, list[Evidence]]:
    """The entry (signature and id as the offline inducer derives them) and its evidence."""
    first = checked.calls[0]
    fields: dict = {"text": " ".join(proposed.text.split()), "when": proposed.when, "when_not": proposed.when_not}
    if proposed.kind == "affordance":
        kind = EntryKind.AFFORDANCE
        signature, effect = _affordance_signature(graph, tool, first.arguments)
        fields |= {"example_arguments": first.arguments, "outcome": first.outcome, "effect": effect}
        evidence = [c.evidence() for c in checked.calls]
    elif proposed.kind == "boundary":
        kind = EntryKind.BOUNDARY
        masked = error_signature(first.text) or first.outcome.value
        signature = f"{first.outcome.value}|{masked}"
        fields |= {
            "condition": proposed.condition,
            "when_not": proposed.when_not or proposed.condition,
            "error_signature": masked,
            "example_arguments": first.arguments,
            "outcome": first.outcome,
            "reported_as_success": first.outcome.value == "ok",
        }
        evidence = [c.evidence() for c in checked.calls]
    else:
        kind = EntryKind.CO_USAGE
        assert proposed.relation is not None and proposed.peer is not None
        signature = f"{proposed.relation}>{proposed.peer}"
        fields |= {"peer": proposed.peer, "relation": CoUsageRelation(proposed.relation)}
        evidence = [peer_call.evidence() for _, peer_call in checked.pairs]
    node = graph.tools[tool]
    entry = Entry(
        id=Entry.make_id(graph.server, tool, node.schema_hash, kind, signature),
        kind=kind,
        server=graph.server,
        tool=tool,
        schema_hash=node.schema_hash,
        signature=signature,
        round_found=round_,
        **fields,
    )
    return entry, evidence


def _affordance_signature(graph: ServerGraph, tool: str, arguments: dict) -> tuple[str, Effect]:
    """``uses:<argument shape>`` (the offline inducer's signature, so an offline entry and an LLM one
    for the same use are one entry) and the effect a known entry with it records, else the tool's
    declared one."""
    shape = ",".join(argument_shape(arguments, graph.specs[tool].properties))
    for entry in graph.entries_of(tool, EntryKind.AFFORDANCE, active_only=False):
        if entry.signature == f"uses:{shape}":
            return entry.signature, entry.effect or Effect.UNKNOWN
    effect = Effect.READ_ONLY if graph.specs[tool].annotations.read_only else Effect.UNKNOWN
    return f"uses:{shape}", effect


def _write(graph: ServerGraph, entry: Entry, evidence: list[Evidence], report: ReportBuilder) -> None:
    """Merge the evidence from rollouts the entry does not cite yet; fill the typed fields it lacks."""
    existing = graph.entries.get(entry.id)
    cited = set(existing.probe_ids) if existing else set()
    fresh = [e for e in evidence if e.probe_id not in cited]
    for item in fresh:
        report.merged(merge_entry(graph, entry, item), entry.id)
    stored = graph.entries.get(entry.id)
    if stored is None:
        return
    update = {
        name: getattr(entry, name)
        for name in FILLABLE
        if getattr(stored, name) in (None, "") and getattr(entry, name) not in (None, "")
    }
    if update:
        graph.put_entry(stored.model_copy(update=update))
    if entry.kind is EntryKind.CO_USAGE:
        for _ in dict.fromkeys(e.probe_id for e in fresh):
            record_transition(graph, entry.id)
