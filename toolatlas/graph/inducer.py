"""The offline inducer: merges verified outcomes into a server's graph by signature.

Twenty probes that hit the same wall become one boundary with support 20: entries are keyed by
a signature (the normalised error message for boundaries, the argument shape and effect for
affordances, peer + relation for co-usage), so re-observations add support and evidence instead
of new entries. Every entry is written with a human sentence and the typed fields, and keeps the
verbatim evidence of the calls that verified it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

from toolatlas.graph.bound import bound_source, prove_bound_causes
from toolatlas.graph.effects import observe_effect
from toolatlas.graph.families import (
    HIDDEN_HOW,
    OR_WHEN,
    SCHEMA_FAMILIES,
    SCHEMA_SUMMARY,
    VERDICT_HOW,
    restate_schema_boundary,
    summarise_schema,
)
from toolatlas.graph.lexicon import argument_words
from toolatlas.graph.misuses import separate_misuse
from toolatlas.graph.models import (
    MAX_EVIDENCE,
    CoUsageRelation,
    EffectObservation,
    Entry,
    EntryKind,
    EntryStatus,
    Evidence,
    TraceNode,
    TraceStep,
    confidence,
)
from toolatlas.graph.state import ServerGraph
from toolatlas.models import Frozen, OutcomeClass, stable_id, utcnow
from toolatlas.probing.conditions import condition_argument, joined, portable_change
from toolatlas.probing.evidence import argument_values
from toolatlas.probing.hidden import NEAR_NAME, NOT_TAKEN, TOLD_BY_MISUSE, reason_quote
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepVerdict, Verdict
from toolatlas.probing.own_state import reads_only
from toolatlas.probing.text import (
    condition_signature,
    error_signature,
    evidence_excerpt,
    message_line,
    to_placeholders,
)
from toolatlas.probing.values import scalars
from toolatlas.probing.verdicts import NEGATIVE_VERDICT

if TYPE_CHECKING:
    from toolatlas.environments import StateDiff

__all__ = [
    "STATE_CAUSE",
    "Inducer",
    "InductionDelta",
    "portable",
    "argument_shape",
    "confidence",
    "link_trace",
    "merge_entry",
    "record_transition",
    "restate_schema_boundary",
    "summarise_schema",
]


STATE_CAUSE = "called on the unchanged snapshot"
"""A boundary condition that blames the state: written only when the same call succeeded after a
precondition chain changed it."""


def _named_arguments(arguments: dict[str, Any], message: str | None) -> list[str]:
    """```name` = value`` for the arguments ``message`` names (by value, or by name); every
    argument when ``message`` is None."""
    found = []
    for name, value in arguments.items():
        shown = json.dumps(value, ensure_ascii=False)
        if message is not None:
            text = value if isinstance(value, str) else shown
            by_value = len(text) >= 3 and text in message
            by_name = len(name) >= 3 and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", message, re.I)
            if not (by_value or by_name):
                continue
        found.append(f"`{name}` = {shown if len(shown) <= 60 else shown[:57] + '…'}")
    return found



def portable(probe: Probe, variables: dict[str, str]) -> Probe:
    """The probe with its instance's concrete paths written as placeholders in every step's arguments.

    A value carried from an answer (a path a listing returned) names the instance the probe ran in;
    evidence, examples and traces keep it as ``${root}/…`` so that a replay, an agent or a later round
    in another instance calls the same thing."""
    steps = [step.model_copy(update={"arguments": to_placeholders(step.arguments, variables)}) for step in probe.steps]
    if all(new.arguments == old.arguments for new, old in zip(steps, probe.steps, strict=True)):
        return probe
    return probe.model_copy(update={"steps": steps})

class InductionDelta(Frozen):
    """What one rollout added to the graph: the bandit's reward and the round's counts."""

    new_entries: list[str] = []
    reinforced: list[str] = []
    """Entries whose support grew while their confidence was still below 0.8 (still informative)."""
    supported: int = 0
    new_traces: list[str] = []
    new_coverage: list[str] = []

    @property
    def reward(self) -> float:
        return len(self.new_entries) + 0.25 * len(self.reinforced) + 0.1 * len(self.new_coverage)


class Inducer:
    """Turns (probe, rollout, verdict) into entries, co-usage edges and traces on a :class:`ServerGraph`."""

    def __init__(self, graph: ServerGraph) -> None:
        self.graph = graph

    def induce(self, rollout: Rollout, verdict: Verdict, *, trace: bool = True) -> InductionDelta:
        """Merge one verified rollout; ``trace=False`` leaves the trace layer to another inducer
        (an agent rollout's trace is the LLM's reflection over all rollouts of its task)."""
        probe = portable(rollout.probe, rollout.variables)
        if rollout.infrastructure_error is not None or not verdict.steps:
            return InductionDelta()
        new: list[str] = []
        reinforced: list[str] = []
        supported = 0
        coverage: list[str] = []
        by_index = {v.index: v for v in verdict.steps}
        said = argument_words(step.arguments for step in probe.steps)
        for position, result in enumerate(rollout.steps):
            step = probe.steps[result.index]
            step_verdict = by_index[result.index]
            if step.tool not in self.graph.tools:
                continue
            prefix = [_call(probe.steps[r.index]) for r in rollout.steps[:position]]
            after = _proving_reads(probe, result.index) if step_verdict.hidden_failure and step.marker else []
            condition = self.condition(step.tool, step_verdict)
            evidence = Evidence(
                probe_id=probe.id,
                step=result.index,
                tool=step.tool,
                arguments=step.arguments,
                outcome=result.outcome.outcome,
                excerpt=evidence_excerpt(to_placeholders(result.outcome.excerpt, rollout.variables)),
                state_change=step_verdict.change.summary(limit=3) if not step_verdict.change.empty else "",
                condition=condition,
                prefix=prefix,
                marker=step.marker if after else None,
                after=after,
                round=probe.round,
            )
            self._count_call(step.tool, result.outcome.outcome)
            if result.outcome.outcome in (OutcomeClass.OK, OutcomeClass.TOOL_ERROR):
                self.graph.lexicon.hear(to_placeholders(result.outcome.excerpt, rollout.variables), said)
            if step.mutation == NEAR_NAME and not step_verdict.failed:
                continue  # accepted, and answered about itself: a name no name has, taken as a new one
            told = bool(step_verdict.hidden_failure) and step.mutation in TOLD_BY_MISUSE  # only the misuse tells
            opposed = self._opposed(evidence, step_verdict.failed) if not prefix and not told else []
            if step_verdict.failed:
                entry = self._boundary(probe, step, step_verdict, evidence)
            else:
                entry = self._affordance(probe, step, step_verdict, evidence)
                coverage += self._exercise(step)
            if entry.kind is EntryKind.BOUNDARY:
                restate_schema_boundary(self.graph, entry, probe.round)
            outcome = merge_entry(self.graph, entry, evidence)
            if entry.kind is EntryKind.AFFORDANCE and entry.signature.startswith("uses:"):
                change = portable_change(step_verdict.change, step.arguments) if not step_verdict.change.empty else ""
                other_effect = observe_effect(self.graph, entry.id, entry.text, EffectObservation(
                    effect=step_verdict.effect, condition=condition, change=change))
                if other_effect and outcome != "new":
                    outcome = "new"  # a use seen with an effect it had not shown is new knowledge
            if opposed:
                for other in [*opposed, self.graph.entries[entry.id]]:
                    self._count_contradiction(other)
            if entry.kind is EntryKind.BOUNDARY and entry.family in SCHEMA_FAMILIES:
                summarise_schema(self.graph, step.tool, probe.round)
            separate_misuse(self.graph, self.graph.entries[entry.id])
            (new if outcome == "new" else reinforced if outcome == "reinforced" else []).append(entry.id)
            supported += 1
        for relation, source, target, witness in self._transitions(probe, rollout, verdict):
            entry_id, outcome = self._co_usage(probe, relation, source, target, witness)
            (new if outcome == "new" else reinforced if outcome == "reinforced" else []).append(entry_id)
        for key in probe.coverage_keys:
            if key not in self.graph.covered:
                self.graph.covered.add(key)
                coverage.append(key)
        if probe.direction is Direction.REPLAY:
            self._apply_replay(probe, verdict)
        self._prove_state_causes(probe, verdict)
        prove_bound_causes(self.graph, probe, verdict)
        traces = self._trace(probe, rollout, verdict) if trace else []
        return InductionDelta(
            new_entries=new, reinforced=reinforced, supported=supported, new_traces=traces, new_coverage=coverage
        )

    def condition(self, tool: str, verdict: StepVerdict) -> str:
        """The pre-state condition of a call as the atlas states it: only the parts about arguments
        that name objects of the state (:attr:`ServerGraph.references`), and those about none."""
        if not verdict.precondition_parts:
            return verdict.precondition
        return joined(verdict.precondition_parts, self.graph.references.get(tool))

    # -- entries ---------------------------------------------------------------------------------

    def _affordance(self, probe: Probe, step: ProbeStep, verdict: StepVerdict, evidence: Evidence) -> Entry:
        spec = self.graph.specs[step.tool]
        shape = argument_shape(step.arguments, spec.properties, step.exercised)
        effect = verdict.effect
        if step.mutation:  # a boundary probe the tool accepted: leniency is knowledge too
            signature = f"tolerates:{step.mutation}:{condition_signature(step.condition or '', spec.properties)}"
            text = f"`{step.tool}` accepts the call without error even when {step.condition or step.mutation}."
            when = f"{step.condition or step.mutation} (accepted)"
        else:
            signature = f"uses:{','.join(shape)}"
            text = self._use_text(step.tool, shape)
            when = spec.purpose
        return self._new_entry(
            EntryKind.AFFORDANCE,
            step.tool,
            signature,
            probe,
            text=text,
            when=when,
            example_arguments=step.arguments,
            outcome=evidence.outcome,
            effect=effect,
            arguments_exercised=sorted(step.exercised),
            family=step.mutation,
        )

    def _use_text(self, tool: str, shape: list[str]) -> str:
        """``tool (purpose) works given …``: the use without its effect (see :func:`effect_clause`)."""
        spec = self.graph.specs[tool]
        required = set(spec.required)
        named = [f"`{a}`" for a in shape if a.split("=")[0] in required] or []
        optional = [
            f"`{a}`" + (f" ({hint})" if (hint := spec.argument_hint(a.split("=")[0])) else "")
            for a in shape
            if a.split("=")[0] not in required
        ]
        args = ", ".join(named) or "no required arguments"
        if optional:
            args += "; optional " + ", ".join(optional)
        return f"`{tool}` ({spec.purpose}) works given {args}"

    def _boundary(self, probe: Probe, step: ProbeStep, verdict: StepVerdict, evidence: Evidence) -> Entry:
        message = evidence.excerpt or verdict.outcome.value
        judged = verdict.hidden_failure.startswith(NEGATIVE_VERDICT)
        noted = verdict.hidden_failure.startswith(NOT_TAKEN)
        said = reason_quote(verdict.hidden_failure) if judged or noted else ""  # the verdict, the note quoted
        signature_text = (error_signature(said or message, echoes=argument_values(step.arguments))
                          or verdict.outcome.value)
        signature = f"{verdict.outcome.value}|{signature_text}"
        if verdict.hidden_failure and step.condition and not (judged or noted):
            # the answer reads as a success and tells no failure apart: the misuse the call was is what it is about
            signature += "|" + condition_signature(step.condition, self.graph.specs[step.tool].properties)
        condition = step.condition or self._unplanned_condition(probe, step, said or message)
        if (step.condition and verdict.outcome is not OutcomeClass.OK  # an error's words, not an answer's fields
                and _blames_another(step.condition, signature_text, step.tool, self.graph)):
            condition = self._unplanned_condition(probe, step, message)  # the misuse planned is not what it refused
        first_line = said or (message_line(message)[:200] if message.strip() else verdict.outcome.value)
        how = "reports an error" if verdict.reported_as_success else f"fails ({verdict.outcome.value})"
        if judged:
            how = VERDICT_HOW
        elif noted:  # the note is quoted once, at the end
            how = f"{HIDDEN_HOW} ({NOT_TAKEN})"
        elif verdict.hidden_failure:
            how = f"{HIDDEN_HOW} ({verdict.hidden_failure})"
        elif verdict.reported_as_success:
            how += " in an otherwise successful result"
        text = f"`{step.tool}` {how} when {condition}: “{first_line}”."
        return self._new_entry(
            EntryKind.BOUNDARY,
            step.tool,
            signature,
            probe,
            text=text,
            when_not=condition,
            condition=condition,
            error_signature=signature_text,
            example_arguments=step.arguments,
            outcome=verdict.outcome,
            reported_as_success=verdict.reported_as_success,
            family=step.mutation,
        )

    def _unplanned_condition(self, probe: Probe, step: ProbeStep, message: str) -> str:
        """The condition of a failure nobody provoked, as far as it is known: the argument values
        the error names, else the call's arguments (and the step before it, in a chain). That the state
        is the cause is claimed only once proven (:meth:`_prove_state_causes`)."""
        index = probe.steps.index(step)
        named = _named_arguments(step.arguments, message)
        if named:
            return "called with " + ", ".join(named) + " (the error names it)"
        given = _named_arguments(step.arguments, None)
        called = ("called with " + ", ".join(given[:3]) + (", …" if len(given) > 3 else "")) if given else (
            "called with no arguments")
        if index > 0:  # the call as it was made, and where: the step before it is no cause until proven
            return f"{called} right after `{probe.steps[index - 1].tool}`"
        return called

    def _prove_state_causes(self, probe: Probe, verdict: Verdict) -> None:
        """A call that failed on the snapshot and succeeded, the same call, once an earlier step had
        changed the state: its boundary's condition becomes the proven one."""
        by_index = {v.index: v for v in verdict.steps}
        for result in verdict.steps:
            step = probe.steps[result.index]
            enabler = by_index.get(step.enabled_by) if step.enabled_by is not None else None
            if result.failed or enabler is None or enabler.failed or enabler.change.empty:
                continue
            source = probe.steps[enabler.index].tool
            condition = f"{STATE_CAUSE} (the same call succeeds once `{source}` has changed the state)"
            for entry in self.graph.entries_of(step.tool, EntryKind.BOUNDARY):
                same_call = entry.family is None and entry.example_arguments == step.arguments
                if same_call and entry.condition != condition:
                    head = entry.text.split(" when ", 1)[0]
                    quote = entry.text[entry.text.rfind("“") :] if "“" in entry.text else entry.signature + "."
                    text = f"{head} when {condition}: {quote}"
                    update = {"condition": condition, "when_not": condition, "text": text,
                              "peer": source, "relation": CoUsageRelation.STATE}  # the proven enabler
                    self.graph.put_entry(entry.model_copy(update=update))

    def _new_entry(self, kind: EntryKind, tool: str, signature: str, probe: Probe, **fields: Any) -> Entry:
        node = self.graph.tools[tool]
        return Entry(
            id=Entry.make_id(self.graph.server, tool, node.schema_hash, kind, signature),
            kind=kind,
            server=self.graph.server,
            tool=tool,
            schema_hash=node.schema_hash,
            signature=signature,
            round_found=probe.round,
            **fields,
        )

    def _exercise(self, step: ProbeStep) -> list[str]:
        node = self.graph.tools[step.tool]
        keys = [k for k in step.exercised if k in node.arguments_total and k not in node.arguments_exercised]
        if keys:
            self.graph.put_tool(node.model_copy(update={"arguments_exercised": sorted({*node.arguments_exercised, *keys})}))
        return [f"{step.tool}:{k}" for k in keys]

    def _count_call(self, tool: str, outcome: OutcomeClass) -> None:
        node = self.graph.tools[tool]
        outcomes = dict(node.outcomes)
        outcomes[outcome.value] = outcomes.get(outcome.value, 0) + 1
        self.graph.put_tool(node.model_copy(update={"probes": node.probes + 1, "outcomes": outcomes}))

    # -- co-usage ----------------------------------------------------------------------------------

    def _transitions(
        self, probe: Probe, rollout: Rollout, verdict: Verdict
    ) -> Iterable[tuple[CoUsageRelation, str, str, Evidence]]:
        by_index = {v.index: v for v in verdict.steps}
        executed = [r.index for r in rollout.steps]
        for position, index in enumerate(executed):
            step = probe.steps[index]
            step_verdict = by_index[index]
            if position + 1 < len(executed):
                self.graph.transition_opportunities[step.tool] += 1
            if step_verdict.failed:
                continue
            witness = Evidence(
                probe_id=probe.id, tool=step.tool, arguments=step.arguments, outcome=step_verdict.outcome, round=probe.round
            )
            for ref in step.harvested:
                if ref.tool not in self.graph.tools:
                    continue
                self.graph.transition_opportunities[ref.tool] += 1
                value = to_placeholders(ref.value, rollout.variables)
                if not _carries(step.arguments, value):
                    continue  # the call no longer sends the value (a variant of the data-flow call)
                seen = bound_source(value, probe) or f"value {value!r} seen in `{ref.tool}` output (probe {ref.probe_id})"
                yield CoUsageRelation.DATA, ref.tool, step.tool, witness.model_copy(update={"excerpt": seen})
            if step.observes is not None and step_verdict.observed_marker:
                source = probe.steps[step.observes].tool
                yield CoUsageRelation.STATE, source, step.tool, witness.model_copy(
                    update={"excerpt": f"shows {probe.steps[step.observes].marker!r} written by `{source}`"}
                )
            enabler = by_index.get(step.enabled_by) if step.enabled_by is not None else None
            before = by_index.get(step.compares) if step.compares is not None else None
            failed_before = before is not None and before.failed  # the same call failed before the enabler ran
            if enabler is not None and not enabler.failed and (not enabler.change.empty or failed_before):
                source = probe.steps[enabler.index].tool
                changed = enabler.change.summary(limit=2) if not enabler.change.empty else "the server's own state"
                yield CoUsageRelation.STATE, source, step.tool, witness.model_copy(
                    update={"excerpt": f"succeeded once `{source}` had changed the state ({changed})"}
                )
            elif enabler is not None and not enabler.failed and before is not None and not before.failed:
                carried = _changed(step_verdict.change) - _changed(before.change)
                if carried:  # it changes what it did not right after itself: what the enabler left in the server
                    source = probe.steps[enabler.index].tool
                    yield CoUsageRelation.STATE, source, step.tool, witness.model_copy(update={
                        "excerpt": f"changed {', '.join(sorted(carried)[:2])} only after `{source}` (right after "
                                   f"itself: {before.change.summary(limit=2) if not before.change.empty else 'nothing'})"})
            control = by_index.get(step.compares) if step.compares is not None else None
            if step_verdict.output_changed and control is not None and control.output_changed is False and index > 0:
                source = probe.steps[index - 1].tool
                yield CoUsageRelation.STATE, source, step.tool, witness.model_copy(
                    update={"excerpt": f"shows a different result after `{source}` than twice before it"}
                )
            if step.retry_of is not None and by_index.get(step.retry_of) and by_index[step.retry_of].failed:
                source = probe.steps[step.retry_of].tool
                yield CoUsageRelation.RETRY, source, step.tool, witness.model_copy(
                    update={"excerpt": f"corrects the failed `{source}` call: {by_index[step.retry_of].error_text[:160]}"}
                )

    def _co_usage(
        self, probe: Probe, relation: CoUsageRelation, source: str, target: str, witness: Evidence
    ) -> tuple[str, str]:
        signature = f"{relation.value}>{target}"
        texts = {
            CoUsageRelation.DATA: f"`{source}` output supplies inputs of `{target}` (values it returns are valid arguments there).",
            CoUsageRelation.STATE: f"`{target}` depends on the state `{source}` changes: call `{source}` first, then `{target}` sees its effect.",
            CoUsageRelation.RETRY: f"After `{source}` fails, a corrected call to `{target}` succeeds.",
        }
        entry = self._new_entry(
            EntryKind.CO_USAGE,
            source,
            signature,
            probe,
            text=texts[relation],
            when={
                CoUsageRelation.DATA: f"you need valid inputs for `{target}`",
                CoUsageRelation.STATE: f"`{target}` needs or should confirm what `{source}` changes",
                CoUsageRelation.RETRY: f"`{source}` failed",
            }[relation],
            peer=target,
            relation=relation,
        )
        outcome = merge_entry(self.graph, entry, witness)
        record_transition(self.graph, entry.id)
        return entry.id, outcome

    def refresh_weights(self) -> None:
        """Recompute every co-usage weight N_ij / N_i from the current counts (at round end)."""
        for entry in list(self.graph.entries.values()):
            if entry.kind is not EntryKind.CO_USAGE:
                continue
            opportunities = max(self.graph.transition_opportunities[entry.tool], entry.transitions, 1)
            weight = round(entry.transitions / opportunities, 4)
            if weight != entry.weight:
                self.graph.put_entry(entry.model_copy(update={"weight": weight}))

    # -- replays ---------------------------------------------------------------------------------

    def _apply_replay(self, probe: Probe, verdict: Verdict) -> None:
        """Label the affordance the replayed call verified with determinism and idempotence."""
        if not verdict.steps or verdict.steps[0].failed:
            if probe.replay_of:
                self._contradict(probe.replay_of)
            return
        step = probe.steps[0]
        spec = self.graph.specs.get(step.tool)
        if spec is None:
            return
        shape = argument_shape(step.arguments, spec.properties, step.exercised)
        signature = f"uses:{','.join(shape)}"
        entry_id = Entry.make_id(self.graph.server, step.tool, spec.schema_hash, EntryKind.AFFORDANCE, signature)
        entry = self.graph.entries.get(entry_id)
        if entry is None:
            return
        update: dict[str, Any] = {}
        if verdict.deterministic is not None:
            update["deterministic"] = verdict.deterministic if entry.deterministic is None else entry.deterministic and verdict.deterministic
        if verdict.idempotent is not None:
            update["idempotent"] = verdict.idempotent if entry.idempotent is None else entry.idempotent and verdict.idempotent
        if update:
            self.graph.put_entry(entry.model_copy(update=update))

    def _opposed(self, evidence: Evidence, failed: bool) -> list[Entry]:
        """Active entries of the tool whose evidence holds this very call on the unchanged snapshot with
        the opposite result: the same call on the same state cannot both work and fail, so each
        observation counts against the other (the better supported one stays served)."""
        found = []
        for entry in self.graph.entries_of(evidence.tool, active_only=False):
            if entry.status is EntryStatus.STALE or entry.kind is EntryKind.CO_USAGE or entry.family == SCHEMA_SUMMARY:
                continue  # a summary stands or falls with its members
            if entry.kind is EntryKind.BOUNDARY and entry.reported_as_success and entry.family in TOLD_BY_MISUSE:
                continue  # a failure only its misuse told: the same call made unknowing is judged by its words
            for item in entry.evidence:
                if item.step == 0 and not item.prefix and item.arguments == evidence.arguments:
                    item_failed = entry.kind is EntryKind.BOUNDARY or item.outcome is not OutcomeClass.OK
                    if item_failed != failed:
                        found.append(entry)
                    break
        return found

    def _count_contradiction(self, entry: Entry) -> None:
        contradictions = entry.contradictions + 1
        status = EntryStatus.STALE if contradictions >= entry.support else entry.status
        self.graph.put_entry(entry.model_copy(update={
            "contradictions": contradictions, "confidence": confidence(entry.support, contradictions), "status": status}))
        if entry.family in SCHEMA_FAMILIES and entry.family != SCHEMA_SUMMARY:
            summarise_schema(self.graph, entry.tool, entry.round_found)

    def _contradict(self, probe_id: str) -> None:
        for entry in self.graph.entries.values():
            if probe_id in entry.probe_ids and entry.kind is EntryKind.AFFORDANCE:
                contradictions = entry.contradictions + 1
                status = EntryStatus.STALE if contradictions >= entry.support else entry.status
                self.graph.put_entry(
                    entry.model_copy(
                        update={
                            "contradictions": contradictions,
                            "confidence": confidence(entry.support, contradictions),
                            "status": status,
                        }
                    )
                )

    # -- traces ----------------------------------------------------------------------------------

    def _trace(self, probe: Probe, rollout: Rollout, verdict: Verdict) -> list[str]:
        is_task = probe.direction is Direction.SEED or (probe.direction is Direction.AFFORDANCE and len(probe.steps) > 1)
        if not is_task:
            return []
        kept = _task_steps(probe, verdict)
        if len(kept) < 2 and probe.direction is not Direction.SEED:
            return []
        steps = [TraceStep(tool=s.tool, rationale=s.intent or f"call `{s.tool}`") for s in kept]
        trace_id = stable_id("trace", self.graph.server, probe.task, [s.tool for s in kept])
        existing = self.graph.traces.get(trace_id)
        tips = _tips(probe, verdict, rollout.variables)
        if existing is None:
            trace = TraceNode(
                id=trace_id,
                server=self.graph.server,
                task=probe.task,
                steps=steps,
                tips=tips,
                tools=sorted({s.tool for s in kept}),
                runs=1,
                resolved=int(verdict.resolved),
                failed=int(not verdict.resolved),
                probe_ids=[probe.id],
                round_found=probe.round,
            )
            self.graph.put_trace(trace)
            link_trace(self.graph, trace)
            return [trace_id]
        merged_tips = list(dict.fromkeys([*existing.tips, *tips]))[:8]
        self.graph.put_trace(
            existing.model_copy(
                update={
                    "runs": existing.runs + 1,
                    "resolved": existing.resolved + int(verdict.resolved),
                    "failed": existing.failed + int(not verdict.resolved),
                    "tips": merged_tips,
                    "probe_ids": (existing.probe_ids + [probe.id])[-20:],
                    "last_verified": utcnow(),
                }
            )
        )
        return []



