"""The cheapest version of a call: durations, waits, repetitions and sizes at the least the schema allows.

A tool that takes seconds by default (``sleep`` for ``duration`` seconds, ``steps`` progress
updates, ``count`` generated items) usually takes milliseconds when asked for the least work.
:func:`cheapest` sets every numeric argument whose name or description says it measures time,
repetition or size to its minimum (0 for a time, 1 for a count, unless the schema says more),
whether or not the call gave it: a slow tool's probes then characterise the tool, not its default.
"""

from __future__ import annotations

import math
import re
from typing import Any

from toolatlas.models import ToolSpec

__all__ = ["cheapest", "costly_arguments"]

_TIME = re.compile(r"\b(duration|delay|sleep|wait|seconds?|secs?|ms|millis(econds)?|timeout|interval|pause|latency)\b")
_WORK = re.compile(r"\b(steps|iterations?|repeat(s|ition)?|rounds|times|count|size|length|items|rows|lines|n)\b")


def _words(name: str, description: str) -> str:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ").replace("-", " ")
    return f"{spaced} {description}".lower()


def costly_arguments(tool: ToolSpec) -> dict[str, float]:
    """Numeric arguments that measure work, with the least value each may take."""
    found: dict[str, float] = {}
    for name, schema in tool.properties.items():
        if not isinstance(schema, dict):
            continue
        kinds = schema.get("type")
        options = [o.get("type") for o in schema.get("anyOf", []) if isinstance(o, dict)]
        numeric = {"integer", "number"} & {*(kinds if isinstance(kinds, list) else [kinds]), *options}
        if not numeric:
            continue
        words = _words(name, str(schema.get("description") or ""))
        first = _words(name, "")
        if _TIME.search(first) or (not _WORK.search(first) and _TIME.search(words)):
            least: float = 0
        elif _WORK.search(first):
            least = 1
        else:
            continue
        if isinstance(schema.get("minimum"), int | float):
            least = max(least, schema["minimum"])
        if isinstance(schema.get("exclusiveMinimum"), int | float) and not isinstance(schema["exclusiveMinimum"], bool):
            bound = schema["exclusiveMinimum"]
            least = max(least, bound + 1 if "integer" in numeric else bound + 0.1)
        found[name] = int(least) if "integer" in numeric or float(least).is_integer() else least
    return found


def cheapest(tool: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with every work-measuring number at its least (added when the call left it out)."""
    cheap = dict(arguments)
    for name, least in costly_arguments(tool).items():
        value = cheap.get(name)
        if value is None or (isinstance(value, int | float) and not isinstance(value, bool) and value > least):
            cheap[name] = least if not math.isnan(least) else value
    return cheap
