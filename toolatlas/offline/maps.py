"""Map arguments: an object of free keys whose schema types only the values (``additionalProperties``).

``{"assignments": {"<merchant>": "<category>"}}``: the schema says nothing about the keys and little about the
values; the description usually says both — ``Keys are exact merchant_clean values (as returned by
search_transactions)``, ``Values must be from the fixed taxonomy: housing, utilities, …``. :func:`map_shape` reads
that: the answer field whose values are the keys (:func:`map_key_spec` makes it an argument the answers of other
tools feed, :func:`~toolatlas.offline.answers.answered_values`) and the set the values come from. An empty map
says nothing about a tool that needs entries, so a planned call holds one entry.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from toolatlas.offline.hints import listed_items
from toolatlas.offline.kinds import ArgSpec
from toolatlas.probing.values import ArgKind

__all__ = ["KEY_SUFFIX", "MapShape", "map_entry", "map_key_spec", "map_shape"]

KEY_SUFFIX = "{}"
"""The path of a map's keys: ``assignments{}``."""
_SCALARS = ("string", "integer", "number", "boolean")
_KEY_FIELD = re.compile(r"\bkeys?\b[^.;]{0,80}?`?\b([a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9])\b`?", re.IGNORECASE)
"""A description's field the keys are values of: ``Keys are exact merchant_clean values``."""
_VALUES = re.compile(r"\bvalues?\b[^.:;]{0,60}:\s*", re.IGNORECASE)
"""Where a description lists the values: ``Values must be from the fixed taxonomy: housing, …``."""


class MapShape(NamedTuple):
    """What a map argument's keys and values are."""

    value_type: str
    """The JSON type every value has."""
    key_field: str | None
    """The answer field whose values the keys are (``merchant_clean``), when the description names one."""
    values: list[str]
    """The values the description lists, in its order."""


def map_shape(spec: ArgSpec, tool_description: str) -> MapShape | None:
    """The shape of ``spec`` when it is a map (no properties, scalar ``additionalProperties``), else None."""
    if spec.kind is not ArgKind.OBJECT or spec.properties:
        return None
    extra = spec.json_schema.get("additionalProperties")
    if not isinstance(extra, dict) or extra.get("type") not in _SCALARS:
        return None
    text = re.sub(r"\s+", " ", f"{spec.description} {tool_description}")
    field = _KEY_FIELD.search(text)
    listed = _VALUES.search(text)
    values = listed_items(text[listed.end():]) if listed and extra["type"] == "string" else []
    return MapShape(extra["type"], field.group(1) if field else None, values)


def map_key_spec(spec: ArgSpec, shape: MapShape) -> ArgSpec:
    """The map's keys as a plain string argument named after the field they come from (what answers feed)."""
    return spec.model_copy(update={
        "name": shape.key_field or spec.name, "path": spec.path + KEY_SUFFIX, "kind": ArgKind.STRING,
        "json_type": "string", "json_schema": {"type": "string"}, "properties": [], "required": True,
    })


def map_entry(key: str, shape: MapShape, variant: int) -> dict[str, Any]:
    """One entry: the key, and the variant's listed value (else a value of the values' type)."""
    if shape.values:
        return {key: shape.values[variant % len(shape.values)]}
    plain: dict[str, Any] = {"string": "example", "integer": 1, "number": 1, "boolean": True}
    return {key: plain[shape.value_type]}
