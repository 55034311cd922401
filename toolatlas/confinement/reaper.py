"""Stop every process a build started — when the build ends, and when its driver is killed.

A local Ray instance is a dozen processes started by the driver (GCS, raylet, agents, workers);
``ray.shutdown()`` stops most of them, and a driver killed with ``SIGKILL`` stops none — the raylet
goes, but its dashboard and runtime-env agents stay, listening on every interface. A
:class:`ProcessReaper` is started before Ray: it tags the driver's environment with
``TOOLATLAS_BUILD_TAG=<tag>`` (every process started from then on inherits it) and starts a small
watcher in a session of its own, which waits on a pipe only the driver holds. When the pipe
closes — :meth:`ProcessReaper.stop` at the end of the build, or the kernel closing it when the
driver dies however it dies — the watcher sends ``SIGTERM`` to every process carrying the tag,
``SIGKILL`` to those left after :data:`TERM_GRACE_S`, and exits.

Only processes whose environment carries this build's tag are touched: nothing of another build,
nothing of another user, nor what is meant to outlive builds (the private PostgreSQL cluster is
started without the tag). A process that scrubs its own environment is out of its reach; servers
are not among them — their OS sandbox dies with the worker that started it.

This module is stdlib-only: the watcher runs it as a script (``python -I reaper.py``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time

__all__ = ["TAG_VARIABLE", "ProcessReaper", "tagged_processes"]

TAG_VARIABLE = "TOOLATLAS_BUILD_TAG"
TERM_GRACE_S = 3.0
"""Seconds between SIGTERM and SIGKILL of the processes left behind."""
STOP_TIMEOUT_S = 15.0
"""How long :meth:`ProcessReaper.stop` waits for the watcher to finish its sweep."""


class ProcessReaper:
    """Tags this process's environment and watches, from outside, for the moment it is gone."""

    def __init__(self, tag: str | None = None) -> None:
        self.tag = tag or f"{os.getpid()}-{secrets.token_hex(6)}"
        self._previous = os.environ.get(TAG_VARIABLE)
        read_end, self._write_end = os.pipe()  # both close-on-exec: no child of ours inherits the write end
        os.environ[TAG_VARIABLE] = self.tag
        self._watcher = subprocess.Popen(
            [sys.executable, "-I", "-S", os.path.abspath(__file__), self.tag],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to the driver's terminal does not reach it
            env={k: v for k, v in os.environ.items() if k != TAG_VARIABLE},  # it must not reap itself
        )
        os.close(read_end)

    def stop(self) -> None:
        """The build is over: stop whatever carries its tag now, and untag this process."""
        if self._write_end < 0:
            return
        os.close(self._write_end)
        self._write_end = -1
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._watcher.wait(STOP_TIMEOUT_S)
        if self._previous is None:
            os.environ.pop(TAG_VARIABLE, None)
        else:
            os.environ[TAG_VARIABLE] = self._previous

    def __enter__(self) -> ProcessReaper:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def tagged_processes(tag: str) -> list[int]:
    """Pids of the processes (other than this one) whose environment carries ``tag``."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def _sweep(tag: str) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = tagged_processes(tag)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + TERM_GRACE_S
        while pids and time.monotonic() < deadline:
            time.sleep(0.1)
            pids = [pid for pid in pids if _alive(pid)]
        if not pids:
            return


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _watch(tag: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    while os.read(0, 4096):  # returns b"" once every holder of the write end is gone
        pass
    _sweep(tag)


if __name__ == "__main__":
    _watch(sys.argv[1])
