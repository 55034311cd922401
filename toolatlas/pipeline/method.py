"""The paper's method with an LLM, on top of the offline engine's verified facts: one server's LLM
rounds in this process, propose → roll out → judge → induce, per round.

After a server's offline rounds (its :class:`~toolatlas.pipeline.shard.ServerShard` is prepared),
:class:`MethodStage` runs Memory Bootstrapping (seed tasks per tool with executable verifiers, plus
verified offline chains written up as tasks), then R rounds of Capability Exploration (boundary and
affordance probe tasks for the frontier's target tools). Every task is run N times by an agent in
fresh sandboxes, judged by its verifier, and induced into the graph: the calls by the rule-based
inducer, the trace, capability entries and strategies by the LLM inducer (citation-checked).

Rounds continue the offline numbering: with R offline exploration rounds (0..R), the LLM
bootstrap is round R+1 and its exploration rounds R+2..2R+1 (:func:`llm_rounds`). Each round's
rollouts run concurrently on the server's executors' sandboxes; their verdicts are induced task
by task **in task order** once the round's rollouts are in, so the graph does not depend on which
sandbox finished first. A round ends like an offline one: coverage row, records saved,
checkpoint — a killed build resumes after the last completed round.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field

import structlog

from toolatlas.agents import AgentLimits, AgentRunner, PlannedRollout, as_probe_rollout, rollout_plan
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.state import RoundCoverage, ServerGraph
from toolatlas.induction import LlmInducer
from toolatlas.llm import LlmClient
from toolatlas.pipeline.shard import RoundTally, ServerShard
from toolatlas.probing.executor import Executor
from toolatlas.probing.verifier import Verifier
from toolatlas.tasks import AgentKind, AgentRollout, TaskSpec, TaskVerdict
from toolatlas.tasks.context import ServerBrief
from toolatlas.tasks.decompiler import ChainDecompiler
from toolatlas.tasks.docs import UsageDocs
from toolatlas.tasks.judge import judge
from toolatlas.tasks.proposer import TaskProposer
from toolatlas.tasks.states import initial_state
from toolatlas.tasks.vetting import ProposalBatch
from toolatlas.workspace import Workspace

__all__ = ["MethodStage", "RoundTasks", "llm_rounds", "trajectory_line"]

log = structlog.get_logger(__name__)


def trajectory_line(round_: int, stage: str, rollout: AgentRollout, verdict: TaskVerdict) -> str:
    """One raw trajectory as kept on disk: the rollout (every step, call and answer) and its label."""
    return json.dumps({
        "round": round_,
        "stage": stage,
        "rollout": rollout.model_dump(mode="json", exclude={"frozen"}),
        "verdict": verdict.model_dump(mode="json"),
    })


def llm_rounds(offline_rounds: int) -> range:
    """The round numbers of the LLM method after ``offline_rounds`` exploration rounds (bootstrap first)."""
    first = offline_rounds + 1
    return range(first, first + offline_rounds + 1)


@dataclass
class RoundTasks:
    """The tasks one round runs, and how many proposals were dropped on the way."""

    tasks: list[TaskSpec] = field(default_factory=list)
    rejected: int = 0

    def add(self, batch: ProposalBatch) -> None:
        known = {t.id for t in self.tasks}
        self.tasks.extend(t for t in batch.accepted if t.id not in known)
        self.rejected += len(batch.rejected)


class MethodStage:
    """The LLM method for one server whose offline rounds are done (its shard is prepared)."""

    def __init__(
        self,
        workspace: Workspace,
        shard: ServerShard,
        executors: list[Executor],
        verifier: Verifier,
        llm: LlmClient,
        *,
        save_round: Callable[[ServerShard, RoundCoverage], None] | None = None,
        on_round: Callable[[RoundCoverage], None] | None = None,
        save_rollouts: Callable[[str, int, list[str]], None] | None = None,
    ) -> None:
        self.workspace = workspace
        self.shard = shard
        self.spec = shard.spec
        self.settings = shard.settings
        self.executors = executors
        self.verifier = verifier
        self.llm = llm
        self.save_round = save_round
        self.on_round = on_round
        self.save_rollouts = save_rollouts
        self.trajectories: list[str] = []
        """The last round's raw trajectories, one JSON line per rollout with its verdict (kept by the caller)."""
        limits = AgentLimits.from_method(self.settings.method)
        self.runners = [AgentRunner(e.sandbox, llm, name=f"{e.name}/agent", limits=limits) for e in executors]
        self.inducer = LlmInducer(
            llm,
            capability_layer=self.settings.ablation.capability_layer,
            strategy_layer=self.settings.ablation.strategy_layer,
            absorb=self._absorb_offline,
        )
        self._log = log.bind(server=self.spec.name)
        self._stack: AsyncExitStack | None = None
        self._owned: list[Executor] = []

    @classmethod
    async def standalone(cls, workspace: Workspace, shard: ServerShard, llm: LlmClient) -> MethodStage:
        """A stage with sandboxes of its own (a Ray shard actor's): started here, closed by :meth:`close`."""
        spec, settings = shard.spec, shard.settings
        executors = [Executor(workspace.sandbox(spec), f"{spec.name}/llm{i}") for i in range(settings.executors_per_server)]
        try:
            await asyncio.gather(*(e.start() for e in executors))
        except BaseException:
            await asyncio.gather(*(e.close() for e in executors), return_exceptions=True)
            raise
        environment = workspace.environment(spec)
        digest = await asyncio.to_thread(environment.digest, workspace.snapshot(spec))
        verifier = Verifier(environment, digest, {t.name: t for t in executors[0].sandbox.tools})
        stage = cls(workspace, shard, executors, verifier, llm)
        stage._owned = executors
        return await stage.open()

    @property
    def graph(self) -> ServerGraph:
        assert self.shard.graph is not None, "the shard is not prepared"
        return self.shard.graph

    # -- rounds -----------------------------------------------------------------------------------

    async def open(self) -> MethodStage:
        """Read the initial state and the usage docs; ready the proposers (call once, then rounds)."""
        self._stack = AsyncExitStack()
        state = await self._stack.enter_async_context(initial_state(self.workspace, self.spec))
        assert self.shard.proposer is not None, "the shard is prepared before its LLM stage starts"
        brief = ServerBrief(
            spec=self.spec,
            graph=self.graph,
            facts=self.shard.proposer.facts,
            initial_state=state,
            docs=UsageDocs.load(self.spec, self.workspace.catalogue.base_dir),
        )
        self.initial = state
        self.proposer = TaskProposer(self.llm, brief)
        self.decompiler = ChainDecompiler(self.llm, brief)
        return self

    async def close(self) -> None:
        """Release the initial state (and the sandboxes of a :meth:`standalone` stage)."""
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None
        await asyncio.gather(*(e.close() for e in self._owned), return_exceptions=True)
        self._owned = []

    async def run(self, rounds: range) -> list[RoundCoverage]:
        """Bootstrap (``rounds[0]``) and exploration; rounds the shard already completed are skipped."""
        rows: list[RoundCoverage] = []
        await self.open()
        try:
            for round_ in rounds:
                if round_ > self.shard.completed_round:
                    rows.append(await self.run_round(round_, bootstrap=round_ == rounds[0]))
        finally:
            await self.close()
        return rows

    async def run_round(self, round_: int, *, bootstrap: bool) -> RoundCoverage:
        """One LLM round: propose (bootstrap or exploration), roll out, judge, induce, finish."""
        t0, tokens = time.perf_counter(), self._tokens()
        if bootstrap:
            stage, planned = "bootstrap", await self._bootstrap(self.proposer, self.decompiler, round_)
        else:
            stage, planned = "exploration", await self._exploration(self.proposer, round_)
        return await self._round(round_, stage, planned, t0, tokens)

    async def _bootstrap(self, proposer: TaskProposer, decompiler: ChainDecompiler, round_: int) -> RoundTasks:
        """k seed tasks per tool, and the offline engine's verified chains written up as tasks (all
        booked under ``round_``, the build round that runs them)."""
        planned = RoundTasks()
        k = self.settings.seed_tasks_per_tool
        tools = sorted(self.graph.specs)
        for batch in await asyncio.gather(*(proposer.seed_tasks(tool, k, round_=round_) for tool in tools)):
            planned.add(batch)
        for chain in self.shard.chains[: self.settings.method.chain_tasks_per_server]:
            probe = chain.model_copy(update={"round": round_})
            executor = self.executors[0]
            rollout = await executor.run(probe)  # the chain again, its post-state kept for the write-up
            verdict = await asyncio.to_thread(self.verifier.verify, rollout, discard=False)
            try:
                batch = await decompiler.decompile(probe, rollout, verdict, executor.sandbox)
            finally:
                if rollout.frozen is not None:
                    await executor.sandbox.discard(rollout.frozen)
            planned.add(batch)
        return planned

    async def _exploration(self, proposer: TaskProposer, round_: int) -> RoundTasks:
        """Boundary and affordance probe tasks for the K target tools the frontier picks."""
        planned = RoundTasks()
        size = self.settings.subgraph_size
        targets = self.shard.frontier.targets(self.graph, size, self.shard.rng)[:size]
        boundary, affordance = self.settings.boundary_per_tool, self.settings.affordance_per_tool
        batches = await asyncio.gather(
            *(proposer.probe_tasks(t, round_, boundary=boundary, affordance=affordance) for t in targets)
        )
        for batch in batches:
            planned.add(batch)
        return planned

    async def _round(self, round_: int, stage: str, planned: RoundTasks, t0: float, tokens: int) -> RoundCoverage:
        self.shard.tally = RoundTally()
        work = [p for task in planned.tasks for p in self._plan(task)]
        results = await self._roll_out(work)
        self.trajectories = [trajectory_line(round_, stage, rollout, verdict) for rollout, verdict in results]
        resolved = new_entries = 0
        for task in planned.tasks:  # task order: the graph does not depend on completion order
            done = sorted((r for r in results if r[0].task.id == task.id), key=lambda r: r[0].rollout)
            rollouts, verdicts = [r for r, _ in done], [v for _, v in done]
            resolved += sum(v.resolved for v in verdicts)
            try:
                report = await self.inducer.induce_task(task, rollouts, verdicts, self.graph)
                new_entries += len(report.new_entries)
                self._log.debug("task_induced", task=task.id, trace=report.trace_id, dropped=report.drop_counts)
            finally:
                await self._discard(rollouts)
        strategies = await self.inducer.aggregate_strategies(self.graph, round_)
        coverage = self.shard.finish_round(round_, time.perf_counter() - t0).model_copy(
            update={
                "stage": stage,
                "probes": len(results),
                "resolved": resolved,
                "new_entries": self.shard.tally.new + new_entries + len(strategies.new_strategies),
                "tasks": len(planned.tasks),
                "tasks_rejected": planned.rejected,
                "llm_tokens": self._tokens() - tokens,
            }
        )
        if self.save_rollouts is not None:
            await asyncio.to_thread(self.save_rollouts, self.spec.name, round_, self.trajectories)
        if self.save_round is not None:
            await asyncio.to_thread(self.save_round, self.shard, coverage)
        if self.on_round is not None:
            self.on_round(coverage)
        self._log.info("llm_round_finished", round=round_, stage=stage, tasks=len(planned.tasks),
                       rollouts=len(results), resolved=resolved, tokens=coverage.llm_tokens)
        return coverage

    def _plan(self, task: TaskSpec) -> list[PlannedRollout]:
        """N rollouts: the first at temperature 0, the others at the exploratory temperatures in turn."""
        method = self.settings.method
        return rollout_plan(task, self.settings.rollouts_per_task, (AgentKind(method.agent),),
                            temperatures=tuple(method.exploratory_temperatures) or (0.5,))

    async def _roll_out(self, work: list[PlannedRollout]) -> list[tuple[AgentRollout, TaskVerdict]]:
        """Every planned rollout on the executors' sandboxes; each judged as soon as it ends."""
        queue: asyncio.Queue[PlannedRollout] = asyncio.Queue()
        for item in work:
            queue.put_nowait(item)
        results: list[tuple[AgentRollout, TaskVerdict]] = []

        async def worker(runner: AgentRunner) -> None:
            while not queue.empty():
                planned = queue.get_nowait()
                rollout = await runner.run_planned(planned)
                verdict = await judge(planned.task, rollout, initial_state=self.initial)
                results.append((rollout, verdict))

        await asyncio.gather(*(worker(r) for r in self.runners))
        return results

    def _absorb_offline(self, agent_rollout: AgentRollout, verdict: TaskVerdict, graph: ServerGraph):
        """Every call an agent made is a fact: the rule-based verifier and inducer take it as a probe's."""
        rollout = as_probe_rollout(agent_rollout)
        checked = self.verifier.verify(rollout, discard=False)
        delta = Inducer(graph).induce(rollout, checked, trace=False)
        self.shard.tally.add(rollout, checked, delta)
        return delta

    async def _discard(self, rollouts: list[AgentRollout]) -> None:
        for rollout in rollouts:
            if rollout.frozen is not None:
                await self.executors[0].sandbox.discard(rollout.frozen)

    def _tokens(self) -> int:
        return self.llm.ledger.total().total_tokens
