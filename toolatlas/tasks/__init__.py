"""Tasks of the LLM method: proposals with executable verifiers, their rollouts and verdicts."""

from toolatlas.tasks.models import (
    AgentAction,
    AgentKind,
    AgentRollout,
    AgentStep,
    RolloutStop,
    StateAssertion,
    TaskOrigin,
    TaskSpec,
    TaskVerdict,
    TaskVerifier,
)

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
