"""The colocated placement: each server built whole by the executor host that owns its one sandbox.

A round is one call to the host (:meth:`ExecutorHost.round`), which returns the round's
:class:`~toolatlas.pipeline.checkpoint.RoundResult`; nothing travels per probe. A host that Ray
restarted no longer holds the server (:class:`ServerNotOpen`), and one that died is lost: either
way the driver hears :class:`~toolatlas.errors.RoundLost` and reopens the server from its last
checkpoint. The LLM method's rounds run on the server's shard actor, started from the checkpoint
of the last offline round.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ray.exceptions import ActorUnavailableError, RayActorError, RayTaskError

from toolatlas.actors.calls import (
    ROUND_TIMEOUT_S,
    START_TIMEOUT_S,
    STOP_TIMEOUT_S,
    answer,
    answer_surviving,
    lost,
    raised,
)
from toolatlas.actors.executor import ServerNotOpen
from toolatlas.config import ServerSpec
from toolatlas.errors import RoundLost
from toolatlas.pipeline.checkpoint import RoundResult, ServerStart, ShardCheckpoint

if TYPE_CHECKING:
    from toolatlas.actors.coordinator import RayBuild

__all__ = ["ColocatedPlacement"]


class ColocatedPlacement:
    """Servers on executor hosts, one call per round (a :class:`~toolatlas.pipeline.driver.Placement`)."""

    def __init__(self, build: RayBuild, rounds: int) -> None:
        self.build = build
        self.rounds = rounds
        self.host: dict[str, int] = {}
        self.tools: dict[str, list] = {}
        self.last: dict[str, str] = {}
        """Server → its last round's checkpoint (JSON): where its LLM rounds start."""
        self.method: set[str] = set()
        """Servers whose LLM rounds are under way on their shard."""

    async def open(self, spec: ServerSpec, start: ServerStart, focus: frozenset[str] | None) -> int:
        name = spec.name
        index = self.host.setdefault(name, self.build.slots(spec)[0])
        host = self.build.hosts[index]
        call = (host.open, name, self.build.frontier, start.stored, start.checkpoint, focus)
        try:
            tools, first = await answer_surviving(*call, timeout=START_TIMEOUT_S, what=f"opening of {name}")
        except RayTaskError as exc:
            raise raised(exc) from exc
        self.tools[name] = tools
        if start.checkpoint is not None:
            self.last[name] = start.checkpoint.model_dump_json()
        self.build.ready(name, [index])
        return first

    async def run_round(self, server: str, round_: int) -> RoundResult:
        if round_ > self.rounds:
            return await self._method_round(server, round_)
        host = self.build.hosts[self.host[server]]
        try:
            async with self.build.gate:
                sent = time.perf_counter()
                result: RoundResult = await answer(host.round.remote(server, round_), ROUND_TIMEOUT_S,
                                                   f"round {round_} of {server}")
        except (RayTaskError, RayActorError, ActorUnavailableError) as exc:
            if lost(exc, or_raised=ServerNotOpen):
                raise RoundLost(f"the host of {server} was lost in round {round_}") from exc
            raise
        assert result.summary is not None, "a colocated round reports its calls"
        self.build.probe_log.record(sent, result.coverage.probes, result.summary)
        self.last[server] = result.checkpoint
        return result

    async def _method_round(self, server: str, round_: int) -> RoundResult:
        shard = self.build.shard_of(server)
        if server not in self.method:  # the server moves from its host to its shard, from its last checkpoint
            await answer(self.build.hosts[self.host[server]].stop.remote(server), STOP_TIMEOUT_S, f"stop of {server}")
            checkpoint = ShardCheckpoint.model_validate_json(self.last[server])
            await answer(shard.prepare.remote(server, self.tools[server], None, checkpoint), START_TIMEOUT_S,
                         f"the LLM rounds' shard of {server}")
            self.method.add(server)
        return await answer(shard.method_round.remote(server, round_, round_ == self.rounds + 1), ROUND_TIMEOUT_S,
                            f"LLM round {round_} of {server}")

    async def close(self, server: str) -> None:
        if server in self.method:
            self.method.discard(server)
            await answer(self.build.shard_of(server).close_method.remote(server), STOP_TIMEOUT_S, f"LLM stage of {server}")
        if server in self.host:
            host = self.build.hosts[self.host[server]]
            try:
                await answer(host.stop.remote(server), STOP_TIMEOUT_S, f"stop of {server}")
            except (RayActorError, ActorUnavailableError):
                pass  # a lost host holds nothing of the server any more
