"""Boundary families: what kind of misuse provoked an entry, and which kinds the schema already tells.

A boundary entry found by mutating a valid call records the mutation's family in
:attr:`~toolatlas.graph.models.Entry.family` (``wrong_type``, ``path_escape``, ``nonexistent_reference``…).
Some families only re-state the tool's JSON Schema — a wrong type, a null, a missing required
argument, an argument the schema does not declare, a value outside a declared enum or bound. An agent
reading the schema already knows those; what it needs from the atlas is the *shape* of the server's
answer to them, once per tool, not one entry per violation.

So the schema-only boundaries of a tool are summarised by one entry of family
:data:`SCHEMA_SUMMARY` — "validates its arguments against the schema; a violation answers with
<error shape>", with the count and examples of the violations tried — which is served in their
place. The individual boundaries stay in the atlas with status ``summarised``: they are the summary's
evidence, each with its own calls.

A boundary is schema-only by its cause, not by the probe that met it first: an error first met under an
argument the schema does not declare, then by a call whose arguments satisfy the schema (``Directed
Acyclic Graph required`` once the graph has a cycle), was caused by something else. :func:`restate_schema_boundary`
then states it under the call that violates nothing and serves it on its own again.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from referencing.exceptions import Unresolvable

from toolatlas.environments.base import render_value
from toolatlas.graph.models import MAX_EVIDENCE, Entry, EntryKind, EntryStatus, Evidence, confidence
from toolatlas.models import utcnow

if TYPE_CHECKING:
    from toolatlas.graph.state import ServerGraph

__all__ = [
    "HIDDEN_HOW", "OR_WHEN", "SCHEMA_FAMILIES", "SCHEMA_SUMMARY", "VERDICT_HOW", "error_shape", "is_schema_validation",
    "restate_schema_boundary", "schema_summary", "summarise_schema", "verdict_quote",
]

OR_WHEN = "; or when "
"""Between the conditions of a boundary that several misuses ran into with one answer
(:func:`toolatlas.graph.inducer.merge_entry`)."""

SCHEMA_SUMMARY = "schema_validation"
"""Family of the one entry per tool that stands for all its schema-only boundaries."""

SCHEMA_FAMILIES = frozenset(
    {"missing_required", "unwrapped_arguments", "wrong_type", "null_value", "extra_argument", "invalid_enum",
     "out_of_range", SCHEMA_SUMMARY}
)
"""Mutation families whose violation the tool's input schema states on its own (and their summary)."""

MIN_SHAPE = 8
"""Shortest common beginning of the errors that is taken as their shape."""
MAX_EXAMPLES = 4
MAX_CONDITIONS = 2
"""Violations a summary's ``condition`` names (the most supported): what guidance shows of it."""


def is_schema_validation(entry: Entry) -> bool:
    """Whether ``entry`` is a boundary provoked only by violating the tool's input schema — and refused, if only by
    an error inside a successful result: a violation the tool answers as if it succeeded (a value outside the set
    taken for another, :data:`HIDDEN_HOW`) is no rule its schema enforces."""
    return (entry.kind is EntryKind.BOUNDARY and entry.family in SCHEMA_FAMILIES
            and f"` {HIDDEN_HOW} (" not in entry.text)


HIDDEN_HOW = "answers as if it succeeded"
"""How a boundary's sentence says the tool's answer read as a success although the call failed
(:mod:`toolatlas.probing.hidden`)."""


def error_shape(signatures: list[str]) -> str:
    """What errors have in common: their shared beginning cut at a word (``Input validation error: …``),
    else the most frequent one."""
    signatures = [s for s in signatures if s]
    if not signatures:
        return ""
    prefix = signatures[0]
    for other in signatures[1:]:
        while not other.startswith(prefix):
            prefix = prefix[:-1]
    if len(signatures) > 1 and prefix != signatures[0]:
        cut = max(prefix.rfind(" "), prefix.rfind(":") + 1)
        prefix = prefix[:cut].rstrip() if cut > 0 else prefix
        if len(prefix) >= MIN_SHAPE:
            return prefix + " …"
    return Counter(signatures).most_common(1)[0][0]


def _answer_shape(evidence: Evidence) -> str:
    """An evidence call's answer with its numbers masked: what tells two refusals apart."""
    return re.sub(r"\d+", "<n>", " ".join(evidence.excerpt.split()))


def _distinct_answers(members: list[Entry]) -> list[Evidence]:
    """Up to :data:`MAX_EVIDENCE` calls: each member's first, then the others that got an answer not kept
    yet (one member may hold several violations whose answers share a first line: ``Error: [`` and a list
    of issues that differ below it)."""
    kept: list[Evidence] = []
    shapes: set[str] = set()
    for pool in ([m.evidence[0] for m in members if m.evidence], [e for m in members for e in m.evidence[1:]]):
        for item in pool:
            shape = _answer_shape(item)
            if shape not in shapes and len(kept) < MAX_EVIDENCE:
                shapes.add(shape)
                kept.append(item)
    return kept


