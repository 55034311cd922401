"""Which files of its state a running server holds open (read from ``/proc``, Linux only).

A reset that moves a state folder's files out and copies the snapshot's in cannot reach a file the server keeps open:
the server goes on with the file it opened — a SQLite connection reads the previous probe's rows and refuses every
write (the database it opened was moved). The sandbox names these files to the reset, which writes them back in place
(:attr:`~toolatlas.environments.base.Instance.held`), or restarts the server where it cannot.
"""

from __future__ import annotations

import os
import stat

__all__ = ["held_files"]

MAX_PROCESSES = 64
"""Processes of one server's tree looked at (a launcher, the sandbox's own, the server and its workers)."""


def held_files(pid: int, folder: str) -> list[str]:
    """The regular files under ``folder`` that process ``pid`` or one of its descendants holds open (sorted; empty
    when ``/proc`` cannot be read, or the processes have gone)."""
    prefix = folder.rstrip("/") + "/"
    found: set[str] = set()
    for process in _tree(pid):
        try:
            fds = os.listdir(f"/proc/{process}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{process}/fd/{fd}")
                if target.startswith(prefix) and stat.S_ISREG(os.stat(f"/proc/{process}/fd/{fd}").st_mode):
                    found.add(target.removesuffix(" (deleted)"))
            except OSError:
                continue
    return sorted(found)


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants, breadth first, at most :data:`MAX_PROCESSES`."""
    seen, queue = [pid], [pid]
    while queue and len(seen) < MAX_PROCESSES:
        current = queue.pop(0)
        for child in _children(current):
            if child not in seen:
                seen.append(child)
                queue.append(child)
    return seen[:MAX_PROCESSES]


def _children(pid: int) -> list[int]:
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    children: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                children += [int(c) for c in handle.read().split()]
        except OSError:
            continue
    return children
