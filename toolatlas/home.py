"""The project-local working area (``.toolatlas/``): runtimes, snapshots, instances, logs, clusters."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from toolatlas.errors import ToolAtlasError

__all__ = ["Home"]


def _private_temporary_folder() -> Path:
    """This user's folder in the system's temporary folder, created readable by this user only; an
    error if it exists as anything else (a link, or another user's)."""
    folder = Path(tempfile.gettempdir()).resolve() / f"toolatlas-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ToolAtlasError(f"{folder} is not a private folder of this user: set $TOOLATLAS_INSTANCES to a folder "
                             "for the environment instances")
    return folder


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
    def instances_root(self) -> Path:
        """Where every process's instance folders live: ``instances/`` in the working area, unless a
        folder on the way to it is hidden (``./.toolatlas`` is) — a server that refuses or skips hidden
        paths (a notes vault, a search that ignores dot-folders) would find no state there — then this
        working area's own folder under the system's temporary folder. ``$TOOLATLAS_INSTANCES`` sets it."""
        configured = os.environ.get("TOOLATLAS_INSTANCES")
        if configured:
            return Path(configured).expanduser().resolve()
        if not any(part.startswith(".") for part in self.root.parts):
            return self.root / "instances"
        area = hashlib.sha256(str(self.root).encode()).hexdigest()[:12]
        return _private_temporary_folder() / area / "instances"

    @property
    def instances(self) -> Path:
        """This process's live and frozen environment instances (ephemeral): a folder of its own under
        :attr:`instances_root`, locked while the process lives; those of killed processes are swept
        (:mod:`toolatlas.leases`)."""
        from toolatlas.leases import owned_instances

        return owned_instances(self.instances_root)

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
