"""Vetting proposed tasks before any agent runs them, and the record of the ones turned away.

A task must read like a user's request: it may not name a tool (:func:`named_tools`). A code
verifier must be a real test (:func:`vet_code_verifier`): run in the code box against the
untouched initial state with an empty answer, it must reach a verdict (no exception, timeout or
refused action) and that verdict must be "not resolved" — an agent that did nothing and said
nothing resolves no task. (For a task that requires a change this is the paper's vacuity rule;
for a question it means the verifier really checks the answer.) Declarative assertions are
vetted the same way by :mod:`toolatlas.tasks.chains`.

A rejected task is data: a :class:`TaskRejection` with its reason, kept and counted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from enum import StrEnum

from pydantic import Field

from toolatlas.codebox import RunPolicy, RunStatus, check_not_vacuous
from toolatlas.codebox.states import StateInput
from toolatlas.models import Frozen
from toolatlas.tasks.models import TaskOrigin, TaskSpec, TaskVerifier

__all__ = [
    "EMPTY_ANSWER",
    "ProposalBatch",
    "RejectionReason",
    "TaskRejection",
    "named_tools",
    "vet_code_verifier",
]

EMPTY_ANSWER = ""
"""The final answer of an agent that said nothing: what verifiers are vetted with."""


class RejectionReason(StrEnum):
    LLM_FAILURE = "llm_failure"
    """The LLM gave no usable answer (malformed after repairs, or the endpoint failed)."""
    NOT_ASKED = "not_asked"
    """A task of a kind that was not requested, or beyond the requested count."""
    EMPTY = "empty"
    """No task text, or no verifier."""
    DUPLICATE = "duplicate"
    NAMES_TOOL = "names_tool"
    """The task text names a tool: it must read like a user's request."""
    VERIFIER_CRASHES = "verifier_crashes"
    """No verdict on the initial state: an exception, a timeout, a refused action or a crash."""
    VERIFIER_VACUOUS = "verifier_vacuous"
    """The verifier passes on the untouched state with an empty answer."""
    NOT_A_CHAIN = "not_a_chain"
    """The probe is not a verified chain of at least two calls (chain tasks)."""
    NO_ASSERTIONS = "no_assertions"
    """Nothing in the recorded post-state can be asserted (chain tasks)."""
    OMITS_VALUE = "omits_value"
    """The text leaves out a value the assertions require, so no agent could meet them (chain tasks)."""
    GIVES_AWAY_ANSWER = "gives_away_answer"
    """The text contains the answer its assertions look for (chain tasks)."""
    REPLAY_FAILED = "replay_failed"
    """Replaying the chain from the snapshot does not pass every assertion (chain tasks)."""


class TaskRejection(Frozen):
    """A proposed task that was not kept, and why."""

    server: str
    origin: TaskOrigin | None
    """None when the LLM call failed before any task existed and the call asked for several kinds."""
    round: int = 0
    targets: list[str] = Field(default_factory=list)
    text: str = ""
    reason: RejectionReason
    detail: str = ""
    verifier: TaskVerifier | None = None
    source_probe: str | None = None

    @classmethod
    def of(cls, task: TaskSpec, reason: RejectionReason, detail: str) -> TaskRejection:
        """The rejection of a drafted task, keeping its text and verifier."""
        return cls(
            server=task.server,
            origin=task.origin,
            round=task.round,
            targets=task.targets,
            text=task.text,
            reason=reason,
            detail=detail,
            verifier=task.verifier,
            source_probe=task.source_probe,
        )


class ProposalBatch(Frozen):
    """What one proposer call produced for one tool (or one chain): kept tasks and rejections."""

    server: str
    tool: str
    round: int = 0
    accepted: list[TaskSpec] = Field(default_factory=list)
    rejected: list[TaskRejection] = Field(default_factory=list)

    @property
    def rejection_counts(self) -> dict[str, int]:
        return dict(Counter(r.reason.value for r in self.rejected))


def _is_compound(name: str) -> bool:
    """snake_case, kebab-case, dotted or camelCase: a name no user writes by accident."""
    return any(c in name for c in "_-.") or re.search(r"[a-z][A-Z]", name) is not None


def named_tools(text: str, tool_names: Iterable[str]) -> list[str]:
    """The tools ``text`` names.

    A compound name (``read_file``, ``gitAdd``) counts anywhere as a word, in any case; a plain
    word (``search``) counts only in code form (```search``` or ``search(``), since as prose it
    is just a word.
    """
    found = []
    for name in tool_names:
        escaped = re.escape(name)
        code_form = rf"`{escaped}`|(?<![\w-]){escaped}\s*\("
        pattern = rf"(?<![\w-]){escaped}(?![\w-])|{code_form}" if _is_compound(name) else code_form
        if re.search(pattern, text, flags=re.IGNORECASE if _is_compound(name) else 0):
            found.append(name)
    return sorted(found)


async def vet_code_verifier(
    source: str, initial: StateInput, *, policy: RunPolicy | None = None
) -> tuple[RejectionReason, str] | None:
    """None when the verifier is usable; else the reason and a one-line detail.

    Run on the untouched ``initial`` state with an empty answer it must reach a verdict, and
    not "resolved" (see the module docstring).
    """
    # One run: the untouched state is both the state to reach a verdict on and the one not to
    # pass on, so the "not resolved" half is checked here rather than by a second identical run.
    report = await check_not_vacuous(
        source, initial, initial, EMPTY_ANSWER, requires_change=False, policy=policy
    )
    on_initial = report.on_post_state
    if not on_initial.verdict:
        detail = f"{on_initial.status.value} on the untouched state: {on_initial.detail}".strip()
        return RejectionReason.VERIFIER_CRASHES, detail[:500]
    if on_initial.status is RunStatus.OK:
        return RejectionReason.VERIFIER_VACUOUS, "passes on the untouched state with an empty answer"
    return None
