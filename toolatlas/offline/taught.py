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

from typing import TYPE_CHECKING, Any

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
        self.relative: dict[str, set[str]] = {}
        """tool → the path arguments its errors said take paths relative to the root."""
        self.future: dict[str, set[str]] = {}
        self.past: dict[str, set[str]] = {}
        """tool → the date arguments its errors said take only moments up to today."""
        self.elsewhere: dict[str, set[str]] = {}
        """tool → the new-path arguments its errors refused beside their source: written in another folder."""
        """tool → the date arguments its errors said take only moments after today."""
        self.unreachable: dict[str, set[str]] = {}
        """tool → the optional arguments that pointed it at a network service it could not reach."""
        self.lengths: dict[str, dict[str, int]] = {}
        """tool → argument → the fewest characters its errors said the argument's text takes."""
        for name, spec in specs.items():
            if name in args and self.items.state(spec, args[name]):
                self._apply(name)

    def learn(self, tool: ToolSpec, arguments: dict[str, Any], error: str, *, misuse: bool = False) -> None:
        """Read one failed call of ``tool``: alternatives it states, a field its array's items lack. A ``misuse`` (a
        call planned to fail: a path through a link out of the root) teaches no folder to write in."""
        found = stated_alternatives(tool, error)
        known = self.alternatives.setdefault(tool.name, [])
        if found is not None and found not in known:
            known.append(found)
            log.debug("alternatives_learned", tool=tool.name, names=found.names, needed=found.needed)
            self._apply(tool.name)
        if self.items.learn(tool, self.args[tool.name], arguments, error):
            log.debug("item_field_learned", tool=tool.name, arguments=sorted(arguments))
            self._apply(tool.name)
        relative = stated_relative(self.args[tool.name], arguments, error)
        if relative:
            self.relative.setdefault(tool.name, set()).update(relative)
            log.debug("relative_paths_learned", tool=tool.name, arguments=relative)
            self._apply(tool.name)
        future = stated_future(self.args[tool.name], arguments, error)
        if future:
            self.future.setdefault(tool.name, set()).update(future)
            log.debug("future_moments_learned", tool=tool.name, arguments=future)
            self._apply(tool.name)
        past = stated_past(self.args[tool.name], arguments, error)
        if past:
            self.past.setdefault(tool.name, set()).update(past)
            log.debug("past_moments_learned", tool=tool.name, arguments=past)
            self._apply(tool.name)
        elsewhere = [] if misuse else stated_elsewhere(self.args[tool.name], arguments, error)
        if elsewhere:
            self.elsewhere.setdefault(tool.name, set()).update(elsewhere)
            log.debug("elsewhere_paths_learned", tool=tool.name, arguments=elsewhere)
            self._apply(tool.name)
        unreachable = stated_unreachable(self.args[tool.name], arguments, error)
        if unreachable:
            self.unreachable.setdefault(tool.name, set()).update(unreachable)
            log.debug("unreachable_arguments_learned", tool=tool.name, arguments=unreachable)
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
        """How many kinds and relative paths the tool's errors taught: a misuse probed before a lesson was probed on
        a call the server refused for another reason, and is probed again after it (its coverage key changes)."""
        return (len(self.kinds.get(name, {})) + len(self.relative.get(name, set())) + len(self.future.get(name, set()))
                + len(self.past.get(name, set())) + len(self.elsewhere.get(name, set()))
                + len(self.unreachable.get(name, set())) + len(self.lengths.get(name, {})))

    def retries(self, proposer: OfflineProposer, round_: int, name: str) -> list[Probe]:
        """A valid call of ``name`` planned with the item fields its errors named (once per shape learnt:
        the coverage key names the fields)."""
        tool = self.specs[name]
        shapes = [(spec.name, self.items.fields(name, spec.name)) for spec in self.args[name]]
        shapes = [(argument, fields) for argument, fields in shapes if fields]
        kinds = sorted(self.kinds.get(name, {}).items())
        relative = sorted(self.relative.get(name, set()))
        future = sorted(self.future.get(name, set()))
        past = sorted(self.past.get(name, set()))
        elsewhere = sorted(self.elsewhere.get(name, set()))
        unreachable = sorted(self.unreachable.get(name, set()))
        lengths = sorted(self.lengths.get(name, {}).items())
        learnt = shapes or kinds or relative or future or past or elsewhere or unreachable or lengths
        planned = proposer.synth.valid_arguments(tool, self.args[name], 0) if learnt else None
        if planned is None:
            return []
        shown = "; ".join([*(f"`{argument}` items with {', '.join(fields)}" for argument, fields in shapes),
                           *(f"`{argument}` a {kind.value.replace('_', ' ')}" for argument, kind in kinds),
                           *(f"`{argument}` relative to the root" for argument in relative),
                           *(f"`{argument}` after today" for argument in future),
                           *(f"`{argument}` not after today" for argument in past),
                           *(f"`{argument}` in another folder" for argument in elsewhere),
                           *(f"without `{argument}`, which it could not reach" for argument in unreachable),
                           *(f"`{argument}` of {least} characters at least" for argument, least in lengths)])
        step = proposer.planned_step(tool, planned, expect="ok").model_copy(
            update={"intent": f"call again with what its errors named ({shown})"})
        keys = [*(f"{name}:items:{argument}:{'+'.join(fields)}" for argument, fields in shapes),
                *(f"{name}:kind:{argument}:{kind.value}" for argument, kind in kinds),
                *(f"{name}:relative:{argument}" for argument in relative),
                *(f"{name}:future:{argument}" for argument in future),
                *(f"{name}:past:{argument}" for argument in past),
                *(f"{name}:elsewhere:{argument}" for argument in elsewhere),
                *(f"{name}:unreachable:{argument}" for argument in unreachable),
                *(f"{name}:length:{argument}:{least}" for argument, least in lengths)]
        return [proposer.new_probe(round_, Direction.AFFORDANCE, name, [step], keys=keys)]

    def _apply(self, name: str) -> None:
        specs = self.items.apply(self.specs[name], self.base.get(name) or infer_arguments(self.specs[name]))
        for found in self.alternatives.get(name, []):
            specs = with_alternatives(specs, found)
        kinds, relative, future = self.kinds.get(name, {}), self.relative.get(name, set()), self.future.get(name, set())
        past, elsewhere = self.past.get(name, set()), self.elsewhere.get(name, set())
        unreachable, lengths = self.unreachable.get(name, set()), self.lengths.get(name, {})
        self.args[name] = [
            spec.model_copy(update={"kind": kinds.get(spec.name, spec.kind), "relative": spec.name in relative,
                                    "future": spec.name in future, "past": spec.name in past,
                                    "elsewhere": spec.name in elsewhere,
                                    "unreachable": spec.name in unreachable,
                                    "min_length": max(spec.min_length or 0, lengths.get(spec.name, 0)) or None})
            if {spec.name} & {*kinds, *relative, *future, *past, *elsewhere, *unreachable, *lengths} else spec
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
            "relative": {tool: sorted(found) for tool, found in self.relative.items()},
            "future": {tool: sorted(found) for tool, found in self.future.items()},
            "past": {tool: sorted(found) for tool, found in self.past.items()},
            "elsewhere": {tool: sorted(found) for tool, found in self.elsewhere.items()},
            "unreachable": {tool: sorted(found) for tool, found in self.unreachable.items()},
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
        self.relative = {tool: set(found) for tool, found in saved.get("relative", {}).items() if tool in self.specs}
        self.future = {tool: set(found) for tool, found in saved.get("future", {}).items() if tool in self.specs}
        self.past = {tool: set(found) for tool, found in saved.get("past", {}).items() if tool in self.specs}
        self.elsewhere = {tool: set(found) for tool, found in saved.get("elsewhere", {}).items() if tool in self.specs}
        self.unreachable = {tool: set(found) for tool, found in saved.get("unreachable", {}).items()
                            if tool in self.specs}
        self.lengths = {tool: {argument: int(least) for argument, least in found.items()}
                        for tool, found in saved.get("lengths", {}).items() if tool in self.specs}
        for name in {*self.alternatives, *saved.get("items", {}), *self.kinds, *self.relative, *self.future, *self.past, *self.elsewhere,
                     *self.unreachable, *self.lengths} & set(self.specs):
            self._apply(name)
