"""Boundary families: what kind of misuse provoked an entry, and which kinds the schema already tells.

A boundary entry found by mutating a valid call records the mutation's family in
:attr:`~toolatlas.graph.models.Entry.family` (``wrong_type``, ``path_escape``, ``nonexistent_reference``…).
Some families only re-state the tool's JSON Schema — a wrong type, a null, a missing required
argument, an argument the schema does not declare, a value outside a declared enum or bound. An agent
reading the schema already knows those; what it needs from the atlas is the *shape* of the server's
answer to them, once per tool, not one entry per violation.
"""

from __future__ import annotations

from toolatlas.graph.models import Entry, EntryKind

__all__ = ["SCHEMA_FAMILIES", "is_schema_validation"]

SCHEMA_FAMILIES = frozenset(
    {"missing_required", "wrong_type", "null_value", "extra_argument", "invalid_enum", "out_of_range"}
)
"""Mutation families whose violation the tool's input schema states on its own."""


def is_schema_validation(entry: Entry) -> bool:
    """Whether ``entry`` is a boundary provoked only by violating the tool's input schema."""
    return entry.kind is EntryKind.BOUNDARY and entry.family in SCHEMA_FAMILIES
