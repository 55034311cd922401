"""The offline proposer: turns a server's current graph into probes, with no LLM.

Bootstrap (round 0): for every tool, ``k`` seed tasks — a valid call built from what really
exists in the snapshot; a mutating call is followed by a read that should show its effect
(create → read back). Exploration (rounds ≥ 1): for each target tool the frontier picked, the
candidate probes of both directions —

- inward (affordance): valid calls with other optional arguments and enum members, compositions
  that feed a value another tool returned into this one (data flow), write-then-read chains
  (state), retries that correct a call the graph knows fails, and replays for determinism;
- outward (boundary): every sensible mutation of a valid call, and repeating a create.

Each candidate carries coverage keys (``tool:...``) so the frontier can prefer what is new.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import structlog

from toolatlas.config import ServerSpec
from toolatlas.graph.families import SCHEMA_SUMMARY
from toolatlas.graph.models import Entry, EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.models import Effect, OutcomeClass, ToolSpec
from toolatlas.offline.answers import GROUP_CONTEXT, LABEL_CONTEXT, argument_takers
from toolatlas.offline.cost import cheapest, costly_arguments
from toolatlas.offline.discovery import PILOT_TIMEOUT_S, Discovery, discover, run_blocking
from toolatlas.offline.facts import EnvironmentFacts, extract_facts
from toolatlas.offline.flagged import FlaggedValues, flagged_records
from toolatlas.offline.harvest import ValuePool, answered_document, texts_in
from toolatlas.offline.hints import example_calls
from toolatlas.offline.kinds import (
    SQL_KINDS,
    ArgSpec,
    ToolEffect,
    infer_arguments,
    tool_effect,
    tool_object,
    with_known_call,
)
from toolatlas.offline.listed import AnswerBindings
from toolatlas.offline.mutations import Mutation, boundary_mutations
from toolatlas.offline.readback import asking_for, marker_for, sql_read_back, sql_select_spec, written_markers
from toolatlas.offline.records import ReadRecord, ReadRecords, document_of
from toolatlas.offline.retries import hinted_retries
from toolatlas.offline.saturation import saturation_probes, value_classes
from toolatlas.offline.schemas import conforms
from toolatlas.offline.taught import TaughtArguments
from toolatlas.offline.values import PlannedCall, ValueSynth
from toolatlas.offline.workflows import (
    UnplannedFailure,
    chained_preconditions,
    deferred_effects,
    exercised_keys,
    named_tools,
    preconditions,
    record_chains,
)
from toolatlas.probing.bindings import answer_fields, bound_references, output_ref
from toolatlas.probing.hidden import MIRRORED, mirror_index
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, Verdict
from toolatlas.probing.text import error_signature, to_placeholders
from toolatlas.probing.values import ArgKind, HarvestRef, scalars
from toolatlas.probing.verdicts import judges
from toolatlas.workspace import Workspace

__all__ = ["OfflineProposer"]

ANSWERED_VALUES = 3
"""Values an answer's field named for an argument that each get a data-flow call of their own: the values a
request may name ("for work") are those the atlas saw the tool take."""
SHOWN_CALLS = 2
"""Whole calls of a tool's description tried as they are, in the seed round (one of a slow tool)."""
SOURCE_SETUP = 2
"""Calls made before a data flow's source call in the probe its answer came from that its data-flow probe makes
first too (a file loaded into the server before the listing of its invoices was read)."""

log = structlog.get_logger(__name__)

MUTATIONS_PER_CALL = 16
FLAGGED_PER_ROUND = 3
"""Calls of a judging tool with flagged values planned a round (one per marker)."""
SLOW_TIMEOUT_S = PILOT_TIMEOUT_S
"""Longest wait for one call of a slow tool: as long as its pilot was given."""
_CONTENT_WORDS = re.compile(r"\b(read|content|contents|text|show|open|cat)\b", re.IGNORECASE)
"""Words of a reader that shows what a thing holds (not only that it exists)."""
VARIANTS = 4
MAX_UNPLANNED = 12
CHAINS_PER_ERROR = 2
"""Calls that failed where success was expected, kept per tool: one per error and chain of tools, at most
two chains for one error (a deeper workflow's new error is never crowded out by one error's many chains)."""


def _markers(call: PlannedCall) -> list[str]:
    """Distinctive values a call creates: what a later read should show (a path's last part)."""
    found: list[str] = []
    for values in call.fresh_values.values():
        for value in values:
            if isinstance(value, str) and value:
                found.append(value.rstrip("/").rsplit("/", 1)[-1] if "/" in value else value)
    return found


_TOKEN = re.compile(r"(?=[\w+/=.-]*\d)(?=[\w+/=.-]*[A-Za-z])[\w+/=.-]{8,}")
"""A value handed back to be taken again: a token of eight characters or more, letters and digits, no space
(``5d2fb9182b1b``, a base64 cursor) — not a count or a word an answer echoes."""


def _made_again(calls: Iterable[Mapping[str, Any]], intent: str) -> list[ProbeStep]:
    """Calls a probe made (``tool``, ``arguments`` and the marker a later read looks for), made again first."""
    return [ProbeStep(tool=call["tool"], arguments=call["arguments"], intent=intent, expect="ok",
                      marker=call.get("marker"), observes=call.get("observes"), loses=call.get("loses"))
            for call in calls]


def _made_before(probe: Probe, index: int, failed: set[int]) -> list[dict[str, Any]]:
    """The calls step ``index`` of ``probe`` was made after that did not fail, for a retry to make first; none when
    a later call is bound to an earlier answer and leaving out a failed one would move what it is bound to."""
    kept = [i for i in range(index) if i not in failed]
    if len(kept) < index and any(bound_references(step.arguments) for step in probe.steps[: index + 1]):
        return []
    return [{"tool": probe.steps[i].tool, "arguments": probe.steps[i].arguments} for i in kept]


