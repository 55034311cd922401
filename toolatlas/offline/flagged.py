"""Values a server's own answers flag, fed to the tool that judges them — and records they flag, to the tools that
change them.

A reference server marks some of what it lists (``• Pin 34 (GPIO34) - ADC1_CH6 [INPUT ONLY]``) and warns
about some of what it is asked (``⚠️ Notes: SWD programming data. Keep free for debugging.`` for pin 13): those
are the values its checker exists to catch, and a build that only ever checks the values it made up never
sees the checker say no. :class:`FlaggedValues` reads the answers of a server's tools for them as they come:
a listed line's number beside a marker, or the one number a call asked about when its answer carries a
warning, each with the call's other arguments (the board it is a pin of).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolatlas.offline.harvest import FLAG_CONTEXT, id_like, id_noun
from toolatlas.offline.kinds import ToolEffect, tool_effect
from toolatlas.offline.saturation import verified_bases
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.probing.values import ArgKind

if TYPE_CHECKING:
    from toolatlas.offline.proposer import OfflineProposer

__all__ = ["FLAGGED_RECORDS_PER_ROUND", "Flagged", "FlaggedValues", "flagged_records", "flags_in"]

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


def flags_in(tool: str, arguments: dict[str, Any], text: str) -> list[Flagged]:
    """The values one answer of ``tool`` to a call with ``arguments`` flags (see the module docstring)."""
    numbers = {k: v for k, v in arguments.items() if isinstance(v, int) and not isinstance(v, bool)}
    context = {k: v for k, v in arguments.items() if k not in numbers and isinstance(v, str)}
    found = []
    for line in text.splitlines():
        marker = _MARKER.search(line)
        number = _NUMBER.search(line)
        if marker and number and _caveat(marker.group("marker")):
            found.append(Flagged(int(number.group(1)), marker.group("marker").strip(), tool, context))
    warning = _WARNING.search(text)
    if warning and len(numbers) == 1:
        note = _LABEL.sub("", warning.group("note").strip("* "))  # "**Notes:** SWD …" says "SWD …"
        found.append(Flagged(next(iter(numbers.values())), note, tool, context))
    return found


class FlaggedValues:
    """The values a server's answers flagged so far, the first of each marker, read from whole answers as they come
    (an atlas keeps only an answer's beginning and end)."""

    def __init__(self) -> None:
        self._by_marker: dict[str, Flagged] = {}

    def observe(self, tool: str, arguments: dict[str, Any], text: str) -> None:
        for flagged in flags_in(tool, arguments, text):
            if len(self._by_marker) >= MAX_FLAGGED:
                return
            self._by_marker.setdefault(flagged.marker.lower()[:60], flagged)

    def values(self, *, exclude: str) -> list[Flagged]:
        """The flagged values, but those ``exclude`` (the judging tool itself) flagged."""
        return [f for f in self._by_marker.values() if f.source != exclude]

    def dump(self) -> list[dict[str, Any]]:
        return [{"value": f.value, "marker": f.marker, "source": f.source, "context": f.context}
                for f in self._by_marker.values()]

    def load(self, saved: list[dict[str, Any]]) -> None:
        self._by_marker = {}
        for item in saved:
            flagged = Flagged(int(item["value"]), str(item["marker"]), str(item["source"]), dict(item["context"]))
            self._by_marker.setdefault(flagged.marker.lower()[:60], flagged)


FLAGGED_RECORDS_PER_ROUND = 3
"""Calls of a changing tool on a flagged record planned a round (one per flag)."""


def flagged_records(proposer: OfflineProposer, round_: int, name: str) -> list[Probe]:
    """A tool that changes one record by its id, called on a record of each kind a listing flags (``"has_tags":
    true``, harvested in the :data:`~toolatlas.offline.harvest.FLAG_CONTEXT`): records a flag sets apart are
    where a change meets what the others do not (a segment with inline tags wants its placeholders back)."""
    tool = proposer.graph.specs[name]
    if tool_effect(tool) is not ToolEffect.UPDATE:
        return []
    ids = [s for s in proposer.args[name] if s.required and id_like(s.name)]
    if len(ids) != 1:
        return []
    noun = id_noun(ids[0].name)
    flagged: dict[str, str] = {}
    for ref in proposer.pool.values(ArgKind.IDENTIFIER):
        context = ref.context or ""
        if context.startswith(FLAG_CONTEXT) and context.endswith(f":{noun}"):
            flagged.setdefault(context.removeprefix(FLAG_CONTEXT).removesuffix(f":{noun}"), ref.value)
    bases = [b.arguments for b in verified_bases(proposer, name) if not b.prefix] if flagged else []
    if not bases or ids[0].name not in bases[0]:
        return []
    required = set(tool.required)  # a call that works, plain: its required arguments; only the record differs
    base = {k: v for k, v in bases[0].items() if k in required}
    probes = []
    for flag, value in sorted(flagged.items())[:FLAGGED_RECORDS_PER_ROUND]:
        arguments = {**base, ids[0].name: value}
        step = ProbeStep(tool=name, arguments=arguments, expect="any",
                         intent=f"{tool.purpose} on a {noun} its listing flags `{flag}`")
        probes.append(proposer.new_probe(round_, Direction.AFFORDANCE, name, [step], keys=[f"{name}:flag:{flag}"]))
    return probes
