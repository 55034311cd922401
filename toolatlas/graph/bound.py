"""Failures whose cause is an identifier no earlier call made: proven by the same call, bound, succeeding.

A consumer of an identifier the server mints (a session, a handle) fails on its own with any value a
caller makes up (``Session not found``); called right after the minting tool with the value that
tool answered (:mod:`toolatlas.probing.bindings`), the very same call otherwise, it succeeds. That
pair proves the condition of the failure: the argument does not name something the minting tool
made in this server's process — an ordering precondition (call it first, pass on what it answers),
with the minting tool as the boundary's peer.
"""

from __future__ import annotations

from toolatlas.graph.models import CoUsageRelation, EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.probing.bindings import parse_ref
from toolatlas.probing.models import Probe, Verdict

__all__ = ["bound_cause", "bound_source", "prove_bound_causes"]


def bound_cause(argument: str, source: str, path: str) -> str:
    """The condition of a call whose ``argument`` names nothing ``source`` made."""
    return (f"`{argument}` is not one `{source}` made in this server's process (the same call succeeds with "
            f"the `{path}` `{source}` answers, right after it)")


def bound_source(value: str, probe: Probe) -> str | None:
    """How a bound argument's value was made, in words (None for a value that is not bound)."""
    ref = parse_ref(value)
    if ref is None or ref[0] >= len(probe.steps):
        return None
    return f"the `{ref[1]}` `{probe.steps[ref[0]].tool}` answered at step {ref[0]} of the same run"


def prove_bound_causes(graph: ServerGraph, probe: Probe, verdict: Verdict) -> None:
    """For each call that succeeded with arguments bound to an earlier step's answer: the unprovoked
    failures of the same call with other values there get the proven condition and the minting peer."""
    for result in verdict.steps:
        step = probe.steps[result.index]
        if result.failed or step.mutation:
            continue
        refs = {name: parse_ref(value) for name, value in step.arguments.items()}
        bound = {name: ref for name, ref in refs.items() if ref is not None and ref[0] < len(probe.steps)}
        if not bound:
            continue
        rest = {k: v for k, v in step.arguments.items() if k not in bound}
        for entry in graph.entries_of(step.tool, EntryKind.BOUNDARY):
            arguments = entry.example_arguments
            if entry.family is not None or arguments is None or entry.relation is not None:
                continue
            if {k: v for k, v in arguments.items() if k not in bound} != rest:
                continue
            if not all(name in arguments and parse_ref(arguments[name]) is None for name in bound):
                continue
            name, (index, path) = next(iter(bound.items()))
            source = probe.steps[index].tool
            condition = bound_cause(name, source, path)
            head = entry.text.split(" when ", 1)[0]
            quote = entry.text[entry.text.rfind("“") :] if "“" in entry.text else entry.signature + "."
            graph.put_entry(entry.model_copy(update={
                "condition": condition, "when_not": condition, "text": f"{head} when {condition}: {quote}",
                "peer": source, "relation": CoUsageRelation.DATA}))
