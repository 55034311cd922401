"""One server's build in this process: a shard and its executors (one sandbox each, verifying its probes).

Inside a round, executors run probes concurrently and verify each one as it ends (from the
digests it carries: no post-state is kept), and verdicts are absorbed by the shard in probe order
through a reorder buffer — so the atlas does not depend on which executor finished first. At the
end of a round the sink persists the changed records, the coverage row and the checkpoint.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import structlog

from toolatlas.config import BuildSettings, ServerSpec
from toolatlas.errors import ToolAtlasError
from toolatlas.graph.inducer import InductionDelta
from toolatlas.graph.state import RoundCoverage
from toolatlas.models import ToolSpec
from toolatlas.pipeline.batches import FailureStreak, InOrder
from toolatlas.pipeline.persistence import ServerStart
from toolatlas.pipeline.shard import ServerShard
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Probe, Rollout, Verdict
from toolatlas.probing.verifier import Verifier
from toolatlas.workspace import Workspace

if TYPE_CHECKING:
    from toolatlas.llm import LlmClient

__all__ = ["GraphSink", "OrderedAbsorber", "ProbeRecord", "ServerBuild"]

log = structlog.get_logger(__name__)

class GraphSink(Protocol):
    """Where a shard's round ends up: changed records, the coverage row, the checkpoint."""

    def save_round(self, shard: ServerShard, coverage: RoundCoverage) -> None: ...



class ProbeRecord(Protocol):
    def __call__(self, rollout: Rollout, verdict: Verdict, delta: InductionDelta) -> None: ...


class OrderedAbsorber:
    """Feeds verdicts to a shard in probe order, whatever order they complete in (a reorder buffer)."""

    def __init__(self, absorb: Callable[[Rollout, Verdict], InductionDelta], on_probe: ProbeRecord | None = None) -> None:
        self.absorb = absorb
        self.on_probe = on_probe
        self.order: InOrder[tuple[Rollout, Verdict]] = InOrder()

    def add(self, index: int, rollout: Rollout, verdict: Verdict) -> None:
        for due, checked in self.order.add(index, 1, (rollout, verdict)):
            delta = self.absorb(due, checked)
            if self.on_probe is not None:
                self.on_probe(due, checked, delta)


