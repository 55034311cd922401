"""Executable verifiers written by an LLM: run ``verify(state, answer)`` on a frozen state, and vet them.

A verifier is accepted (:func:`check_not_vacuous`) only if it reaches a verdict on the post-state
it was written for, and — when its task requires a change — does *not* pass on the untouched
initial state: ``return True`` is not a verifier.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import structlog

from toolatlas.codebox.models import RunPolicy, RunStatus, VacuityReport, VerifierResult
from toolatlas.codebox.runner import run_child
from toolatlas.codebox.states import StateInput, describe_state
from toolatlas.errors import VerificationError

__all__ = ["check_not_vacuous", "run_verifier"]

log = structlog.get_logger(__name__)


async def run_verifier(
    source: str,
    state: StateInput,
    answer: Any = None,
    *,
    timeout: float | None = None,
    policy: RunPolicy | None = None,
) -> VerifierResult:
    """Run the verifier ``source`` against ``state`` (a frozen state, or a file-kind snapshot).

    ``answer`` is the agent's final answer (anything JSON can carry). The outcome is data:
    :attr:`VerifierResult.passed` for a resolved task; a crashing, hanging or rule-breaking
    verifier is a result with that status. Raises :class:`~toolatlas.errors.VerificationError`
    only when the state cannot be read or the answer is not JSON,
    :class:`~toolatlas.errors.CodeSandboxError` when the code box cannot run at all.
    """
    try:
        json.dumps(answer)
    except (TypeError, ValueError) as exc:
        raise VerificationError(f"the answer handed to a verifier must be JSON data: {exc}") from exc
    policy = policy or RunPolicy()
    if timeout is not None:
        policy = policy.model_copy(update={"timeout_s": timeout})
    description, read_roots = await asyncio.to_thread(describe_state, state)
    run = await run_child(
        "verify", source, {"state": description, "answer": answer}, policy, read_roots=read_roots
    )
    return VerifierResult(**dict(run))


async def check_not_vacuous(
    source: str,
    initial_state: StateInput,
    post_state: StateInput,
    answer: Any = None,
    *,
    requires_change: bool,
    policy: RunPolicy | None = None,
) -> VacuityReport:
    """Accept a verifier only if it reaches a verdict on ``post_state`` and cannot pass on ``initial_state``.

    On the initial state the verifier must fail by its own verdict or by an exception (a file it
    checks is missing), never pass, time out or break a rule. Both runs go concurrently.
    """
    post_run = run_verifier(source, post_state, answer, policy=policy)
    if not requires_change:
        on_post = await post_run
        return _report(on_post, None)
    on_post, on_initial = await asyncio.gather(
        post_run, run_verifier(source, initial_state, answer, policy=policy)
    )
    return _report(on_post, on_initial)


def _report(on_post: VerifierResult, on_initial: VerifierResult | None) -> VacuityReport:
    reason = ""
    if not on_post.verdict:
        reason = f"no verdict on the post-state: {on_post.status.value}: {on_post.detail}"
    elif on_initial is not None and on_initial.passed:
        reason = "vacuous: it passes on the untouched initial state, although the task requires a change"
    elif on_initial is not None and on_initial.status not in (RunStatus.FAILED, RunStatus.ERROR):
        reason = f"unusable on the initial state: {on_initial.status.value}: {on_initial.detail}"
    accepted = not reason
    log.debug("verifier_vetted", accepted=accepted, reason=reason)
    return VacuityReport(
        accepted=accepted,
        reason=reason or "reaches a verdict" + (" and fails on the initial state" if on_initial else ""),
        on_post_state=on_post,
        on_initial_state=on_initial,
    )
