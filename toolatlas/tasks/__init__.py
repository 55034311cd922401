"""Tasks of the LLM method: where they come from, how they are vetted, and how a rollout is judged.

- :mod:`.models`: the messages (task with verifier → agent rollout → verdict).
- :mod:`.proposer`: seed tasks (bootstrap) and probe tasks (exploration) with LLM-written
  Python verifiers, each vetted against the untouched state (:mod:`.vetting`).
- :mod:`.decompiler` and :mod:`.chains`: verified offline chains written up as tasks, with
  assertions read off the recorded post-state, kept only if a replay passes them.
- :mod:`.judge`: a rollout's verdict, by code verifier or by assertions (:mod:`.assertions`).
- :mod:`.context`, :mod:`.docs`, :mod:`.states`: what the proposers are told, and the state
  tasks start from.
"""

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
