"""A second write of the same record with one value changed: does it add a record, or replace the first?

A tool that adds records (facts, relations, rows) may key them by some of their fields and keep one
record per key: a second add with the same key and another value silently replaces the first
(``api reads db``, then ``api writes db``, leaves only ``writes``), and its answer says at most that the
record "existed". Nothing in the schema tells which fields are the key, so each text value of the
record is tried in turn, as the one the second write changes:

``write (value a) → read → write (value b) → read``

where both values are distinctive markers and the reads are argument-free readers of the server's
state (a listing, a dump), the same after each write. A reader's first read must show ``a`` (else it
cannot tell), its second must show ``b``; if it no longer shows ``a``, the second write replaced the first
(:func:`toolatlas.probing.verifier` marks that write as a failure reported as success); if it shows
both, the tool keeps both records, a misuse it tolerates. Only tools that create are asked: a tool
that sets or updates replaces by its very purpose.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from toolatlas.models import ToolSpec
from toolatlas.offline.kinds import ToolEffect, tool_effect
from toolatlas.offline.workflows import exercised_keys, shared_arguments
from toolatlas.probing.bindings import bound_references
from toolatlas.probing.models import ProbeStep

if TYPE_CHECKING:
    from toolatlas.offline.proposer import OfflineProposer

__all__ = ["SECOND_WRITE", "second_writes"]

SECOND_WRITE = "second_write"
"""The family of a second write of the same record with one value changed."""
MAX_FIELDS = 3
"""Values of a record tried as the one a second write changes."""
MAX_READERS = 4
"""Argument-free readers asked after each write (one of them may show the records, the others not)."""


def _fields(arguments: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str | int, ...]]]:
    """The call with each array of records cut to its first record, and where its text values sit: the
    fields of that record (``facts[0].rel``), else the call's own text arguments when it has two or more."""
    cut = copy.deepcopy(arguments)
    for name, value in arguments.items():
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            cut[name] = [value[0]]
            fields: list[tuple[str | int, ...]] = [(name, 0, key) for key, item in value[0].items() if _text(item)]
            return cut, fields[:MAX_FIELDS]
    slots: list[tuple[str | int, ...]] = [(name,) for name, value in arguments.items() if _text(value)]
    return cut, slots[:MAX_FIELDS] if len(slots) >= 2 else []


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and not bound_references(value) and "${" not in value


def _locator(slot: tuple[str | int, ...]) -> str:
    text = str(slot[0])
    for part in slot[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _with(arguments: dict[str, Any], slot: tuple[str | int, ...], value: str) -> dict[str, Any]:
    changed = copy.deepcopy(arguments)
    node: Any = changed
    for part in slot[:-1]:
        node = node[part]
    node[slot[-1]] = value
    return changed


def second_writes(proposer: OfflineProposer, name: str, arguments: dict[str, Any]) -> list[tuple[str, str, list[ProbeStep]]]:
    """``(family, condition, steps)`` of the second writes of ``name``'s verified call ``arguments`` (see the
    module docstring): one per text value of its record, each write read by the same argument-free readers
    of the server's state."""
    tool: ToolSpec = proposer.graph.specs[name]
    if tool_effect(tool) is not ToolEffect.CREATE:
        return []
    record, slots = _fields(arguments)
    readers = proposer.state_readers(tool)[:MAX_READERS]
    reads: list[ProbeStep] = []
    for reader in readers:
        planned = proposer.synth.valid_arguments(reader, proposer.args[reader.name], 0)
        if planned is not None:
            arguments = {**planned.arguments, **shared_arguments(record, reader)}
            reads.append(ProbeStep(tool=reader.name, arguments=arguments, expect="ok",
                                   exercised=exercised_keys(arguments, reader), intent=reader.purpose))
    if not reads:
        return []
    out: list[tuple[str, str, list[ProbeStep]]] = []
    for slot in slots:
        tag = proposer.synth.tag()
        first_value, second_value = f"first_{tag}", f"second_{tag}"
        where = _locator(slot)
        condition = f"the call just before wrote the same values but another `{where}`"
        second = 1 + len(reads)
        steps = [
            ProbeStep(tool=name, arguments=_with(record, slot, first_value), expect="ok", marker=first_value,
                      intent=f"{tool.purpose} (a record whose `{where}` is marked)"),
            *(read.model_copy(update={"observes": 0}) for read in reads),
            ProbeStep(tool=name, arguments=_with(record, slot, second_value), expect="any", marker=second_value,
                      mutation=SECOND_WRITE, condition=condition, intent=f"write the same record with another `{where}`"),
            *(read.model_copy(update={"observes": second, "loses": 0,
                                      "intent": f"{read.intent}: is the first record still there?"}) for read in reads),
        ]
        out.append((SECOND_WRITE, condition, steps))
    return out