def _task_steps(probe: Probe, verdict: Verdict) -> list[ProbeStep]:
    """The probe's steps an agent would take for its task: the reads that only watched for a change
    are scaffolding when the change they watched for did not come (``read, read again, call, read``
    around a call that changed nothing is the call alone)."""
    by_index = {v.index: v for v in verdict.steps}
    watchers = {i for i, s in enumerate(probe.steps) if s.compares is not None}
    if not watchers or any(i not in by_index or by_index[i].output_changed is not False for i in watchers):
        return list(probe.steps)  # a change seen, or a comparison that could not be made
    watched = {probe.steps[i].compares for i in watchers}
    return [s for i, s in enumerate(probe.steps) if i not in watchers and i not in watched]


def merge_entry(graph: ServerGraph, entry: Entry, evidence: Evidence | None) -> str:
    """Insert ``entry`` or reinforce the entry with its id; returns ``new``, ``reinforced``
    (confidence still moving) or ``known``.

    Reinforcing adds one support and, when ``evidence`` comes from a probe not yet cited, keeps
    it (the first evidence items, then the latest). Every writer of entries merges through
    here, so offline and LLM-written findings with one signature are one entry.
    """
    existing = graph.entries.get(entry.id)
    now = utcnow()
    if existing is None:
        graph.put_entry(
            entry.model_copy(
                update={
                    "evidence": [evidence] if evidence else [],
                    "probe_ids": [evidence.probe_id] if evidence else [],
                    "confidence": confidence(1),
                    "first_verified": now,
                    "last_verified": now,
                }
            )
        )
        return "new"
    support = existing.support + 1
    update: dict[str, Any] = {
        "support": support,
        "confidence": confidence(support, existing.contradictions),
        "last_verified": now,
        "status": existing.status if existing.status is EntryStatus.SUMMARISED
        else EntryStatus.ACTIVE if support > existing.contradictions else existing.status,
    }
    if evidence is not None and not _cited(existing, evidence):
        update["evidence"] = _keep_evidence(existing.evidence, evidence)
        if evidence.probe_id not in existing.probe_ids:
            update["probe_ids"] = (existing.probe_ids + [evidence.probe_id])[-50:]
    update |= _widened(graph, existing, entry)
    graph.put_entry(existing.model_copy(update=update))
    return "reinforced" if existing.confidence < 0.8 else "known"


