"""Operations a description spells out for an array of open objects: ``[{"op": NAME, ...args}, ...]``.

Some tools take a batch of heterogeneous operations whose schema says only "an array of objects";
the description then lists each operation as a signature — ``diff(start, end, unit)``,
``add(date, n, unit)``, ``parse(natural, tz?)`` — names the key that selects one (``{"op": NAME}``)
and the values a parameter takes (``unit: seconds|minutes|hours (+ months|years for add)``).
:func:`described_operations` reads those three things; each operation becomes a small tool of its own
(:meth:`Operation.as_tool`) whose arguments the ordinary planner fills by their names, so a call is
a batch of real operations. The lists give boundaries too: an operation name the description does
not list, and a value a parameter allows only for some other operation (a unit allowed for ``add``
given to ``diff``).
"""

from __future__ import annotations

import re
from typing import Any

from toolatlas.models import Frozen, ToolSpec

__all__ = ["DescribedOperations", "Operation", "described_operations"]

_SELECTOR = re.compile(r"""\{\s*["'](\w+)["']\s*:\s*(?:["']?[A-Z_]{2,}["']?|<\w+>|\.\.\.)""")
_SIGNATURE = re.compile(r"(?<![\w.])([a-z][a-z0-9_]*)\(([a-z0-9_?,\s]*)\)")
_VALUES = re.compile(r"(?m)^\s*(\w+)\s*:\s*((?:\w+\|)+\w+)(?:\s*\(\+\s*((?:\w+\|)*\w+)\s+for\s+(\w+)\))?")
_ENDPOINT_NAMES = re.compile(r"^(start|end|begin|target|source|from|to|since|until|date|day|when)$")
_DATED = re.compile(r"\b(date|dates|calendar|day|days|iso)\b", re.IGNORECASE)
_COUNT_NAMES = re.compile(r"^(n|k|count|amount|number|num|times|steps|days|qty)$")


class Operation(Frozen):
    """One described operation: its name and parameters (``?``: optional)."""

    name: str
    parameters: list[tuple[str, bool]]
    """``(name, required)`` in the order the signature gives them."""

    def as_tool(self, tool: ToolSpec, allowed: dict[str, list[str]]) -> ToolSpec:
        """The operation as a tool of its own, so its arguments are planned like any call's."""
        properties: dict[str, Any] = {}
        for name, _required in self.parameters:
            if name in allowed:
                properties[name] = {"type": "string", "enum": allowed[name]}
            elif _ENDPOINT_NAMES.match(name) and _DATED.search(tool.description or ""):
                properties[name] = {"type": "string", "format": "date"}  # the ends of a span of dates
            elif _COUNT_NAMES.match(name):
                properties[name] = {"type": "integer", "minimum": 1, "maximum": 30}
            else:
                properties[name] = {"type": "string"}
        return ToolSpec(
            server=tool.server,
            name=f"{tool.name}.{self.name}",
            description=tool.description,
            input_schema={
                "type": "object",
                "properties": properties,
                "required": [n for n, required in self.parameters if required],
            },
        )


class DescribedOperations(Frozen):
    """What a description says of a batch of operations."""

    selector: str
    """The key naming the operation (``op``)."""
    operations: list[Operation]
    allowed: dict[str, list[str]]
    """Parameter → the values every operation accepts."""
    restricted: dict[str, tuple[list[str], str]]
    """Parameter → values accepted only by one operation, and that operation (``unit`` → months, add)."""

    def names(self) -> list[str]:
        return [op.name for op in self.operations]


def described_operations(tool: ToolSpec) -> DescribedOperations | None:
    """The operations of ``tool``'s description, when it takes an array of open objects and names both
    the selecting key and two or more signatures; ``None`` otherwise."""
    text = tool.description or ""
    selector = _SELECTOR.search(text)
    if selector is None:
        return None
    operations: dict[str, Operation] = {}
    for name, params in _SIGNATURE.findall(text):
        parameters = [
            (p.strip().rstrip("?"), not p.strip().endswith("?")) for p in params.split(",") if p.strip()
        ]
        operations.setdefault(name, Operation(name=name, parameters=parameters))
    if len(operations) < 2:
        return None
    allowed: dict[str, list[str]] = {}
    restricted: dict[str, tuple[list[str], str]] = {}
    for name, values, extra, owner in _VALUES.findall(text):
        allowed.setdefault(name, values.split("|"))
        if extra and owner in operations:
            restricted.setdefault(name, (extra.split("|"), owner))
    return DescribedOperations(
        selector=selector.group(1), operations=list(operations.values()), allowed=allowed, restricted=restricted
    )
