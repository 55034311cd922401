"""Arguments written for the JSON document a run reads: paths into it, and the fields of its records.

A description shows its paths and fields by example — ``(e.g. "$.orders[*].total")``, ``Dot-notation
path to the array of objects``, ``The field to group by (e.g. "category", "status")`` — for a document
its author had in mind. A probe that loads a document of the snapshot (a step, or an earlier step of
the same run, names the file by its path) knows that document's shape
(:func:`toolatlas.offline.jsonpaths.document_leaves`), so :func:`adapted_paths` writes for it:

- a **JSONPath** stays when it names a node there (a number when the argument's description asks for
  numbers), else becomes the leaf most like it (:func:`~toolatlas.offline.jsonpaths.best_leaf`);
- a **dot-notation path** said to lead to an array becomes the path of an array of objects there,
  when it names none;
- a **field** (an argument named for fields, keys or columns, a list of them, or such a field of an
  argument's items) beside a path to an array of objects becomes one of its records' keys when it
  names none: the description's examples that are such keys first.

A step naming no known document keeps its values, as does a misuse of the argument itself.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolatlas.models import ToolSpec
from toolatlas.offline.formats import names_a_notation
from toolatlas.offline.jsonpaths import best_leaf, is_jsonpath, names_node, record_arrays, says_jsonpath, wants_numbers
from toolatlas.offline.kinds import ArgSpec, infer_arguments, parent_singular
from toolatlas.offline.minted import breaks_argument
from toolatlas.offline.words import tokens
from toolatlas.probing.bindings import bound_references
from toolatlas.probing.models import ProbeStep
from toolatlas.probing.values import ArgKind

if TYPE_CHECKING:
    from toolatlas.offline.facts import EnvironmentFacts

__all__ = ["adapted_paths"]

_ARRAY = re.compile(r"\barray\b", re.IGNORECASE)
_FIELD_NOUNS = frozenset({"field", "key", "column", "property", "attribute"})


def adapted_paths(steps: list[ProbeStep], specs: Mapping[str, ToolSpec], facts: EnvironmentFacts | None,
                  args: Mapping[str, list[ArgSpec]] | None = None) -> list[ProbeStep]:
    """``steps`` with their paths and fields written for the document each step (or an earlier one) names;
    ``args``: the tools' argument specs as planned (with what errors taught), else inferred."""
    documents = {f.path: f.leaves for f in (facts.tree.files if facts is not None and facts.tree else []) if f.leaves}
    if not documents:
        return steps
    out = list(steps)
    for index, step in enumerate(steps):
        spec = specs.get(step.tool)
        leaves = next((documents[v] for s in reversed(out[: index + 1]) for v in s.arguments.values()
                       if isinstance(v, str) and v in documents), None)
        if spec is None or leaves is None:
            continue
        arguments = _written(step, args[step.tool] if args and step.tool in args else infer_arguments(spec), leaves)
        if arguments != step.arguments:
            out[index] = step.model_copy(update={"arguments": arguments})
    return out


def _written(step: ProbeStep, specs: list[ArgSpec], leaves: dict[str, str]) -> dict[str, Any]:
    arguments = dict(step.arguments)
    records = record_arrays(leaves)
    chosen: list[str] | None = None
    open_specs = [s for s in specs if s.name in arguments and not bound_references(arguments[s.name])
                  and not breaks_argument(step, s.name)]
    for spec in open_specs:
        value = arguments[spec.name]
        if is_jsonpath(value) and says_jsonpath(spec.description):
            numbers = wants_numbers(spec.description)
            if not names_node(value, leaves, numbers=numbers):
                arguments[spec.name] = best_leaf(value, leaves, numbers=numbers) or value
        elif isinstance(value, str) and names_a_notation(spec.description) and _ARRAY.search(spec.description):
            if value not in records and records:
                arguments[spec.name] = next(iter(records))
            chosen = records.get(arguments[spec.name])
    for spec in open_specs if chosen else []:
        value = arguments[spec.name]
        item = spec.items if spec.kind is ArgKind.ARRAY and spec.items is not None else spec
        if _names_fields(spec.name) and item.json_type in ("string", "any"):
            arguments[spec.name] = _fields(value, chosen or [], [str(e) for e in item.examples or spec.examples])
        elif item.properties and isinstance(value, list):  # conditions: [{"field": ..., "operator": ...}]
            fields = [p for p in item.properties if _names_fields(p.name) and p.json_type in ("string", "any")]
            arguments[spec.name] = [{**entry, **{p.name: _fields(entry[p.name], chosen or [], [str(e) for e in p.examples])
                                                 for p in fields if isinstance(entry.get(p.name), str)}}
                                    if isinstance(entry, dict) else entry for entry in value]
    return arguments


def _names_fields(name: str) -> bool:
    return bool({parent_singular(w) for w in tokens(name)} & _FIELD_NOUNS)


def _fields(value: Any, keys: list[str], examples: list[str]) -> Any:
    """``value`` (a field, or a list of them) as keys of the records: kept where it is one, else the
    examples that are keys, then the others (a stable choice)."""
    ranked = [e for e in examples if e in keys] + [k for k in keys if k not in examples]
    if not ranked:
        return value
    if isinstance(value, list):
        spare = [k for k in ranked if k not in value]
        return [v if v in keys or not spare else spare.pop(0) for v in value]
    if value in keys:
        return value
    return ranked[0] if ranked[0] in examples else ranked[zlib.crc32(repr(value).encode()) % len(ranked)]
