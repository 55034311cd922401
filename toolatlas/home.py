"""The project-local working area (``.toolatlas/``): runtimes, snapshots, instances, logs, clusters."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Home"]


@dataclass(frozen=True)
class Home:
    """Where ToolAtlas keeps what it provisions. ``$TOOLATLAS_HOME`` overrides ``./.toolatlas``."""

    root: Path

    @classmethod
    def default(cls) -> Home:
        configured = os.environ.get("TOOLATLAS_HOME")
        return cls(Path(configured).expanduser().resolve() if configured else (Path.cwd() / ".toolatlas").resolve())

    @property
    def runtimes(self) -> Path:
        """Installed server runtimes: ``npm/<pkg>@<ver>/`` prefixes and ``py/<name>/`` venvs."""
        return self.root / "runtimes"

    @property
    def snapshots(self) -> Path:
        """Materialised snapshots, content-addressed per server."""
        return self.root / "snapshots"

    @property
    def instances(self) -> Path:
        """This process's live and frozen environment instances (ephemeral): a folder of its own under
        ``instances/``, locked while the process lives; those of killed processes are swept
        (:mod:`toolatlas.leases`)."""
        from toolatlas.leases import owned_instances

        return owned_instances(self.root / "instances")

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def postgres(self) -> Path:
        return self.root / "postgres"

    def ensure(self) -> Home:
        for path in (self.root, self.runtimes, self.snapshots, self.instances, self.logs):
            path.mkdir(parents=True, exist_ok=True)
        return self