class OfflineProposer:
    """Plans probes for one server from its tools' schemas, the snapshot's facts and the graph."""

    def __init__(
        self,
        graph: ServerGraph,
        workspace: Workspace,
        spec: ServerSpec,
        rng: random.Random,
        pool: ValuePool | None = None,
    ) -> None:
        self.graph = graph
        self.workspace = workspace
        self.spec = spec
        self.rng = rng
        self.pool = pool if pool is not None else ValuePool()
        self.facts = EnvironmentFacts(kind=spec.environment.kind)
        self.synth = ValueSynth(self.facts, self.pool, rng)
        self.args: dict[str, list[ArgSpec]] = {name: infer_arguments(t) for name, t in graph.specs.items()}
        if spec.smoke is not None and spec.smoke.tool in self.args:  # the catalogue's call known to work
            self.args = with_known_call(self.args, spec.smoke.tool, spec.smoke.arguments)
        self.discovery = Discovery()
        self.calls_by_probe: dict[str, dict[str, dict[str, Any]]] = {}
        """probe id → tool → the arguments it was called with (to replay the source of a harvested value)."""
        self.saturated: set[tuple[str, ...]] = set()
        self.unplanned_failures: dict[str, list[UnplannedFailure]] = {}
        """tool → calls that failed where success was expected (at most :data:`MAX_UNPLANNED` a tool)."""
        self.reference_calls: dict[str, dict[str, Any]] = {}
        """tool → the arguments of its first seed call (see :meth:`reference_call`)."""
        self._shown: dict[str, list[dict[str, Any]]] = {}
        """tool → its documented whole calls (:meth:`_shown_calls`), read from its description once."""
        self.records = ReadRecords()
        """Structured answers of reads on the untouched snapshot, for writes that take their fields back."""
        self.taught = TaughtArguments(self.args, graph.specs)
        self.flagged = FlaggedValues()
        """What errors said of arguments (alternatives, the fields of open items), written into ``args``."""
        self.bindings = AnswerBindings(graph.specs)
        """Where answers mint ids and list names other tools take: their calls are bound to those answers."""
        self.takers = argument_takers(graph.specs)
        """Answer field → the plain string arguments named like it (values an answer holds for other tools)."""
        self.named_next: dict[str, dict[str, dict[str, Any]]] = {}
        """tool → another tool one of its answers named (``Remember to call save_sdlxliff``) → the arguments of
        that call (:func:`~toolatlas.offline.workflows.deferred_effects`)."""
        self.handed_back: dict[str, tuple[dict[str, Any], str]] = {}
        """tool → a call whose answer handed back a value under the name of an optional argument the call left out
        (a preview's ``confirm`` token), and that argument (:meth:`_handbacks`)."""

    # -- set-up ----------------------------------------------------------------------------------

    def prepare(self) -> None:
        """Read the facts of the snapshot (blocking: file reads, or a scratch database clone)."""
        kind = self.spec.environment.kind
        environment = self.workspace.environment(self.spec)
        snapshot = self.workspace.snapshot(self.spec)
        if kind in ("directory", "sqlite", "git", "json_file"):
            self.facts = extract_facts(kind, Path(snapshot.path))
        elif kind == "postgres":
            with tempfile.TemporaryDirectory(dir=self.workspace.home.instances) as scratch:
                instance = environment.prepare(snapshot, Path(scratch) / f"facts-{self.spec.name}")
                try:
                    self.facts = extract_facts(kind, instance.variables["database_uri"])
                finally:
                    environment.discard(instance)
        self.synth = ValueSynth(self.facts, self.pool, self.rng)

    @property
    def stateless(self) -> bool:
        """The environment holds no state: what a call changes lives in the server's process, seen only
        through its own reads."""
        return self.spec.environment.kind == "none"

    def discover(self, seed: int) -> Discovery:
        """Ask the server in a scratch sandbox (blocking) what exists and what its tools cost, and plan
        from it: its listings (a snapshot's files do not say what the server makes of them: the tasks of a board
        kept in one markdown file), introspection when no database facts are known."""
        scratch = ValueSynth(self.facts, ValuePool(), random.Random(f"{seed}:discovery:{self.spec.name}"))
        sandbox = self.workspace.sandbox(self.spec)
        try:
            found = run_blocking(
                lambda: discover(sandbox, scratch, listings=True, introspect=self.facts.database is None)
            )
        except Exception as exc:  # noqa: BLE001 - a discovery that breaks leaves an ordinary build
            log.warning("discovery_abandoned", server=self.spec.name, error=str(exc)[:300])
            found = Discovery(error=f"{type(exc).__name__}: {exc}"[:300])
        self.apply_discovery(found, harvest=True)
        return found

    def apply_discovery(self, found: Discovery, *, harvest: bool) -> None:
        """Plan from what discovery found; ``harvest`` puts its listings' values in the pool (a
        restored pool has them already)."""
        self.discovery = found
        if found.database is not None and self.facts.database is None:
            self.facts = self.facts.model_copy(update={"database": found.database})
            self.synth = ValueSynth(self.facts, self.pool, self.rng)
        if harvest:
            known = self.facts.tree is not None or self.facts.database is not None
            for output in found.outputs:
                probe_id = f"discovery:{output.tool}"
                listed = ValuePool()
                refs = listed.harvest(self.graph.specs[output.tool], output.excerpt, output.structured, {}, probe_id,
                                      arguments=output.arguments)
                if known:  # the snapshot says what is there: a listing adds only the names it groups or labels
                    for ref in refs:
                        if (ref.context or "").startswith((GROUP_CONTEXT, LABEL_CONTEXT)):
                            self.pool.add(ref)
                else:
                    self.calls_by_probe.setdefault(probe_id, {})[output.tool] = output.arguments
                    self.bindings.observe(output.tool, output.arguments,
                                          answer_fields(output.structured, output.excerpt), probe_id)
                    for ref in refs:
                        self.pool.add(ref)
                # values under a field named like another tool's plain argument (``accounts`` for ``account``)
                self.pool.harvest_answered(self.graph.specs[output.tool],
                                           answered_document(output.structured, output.excerpt), self.takers,
                                           probe_id, arguments=output.arguments)

    @property
    def slow(self) -> frozenset[str]:
        """Tools whose pilot did not answer within a second, or one of whose calls ran into the
        server's call timeout (a wide margin either way): fewer probes, a tight timeout."""
        timed_out = {name for name, node in self.graph.tools.items() if node.outcomes.get("timeout")}
        return (frozenset(self.discovery.slow) | timed_out) & frozenset(self.graph.specs)

    # -- bootstrap -------------------------------------------------------------------------------

    def seed_probes(self, k: int, rollouts: int) -> list[Probe]:
        """``k`` seed tasks per tool, each run ``rollouts`` times."""
        probes: list[Probe] = []
        for name in sorted(self.graph.specs):
            slow = name in self.slow  # one task, one rollout: it costs seconds a call
            for variant in range(1 if slow else k):
                steps = self._seed_steps(name, variant)
                if steps is None:
                    continue
                for rollout in range(1 if slow else rollouts):
                    probes.append(self.new_probe(0, Direction.SEED, name, steps, rollout=rollout))
            for n, shown in enumerate(self._shown_calls(name)[:1 if slow else SHOWN_CALLS]):
                step = ProbeStep(tool=name, arguments=shown, intent=f"the call its description shows ({n + 1})",
                                 expect="ok", exercised=exercised_keys(shown, self.graph.specs[name]))
                probes.append(self.new_probe(0, Direction.SEED, name, [step], keys=[f"{name}:shown:{n}"]))
            if slow and (default := self._default_cost_probe(name)) is not None:
                probes.append(default)
        return probes

    def _shown_calls(self, name: str) -> list[dict[str, Any]]:
        """The whole calls the tool's description shows (``solve_routing_problem(locations=[…], vehicles=[…])``:
        :func:`~toolatlas.offline.hints.example_calls`) that its schema accepts, as written: values that belong
        together (a constraint over the variables the same call declares) that no argument-by-argument plan makes."""
        if name not in self._shown:
            tool = self.graph.specs[name]
            required = set(tool.input_schema.get("required") or ())
            self._shown[name] = [call for call in example_calls(tool.description, name, list(tool.properties))
                                 if required <= set(call) and conforms(call, tool.input_schema)]
        return self._shown[name]

    def _default_cost_probe(self, name: str) -> Probe | None:
        """A slow tool's plain call with the work its arguments ask for by default, under the tight
        timeout: whether it answers in time is what an agent calling it plainly runs into (the
        other probes ask for the least work, so they characterise the tool, not its default)."""
        tool = self.graph.specs[name]
        costly = sorted(costly_arguments(tool))
        planned = self.synth.valid_arguments(tool, self.args[name], 0)
        if not costly or planned is None:
            return None
        defaults = {k: v for k, v in planned.arguments.items() if k not in costly}
        named = ", ".join(f"`{a}`" for a in costly)
        step = self.planned_step(tool, planned, expect="any").model_copy(
            update={
                "arguments": defaults,
                "mutation": "default_cost",
                "condition": f"called with its default {named} (the work it does when not asked for less)",
                "exercised": exercised_keys(defaults, tool),
            }
        )
        return self.new_probe(0, Direction.BOUNDARY, name, [step], keys=[f"{name}:mut:default_cost"])

    def reference_call(self, name: str) -> dict[str, Any] | None:
        """The arguments of the tool's first seed call: the call a misuse's condition is stated against
        (a misuse of another call names what differs, :func:`~toolatlas.offline.saturation.with_context`)."""
        return self.reference_calls.get(name)

    def _seed_steps(self, name: str, variant: int) -> list[ProbeStep] | None:
        tool = self.graph.specs[name]
        planned = self.synth.valid_arguments(tool, self.args[name], variant)
        if planned is None:
            return None
        if variant == 0:
            self.reference_calls.setdefault(name, planned.arguments)
        first = self.planned_step(tool, planned, expect="ok")
        if tool_effect(tool) is ToolEffect.READ:
            return [first]
        found = self._read_back(tool, planned)
        if found is None:  # an opaque state: the server's own reads are the only witnesses
            return (self._observed(tool, first) if self.stateless else None) or [first]
        reader, marker = found
        return [first.model_copy(update={"marker": marker}), reader]

    def _observed(self, writer: ToolSpec, call: ProbeStep, reader: ToolSpec | None = None) -> list[ProbeStep] | None:
        """``read, read again, call, read``: a read that needs no argument, stable across two calls,
        shows whether the call changed the server's own state (what no environment digest sees)."""
        readers = [reader] if reader is not None else self.state_readers(writer)
        for candidate in readers:
            planned = self.synth.valid_arguments(candidate, self.args[candidate.name], 0)
            if planned is None:
                continue
            arguments = asking_for(self.args[candidate.name], planned.arguments, call.arguments)
            look = self.planned_step(candidate, planned, expect="ok").model_copy(
                update={"intent": f"see the state `{writer.name}` may change ({candidate.purpose})",
                        "arguments": arguments, "exercised": exercised_keys(arguments, candidate)}
            )
            return [
                look,
                look.model_copy(update={"compares": 0, "intent": "read it again: the read is stable"}),
                call,
                look.model_copy(update={"compares": 1, "intent": f"see what `{writer.name}` changed"}),
            ]
        return None

    def state_readers(self, writer: ToolSpec) -> list[ToolSpec]:
        """Read tools that need no argument (listings, getters), those on the writer's kind of object first."""
        obj = tool_object(writer)
        readers = [
            t for t in self.graph.specs.values()
            if t.name != writer.name and tool_effect(t) is ToolEffect.READ and not t.required and t.name not in self.slow
        ]
        return sorted(readers, key=lambda t: (tool_object(t) is not obj, t.name))

    def _read_back(self, writer: ToolSpec, planned: PlannedCall) -> tuple[ProbeStep, str] | None:
        """A read that should show what ``planned`` wrote, and the marker it should show.

        A read tool on the same kind of object that names what was created (or its folder), or
        lists every such object; for an SQL INSERT, a SELECT of the new row (by the same tool if it
        takes any statement)."""
        written = written_markers(planned, self.args[writer.name])
        sql = self._sql_read_back(writer, planned)
        if sql is not None:
            return sql
        if not written["names"] and not written["texts"]:
            return None
        markers = written["names"]  # what a read may name; new text alone is shown by a listing of all
        synth = self._created_synth(writer, planned)
        obj = tool_object(writer)
        created = [v for values in planned.fresh_values.values() for v in values if isinstance(v, str)]
        parents = {v[: v.index("/" + m)] for v in created for m in markers if "/" + m in v}
        readers = [t for t in self.graph.specs.values() if t.name != writer.name and tool_effect(t) is ToolEffect.READ]
        readers.sort(key=lambda t: (tool_object(t) is not obj, len(t.required), t.name))
        found: list[tuple[tuple[int, int], ProbeStep, str]] = []
        options = [(r, s) for r in readers[:10] for s in (synth, self.synth)]  # what was made, or where it was
        for position, (reader, planner) in enumerate(options):
            call = planner.valid_arguments(reader, self.args[reader.name], 0)
            if call is None:
                continue
            if planner is self.synth and parents:  # list the very folder it was made in
                folder = sorted(parents)[0]
                listed = {s.name for s in self.args[reader.name] if s.kind is ArgKind.DIR_PATH}
                arguments = {k: folder if k in listed else v for k, v in call.arguments.items()}
                call = call.model_copy(update={"arguments": arguments})
            values = texts_in(call.arguments)
            names_it = any(marker in v for v in values for marker in markers)
            targets_it = names_it or any(v in parents for v in values)
            whole = not reader.required and tool_object(reader) is obj  # e.g. a listing of every branch
            marker = marker_for(written, call.arguments)
            if (targets_it or whole) and marker is not None:
                step = self.planned_step(reader, call, expect="ok")
                intent = f"read back what `{writer.name}` changed ({reader.purpose})"
                shows_text = marker in written["texts"] and bool(
                    _CONTENT_WORDS.search(f"{reader.name.replace('_', ' ')} {reader.purpose}")
                )
                if marker in written["texts"]:  # new contents: a content read of the very thing written
                    rank = (0 if names_it and shows_text else 4, position)
                else:  # a new name: a listing of its folder, of everything, then a read of the thing itself
                    rank = (1 if targets_it and not names_it else 2 if whole else 3, position)
                found.append((rank, step.model_copy(update={"observes": 0, "intent": intent}), marker))
        if not found:
            return None
        _rank, step, marker = min(found, key=lambda f: f[0])
        return step, marker

    def _sql_read_back(self, writer: ToolSpec, planned: PlannedCall) -> tuple[ProbeStep, str] | None:
        """A SELECT of the row an INSERT in ``planned`` adds, by a tool that takes SELECTs."""
        statements = [
            (spec, planned.arguments.get(spec.name)) for spec in self.args[writer.name] if spec.kind in SQL_KINDS
        ]
        found = next((sql_read_back(v) for _s, v in statements if isinstance(v, str) and sql_read_back(v)), None)
        if found is None:
            return None
        select, marker = found
        readers = sorted(self.graph.specs.values(), key=lambda t: (t.name == writer.name, tool_effect(t) is not ToolEffect.READ, t.name))
        for reader in readers:
            spec = sql_select_spec(self.args[reader.name])
            if spec is None:
                continue
            call = self.synth.valid_arguments(reader, self.args[reader.name], 0)
            if call is None:
                continue
            arguments = {**call.arguments, spec.name: select}
            step = ProbeStep(
                tool=reader.name,
                arguments=arguments,
                intent=f"read back the row `{writer.name}` inserted ({reader.purpose})",
                expect="ok",
                exercised=exercised_keys(arguments, reader),
                observes=0,
            )
            return step, marker
        return None

    def _created_synth(self, writer: ToolSpec, planned: PlannedCall) -> ValueSynth:
        """A planner that prefers what ``planned`` creates: for the steps that work on it next."""
        scratch = ValuePool()
        scratch.harvest(writer, "", None, {}, "plan", arguments=planned.arguments)
        return ValueSynth(self.facts, scratch, random.Random(self.rng.random()), use_created=True)

    # -- exploration -----------------------------------------------------------------------------

    def candidates(self, round_: int, targets: Iterable[str]) -> dict[str, list[Probe]]:
        """Every candidate probe for the target tools, both directions."""
        found: dict[str, list[Probe]] = {}
        for name in targets:
            if name not in self.graph.specs:
                continue
            probes = [
                *self._variants(round_, name),
                *self._compositions(round_, name),
                *self._record_chains(round_, name),
                *self._retries(round_, name),
                *self._hinted_retries(round_, name),
                *self._handbacks(round_, name),
                *self._preconditions(round_, name),
                *self._lifecycles(round_, name),
                *self._observations(round_, name),
                *self._replays(round_, name),
                *self._boundaries(round_, name),
                *self._repeated_changes(round_, name),
                *self._flagged_checks(round_, name),
            ]
            unique: dict[str, Probe] = {}
            for probe in probes:
                unique.setdefault(probe.id, probe)
            found[name] = list(unique.values())
        return found

    def _variants(self, round_: int, name: str) -> list[Probe]:
        probes = []
        for variant in range(VARIANTS):
            steps = self._seed_steps(name, variant)
            if steps is not None:
                probes.append(self.new_probe(round_, Direction.AFFORDANCE, name, steps))
        return probes

    def _compositions(self, round_: int, name: str) -> list[Probe]:
        """Feed values other tools returned into this tool: the source call, then this one."""
        tool = self.graph.specs[name]
        sources: dict[str, list[HarvestRef]] = {}
        for spec in self.args[name]:
            answered = [r for r in self.pool.named_for(f"{name}:{spec.path}") if r.failed_arguments is None]
            for ref in [*self.pool.values(spec.kind), *answered]:
                if ref.tool != name and ref.tool in self.graph.specs:
                    sources.setdefault(ref.tool, []).append(ref)
        probes = []
        for source, refs in sorted(sources.items()):
            answered = [r for r in refs if r.argument is not None][:ANSWERED_VALUES]
            for n, group in enumerate([refs, *([r] for r in answered[1:])]):  # each value a field named, its own use
                probe = self._data_flow(round_, tool, source, group, key=f"{name}:data<{source}" + (f":{n}" if n else ""))
                if probe is not None:
                    probes.append(probe)
        return probes

    def _data_flow(self, round_: int, tool: ToolSpec, source: str, refs: list[HarvestRef], *, key: str) -> Probe | None:
        """The call of ``source`` that returned ``refs``, then ``tool`` called with them."""
        scratch = ValuePool()
        for ref in refs:
            scratch.add(ref)
        call = ValueSynth(self.facts, scratch, random.Random(self.rng.random())).valid_arguments(
            tool, self.args[tool.name], 0
        )
        if call is None or not call.used_values:
            return None
        made = self.calls_by_probe.get(call.used_values[0].probe_id, {})
        source_args = made.get(source)
        if source_args is None:
            return None
        calls = list(made.items())
        at = list(made).index(source)
        setup = [ProbeStep(tool=t, arguments=a, intent="make what the answer it gave was given after", expect="ok")
                 for t, a in calls[max(0, at - SOURCE_SETUP):at]  # a file loaded into the server before its listing
                 if t != tool.name and not self._changes_state(t)]  # (a change made again mints other ids)
        first = ProbeStep(tool=source, arguments=source_args, intent=self.graph.specs[source].purpose, expect="ok")
        second = self.planned_step(tool, call, expect="ok").model_copy(
            update={"intent": f"use what `{source}` returned to {tool.purpose}"}
        )
        return self.new_probe(round_, Direction.AFFORDANCE, tool.name, [*setup, first, second], keys=[key])

    def _changes_state(self, name: str) -> bool:
        """Whether a verified use of ``name`` changed the environment (a commit, a write): made again before a data
        flow's source, it would make other ids than the ones the flow carries."""
        return any(e.effect is Effect.MUTATING for e in self.graph.entries_of(name, EntryKind.AFFORDANCE))

    def _retries(self, round_: int, name: str) -> list[Probe]:
        """A call the graph knows fails, followed by a corrected call: the retry composition."""
        tool = self.graph.specs[name]
        planned = self.synth.valid_arguments(tool, self.args[name], 0)
        if planned is None:
            return []
        probes = []
        for entry in self.graph.entries_of(name, EntryKind.BOUNDARY)[:4]:
            if entry.example_arguments is None or entry.outcome is None:
                continue
            before = self._setup_of(entry)
            failing = ProbeStep(
                tool=name,
                arguments=entry.example_arguments,
                intent=f"a call that fails when {entry.condition}",
                expect="error",
                condition=entry.condition,
                mutation=self._misuse_of(entry),
            )
            failing = failing.model_copy(update={"mirrors": mirror_index([s.tool for s in before], name, failing.mutation)})
            fixed = self.planned_step(tool, planned, expect="ok").model_copy(
                update={
                    "retry_of": len(before),
                    "intent": f"retry with corrected arguments so that it does not fail when {entry.condition}",
                }
            )
            probes.append(
                self.new_probe(
                    round_, Direction.AFFORDANCE, name, [*before, failing, fixed], keys=[f"{name}:retry:{entry.id}"]
                )
            )
        return probes

    @staticmethod
    def _setup_of(entry: Entry) -> list[ProbeStep]:
        """The calls a boundary's example call was made after in its probe (a duplicate create follows the
        create it repeats): a retry makes them first, or its failing call would meet a fresh sandbox."""
        shown = next((e for e in entry.evidence if e.arguments == entry.example_arguments), None)
        if shown is None:
            shown = entry.evidence[0] if entry.evidence else None
        if shown is None:
            return []
        return _made_again(shown.prefix, "make what the failing call needs")

    def _misuse_of(self, entry: Entry) -> str | None:
        """The misuse a boundary's example call is (its family; a schema summary's: its first member's), so a
        retry judges the call as the probe that met it did."""
        if entry.family != SCHEMA_SUMMARY or not entry.summarises:
            return entry.family
        member = self.graph.entries.get(entry.summarises[0])
        return member.family if member is not None else None

    def _hinted_retries(self, round_: int, name: str) -> list[Probe]:
        """A call whose error named the way out, then the same call with a value the error named."""
        tool = self.graph.specs[name]
        probes = []
        for retry in hinted_retries(tool, self.pool, self.synth):
            before = _made_again(retry.after, "make what the failing call was made after")
            failing = ProbeStep(
                tool=name,
                arguments=retry.failing,
                intent=f"a call whose error names valid values for `{retry.locator}`",
                expect="error",
            )
            fixed = ProbeStep(
                tool=name,
                arguments=retry.fixed,
                intent=f"retry with `{retry.locator}` = {retry.value!r}, a value the error named",
                expect="ok",
                retry_of=len(before),
                exercised=exercised_keys(retry.fixed, tool),
            )
            key = f"{name}:retry:named:{retry.ref.argument}={retry.value}"  # each value an error named: another retry
            probes.append(self.new_probe(round_, Direction.AFFORDANCE, name, [*before, failing, fixed], keys=[key]))
        return probes

    def _preconditions(self, round_: int, name: str) -> list[Probe]:
        return [*preconditions(self, round_, name), *chained_preconditions(self, round_, name)]

    def _record_chains(self, round_: int, name: str) -> list[Probe]:
        return record_chains(self, round_, name)

    def _lifecycles(self, round_: int, name: str) -> list[Probe]:
        """Create → read back → modify what was created → verify the change, for a creating tool."""
        tool = self.graph.specs[name]
        if tool_effect(tool) is not ToolEffect.CREATE:
            return []
        planned = self.synth.valid_arguments(tool, self.args[name], 0)
        if planned is None:
            return []
        found = self._read_back(tool, planned)
        markers = _markers(planned)
        if found is None or not markers:
            return []
        read, marker = found
        synth = self._created_synth(tool, planned)
        modifiers = sorted(
            (t for t in self.graph.specs.values() if t.name != name and tool_effect(t) in (ToolEffect.UPDATE, ToolEffect.DELETE)),
            key=lambda t: (tool_effect(t) is not ToolEffect.UPDATE, tool_object(t) is not tool_object(tool), t.name),
        )
        probes = []
        for modifier in modifiers:
            call = self.made_call(synth, markers, modifier)
            if call is None:
                continue
            change = self.planned_step(modifier, call, expect="ok").model_copy(
                update={"intent": f"change what `{name}` created ({modifier.purpose})"}
            )
            after = self._read_back(modifier, call)  # e.g. read the destination of a move
            if after is not None:
                change = change.model_copy(update={"marker": after[1]})
            verify = (after[0] if after else read.model_copy(update={"expect": "any"})).model_copy(
                update={"observes": 2 if after is not None else None, "intent": f"verify the change `{modifier.name}` made"}
            )
            first = self.planned_step(tool, planned, expect="ok").model_copy(update={"marker": marker})
            steps = [first, read, change, verify]
            probes.append(self.new_probe(round_, Direction.AFFORDANCE, name, steps, keys=[f"{name}:lifecycle:{modifier.name}"]))
            if len(probes) == 2:
                break
        return probes

    def made_call(self, synth: ValueSynth, markers: list[str], tool: ToolSpec) -> PlannedCall | None:
        """``tool``'s call on what a planned creation makes (``synth``: :meth:`created_synth` of it, whose
        distinctive values are ``markers``), or None when its call would name none of it."""
        call = synth.valid_arguments(tool, self.args[tool.name], 0)
        if call is None or not any(m in v for v in texts_in(call.arguments) for m in markers):
            return None
        return call

    def made_by(self, creator: ToolSpec, tool: ToolSpec) -> list[ProbeStep] | None:
        """``creator``'s planned call, then ``tool``'s call on what it made (``mkdir`` a new folder, then
        ``rmdir`` it), or None when ``tool`` cannot be pointed at what ``creator`` makes."""
        planned = self.synth.valid_arguments(creator, self.args[creator.name], 0)
        markers = _markers(planned) if planned is not None else []
        if planned is None or not markers:
            return None
        call = self.made_call(self._created_synth(creator, planned), markers, tool)
        if call is None:
            return None
        then = self.planned_step(tool, call, expect="ok").model_copy(
            update={"intent": f"{tool.purpose}, on what `{creator.name}` has just made"})
        return [self.planned_step(creator, planned, expect="ok"), then]

    def _observations(self, round_: int, name: str) -> list[Probe]:
        """For a tool that is not a read: its call between stable reads by each argument-free reader."""
        tool = self.graph.specs[name]
        if tool_effect(tool) is ToolEffect.READ or not self.stateless:
            return []
        planned = self.synth.valid_arguments(tool, self.args[name], 1)
        if planned is None:
            return []
        call = self.planned_step(tool, planned, expect="ok")
        probes = []
        for reader in self.state_readers(tool)[:3]:
            steps = self._observed(tool, call, reader)
            if steps is not None:
                probes.append(self.new_probe(round_, Direction.AFFORDANCE, name, steps, keys=[f"{name}:observed_by:{reader.name}"]))
        return probes

    def _replays(self, round_: int, name: str) -> list[Probe]:
        probes = []
        for entry in self.graph.entries_of(name, EntryKind.AFFORDANCE):
            if entry.deterministic is not None or entry.example_arguments is None or not entry.evidence:
                continue
            if entry.evidence[0].step != 0:  # verified inside a chain: alone it may lack its preconditions
                continue
            if entry.signature.startswith("tolerates:"):
                continue
            step = ProbeStep(
                tool=name, arguments=entry.example_arguments, intent="repeat the same call", expect="ok"
            )
            probe = self.new_probe(
                round_, Direction.REPLAY, name, [step, step], keys=[f"{name}:replay:{entry.id}"]
            )
            probes.append(
                probe.model_copy(
                    update={"replay_of": entry.probe_ids[0], "reference_excerpt": entry.evidence[0].excerpt}
                )
            )
        return probes[:2]

    def _boundaries(self, round_: int, name: str) -> list[Probe]:
        tool = self.graph.specs[name]
        probes = []
        planned_keys: set[str] = set()
        epoch = self.taught.epoch(name)
        lesson = f"@{epoch}" if epoch else ""  # a misuse of a call its errors refused for another reason: again
        documented = self._shown_calls(name)
        worked = {json.dumps(e.example_arguments, sort_keys=True) for e in self.graph.entries_of(name, EntryKind.AFFORDANCE)
                  if e.example_arguments is not None and not e.signature.startswith("tolerates:")} if documented else set()
        shown = [PlannedCall(tool=name, variant=0, arguments=call) for call in documented
                 if json.dumps(call, sort_keys=True) in worked]  # a documented call that worked: its values belong
        for planned in [*shown, *(self.synth.valid_arguments(tool, self.args[name], v) for v in range(2))][:2]:
            if planned is None:
                continue
            for mutation in boundary_mutations(
                tool, self.args[name], planned.arguments, self.synth, cap=MUTATIONS_PER_CALL
            ):
                key = f"{name}:mut:{mutation.name.value}:{mutation.target_arg or '*'}{lesson}"
                if key in planned_keys:  # one call per misuse: under one condition, one call's answer
                    continue
                planned_keys.add(key)
                steps = self.mirrored([], tool, planned.arguments, mutation, mutation.step(name))
                probes.append(self.new_probe(round_, Direction.BOUNDARY, name, steps, keys=[key]))
            if tool_effect(tool) is ToolEffect.CREATE:
                first = self.planned_step(tool, planned, expect="ok")
                again = first.model_copy(
                    update={
                        "expect": "any",
                        "mutation": "duplicate_create",
                        "intent": "create the same thing again",
                        "condition": "the thing to create already exists (created just before)",
                    }
                )
                probes.append(
                    self.new_probe(
                        round_,
                        Direction.BOUNDARY,
                        name,
                        [first, again],
                        keys=[f"{name}:mut:duplicate_create"],
                    )
                )
        return probes

    def mirrored(self, prefix: Sequence[ProbeStep], tool: ToolSpec, arguments: dict[str, Any], mutation: Mutation,
                 step: ProbeStep) -> list[ProbeStep]:
        """The steps of a boundary probe: ``prefix``, then ``step``. For a value outside the set an argument lists, of
        a tool that writes nothing, the same call first — without that argument when it is optional (else with the
        default the schema gives, else as planned) — which ``step`` :attr:`~ProbeStep.mirrors`: an answer to the value
        outside the set that is the same shows it was ignored."""
        arg = mutation.target_arg
        spec = next((s for s in self.args[tool.name] if s.name == arg), None)
        if (mutation.name.value not in MIRRORED or spec is None or arg not in arguments
                or tool_effect(tool) not in (ToolEffect.READ, ToolEffect.UNKNOWN)):
            return [*prefix, step]
        taken = dict(arguments)
        if not spec.required:
            del taken[arg]
        elif spec.has_default:
            taken[arg] = spec.default
        mirror = step.model_copy(update={"arguments": taken, "expect": "ok", "mutation": None, "condition": None,
                                         "intent": f"the same call with a `{arg}` it takes, to compare answers"})
        return [*prefix, mirror, step.model_copy(update={"mirrors": len(prefix)})]

    def _keep_handback(self, step: ProbeStep, fields: Any) -> None:
        """Remember the first call of a tool whose answer hands back a value under the name of an optional argument
        the call left out (``{"confirm": "5d2fb9182b1b", "next": "repeat the call with confirm=<this token>"}``)."""
        if step.tool in self.handed_back or not isinstance(fields, Mapping):
            return
        sent = {str(v) for v in scalars(step.arguments)}
        for spec in self.args[step.tool]:
            value = fields.get(spec.name)
            if (not spec.required and spec.name not in step.arguments and isinstance(value, str)
                    and _TOKEN.fullmatch(value) and value not in sent and value != spec.default):
                self.handed_back[step.tool] = (dict(step.arguments), spec.name)
                return

    def _handbacks(self, round_: int, name: str) -> list[Probe]:
        """The call whose answer handed a value back (:meth:`_keep_handback`), then the same call taking it, its
        flags set to true left out (a preview's ``dry_run``): what the value was handed back for — a write
        confirmed with its preview's token, the next page of a listing."""
        if name not in self.handed_back:
            return []
        arguments, argument = self.handed_back[name]
        tool = self.graph.specs[name]
        flags = {s.name for s in self.args[name] if s.json_type == "boolean" and not s.required}
        taken = {k: v for k, v in arguments.items() if not (k in flags and v is True)}
        taken[argument] = output_ref(0, argument)
        first = ProbeStep(tool=name, arguments=arguments, expect="ok", exercised=exercised_keys(arguments, tool),
                          intent=f"{tool.purpose}: its answer hands back `{argument}`")
        then = ProbeStep(tool=name, arguments=taken, expect="ok", exercised=exercised_keys(taken, tool),
                         intent=f"{tool.purpose} with the `{argument}` the call before handed back")
        return [self.new_probe(round_, Direction.AFFORDANCE, name, [first, then], keys=[f"{name}:handed:{argument}"])]

    def _repeated_changes(self, round_: int, name: str) -> list[Probe]:
        """A verified call that changed the state, made again right after itself (after the calls it was verified
        after): a change made twice (deprecate, archive, mark done) is refused (``'x' is already deprecated``) or
        changes nothing — either is what a caller repeating it meets. A tool that creates has its own repeat
        (``duplicate_create``)."""
        if tool_effect(self.graph.specs[name]) in (ToolEffect.CREATE, ToolEffect.READ):  # a read's first call may
            return []  # build what it reads from (an index): its repeat is a replay, not a change made twice
        changed = [
            (entry, shown)
            for entry in self.graph.entries_of(name, EntryKind.AFFORDANCE)
            if entry.example_arguments is not None and not entry.signature.startswith("tolerates:")
            for shown in entry.evidence[:1]
            if shown.state_change and shown.state_change != "no change" and shown.arguments == entry.example_arguments
        ]
        if not changed:
            return []
        entry, shown = max(changed, key=lambda pair: (pair[0].support, pair[0].id))
        setup = self._setup_of(entry)
        first = ProbeStep(tool=name, arguments=shown.arguments, intent="make a change", expect="ok")
        again = first.model_copy(update={
            "expect": "any", "mutation": "repeated_change", "intent": "make the same change again",
            "condition": "the same change was made just before",
        })
        return [self.new_probe(round_, Direction.BOUNDARY, name, [*setup, first, again],
                               keys=[f"{name}:mut:repeated_change"])]

    def _flagged_checks(self, round_: int, name: str) -> list[Probe]:
        """A tool that judges what it is given (:func:`~toolatlas.probing.verdicts.judges`), called with the values the
        server's other answers flag (:func:`~toolatlas.offline.flagged.flagged_values`: a pin listed ``[INPUT ONLY]``),
        beside the arguments of the call that flagged them: what its check exists to catch."""
        tool = self.graph.specs[name]
        numbered = [s for s in self.args[name] if s.kind is ArgKind.INTEGER
                    or (s.kind is ArgKind.ARRAY and s.items is not None and s.items.kind is ArgKind.INTEGER)]
        if not judges(tool) or len(numbered) != 1:
            return []
        flags = self.flagged.values(exclude=name)[:FLAGGED_PER_ROUND]
        planned = self.synth.valid_arguments(tool, self.args[name], 0) if flags else None  # planned only when used
        if planned is None:
            return []
        target = numbered[0]
        probes = []
        for flagged in flags:
            arguments = dict(planned.arguments)
            arguments.update({k: v for k, v in flagged.context.items() if k in tool.properties and k != target.name})
            arguments[target.name] = [flagged.value] if target.kind is ArgKind.ARRAY else flagged.value
            step = ProbeStep(tool=name, arguments=arguments, expect="any",
                             intent=f"check {flagged.value}, which `{flagged.source}` marks {flagged.marker[:60]}")
            key = f"{name}:flagged:{flagged.source}:{flagged.marker.lower()[:40]}"
            probes.append(self.new_probe(round_, Direction.AFFORDANCE, name, [step], keys=[key]))
        return probes

    def exploration_state(self) -> dict[str, Any]:
        """What saturation and chained preconditions remember between rounds, JSON-able (for checkpoints)."""
        return {
            "saturated": sorted(list(key) for key in self.saturated),
            "reference_calls": self.reference_calls,
            "taught": self.taught.dump(),
            "flagged": self.flagged.dump(),
            "bindings": self.bindings.dump(),
            "named_next": self.named_next,
            "handed_back": {tool: [arguments, argument] for tool, (arguments, argument) in self.handed_back.items()},
            "unplanned_failures": {
                tool: [[[s.model_dump(mode="json") for s in f.prefix], f.step.model_dump(mode="json"), f.error, f.records]
                       for f in failures]
                for tool, failures in self.unplanned_failures.items()
            },
        }

    def restore_exploration_state(self, state: dict[str, Any]) -> None:
        """Continue from :meth:`exploration_state` (an empty one from a checkpoint without it)."""
        self.saturated = {tuple(key) for key in state.get("saturated", [])}
        self.reference_calls = dict(state.get("reference_calls", {}))
        self.taught.load(state.get("taught", {}))
        self.flagged.load(state.get("flagged", []))
        self.bindings.load(state.get("bindings", {}))
        self.named_next = {tool: dict(named) for tool, named in state.get("named_next", {}).items()}
        self.handed_back = {tool: (dict(saved[0]), str(saved[1])) for tool, saved in state.get("handed_back", {}).items()}
        self.unplanned_failures = {
            tool: [UnplannedFailure([ProbeStep.model_validate(s) for s in saved[0]], ProbeStep.model_validate(saved[1]),
                                    saved[2], saved[3] if len(saved) > 3 else [])
                   for saved in failures]
            for tool, failures in state.get("unplanned_failures", {}).items()
        }

    def saturation(self, round_: int, taken: set[str]) -> list[Probe]:
        """Every tool's semantic boundaries not tried yet, beyond the frontier's choice
        (:mod:`toolatlas.offline.saturation`); ``taken``: the ids the round already runs."""
        return saturation_probes(self, round_, taken)

    def read_back_probes(self, round_: int, name: str) -> dict[str, Probe]:
        """Reader → ``[write, read]``: the call of a writing tool followed by each read that should show
        what it wrote — a read naming it, a listing of everything, a search for its marker — so every
        write → read composition is witnessed on the writer, not only the best one."""
        tool = self.graph.specs[name]
        if tool_effect(tool) is ToolEffect.READ:
            return {}
        planned = self.synth.valid_arguments(tool, self.args[name], 0)
        if planned is None:
            return {}
        written = written_markers(planned, self.args[name])
        markers = [*written["names"], *written["texts"], *written["rows"]]
        if not markers:
            return {}
        synth = self._created_synth(tool, planned)
        first = self.planned_step(tool, planned, expect="ok")
        found: dict[str, Probe] = {}
        for reader in sorted(self.graph.specs.values(), key=lambda t: t.name):
            if reader.name == name or tool_effect(reader) is not ToolEffect.READ or reader.name in self.slow:
                continue
            call = synth.valid_arguments(reader, self.args[reader.name], 0)
            if call is None:
                continue
            arguments = dict(call.arguments)
            searched = [s.name for s in self.args[reader.name] if s.kind is ArgKind.SEARCH_QUERY]
            for spec_name in searched:  # a search for what was just written
                arguments[spec_name] = written["names"][0] if written["names"] else markers[0]
            marker = marker_for(written, arguments)
            if marker is None:
                continue
            read = self.planned_step(reader, call, expect="ok").model_copy(
                update={"arguments": arguments, "observes": 0, "exercised": exercised_keys(arguments, reader),
                        "intent": f"read back what `{name}` wrote ({reader.purpose})"}
            )
            steps = [first.model_copy(update={"marker": marker}), read]
            found[reader.name] = self.new_probe(round_, Direction.AFFORDANCE, name, steps, keys=[f"{name}:state>{reader.name}"])
        return found

    def composition_probes(self, round_: int, name: str) -> list[Probe]:
        """The named-value retry, precondition and data-flow chains of ``name`` (for saturation), the
        chains an answer of the server pointed to first: an error that named the fix (a value, the
        fields of an array's items), a value an answer handed back, a failure whose cause another tool may remove,
        a tool an answer named, a record a listing flagged, a record a read returned."""
        return [
            *self._hinted_retries(round_, name),
            *self._handbacks(round_, name),
            *self.taught.retries(self, round_, name),
            *self._preconditions(round_, name),
            *deferred_effects(self, round_, name),
            *flagged_records(self, round_, name),
            *self._record_chains(round_, name),
            *self._compositions(round_, name),
        ]

    def boundary_probe(self, round_: int, target: str, steps: list[ProbeStep], *, key: str) -> Probe:
        """A boundary probe of ``target`` made of ``steps``, covering ``key``."""
        return self.new_probe(round_, Direction.BOUNDARY, target, steps, keys=[key])

    # -- feedback --------------------------------------------------------------------------------

    def observe(self, rollout: Rollout, verdict: Verdict) -> None:
        """Harvest values from successful outputs, for data-flow compositions in later rounds."""
        failed = {v.index for v in verdict.steps if v.failed}
        for result in rollout.steps:
            step = rollout.probe.steps[result.index]
            tool = self.graph.specs.get(step.tool)
            if tool is None:
                continue
            if result.index in failed and step.expect == "ok" and not step.mutation:  # an unplanned failure
                self._keep_unplanned(rollout, step, result.index, failed)
            if result.index in failed:  # an error may name the values that would have worked, or what they lack
                self.taught.learn(tool, step.arguments, result.outcome.excerpt, misuse=bool(step.mutation))
                self.pool.harvest_error(
                    tool, result.outcome.excerpt, rollout.variables, rollout.probe.id,
                    arguments=step.arguments, siblings=self.graph.specs, after=_made_before(rollout.probe, result.index,
                                                                                            failed),
                )
                continue
            if not step.mutation and result.outcome.outcome is OutcomeClass.OK and not bound_references(step.arguments):
                self._keep_handback(step, answer_fields(result.outcome.structured, result.outcome.excerpt))
            if not step.mutation and result.outcome.outcome is OutcomeClass.OK:  # flags a checker should meet
                self.flagged.observe(step.tool, step.arguments, result.outcome.excerpt)
                if tool_effect(tool) is not ToolEffect.READ and not bound_references(step.arguments):
                    for named in named_tools(result.outcome.excerpt, step.tool, self.graph.specs):
                        self.named_next.setdefault(step.tool, {}).setdefault(named, step.arguments)
            document = document_of(result.outcome.structured, result.outcome.excerpt)
            if not bound_references(step.arguments):  # a call bound to an earlier answer cannot be repeated alone
                self.calls_by_probe.setdefault(rollout.probe.id, {})[step.tool] = step.arguments
            if not step.mutation:
                fields = answer_fields(result.outcome.structured, result.outcome.excerpt)
                self.bindings.observe(step.tool, step.arguments, to_placeholders(fields, rollout.variables),
                                      rollout.probe.id)
            if result.index == 0 and not step.mutation and tool_effect(tool) is ToolEffect.READ:
                if document is not None:
                    self.records.add(ReadRecord(step.tool, step.arguments, to_placeholders(document, rollout.variables),
                                                rollout.probe.id))
            self.pool.harvest(
                tool,
                result.outcome.excerpt,
                result.outcome.structured,
                rollout.variables,
                rollout.probe.id,
                arguments=step.arguments,
            )
            answered = answered_document(result.outcome.structured, result.outcome.excerpt)
            if not step.mutation and answered is not None:
                self.pool.harvest_answered(tool, to_placeholders(answered, rollout.variables), self.takers,
                                           rollout.probe.id, arguments=step.arguments)

    def _keep_unplanned(self, rollout: Rollout, step: ProbeStep, index: int, failed: set[int]) -> None:
        """Keep a call that failed where success was expected: the steps before it, its error, and the
        answers of the steps before it that worked (what an enabler of it may take back: the task a plan
        created). One per error and chain of tools."""
        chain = [s for s in rollout.probe.steps[:index] if s.expect != "error"]
        records = [
            to_placeholders(document, rollout.variables)
            for r in rollout.steps
            if r.index < index and r.index not in failed
            and (document := document_of(r.outcome.structured, r.outcome.excerpt)) is not None
        ]
        known = self.unplanned_failures.setdefault(step.tool, [])
        error = next(r.outcome.excerpt for r in rollout.steps if r.index == index)
        signature = error_signature(error)
        same_error = [k for k in known if error_signature(k.error) == signature]
        tools = [s.tool for s in chain]
        if (len(known) < MAX_UNPLANNED and len(same_error) < CHAINS_PER_ERROR
                and all([s.tool for s in k.prefix] != tools for k in same_error)):
            known.append(UnplannedFailure(chain, step, error, records))

    # -- building blocks -------------------------------------------------------------------------

    def _within_cost(self, step: ProbeStep) -> ProbeStep:
        """A step of a slow tool waits at most :data:`SLOW_TIMEOUT_S` and, unless it is a boundary
        probe, asks for the least work its durations and sizes allow (``duration`` 0, ``steps`` 1)."""
        if step.tool not in self.slow:
            return step
        cheap = cheapest(self.graph.specs[step.tool], step.arguments)
        if step.mutation:  # a boundary probe keeps what it breaks: the arguments its condition names
            for name in re.findall(r"`([^`]+)`", step.condition or ""):
                if name in step.arguments:
                    cheap[name] = step.arguments[name]
                else:
                    cheap.pop(name, None)
        arguments = cheap
        return step.model_copy(update={"timeout_s": SLOW_TIMEOUT_S, "arguments": arguments})

    def planned_step(self, tool: ToolSpec, planned: PlannedCall, *, expect: str) -> ProbeStep:
        return ProbeStep(
            tool=tool.name,
            arguments=planned.arguments,
            intent=tool.purpose,
            expect=expect,  # type: ignore[arg-type]
            harvested=[ref for ref in planned.used_values if not ref.created and ref.tool != tool.name],
            exercised=exercised_keys(planned.arguments, tool) + value_classes(self.args[tool.name], planned.arguments),
        )

    def new_probe(
        self,
        round_: int,
        direction: Direction,
        target: str,
        steps: list[ProbeStep],
        *,
        rollout: int = 0,
        keys: list[str] | None = None,
    ) -> Probe:
        steps = [self._within_cost(s) for s in steps]
        coverage = [f"{s.tool}:arg:{k}" for s in steps for k in s.exercised] + list(keys or [])
        if direction is Direction.SEED or (direction is Direction.AFFORDANCE and not keys):
            coverage.append(f"{target}:shape:{','.join(sorted(steps[0].exercised))}")
        if len(steps) > 1 and steps[1].observes is not None:
            coverage.append(f"{steps[0].tool}:state>{steps[1].tool}")
        if direction is not Direction.REPLAY:  # a replay repeats a call that worked as it was
            bound = self.bindings.bind(steps, self.facts, self.args)
            steps = [self._within_cost(bound[0]), *bound[1:]] if len(bound) > len(steps) else bound
        task = "; then ".join(dict.fromkeys(s.intent for s in steps))
        return Probe(
            id=Probe.make_id(self.spec.name, round_, direction, steps, rollout),
            server=self.spec.name,
            round=round_,
            direction=direction,
            target=target,
            task=task[:300],
            steps=steps,
            coverage_keys=sorted(set(coverage)),
            rollout=rollout,
        )
