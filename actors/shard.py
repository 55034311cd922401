"""``ShardActor``: the proposer and inducer roles of a shard of servers — each server's single writer."""

from __future__ import annotations

from actors.common import actor_workspace
from toolatlas.build.shard import ServerShard
from toolatlas.graph.inducer import InductionDelta
from toolatlas.graph.state import RoundCoverage
from toolatlas.models import ToolSpec
from toolatlas.probing.models import Probe, Rollout, Verdict


class ShardActor:
    def __init__(self, config: str, frontier: str, store_path: str | None = None) -> None:
        self.workspace = actor_workspace(config, store_path)
        self.frontier = frontier
        self.shards: dict[str, ServerShard] = {}

    def _shard(self, server: str) -> ServerShard:
        if server not in self.shards:
            catalogue = self.workspace.catalogue
            self.shards[server] = ServerShard(self.workspace, catalogue.server(server), catalogue.build, self.frontier)
        return self.shards[server]

    def prepare(self, server: str, tools: list[ToolSpec], stored: dict | None, checkpoint: dict | None) -> int:
        """Start (or restore) a server's shard; the first round still to run."""
        shard = self._shard(server)
        if checkpoint is not None:
            shard.restore(tools, checkpoint)
            return shard.completed_round + 1
        shard.prepare(tools, stored)
        return 0

    def plan(self, server: str, round_: int) -> list[Probe]:
        return self._shard(server).plan(round_)

    def absorb(self, server: str, rollout: Rollout, verdict: Verdict) -> InductionDelta:
        return self._shard(server).absorb(rollout, verdict)

    def absorb_many(self, server: str, batch: list[tuple[Rollout, Verdict]]) -> int:
        """Absorb consecutive verdicts in the order given (one round trip for many)."""
        shard = self._shard(server)
        for rollout, verdict in batch:
            shard.absorb(rollout, verdict)
        return len(batch)

    def finish_round(
        self, server: str, round_: int, seconds: float, status: str, detail: str
    ) -> tuple[RoundCoverage, dict, dict]:
        """The round's coverage row, the records it changed, and the checkpoint after it."""
        shard = self._shard(server)
        coverage = shard.finish_round(round_, seconds, status=status, detail=detail)
        return coverage, shard.take_dirty(), shard.checkpoint()

    def forget(self, server: str) -> None:
        self.shards.pop(server, None)
