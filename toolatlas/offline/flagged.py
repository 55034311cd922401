"""Values a server's own answers flag, fed to the tool that judges them.

A reference server marks some of what it lists (``• Pin 34 (GPIO34) - ADC1_CH6 [INPUT ONLY]``) and warns
about some of what it is asked (``⚠️ Notes: SWD programming data. Keep free for debugging.`` for pin 13): those
are the values its checker exists to catch, and a build that only ever checks the values it made up never
sees the checker say no. :func:`flagged_values` reads the verified answers of a server's tools for them:
a listed line's number beside a marker, or the one number a call asked about when its answer carries a
warning, each with the call's other arguments (the board it is a pin of).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolatlas.graph.models import Entry, EntryKind
from toolatlas.models import OutcomeClass

__all__ = ["Flagged", "flagged_values"]

_MARKER = re.compile(r"\[(?P<marker>[A-Za-z][A-Za-z /-]{2,40})\]")
_CAVEAT = re.compile(r"\b(?:only|not|no|cannot|avoid|reserved|deprecated|unsafe|disabled|unavailable)\b", re.IGNORECASE)
_WARNING = re.compile(r"^\W{0,4}(?:⚠\ufe0f?|warning\b|caution\b)[^\n]{0,20}?[:\s]+(?P<note>\S[^\n]{3,160})$",
                      re.IGNORECASE | re.MULTILINE)
_LABEL = re.compile(r"^\**\w+:\**\s*")
_NUMBER = re.compile(r"(?<![\w.-])(\d{1,6})(?![\w.])")
MAX_FLAGGED = 12
"""Flagged values kept per server (the first of each marker, in the order the answers gave them)."""


@dataclass(frozen=True)
class Flagged:
    """A value an answer flags: what marks it, which tool said so, and the other arguments of that call."""

    value: int
    marker: str
    source: str
    context: dict[str, Any] = field(default_factory=dict)


def _caveat(marker: str) -> bool:
    """Whether a bracketed marker says something is restricted (``INPUT ONLY``, ``Not usable with WiFi``), not a label
    (``[FILE]``, ``[WiFi Compatible]``)."""
    return bool(_CAVEAT.search(marker))


def flagged_values(entries: Iterable[Entry], *, exclude: str) -> list[Flagged]:
    """Values the verified answers of ``entries`` (other than ``exclude``'s) flag, one per marker."""
    found: dict[str, Flagged] = {}
    for entry in entries:
        if entry.kind is not EntryKind.AFFORDANCE or entry.tool == exclude:
            continue
        for shown in entry.evidence[:1]:
            if shown.outcome is not OutcomeClass.OK:
                continue
            numbers = {k: v for k, v in shown.arguments.items() if isinstance(v, int) and not isinstance(v, bool)}
            context = {k: v for k, v in shown.arguments.items() if k not in numbers and isinstance(v, str)}
            for line in shown.excerpt.splitlines():
                marker = _MARKER.search(line)
                number = _NUMBER.search(line)
                if marker and number and _caveat(marker.group("marker")):
                    key = marker.group("marker").strip().lower()
                    found.setdefault(key, Flagged(int(number.group(1)), marker.group("marker").strip(), entry.tool,
                                                  context))
            warning = _WARNING.search(shown.excerpt)
            if warning and len(numbers) == 1:
                note = _LABEL.sub("", warning.group("note").strip("* "))  # "**Notes:** SWD …" says "SWD …"
                found.setdefault(note.lower()[:60], Flagged(next(iter(numbers.values())), note, entry.tool, context))
        if len(found) >= MAX_FLAGGED:
            break
    return list(found.values())[:MAX_FLAGGED]
