"""``StoreOwner``: the one process that owns an embedded atlas store.

Every server's rounds end with a save that must be durable before its checkpoint is written.
Saves are group-committed: each one upserts at once, then waits for a flush that starts after it,
a moment later (:data:`FLUSH_LINGER`), so that one flush covers every save that landed meanwhile.
The coordinator persists rounds off their servers' critical path, so the wait costs no probing
time, and a build of many servers flushes a few times a second instead of once per server and round.
"""

from __future__ import annotations

import asyncio

from toolatlas.actors.calls import STORE_TIMEOUT_S, answer
from toolatlas.actors.common import actor_workspace
from toolatlas.graph.models import Entry
from toolatlas.store.paths import open_store

FLUSH_LINGER = 0.1
"""Seconds a flush waits for more saves to join it."""


class StoreOwner:
    def __init__(self, config: str, store_path: str | None = None) -> None:
        self.store = open_store(actor_workspace(config, store_path).catalogue)
        self._saved = 0
        """Saves upserted so far."""
        self._flushed = 0
        """Saves a completed flush has made durable."""
        self._flushing: asyncio.Future[None] | None = None

    async def save(self, layers: dict) -> int:
        """Upsert records; returns (the count written) once they are flushed to disk."""
        written = self.store.save(layers)
        self._saved += 1
        ticket = self._saved
        while self._flushed < ticket:
            if self._flushing is None or self._flushing.done():
                self._flushing = asyncio.ensure_future(self._flush())
            await asyncio.shield(self._flushing)
        return written

    async def _flush(self) -> None:
        await asyncio.sleep(FLUSH_LINGER)  # saves arriving meanwhile land first and share this flush
        covered = self._saved
        self.store.flush()
        self._flushed = covered

    def server_records(self, server: str) -> dict:
        return self.store.server_records(server)

    def count(self, layer: str) -> int:
        return self.store.count(layer)

    def records(self) -> dict:
        return self.store.records()

    def optimize(self) -> None:
        self.store.optimize()

    def close(self) -> None:
        self.store.close()


class StoreOwnerWriter:
    """A build's records to the store's owning actor (a :class:`~toolatlas.pipeline.driver.RecordWriter`)."""

    def __init__(self, store) -> None:
        self.store = store

    async def server_records(self, server: str) -> dict[str, list]:
        return await answer(self.store.server_records.remote(server), STORE_TIMEOUT_S, f"records of {server}")

    async def save(self, server: str, records: dict[str, list]) -> None:
        await answer(self.store.save.remote(records), STORE_TIMEOUT_S, f"records of {server}")

    async def finish(self) -> list[Entry]:
        await answer(self.store.optimize.remote(), STORE_TIMEOUT_S, "the store's optimisation")
        return (await answer(self.store.records.remote(), STORE_TIMEOUT_S, "the store's records"))["entries"]
