"""What a tool's errors taught about its arguments, written into the specs every later call is planned from.

Nine lessons, each read from a failed call: optional arguments that are alternatives
(:mod:`toolatlas.offline.alternatives`: ``Must provide either a or b``), the fields an array's open
items need (:mod:`toolatlas.offline.items`: ``Unknown operator: None``), the kind of value an
argument takes, whether its paths are relative or must be written in another folder than their source's,
whether its moments must come after today or not after it, the fewest characters its text takes and which optional arguments point at a network service the
sandbox cannot reach (:mod:`toolatlas.offline.stated`: ``Input is not a valid IPv4 address``,
``Non-relative patterns are unsupported``, ``due_date 2026-11-28 is in the past``, ``2026-12-09 is in the
future``, ``root_cause is too vague. Write at least 20 characters``, ``could not connect to gdbstub on
127.0.0.1:8080``).
:class:`TaughtArguments` keeps them per tool, applies them to the tool's inferred specs (the proposer's
``args``), survives a checkpoint, and plans the call again once its items' shape or an argument's kind
is learnt (:meth:`TaughtArguments.retries`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import structlog

from toolatlas.models import ToolSpec
from toolatlas.offline.alternatives import Alternatives, stated_alternatives, with_alternatives
from toolatlas.offline.items import ItemFields
from toolatlas.offline.kinds import ArgSpec, infer_arguments
from toolatlas.offline.stated import (
    stated_elsewhere,
    stated_future,
    stated_kinds,
    stated_lengths,
    stated_past,
    stated_relative,
    stated_unreachable,
)
from toolatlas.probing.models import Direction, Probe
from toolatlas.probing.values import ArgKind

if TYPE_CHECKING:
    from toolatlas.offline.proposer import OfflineProposer

__all__ = ["TaughtArguments"]

log = structlog.get_logger(__name__)


class _Flag(NamedTuple):
    """A lesson that marks arguments with a flag of their specs (:class:`~toolatlas.offline.kinds.ArgSpec`)."""

    name: str
    """The spec's flag, the lesson's name in checkpoints and its retries' coverage keys."""
    stated: Callable[[list[ArgSpec], Mapping[str, Any], str], list[str]]
    """The arguments a refusal of a call says take the flag."""
    shown: str
    """How a retry's intent says it (``{}`` is the argument)."""
    from_misuse: bool = True
    """Whether a call planned to fail teaches it too."""


FLAGS: tuple[_Flag, ...] = (
    _Flag("relative", stated_relative, "`{}` relative to the root"),
    _Flag("future", stated_future, "`{}` after today"),
    _Flag("past", stated_past, "`{}` not after today"),
    _Flag("elsewhere", stated_elsewhere, "`{}` in another folder", from_misuse=False),  # a link out of the root
    _Flag("unreachable", stated_unreachable, "without `{}`, which it could not reach"),
)
"""The lessons that flag arguments: paths relative to the root, moments after today or not after it, a new path
written in another folder than its source's, an argument pointing at a network service the sandbox cannot reach."""


