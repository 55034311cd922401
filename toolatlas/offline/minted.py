"""Identifiers a server mints in its answers, and the calls that must take them in the same run.

A loader that answers ``{"session_id": "83b7…"}`` whatever ``session_id`` it was given has made
something that lives in the server's process from that call on: an id copied from an earlier probe
names nothing in a fresh sandbox (``Session not found``), and a made-up one names nothing at all.
:class:`MintedIds` learns, from successful answers, where a tool's answer carries an identifier
(a key that names one: ``session_id``, ``jobId``, ``handle``…) that other tools take as an argument
of the same name, and that the tool *mints*: the very same call, repeated on a fresh sandbox, answers
another value there (an id that comes back the same each time is as good copied as bound), or the value
is drawn at random (``Ave513wLxeFC``, a UUID: no snapshot holds it, one sighting shows it), and the
value is none of the call's own arguments (an echo mints nothing).

:meth:`MintedIds.bind` then plans every later probe of such a consumer as a chain in one sandbox:
the minting call first, the consumer's argument bound to what it answered
(``${step0.session_id}``, :mod:`toolatlas.probing.bindings`), with the minter as the value's source
(a *data* composition). A tool that mints the key itself is never bound for it (its argument of
that name is the caller's suggestion), nor is a misuse that breaks that very argument.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from toolatlas.models import ToolSpec
from toolatlas.offline.harvest import id_like
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.words import tokens
from toolatlas.probing.bindings import bound_references, output_ref, shifted_references
from toolatlas.probing.models import ProbeStep
from toolatlas.probing.values import ArgKind, HarvestRef, scalars

__all__ = ["MintedIds", "Minter", "argument_paths", "breaks_argument"]

MINTED_AFTER = 2
"""Distinct values at one place of the answers to one call that show the tool mints them."""
_DRAWN = re.compile(r"(?=[\w-]*\d)(?=[\w-]*[A-Z])(?=[\w-]*[a-z])[\w-]{8,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                    r"[0-9a-f]{12}|(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{16,}")
"""An identifier drawn at random: mixed case and digits (``Ave513wLxeFC``), a UUID, or a long hex token — no snapshot
holds it, so one sighting shows the tool made it for the call (a counter such as ``task-9`` needs two)."""


def _drawn(value: str) -> bool:
    return bool(_DRAWN.fullmatch(value))


MAX_VALUES = 4
MAX_CALLS = 8
"""Distinct calls of one tool whose answers are compared (the first ones seen)."""
MAX_DEPTH = 3
"""How deep in an answer's objects an identifier is looked for (not in lists: a listing names what exists)."""
_INDEX_FIELDS = ("observes", "retry_of", "enabled_by", "compares")


class Minter(NamedTuple):
    """A tool whose answers carry a fresh identifier at ``path``, and a call of it that did."""

    tool: str
    arguments: dict[str, Any]
    path: str
    probe_id: str


