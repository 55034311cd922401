"""The pools placement: executors, verifiers and inducers as three pools of actors.

A server's sandboxes run on executor hosts (:mod:`toolatlas.actors.executor`), which return each batch's
rollouts unverified, with their digests; a verifier host of the build's pool (:mod:`toolatlas.actors.verifiers`),
taken in turn batch by batch, judges them; the verified rollouts go to the server's shard (its
proposer and inducer), in probe order. Everything else — planning, batching and backpressure,
absorbing in order, a lost shard reopened from its checkpoint — is the split placement's
(:mod:`toolatlas.actors.split`); the rollouts travel between the pools by reference, the driver reads none.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from typing import TYPE_CHECKING

import ray

from toolatlas.actors.calls import START_TIMEOUT_S, answer
from toolatlas.actors.split import SplitPlacement
from toolatlas.config import ServerSpec
from toolatlas.pipeline.checkpoint import ServerStart
from toolatlas.probing.models import Probe

if TYPE_CHECKING:
    from toolatlas.actors.coordinator import RayBuild

__all__ = ["PoolsPlacement"]


class PoolsPlacement(SplitPlacement):
    """Servers over executor, verifier and shard actors (a :class:`~toolatlas.pipeline.driver.Placement`)."""

    def __init__(self, build: RayBuild, rounds: int) -> None:
        super().__init__(build, rounds)
        self.bases: dict[str, list[ray.ObjectRef]] = {}
        """Server → its sandboxes' verifier bases, stored once by Ray for every batch to bring."""
        self.turn = itertools.count()
        self.batches: Counter[int] = Counter()
        """Verifier host → batches it was sent."""

    async def open(self, spec: ServerSpec, start: ServerStart, focus: frozenset[str] | None) -> int:
        first = await super().open(spec, start, focus)
        name = spec.name
        bases = [self.build.hosts[h].basis.remote(name, slot) for slot, h in enumerate(self.hosts[name])]
        await asyncio.gather(*(answer(basis, START_TIMEOUT_S, f"the sandbox of {name}") for basis in bases))
        self.bases[name] = bases
        return first

    def dispatch(self, name: str, slot: int, host: int, probes: list[Probe]) -> tuple[ray.ObjectRef, ray.ObjectRef]:
        summary, rollouts = self.build.hosts[host].execute_many.options(num_returns=2).remote(name, slot, probes)
        verifier = next(self.turn) % len(self.build.verifiers)
        self.batches[verifier] += 1
        return summary, self.build.verifiers[verifier].verify.remote(self.bases[name][slot], rollouts)
