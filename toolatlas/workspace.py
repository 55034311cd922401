"""A catalogue made concrete on this machine: environments, snapshots, runtimes and sandboxes per server."""

from __future__ import annotations

import threading
from pathlib import Path

from toolatlas.config import Catalogue, CommandEnv, NoEnv, ServerSpec
from toolatlas.confinement import confiner_for
from toolatlas.environments import Environment, Snapshot, environment_for
from toolatlas.errors import SnapshotError
from toolatlas.home import Home
from toolatlas.runtimes import ResolvedRuntime, resolve
from toolatlas.sandbox import Sandbox

__all__ = ["Workspace"]


class Workspace:
    """Resolves each server of a catalogue into what a sandbox needs; snapshots are built once and cached."""

    def __init__(self, catalogue: Catalogue, home: Home | None = None, *, confine: bool = True) -> None:
        self.catalogue = catalogue
        self.home = (home or Home.default()).ensure()
        self.confine = confine
        """Run stdio servers in the OS sandbox (always, but for servers the catalogue opts out);
        False only to measure what the sandbox costs (``benchmarks/sandbox_overhead.py``)."""
        self._environments: dict[str, Environment] = {}
        self._snapshots: dict[str, Snapshot] = {}
        self._lock = threading.Lock()

    def environment(self, server: ServerSpec) -> Environment:
        with self._lock:
            if server.name not in self._environments:
                self._environments[server.name] = environment_for(
                    server.environment,
                    base_dir=self.catalogue.base_dir,
                    home=self.home,
                    postgres=self.catalogue.postgres,
                )
            return self._environments[server.name]

    def snapshot(self, server: ServerSpec) -> Snapshot:
        """The server's snapshot, materialised under ``<home>/snapshots/<server>/`` (idempotent)."""
        if server.name in self._snapshots:
            return self._snapshots[server.name]
        spec = server.environment
        environment = self.environment(server)
        source: Path | None = None
        seed: str | None = None
        if not isinstance(spec, NoEnv | CommandEnv):
            seed = spec.seed
            if spec.snapshot is not None:
                source = self.catalogue.resolve(spec.snapshot)
        try:
            snapshot = environment.materialise(source, seed, self.home.snapshots / server.name)
        except SnapshotError as exc:
            field = "snapshot" if getattr(spec, "snapshot", None) else "seed"
            where = f"{self.catalogue.source}: " if self.catalogue.source else ""
            raise SnapshotError(f"{where}servers[{server.name}].environment.{field}: {exc}") from exc
        self._snapshots[server.name] = snapshot
        return snapshot

    def runtime(self, server: ServerSpec) -> ResolvedRuntime:
        return resolve(server, self.home)

    def sandbox(self, server: ServerSpec | str) -> Sandbox:
        spec = self.catalogue.server(server) if isinstance(server, str) else server
        return Sandbox(
            spec,
            self.environment(spec),
            self.snapshot(spec),
            self.runtime(spec),
            instances_dir=self.home.instances,
            logs_dir=self.home.logs,
            confiner=confiner_for(spec, confine=self.confine),
            base_dir=self.catalogue.base_dir,
            source=self.catalogue.source,
        )
