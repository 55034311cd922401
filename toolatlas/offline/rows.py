"""Rows read back from a tool's answer, whatever shape the server prints them in.

SQL and listing tools answer with JSON (a list of objects, ``{"rows": [...]}``, ``{"columns":
[...], "rows": [[...]]}``), a Python ``repr`` of rows, a Markdown table, or CSV/TSV text with a
header line. :func:`parse_rows` turns any of these into ``[{column: value}]`` (an empty list when
the answer holds no table), so introspection can read a database through any server's query tool.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from toolatlas.probing.text import MAX_PARSE_CHARS, parse_answer

__all__ = ["parse_rows"]

_ROW_KEYS = ("rows", "results", "result", "data", "records", "items", "tables")


def parse_rows(text: str, structured: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The rows of an answer, as dicts; ``[]`` when it holds none (or is an error)."""
    if structured:
        rows = _from_document(structured)
        if rows:
            return rows
    stripped = (text or "").strip()
    if not stripped or len(stripped) > MAX_PARSE_CHARS:
        return []
    document = parse_answer(stripped)
    if document is not None:
        return _from_document(document)
    embedded = re.search(r"(\[\s*[\[{(].*[\]})]\s*\])", stripped, re.DOTALL)  # "Results: [{...}]"
    if embedded is not None:
        document = parse_answer(embedded.group(1))
        if document is not None:
            return _from_document(document)
    return _markdown(stripped) or _delimited(stripped)


def _from_document(document: Any) -> list[dict[str, Any]]:
    if isinstance(document, list):
        if all(isinstance(r, dict) for r in document):
            return [dict(r) for r in document]
        if all(isinstance(r, list | tuple) for r in document) and document:
            width = len(document[0])
            return [{f"c{i}": v for i, v in enumerate(r)} for r in document if len(r) == width]
        return []
    if isinstance(document, dict):
        columns = document.get("columns") or document.get("fields") or document.get("headers")
        rows = next((document[k] for k in _ROW_KEYS if isinstance(document.get(k), list)), None)
        if isinstance(columns, list) and isinstance(rows, list) and all(isinstance(r, list | tuple) for r in rows):
            names = [str(c.get("name")) if isinstance(c, dict) else str(c) for c in columns]
            return [dict(zip(names, r, strict=False)) for r in rows]
        if rows is not None:
            return _from_document(rows)
        for value in document.values():  # {"result": {"rows": ...}} one level down
            if isinstance(value, dict | list):
                found = _from_document(value)
                if found:
                    return found
    return []


def _markdown(text: str) -> list[dict[str, Any]]:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("|")]
    if len(lines) < 2:
        return []
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    header, body = cells[0], [c for c in cells[1:] if not all(re.fullmatch(r":?-{2,}:?", x) for x in c if x)]
    return [dict(zip(header, (_scalar(v) for v in row), strict=False)) for row in body if len(row) == len(header)]


def _delimited(text: str) -> list[dict[str, Any]]:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return []
    delimiter = "\t" if "\t" in lines[0] else "," if "," in lines[0] else None
    if delimiter is None:
        return []
    reader = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter))
    header = [h.strip() for h in reader[0]]
    if not all(re.fullmatch(r"[\w. ]{1,64}", h) for h in header):
        return []
    return [dict(zip(header, (_scalar(v.strip()) for v in row), strict=False)) for row in reader[1:] if len(row) == len(header)]


def _scalar(value: str) -> Any:
    if value.upper() in ("NULL", "NONE", ""):
        return None
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    if re.fullmatch(r"-?\d+\.\d+", value):
        return float(value)
    return value