class TaughtArguments:
    """Per tool, the alternatives and item fields its errors stated; ``args`` (tool → specs) kept up to date."""

    def __init__(self, args: dict[str, list[ArgSpec]], specs: dict[str, ToolSpec]) -> None:
        self.args = args
        self.specs = specs
        self.base = {name: list(found) for name, found in args.items()}
        """tool → its arguments before anything was learnt (what the schema, descriptions and known calls say)."""
        self.alternatives: dict[str, list[Alternatives]] = {}
        """tool → the groups of its optional arguments its errors said are given one at a time."""
        self.items = ItemFields()
        self.kinds: dict[str, dict[str, ArgKind]] = {}
        """tool → argument → the kind of value its errors said the argument takes."""
        self.flags: dict[str, dict[str, set[str]]] = {flag.name: {} for flag in FLAGS}
        """lesson (:data:`FLAGS`) → tool → the arguments its errors said take that flag."""
        self.lengths: dict[str, dict[str, int]] = {}
        """tool → argument → the fewest characters its errors said the argument's text takes."""
        for name, spec in specs.items():
            if name in args and self.items.state(spec, args[name]):
                self._apply(name)

    @property
    def unreachable(self) -> dict[str, set[str]]:
        """tool → the optional arguments that pointed it at a network service it could not reach."""
        return self.flags["unreachable"]

    def learn(self, tool: ToolSpec, arguments: dict[str, Any], error: str, *, misuse: bool = False) -> None:
        """Read one failed call of ``tool``: alternatives it states, a field its array's items lack, the flags, lengths
        and kinds of its arguments. A ``misuse`` (a call planned to fail: a path through a link out of the root)
        teaches only the lessons :data:`FLAGS` allow it to."""
        found = stated_alternatives(tool, error)
        known = self.alternatives.setdefault(tool.name, [])
        if found is not None and found not in known:
            known.append(found)
            log.debug("alternatives_learned", tool=tool.name, names=found.names, needed=found.needed)
            self._apply(tool.name)
        if self.items.learn(tool, self.args[tool.name], arguments, error):
            log.debug("item_field_learned", tool=tool.name, arguments=sorted(arguments))
            self._apply(tool.name)
        for flag in FLAGS:
            flagged = flag.stated(self.args[tool.name], arguments, error) if flag.from_misuse or not misuse else []
            if flagged:
                self.flags[flag.name].setdefault(tool.name, set()).update(flagged)
                log.debug("argument_flag_learned", tool=tool.name, flag=flag.name, arguments=flagged)
                self._apply(tool.name)
        lengths = stated_lengths(self.args[tool.name], arguments, error)
        if lengths:
            self.lengths.setdefault(tool.name, {}).update(lengths)
            log.debug("argument_length_learned", tool=tool.name, lengths=dict(lengths))
            self._apply(tool.name)
        stated = stated_kinds(self.args[tool.name], arguments, error)
        if stated:
            self.kinds.setdefault(tool.name, {}).update(stated)
            log.debug("argument_kind_learned", tool=tool.name, kinds={a: k.value for a, k in stated})
            self._apply(tool.name)

    def epoch(self, name: str) -> int:
        """How many kinds, flags and lengths the tool's errors taught: a misuse probed before a lesson was probed on
        a call the server refused for another reason, and is probed again after it (its coverage key changes)."""
        return (len(self.kinds.get(name, {})) + sum(len(found.get(name, set())) for found in self.flags.values())
                + len(self.lengths.get(name, {})))

    def retries(self, proposer: OfflineProposer, round_: int, name: str) -> list[Probe]:
        """A valid call of ``name`` planned with the item fields its errors named (once per shape learnt:
        the coverage key names the fields)."""
        tool = self.specs[name]
        shapes = [(spec.name, self.items.fields(name, spec.name)) for spec in self.args[name]]
        shapes = [(argument, fields) for argument, fields in shapes if fields]
        kinds = sorted(self.kinds.get(name, {}).items())
        flagged = [(flag, argument) for flag in FLAGS for argument in sorted(self.flags[flag.name].get(name, set()))]
        lengths = sorted(self.lengths.get(name, {}).items())
        learnt = shapes or kinds or flagged or lengths
        planned = proposer.synth.valid_arguments(tool, self.args[name], 0) if learnt else None
        if planned is None:
            return []
        shown = "; ".join([*(f"`{argument}` items with {', '.join(fields)}" for argument, fields in shapes),
                           *(f"`{argument}` a {kind.value.replace('_', ' ')}" for argument, kind in kinds),
                           *(flag.shown.format(argument) for flag, argument in flagged),
                           *(f"`{argument}` of {least} characters at least" for argument, least in lengths)])
        step = proposer.planned_step(tool, planned, expect="ok").model_copy(
            update={"intent": f"call again with what its errors named ({shown})"})
        keys = [*(f"{name}:items:{argument}:{'+'.join(fields)}" for argument, fields in shapes),
                *(f"{name}:kind:{argument}:{kind.value}" for argument, kind in kinds),
                *(f"{name}:{flag.name}:{argument}" for flag, argument in flagged),
                *(f"{name}:length:{argument}:{least}" for argument, least in lengths)]
        return [proposer.new_probe(round_, Direction.AFFORDANCE, name, [step], keys=keys)]

    def _apply(self, name: str) -> None:
        specs = self.items.apply(self.specs[name], self.base.get(name) or infer_arguments(self.specs[name]))
        for found in self.alternatives.get(name, []):
            specs = with_alternatives(specs, found)
        kinds, lengths = self.kinds.get(name, {}), self.lengths.get(name, {})
        flagged = {flag.name: self.flags[flag.name].get(name, set()) for flag in FLAGS}
        touched = {*kinds, *lengths, *(argument for found in flagged.values() for argument in found)}
        self.args[name] = [
            spec.model_copy(update={"kind": kinds.get(spec.name, spec.kind),
                                    **{flag: spec.name in found for flag, found in flagged.items()},
                                    "min_length": max(spec.min_length or 0, lengths.get(spec.name, 0)) or None})
            if spec.name in touched else spec
            for spec in specs
        ]

    def dump(self) -> dict[str, Any]:
        """What was learnt, JSON-able (for checkpoints)."""
        return {
            "alternatives": {tool: [[list(a.names), a.needed, a.exclusive] for a in groups]
                             for tool, groups in self.alternatives.items()},
            "items": self.items.dump(),
            "kinds": {tool: {argument: kind.value for argument, kind in found.items()}
                      for tool, found in self.kinds.items()},
            **{flag: {tool: sorted(found) for tool, found in by_tool.items()} for flag, by_tool in self.flags.items()},
            "lengths": {tool: dict(found) for tool, found in self.lengths.items()},
        }

    def load(self, saved: dict[str, Any]) -> None:
        """Continue from :meth:`dump`."""
        self.alternatives = {
            tool: [Alternatives(tuple(group[0]), bool(group[1]), bool(group[2]) if len(group) > 2 else True)
                   for group in groups]
            for tool, groups in saved.get("alternatives", {}).items() if tool in self.specs
        }
        self.items.load({tool: found for tool, found in saved.get("items", {}).items() if tool in self.specs})
        self.kinds = {tool: {argument: ArgKind(kind) for argument, kind in found.items()}
                      for tool, found in saved.get("kinds", {}).items() if tool in self.specs}
        self.flags = {flag.name: {tool: set(found) for tool, found in saved.get(flag.name, {}).items()
                                  if tool in self.specs} for flag in FLAGS}
        self.lengths = {tool: {argument: int(least) for argument, least in found.items()}
                        for tool, found in saved.get("lengths", {}).items() if tool in self.specs}
        flagged = {tool for by_tool in self.flags.values() for tool in by_tool}
        for name in {*self.alternatives, *saved.get("items", {}), *self.kinds, *flagged, *self.lengths} & set(self.specs):
            self._apply(name)
