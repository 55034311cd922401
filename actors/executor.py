"""``ExecutorHost``: runs executors — one sandbox (environment instance + server process) each.

A host keeps the sandboxes of the (server, slot) pairs routed to it and runs their probes
concurrently (an async actor); each sandbox runs one probe at a time. Sandboxes are started on
first use, so a host that Ray restarts after a crash rebuilds them when the retried call arrives.
A host installs missing server runtimes on its node before starting a server (idempotent).

The verifier role runs here too, right after each probe, next to the state it reads: shipping a
rollout to a verifier process costs more than verifying it (its digests are most of its bytes).
A batch comes back as two objects: a small :class:`BatchSummary` the coordinator reads, and the
verified rollouts, which it hands on to the server's shard unread.
"""

from __future__ import annotations

import asyncio
import os

import ray
import structlog

from actors.common import actor_workspace
from toolatlas.models import ToolSpec
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import BatchSummary, Probe, Rollout, Verdict
from toolatlas.runtimes import install

log = structlog.get_logger(__name__)


class ExecutorHost:
    def __init__(self, config: str, store_path: str | None = None) -> None:
        self.workspace = actor_workspace(config, store_path)
        self.executors: dict[tuple[str, int], Executor] = {}
        self.locks: dict[tuple[str, int], asyncio.Lock] = {}

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
            verified = [await executor.run_verified(probe) for probe in probes]
        return BatchSummary.of([rollout for rollout, _ in verified]), verified

    async def stop(self, server: str) -> None:
        for key in [k for k in self.executors if k[0] == server]:
            await self.executors.pop(key).close()

    async def close(self) -> None:
        await asyncio.gather(*(e.close() for e in self.executors.values()), return_exceptions=True)
        self.executors.clear()
