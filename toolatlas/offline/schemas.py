"""JSON Schema as a judge and as a last-resort generator of argument values.

:func:`conforms` says whether a value satisfies an argument's schema (``jsonschema``, with the
format checks it can make); a value the semantic generators produced is kept only if it does.
:func:`schema_example` draws a value *from* the schema when nothing better fits — a ``pattern``
through Hypothesis's ``from_regex`` (ASCII, whole-string match), anything else through
``hypothesis-jsonschema`` — so a regex, a ``multipleOf`` or a nested ``oneOf`` is satisfied by a
maintained library rather than by hand-written rules.

Draws are deterministic: each is a pure function of (schema, index, seed) — Hypothesis is given a
``random.Random`` seeded from the caller's rng, no database, no shrinking — and is memoised, as a
draw costs tens of milliseconds. Index 0 is the simplest value the schema admits; index ``i`` is
the ``i``-th distinct one.
"""

from __future__ import annotations

import functools
import json
import random
import re
from typing import Any

import structlog
from jsonschema import FormatChecker
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from referencing.exceptions import Unresolvable

__all__ = ["NoExample", "Unsatisfiable", "conforms", "constrains", "inline_refs", "schema_example"]

log = structlog.get_logger(__name__)

MAX_EXAMPLES = 40
"""Generation attempts per draw (a draw that finds nothing new in as many gives up)."""

_CONSTRAINTS = frozenset(
    {
        "pattern",
        "format",
        "enum",
        "const",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "not",
        "anyOf",
        "oneOf",
        "allOf",
    }
)
_FORMATS = FormatChecker()


class Unsatisfiable(Exception):
    """No valid value of this kind exists in the environment (or all were used in this call)."""


class NoExample(Unsatisfiable):
    """The schema admits no value the generator could find."""


_KEYS: dict[int, tuple[dict[str, Any], str]] = {}
"""id of a schema dict → (the dict, its canonical text): argument specs are cached, so are their schemas."""


def _key(schema: dict[str, Any]) -> str:
    known = _KEYS.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    key = json.dumps(schema, sort_keys=True, default=str)
    if len(_KEYS) > 8192:
        _KEYS.clear()
    _KEYS[id(schema)] = (schema, key)  # holding the dict keeps its id from being reused
    return key


@functools.lru_cache(maxsize=2048)
def _validator(key: str) -> Any:
    schema = json.loads(key)
    cls = validator_for(schema, default=validator_for({}))
    try:
        cls.check_schema(schema)
    except SchemaError:
        return None  # a malformed schema judges nothing
    return cls(schema, format_checker=_FORMATS)


def inline_refs(schema: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """``schema`` with local ``$ref`` s replaced by their definitions (recursion cut at depth 6)."""
    if isinstance(schema, list):
        return [inline_refs(s, defs, depth) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        if depth >= 6:
            return {}
        target = defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return inline_refs(merged, defs, depth + 1)
    keep = ("$defs", "definitions")
    return {k: v if k in keep else inline_refs(v, defs, depth) for k, v in schema.items()}


def constrains(schema: dict[str, Any]) -> bool:
    """Whether ``schema`` restricts a value beyond its type (worth validating a generated value)."""
    return bool(_CONSTRAINTS.intersection(schema))


def conforms(value: Any, schema: dict[str, Any] | None) -> bool:
    """Whether ``value`` satisfies ``schema`` (an empty or malformed schema accepts anything, as does one
    whose ``$ref`` leads nowhere from it: a property's reference into its tool's definitions)."""
    if not schema:
        return True
    validator = _validator(_key(schema))
    try:
        return True if validator is None else bool(validator.is_valid(value))
    except Unresolvable:
        return True


def schema_example(schema: dict[str, Any], index: int = 0, seed: int = 0) -> Any:
    """The ``index``-th distinct value drawn from ``schema`` (deterministic in ``seed``)."""
    return _draw(_key(schema), index, seed)


@functools.lru_cache(maxsize=4096)
def _draw(key: str, index: int, seed: int) -> Any:
    earlier = [_draw(key, i, seed) for i in range(index)]
    strategy = _strategy(key)
    seen = {_key_of(v) for v in earlier}
    return _find(strategy, seen, seed * 7919 + index)


def _key_of(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


@functools.lru_cache(maxsize=1024)
def _strategy(key: str) -> Any:
    from hypothesis import strategies as st  # imported on first use: a heavy import most builds skip

    schema = json.loads(key)
    pattern = schema.get("pattern")
    if schema.get("type") == "string" and isinstance(pattern, str) and "format" not in schema:
        try:
            regex = re.compile(pattern)
        except re.error:
            regex = None
        if regex is not None:
            alphabet = st.characters(min_codepoint=32, max_codepoint=126)
            return st.from_regex(regex, fullmatch=True, alphabet=alphabet).filter(
                lambda s: conforms(s, schema)
            )
    from hypothesis_jsonschema import from_schema

    try:
        return from_schema(schema)
    except Exception as exc:  # the library refuses schemas it cannot satisfy or parse
        raise NoExample(str(exc)) from exc


def _find(strategy: Any, seen: set[str], seed: int) -> Any:
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import HypothesisException

    quiet = settings(
        database=None,
        phases=[Phase.generate],
        max_examples=MAX_EXAMPLES,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    try:
        return find(strategy, lambda v: _key_of(v) not in seen, settings=quiet, random=random.Random(seed))
    except HypothesisException as exc:  # NoSuchExample, Unsatisfiable, an invalid strategy...
        raise NoExample(str(exc)) from exc
