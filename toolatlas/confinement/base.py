"""What a confined server may do (:class:`Grant`), and the Protocol of a mechanism that enforces it."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar, Protocol, runtime_checkable

import structlog

from toolatlas.client import StdioLaunch
from toolatlas.config.servers import Limits, Network, ServerSpec
from toolatlas.confinement.view import runtime_view
from toolatlas.errors import ConfigError
from toolatlas.models import Frozen
from toolatlas.runtimes import ResolvedRuntime

__all__ = ["Confiner", "Grant", "ResourceLimits", "Unconfined", "grant_for"]

log = structlog.get_logger(__name__)


class ResourceLimits(Frozen):
    """The kernel limits of a confined server (from the catalogue's ``limits``)."""

    memory_mb: int = 4096
    """Address space of each process (``RLIMIT_AS``)."""
    cpu_s: int = 60
    """CPU seconds per call window (the soft ``RLIMIT_CPU``, renewed as calls arrive)."""
    cpu_lifetime_s: int = 3600
    """CPU seconds of one process in all (the hard ``RLIMIT_CPU``, which only privilege could raise)."""
    open_files: int = 1024
    processes: int = 256
    """Processes and threads in the sandbox together (a ``pids`` cgroup, else ``RLIMIT_NPROC``)."""
    file_size_mb: int = 1024

    @classmethod
    def of(cls, limits: Limits) -> ResourceLimits:
        return cls(
            memory_mb=limits.memory_mb,
            cpu_s=limits.cpu_s,
            cpu_lifetime_s=max(limits.cpu_lifetime_s, limits.cpu_s),
            open_files=limits.open_files,
            processes=limits.processes,
            file_size_mb=limits.file_size_mb,
        )


class Grant(Frozen):
    """Everything one confined server process may touch; the rest of the machine does not exist for it."""

    server: str
    read_only: tuple[str, ...] = ()
    """Paths visible read-only beyond the system's (its runtime, its interpreter, granted folders)."""
    writable: tuple[str, ...] = ()
    """The only paths it may change: its instance folder (a build), the paths a deployment names (a proxy)."""
    scratch: str
    """The folder shown as ``/tmp`` (inside a writable path)."""
    network: Network = "none"
    limits: ResourceLimits = ResourceLimits()


@runtime_checkable
class Confiner(Protocol):
    """A mechanism that turns a server's launch into the launch of the same server, confined."""

    mechanism: str
    """``bubblewrap``, or ``none`` for a server the catalogue opted out."""

    def wrap(self, launch: StdioLaunch, grant: Grant) -> StdioLaunch:
        """The launch that runs ``launch`` confined to ``grant`` (raises ConfinementError if it cannot)."""
        ...


class Unconfined:
    """No OS sandbox: for a server the catalogue explicitly opted out (``sandbox.enabled = false``)."""

    mechanism = "none"
    _warned: ClassVar[set[str]] = set()

    def wrap(self, launch: StdioLaunch, grant: Grant) -> StdioLaunch:
        if grant.server not in self._warned:  # once per server and process, not at every restart
            self._warned.add(grant.server)
            log.warning("server_unconfined", server=grant.server, reason="outside the OS sandbox")
        return launch


def grant_for(
    spec: ServerSpec,
    runtime: ResolvedRuntime,
    launch: StdioLaunch,
    *,
    writable: Iterable[str],
    scratch: str,
    base_dir: Path | None = None,
    source: Path | None = None,
) -> Grant:
    """The grant of one server: its runtime's view, the catalogue's extra read-only paths (relative
    ones against ``base_dir``; one that does not exist is a ConfigError naming ``source`` and the
    field), its working folder, and ``writable``."""
    writable = tuple(dict.fromkeys(os.path.abspath(p) for p in writable))
    granted = [str((base_dir or Path.cwd()) / p) if not os.path.isabs(p) else p for p in spec.sandbox.read_only]
    missing = [(f"servers[{spec.name}].sandbox.read_only[{i}]", f"{path} does not exist")
               for i, path in enumerate(granted) if not os.path.exists(path)]  # fmt: skip
    if missing:
        raise ConfigError(str(source) if source else None, missing)
    read_only = [*runtime_view(runtime.location, launch.command, launch.env.get("PATH")), *granted]
    if launch.cwd and not _covered(launch.cwd, [*writable, *read_only]):
        read_only.append(launch.cwd)
    return Grant(
        server=spec.name,
        read_only=tuple(dict.fromkeys(os.path.abspath(p) for p in read_only)),
        writable=writable,
        scratch=scratch,
        network=spec.network,
        limits=ResourceLimits.of(spec.limits),
    )


def _covered(path: str, roots: Iterable[str]) -> bool:
    path = os.path.abspath(path)
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)
