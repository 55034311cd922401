"""Multi-step workflows the proposer plans: what a call needs done first, and writes that carry what a read returned.

- **Preconditions** (:func:`preconditions`): a tool that fails on the untouched snapshot is called
  again, the very same call, after a tool that may prepare the state it needs — the tools its error
  names or points to (:func:`toolatlas.offline.retries.stated_enablers`: the word it shares with
  their names, what the error says is missing, the tool whose state it undoes), then the tools that
  create or update its kind of object. The enabler acts on the same things as the failing call (the
  arguments it takes under the same name and type: the file, the request id, the password). On an
  in-process state no digest sees, the failing call runs twice first too (failing, or answering the
  same from what earlier probes left in the process), so its changed answer shows it; when its error
  names the tool to call first (``call acpi_load first``), it runs once before that tool too, since
  what the tool prepares may be the server's own memory.
- **Chained preconditions** (:func:`chained_preconditions`): a call that failed inside a chain is
  retried in the same chain after the tool its error points to — ``plan → approve`` failed with "not
  done yet", so ``plan → mark done → approve``; a deeper workflow grows one enabler per round.
- **Deferred effects** (:func:`deferred_effects`): a call whose answer names another tool that changes things
  (``Remember to call save_sdlxliff to persist changes``) is run between two calls of that tool —
  ``save, save, update, save`` — and the last changes what the second, right after itself, did not: the first
  tool's change reaches the state only through the second (an in-memory edit a save writes out).
- **Record chains** (:func:`record_chains`): ``read → write`` where the write takes back the fields
  of the record the read returned (:mod:`toolatlas.offline.records`): the hash of that file, the
  range hash and lines of that range — a data composition value-by-value harvesting cannot make.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from toolatlas.graph.models import EntryKind
from toolatlas.models import ToolSpec
from toolatlas.offline.kinds import ToolEffect, tool_effect, tool_object
from toolatlas.offline.records import aligned_arguments, leaves, merged_arguments
from toolatlas.offline.retries import stated_enablers
from toolatlas.offline.schemas import conforms
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.probing.values import ArgKind, HarvestRef

if TYPE_CHECKING:
    from toolatlas.offline.proposer import OfflineProposer

__all__ = [
    "UnplannedFailure",
    "chained_preconditions", "deferred_effects", "exercised_keys", "named_tools", "preconditions", "record_chains",
    "shared_arguments"]

MIN_NAMED = 4
"""Shortest tool name an answer is read for (a shorter one is a common word: ``get``, ``add``)."""


class UnplannedFailure(NamedTuple):
    """A call that failed where success was expected, with what came before it."""

    prefix: list[ProbeStep]
    """The steps before it (those expected to succeed)."""
    step: ProbeStep
    error: str
    records: list[Any]
    """The JSON answers of the steps before it that worked, oldest first (placeholders for paths)."""


MAX_ENABLERS = 4
"""Tools tried first, per round, for a tool that fails on the untouched snapshot."""
MAX_RECORD_CHAINS = 2
MIN_RECORD_FIELDS = 2
"""A write is planned from a read's record when the record fills at least this many of its arguments."""


def exercised_keys(planned: dict[str, Any], tool: ToolSpec) -> list[str]:
    """Coverage keys a call exercises: the arguments it gives, with the member of an enum or a flag."""
    keys = []
    for name, value in planned.items():
        if name not in tool.properties:
            continue
        keys.append(name)
        schema = tool.properties[name] if isinstance(tool.properties[name], dict) else {}
        if schema.get("enum") and isinstance(value, str | int):
            keys.append(f"{name}={value}")
        if isinstance(value, bool):
            keys.append(f"{name}={str(value).lower()}")
    return keys


def shared_arguments(arguments: dict[str, Any], other: ToolSpec) -> dict[str, Any]:
    """The values of ``arguments`` another tool takes under the same name and type (the file, the
    request id, the password): what makes its call act on the same things. One of a numbered pair
    (``alias_a``, ``path2``) is taken under its plain name (``alias``) by a tool that has only that."""
    shared = {}
    for name, value in arguments.items():
        plain = _NUMBERED.fullmatch(name)
        taken = name if name in other.properties or plain is None else plain.group(1)
        schema = other.properties.get(taken)
        if isinstance(schema, dict) and conforms(value, schema) and taken not in shared:
            shared[taken] = value
    return shared


