"""JSONPath expressions written for the document a call reads.

A description shows a JSONPath by example — ``(e.g. "$.orders[*].total")`` — for a document its
author had in mind; the document a probe loads has other keys, and the example matches nothing
(``No numeric values found for: $.orders[*].total``). :func:`document_leaves` reads a JSON file of
the snapshot once into its leaf paths and their types (``$.products[*].price`` → ``number``). A
probe's JSONPath arguments are then written for the document their step — or the nearest earlier
step of the same run — names by its path (:func:`toolatlas.offline.listed.adapted_paths`): the
expression as it is when it names a node there (:func:`names_node`; a number when the argument's
description asks for numbers), else the leaf of that document most like it (:func:`best_leaf`): of
the type asked for, then with the same last key, the same wildcards and the same depth. A step
naming no known document, and a misuse of the argument itself, keep their value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "best_leaf", "document_leaves", "is_jsonpath", "names_node", "record_arrays", "says_jsonpath", "wants_numbers",
]

MAX_DOCUMENT_BYTES = 512_000
MAX_LEAVES = 200
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_JSONPATH = re.compile(r"\bjson\s?path\b", re.IGNORECASE)
_NUMBERS = re.compile(r"\bnumbers?\b|\bnumeric\b", re.IGNORECASE)
_RECORD_FIELD = re.compile(r"^\$((?:\.[A-Za-z_][A-Za-z0-9_]*)*)\[\*\]\.([A-Za-z_][A-Za-z0-9_]*)")
_SEGMENT = re.compile(r"\.\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\*|\d+)\]|\['([^']*)'\]")


def wants_numbers(description: str) -> bool:
    """Whether a path argument's description asks for numbers (``resolving to numbers``)."""
    return bool(_NUMBERS.search(description or ""))


def says_jsonpath(description: str) -> bool:
    """Whether an argument's description says it is a JSONPath expression."""
    return bool(_JSONPATH.search(description or ""))


def is_jsonpath(value: Any) -> bool:
    """Whether ``value`` is a JSONPath written from the root (``$``, ``$.a[*].b``, ``$[0]``)."""
    return isinstance(value, str) and (value == "$" or value.startswith(("$.", "$[")))


def document_leaves(path: Path) -> dict[str, str]:
    """The leaf paths of a JSON file (arrays as ``[*]``) and their JSON type; empty when it is none."""
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            return {}
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    leaves: dict[str, str] = {}
    _walk(document, "$", leaves)
    return leaves


def _walk(node: Any, prefix: str, leaves: dict[str, str]) -> None:
    if len(leaves) >= MAX_LEAVES:
        return
    if isinstance(node, Mapping):
        for key, value in node.items():
            _walk(value, f"{prefix}.{key}" if _NAME.fullmatch(str(key)) else f"{prefix}['{key}']", leaves)
    elif isinstance(node, list):
        for item in node:
            _walk(item, f"{prefix}[*]", leaves)
    else:
        kind = ("boolean" if isinstance(node, bool) else "number" if isinstance(node, int | float)
                else "string" if isinstance(node, str) else "null")
        leaves.setdefault(prefix, kind)


def names_node(path: str, leaves: dict[str, str], *, numbers: bool) -> bool:
    """Whether ``path`` names a node of the document ``leaves`` describes: a number leaf when numbers are
    asked for, else any leaf or a node above one."""
    written = path.replace("[0]", "[*]")
    if numbers:
        return leaves.get(written) == "number"
    return written in leaves or any(leaf.startswith((written + ".", written + "[")) for leaf in leaves)


def _segments(path: str) -> list[str]:
    return [m.group(1) or m.group(3) or ("*" if m.group(2) == "*" else "#") for m in _SEGMENT.finditer(path)]


def best_leaf(example: str, leaves: dict[str, str], numbers: bool) -> str | None:
    """The leaf of ``leaves`` most like ``example`` (numbers first when asked for), or None."""
    wanted = [p for p, kind in leaves.items() if kind == "number"] if numbers else []
    candidates = wanted or [p for p, kind in leaves.items() if kind != "null"]
    if not candidates:
        return None
    shape = _segments(example)
    last = next((s for s in reversed(shape) if s not in ("*", "#")), None)

    def distance(path: str) -> tuple[int, int, int]:
        theirs = _segments(path)
        keys = [s for s in theirs if s not in ("*", "#")]
        return (int(not keys or keys[-1] != last), abs(theirs.count("*") - shape.count("*") - shape.count("#")),
                abs(len(theirs) - len(shape)))

    return min(candidates, key=distance)


def record_arrays(leaves: dict[str, str]) -> dict[str, list[str]]:
    """The arrays of objects a document holds outside other arrays, by their dot-notation path (``""``: the
    document itself), with their items' keys in document order."""
    found: dict[str, list[str]] = {}
    for leaf in leaves:
        match = _RECORD_FIELD.match(leaf)
        if match:
            keys = found.setdefault(match.group(1).lstrip("."), [])
            if match.group(2) not in keys:
                keys.append(match.group(2))
    return found
