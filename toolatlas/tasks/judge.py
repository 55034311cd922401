"""The task judge: one agent rollout → a :class:`~toolatlas.tasks.models.TaskVerdict` (resolved or failed).

Which state is judged: the post-state the rollout froze (``rollout.frozen``); when the rollout
froze none, it left the state as the snapshot was, so the task's untouched ``initial_state``
(:func:`toolatlas.tasks.states.initial_state`) is judged instead. With neither, the verdict is
"not resolved" with status ``error``.

How: a code verifier runs in the code box (:func:`toolatlas.codebox.run_verifier`) on that
state with the agent's final answer; the verdict's status is the run's (``ok``, ``failed``,
``error``, ``timeout``, ``violation``, ``crashed``) and only ``ok`` resolves the task. Assertions
are checked read-only in process (:mod:`toolatlas.tasks.assertions`): status ``ok`` when all
hold, ``failed`` otherwise, with the first failures in ``detail``. The judge never changes or
discards the state; its owner does.
"""

from __future__ import annotations

import asyncio

import structlog

from toolatlas.codebox import RunPolicy, run_verifier
from toolatlas.codebox.states import StateInput
from toolatlas.errors import VerificationError
from toolatlas.tasks.assertions import check_assertions
from toolatlas.tasks.models import AgentRollout, TaskSpec, TaskVerdict

__all__ = ["judge"]

log = structlog.get_logger(__name__)

DETAIL_CHARS = 1_000


async def judge(
    task: TaskSpec,
    rollout: AgentRollout,
    *,
    initial_state: StateInput | None = None,
    policy: RunPolicy | None = None,
) -> TaskVerdict:
    """Label one rollout of ``task`` by the task's verifier (see the module docstring)."""
    state = rollout.frozen if rollout.frozen is not None else initial_state
    if state is None:
        return _verdict(
            task,
            rollout,
            False,
            "error",
            "no state to judge: the rollout froze none and no initial state was given",
        )
    if task.verifier.kind == "code":
        try:
            result = await run_verifier(task.verifier.source, state, rollout.final_answer, policy=policy)
        except VerificationError as exc:
            return _verdict(task, rollout, False, "error", str(exc))
        return _verdict(task, rollout, result.passed, result.status.value, result.detail)
    results = await asyncio.to_thread(check_assertions, task.verifier.assertions, state, rollout.final_answer)
    failed = [result.detail for result in results if not result.passed]
    if not results:
        return _verdict(task, rollout, False, "error", "the task has no assertions")
    return _verdict(task, rollout, not failed, "failed" if failed else "ok", "; ".join(failed))


def _verdict(task: TaskSpec, rollout: AgentRollout, resolved: bool, status: str, detail: str) -> TaskVerdict:
    log.info(
        "task_judged", server=task.server, task=task.id, rollout=rollout.id, resolved=resolved, status=status
    )
    return TaskVerdict(
        rollout_id=rollout.id,
        task_id=task.id,
        resolved=resolved,
        status=status,
        detail=detail[:DETAIL_CHARS],
    )