class ServerBuild:
    """Builds the atlas of one server with local executors."""

    def __init__(
        self,
        workspace: Workspace,
        spec: ServerSpec,
        settings: BuildSettings,
        frontier: str = "graph",
        *,
        sink: GraphSink | None = None,
        on_round: Callable[[RoundCoverage], None] | None = None,
        on_probe: ProbeRecord | None = None,
        rounds: int | None = None,
        origin: ServerStart | None = None,
        llm: LlmClient | None = None,
        focus: frozenset[str] | None = None,
    ) -> None:
        self.workspace = workspace
        self.spec = spec
        self.settings = settings
        self.shard = ServerShard(workspace, spec, settings, frontier)
        self.focus = focus
        """Only these tools are probed (:attr:`ServerShard.focus`); None: every tool."""
        self.sink = sink
        self.on_round = on_round
        self.on_probe = on_probe
        self.rounds = settings.rounds if rounds is None else rounds
        self.origin = origin
        """Where the build begins: a checkpoint to continue from, or the records to start from
        (None: from :attr:`preload`)."""
        self.llm = llm
        """With an LLM client, the LLM method's rounds follow the offline ones (:mod:`toolatlas.pipeline.method`)."""
        self.preload: dict[str, list] | None = None
        """Records a previous build stored for this server: this build extends them."""
        self.coverage: list[RoundCoverage] = []
        self.executors: list[Executor] = []
        self._failures = FailureStreak()
        self.tool_seconds: defaultdict[str, float] = defaultdict(float)
        """Seconds each tool's calls took in this build (its pilot included): what it cost the build."""
        self.seconds = 0.0
        """The build's wall time, open to close."""
        self.verifier: Verifier | None = None
        self._opened_at: float | None = None
        self._log = log.bind(server=spec.name)

    async def run(self) -> list[RoundCoverage]:
        """Open, run every round (the LLM method's too, with an LLM client), close; the coverage rows."""
        try:
            start = await self.open()
        except ToolAtlasError as exc:
            self._report(RoundCoverage(server=self.spec.name, round=0, status="failed", detail=str(exc)[:500]))
            return self.coverage
        try:
            for round_ in range(start, self.rounds + 1):
                if self.given_up:
                    break
                await self.run_round(round_)
            if self.llm is not None and not self.given_up:
                assert self.verifier is not None
                await self._llm_rounds(self.executors, self.verifier)
        finally:
            await self.close()
            self.tool_seconds = defaultdict(float, self.costs())
        return self.coverage

    async def open(self) -> int:
        """Start the server's executors, its verifier and its shard (from :attr:`origin`, else
        :attr:`preload`); the first round still to run. Raises what stopped the server from starting
        (a :class:`~toolatlas.errors.ToolAtlasError`), with nothing left running."""
        self._opened_at = time.perf_counter()
        tools = await self.start()
        try:
            environment = self.workspace.environment(self.spec)
            snapshot = self.workspace.snapshot(self.spec)
            digest = await asyncio.to_thread(environment.digest, snapshot)
            self.verifier = Verifier(environment, digest, {t.name: t for t in tools})
            return await asyncio.to_thread(self._start_shard, tools)
        except BaseException:
            await self.close()
            raise

    def costs(self) -> dict[str, float]:
        """Seconds each tool's calls took in this build, its pilots (discovery) included."""
        costs = defaultdict(float, self.tool_seconds)
        if self.shard.proposer is not None:
            for tool, cost in self.shard.proposer.discovery.costs.items():
                costs[tool] += cost.seconds + (cost.refusal_seconds or 0.0)
        return dict(costs)

    async def start(self) -> list[ToolSpec]:
        """Start the server's executors (one sandbox each); its live tools. Raises what stopped a
        sandbox from starting (a :class:`~toolatlas.errors.ToolAtlasError`), with none left running."""
        self.executors = [
            Executor(self.workspace.sandbox(self.spec), f"{self.spec.name}/{i}")
            for i in range(self.settings.executors_per_server)
        ]
        try:
            await asyncio.gather(*(e.start() for e in self.executors))
        except BaseException:
            await self.close()
            raise
        return self.executors[0].sandbox.tools

    async def run_round(self, round_: int) -> RoundCoverage:
        """Plan a round, run and verify its probes, absorb them in probe order; its coverage row."""
        probes = await asyncio.to_thread(self.shard.plan, round_)
        return await self._round(round_, probes, self.executors)

    @property
    def given_up(self) -> bool:
        """True once the sandbox failed too many rollouts in a row: the server is abandoned."""
        return self._failures.given_up

    async def close(self) -> None:
        await asyncio.gather(*(e.close() for e in self.executors), return_exceptions=True)
        self.executors = []
        if self._opened_at is not None:
            self.seconds = time.perf_counter() - self._opened_at

    async def _llm_rounds(self, executors: list[Executor], verifier: Verifier) -> None:
        from toolatlas.pipeline.method import MethodStage, llm_rounds

        assert self.llm is not None
        save = self.sink.save_round if self.sink is not None else None
        stage = MethodStage(self.workspace, self.shard, executors, verifier, self.llm, save_round=save,
                            on_round=self._report, save_rollouts=getattr(self.sink, "save_rollouts", None))
        await stage.run(llm_rounds(self.rounds))

    def _start_shard(self, tools) -> int:
        """Prepare the shard (or restore it from its checkpoint); the first round still to run."""
        checkpoint = self.origin.checkpoint if self.origin is not None else None
        stored = self.origin.stored.layers() if self.origin is not None and self.origin.stored else self.preload
        first = self.shard.open(tools, stored, checkpoint, self.focus)
        if checkpoint is not None:
            self._log.info("build_resumed", after_round=self.shard.completed_round)
        return first

    async def _round(self, round_: int, probes: Sequence[Probe], executors: list[Executor]) -> RoundCoverage:
        t0 = time.perf_counter()
        queue: asyncio.Queue[tuple[int, Probe]] = asyncio.Queue()
        for index, probe in enumerate(probes):
            queue.put_nowait((index, probe))
        absorber = OrderedAbsorber(self.shard.absorb, self.on_probe)

        async def execute(executor: Executor) -> None:
            deferred: list[int] = []  # replays that wait for a later second of the clock (once, at the end)

            def done(index: int, rollout: Rollout, verdict: Verdict) -> None:
                for step in rollout.steps:
                    self.tool_seconds[step.outcome.tool] += step.outcome.latency_ms / 1000
                absorber.add(index, rollout, verdict)

            while not queue.empty() and not self.given_up:
                index, probe = queue.get_nowait()
                verified = await executor.run_verified(probe, defer=True)
                if verified is None:
                    deferred.append(index)
                    continue
                rollout, verdict = verified
                self._failures.record(rollout.infrastructure_error is not None)
                done(index, rollout, verdict)
                if deferred:  # those whose later second has come: no wait
                    ready = await executor.settle(ready_only=True)
                    for index, (rollout, verdict) in zip(deferred[: len(ready)], ready, strict=True):
                        done(index, rollout, verdict)
                    del deferred[: len(ready)]
            for index, (rollout, verdict) in zip(deferred, await executor.settle(), strict=True):
                done(index, rollout, verdict)

        await asyncio.gather(*(execute(e) for e in executors))
        status, detail = self._failures.round_status()
        coverage = self.shard.finish_round(round_, time.perf_counter() - t0, status=status, detail=detail)
        if self.sink is not None:
            await asyncio.to_thread(self.sink.save_round, self.shard, coverage)
        self._report(coverage)
        return coverage

    def _report(self, coverage: RoundCoverage) -> None:
        self.coverage.append(coverage)
        self._log.info("round_finished", round=coverage.round, probes=coverage.probes, new=coverage.new_entries)
        if self.on_round is not None:
            self.on_round(coverage)