def schema_summary(tool: str, members: list[Entry], base: Entry) -> Entry:
    """The summary entry of ``tool``'s schema-only boundaries ``members`` (``base`` gives its id and
    identity fields): one sentence with the answer's shape per outcome, the count and examples of the
    violations tried, and one evidence call per distinct violation, then per distinct answer."""
    members = sorted(members, key=lambda e: (-e.support, e.id))
    by_answer: dict[tuple[str, bool], list[Entry]] = {}
    for member in members:
        outcome = member.outcome.value if member.outcome else "tool_error"
        by_answer.setdefault((outcome, member.reported_as_success), []).append(member)
    answers = []
    for (outcome, soft), group in by_answer.items():
        how = "an error in an otherwise successful result" if soft else outcome
        shape = error_shape([e.error_signature or "" for e in group])
        answers.append(f"{how} “{shape[:160]}”" if shape else how)
    conditions = list(dict.fromkeys(c for e in members if e.condition for c in e.condition.split(OR_WHEN)))
    examples = "; ".join(conditions[:MAX_EXAMPLES]) + (f"; +{len(conditions) - MAX_EXAMPLES} more" if len(conditions) > MAX_EXAMPLES else "")
    calls = sum(e.support for e in members)
    text = (f"`{tool}` validates its arguments against its input schema; a violation answers with "
            f"{' or '.join(answers)} ({len(members)} violation(s) tried, {calls} call(s): {examples}).")
    evidence = _distinct_answers(members)
    first = members[0]
    return base.model_copy(update={
        "text": text,
        "condition": " or ".join(conditions[:MAX_CONDITIONS]),
        "when_not": "its arguments violate its input schema",
        "error_signature": error_shape([e.error_signature or "" for e in members]),
        "example_arguments": first.example_arguments,
        "outcome": first.outcome,
        "reported_as_success": all(e.reported_as_success for e in members),
        "family": SCHEMA_SUMMARY,
        "summarises": [e.id for e in members],
        "evidence": evidence,
        "probe_ids": list(dict.fromkeys(p for e in members for p in e.probe_ids))[-50:],
        "support": calls,
        "round_found": min(e.round_found for e in members),
        "first_verified": min(e.first_verified for e in members),
        "last_verified": max(e.last_verified for e in members),
        "status": EntryStatus.ACTIVE,
    })


def _conforms(arguments: dict[str, Any], schema: dict[str, Any]) -> bool:
    """Whether a call's arguments, as the server saw them (the values made when a call is rendered filled in:
    ``${oversized_text}`` is 100 KB, not its placeholder), satisfy the tool's input schema (a schema that does not
    parse, or whose ``$ref`` leads nowhere: no)."""
    try:
        sent = render_value(arguments, {}, keep_unknown=True)
        return bool(validator_for(schema)(schema).is_valid(sent)) if schema else True
    except (SchemaError, Unresolvable):
        return False


def restate_schema_boundary(graph: ServerGraph, seen: Entry, round_: int = 0) -> None:
    """A boundary first met under a schema violation, met again by a call whose arguments satisfy the schema
    (``seen``, of the same signature, planned as no schema misuse — whatever probe made it): the violation was
    not its cause (a state the server was in was). The entry takes
    the new call's condition, family and sentence, is served on its own again, and leaves the schema summary."""
    existing = graph.entries.get(seen.id)
    if existing is None or existing.family not in SCHEMA_FAMILIES or seen.family in SCHEMA_FAMILIES:
        return
    spec = graph.specs.get(seen.tool)
    if spec is None or not _conforms(seen.example_arguments or {}, spec.input_schema):
        return  # a call that violates the schema itself (an empty string where an enum is) clears nothing
    fields = ("family", "condition", "when_not", "text", "example_arguments", "outcome", "reported_as_success")
    update: dict[str, Any] = {field: getattr(seen, field) for field in fields}
    if existing.status is EntryStatus.SUMMARISED:
        update["status"] = EntryStatus.ACTIVE
    graph.put_entry(existing.model_copy(update=update))
    summarise_schema(graph, seen.tool, round_)


def summarise_schema(graph: ServerGraph, tool: str, round_: int = 0) -> Entry | None:
    """Serve ``tool``'s schema-only boundaries as one summary entry; they stay as its evidence with
    status ``summarised`` (:mod:`toolatlas.graph.families`). Returns the summary, None without members
    (a summary whose members have all been restated is set aside as stale)."""
    members = [
        e for e in graph.entries_of(tool, EntryKind.BOUNDARY, active_only=False)
        if is_schema_validation(e) and e.family != SCHEMA_SUMMARY
        and e.status in (EntryStatus.ACTIVE, EntryStatus.SUMMARISED)
    ]
    node = graph.tools[tool]
    entry_id = Entry.make_id(graph.server, tool, node.schema_hash, EntryKind.BOUNDARY, SCHEMA_SUMMARY)
    if not members:
        emptied = graph.entries.get(entry_id)
        if emptied is not None and emptied.status is EntryStatus.ACTIVE:
            graph.put_entry(emptied.model_copy(update={
                "status": EntryStatus.STALE, "status_reason": "every boundary it summarised has another cause",
                "status_changed": utcnow()}))
        return None
    for member in members:
        if member.status is not EntryStatus.SUMMARISED:
            graph.put_entry(member.model_copy(update={"status": EntryStatus.SUMMARISED}))
    base = graph.entries.get(entry_id) or Entry(
        id=entry_id, kind=EntryKind.BOUNDARY, server=graph.server, tool=tool, schema_hash=node.schema_hash,
        signature=SCHEMA_SUMMARY, text="", round_found=round_,
    )
    summary = schema_summary(tool, [graph.entries[m.id] for m in members], base)
    summary = summary.model_copy(update={"confidence": confidence(summary.support, summary.contradictions)})
    graph.put_entry(summary)
    return summary


VERDICT_HOW = "gives a negative verdict"
"""How a boundary's sentence says a judging tool's answer was no (:data:`~toolatlas.probing.verdicts.NEGATIVE_VERDICT`)."""


def verdict_quote(entry: Entry) -> str | None:
    """The answer's own words of a boundary that is a judging tool's negative verdict (``"is_valid": false``), or
    None for any other entry."""
    if entry.kind is not EntryKind.BOUNDARY or f"` {VERDICT_HOW} when " not in entry.text:
        return None
    quote = entry.text.rpartition("“")[2].rpartition("”")[0]
    return quote or None
