"""The offline verifier: declarative, executable checks of a rollout against its frozen post-state.

For every step: the outcome class; whether an ``ok`` result reports a failure in its text only, or
hides one its call's misuse shows (:mod:`toolatlas.probing.hidden`);
structured output against the tool's output schema; what the step changed in the environment
(read-only vs mutating, and which items); whether a value written earlier is observed; whether
the planner's expectation held. For replays: determinism (same output as the original call from
the same snapshot; an output that shows the time of the call never is) and idempotence (the
repeated call changes nothing more). The executor then repeats a deterministic-looking replay in a
later second of the clock, judged from the rollout (:mod:`toolatlas.probing.determinism`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import jsonschema
import structlog
from referencing.exceptions import Unresolvable

from toolatlas.environments import Environment, StateDiff, StateDigest, render_value
from toolatlas.errors import ConfigError
from toolatlas.models import CallOutcome, Effect, OutcomeClass, ToolSpec
from toolatlas.probing.bindings import bound_references
from toolatlas.probing.clock import without_clock
from toolatlas.probing.conditions import joined, precondition_parts
from toolatlas.probing.determinism import looks_deterministic
from toolatlas.probing.evidence import error_evidence
from toolatlas.probing.hidden import hidden_failure, ignored_value
from toolatlas.probing.models import Check, Direction, Rollout, StepVerdict, Verdict
from toolatlas.probing.text import to_placeholders

__all__ = ["Verifier", "step_failed"]

log = structlog.get_logger(__name__)


def step_failed(
    outcome: CallOutcome,
    arguments: Mapping[str, Any] | None = None,
    spec: ToolSpec | None = None,
    *,
    changed: bool | None = None,
    rendered: Mapping[str, Any] | None = None,
) -> tuple[bool, bool]:
    """``(failed, reported_as_success)``: non-ok, or ok whose text reports an error on positive
    evidence (:func:`toolatlas.probing.evidence.error_evidence`; never for an echo of the input)."""
    if outcome.outcome is not OutcomeClass.OK:
        return True, False
    if error_evidence(outcome, arguments, spec, changed=changed, rendered=rendered) is not None:
        return True, True
    return False, False


class Verifier:
    """Checks rollouts of one server; holds the snapshot's digest and the tools' output schemas."""

    def __init__(
        self,
        environment: Environment,
        snapshot_digest: StateDigest,
        tools: Mapping[str, ToolSpec],
        *,
        outputs_validated: bool = False,
    ) -> None:
        """``outputs_validated``: the outcomes come from a live connection whose MCP client already
        checked every successful structured result against the tool's output schema (a violation
        arrives as ``protocol_error``), so an ``ok`` outcome conforms and is not validated again."""
        self.environment = environment
        self.snapshot_digest = snapshot_digest
        self.tools = dict(tools)
        self.outputs_validated = outputs_validated
        self._validators: dict[str, jsonschema.protocols.Validator] = {}

    @classmethod
    def of_live(cls, environment: Environment, snapshot_digest: StateDigest, tools: Iterable[ToolSpec]) -> Verifier:
        """The verifier of rollouts a live sandbox ran (its MCP client validated the outputs) over the tools
        that sandbox lists."""
        return cls(environment, snapshot_digest, {t.name: t for t in tools}, outputs_validated=True)

    def verify(self, rollout: Rollout, *, discard: bool = True) -> Verdict:
        """Verify one rollout; the frozen post-state is discarded afterwards unless ``discard`` is false."""
        probe = rollout.probe
        if rollout.infrastructure_error is not None:
            return Verdict(
                probe_id=probe.id,
                server=probe.server,
                resolved=False,
                steps=[],
                checks=[Check(name="sandbox", passed=False, detail=rollout.infrastructure_error)],
            )
        final: StateDigest | None
        if rollout.final_digest is not None:
            final = rollout.final_digest
        else:
            final = self.environment.digest(rollout.frozen) if rollout.frozen is not None else None
        if discard and rollout.frozen is not None:
            self.environment.discard(rollout.frozen)
        verdicts: list[StepVerdict] = []
        checks: list[Check] = []
        before = self.snapshot_digest
        stateless = self.environment.kind == "none"
        for position, result in enumerate(rollout.steps):
            step = probe.steps[result.index]
            last = position == len(rollout.steps) - 1
            after = result.digest_after if not last else final
            change = before.diff(after) if after is not None else StateDiff()
            previous = probe.steps[rollout.steps[position - 1].index] if position else None
            parts = precondition_parts(step.arguments, None if stateless else before,
                                       (previous.tool, previous.arguments) if previous else None, step.tool,
                                       None if stateless else self.snapshot_digest)
            if after is not None:
                before = after
            spec = self.tools.get(step.tool)
            rendered = _rendered(step.arguments, rollout.variables)
            if bound_references(step.arguments):  # what the server saw holds what an earlier step answered
                rendered = result.outcome.arguments
            state_changed = (not change.empty) if after is not None else None
            failed, soft = step_failed(result.outcome, step.arguments, spec, changed=state_changed, rendered=rendered)
            hidden = None if failed else hidden_failure(
                result.outcome, spec, mutation=step.mutation, changed=state_changed, arguments=step.arguments,
                rendered=rendered)
            if hidden is None and not failed and step.mirrors is not None and step.mirrors < position:
                mirror = rollout.steps[step.mirrors]  # the same call with a value it takes: the same answer?
                hidden = ignored_value(result.outcome, mirror.outcome, step.arguments,
                                       probe.steps[mirror.index].arguments)
            if hidden is not None:
                failed, soft = True, True
            valid, schema_error = self._check_schema(step.tool, result.outcome)
            observed = lost = None
            shown = to_placeholders(_visible_text(result.outcome), rollout.variables)
            if step.observes is not None and step.observes < len(probe.steps):
                marker = probe.steps[step.observes].marker
                if marker:
                    observed = marker in shown
            if step.loses is not None and step.loses < len(probe.steps) and (gone := probe.steps[step.loses].marker):
                lost = gone not in shown
            changed = None
            if step.compares is not None and step.compares < position and not failed:
                earlier = rollout.steps[step.compares]
                earlier_step = probe.steps[earlier.index]
                if not step_failed(
                    earlier.outcome, earlier_step.arguments, self.tools.get(earlier_step.tool),
                    rendered=_rendered(earlier_step.arguments, rollout.variables),
                )[0]:
                    changed = _comparable(earlier.outcome, rollout.variables) != _comparable(result.outcome, rollout.variables)
            met = None if step.expect == "any" else (failed == (step.expect == "error"))
            verdicts.append(
                StepVerdict(
                    index=result.index,
                    tool=step.tool,
                    outcome=result.outcome.outcome,
                    failed=failed,
                    reported_as_success=soft,
                    hidden_failure=hidden or "",
                    error_text=result.outcome.excerpt[:500] if failed else "",
                    schema_valid=valid,
                    schema_error=schema_error,
                    effect=Effect.MUTATING if not change.empty else (Effect.READ_ONLY if after is not None else Effect.UNKNOWN),
                    change=change,
                    precondition=joined(parts),
                    precondition_parts=parts,
                    observed_marker=observed,
                    lost_marker=lost,
                    output_changed=changed,
                    expectation_met=met,
                )
            )
            if met is not None:
                checks.append(Check(name=f"step{result.index}:expect_{step.expect}", passed=met, detail=step.tool))
            if observed is not None:
                checks.append(Check(name=f"step{result.index}:observes_step{step.observes}", passed=observed))
            if valid is False:
                checks.append(Check(name=f"step{result.index}:output_schema", passed=False, detail=schema_error))
        verdicts = _replaced_writes(probe, _in_process_effects(probe, verdicts, stateless=self.environment.kind == "none"))
        if rollout.aborted_at is not None:
            checks.append(Check(name="chain_completed", passed=False, detail=f"stopped after step {rollout.aborted_at}"))
        final_change = self.snapshot_digest.diff(final) if final is not None else StateDiff()
        deterministic, idempotent = self._replay_checks(rollout, verdicts, checks)
        resolved = bool(verdicts) and all(c.passed for c in checks)
        return Verdict(
            probe_id=probe.id,
            server=probe.server,
            resolved=resolved,
            steps=verdicts,
            change=final_change,
            checks=checks,
            deterministic=deterministic,
            idempotent=idempotent,
        )

    def _replay_checks(
        self, rollout: Rollout, verdicts: list[StepVerdict], checks: list[Check]
    ) -> tuple[bool | None, bool | None]:
        probe = rollout.probe
        if probe.direction is not Direction.REPLAY or not rollout.steps:
            return None, None
        deterministic, detail = looks_deterministic(rollout)
        if deterministic is not None:
            checks.append(Check(name="deterministic", passed=True, detail=detail))
        idempotent = None
        if len(verdicts) >= 2 and not verdicts[0].failed:
            idempotent = verdicts[1].change.empty and verdicts[1].failed == verdicts[0].failed
            checks.append(Check(name="idempotent", passed=True, detail="repeat changed nothing" if idempotent else "repeat changed state"))
        return deterministic, idempotent

    def _check_schema(self, tool: str, outcome: CallOutcome) -> tuple[bool | None, str]:
        spec = self.tools.get(tool)
        if spec is None or not spec.output_schema or outcome.outcome is not OutcomeClass.OK:
            return None, ""
        if outcome.structured is None:
            return (None, "") if outcome.truncated else (False, "no structured content despite an output schema")
        if self.outputs_validated:
            return True, ""
        validator = self._validators.get(tool)
        if validator is None:
            cls = jsonschema.validators.validator_for(spec.output_schema)
            validator = self._validators[tool] = cls(spec.output_schema)
        try:
            error = jsonschema.exceptions.best_match(validator.iter_errors(outcome.structured))
        except Unresolvable:  # the schema's own $ref leads nowhere: it judges nothing
            return None, ""
        return (True, "") if error is None else (False, error.message[:300])


def _rendered(arguments: dict[str, Any], variables: dict[str, str]) -> dict[str, Any] | None:
    """The arguments as the server saw them (placeholders filled), to recognise them echoed."""
    try:
        return render_value(arguments, variables)
    except ConfigError:
        return None


def _comparable(outcome: CallOutcome, variables: dict[str, str]) -> str:
    """What a read answered, to tell whether the state it shows changed: its visible text with the
    instance's paths as placeholders and the present clock masked (a read that reports the time
    answers differently a second later with nothing changed)."""
    return without_clock(to_placeholders(_visible_text(outcome), variables), outcome.started_at)


def _in_process_effects(probe, verdicts: list[StepVerdict], *, stateless: bool) -> list[StepVerdict]:
    """Effects the environment cannot see. A call whose result a stable read (the same read twice
    unchanged before it, the present clock aside: :func:`_comparable`) then shows changed has changed
    the server's own state: ``mutating``. In an environment that holds no state, "changes nothing" is
    never claimed otherwise (``unknown``)."""
    by_index = {v.index: v for v in verdicts}
    witnessed: set[int] = set()
    for verdict in verdicts:
        step = probe.steps[verdict.index]
        control = by_index.get(step.compares) if step.compares is not None else None
        if verdict.output_changed and control is not None and control.output_changed is False:
            witnessed.add(verdict.index - 1)
    out = []
    for verdict in verdicts:
        if verdict.index in witnessed and not verdict.failed:
            verdict = verdict.model_copy(update={"effect": Effect.MUTATING})
        elif stateless and verdict.effect is Effect.READ_ONLY:
            verdict = verdict.model_copy(update={"effect": Effect.UNKNOWN})
        out.append(verdict)
    return out


def _replaced_writes(probe, verdicts: list[StepVerdict]) -> list[StepVerdict]:
    """A write whose read shows it while the same reader, before it, showed an earlier write that it no longer
    shows (:mod:`toolatlas.offline.rewrites`): the write replaced the earlier one — a failure reported as a
    success, whatever its answer says."""
    by_index = {v.index: v for v in verdicts}
    replaced: dict[int, str] = {}
    for verdict in verdicts:
        step = probe.steps[verdict.index]
        if not (verdict.lost_marker and verdict.observed_marker) or step.observes is None or step.loses is None:
            continue
        earlier = [by_index[v.index] for v in verdicts if v.index < step.observes
                   and probe.steps[v.index].observes == step.loses and probe.steps[v.index].tool == step.tool]
        if earlier and earlier[-1].observed_marker:
            replaced[step.observes] = f"it replaced what the call before it wrote: `{step.tool}` shows it no more"
    out = []
    for verdict in verdicts:
        reason = replaced.get(verdict.index)
        if reason and not verdict.failed:
            verdict = verdict.model_copy(update={"failed": True, "reported_as_success": True, "hidden_failure": reason,
                                                 "error_text": "", "expectation_met": None})
        out.append(verdict)
    return out


def _visible_text(outcome: CallOutcome) -> str:
    if outcome.structured is not None:
        return outcome.excerpt + "\n" + json.dumps(outcome.structured, ensure_ascii=False)
    return outcome.excerpt
