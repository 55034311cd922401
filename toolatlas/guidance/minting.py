"""Identifiers one tool mints and another takes: where an id argument's value comes from.

A tool that takes an identifier (``session_id``, ``job_id``, ``cursor``…) and was verified to fail when called
with one the probe made up can only be used with an id the server handed out. The server hands it out in another
tool's answer: a successful call of a tool of the same server whose answer carries a field of that very name
(``"session_id": "956581b72af1"`` in the code runner's JSON). Both halves are evidence in the atlas — the taker's
failure on a made-up id, the minter's answer holding the field — so the plan puts the minter first and guidance
says where the value comes from, whether or not a build saw the two called in a row.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from toolatlas.graph.families import is_schema_validation
from toolatlas.graph.models import Entry, EntryKind
from toolatlas.guidance.clauses import wrapped
from toolatlas.guidance.supply import leaves
from toolatlas.models import OutcomeClass

__all__ = ["answer_fields", "identifier", "minters", "required_arguments"]

ToolKey = tuple[str, str]

_FIELD = re.compile(r"""["']?([A-Za-z_][\w-]*)["']?\s*[:=]\s*["']?([^\s"',}\]]+)""")
"""A field of an answer with a value (``"session_id": "956581b72af1"``, ``Job ID: 42`` is not one: a label's
spaces make it no argument name)."""
_ID_WORDS = frozenset({"id", "ids", "token", "cursor", "handle", "uuid"})
"""Last words of the name of an argument that identifies something the server handed out."""


def identifier(argument: str) -> bool:
    """Whether an argument names an identifier by its last word (``session_id``, ``jobId``, ``cursor``)."""
    words = re.findall(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])", argument)
    return bool(words) and words[-1].lower() in _ID_WORDS


def answer_fields(entries: Mapping[EntryKind, list[Entry]]) -> frozenset[str]:
    """The names of the fields with a value in a tool's verified successful answers."""
    found: set[str] = set()
    for entry in entries.get(EntryKind.AFFORDANCE, []):
        for evidence in entry.evidence:
            if evidence.outcome is OutcomeClass.OK:
                found.update(name for name, value in _FIELD.findall(evidence.excerpt) if value)
    return frozenset(found)


def _refused_made_up(entries: Mapping[EntryKind, list[Entry]], argument: str) -> bool:
    """Whether a call given a value for ``argument`` (at any depth: ``params.session_id``) failed, not by schema."""
    return any(not is_schema_validation(entry)
               and any(path.rsplit(".", 1)[-1] == argument for evidence in entry.evidence[:1]
                       for key, item in evidence.arguments.items() for path, _ in leaves(item, key))
               for entry in entries.get(EntryKind.BOUNDARY, []))


def minters(keys: list[ToolKey], arguments: Mapping[ToolKey, tuple[str, ...]],
            by_tool: Mapping[ToolKey, Mapping[EntryKind, list[Entry]]]) -> dict[str, dict[str, frozenset[str]]]:
    """Taker tool → identifier argument → the tools of the same server that are not given it and whose verified
    answers carry a field of that name, for the identifiers the taker requires and was verified to refuse when made
    up."""
    fields = {key: answer_fields(by_tool.get(key, {})) for key in keys}
    found: dict[str, dict[str, frozenset[str]]] = {}
    for key in keys:
        for argument in (a for a in arguments[key] if identifier(a)):
            if not _refused_made_up(by_tool.get(key, {}), argument):
                continue
            mint = frozenset(other[1] for other in keys  # a tool that must be given the id echoes it, mints nothing
                             if other != key and argument in fields[other] and argument not in arguments[other])
            if mint:
                found.setdefault(key[1], {})[argument] = mint
    return found


def required_arguments(schema: Mapping) -> tuple[str, ...]:
    """The arguments a call must pass: the required top-level ones, and those required inside a required top-level
    argument that only wraps them in an object (:func:`~toolatlas.guidance.clauses.wrapped`)."""
    found: list[str] = []
    for name in schema.get("required") or ():
        inner = wrapped(schema, (schema.get("properties") or {}).get(name))
        if inner is not None:
            found += [str(n) for n in inner.get("required") or ()]
        else:
            found.append(str(name))
    return tuple(found)