_NUMBERED = re.compile(r"(.+?)(?:[_-][a-z0-9]|[0-9])")
"""A name of one of a pair: the plain name, then a separated letter or digit, or a digit."""


def preconditions(proposer: OfflineProposer, round_: int, name: str) -> list[Probe]:
    """For a tool that fails on the untouched snapshot, try a state-changing tool first.

    Enablers are the tools its error message names (``Use git_add to stage changes first``),
    then the mutating tools acting on the same kind of object; while a tool the error names by its own name was
    not tried yet, only it.
    """
    tool = proposer.graph.specs[name]
    unplanned = [  # failures nobody provoked, of a call on its own (not after another step)
        e for e in proposer.graph.entries_of(name, EntryKind.BOUNDARY)
        if e.family is None and any(ev.step == 0 for ev in e.evidence)
    ]
    if not unplanned:
        return []
    planned = proposer.synth.valid_arguments(tool, proposer.args[name], 0)
    if planned is None:
        return []
    reference = proposer.reference_call(name)
    failures = [  # per boundary, one call that failed (the tool's seed call if it is one), with its error
        next(
            ((ev.arguments, ev.excerpt) for ev in e.evidence if ev.arguments == reference),
            next((ev.arguments, ev.excerpt) for ev in e.evidence if ev.step == 0),
        )
        for e in unplanned
    ]
    pairs: list[tuple[str, dict[str, Any]]] = []
    told: set[str] = set()  # enablers an error names by their own name ("call acpi_load first")
    for arguments, error in failures:  # the tools each error points to, for the very call that failed
        by_name = told_enablers(name, error, proposer.graph.specs)
        told.update(by_name)
        pairs.extend((enabler, arguments) for enabler in _pointed(proposer, name, [], error, by_name))
    related = [
        t.name for t in sorted(proposer.graph.specs.values(), key=lambda t: t.name)
        if t.name != name and tool_effect(t) in (ToolEffect.CREATE, ToolEffect.UPDATE)
        and tool_object(t) is tool_object(tool)
    ]
    if not _untried(proposer, name, [], told):  # what the server named is tried before what names suggest
        pairs.extend((enabler, failures[0][0]) for enabler in related)
    chosen: dict[str, dict[str, Any]] = {}
    for enabler, arguments in pairs:
        if len(chosen) < MAX_ENABLERS:
            chosen.setdefault(enabler, arguments)
    probes = []
    for enabler, same in chosen.items():
        spec = proposer.graph.specs[enabler]
        prepared = proposer.synth.valid_arguments(spec, proposer.args[enabler], 0)
        if prepared is None:
            continue
        made = {s.name for s in proposer.args[name] if s.fresh}  # what the failing call makes (an output file)
        # names nothing yet; it prepares the very things the failing call names
        shared = {k: v for k, v in shared_arguments(same, spec).items() if k not in made}
        first = proposer.planned_step(spec, prepared, expect="ok")
        if shared:
            arguments = {**prepared.arguments, **shared}
            first = first.model_copy(update={"arguments": arguments, "exercised": exercised_keys(arguments, spec)})
        # the very call that failed: its success proves the state was the cause
        then = proposer.planned_step(tool, planned, expect="ok").model_copy(update={
            "enabled_by": 0, "intent": f"{tool.purpose} once `{enabler}` has prepared the state",
            "arguments": same, "harvested": [], "exercised": exercised_keys(same, tool),
        })
        steps = [first, then]
        if enabler in told and not proposer.stateless:
            # the server names the tool to call first: what it prepares may be its own memory, which no digest
            # sees — the same call once before it shows the change its success after it is due to
            before = then.model_copy(
                update={"expect": "any", "enabled_by": None, "intent": f"{tool.purpose} before `{enabler}`"}
            )
            steps = [before, first, then.model_copy(update={"enabled_by": 1, "compares": 0})]
        if proposer.stateless:
            # no digest sees the server's own state: the same call twice before the enabler (it fails, or
            # answers the same: what earlier probes left in the process), then once more after it
            before = then.model_copy(
                update={"expect": "any", "enabled_by": None, "intent": f"{tool.purpose} before `{enabler}`"}
            )
            again = before.model_copy(update={"compares": 0, "intent": "the same call again: its answer is stable"})
            steps = [before, again, first, then.model_copy(update={"enabled_by": 2, "compares": 1})]
        probes.append(proposer.new_probe(round_, Direction.AFFORDANCE, name, steps, keys=[f"{name}:after:{enabler}"]))
    return probes

