"""``ShardActor``: the proposer and inducer roles of a shard of servers — each server's single writer.

With an LLM endpoint, the shard also runs each server's LLM rounds (:mod:`toolatlas.pipeline.method`):
proposals, agent rollouts in sandboxes of its own, judging and LLM induction — one round per call,
so the coordinator persists every round's records and checkpoint as it does for offline rounds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolatlas.actors.common import actor_workspace
from toolatlas.graph.inducer import InductionDelta
from toolatlas.llm.ledger import UsageLedger
from toolatlas.models import ToolSpec
from toolatlas.pipeline.checkpoint import RoundRecords, RoundResult, ShardCheckpoint
from toolatlas.pipeline.shard import ServerShard
from toolatlas.probing.models import Probe, Rollout, Verdict

if TYPE_CHECKING:
    from toolatlas.llm import LlmClient


class ShardActor:
    def __init__(self, config: str, frontier: str, store_path: str | None = None) -> None:
        self.workspace = actor_workspace(config, store_path)
        self.frontier = frontier
        self.shards: dict[str, ServerShard] = {}
        self.stages: dict = {}
        self.llm: LlmClient | None = None

    def _shard(self, server: str) -> ServerShard:
        if server not in self.shards:
            catalogue = self.workspace.catalogue
            self.shards[server] = ServerShard(self.workspace, catalogue.server(server), catalogue.build, self.frontier)
        return self.shards[server]

    def prepare(
        self, server: str, tools: list[ToolSpec], stored: RoundRecords | None, checkpoint: ShardCheckpoint | None,
        focus: frozenset[str] | None = None,
    ) -> int:
        """Start (or restore) a server's shard, probing only ``focus`` if given; the first round still to run."""
        return self._shard(server).open(tools, stored.layers() if stored is not None else None, checkpoint, focus)

    def plan(self, server: str, round_: int) -> list[Probe]:
        return self._shard(server).plan(round_)

    def absorb(self, server: str, rollout: Rollout, verdict: Verdict) -> InductionDelta:
        return self._shard(server).absorb(rollout, verdict)

    def absorb_many(self, server: str, *batches: list[tuple[Rollout, Verdict]]) -> int:
        """Absorb consecutive batches of verified rollouts in the order given (one round trip for many)."""
        shard = self._shard(server)
        absorbed = 0
        for batch in batches:
            for rollout, verdict in batch:
                shard.absorb(rollout, verdict)
            absorbed += len(batch)
        return absorbed

    def finish_round(self, server: str, round_: int, seconds: float, status: str, detail: str) -> RoundResult:
        """The round's coverage row, the records it changed, and the checkpoint after it."""
        shard = self._shard(server)
        coverage = shard.finish_round(round_, seconds, status=status, detail=detail)
        checkpoint = shard.checkpoint().model_dump_json()
        return RoundResult(coverage=coverage, records=RoundRecords(**shard.take_dirty()), checkpoint=checkpoint)

    # -- the LLM method -----------------------------------------------------------------------------

    async def method_round(self, server: str, round_: int, bootstrap: bool) -> RoundResult:
        """One LLM round of ``server`` (its stage is started on first use): like :meth:`finish_round`'s
        result, with the round's raw trajectories (JSON lines) for the coordinator to keep."""
        from toolatlas.llm import LlmClient
        from toolatlas.pipeline.method import MethodStage

        if self.llm is None:
            assert self.workspace.catalogue.llm is not None, "an LLM round needs the catalogue's [llm] section"
            self.llm = LlmClient(self.workspace.catalogue.llm)
        shard = self._shard(server)
        if server not in self.stages:
            self.stages[server] = await MethodStage.standalone(self.workspace, shard, self.llm)
        stage = self.stages[server]
        coverage = await stage.run_round(round_, bootstrap=bootstrap)
        checkpoint = shard.checkpoint().model_dump_json()
        return RoundResult(coverage=coverage, records=RoundRecords(**shard.take_dirty()), checkpoint=checkpoint,
                           trajectories=list(stage.trajectories))

    async def close_method(self, server: str) -> None:
        stage = self.stages.pop(server, None)
        if stage is not None:
            await stage.close()

    def usage(self) -> UsageLedger:
        """This actor's LLM usage so far (the coordinator merges every actor's)."""
        return self.llm.ledger if self.llm is not None else UsageLedger()

    def forget(self, server: str) -> None:
        self.shards.pop(server, None)
