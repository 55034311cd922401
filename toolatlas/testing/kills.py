"""A build's persistence that dies on request: the test double of a process killed mid-build.

A :class:`KillSwitch` counts a build's durable writes and, from the ``kill_at``-th on, refuses every
one of them by raising :class:`BuildKilled`. What is on disk afterwards is exactly what a process
killed between two writes leaves behind; the build itself stops, since every server's next write
raises. It is wired into a build's two kinds of writes:

- :class:`KillingSink`, a real :class:`~toolatlas.pipeline.persistence.StoreSink` (the in-process
  build: store upserts and flushes, coverage rows, openings, checkpoints, the coverage log and
  checkpoints of a new build);
- :class:`KillingFiles` and :class:`KillingWriter` for a build whose records go elsewhere (the Ray
  build's store-owning actor): the build's files in this process, and each save of a round's records
  through any :class:`~toolatlas.pipeline.driver.RecordWriter`, counted by one switch.
"""

from __future__ import annotations

import threading

from toolatlas.errors import ToolAtlasError
from toolatlas.graph.models import Entry
from toolatlas.pipeline.driver import RecordWriter
from toolatlas.pipeline.persistence import BuildFiles, StoreSink
from toolatlas.store.atlas import AtlasStore
from toolatlas.store.paths import AtlasPaths

__all__ = ["BuildKilled", "KillSwitch", "KillingFiles", "KillingSink", "KillingWriter"]


class BuildKilled(ToolAtlasError):
    """The simulated kill: raised instead of a durable write from the chosen one on."""


class KillSwitch:
    """Counts durable writes; refuses them from the ``kill_at``-th on (counted from 0; None: never)."""

    def __init__(self, kill_at: int | None = None) -> None:
        self.kill_at = kill_at
        self.writes: list[tuple[str, str | None]] = []
        """Every durable write made, in order: (step, server)."""
        self._lock = threading.Lock()

    @property
    def killed(self) -> bool:
        return self.kill_at is not None and len(self.writes) >= self.kill_at

    def write(self, step: str, server: str | None = None) -> None:
        """Record one durable write about to be made, or raise :class:`BuildKilled` instead."""
        with self._lock:
            if self.killed:
                raise BuildKilled(f"killed before write {self.kill_at} ({step} of {server})")
            self.writes.append((step, server))


class KillingSink(StoreSink):
    """A store sink killed before its ``kill_at``-th durable write."""

    def __init__(self, store: AtlasStore, paths: AtlasPaths, kill_at: int | None = None) -> None:
        super().__init__(store, paths)
        self.switch = KillSwitch(kill_at)

    @property
    def writes(self) -> list[tuple[str, str | None]]:
        return self.switch.writes

    def _durable(self, step: str, server: str | None = None) -> None:
        self.switch.write(step, server)


class KillingFiles(BuildFiles):
    """The build's files, each write counted by ``switch``."""

    def __init__(self, paths: AtlasPaths, switch: KillSwitch) -> None:
        super().__init__(paths)
        self.switch = switch

    def _durable(self, step: str, server: str | None = None) -> None:
        self.switch.write(step, server)


class KillingWriter:
    """A :class:`~toolatlas.pipeline.driver.RecordWriter` whose saves are counted by ``switch``."""

    def __init__(self, writer: RecordWriter, switch: KillSwitch) -> None:
        self.writer = writer
        self.switch = switch

    async def server_records(self, server: str) -> dict[str, list]:
        return await self.writer.server_records(server)

    async def save(self, server: str, records: dict[str, list]) -> None:
        self.switch.write("records", server)
        await self.writer.save(server, records)

    async def finish(self) -> list[Entry]:
        return await self.writer.finish()
