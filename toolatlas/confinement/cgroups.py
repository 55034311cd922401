"""A bound on the processes of one sandbox: a ``pids`` cgroup of its own.

``RLIMIT_NPROC`` cannot bound a sandbox started by root (the kernel exempts uid 0) and, for any
other user, counts every process of that user on the machine. A ``pids`` cgroup counts exactly the
processes and threads of one sandbox, whoever runs it. Where this process may create cgroups
(root, or a delegated cgroup v2 subtree), every sandbox gets one::

    <pids hierarchy>/toolatlas/<owner>/<launcher pid>/     pids.max = Limits.processes

``<owner>`` is the creating process (``<pid>-<start time>``, so a reused pid is told apart).
The sandbox's launcher writes itself into its cgroup before anything else runs, so nothing it
starts escapes the count. The folder is removed when the sandbox has exited; those of a dead
owner are removed (after their processes are killed) the first time another owner starts.
Where no cgroup can be made, :func:`pids_cgroups` is None and the launcher falls back to
``RLIMIT_NPROC`` inside the sandbox's own user namespace (where the kernel counts per sandbox).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import threading
import time
from pathlib import Path

import structlog

__all__ = ["PidsCgroups", "pids_cgroups"]

log = structlog.get_logger(__name__)

TOP = "toolatlas"
RELEASE_RETRY_S = 10.0
"""How long the removal of an exited sandbox's cgroup is retried while its processes are reaped."""
PREPARE_ATTEMPTS = 5


class PidsCgroups:
    """This process's folder in the ``pids`` hierarchy and the sandbox cgroups below it."""

    def __init__(self, root: Path, *, unified: bool) -> None:
        self.root = root
        """The folder that holds every owner's cgroups (``<hierarchy>/toolatlas``)."""
        self.unified = unified
        self.owner = root / _owner_name(os.getpid())
        self._pending: set[Path] = set()
        self._lock = threading.Lock()

    def prepare(self) -> Path:
        """Create this process's folder (sweeping dead owners' first) and return it.

        Several owners prepare at once (the workers of one machine), and the kernel answers a
        ``mkdir`` below a cgroup that is being created or emptied elsewhere with ``ENOENT``: the
        folders are made again a few times before that is an error."""
        if self.owner.is_dir():
            return self.owner
        for attempt in range(PREPARE_ATTEMPTS):
            try:
                self.root.mkdir(exist_ok=True)
                self._enable_pids(self.root)
                swept = sweep_dead_owners(self.root)
                if swept:
                    log.info("stale_cgroups_removed", folder=str(self.root), removed=swept)
                self.owner.mkdir(exist_ok=True)
                break
            except FileNotFoundError:
                if attempt == PREPARE_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        self._enable_pids(self.owner)
        return self.owner

    def release(self, launcher_pid: int) -> None:
        """Remove the cgroup of a sandbox whose launcher has exited; while the kernel is still
        reaping its processes, a background thread retries for :data:`RELEASE_RETRY_S`."""
        group = self.owner / str(launcher_pid)
        if _remove(group):
            return
        with self._lock:
            self._pending.add(group)
        threading.Thread(target=self._retry, args=(group,), name="pids-cgroup-release", daemon=True).start()

    def _retry(self, group: Path) -> None:
        deadline = time.monotonic() + RELEASE_RETRY_S
        while time.monotonic() < deadline:
            time.sleep(0.05)
            if _remove(group):
                with self._lock:
                    self._pending.discard(group)
                return

    def release_all(self) -> None:
        if not _alive(self.owner.name) or self.owner.name != _owner_name(os.getpid()):
            return  # a forked child inherited this object: the folder is its parent's
        with self._lock:
            self._pending = {group for group in self._pending if not _remove(group)}
        with contextlib.suppress(OSError):
            for group in self.owner.iterdir():
                if group.is_dir():
                    _kill_members(group)
                    _remove(group)
            self.owner.rmdir()

    def _enable_pids(self, folder: Path) -> None:
        """cgroup v2: let the children of ``folder`` have a ``pids`` controller."""
        if not self.unified:
            return
        with contextlib.suppress(OSError):
            (folder.parent / "cgroup.subtree_control").write_text("+pids")
        with contextlib.suppress(OSError):
            (folder / "cgroup.subtree_control").write_text("+pids")


@functools.cache
def pids_cgroups() -> PidsCgroups | None:
    """The ``pids`` cgroups this process may create sandboxes in, or None where it may not."""
    found = _pids_hierarchy()
    if found is None:
        return None
    mount, unified = found
    root = mount / TOP
    try:
        root.mkdir(exist_ok=True)
        probe = root / f".probe-{os.getpid()}"
        probe.mkdir()
        writable = (probe / "cgroup.procs").exists() and os.access(probe / "cgroup.procs", os.W_OK)
        probe.rmdir()
    except OSError as exc:
        log.debug("pids_cgroups_unavailable", folder=str(root), error=str(exc))
        return None
    if not writable:
        return None
    cgroups = PidsCgroups(root, unified=unified)
    if unified:
        cgroups._enable_pids(root)
        if not (root / "cgroup.subtree_control").read_text().split().count("pids"):
            return None
    atexit.register(cgroups.release_all)
    return cgroups


def sweep_dead_owners(root: Path) -> int:
    """Kill what is left in the cgroups of owners that are gone, and remove them; returns how many."""
    removed = 0
    for owner in root.iterdir():
        if not owner.is_dir() or owner.name.startswith(".") or _alive(owner.name):
            continue
        try:
            groups = [group for group in owner.iterdir() if group.is_dir()]
        except FileNotFoundError:
            continue  # another owner of this machine swept it first
        for group in groups:
            _kill_members(group)
            _remove_when_empty(group)
        if _remove(owner):
            removed += 1
    return removed


def _remove_when_empty(group: Path, seconds: float = 2.0) -> bool:
    """rmdir a cgroup whose members were just killed, as soon as the kernel has reaped them."""
    deadline = time.monotonic() + seconds
    while not _remove(group):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _pids_hierarchy() -> tuple[Path, bool] | None:
    """``(mount point, is cgroup v2)`` of the hierarchy with the ``pids`` controller."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    unified: Path | None = None
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        fstype, options = tail[0], tail[2].split(",")
        if fstype == "cgroup" and "pids" in options:
            return Path(fields[4]), False
        if fstype == "cgroup2":
            unified = Path(fields[4])
    if unified is not None:
        with contextlib.suppress(OSError):
            if "pids" in (unified / "cgroup.controllers").read_text().split():
                return unified, True
    return None


def _owner_name(pid: int) -> str:
    return f"{pid}-{_start_time(pid)}"


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (field 22 of ``/proc/<pid>/stat``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return stat.rsplit(")", 1)[1].split()[19]


def _alive(owner: str) -> bool:
    pid, _, started = owner.partition("-")
    return pid.isdigit() and _start_time(int(pid)) == started


def _kill_members(group: Path) -> None:
    with contextlib.suppress(OSError):
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)


def _remove(group: Path) -> bool:
    """rmdir a cgroup; False while it still has members (or is gone already: True)."""
    try:
        group.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True