class MintedIds:
    """Where the server's answers mint identifiers other tools take, learned from successful calls."""

    def __init__(self, specs: Mapping[str, ToolSpec]) -> None:
        self.specs = specs
        self._takers: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        for spec in specs.values():
            for argument in argument_paths(spec):
                leaf = argument.rsplit(".", 1)[-1]
                if id_like(leaf):
                    self._takers.setdefault(tuple(tokens(leaf)), []).append((spec.name, argument))
        self._seen: dict[tuple[str, str], dict[str, Any]] = {}
        """(tool, path) → the first call that answered there, its probe, and per call (canonical
        arguments) the distinct values it answered there."""

    def observe(self, tool: str, arguments: dict[str, Any], document: Any, probe_id: str) -> None:
        """Note the identifiers a successful answer of ``tool`` carries where other tools take them."""
        if not self._takers or not isinstance(document, Mapping) or bound_references(arguments):
            return
        given = {str(v) for v in scalars(arguments)}
        for path, key, value in _fields(document, "", 0):
            words = tuple(tokens(key))
            if not id_like(key) or not any(t != tool for t, _a in self._takers.get(words, [])):
                continue
            if str(value) in given:
                continue  # an echo of the call's own argument mints nothing
            seen = self._seen.setdefault((tool, path), {"arguments": arguments, "probe_id": probe_id, "values": {}})
            call = json.dumps(arguments, sort_keys=True, default=str)
            if call not in seen["values"] and len(seen["values"]) >= MAX_CALLS:
                continue
            values = seen["values"].setdefault(call, [])
            if str(value) not in values and len(values) < MAX_VALUES:
                values.append(str(value))

    def minters(self, argument: str) -> list[Minter]:
        """The tools seen minting what an argument of this name takes, most sightings first."""
        words = tuple(tokens(argument))
        found = []
        for (tool, path), seen in self._seen.items():
            most = max((len(values) for values in seen["values"].values()), default=0)
            drawn = any(values and all(_drawn(v) for v in values) for values in seen["values"].values())
            if (most >= MINTED_AFTER or drawn) and tuple(tokens(path.rsplit(".", 1)[-1])) == words:
                found.append((-most, tool, Minter(tool, seen["arguments"], path, seen["probe_id"])))
        return [m for *_rank, m in sorted(found, key=lambda f: f[:2])]

    def bind(self, steps: list[ProbeStep]) -> list[ProbeStep]:
        """``steps`` with each argument that takes a minted identifier bound to a minting call's answer:
        to an earlier step of the chain that mints it, else to a minting call put first."""
        wanted = [(i, a, m) for i, s in enumerate(steps) for a, m in self._wanted(s)]
        if not wanted:
            return steps
        bound = list(steps)
        first = next(((i, m) for i, _a, m in wanted if not any(bound[j].tool in {x.tool for x in m} for j in range(i))), None)
        if first is not None:
            index, minters = first
            minter = minters[0]
            make = ProbeStep(tool=minter.tool, arguments=minter.arguments, expect="ok",
                             intent=f"make what `{bound[index].tool}` takes ({self.specs[minter.tool].purpose})")
            bound = [make, *(_shifted(s, i) for i, s in enumerate(bound))]
            wanted = [(i + 1, a, m) for i, a, m in wanted]
        for index, argument, minters in wanted:
            by_tool = {m.tool: m for m in minters}
            source = next(((j, by_tool[bound[j].tool]) for j in range(index - 1, -1, -1) if bound[j].tool in by_tool), None)
            if source is None:
                continue
            position, minter = source
            step = bound[index]
            reference = output_ref(position, minter.path)
            ref = HarvestRef(kind=ArgKind.IDENTIFIER, value=reference, tool=minter.tool, probe_id=minter.probe_id)
            bound[index] = step.model_copy(update={"arguments": _with_value(step.arguments, argument, reference),
                                                   "harvested": [*step.harvested, ref]})
        return bound

    def _wanted(self, step: ProbeStep) -> list[tuple[str, list[Minter]]]:
        """The arguments of ``step`` (or the fields of its one object argument: ``params.session_id``) that
        take a minted identifier, with the tools that mint it."""
        found = []
        for argument, value in _planned(step.arguments):
            if bound_references(value) or breaks_argument(step, argument):
                continue
            minters = self.minters(argument.rsplit(".", 1)[-1])
            if minters and all(m.tool != step.tool for m in minters):
                found.append((argument, minters))
        return found

    def dump(self) -> list[list[Any]]:
        """What was seen, JSON-able (for checkpoints)."""
        return [[tool, path, seen] for (tool, path), seen in self._seen.items()]

    def load(self, saved: list[list[Any]]) -> None:
        """Continue from :meth:`dump`."""
        self._seen = {(tool, path): dict(seen) for tool, path, seen in saved}


def argument_paths(spec: ToolSpec) -> list[str]:
    """A tool's arguments, and the fields of those that are objects with fields of their own, by locator
    (``session_id``; ``params.session_id`` where every argument sits under one ``params`` object)."""
    found = []
    for argument in infer_arguments(spec):
        found.append(argument.path)
        if argument.kind is ArgKind.OBJECT:
            found.extend(field.path for field in argument.properties)
    return found


def _planned(arguments: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(locator, value)`` of each argument planned, and of each field of an object planned as one."""
    found: list[tuple[str, Any]] = []
    for name, value in arguments.items():
        found.append((name, value))
        if isinstance(value, Mapping):
            found.extend((f"{name}.{key}", inner) for key, inner in value.items())
    return found


def _with_value(arguments: Mapping[str, Any], locator: str, value: Any) -> dict[str, Any]:
    """``arguments`` with ``value`` at ``locator`` (an argument, or a field of an object argument)."""
    name, _, field = locator.partition(".")
    if not field:
        return {**arguments, name: value}
    return {**arguments, name: {**arguments[name], field: value}}


def breaks_argument(step: ProbeStep, argument: str) -> bool:
    """Whether ``step`` is a misuse of ``argument`` itself (its condition names it, or a part of it:
    ``fields[0]``, ``options.unit``)."""
    condition = step.condition or ""
    return bool(step.mutation) and any(f"`{argument}{end}" in condition for end in ("`", "[", "."))


def _shifted(step: ProbeStep, position: int) -> ProbeStep:
    """A step at ``position`` moved one place later: the earlier steps it points to (and whose answers it
    takes) move too."""
    update: dict[str, Any] = {f: getattr(step, f) + 1 for f in _INDEX_FIELDS if getattr(step, f) is not None}
    if bound_references(step.arguments):
        update["arguments"] = shifted_references(step.arguments, 1, position)
    return step.model_copy(update=update) if update else step


def _fields(node: Mapping[str, Any], prefix: str, depth: int):
    for key, value in node.items():
        path = f"{prefix}{key}"
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            yield path, str(key), value
        elif isinstance(value, Mapping) and depth < MAX_DEPTH:
            yield from _fields(value, path + ".", depth + 1)


