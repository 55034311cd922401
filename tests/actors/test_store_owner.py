"""The store owner's group commit: saves share flushes, and none returns before a flush covers it.

``StoreOwner`` is a plain class (Ray makes it an actor where the coordinator spawns it), so its
async ``save`` is exercised here directly, concurrently, on a real embedded store.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from toolatlas.actors.store import StoreOwner
from toolatlas.graph.models import ToolNode
from toolatlas.testing.catalogues import generate_catalogue


def node(i: int) -> ToolNode:
    return ToolNode(id=f"s.t{i}", server="s", tool=f"t{i}", schema_hash="h", description=f"tool number {i}")


@pytest.fixture()
def owner(tmp_path: Path) -> StoreOwner:
    owner = StoreOwner(str(generate_catalogue(1, tmp_path / "catalogue")))
    yield owner
    owner.close()


class TestGroupCommit:
    async def test_concurrent_saves_share_one_flush(self, owner: StoreOwner, monkeypatch: pytest.MonkeyPatch) -> None:
        """Saves arriving together are flushed once; a later save gets a flush of its own."""
        flushes: list[int] = []
        flush = owner.store.flush
        monkeypatch.setattr(owner.store, "flush", lambda: (flushes.append(1), flush()))
        written = await asyncio.gather(*(owner.save({"tools": [node(i)]}) for i in range(8)))
        assert written == [1] * 8 and len(flushes) == 1
        assert await owner.save({"tools": [node(8)]}) == 1 and len(flushes) == 2
        assert owner.count("tools") == 9

    async def test_no_save_returns_before_a_flush_that_follows_it(
        self, owner: StoreOwner, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Each save's records are upserted, then flushed, before the save returns (even when saves
        arrive while a flush is waiting or running)."""
        events: list[tuple[str, int]] = []
        save, flush = owner.store.save, owner.store.flush
        monkeypatch.setattr(owner.store, "save", lambda layers: (events.append(("upsert", len(events))), save(layers))[1])
        monkeypatch.setattr(owner.store, "flush", lambda: (events.append(("flush", len(events))), flush()))

        async def save_at(i: int, delay: float) -> None:
            await asyncio.sleep(delay)
            await owner.save({"tools": [node(i)]})
            events.append(("returned", i))

        await asyncio.gather(*(save_at(i, 0.04 * i) for i in range(6)))
        for i in range(6):
            upserted = [n for n, (kind, _) in enumerate(events) if kind == "upsert"][i]
            returned = events.index(("returned", i))
            assert any(kind == "flush" for kind, _ in events[upserted:returned]), events
        assert sum(kind == "flush" for kind, _ in events) < 6
