"""The messages of the LLM method's path: :class:`TaskSpec` → :class:`AgentRollout` → :class:`TaskVerdict`.

A task is a natural-language request (never naming tools or call order) with a verifier that
decides, from the frozen post-state and the agent's final answer, whether it was resolved.
Tasks come from three sources (:class:`TaskOrigin`): the LLM seed proposer (bootstrap, with an
LLM-written verifier in Python), verified offline chains written up as tasks (declarative
assertions taken from the recorded post-state: sound by construction), and the exploration
proposer (boundary and affordance probe tasks per target tool). Agents (ReAct, CodeAct,
SwitchAct) run N rollouts of a task in fresh sandboxes; every rollout is kept raw.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from toolatlas.environments import FrozenState, StateDigest
from toolatlas.models import CallOutcome, Frozen, stable_id

__all__ = [
    "AgentAction",
    "AgentKind",
    "AgentRollout",
    "AgentStep",
    "RolloutStop",
    "StateAssertion",
    "TaskOrigin",
    "TaskSpec",
    "TaskVerdict",
    "TaskVerifier",
]


class TaskOrigin(StrEnum):
    BOOTSTRAP = "bootstrap"
    """Seed task for one tool, proposed from its spec and usage snippets (paper §3.1)."""
    CHAIN = "chain"
    """A verified offline chain written up as a task; its verifier asserts the recorded post-state."""
    BOUNDARY = "boundary"
    """Exploration, outward: where a target tool becomes unreliable or infeasible (§3.2)."""
    AFFORDANCE = "affordance"
    """Exploration, inward: an under-recorded valid use or composition of a target tool (§3.2)."""


class StateAssertion(Frozen):
    """One declarative check of a post-state or final answer (the chain tasks' verifiers).

    ``target`` is a path relative to the state root (files, git), a read-only SQL query
    (sqlite/postgres), or empty for checks on the answer.
    """

    kind: Literal[
        "file_exists",
        "file_absent",
        "file_contains",
        "file_sha256",
        "query_rows",
        "git_head_subject",
        "git_branch_exists",
        "git_current_branch",
        "git_staged",
        "answer_contains",
    ]
    target: str = ""
    expected: Any = None


class TaskVerifier(Frozen):
    """How a task is judged: Python ``verify(state, answer)`` (LLM-written) or declarative assertions."""

    kind: Literal["code", "assertions"]
    source: str = ""
    """``kind="code"``: the module source defining ``verify(state, answer) -> bool``."""
    assertions: list[StateAssertion] = Field(default_factory=list)
    requires_change: bool = False
    """The task asks for a change: the verifier must then fail on the untouched initial state."""


class TaskSpec(Frozen):
    """One task of the LLM method, with its verifier and where it came from."""

    id: str
    server: str
    origin: TaskOrigin
    round: int = 0
    text: str
    """The request as a user would write it: names no tool and no call order."""
    targets: list[str] = Field(default_factory=list)
    """The tools the task was proposed for (bootstrap: one; exploration: the target; chain: the chain's tools)."""
    verifier: TaskVerifier
    source_probe: str | None = None
    """Chain tasks: the offline probe whose verified chain the task was written from."""
    rationale: str = ""
    """The proposer's note on what the task tests (never shown to agents)."""

    @staticmethod
    def make_id(server: str, origin: TaskOrigin, text: str) -> str:
        """Content-derived: the same task text for the same server is the same task (no duplicates on resume)."""
        return stable_id("task", server, origin.value, " ".join(text.split()).lower())


class AgentKind(StrEnum):
    REACT = "react"
    """One function call per step (Yao et al.)."""
    CODEACT = "codeact"
    """One Python snippet per step, calling tools through a bridge (Wang et al.)."""
    SWITCHACT = "switchact"
    """Both interfaces offered each step; the model chooses (the paper's default)."""


class AgentAction(Frozen):
    """What the agent chose at one step: a function call, a code snippet, or the final answer."""

    kind: Literal["call", "code", "answer"]
    thought: str = ""
    tool: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    code: str | None = None
    answer: str | None = None


class AgentStep(Frozen):
    """One turn: the action, every MCP call it made (a snippet may make several), what the agent saw."""

    index: int
    action: AgentAction
    calls: list[CallOutcome] = Field(default_factory=list)
    observation: str = ""
    code_status: str | None = None
    """``kind="code"``: how the snippet ended in the code sandbox (ok, error, timeout, violation…)."""
    digests_after: list[StateDigest] = Field(default_factory=list)
    """The instance's state right after each of ``calls`` (same order), when the runner recorded it."""


RolloutStop = Literal["answer", "max_turns", "timeout", "llm_failure", "infrastructure"]


class AgentRollout(Frozen):
    """One raw trajectory of one agent on one task in a fresh sandbox."""

    id: str
    task: TaskSpec
    agent: AgentKind
    rollout: int
    """Index among the task's N rollouts (0 is the deterministic one, temperature 0)."""
    temperature: float
    model: str = ""
    steps: list[AgentStep] = Field(default_factory=list)
    final_answer: str = ""
    stop: RolloutStop = "answer"
    detail: str = ""
    frozen: FrozenState | None = None
    final_digest: StateDigest | None = None
    """The instance's state when the agent stopped (so judges and the rule-based verifier need no disk)."""
    variables: dict[str, str] = Field(default_factory=dict)
    """The instance's placeholder values, to normalise arguments and outputs back to placeholders."""
    duration_ms: float = 0.0
    executor: str = ""

    @property
    def calls(self) -> list[CallOutcome]:
        return [call for step in self.steps for call in step.calls]


class TaskVerdict(Frozen):
    """The verifier's label for one rollout: resolved or failed, and why."""

    rollout_id: str
    task_id: str
    resolved: bool
    status: str
    """The verifier run's status: ok, failed, error, timeout, violation, crashed (see toolatlas.codebox)."""
    detail: str = ""
