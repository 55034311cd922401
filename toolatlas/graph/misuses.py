"""A misuse seen both accepted and rejected: the arguments that separate the two outcomes.

A boundary probe breaks one argument of a valid call (row 0 for a cell, an empty name…) and records
the break as the condition. The same break applied to two different valid calls can be refused by
one and tolerated by the other — a CSV file takes a row-0 cell that a workbook refuses. Both
observations are true, but served as "fails when `dest_start` names row 0" beside "accepts the call
even when `dest_start` names row 0" they contradict each other: the condition that separates them
is the rest of the call, which neither entry states.

So whenever one tool's misuse (family and planned condition) is served both as a boundary and as a
tolerated call, every such entry's condition is qualified by the arguments whose values never
overlap between the accepted and the rejected calls (``with `file` = "${root}/prices.csv"``). The
planned condition stays where it was written (a boundary's ``when_not``, a tolerated call's
``when``). A failure answered as success in calls that changed nothing beside calls that took the same
misuse and changed the state (a made-up item among real ones) is separated first by what the rest of the
call did: "… and nothing else in the call takes effect" against "… while the rest of the call takes
effect". When neither separates them, nothing is qualified and the consistency check reports
the pair: then the outcome depends on something the calls do not show.
"""

from __future__ import annotations

import json

from toolatlas.graph.families import SCHEMA_FAMILIES
from toolatlas.graph.models import Entry, EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.models import OutcomeClass

__all__ = ["ACCEPTED", "misuse_condition", "separate_misuse"]

ACCEPTED = " (accepted)"
"""The suffix of a tolerated call's ``when`` after its planned condition."""
NOTHING_ELSE = "and nothing else in the call takes effect"
REST_TAKES_EFFECT = "while the rest of the call takes effect"
MAX_VALUES = 3
"""An argument separates the outcomes only by this many values per side at most (else it is noise)."""
_SHOWN = 60


def misuse_condition(entry: Entry) -> str:
    """The condition a misuse entry is served under: its qualified one, else the planned one."""
    if entry.condition:
        return entry.condition
    return (entry.when or "").removesuffix(ACCEPTED)


def _planned(entry: Entry) -> str:
    return (entry.when_not if entry.kind is EntryKind.BOUNDARY else (entry.when or "").removesuffix(ACCEPTED)) or ""


def _is_misuse(entry: Entry) -> bool:
    if entry.family is None or entry.family in SCHEMA_FAMILIES:
        return False
    return entry.kind is EntryKind.BOUNDARY or entry.signature.startswith("tolerates:")


def _shown(value: str) -> str:
    return value if len(value) <= _SHOWN else value[: _SHOWN - 1] + "…"


def _values(entries: list[Entry]) -> dict[str, set[str]]:
    """Argument name → the values (canonical JSON; ``absent``) it had in the entries' evidence calls."""
    calls = [item.arguments for entry in entries for item in entry.evidence]
    names = {name for call in calls for name in call}
    return {name: {json.dumps(call[name], ensure_ascii=False, sort_keys=True) if name in call else "absent"
                   for call in calls} for name in names}


def _separated_by_effect(rejected: list[Entry], accepted: list[Entry]) -> bool:
    """Whether the outcome follows what the rest of the call did: every rejection is a failure answered as
    success (an ok answer) in a call that changed nothing, every acceptance a call that changed the state
    (a made-up item beside real ones: the real ones took effect, the made-up one was passed over)."""
    return (all(e.outcome is OutcomeClass.OK and all(not i.state_change for i in e.evidence) for e in rejected)
            and all(all(i.state_change for i in e.evidence) for e in accepted))


def _qualifier(values: dict[str, set[str]], separating: list[str]) -> str:
    parts = []
    for name in separating:
        shown = sorted(values[name])
        if shown == ["absent"]:
            parts.append(f"no `{name}`")
        else:
            parts.append(f"`{name}` = " + " or ".join(_shown(v) for v in shown))
    return ", ".join(parts)


def _restated(entry: Entry, condition: str) -> Entry:
    """``entry`` served under ``condition`` (its sentence rewritten around it)."""
    if entry.kind is EntryKind.BOUNDARY:
        head, _, rest = entry.text.partition(" when ")
        quote = rest[rest.rfind(": “"):] if ": “" in rest else "."
        text = f"{head} when {condition}{quote}"
    else:
        text = f"`{entry.tool}` accepts the call without error even when {condition}."
    if entry.kind is EntryKind.AFFORDANCE and condition == _planned(entry):
        return entry.model_copy(update={"condition": None, "text": text})
    return entry.model_copy(update={"condition": condition, "text": text})


def separate_misuse(graph: ServerGraph, entry: Entry) -> None:
    """Qualify every active entry of ``entry``'s misuse (tool, family, planned condition) when it is
    served both rejected and accepted (see the module docstring); a no-op for any other entry."""
    if not _is_misuse(entry):
        return
    planned = _planned(entry)
    group = [e for e in graph.entries_of(entry.tool) if _is_misuse(e) and e.family == entry.family
             and _planned(e) == planned]
    rejected = [e for e in group if e.kind is EntryKind.BOUNDARY]
    accepted = [e for e in group if e.kind is EntryKind.AFFORDANCE]
    if not rejected or not accepted:
        return
    refused, tolerated = _values(rejected), _values(accepted)
    separating = sorted(
        name for name in set(refused) | set(tolerated)
        if not (refused.get(name, {"absent"}) & tolerated.get(name, {"absent"}))
        and len(refused.get(name, ())) <= MAX_VALUES and len(tolerated.get(name, ())) <= MAX_VALUES
    )
    by_effect = _separated_by_effect(rejected, accepted)
    for side, values in ((rejected, refused), (accepted, tolerated)):
        values = {name: values.get(name, {"absent"}) for name in separating}
        if by_effect:  # what was observed to differ, before argument values that merely do
            condition = f"{planned}, {NOTHING_ELSE if side is rejected else REST_TAKES_EFFECT}"
        elif separating:
            condition = f"{planned}, with {_qualifier(values, separating)}"
        else:
            condition = planned
        for member in side:
            if misuse_condition(member) != condition:  # qualified, or no longer separable: as planned
                graph.put_entry(_restated(member, condition))
