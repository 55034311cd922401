"""The audit hook installed in the code-box child before untrusted code runs. Stdlib only.

It refuses, and reports to the parent *before* refusing, every runtime event of these kinds:

=============  =====================================================================================
rule           events
=============  =====================================================================================
network        any ``socket.*`` event (creating a socket, connect, bind, sendto, name lookups)
write_outside  ``open`` for writing, ``os.remove/rename/link/symlink/mkdir/rmdir/chmod/chown/
               truncate/utime/...xattr``, ``shutil.rmtree`` and read-write ``sqlite3.connect``
               on a path outside the write roots; re-opening an inherited descriptor for writing
subprocess     ``subprocess.Popen``, ``os.system``, ``os.exec*``, ``os.fork``, ``os.forkpty``,
               ``os.spawn*``, ``os.posix_spawn*``
signal         ``os.kill`` of another process, ``os.killpg``
native_code    any ``ctypes.*`` event, importing ``ctypes``, loading SQLite extensions
read_outside   ``open`` for reading, ``os.listdir``, ``os.scandir`` and read-only ``sqlite3.connect``
               of a path outside the read roots, the write roots and the device files
=============  =====================================================================================

Because the report is sent before the :class:`SandboxViolation` is raised, code that catches
the exception is still recorded. An audit hook is not a security boundary on its own (code can
reach C functions that raise no event, e.g. ``os.mkfifo`` or ``os.open`` with ``dir_fd``, or
tamper with interpreter state); the kernel layers of :mod:`_confine` are the enforcement, the
hook is the precise recorder and the guard where those layers are unavailable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["SandboxViolation", "install"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_SUBPROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.fork",
        "os.forkpty",
        "os.spawn",
        "os.posix_spawn",
        "pty.spawn",
    }
)
_PATH_EVENTS: dict[str, tuple[int, ...]] = {
    # event → positions of the arguments that name a path being changed
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.rename": (0, 1),
    "os.link": (0, 1),
    "os.symlink": (1,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.chflags": (0,),
    "os.lchflags": (0,),
    "os.truncate": (0,),
    "os.utime": (0,),
    "os.setxattr": (0,),
    "os.removexattr": (0,),
    "shutil.rmtree": (0,),
}
_NATIVE_IMPORTS = frozenset({"ctypes", "_ctypes"})


class SandboxViolation(PermissionError):
    """Raised in the sandboxed code when it does something the sandbox forbids (already reported)."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"sandbox forbids this ({rule}): {detail}")
        self.rule = rule
        self.detail = detail


def install(
    report: Callable[[dict[str, Any]], None],
    write_roots: list[str],
    write_files: list[str],
    read_roots: list[str] = (),  # type: ignore[assignment]
) -> None:
    """Install the hook; ``report`` sends a violation message to the parent."""
    roots = tuple(os.path.realpath(root) for root in write_roots)
    files = frozenset(os.path.realpath(path) for path in write_files)
    readable_roots = (*roots, *files, *{os.path.realpath(root) for root in read_roots}, *read_roots)
    own_pid = os.getpid()
    realpath, readlink, fspath, fsdecode = os.path.realpath, os.readlink, os.fspath, os.fsdecode
    busy = [False]

    def writable(path: Any) -> bool:
        if isinstance(path, int):
            return writable_descriptor(path)
        try:
            real = realpath(fsdecode(fspath(path)))
        except (TypeError, ValueError):
            return False
        return real in files or any(real == root or real.startswith(root + os.sep) for root in roots)

    def readable(path: Any) -> bool:
        if isinstance(path, int):
            return True  # an open descriptor: whatever it is, opening it was judged then
        try:
            real = realpath(fsdecode(fspath(path)))
        except (TypeError, ValueError):
            return False
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in readable_roots)

    def writable_descriptor(fd: int) -> bool:
        if fd in (1, 2):
            return True
        try:
            target = readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return False
        if not target.startswith("/"):
            return False  # a pipe or socket we inherited: the side channel, not a file
        return writable(target.removesuffix(" (deleted)"))

    def violation(event: str, args: tuple[Any, ...]) -> tuple[str, str] | None:
        if event.startswith("socket."):
            return "network", f"{event}{_brief(args)}"
        if event in _SUBPROCESS_EVENTS:
            return "subprocess", f"{event}{_brief(args)}"
        if event.startswith("ctypes.") or (event == "import" and args[0] in _NATIVE_IMPORTS):
            return "native_code", f"{event}{_brief(args)}"
        if event == "open":
            path, mode, flags = args
            writes = (isinstance(flags, int) and flags & _WRITE_FLAGS) or (
                isinstance(mode, str) and any(c in mode for c in "wax+")
            )
            if writes and path is not None and not writable(path):
                return "write_outside", f"open {_shown(path)} for writing"
            if not writes and path is not None and not readable(path):
                return "read_outside", f"open {_shown(path)} for reading"
            return None
        if event in ("os.listdir", "os.scandir"):
            path = args[0] if args[0] is not None else "."
            if not readable(path):
                return "read_outside", f"{event} {_shown(path)}"
            return None
        if event in _PATH_EVENTS:
            for position in _PATH_EVENTS[event]:
                if not writable(args[position]):
                    return "write_outside", f"{event} {_shown(args[position])}"
            return None
        if event == "sqlite3.connect":
            return _sqlite_violation(args[0], writable, readable)
        if event == "sqlite3.enable_load_extension" and args[1]:
            return "native_code", "sqlite3 extension loading"
        if event == "os.kill" and args[0] != own_pid:
            return "signal", f"os.kill pid {args[0]}"
        if event == "os.killpg":
            return "signal", f"os.killpg {args[0]}"
        return None

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if busy[0]:
            return
        busy[0] = True
        try:
            found = violation(event, args)
        finally:
            busy[0] = False
        if found is not None:
            rule, detail = found
            report({"event": "violation", "rule": rule, "detail": detail})
            raise SandboxViolation(rule, detail)

    sys.addaudithook(hook)


def _sqlite_violation(
    database: Any, writable: Callable[[Any], bool], readable: Callable[[Any], bool]
) -> tuple[str, str] | None:
    """A read-write SQLite open outside the write roots (``file:...?mode=ro`` URIs are reads), or
    a read of a database outside the read roots."""
    if isinstance(database, bytes):
        database = os.fsdecode(database)
    if not isinstance(database, str):
        database = os.fspath(database)
    if database in ("", ":memory:"):
        return None
    if database.startswith("file:"):
        path, _, query = database[5:].partition("?")
        params = dict(part.partition("=")[::2] for part in query.split("&") if part)
        if params.get("mode") == "memory":
            return None
        database = path.removeprefix("//localhost").removeprefix("//") if path.startswith("//") else path
        if params.get("mode") == "ro" or params.get("immutable") == "1":
            return None if readable(database) else ("read_outside", f"sqlite3.connect {database!r}")
    if writable(database):
        return None
    return (
        "write_outside",
        f"sqlite3.connect {database!r} read-write (open it with 'file:...?mode=ro', uri=True)",
    )


def _brief(args: tuple[Any, ...], limit: int = 160) -> str:
    text = repr(args)
    return " " + (text if len(text) <= limit else text[: limit - 1] + "…")


def _shown(path: Any) -> str:
    return repr(os.fsdecode(path)) if isinstance(path, str | bytes) else repr(path)
