"""The split placement: a server's sandboxes on several executor hosts, its graph on a shard actor.

A round is planned by the server's shard, its probes run in batches on the server's hosts
(:mod:`toolatlas.pipeline.batches`: their size, the next already queued while one runs), verified where
they ran, and the verified rollouts go by reference to the shard, which absorbs them in probe order
(the driver reads only each batch's small summary). Batches in flight are bounded across the build
(the build's gate: backpressure) and consumed in completion order. A shard that dies is lost: the
driver hears :class:`~toolatlas.errors.RoundLost` and reopens the server from its last checkpoint.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import TYPE_CHECKING

import ray
from ray.exceptions import ActorUnavailableError, RayActorError, RayTaskError

from toolatlas.actors.calls import (
    BATCH_TIMEOUT_S,
    ROUND_TIMEOUT_S,
    SHARD_TIMEOUT_S,
    START_TIMEOUT_S,
    STOP_TIMEOUT_S,
    answer,
    answer_surviving,
    lost,
    raised,
)
from toolatlas.config import ServerSpec
from toolatlas.errors import RoundLost
from toolatlas.pipeline.batches import PREFETCH, FailureStreak, InOrder, batch_size, round_summary
from toolatlas.pipeline.checkpoint import RoundResult, ServerStart
from toolatlas.probing.models import BatchSummary, Probe

if TYPE_CHECKING:
    from toolatlas.actors.coordinator import RayBuild

__all__ = ["SplitPlacement"]


class SplitPlacement:
    """Servers over executor hosts and shard actors (a :class:`~toolatlas.pipeline.driver.Placement`)."""

    def __init__(self, build: RayBuild, rounds: int) -> None:
        self.build = build
        self.rounds = rounds
        self.hosts: dict[str, list[int]] = {}
        self.failures: dict[str, int] = {}
        """Server → rollouts its sandboxes failed in a row by the end of its last finished round."""

    async def open(self, spec: ServerSpec, start: ServerStart, focus: frozenset[str] | None) -> int:
        name = spec.name
        hosts = self.hosts.setdefault(name, self.build.slots(spec))
        try:
            starts = await asyncio.gather(*(answer(self.build.hosts[h].start.remote(name, slot), START_TIMEOUT_S,
                                                   f"start of {name}") for slot, h in enumerate(hosts)))
        except (RayTaskError, RayActorError) as exc:
            raise raised(exc) from exc
        shard = self.build.shard_of(name)
        first = await answer_surviving(shard.prepare, name, starts[0], start.stored, start.checkpoint, focus,
                                       timeout=START_TIMEOUT_S, what=f"preparing {name}")
        self.build.ready(name, hosts)
        return first

    async def run_round(self, server: str, round_: int) -> RoundResult:
        shard = self.build.shard_of(server)
        try:
            if round_ > self.rounds:  # the LLM method's rounds run on the shard, with sandboxes of its own
                await self._stop(server)
                return await answer(shard.method_round.remote(server, round_, round_ == self.rounds + 1),
                                    ROUND_TIMEOUT_S, f"LLM round {round_} of {server}")
            return await self._round(server, shard, round_)
        except (RayTaskError, RayActorError, ActorUnavailableError) as exc:
            if lost(exc):
                raise RoundLost(f"the shard of {server} was lost in round {round_}") from exc
            raise

    async def _round(self, name: str, shard, round_: int) -> RoundResult:
        t0 = time.perf_counter()
        hosts = self.hosts[name]
        probes: list[Probe] = await answer(shard.plan.remote(name, round_), SHARD_TIMEOUT_S, f"plan of {name}")
        queue = deque(enumerate(probes))
        size = batch_size(len(probes), len(hosts))
        order: InOrder[ray.ObjectRef] = InOrder()
        due: list[ray.ObjectRef] = []
        """Verified batches due at the shard in probe order (references: the driver never reads them)."""
        arrived = asyncio.Event()
        failures = FailureStreak(self.failures.get(name, 0))
        batches: list[BatchSummary] = []
        gate = self.build.gate

        def more() -> bool:
            return bool(queue) and not failures.given_up

        async def execute(slot: int, host: int) -> None:
            window: deque[tuple[int, int, ray.ObjectRef, ray.ObjectRef, float]] = deque()
            try:
                while window or more():
                    while len(window) < PREFETCH and more():
                        if window and gate.locked():
                            break  # never wait for a second permit while holding one: consume first (no deadlock)
                        batch = [queue.popleft() for _ in range(min(size, len(queue)))]
                        await gate.acquire()
                        summary, verified = self.dispatch(name, slot, host, [probe for _, probe in batch])
                        window.append((batch[0][0], len(batch), summary, verified, time.perf_counter()))
                    first, count, summary, verified, sent = window[0]
                    done: BatchSummary = await answer(summary, BATCH_TIMEOUT_S, f"a batch of {name}")
                    window.popleft()
                    gate.release()
                    for failed in done.infrastructure_errors:
                        failures.record(failed)
                    batches.append(done)
                    self.build.probe_log.record(sent, count, done)
                    due.extend(order.add(first, count, verified))
                    arrived.set()
            finally:
                for _ in window:  # batches abandoned by an error: their permits go back
                    gate.release()

        executing = asyncio.ensure_future(asyncio.gather(*(execute(slot, host) for slot, host in enumerate(hosts))))
        try:
            while True:  # absorb in probe order: every batch due, in one call
                if due:
                    ready, due[:] = due[:], []
                    await answer(shard.absorb_many.remote(name, *ready), SHARD_TIMEOUT_S, f"absorbing of {name}")
                    continue
                if executing.done():
                    break
                arrived.clear()
                waiter = asyncio.ensure_future(arrived.wait())
                await asyncio.wait({waiter, executing}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
            await executing
        finally:
            executing.cancel()
        self.failures[name] = failures.count
        result: RoundResult = await answer(shard.finish_round.remote(
            name, round_, time.perf_counter() - t0, *failures.round_status()), SHARD_TIMEOUT_S, f"round {round_} of {name}")
        return result.model_copy(update={"summary": round_summary(batches)})

    def dispatch(self, name: str, slot: int, host: int, probes: list[Probe]) -> tuple[ray.ObjectRef, ray.ObjectRef]:
        """Send a batch to its executor host: its summary, and its verified rollouts (references)."""
        return self.build.hosts[host].run_many.options(num_returns=2).remote(name, slot, probes)

    async def _stop(self, server: str) -> None:
        await asyncio.gather(*(answer(self.build.hosts[h].stop.remote(server), STOP_TIMEOUT_S, f"stop of {server}")
                               for h in set(self.hosts.get(server, []))), return_exceptions=True)

    async def close(self, server: str) -> None:
        await self._stop(server)
        shard = self.build.shard_of(server)
        try:
            await answer(shard.close_method.remote(server), STOP_TIMEOUT_S, f"the LLM stage of {server}")
        except (RayActorError, ActorUnavailableError):
            pass  # a lost shard holds nothing of the server any more
