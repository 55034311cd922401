"""``StoreOwner``: the one process that owns an embedded atlas store."""

from __future__ import annotations

from actors.common import actor_workspace
from toolatlas.build.catalogue import open_store


class StoreOwner:
    def __init__(self, config: str, store_path: str | None = None) -> None:
        self.store = open_store(actor_workspace(config, store_path).catalogue)

    def save(self, layers: dict) -> int:
        written = self.store.save(layers)
        self.store.flush()
        return written

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
