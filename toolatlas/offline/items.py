"""The fields of an array's items that a schema leaves open, learned from what the server says of a wrong item.

``conditions: list[dict]`` says nothing of what a condition holds; the server says it when an item
lacks a field it reads (and its description may say them: ``Each condition is a dict with keys:
field, operator, value``, :func:`stated_fields`). Python reads a missing key as ``None`` (``Column 'None' not found``,
``Unknown operator: None``) or raises ``KeyError: 'column'``; JavaScript reads it as ``undefined``
(``Cannot read properties of undefined (reading 'column')``); a validator names its location
(``conditions.0.column Field required``). :func:`missing_field` reads such an error into the name
of the field (``column``, ``operator``).

:class:`ItemFields` keeps, per tool and argument, the fields learnt so far, and :meth:`ItemFields.apply`
writes them into the argument's specs as required string fields of its items: a valid call then
builds items that hold them (a value of each field's own kind: a column a load listed,
:mod:`toolatlas.offline.listed`), and boundary probes break them one at a time. The first item
sent is one with no field at all (the ``empty_value`` probe of such an array,
:mod:`toolatlas.offline.mutators`); each failure after it that names a field the items lack adds
that field, until :data:`MAX_FIELDS`.
"""

from __future__ import annotations

import re
from typing import Any

from toolatlas.models import ToolSpec
from toolatlas.offline.hints import listed_items, without_echo
from toolatlas.offline.kinds import ArgSpec, infer_arguments, parent_singular
from toolatlas.probing.text import json_error_reason
from toolatlas.probing.values import ArgKind

__all__ = ["MAX_FIELDS", "ItemFields", "missing_field", "open_items", "stated_fields"]

MAX_FIELDS = 6
"""Fields learnt for one argument's items at most."""
_FIELD = r"([A-Za-z_][A-Za-z0-9_]{0,39})"
_NAME = re.compile(_FIELD)
_READ_AS_MISSING = re.compile(r"(?<!\w)" + _FIELD + r"""(?:\s*[:=]\s*['"`]?|\s+['"`]?|['"`])(?:None|null|undefined)(?!\w)""")
"""A word right before the value a missing key reads as: ``Column 'None'``, ``operator: None``."""
_NAMED_MISSING = (
    re.compile(r"^\s*(?:KeyError:\s*)?'" + _FIELD + r"'\s*$"),  # Python's KeyError, as str(error) gives it
    re.compile(r"\breading '" + _FIELD + r"'"),  # JavaScript: Cannot read properties of undefined (reading 'x')
    re.compile(r"\b\w+\.\d+\." + _FIELD + r"\s+(?:Field required|field required|Required)\b"),  # pydantic, zod
    re.compile(r"(?:missing|required) (?:key|field|property)\s*[:=]?\s*['\"`]" + _FIELD + r"['\"`]", re.IGNORECASE),
)
_NOT_FIELDS = frozenset(
    "is was are got be not received given found value type of to a an the expected but and or with for as "
    "returned returns none null undefined reading error".split()
)


def open_items(spec: ArgSpec) -> bool:
    """Whether ``spec`` is an array of objects whose fields the schema does not name."""
    items = spec.items
    return (spec.kind is ArgKind.ARRAY and items is not None and items.kind is ArgKind.OBJECT
            and not items.properties and items.additional_properties)


def stated_fields(tool: ToolSpec, spec: ArgSpec) -> list[str]:
    """The fields a description says the open items of ``spec`` hold: ``Each condition is a dict with keys:
    field, operator, value``."""
    noun = parent_singular(spec.name)
    said = re.compile(rf"\b(?:each|every|an?)\s+{re.escape(noun)}\s+(?:is|must be|should be)\s+an?\s+"
                      r"(?:dict|dictionary|object|map|mapping|record)\s+(?:with|having|of)\s+(?:the\s+)?"
                      r"(?:keys|fields|properties|attributes)?\s*:?\s*", re.IGNORECASE)
    for text in (spec.description, tool.description):
        match = said.search(text or "")
        if match:
            return [f for f in listed_items(text[match.end():]) if _NAME.fullmatch(f)][:MAX_FIELDS]
    return []


def missing_field(error: str, present: set[str]) -> str | None:
    """The field an error says an item lacks (not one of ``present``), or None."""
    reason = without_echo(json_error_reason(error) or error)  # ``input_value=None`` is the echo, not a field read
    named = [m.group(1) for pattern in _NAMED_MISSING if (m := pattern.search(reason))]
    before = [m.group(1) for m in _READ_AS_MISSING.finditer(reason)]
    before = [w.lower() if w[:1].isupper() and w[1:].islower() else w for w in before]  # a sentence's first word
    return next((f for f in [*named, *(w for w in before if w.lower() not in _NOT_FIELDS)] if f not in present), None)


class ItemFields:
    """The fields learnt for the open items of each tool's array arguments."""

    def __init__(self) -> None:
        self._fields: dict[str, dict[str, list[str]]] = {}
        """tool → argument → its items' fields, in the order they were learnt."""

    def state(self, tool: ToolSpec, specs: list[ArgSpec]) -> bool:
        """Take the fields the description says the open items of ``tool``'s arguments hold; whether any."""
        stated = {spec.name: fields for spec in specs if open_items(spec) and (fields := stated_fields(tool, spec))}
        for argument, fields in stated.items():
            self._fields.setdefault(tool.name, {})[argument] = fields
        return bool(stated)

    def learn(self, tool: ToolSpec, specs: list[ArgSpec], arguments: dict[str, Any], error: str) -> bool:
        """Learn from a failed call of ``tool`` the field its items lack; whether one was new."""
        learnt = False
        for spec in specs:
            value = arguments.get(spec.name)
            known = self._fields.get(tool.name, {}).get(spec.name, [])
            if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
                continue
            if not (open_items(spec) or known) or len(known) >= MAX_FIELDS:
                continue
            present = {k for item in value for k in item} | set(tool.properties) | {spec.name}
            field = missing_field(error, present)
            if field is not None:
                self._fields.setdefault(tool.name, {}).setdefault(spec.name, []).append(field)
                learnt = True
        return learnt

    def apply(self, tool: ToolSpec, specs: list[ArgSpec]) -> list[ArgSpec]:
        """``specs`` with the learnt fields written into their items (required strings)."""
        learnt = self._fields.get(tool.name)
        if not learnt:
            return specs
        out = []
        for spec in specs:
            fields = learnt.get(spec.name)
            if not fields or spec.items is None:
                out.append(spec)
                continue
            items = {**spec.items.json_schema, "type": "object", "required": list(fields),
                     "properties": {f: {"type": "string", "title": f.replace("_", " ").title()} for f in fields}}
            shaped = ToolSpec(server=tool.server, name=tool.name, description=tool.description,
                              input_schema={"type": "object", "properties": {spec.name: {"type": "array", "items": items}}})
            out.append(spec.model_copy(update={"items": infer_arguments(shaped)[0].items}))
        return out

    def fields(self, tool: str, argument: str) -> list[str]:
        """The fields learnt for the items of ``argument`` of ``tool``."""
        return list(self._fields.get(tool, {}).get(argument, []))

    def dump(self) -> dict[str, dict[str, list[str]]]:
        """What was learnt, JSON-able (for checkpoints)."""
        return {tool: {argument: list(fields) for argument, fields in found.items()} for tool, found in self._fields.items()}

    def load(self, saved: dict[str, dict[str, list[str]]]) -> None:
        """Continue from :meth:`dump`."""
        self._fields = {tool: {argument: list(fields) for argument, fields in found.items()}
                        for tool, found in saved.items()}
