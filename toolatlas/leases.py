"""Instance folders owned by a live process, and the sweep of those a killed process left behind.

Every process that prepares environment instances works in a folder of its own under
``<home>/instances/``, named after it and locked (``flock``) for as long as it lives::

    instances/4711-1a2b3c4d/          this process's instances, frozen states and scratch folders
    instances/4711-1a2b3c4d.lock      held by that process; the kernel releases it when it dies

The first time a process asks for its folder, it sweeps the folders whose lock nobody holds: their
owner was killed before it could clean up (a crashed build, a ``kill -9``). A folder whose owner
lives is never touched, however many builds share the home. Folders of the flat layout that came
before owners (``instances/<server>-<id>/``) cannot name an owner; they are removed once nothing
in them has changed for :data:`UNOWNED_GRACE_S`.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import secrets
import threading
import time
from pathlib import Path

import structlog

from toolatlas.environments.base import remove_tree

__all__ = ["UNOWNED_GRACE_S", "owned_instances", "sweep_stale_instances"]

log = structlog.get_logger(__name__)

UNOWNED_GRACE_S = 24 * 3600.0
"""Seconds a folder without an owner lock must have been left untouched before it is removed."""
LOCK_SUFFIX = ".lock"

_owned: dict[Path, Path] = {}
_held: dict[Path, int] = {}
_guard = threading.Lock()


def owned_instances(instances: Path) -> Path:
    """This process's own folder under ``instances`` (created, locked and the stale ones swept on first use)."""
    root = instances.resolve() if instances.exists() else instances.absolute()
    with _guard:
        owned = _owned.get(root)
        if owned is not None and _held.get(owned) is not None and _pid_of(owned) == os.getpid():
            return owned
        root.mkdir(parents=True, exist_ok=True)
        owned = root / f"{os.getpid()}-{secrets.token_hex(4)}"
        # locked under a name no sweeper reads, then renamed: a lock file is never seen unheld
        pending = root / f".{owned.name}.pending"
        fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        owned.mkdir(exist_ok=True)
        os.rename(pending, str(owned) + LOCK_SUFFIX)
        _owned[root], _held[owned] = owned, fd
    swept = sweep_stale_instances(root)
    if swept:
        log.info("stale_instances_removed", folder=str(root), removed=swept)
    return owned


def sweep_stale_instances(instances: Path, *, unowned_grace_s: float = UNOWNED_GRACE_S) -> int:
    """Remove the folders under ``instances`` whose owner is dead; returns how many went."""
    removed = 0
    try:
        entries = list(instances.iterdir())
    except FileNotFoundError:
        return 0
    locks = {entry.name.removesuffix(LOCK_SUFFIX) for entry in entries if entry.name.endswith(LOCK_SUFFIX)}
    for entry in entries:
        if entry.name.endswith(LOCK_SUFFIX):
            if entry.name.removesuffix(LOCK_SUFFIX) in _own_names():
                continue
            if _claim_dead(entry):
                remove_tree(instances / entry.name.removesuffix(LOCK_SUFFIX))
                entry.unlink(missing_ok=True)
                removed += 1
        elif entry.name.startswith("."):
            continue  # an owner being set up, or not ours
        elif entry.name not in locks and entry.name != "frozen" and _untouched_for(entry, unowned_grace_s):
            remove_tree(entry)
            removed += 1
    frozen = instances / "frozen"  # the flat layout's frozen states
    if frozen.is_dir() and _untouched_for(frozen, unowned_grace_s):
        remove_tree(frozen)
    return removed


def _own_names() -> set[str]:
    return {path.name for path in _held}


def _claim_dead(lock: Path) -> bool:
    """Whether the owner of ``lock`` is gone (its flock is free); holds nothing afterwards."""
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def _untouched_for(path: Path, seconds: float) -> bool:
    """Whether neither ``path`` nor anything one or two levels below it changed in the last ``seconds``."""
    horizon = time.time() - seconds
    try:
        stamps = [path.lstat().st_mtime]
        if path.is_dir() and not path.is_symlink():
            for child in path.iterdir():
                stamps.append(child.lstat().st_mtime)
                if child.is_dir() and not child.is_symlink():
                    stamps.extend(grandchild.lstat().st_mtime for grandchild in child.iterdir())
    except OSError:
        return False
    return max(stamps) < horizon


def _pid_of(owned: Path) -> int:
    return int(owned.name.split("-", 1)[0])


@atexit.register
def _release_all() -> None:
    """At a normal exit, remove this process's folders (a killed one is swept by the next start)."""
    for owned, fd in list(_held.items()):
        if _pid_of(owned) != os.getpid():
            continue  # a forked child inherited the table: the folders are its parent's
        with contextlib.suppress(OSError):
            remove_tree(owned)
            Path(str(owned) + LOCK_SUFFIX).unlink(missing_ok=True)
            os.close(fd)