def told_enablers(name: str, error: str, specs: dict[str, ToolSpec]) -> list[str]:
    """The other tools an error of ``name`` names by their own name (``Create one first with pptx_create()``)."""
    return [t for t in specs if t != name and re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", error)]


def _untried(proposer: OfflineProposer, name: str, prefix: list[ProbeStep], enablers: Iterable[str]) -> list[str]:
    """Those of ``enablers`` not yet tried before ``name`` after ``prefix``."""
    before = [s.tool for s in prefix]
    return [e for e in enablers if f"{name}:after:{'>'.join([*before, e])}" not in proposer.graph.covered]


def _pointed(proposer: OfflineProposer, name: str, prefix: list[ProbeStep], error: str, told: list[str]) -> list[str]:
    """The tools an error of ``name`` (made after ``prefix``) points to: those it names by their own name
    (``told``, :func:`told_enablers`) while one of them was not tried yet — the server said what to call first, what
    the names suggest waits — else those and the ones it points to without naming them
    (:func:`~toolatlas.offline.retries.stated_enablers`)."""
    if _untried(proposer, name, prefix, told):
        return told
    return [*told, *(t for t in stated_enablers(name, error, proposer.graph.specs) if t not in told)]


def named_tools(answer: str, name: str, specs: dict[str, ToolSpec]) -> list[str]:
    """The other tools of the server that change things and that an answer of ``name`` names by their own name
    (``Remember to call save_sdlxliff to persist changes``)."""
    return [t for t, spec in sorted(specs.items()) if t != name and len(t) >= MIN_NAMED
            and tool_effect(spec) is not ToolEffect.READ and re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", answer)]


def deferred_effects(proposer: OfflineProposer, round_: int, name: str) -> list[Probe]:
    """For each tool an answer of ``name`` named (:func:`named_tools`): ``then, then, name, then`` — the named tool
    alone, again right after itself (what it changes by itself), the call whose answer named it, and the named tool
    once more, on the things that call named: the inducer compares the last with the second."""
    tool = proposer.graph.specs[name]
    probes = []
    for then_name, arguments in sorted(proposer.named_next.get(name, {}).items()):
        spec = proposer.graph.specs[then_name]
        prepared = proposer.synth.valid_arguments(spec, proposer.args[then_name], 0)
        if prepared is None:
            continue
        shared = shared_arguments(arguments, spec)
        then = proposer.planned_step(spec, prepared, expect="any")
        if shared:
            merged = {**prepared.arguments, **shared}
            then = then.model_copy(update={"arguments": merged, "exercised": exercised_keys(merged, spec)})
        call = ProbeStep(tool=name, arguments=arguments, expect="ok", exercised=exercised_keys(arguments, tool),
                         intent=f"{tool.purpose}: its answer names `{then_name}`")
        steps = [
            then.model_copy(update={"intent": f"{spec.purpose}, on its own"}),
            then.model_copy(update={"compares": 0, "intent": "again right after itself: what it changes by itself"}),
            call,
            then.model_copy(update={"expect": "ok", "enabled_by": 2, "compares": 1,
                                    "intent": f"{spec.purpose} after `{name}`: what it carries out of it"}),
        ]
        probes.append(proposer.new_probe(round_, Direction.AFFORDANCE, name, steps, keys=[f"{name}:then:{then_name}"]))
    return probes


def chained_preconditions(proposer: OfflineProposer, round_: int, name: str) -> list[Probe]:
    """A call that failed inside a chain, retried in the same chain after the tool its error points
    to, called on the same things: the arguments it shares with the failing call, and what the steps
    before it answered (the task a plan created) — ``plan → approve`` failed with "not done yet", so
    ``plan → mark done → approve``; one more enabler a round makes a deeper workflow."""
    probes = []
    failures = sorted(proposer.unplanned_failures.get(name, []), key=lambda f: -len(f.prefix))  # chains first
    for failure in failures[:3]:
        told = told_enablers(name, failure.error, proposer.graph.specs)
        for enabler in _pointed(proposer, name, failure.prefix, failure.error, told)[:2]:
            spec = proposer.graph.specs[enabler]
            prepared = proposer.synth.valid_arguments(spec, proposer.args[enabler], 0)
            if prepared is None:
                continue
            arguments = dict(prepared.arguments)
            for document in reversed(failure.records):  # the latest answer that names what it acts on
                aligned = aligned_arguments(proposer.args[enabler], document)
                if leaves(aligned):
                    arguments = merged_arguments(arguments, aligned)
                    break
            arguments = {**arguments, **shared_arguments(failure.step.arguments, spec)}
            first = proposer.planned_step(spec, prepared, expect="ok").model_copy(
                update={"arguments": arguments, "exercised": exercised_keys(arguments, spec),
                        "intent": f"{spec.purpose} (what the error of `{name}` asks for first)"}
            )
            again = failure.step.model_copy(update={
                "expect": "ok", "enabled_by": len(failure.prefix), "mutation": None, "condition": None,
                "intent": f"{proposer.graph.specs[name].purpose} once `{enabler}` has prepared the state",
            })
            steps = [*failure.prefix, first, again]
            key = f"{name}:after:{'>'.join([*(s.tool for s in failure.prefix), enabler])}"
            probes.append(proposer.new_probe(round_, Direction.AFFORDANCE, name, steps, keys=[key]))
    return probes


def record_chains(proposer: OfflineProposer, round_: int, name: str) -> list[Probe]:
    """``read → write`` where the write takes back fields of the record the read returned (the hash of
    that file, the range hash of that range: :mod:`toolatlas.offline.records`), readers the tool's
    description names first, the records that fill the most arguments first."""
    tool = proposer.graph.specs[name]
    if tool_effect(tool) is ToolEffect.READ:
        return []
    scored = []
    for record in proposer.records.all():
        if record.tool == name or record.tool not in proposer.graph.specs:
            continue
        aligned = aligned_arguments(proposer.args[name], record.document)
        filled = leaves(aligned)
        if len(filled) >= MIN_RECORD_FIELDS:
            named = record.tool in (tool.description or "")
            scored.append((not named, -len(filled), record.tool, record, aligned))
    # planned only when a record fills it: a plan draws from the build's random stream
    planned = proposer.synth.valid_arguments(tool, proposer.args[name], 0) if scored else None
    if planned is None:
        return []
    probes = []
    for _named, _filled, reader, record, aligned in sorted(scored, key=lambda s: s[:3])[:MAX_RECORD_CHAINS]:
        arguments = merged_arguments(planned.arguments, aligned)
        source = proposer.graph.specs[reader]
        read = ProbeStep(tool=reader, arguments=record.arguments, intent=source.purpose, expect="ok")
        kind = next((s.kind for s in proposer.args[name] if s.name in aligned), ArgKind.IDENTIFIER)
        ref = HarvestRef(kind=kind, value=str(leaves(aligned)[0]), tool=reader, probe_id=record.probe_id)
        write = proposer.planned_step(tool, planned, expect="ok").model_copy(update={
            "arguments": arguments, "harvested": [ref], "exercised": exercised_keys(arguments, tool),
            "intent": f"{tool.purpose}, with what `{reader}` returned about it",
        })
        probes.append(proposer.new_probe(round_, Direction.AFFORDANCE, name, [read, write], keys=[f"{name}:data<{reader}:record"]))
    return probes
