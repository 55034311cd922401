"""What a write leaves behind for a read to show: the markers of a planned call and the reads that show them.

A state composition (write → read, create → list) is only *witnessed* when the read shows
something the write alone could have put there. :func:`written_markers` picks those values
from a planned call: the new names and paths it creates, the first line of the new text it
writes (both carry the probe's random tag), the distinctive literals of an SQL ``INSERT``.
:func:`marker_for` chooses, for one reader, the marker it should show: a listing shows a new
name, a read of the new file shows its text. :func:`sql_read_back` writes the ``SELECT`` that
finds a row an ``INSERT`` added; :func:`asking_for` points a reader's open filter at a field of
what was written. The verifier checks the marker against the reader's output
(``ProbeStep.marker`` / ``observes``) and the inducer records the state edge on the writer.
"""

from __future__ import annotations

import re
from typing import Any

from toolatlas.offline.kinds import SQL_KINDS, ArgSpec, sql_statement_kind
from toolatlas.offline.sqlgen import literal, quote_ident
from toolatlas.offline.values import PlannedCall
from toolatlas.probing.values import ArgKind

__all__ = ["asking_for", "marker_for", "sql_read_back", "sql_select_spec", "written_markers"]

_INSERT = re.compile(
    r"^\s*INSERT\s+INTO\s+(?P<table>\"[^\"]+\"|[\w.]+)\s*\((?P<cols>[^)]*)\)\s*VALUES\s*\((?P<vals>.*)\)\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_LITERAL = re.compile(r"'(?:[^']|'')*'|-?\d+(?:\.\d+)?|NULL|TRUE|FALSE", re.IGNORECASE)
_TAG = re.compile(r"[0-9a-f]{4}")
MIN_MARKER_CHARS = 4
"""Shorter values (``1``, ``abc``) could be in any output by chance: they witness nothing."""


def _leaf_specs(specs: list[ArgSpec]) -> dict[str, ArgSpec]:
    """Every argument by name, nested properties and array items included (the innermost wins)."""
    found: dict[str, ArgSpec] = {}
    for spec in specs:
        found[spec.name] = spec
        if spec.items is not None:
            found.update(_leaf_specs([spec.items, *spec.items.properties]))
        found.update(_leaf_specs(spec.properties))
    return found


def _values(arguments: Any, name: str | None = None) -> list[tuple[str | None, Any]]:
    if isinstance(arguments, dict):
        return [pair for key, value in arguments.items() for pair in _values(value, key)]
    if isinstance(arguments, list):
        return [pair for value in arguments for pair in _values(value, name)]
    return [(name, arguments)]


def _distinctive_part(path: str) -> str:
    """The part of a new path that names it: the deepest one carrying a probe tag, else the last."""
    parts = [p for p in path.rstrip("/").split("/") if p and not p.startswith("${")]
    tagged = [p for p in parts if _TAG.search(p)]
    return (tagged or parts or [path])[-1]


def written_markers(call: PlannedCall, specs: list[ArgSpec]) -> dict[str, list[str]]:
    """``{"names": [...], "texts": [...], "rows": [...]}``: what the call writes that nothing else holds."""
    names: list[str] = []
    for values in call.fresh_values.values():
        for value in values:
            if isinstance(value, str) and value:
                names.append(_distinctive_part(value) if "/" in value else value)
    by_name = _leaf_specs(specs)
    texts: list[str] = []
    rows: list[str] = []
    for name, value in _values(call.arguments):
        spec = by_name.get(name or "")
        if spec is None or not isinstance(value, str):
            continue
        if spec.kind in (ArgKind.TEXT, ArgKind.OBSERVATION) and not value.startswith("${"):
            line = next((ln.strip() for ln in value.splitlines() if len(ln.strip()) >= MIN_MARKER_CHARS), "")
            if line:
                texts.append(line.lstrip("# ").strip())
        elif spec.kind in SQL_KINDS and sql_statement_kind(value) == "insert":
            rows.extend(_insert_literals(value))
    keep = lambda items: [m for m in dict.fromkeys(items) if len(m) >= MIN_MARKER_CHARS]  # noqa: E731
    return {"names": keep(names), "texts": keep(texts), "rows": keep(rows)}


def marker_for(markers: dict[str, list[str]], reader_arguments: dict[str, Any]) -> str | None:
    """The marker one reader should show: the new text when it reads what was written, else a new name."""
    given = [v for _n, v in _values(reader_arguments) if isinstance(v, str)]
    reads_the_target = any(name in value for value in given for name in markers["names"])
    if reads_the_target and markers["texts"]:
        return markers["texts"][0]
    for group in ("names", "rows", "texts"):
        if markers[group]:
            return markers[group][0]
    return None


def _insert_literals(statement: str) -> list[str]:
    """The string literals of an INSERT's values, longest first (the tagged, unique ones)."""
    match = _INSERT.match(statement)
    if match is None:
        return []
    strings = [v[1:-1].replace("''", "'") for v in _LITERAL.findall(match.group("vals")) if v.startswith("'")]
    return sorted(strings, key=len, reverse=True)


def sql_select_spec(specs: list[ArgSpec]) -> ArgSpec | None:
    """The argument of a tool that takes a SELECT (a read-only query, or any statement)."""
    return next(
        (s for s in specs if s.kind in (ArgKind.SQL_QUERY_READ, ArgKind.SQL) and "select" in (s.sql_statements or ["select"])),
        None,
    )


def sql_read_back(statement: str) -> tuple[str, str] | None:
    """``(SELECT, marker)`` that finds the row an INSERT adds, by its most distinctive string value."""
    match = _INSERT.match(statement)
    if match is None:
        return None
    columns = [c.strip().strip('"') for c in match.group("cols").split(",")]
    values = _LITERAL.findall(match.group("vals"))
    if len(columns) != len(values):
        return None
    strings = [(c, v) for c, v in zip(columns, values, strict=True) if v.startswith("'")]
    if not strings:
        return None
    column, value = max(strings, key=lambda cv: len(cv[1]))
    marker = value[1:-1].replace("''", "'")
    if len(marker) < MIN_MARKER_CHARS:
        return None
    table = match.group("table")
    return f"SELECT * FROM {table} WHERE {quote_ident(column)} = {literal(marker)}", marker


_FILTER_WORDS = frozenset({"filter", "filters", "where", "match", "matching", "criteria", "conditions"})
"""Words naming an object argument whose fields select records (``filter``, ``where``)."""


def asking_for(specs: list[ArgSpec], arguments: dict[str, Any], written: dict[str, Any]) -> dict[str, Any]:
    """A reader's arguments with its open filter — an object of no stated fields named for selecting
    (``filter``, ``where``, ``match``) — set to the first text field of what the call it observes writes,
    at its value (``{"type": "rectangle"}``): the read then asks for that very record, by a field it holds."""
    field = next(((k, v) for k, v in written.items() if isinstance(v, str) and v and "${" not in v), None)
    if field is None:
        return arguments
    for spec in specs:
        if spec.json_type == "object" and not spec.properties and set(re.findall(r"[a-z]+", spec.name.lower())) & _FILTER_WORDS:
            return {**arguments, spec.name: dict([field])}
    return arguments