def _blames_another(condition: str, said: str, tool: str, graph: ServerGraph) -> bool:
    """Whether an error names another argument of the tool and not the one a planned misuse broke (``hosts_needed``
    negative, refused with ``network_base: Input is not a valid IPv4 address``): the call failed for something else,
    and the misuse's condition would be a guess."""
    spec = graph.specs.get(tool)
    target = condition_argument(condition)
    if spec is None or target not in spec.properties:
        return False
    named = {n for n in spec.properties if len(n) >= 3 and re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", said)}
    return bool(named) and target not in named


MAX_CONDITIONS = 3
"""Conditions a boundary's sentence states at most; the ones after are still counted as its support."""


def _widened(graph: ServerGraph, existing: Entry, entry: Entry) -> dict[str, Any]:
    """A boundary reinforced by another misuse that got the same answer (``h2o`` and ``1 / 0`` for a chemical
    formula, both “expected element”) states that misuse too: its sentence names only the condition it was
    first written under otherwise, and a reader takes that one for the cause. Up to :data:`MAX_CONDITIONS`
    conditions, first seen first; the planned condition (``when_not``) a misuse is grouped by stays the first. Only a
    misuse a probe planned (a family) adds one: a call nobody planned to fail, or a reader's words for a failure
    already stated, add support, not a condition."""
    if (existing.kind is not EntryKind.BOUNDARY or existing.family == SCHEMA_SUMMARY or entry.family is None
            or not entry.condition or not existing.condition):
        return {}  # a misuse a probe planned only: not the words of a reader (an LLM's) for the same one
    if f"` {VERDICT_HOW} when " in existing.text:
        return {}  # a verdict is about the values judged: a misuse met on the way is not its cause
    stated = existing.condition.split(OR_WHEN)
    head = f" when {existing.condition}: “"
    if stated[0] != existing.when_not:  # qualified by what separates it from an accepted call: that one stands
        return {}
    if head not in existing.text:
        return {}
    added = list(stated)
    spec = graph.specs.get(existing.tool)
    arguments = spec.properties if spec is not None else {}
    seen = {_bare(c, arguments) for c in added}
    for condition in entry.condition.split(OR_WHEN):  # an entry merged from another build states several
        bare = _bare(condition, arguments)
        if bare in seen or len(added) >= MAX_CONDITIONS:
            continue
        seen.add(bare)
        added.append(condition)
    if len(added) == len(stated):
        return {}
    condition = OR_WHEN.join(added)
    return {"condition": condition, "text": existing.text.replace(head, f" when {condition}: “", 1)}


_GIVEN = re.compile(r" \(with [^()]*\)$")
"""How a condition names what else its call had (``… (with `mode` given)``, :mod:`toolatlas.offline.saturation`)."""


def _bare(condition: str, arguments: Collection[str]) -> str:
    """A condition without the optional arguments its call also had and with its values masked (the argument names
    kept, :func:`~toolatlas.probing.text.condition_signature`): the same misuse either way, of whichever value."""
    return condition_signature(_GIVEN.sub("", condition), arguments)


def _call(step: ProbeStep) -> dict[str, Any]:
    """A call of a probe as evidence keeps it (``tool``, ``arguments``), with what a replay needs to see what it
    showed: the ``marker`` a write left, the earlier steps a read ``observes`` or ``loses``."""
    found: dict[str, Any] = {"tool": step.tool, "arguments": step.arguments}
    for name in ("marker", "observes", "loses"):
        if getattr(step, name) is not None:
            found[name] = getattr(step, name)
    return found


def _proving_reads(probe: Probe, index: int) -> list[dict[str, Any]]:
    """The steps after ``index`` up to the last read that looks for what it wrote (``observes`` it): what a
    replay must make after the call to see what the probe saw."""
    last = max((i for i, s in enumerate(probe.steps) if i > index and s.observes == index), default=None)
    if last is None:
        return []
    return [_call(s) for s in probe.steps[index + 1:last + 1]]


def _cited(entry: Entry, evidence: Evidence) -> bool:
    """Whether ``entry`` already cites ``evidence``'s probe with an observation of the same kind (a
    probe's second call is kept only when it showed something else: the other effect of a use)."""
    if evidence.probe_id not in entry.probe_ids:
        return False
    kind = _evidence_kind(evidence)
    return any(e.probe_id == evidence.probe_id and _evidence_kind(e) == kind for e in entry.evidence) or all(
        e.probe_id != evidence.probe_id for e in entry.evidence)


_ANSWER_KEY = re.compile(r'"([A-Za-z_][\w-]{0,40})"\s*:')
_ANSWER_FLAG = re.compile(r'"([A-Za-z_][\w-]{0,40})"\s*:\s*(true|false)\b')


_FILE_FORMAT = re.compile(r"^(?:\$\{\w+\}|/)\S*/[^/\s]+(\.[A-Za-z][\w]{0,7})$")
"""A path to a file with its extension (``${root}/amazing_grace/satb_2025.mxl`` → ``.mxl``)."""


def _evidence_kind(evidence: Evidence) -> tuple:
    """What an evidence call shows: its outcome, whether it changed the state, the shape of its answer (the field
    names of a JSON answer: messages with a ``ruleId``, a result with ``fatal``) and the flags it sets (``"needs_approval":
    true`` beside ``false``), and whether its statement only read (a tool taking any SQL answers an ``INSERT`` in the
    shape it answers a ``SELECT``)."""
    keys = frozenset(_ANSWER_KEY.findall(evidence.excerpt))
    flags = frozenset(_ANSWER_FLAG.findall(evidence.excerpt))
    return evidence.outcome, bool(evidence.state_change), keys, flags, reads_only(evidence.arguments)


def _formats(evidence: Evidence) -> frozenset[str]:
    """The formats of the files an evidence call named (a use on a ``.mxl`` beside those on ``.musicxml``)."""
    return frozenset(m.group(1).lower() for value in scalars(evidence.arguments)
                     if isinstance(value, str) and (m := _FILE_FORMAT.match(value)))


def _keep_evidence(kept: list[Evidence], evidence: Evidence) -> list[Evidence]:
    """The first items, then the latest — but never the last item of one kind of observation
    (outcome, whether the state changed, the shape of the answer) nor, while another can go, the last call on
    one format of file: every outcome an entry states keeps its proof, and so does every kind of file it was
    verified on. When every item shows its own kind, a call made again to the same outcome goes before a call
    made once (a join kept beside the repeats of a plain select)."""
    if len(kept) < MAX_EVIDENCE:
        return [*kept, evidence]
    items = [*kept, evidence]
    kinds = [_evidence_kind(e) for e in items]
    formats = [_formats(e) for e in items]
    calls = [(json.dumps(e.arguments, sort_keys=True, default=str), *kinds[i][:2]) for i, e in enumerate(items)]
    for spare in (lambda i: kinds.count(kinds[i]) > 1 and formats.count(formats[i]) > 1,
                  lambda i: kinds.count(kinds[i]) > 1,
                  lambda i: calls.count(calls[i]) > 1):  # the same call again, to the same outcome
        for i in range(3, len(kept)):
            if spare(i):
                return [*kept[:i], *kept[i + 1:], evidence]
        if spare(len(kept)):
            return kept
        for i in range(len(kept)):
            if spare(i):
                return [*kept[:i], *kept[i + 1:], evidence]
    return kept[:3] + [*kept[4:], evidence]


def record_transition(graph: ServerGraph, entry_id: str) -> None:
    """One more witnessed transition for a co-usage entry: its count, its weight N_ij / N_i and the
    source tool's neighbour edge."""
    entry = graph.entries[entry_id]
    assert entry.peer is not None
    transitions = entry.transitions + 1
    weight = round(transitions / max(graph.transition_opportunities[entry.tool], transitions), 4)
    graph.put_entry(entry.model_copy(update={"transitions": transitions, "weight": weight}))
    node = graph.tools[entry.tool]
    neighbours = dict(node.neighbours)
    neighbours[entry.peer] = max(neighbours.get(entry.peer, 0.0), weight)
    graph.put_tool(node.model_copy(update={"neighbours": neighbours}))


def link_trace(graph: ServerGraph, trace: TraceNode) -> None:
    """Link a trace to the tool nodes it uses (the trace ↔ tool edges)."""
    for tool in trace.tools:
        node = graph.tools.get(tool)
        if node is not None and trace.id not in node.traces:
            graph.put_tool(node.model_copy(update={"traces": [*node.traces, trace.id]}))


def argument_shape(
    arguments: dict[str, Any], properties: dict[str, Any], exercised: Iterable[str] = ()
) -> list[str]:
    """The argument names used, with the value for enum and boolean properties (``mode=fast``) and the
    value classes the proposer named among what a call exercised (``expr~^``: an expression with a power)."""
    shape = []
    for name in sorted(arguments):
        schema = properties.get(name, {}) if isinstance(properties.get(name), dict) else {}
        value = arguments[name]
        if (schema.get("enum") and isinstance(value, str | int)) or isinstance(value, bool):
            shape.append(f"{name}={str(value).lower() if isinstance(value, bool) else value}")
        else:
            shape.append(name)
    return shape + sorted({key for key in exercised if "~" in key})


def _tips(probe: Probe, verdict: Verdict, variables: dict[str, str]) -> list[str]:
    """Rule-based tips a later agent can act on, from what this run showed (an instance's paths
    written as their placeholders, as in every other record)."""
    tips: list[str] = []
    by_index = {v.index: v for v in verdict.steps}
    for index, step in enumerate(probe.steps):
        result = by_index.get(index)
        if result is None:
            continue
        if result.failed and step.expect != "error":
            said = to_placeholders(result.error_text.strip(), variables)
            first = message_line(said)[:140] if said else result.outcome.value  # a JSON error: its fields
            quoted = reason_quote(result.hidden_failure)  # what the entry quotes
            if result.hidden_failure.startswith(NEGATIVE_VERDICT) and quoted:
                tips.append(f"`{step.tool}` can say no here (“{quoted}”): read its verdict, not only its success.")
            else:
                tips.append(f"`{step.tool}` can fail here (“{quoted or first}”): check its inputs first.")
        if step.observes is not None and result.observed_marker:
            tips.append(f"Confirm the effect of `{probe.steps[step.observes].tool}` with `{step.tool}`.")
        if step.retry_of is not None and not result.failed:
            tips.append(f"If `{probe.steps[step.retry_of].tool}` fails, retry as `{step.tool}` does: {step.intent}.")
        if step.harvested and not result.failed:
            sources = ", ".join(sorted({f"`{h.tool}`" for h in step.harvested}))
            tips.append(f"Take `{step.tool}` arguments from {sources} output rather than guessing them.")
    return list(dict.fromkeys(tips))


def _carries(arguments: dict[str, Any], value: str) -> bool:
    """Whether a call's arguments send ``value``: as one of them, or (three characters or more) inside one
    (a table name inside a query)."""
    leaves = (str(v) for v in scalars(arguments) if not isinstance(v, bool))
    return any(leaf == value or (len(value) >= 3 and value in leaf) for leaf in leaves)


def _changed(change: StateDiff) -> set[str]:
    """What a step's change touched: the paths (or rows) it added, removed or changed."""
    return {*change.added, *change.removed, *change.changed}
