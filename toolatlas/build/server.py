"""One server's build: bootstrap, then R exploration rounds, each executed, verified and induced.

The pipeline inside a round: the proposer plans probes, the frontier picks them, executors (one
sandbox each) run them concurrently, verification runs off the event loop while executors go
on, and the inducer merges verdicts in completion order — the single writer of this server's
graph. At the end of a round the graph is distilled, the changed records are handed to the
sink (the store) and the round's coverage is reported.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

import structlog

from toolatlas.build.frontier import Frontier
from toolatlas.config import BuildSettings, ServerSpec
from toolatlas.errors import ToolAtlasError
from toolatlas.graph.distil import distil_strategies, link_similar_traces
from toolatlas.graph.inducer import InductionDelta, Inducer
from toolatlas.graph.state import RoundCoverage, ServerGraph
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Probe, Rollout, Verdict
from toolatlas.probing.verifier import Verifier
from toolatlas.workspace import Workspace

__all__ = ["GraphSink", "ProbeRecord", "ServerBuild"]

log = structlog.get_logger(__name__)

INFRASTRUCTURE_FAILURES_TO_GIVE_UP = 5
"""Consecutive rollouts the sandbox failed (server would not start) before the server is abandoned."""


class GraphSink(Protocol):
    """Where a server's changed records go at the end of each round (the store, in a build)."""

    def save_round(self, graph: ServerGraph, coverage: RoundCoverage) -> None: ...


class ProbeRecord(Protocol):
    def __call__(self, rollout: Rollout, verdict: Verdict, delta: InductionDelta) -> None: ...


