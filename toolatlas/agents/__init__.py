"""Agents for rollouts (paper Appendix A.3): ReAct, CodeAct and SwitchAct on an MCP server.

::

    from toolatlas.agents import AgentRunner, as_probe_rollout, rollout_plan

    runner = AgentRunner(sandbox, llm)                     # a started Sandbox, an LlmClient
    for planned in rollout_plan(task, n=4):                # T = 0, 0.2, 0.5, 0.8
        rollout = await runner.run_planned(planned, guidance=text)
        # rollout.steps: actions, the MCP calls they made, observations; rollout.frozen: post-state
        verdict = verifier.verify(as_probe_rollout(rollout))  # the rule-based layer absorbs the calls

- :func:`run_agent` (:mod:`.loop`) — the turn loop of the three kinds against any ``call``;
- :class:`AgentRunner` / :func:`run_rollout` (:mod:`.runner`) — in a live sandbox, fresh state
  in, frozen post-state out; :func:`rollout_plan` — the N rollouts of a task;
- :func:`as_probe_rollout` (:mod:`.probes`) — a rollout's calls as a probe rollout;
- :mod:`.interface` — the tools as functions, ``run_python``, bounded observations.

The prompts are ``toolatlas/prompts/agent_<kind>.md``, all run as LLM role ``agent`` (one model,
one usage row; the tag names the prompt). Guidance from the atlas goes in their memory slot.
"""

from toolatlas.agents.interface import OBSERVATION_CHARS, RUN_PYTHON, ToolMenu
from toolatlas.agents.loop import (
    AGENT_ROLE,
    DEFAULT_MAX_TURNS,
    DEFAULT_TIMEOUT_S,
    NOT_EXECUTED,
    SNIPPET_TIMEOUT_S,
    CallTool,
    DigestState,
    prompt_name,
    rollout_id,
    run_agent,
)
from toolatlas.agents.probes import DIRECTION_OF_ORIGIN, as_probe_rollout
from toolatlas.agents.runner import (
    EXPLORATORY_TEMPERATURES,
    AgentLimits,
    AgentRunner,
    PlannedRollout,
    rollout_plan,
    rollout_temperature,
    run_rollout,
)

__all__ = [
    "AGENT_ROLE",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_TIMEOUT_S",
    "DIRECTION_OF_ORIGIN",
    "EXPLORATORY_TEMPERATURES",
    "NOT_EXECUTED",
    "OBSERVATION_CHARS",
    "RUN_PYTHON",
    "SNIPPET_TIMEOUT_S",
    "AgentLimits",
    "AgentRunner",
    "CallTool",
    "DigestState",
    "PlannedRollout",
    "ToolMenu",
    "as_probe_rollout",
    "prompt_name",
    "rollout_id",
    "rollout_plan",
    "rollout_temperature",
    "run_agent",
    "run_rollout",
]
