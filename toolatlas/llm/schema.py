"""Structured outputs: the ``response_format`` for a pydantic model, and validating the answer.

OpenAI's strict mode (the endpoint guarantees the schema) accepts a subset of JSON Schema:
every object closed (``additionalProperties: false``) with every property required, no
free-form maps and no conditional keywords. :func:`response_format_for` sends a strict schema
when the model's schema can be made into one (optional fields become required-but-nullable,
which pydantic still accepts), and the plain schema otherwise. Either way the answer is
validated here with pydantic, because many OpenAI-compatible servers ignore the schema.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = ["describe_validation_error", "response_format_for", "strict_schema", "validate_answer"]

_NOT_STRICT_KEYWORDS = frozenset(
    {
        "patternProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "prefixItems",
        "contains",
        "if",
        "then",
        "else",
        "not",
        "dependentRequired",
        "dependentSchemas",
        "oneOf",
        "allOf",
    }
)
_SUBSCHEMA_KEYWORDS = ("items", "anyOf")
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n(.*)\n```\s*$", re.DOTALL)
_MAX_ERRORS_SHOWN = 8


def response_format_for(model: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` request field asking for JSON that validates against ``model``."""
    schema = model.model_json_schema()
    strict = strict_schema(schema)
    return {
        "type": "json_schema",
        "json_schema": {
            "name": re.sub(r"[^a-zA-Z0-9_-]", "_", model.__name__)[:64],
            "schema": strict if strict is not None else schema,
            "strict": strict is not None,
        },
    }


def strict_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """A strict-mode copy of ``schema``, or None when strict mode cannot express it."""
    strict = copy.deepcopy(schema)
    definitions = strict.get("$defs", {})
    try:
        _make_strict(strict, definitions)
        for definition in definitions.values():
            _make_strict(definition, definitions)
    except _NotStrict:
        return None
    return strict


class _NotStrict(Exception):
    pass


def _make_strict(node: Any, definitions: dict[str, Any]) -> None:
    """Close every object, require every property, drop defaults; raise _NotStrict if impossible."""
    if isinstance(node, list):
        for item in node:
            _make_strict(item, definitions)
        return
    if not isinstance(node, dict):
        return
    if _NOT_STRICT_KEYWORDS & node.keys():
        raise _NotStrict
    node.pop("default", None)
    if "$ref" in node and len(node) > 1:
        _inline_reference(node, definitions)
    if node.get("type") == "object" or "properties" in node:
        if node.get("additionalProperties") not in (None, False):
            raise _NotStrict  # a free-form map (dict[str, X]) has no strict form
        node["additionalProperties"] = False
        node["required"] = list(node.get("properties", {}))
    for value in node.get("properties", {}).values():
        _make_strict(value, definitions)
    for keyword in _SUBSCHEMA_KEYWORDS:
        if keyword in node:
            _make_strict(node[keyword], definitions)


def _inline_reference(node: dict[str, Any], definitions: dict[str, Any]) -> None:
    """Strict mode forbids keywords beside ``$ref``: replace the reference by its definition."""
    name = node.pop("$ref").rsplit("/", 1)[-1]
    if name not in definitions:
        raise _NotStrict
    merged = {**copy.deepcopy(definitions[name]), **node}
    node.clear()
    node.update(merged)


def validate_answer(model: type[BaseModel], text: str | None) -> tuple[BaseModel | None, str | None]:
    """``(object, None)`` when ``text`` is JSON valid for ``model``, else ``(None, why)``.

    A Markdown code fence around the JSON (some local models add one) is tolerated.
    """
    if text is None or not text.strip():
        return None, "the answer was empty; a JSON object was required"
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        return model.model_validate_json(body), None
    except ValidationError as exc:
        return None, describe_validation_error(exc)


def describe_validation_error(exc: ValidationError) -> str:
    """A short, model-readable account of what was wrong: one line per problem, field path first."""
    lines = []
    for error in exc.errors()[:_MAX_ERRORS_SHOWN]:
        where = ".".join(str(part) for part in error["loc"]) or "(the whole answer)"
        lines.append(f"{where}: {error['msg']}")
    hidden = exc.error_count() - _MAX_ERRORS_SHOWN
    if hidden > 0:
        lines.append(f"... and {hidden} more")
    return "; ".join(lines)