class ServerBuild:
    """Builds the atlas of one server."""

    def __init__(
        self,
        workspace: Workspace,
        spec: ServerSpec,
        settings: BuildSettings,
        frontier: Frontier,
        *,
        sink: GraphSink | None = None,
        on_round: Callable[[RoundCoverage], None] | None = None,
        on_probe: ProbeRecord | None = None,
        rounds: int | None = None,
    ) -> None:
        self.workspace = workspace
        self.spec = spec
        self.settings = settings
        self.frontier = frontier
        self.sink = sink
        self.on_round = on_round
        self.on_probe = on_probe
        self.rounds = settings.rounds if rounds is None else rounds
        self.rng = random.Random(f"{settings.seed}:{spec.name}")
        self.graph: ServerGraph | None = None
        self.preload: dict[str, list] | None = None
        """Records a previous build stored for this server: this build extends them."""
        self.coverage: list[RoundCoverage] = []
        self._infrastructure_failures = 0
        self._log = log.bind(server=spec.name)

    async def run(self) -> list[RoundCoverage]:
        from toolatlas.offline.proposer import OfflineProposer

        executors = [
            Executor(self.workspace.sandbox(self.spec), f"{self.spec.name}/{i}")
            for i in range(self.settings.executors_per_server)
        ]
        try:
            await asyncio.gather(*(e.start() for e in executors))
        except ToolAtlasError as exc:
            await asyncio.gather(*(e.close() for e in executors), return_exceptions=True)
            failed = RoundCoverage(server=self.spec.name, round=0, status="failed", detail=str(exc)[:500])
            self._report(failed)
            return self.coverage
        try:
            tools = executors[0].sandbox.tools
            environment = self.workspace.environment(self.spec)
            snapshot = self.workspace.snapshot(self.spec)
            if self.graph is None:
                self.graph = ServerGraph(self.spec.name, tools)
                if self.preload:
                    stale = self.graph.load(self.preload)
                    self._log.info("graph_loaded", entries=len(self.graph.entries), stale=stale)
            verifier = Verifier(environment, await asyncio.to_thread(environment.digest, snapshot), {t.name: t for t in tools})
            inducer = Inducer(self.graph)
            proposer = OfflineProposer(self.graph, self.workspace, self.spec, self.rng)
            await asyncio.to_thread(proposer.prepare)
            seeds = proposer.seed_probes(self.settings.seed_tasks_per_tool, self.settings.rollouts_per_task)
            await self._round(0, seeds, executors, verifier, inducer, proposer)
            for round_ in range(1, self.rounds + 1):
                if self._given_up:
                    break
                chosen = self._choose(round_, proposer)
                await self._round(round_, chosen, executors, verifier, inducer, proposer)
        finally:
            await asyncio.gather(*(e.close() for e in executors), return_exceptions=True)
        return self.coverage

    def _choose(self, round_: int, proposer) -> list[Probe]:
        """The round's probes: the frontier's K-tool subgraph first; when its novel candidates cannot
        fill the budget, the subgraph grows by K more tools (the frontier's ranking) until they can."""
        assert self.graph is not None
        size = self.settings.subgraph_size
        ranked = self.frontier.targets(self.graph, len(self.graph.tools), self.rng)
        candidates: dict[str, list[Probe]] = {}
        chosen: list[Probe] = []
        for width in range(size, len(ranked) + size, size):
            fresh = [t for t in ranked[:width] if t not in candidates]
            candidates.update(proposer.candidates(round_, fresh))
            chosen = self.frontier.choose(
                self.graph,
                candidates,
                boundary_per_tool=self.settings.boundary_probes_per_tool,
                affordance_per_tool=self.settings.affordance_probes_per_tool,
                budget=self.round_budget,
                rng=self.rng,
            )
            if len(chosen) >= self.round_budget:
                break
        return chosen

    @property
    def round_budget(self) -> int:
        """Probes per exploration round: K target tools × (boundary + affordance + one replay), capped."""
        per_tool = self.settings.boundary_probes_per_tool + self.settings.affordance_probes_per_tool + 1
        return min(self.settings.probe_budget_per_round, self.settings.subgraph_size * per_tool)

    @property
    def _given_up(self) -> bool:
        return self._infrastructure_failures >= INFRASTRUCTURE_FAILURES_TO_GIVE_UP

    async def _round(
        self,
        round_: int,
        probes: Sequence[Probe],
        executors: list[Executor],
        verifier: Verifier,
        inducer: Inducer,
        proposer,
    ) -> None:
        assert self.graph is not None
        t0 = time.perf_counter()
        queue: asyncio.Queue[Probe] = asyncio.Queue()
        for probe in probes:
            queue.put_nowait(probe)
        verdicts: asyncio.Queue[tuple[Rollout, Verdict] | None] = asyncio.Queue()
        outcome_mix: Counter[str] = Counter()
        totals = {"probes": 0, "resolved": 0, "new": 0, "reinforced": 0}

        verifying: set[asyncio.Task[None]] = set()

        async def verify(rollout: Rollout) -> None:
            verdict = await asyncio.to_thread(verifier.verify, rollout)
            await verdicts.put((rollout, verdict))

        async def execute(executor: Executor) -> None:
            # Verification is pipelined: the executor hands the frozen state over and goes on.
            while not queue.empty() and not self._given_up:
                probe = queue.get_nowait()
                rollout = await executor.run(probe)
                if rollout.infrastructure_error is not None:
                    self._infrastructure_failures += 1
                else:
                    self._infrastructure_failures = 0
                task = asyncio.create_task(verify(rollout))
                verifying.add(task)
                task.add_done_callback(verifying.discard)

        async def induce() -> None:
            while (item := await verdicts.get()) is not None:
                rollout, verdict = item
                delta = inducer.induce(rollout, verdict)
                proposer.observe(rollout, verdict)
                self.frontier.observe(self.graph, rollout.probe, delta.reward)
                totals["probes"] += 1
                totals["resolved"] += int(verdict.resolved)
                totals["new"] += len(delta.new_entries)
                totals["reinforced"] += len(delta.reinforced)
                for step in rollout.steps:
                    outcome_mix[step.outcome.outcome.value] += 1
                if self.on_probe is not None:
                    self.on_probe(rollout, verdict, delta)

        inducing = asyncio.create_task(induce())
        try:
            await asyncio.gather(*(execute(e) for e in executors))
            await asyncio.gather(*verifying)
        finally:
            await verdicts.put(None)
            await inducing
        inducer.refresh_weights()
        distil_strategies(self.graph, round_)
        link_similar_traces(self.graph)
        coverage = self.graph.coverage(round_).model_copy(
            update={
                "probes": totals["probes"],
                "resolved": totals["resolved"],
                "new_entries": totals["new"],
                "reinforced_entries": totals["reinforced"],
                "outcome_mix": dict(outcome_mix),
                "seconds": round(time.perf_counter() - t0, 3),
                "status": "failed" if self._given_up else "ok",
                "detail": "the server could not be (re)started" if self._given_up else "",
            }
        )
        if self.sink is not None:
            await asyncio.to_thread(self.sink.save_round, self.graph, coverage)
        self._report(coverage)

    def _report(self, coverage: RoundCoverage) -> None:
        self.coverage.append(coverage)
        self._log.info("round_finished", round=coverage.round, probes=coverage.probes, new=coverage.new_entries)
        if self.on_round is not None:
            self.on_round(coverage)
