"""``ExecutorHost``: runs executors — one sandbox (environment instance + server process) each.

A host keeps the sandboxes of the (server, slot) pairs routed to it and runs their probes
concurrently (an async actor); each sandbox runs one probe at a time. Sandboxes are started on
first use, so a host that Ray restarts after a crash rebuilds them when the retried call arrives.
A host installs missing server runtimes on its node before starting a server (idempotent).

The verifier role runs here too (split topology), right after each probe, next to the state it
reads — or, in the pools topology, in a pool of its own (:mod:`toolatlas.actors.verifiers`), which gets the
rollouts with their digests (:meth:`execute_many`). A batch comes back as two objects: a small
:class:`BatchSummary` the coordinator reads, and the rollouts, which it hands on unread.

**Colocated servers.** A server with a single executor can be built here whole (:meth:`open`,
:meth:`round`): its proposer, executor, verifier and inducer roles run in this process around its
one sandbox — the in-process engine's :class:`~toolatlas.pipeline.server.ServerBuild` — and a round
is one call, which returns its coverage row, changed records and checkpoint. Nothing is shipped
per probe (no rollouts to a shard, no batch summaries to the driver); the host stays the server's
single writer. A host that Ray restarts has lost its servers' graphs: a round called for a server
it does not hold raises :class:`ServerNotOpen`, and the coordinator reopens the server from its
last checkpoint and runs the round again.
"""

from __future__ import annotations

import asyncio
import os
import time

import ray
import structlog

from toolatlas.actors.common import actor_workspace
from toolatlas.errors import ToolAtlasError
from toolatlas.models import ToolSpec
from toolatlas.pipeline.checkpoint import RoundRecords, RoundResult, ShardCheckpoint
from toolatlas.pipeline.server import ServerBuild
from toolatlas.pipeline.verifying import VerifierBasis
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import BatchSummary, Probe, Rollout, Verdict
from toolatlas.runtimes import install

log = structlog.get_logger(__name__)


class ServerNotOpen(ToolAtlasError):
    """A colocated round was asked of a host that does not hold the server (Ray restarted it)."""


class ExecutorHost:
    def __init__(self, config: str, store_path: str | None = None) -> None:
        self.workspace = actor_workspace(config, store_path)
        self.executors: dict[tuple[str, int], Executor] = {}
        self.locks: dict[tuple[str, int], asyncio.Lock] = {}
        self.builds: dict[str, ServerBuild] = {}
        """Colocated servers: the whole build of each (sandbox, shard) lives here."""
        self.ended: dict[str, list[float]] = {}
        """Colocated servers: when each probe of the round under way ended (``BatchSummary.ended_at``)."""

    def node(self) -> dict[str, str | int]:
        context = ray.get_runtime_context()
        return {"node_id": context.get_node_id(), "pid": os.getpid()}

    async def _executor(self, server: str, slot: int) -> Executor:
        key = (server, slot)
        lock = self.locks.setdefault(key, asyncio.Lock())
        async with lock:
            if key not in self.executors:
                spec = self.workspace.catalogue.server(server)
                await asyncio.to_thread(install, spec, self.workspace.home)
                executor = Executor(self.workspace.sandbox(spec), f"{server}/{slot}@{os.getpid()}")
                await executor.start()
                self.executors[key] = executor
            return self.executors[key]

    async def start(self, server: str, slot: int) -> list[ToolSpec]:
        """Start the sandbox of (server, slot); its tools (raises ServerStartError if it cannot start)."""
        return (await self._executor(server, slot)).sandbox.tools

    async def run_many(
        self, server: str, slot: int, probes: list[Probe]
    ) -> tuple[BatchSummary, list[tuple[Rollout, Verdict]]]:
        """Run and verify probes one after the other in the (server, slot) sandbox (call with
        ``num_returns=2``: the summary and the verified rollouts are separate objects)."""
        executor = await self._executor(server, slot)
        async with self.locks[(server, slot)]:
            complete, ended = await executor.run_batch(probes)
        return BatchSummary.of([rollout for rollout, _ in complete], ended), complete

    async def execute_many(self, server: str, slot: int, probes: list[Probe]) -> tuple[BatchSummary, list[Rollout]]:
        """:meth:`run_many` for a verifier elsewhere: the rollouts unverified, with their digests."""
        executor = await self._executor(server, slot)
        async with self.locks[(server, slot)]:
            rollouts, ended = await executor.execute_batch(probes)
        return BatchSummary.of(rollouts, ended), rollouts

    async def basis(self, server: str, slot: int) -> VerifierBasis:
        """What a verifier reads of the (server, slot) sandbox besides its rollouts."""
        return VerifierBasis.of(await self._executor(server, slot), server, slot)

    # -- colocated servers --------------------------------------------------------------------------

    async def open(
        self, server: str, frontier: str, stored: RoundRecords | None, checkpoint: ShardCheckpoint | None,
        focus: frozenset[str] | None = None,
    ) -> tuple[list[ToolSpec], int]:
        """Start a colocated server here — its sandbox and its shard, restored from ``checkpoint`` or
        seeded with what earlier builds ``stored`` and probing only ``focus`` if given — replacing any
        it had; its tools and the first round still to run (raises ServerStartError if it cannot start)."""
        await self._drop(server)
        catalogue = self.workspace.catalogue
        spec = catalogue.server(server)
        await asyncio.to_thread(install, spec, self.workspace.home)
        ended: list[float] = []
        settings = catalogue.build.model_copy(update={"executors_per_server": 1})
        build = ServerBuild(self.workspace, spec, settings, frontier, on_probe=lambda *_: ended.append(time.time()))
        tools = await build.start()
        try:
            layers = stored.layers() if stored is not None else None
            first = await asyncio.to_thread(build.shard.open, tools, layers, checkpoint, focus)
        except BaseException:
            await build.close()
            raise
        self.builds[server], self.ended[server] = build, ended
        return tools, first

    async def round(self, server: str, round_: int) -> RoundResult:
        """Run a colocated server's round: its coverage row, its calls and resets, the records it
        changed, and the checkpoint after it."""
        build = self.builds.get(server)
        if build is None:
            raise ServerNotOpen(f"{server} is not open on this host (restarted?): reopen it from its checkpoint")
        executor = build.executors[0]
        resets = executor.resets
        ended = self.ended[server]
        ended.clear()  # a round redone after an error starts its count again
        coverage = await build.run_round(round_)
        checkpoint = await asyncio.to_thread(lambda: build.shard.checkpoint().model_dump_json())
        calls = sum(coverage.outcome_mix.values())
        summary = BatchSummary(
            infrastructure_errors=[], calls=calls, resets=executor.resets - resets, ended_at=list(ended)
        )
        records = RoundRecords(**build.shard.take_dirty())
        return RoundResult(coverage=coverage, records=records, checkpoint=checkpoint, summary=summary)

    async def _drop(self, server: str) -> None:
        build = self.builds.pop(server, None)
        self.ended.pop(server, None)
        if build is not None:
            await build.close()

    async def stop(self, server: str) -> None:
        for key in [k for k in self.executors if k[0] == server]:
            await self.executors.pop(key).close()
        await self._drop(server)

    async def close(self) -> None:
        await asyncio.gather(
            *(e.close() for e in self.executors.values()), *(b.close() for b in self.builds.values()),
            return_exceptions=True,
        )
        self.executors.clear()
        self.builds.clear()
        self.ended.clear()
