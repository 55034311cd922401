"""Trace reflection (paper §3.1, Tool-Trace Graph): the N rollouts of one task → one agent-neutral trace.

The reflector reads every labelled rollout of a task (resolved first) and writes a short
(tool, rationale) sequence that solves it, with no agent syntax — a CodeAct snippet is shown as
the calls it made — and tips distilled by contrasting resolved and failed rollouts (paper 004).
In code, before the trace reaches the graph:

* a step survives only if its tool was called successfully in a cited resolved rollout (when no
  rollout resolved: called at all in a cited rollout — the trace then records the failed attempt,
  its stats say so);
* a tip survives only if it cites rollouts of this task;
* a task with resolved rollouts but no surviving step gets no trace.

The trace is one per task (its id derives from the task id): re-inducing the task upserts it,
and its run counts grow only by rollouts it has not counted yet.
"""

from __future__ import annotations

from toolatlas.graph.inducer import link_trace
from toolatlas.graph.models import TraceNode, TraceStep
from toolatlas.graph.state import ServerGraph
from toolatlas.induction.asking import ask
from toolatlas.induction.models import ReflectionAnswer, ReportBuilder
from toolatlas.induction.render import tool_lines
from toolatlas.induction.rollouts import TaskRollouts
from toolatlas.llm import LlmClient
from toolatlas.models import stable_id, utcnow

__all__ = ["MAX_TIPS", "check_reflection", "reflect", "trace_id", "write_trace"]

MAX_TIPS = 8
MAX_PROBE_IDS = 50
PROMPT = "reflector"


def trace_id(server: str, task_id: str) -> str:
    """The id of a task's reflected trace (one per task)."""
    return stable_id("trace", server, "task", task_id)


async def reflect(llm: LlmClient, rollouts: TaskRollouts, graph: ServerGraph, report: ReportBuilder) -> ReflectionAnswer | None:
    """Ask the reflector about the task's rollouts (None: no valid answer, recorded in ``report``)."""
    resolved = len(rollouts.resolved_ids)
    return await ask(
        llm,
        PROMPT,
        ReflectionAnswer,
        report,
        server=graph.server,
        task=rollouts.task.text,
        tools=tool_lines(graph),
        rollout_count=len(rollouts.ids),
        resolved_count=resolved,
        failed_count=len(rollouts.ids) - resolved,
        rollouts=rollouts.render(),
    )


def check_reflection(
    answer: ReflectionAnswer, rollouts: TaskRollouts, graph: ServerGraph, report: ReportBuilder
) -> tuple[list[TraceStep], list[str]] | None:
    """The steps and tips of ``answer`` that its citations support; None when no trace should be written."""
    known = set(rollouts.ids)
    cited = []
    for rollout in answer.rollouts:
        if rollout in known:
            cited.append(rollout)
        else:
            report.drop("trace", "unknown_rollout", rollout, "cited by the trace but not a rollout of this task")
    resolved = rollouts.resolved_ids
    if resolved:
        support = {c.tool for r in cited if r in resolved for c in rollouts.sequences[r] if c.succeeded}
        where = "called successfully in a cited resolved rollout"
    else:
        support = {c.tool for r in cited for c in rollouts.sequences[r]}
        where = "called in a cited rollout"
    steps = []
    for step in answer.steps:
        if step.tool not in graph.specs:
            report.drop("step", "unknown_tool", step.tool, "not a tool of this server")
        elif step.tool not in support:
            report.drop("step", "tool_not_called", step.tool, f"not {where}")
        else:
            steps.append(TraceStep(tool=step.tool, rationale=" ".join(step.rationale.split()) or f"call `{step.tool}`"))
    tips = []
    for tip in answer.tips:
        text = " ".join(tip.text.split())
        if not tip.rollouts:
            report.drop("tip", "no_citation", text[:80])
        elif not set(tip.rollouts) <= known:
            report.drop("tip", "unknown_rollout", text[:80], ", ".join(sorted(set(tip.rollouts) - known)))
        elif text:
            tips.append(text)
    if resolved and not steps:
        report.drop("trace", "no_supported_steps", rollouts.task.id, "rollouts resolved but no step is supported")
        return None
    return steps, list(dict.fromkeys(tips))[:MAX_TIPS]


def write_trace(graph: ServerGraph, rollouts: TaskRollouts, steps: list[TraceStep], tips: list[str]) -> str:
    """Insert or update the task's trace; run counts grow by the rollouts it has not counted yet."""
    task = rollouts.task
    identity = trace_id(graph.server, task.id)
    existing = graph.traces.get(identity)
    counted = set(existing.probe_ids) if existing else set()
    fresh = [r for r in rollouts.ids if r not in counted]
    resolved = sum(1 for r in fresh if rollouts.verdicts[r].resolved)
    base = existing or TraceNode(id=identity, server=graph.server, task=task.text, steps=[], round_found=task.round)
    trace = base.model_copy(
        update={
            "steps": steps or base.steps,
            "tips": list(dict.fromkeys([*tips, *base.tips]))[:MAX_TIPS],
            "tools": sorted({s.tool for s in (steps or base.steps)}),
            "runs": base.runs + len(fresh),
            "resolved": base.resolved + resolved,
            "failed": base.failed + len(fresh) - resolved,
            "probe_ids": (base.probe_ids + fresh)[-MAX_PROBE_IDS:],
            "last_verified": utcnow(),
        }
    )
    graph.put_trace(trace)
    link_trace(graph, trace)
    return identity
