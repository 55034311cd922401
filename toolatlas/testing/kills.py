"""A build's persistence that dies on request: the test double of a process killed mid-build.

:class:`KillingSink` is a real :class:`~toolatlas.pipeline.persistence.StoreSink` that counts the
build's durable writes (store upserts and flushes, coverage rows, openings, checkpoints, the coverage
log and checkpoints of a new build) and, from the ``kill_at``-th on, refuses every one of them by
raising :class:`BuildKilled`. What is on disk afterwards is exactly what a process killed between
two writes leaves behind; the build itself stops, since every server's next write raises.
"""

from __future__ import annotations

import threading

from toolatlas.errors import ToolAtlasError
from toolatlas.pipeline.persistence import StoreSink
from toolatlas.store.atlas import AtlasStore
from toolatlas.store.paths import AtlasPaths

__all__ = ["BuildKilled", "KillingSink"]


class BuildKilled(ToolAtlasError):
    """The simulated kill: raised instead of a durable write from the chosen one on."""


class KillingSink(StoreSink):
    """A store sink killed before its ``kill_at``-th durable write (counted from 0; None: never)."""

    def __init__(self, store: AtlasStore, paths: AtlasPaths, kill_at: int | None = None) -> None:
        super().__init__(store, paths)
        self.kill_at = kill_at
        self.writes: list[tuple[str, str | None]] = []
        """Every durable write made, in order: (step, server)."""
        self._count_lock = threading.Lock()

    @property
    def killed(self) -> bool:
        return self.kill_at is not None and len(self.writes) >= self.kill_at

    def _durable(self, step: str, server: str | None = None) -> None:
        with self._count_lock:
            if self.killed:
                raise BuildKilled(f"killed before write {self.kill_at} ({step} of {server})")
            self.writes.append((step, server))
