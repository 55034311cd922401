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
"""

from __future__ import annotations

from collections import Counter

from toolatlas.graph.models import MAX_EVIDENCE, Entry, EntryKind, EntryStatus, Evidence

__all__ = ["SCHEMA_FAMILIES", "SCHEMA_SUMMARY", "error_shape", "is_schema_validation", "schema_summary"]

SCHEMA_SUMMARY = "schema_validation"
"""Family of the one entry per tool that stands for all its schema-only boundaries."""

SCHEMA_FAMILIES = frozenset(
    {"missing_required", "wrong_type", "null_value", "extra_argument", "invalid_enum", "out_of_range", SCHEMA_SUMMARY}
)
"""Mutation families whose violation the tool's input schema states on its own (and their summary)."""

MIN_SHAPE = 8
"""Shortest common beginning of the errors that is taken as their shape."""
MAX_EXAMPLES = 4
MAX_CONDITIONS = 2
"""Violations a summary's ``condition`` names (the most supported): what guidance shows of it."""


def is_schema_validation(entry: Entry) -> bool:
    """Whether ``entry`` is a boundary provoked only by violating the tool's input schema."""
    return entry.kind is EntryKind.BOUNDARY and entry.family in SCHEMA_FAMILIES


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


def schema_summary(tool: str, members: list[Entry], base: Entry) -> Entry:
    """The summary entry of ``tool``'s schema-only boundaries ``members`` (``base`` gives its id and
    identity fields): one sentence with the answer's shape per outcome, the count and examples of the
    violations tried, and one evidence call per distinct violation."""
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
    conditions = list(dict.fromkeys(e.condition for e in members if e.condition))
    examples = "; ".join(conditions[:MAX_EXAMPLES]) + (f"; +{len(conditions) - MAX_EXAMPLES} more" if len(conditions) > MAX_EXAMPLES else "")
    calls = sum(e.support for e in members)
    text = (f"`{tool}` validates its arguments against its input schema; a violation answers with "
            f"{' or '.join(answers)} ({len(members)} violation(s) tried, {calls} call(s): {examples}).")
    evidence: list[Evidence] = []
    for member in members:
        if member.evidence and len(evidence) < MAX_EVIDENCE:
            evidence.append(member.evidence[0])
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
