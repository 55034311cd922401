"""An agent rollout seen as a probe rollout, so the rule-based Verifier and Inducer absorb its calls.

Every MCP call an agent made is a fact about the tool, whatever became of the task: the offline
:class:`~toolatlas.probing.verifier.Verifier` classifies each call (outcome, error text, output
schema, what it changed) and the :class:`~toolatlas.graph.inducer.Inducer` turns them into
affordance and boundary entries and retry edges. :func:`as_probe_rollout` makes that possible:

- each call (of a function call or inside a snippet, in order) becomes one planned step with
  its arguments mapped back to placeholders (``${root}/docs/a.md``) and one executed step;
- the direction follows the task's origin: bootstrap and chain tasks are seeds, boundary and
  affordance tasks keep their direction; the probe id is the rollout id;
- a call to the same tool right after that tool failed is marked as its retry;
- per-call state digests are kept only when every call has one (otherwise effects are left
  unknown rather than attributed to the wrong call).

The frozen state is not handed over: it belongs to the task judge, and the Verifier (which may
discard the state it is given) works from the recorded digests alone.
"""

from __future__ import annotations

from toolatlas.environments import StateDigest
from toolatlas.models import CallOutcome
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult
from toolatlas.probing.text import to_placeholders
from toolatlas.probing.verifier import step_failed
from toolatlas.tasks.models import AgentRollout, AgentStep, TaskOrigin

__all__ = ["DIRECTION_OF_ORIGIN", "as_probe_rollout"]

DIRECTION_OF_ORIGIN: dict[TaskOrigin, Direction] = {
    TaskOrigin.BOOTSTRAP: Direction.SEED,
    TaskOrigin.CHAIN: Direction.SEED,
    TaskOrigin.BOUNDARY: Direction.BOUNDARY,
    TaskOrigin.AFFORDANCE: Direction.AFFORDANCE,
}
_INTENT_CHARS = 200


def as_probe_rollout(agent_rollout: AgentRollout) -> Rollout:
    """The rollout's MCP calls as a :class:`~toolatlas.probing.models.Rollout` of a probe with the same id."""
    task, variables = agent_rollout.task, agent_rollout.variables
    calls = [(step, call) for step in agent_rollout.steps for call in step.calls]
    digests = _digests(agent_rollout)
    steps = [
        ProbeStep(
            tool=call.tool,
            arguments=to_placeholders(call.arguments, variables),
            intent=_intent(step, call, agent_rollout.agent.value),
            retry_of=_retry_of([c for _, c in calls], index),
        )
        for index, (step, call) in enumerate(calls)
    ]
    results = [
        StepResult(
            index=index,
            outcome=call,
            digest_after=digests[index] if digests and index < len(calls) - 1 else None,
        )
        for index, (_, call) in enumerate(calls)
    ]
    target = task.targets[0] if task.targets else (calls[0][1].tool if calls else "")
    probe = Probe(
        id=agent_rollout.id,
        server=task.server,
        round=task.round,
        direction=DIRECTION_OF_ORIGIN[task.origin],
        target=target,
        task=task.text,
        steps=steps,
        rollout=agent_rollout.rollout,
    )
    unusable = agent_rollout.stop == "infrastructure" and not calls
    return Rollout(
        probe=probe,
        steps=results,
        final_digest=agent_rollout.final_digest if digests or not calls else None,
        executor=agent_rollout.executor,
        variables=variables,
        duration_ms=agent_rollout.duration_ms,
        infrastructure_error=(agent_rollout.detail or "the sandbox failed") if unusable else None,
    )


def _digests(agent_rollout: AgentRollout) -> list[StateDigest]:
    """The state after each call, in order; empty unless every call (and the end) has one."""
    steps = agent_rollout.steps
    complete = agent_rollout.final_digest is not None and all(
        len(s.digests_after) == len(s.calls) for s in steps
    )
    return [d for s in steps for d in s.digests_after] if complete else []


def _intent(step: AgentStep, call: CallOutcome, agent: str) -> str:
    thought = step.action.thought.strip().splitlines()[0] if step.action.thought.strip() else ""
    if thought:
        return thought[:_INTENT_CHARS]
    where = "in a snippet" if step.action.kind == "code" else "as a function call"
    return f"{agent} agent calls `{call.tool}` {where}"


def _retry_of(calls: list[CallOutcome], index: int) -> int | None:
    """The previous call's index when it was the same tool and failed (the agent corrected it)."""
    if index == 0:
        return None
    previous = calls[index - 1]
    if previous.tool == calls[index].tool and step_failed(previous)[0]:
        return index - 1
    return None
