"""``LlmInducer``: Memory Induction with an LLM, on top of the offline inducer's verified facts.

Per task (after its N rollouts are judged), :meth:`LlmInducer.induce_task`

1. lets the offline inducer absorb each new rollout's calls, when an ``absorb`` hook is given
   (the build turns an :class:`~toolatlas.tasks.models.AgentRollout` into the offline probe
   model and runs :class:`~toolatlas.graph.inducer.Inducer` on it);
2. asks the reflector for the task's trace and the capability aggregator about every tool the
   rollouts called — concurrently — then checks every citation and merges what holds, in a fixed
   order (entries, then the trace), so the graph does not depend on answer timing.

Per round, :meth:`LlmInducer.aggregate_strategies` distils strategy nodes from groups of related
traces. Ablation switches: ``capability_layer=False`` writes no LLM capability entries,
``strategy_layer=False`` no strategies. Everything that was dropped, and every LLM answer that
never validated, is in the returned :class:`~toolatlas.induction.models.InductionReport`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence

import structlog

from toolatlas.errors import ToolAtlasError
from toolatlas.graph.inducer import InductionDelta
from toolatlas.graph.state import ServerGraph
from toolatlas.induction.capabilities import aggregate_capabilities
from toolatlas.induction.models import InductionReport, ReportBuilder
from toolatlas.induction.reflection import check_reflection, reflect, trace_id, write_trace
from toolatlas.induction.rollouts import TaskRollouts
from toolatlas.induction.strategies import apply_strategies, ask_strategies, trace_groups
from toolatlas.llm import LlmClient
from toolatlas.models import stable_id
from toolatlas.tasks.models import AgentRollout, TaskSpec, TaskVerdict

__all__ = ["LlmInducer", "OfflineAbsorb"]

log = structlog.get_logger(__name__)

OfflineAbsorb = Callable[[AgentRollout, TaskVerdict, ServerGraph], "InductionDelta | None | Awaitable[InductionDelta | None]"]
"""Merges one judged rollout's calls into the graph the offline way (the build supplies it)."""

MAX_STRATEGY_GROUPS = 6
"""Trace groups sent to the strategy aggregator per call of :meth:`LlmInducer.aggregate_strategies`."""


class LlmInducer:
    """Trace reflection, capability aggregation and strategy aggregation with an LLM, citation-checked."""

    def __init__(
        self,
        llm: LlmClient,
        *,
        capability_layer: bool = True,
        strategy_layer: bool = True,
        absorb: OfflineAbsorb | None = None,
        max_strategy_groups: int = MAX_STRATEGY_GROUPS,
    ) -> None:
        self.llm = llm
        self.capability_layer = capability_layer
        self.strategy_layer = strategy_layer
        self.absorb = absorb
        self.max_strategy_groups = max_strategy_groups
        self._aggregated: set[str] = set()
        """Trace groups (by their trace ids) already sent to the strategy aggregator."""

    async def induce_task(
        self, task: TaskSpec, rollouts: Sequence[AgentRollout], verdicts: Sequence[TaskVerdict], graph: ServerGraph
    ) -> InductionReport:
        """Induce one task's judged rollouts into ``graph``: its trace, and its tools' entries."""
        if task.server != graph.server:
            raise ToolAtlasError(f"task {task.id} is for server {task.server!r}, the graph is {graph.server!r}'s")
        labelled = TaskRollouts(task, rollouts, verdicts)
        report = ReportBuilder(server=graph.server, task_id=task.id, round=task.round, skipped_rollouts=labelled.skipped)
        if not labelled.rollouts:
            return report.finish()
        await self._absorb_offline(labelled, graph, report)
        reflection, _ = await asyncio.gather(
            reflect(self.llm, labelled, graph, report),
            aggregate_capabilities(self.llm, labelled, graph, report) if self.capability_layer else _nothing(),
        )
        if reflection is not None:
            checked = check_reflection(reflection, labelled, graph, report)
            if checked is not None:
                report.trace_id = write_trace(graph, labelled, *checked)
        result = report.finish()
        log.info("llm_induced_task", server=graph.server, task=task.id, trace=result.trace_id,
                 new_entries=len(result.new_entries), reinforced=len(result.reinforced),
                 dropped=result.drop_counts, failures=len(result.failures))
        return result

    async def aggregate_strategies(self, graph: ServerGraph, round: int) -> InductionReport:
        """Distil strategy nodes from groups of related traces not aggregated yet (one LLM call per group)."""
        report = ReportBuilder(server=graph.server, round=round)
        if not self.strategy_layer:
            return report.finish()
        groups = []
        for group in trace_groups(graph):
            key = stable_id("group", sorted((t.id, t.runs) for t in group))
            if key not in self._aggregated:
                groups.append((key, group))
        groups = groups[: self.max_strategy_groups]
        answers = await asyncio.gather(*(ask_strategies(self.llm, group, graph, report) for _, group in groups))
        for (key, _), answer in zip(groups, answers, strict=True):
            if answer is not None:
                self._aggregated.add(key)
                apply_strategies(answer, graph, report, round)
        result = report.finish()
        log.info("llm_aggregated_strategies", server=graph.server, round=round, groups=len(groups),
                 new=len(result.new_strategies), updated=len(result.updated_strategies), dropped=result.drop_counts)
        return result

    async def _absorb_offline(self, labelled: TaskRollouts, graph: ServerGraph, report: ReportBuilder) -> None:
        """Rollouts the task's trace has not counted yet go to the offline inducer (``absorb``), so
        never twice; without that hook their transition opportunities (the co-usage weights'
        denominators N_i) are counted here."""
        trace = graph.traces.get(trace_id(graph.server, labelled.task.id))
        counted = set(trace.probe_ids) if trace else set()
        for rollout in labelled.rollouts:
            if rollout.id in counted:
                continue
            if self.absorb is None:
                for call in labelled.sequences[rollout.id][:-1]:
                    graph.transition_opportunities[call.tool] += 1
                continue
            delta = self.absorb(rollout, labelled.verdicts[rollout.id], graph)
            if inspect.isawaitable(delta):
                delta = await delta
            if delta is not None:
                for entry_id in delta.new_entries:
                    report.merged("new", entry_id)
                for entry_id in delta.reinforced:
                    report.merged("reinforced", entry_id)


async def _nothing() -> None:
    return None
